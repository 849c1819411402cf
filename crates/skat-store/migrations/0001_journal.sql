-- The journal: one row per table (its summary, for listings) and one row per input
-- (created, joined, left, acted, timed out) in the order the table accepted them.
-- Portable SQL: the same text runs on SQLite and PostgreSQL.

CREATE TABLE skat_tables (
    table_id     TEXT PRIMARY KEY,
    owner        TEXT NOT NULL,            -- the replica that writes it ('' without a node id)
    name         TEXT NOT NULL,
    seats        BIGINT NOT NULL,
    deals        BIGINT NOT NULL,
    private      BIGINT NOT NULL,          -- 0 or 1
    status       TEXT NOT NULL,            -- waiting | playing | finished | abandoned
    occupied     BIGINT NOT NULL,
    deals_played BIGINT NOT NULL,
    players      TEXT NOT NULL,            -- JSON array of names, by seat
    created_ms   BIGINT NOT NULL,
    finished_ms  BIGINT NOT NULL           -- 0 while waiting or playing
);

CREATE INDEX skat_tables_owner_status ON skat_tables (owner, status);
CREATE INDEX skat_tables_created ON skat_tables (created_ms, table_id);
CREATE INDEX skat_tables_finished ON skat_tables (status, finished_ms);

CREATE TABLE skat_entries (
    table_id TEXT NOT NULL,
    n        BIGINT NOT NULL,                -- 0 for `created`, then 1, 2, ...
    at_ms    BIGINT NOT NULL,
    body     TEXT NOT NULL,                  -- the input as JSON
    checksum TEXT NOT NULL,                  -- SHA-256 of table_id, n, at_ms and body
    PRIMARY KEY (table_id, n)
);
