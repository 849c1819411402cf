-- Hosted bots (docs/hosted-bots.md). A version is immutable: its digest names the
-- archive stored beside the journal (`<data-dir>/images/sha256-<hex>.tar`) or the image
-- reference it pins. At most one version of an account is active.
CREATE TABLE skat_bot_versions (
    account_id    TEXT NOT NULL,
    digest        TEXT NOT NULL,            -- sha256:<64 hex>
    image_ref     TEXT NOT NULL,            -- '' for an archive
    size_bytes    BIGINT NOT NULL,
    command       TEXT NOT NULL,            -- JSON array of argv words
    sdk           TEXT NOT NULL,
    state         TEXT NOT NULL,            -- pending | approved | failed
    active        BIGINT NOT NULL,          -- 1: the version that plays
    failure       TEXT NOT NULL,
    submitted_ms  BIGINT NOT NULL,
    PRIMARY KEY (account_id, digest)
);
-- A hosted tournament's entrants and the version each plays, pinned at creation, with
-- the sandbox's size.
CREATE TABLE skat_hosted_pins (
    tournament_id TEXT NOT NULL,
    account_id    TEXT NOT NULL,
    digest        TEXT NOT NULL,
    cpu_millis    BIGINT NOT NULL,
    memory_mib    BIGINT NOT NULL,
    PRIMARY KEY (tournament_id, account_id)
);
-- Sandboxes as the runner reported them (the newest 50 per account are kept, each with
-- at most 1 MiB of output).
CREATE TABLE skat_sandboxes (
    sandbox_id     TEXT PRIMARY KEY,
    account_id     TEXT NOT NULL,
    digest         TEXT NOT NULL,
    table_id       TEXT NOT NULL,
    seat           BIGINT NOT NULL,
    tournament_id  TEXT NOT NULL,
    outcome        TEXT NOT NULL,
    exit_code      BIGINT NOT NULL,
    cpu_ms         BIGINT NOT NULL,
    memory_peak    BIGINT NOT NULL,
    started_ms     BIGINT NOT NULL,
    ended_ms       BIGINT NOT NULL,
    detail         TEXT NOT NULL,
    log            TEXT NOT NULL,
    log_truncated  BIGINT NOT NULL
);
CREATE INDEX skat_sandboxes_account ON skat_sandboxes (account_id, started_ms);
