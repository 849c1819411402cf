-- The hot log: every input is first appended here, in commit order (`seq`, per replica).
-- The journal's writer later moves a few seconds' worth at a time into `skat_entries`,
-- sorted by table, and then forgets that stretch of the log. A row is in the log, in
-- `skat_entries`, or (between a move and its forgetting) in both: readers take the
-- union. Replicas share this table, each appending under its own owner; the index on
-- `table_id` serves reads of one table (a takeover, a record from another replica).

CREATE TABLE skat_log (
    owner    TEXT NOT NULL,                  -- the replica that wrote it ('' without a node id)
    seq      BIGINT NOT NULL,                -- that replica's order, increasing
    table_id TEXT NOT NULL,
    n        BIGINT NOT NULL,
    at_ms    BIGINT NOT NULL,
    body     TEXT NOT NULL,
    checksum TEXT NOT NULL,
    PRIMARY KEY (owner, seq)
);

CREATE INDEX skat_log_table ON skat_log (table_id, n);
