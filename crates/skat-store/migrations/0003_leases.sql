-- Casual meetings, scheduler leases (one scheduler per tournament across replicas), and
-- when each planned table finished (a bot's recent lists).

ALTER TABLE skat_tournaments ADD COLUMN casual BIGINT NOT NULL DEFAULT 0;             -- 1: made by casual matchmaking
ALTER TABLE skat_tournaments ADD COLUMN lease_holder TEXT NOT NULL DEFAULT '';        -- the replica whose scheduler runs it
ALTER TABLE skat_tournaments ADD COLUMN lease_until_ms BIGINT NOT NULL DEFAULT 0;     -- its lease ends then unless renewed
ALTER TABLE skat_tournament_tables ADD COLUMN finished_ms BIGINT NOT NULL DEFAULT 0;

CREATE INDEX skat_tournaments_created ON skat_tournaments (created_ms);
CREATE INDEX skat_tournament_tables_status ON skat_tournament_tables (status);
