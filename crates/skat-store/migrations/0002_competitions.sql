-- Competitions: bot accounts, tournaments and their tables, ratings.

CREATE TABLE skat_accounts (
    account_id  TEXT PRIMARY KEY,
    name        TEXT NOT NULL UNIQUE,
    owner       TEXT NOT NULL,               -- a note: who runs the bot
    token_hash  TEXT NOT NULL,               -- SHA-256 of the bot token (the token is shown once)
    disabled    BIGINT NOT NULL,             -- 0 or 1
    max_tables  BIGINT NOT NULL,             -- tables at once
    created_ms  BIGINT NOT NULL
);

CREATE TABLE skat_tournaments (
    tournament_id TEXT PRIMARY KEY,
    owner         TEXT NOT NULL,             -- the replica that runs its scheduler
    name          TEXT NOT NULL,
    spec          TEXT NOT NULL,             -- JSON: entrants, seats, deals, lists, clocks, seed
    status        TEXT NOT NULL,             -- running | finished
    created_ms    BIGINT NOT NULL,
    finished_ms   BIGINT NOT NULL
);

-- One row per planned table: a list of a meeting of entrants in one seat rotation.
CREATE TABLE skat_tournament_tables (
    tournament_id TEXT NOT NULL,
    n             BIGINT NOT NULL,           -- its place in the plan
    seating       TEXT NOT NULL,             -- JSON: account ids by seat
    seed          BIGINT NOT NULL,
    table_id      TEXT NOT NULL,             -- '' until it is created
    status        TEXT NOT NULL,             -- pending | playing | finished
    result        TEXT NOT NULL,             -- JSON: per seat Seeger-Fabian, plain, declared, won, penalties
    PRIMARY KEY (tournament_id, n)
);

CREATE TABLE skat_ratings (
    account_id  TEXT PRIMARY KEY,
    rating      DOUBLE PRECISION NOT NULL,
    uncertainty DOUBLE PRECISION NOT NULL,
    lists       BIGINT NOT NULL,
    updated_ms  BIGINT NOT NULL
);

CREATE TABLE skat_rating_history (
    account_id  TEXT NOT NULL,
    at_ms       BIGINT NOT NULL,
    table_id    TEXT NOT NULL,
    rating      DOUBLE PRECISION NOT NULL,
    uncertainty DOUBLE PRECISION NOT NULL,
    PRIMARY KEY (account_id, at_ms, table_id)
);
