-- Every key of every name an account has had (skat_league::name_keys: the confusable
-- skeleton of the name as written, in small letters and in capitals, with and without
-- combining marks). The key is the primary key, so no account can take a name that
-- shares a key with another account's name, current or former: Greek `ΗΕΑΤ` beside
-- Latin `HEAT`, `kermit́` beside `kermit`. The keys are computed in Rust (UTS #39 is not
-- SQL): names from before this migration get theirs when the server starts, and two old
-- names that turn out to be one are logged for the operator, both kept.
CREATE TABLE skat_account_name_keys (
    name_key    TEXT PRIMARY KEY,
    account_id  TEXT NOT NULL,
    name        TEXT NOT NULL               -- the name the key was made from
);
CREATE INDEX skat_account_name_keys_account ON skat_account_name_keys (account_id, name);
