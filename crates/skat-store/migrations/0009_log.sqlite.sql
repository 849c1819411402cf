-- The hot log: every input is first appended here, in commit order (`seq`, the rowid:
-- each commit writes at the end of one b-tree, a page or two, whatever tables it
-- carries). The journal's writer later moves a few seconds' worth at a time into
-- `skat_entries`, sorted by table, so that each table's leaf of that key is written once
-- per move rather than once per action, and then forgets that stretch of the log.
-- A row is in the log, in `skat_entries`, or (between a move and its forgetting) in
-- both: readers take the union. (SQLite: `seq INTEGER PRIMARY KEY` is the rowid.)

CREATE TABLE skat_log (
    seq      INTEGER PRIMARY KEY,            -- the writer's order, increasing
    owner    TEXT NOT NULL,                  -- the replica that wrote it ('' without a node id)
    table_id TEXT NOT NULL,
    n        BIGINT NOT NULL,
    at_ms    BIGINT NOT NULL,
    body     TEXT NOT NULL,
    checksum TEXT NOT NULL
);
