-- A season's operator: every name an account has had (unique by key), removal, last
-- seen, and the audit log of admin actions.

ALTER TABLE skat_accounts ADD COLUMN removed_ms BIGINT NOT NULL DEFAULT 0;     -- 0: not removed
ALTER TABLE skat_accounts ADD COLUMN last_seen_ms BIGINT NOT NULL DEFAULT 0;   -- a lobby opened or closed

-- Every name an account has had. Its key (NFKC, case folded, UTS #39 confusable
-- skeleton: skat_league::name_key) is the primary key, so no account can take a
-- look-alike of another's name, current or former. Rows of accounts made before this
-- migration are written when the server starts (the key is computed in Rust).
CREATE TABLE skat_account_names (
    name_key    TEXT PRIMARY KEY,
    account_id  TEXT NOT NULL,
    name        TEXT NOT NULL,
    since_ms    BIGINT NOT NULL,
    until_ms    BIGINT NOT NULL              -- 0: the current name
);
CREATE INDEX skat_account_names_account ON skat_account_names (account_id);

-- What was done with the admin token.
CREATE TABLE skat_audit (
    entry_id    TEXT PRIMARY KEY,            -- random
    at_ms       BIGINT NOT NULL,
    actor       TEXT NOT NULL,               -- `admin`
    peer        TEXT NOT NULL,               -- the client's address
    action      TEXT NOT NULL,               -- register-bot, update-bot, create-tournament, ...
    target      TEXT NOT NULL,               -- an account name, a tournament id
    detail      TEXT NOT NULL                -- the change in words (never a token)
);
CREATE INDEX skat_audit_at ON skat_audit (at_ms);

-- A JSON record names its tournament: found by its table.
CREATE INDEX skat_tournament_tables_table ON skat_tournament_tables (table_id);
