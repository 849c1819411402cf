-- A finished table's analysis (AnalyzeTable), computed once per table and settings and
-- kept as long as the table is: deleted with it by the retention (purge_ended_before).
CREATE TABLE skat_analyses (
    table_id     TEXT NOT NULL,
    settings     TEXT NOT NULL,             -- worlds and nodes it was computed with
    deals        TEXT NOT NULL,             -- a JSON array of the deals' analyses
    summary      TEXT NOT NULL,             -- JSON, the players' accuracy
    worlds       BIGINT NOT NULL,
    computed_ms  BIGINT NOT NULL,
    took_ms      BIGINT NOT NULL,
    PRIMARY KEY (table_id, settings)
);
