-- A version of a hosted bot is its image and its command (docs/hosted-bots.md): two
-- submissions of one image with different commands are two versions, each named by
-- `version_id`: the image digest's first 12 hex digits, and `-` with the first 8 of the
-- SHA-256 of the command's JSON array when the version runs a command of its own.
-- Versions from before were one per image: each keeps its image's 12 digits as its name.
CREATE TABLE skat_bot_versions_2 (
    account_id    TEXT NOT NULL,
    version_id    TEXT NOT NULL,
    digest        TEXT NOT NULL,            -- sha256:<64 hex> of the image
    image_ref     TEXT NOT NULL,            -- '' for an archive
    size_bytes    BIGINT NOT NULL,
    command       TEXT NOT NULL,            -- JSON array of argv words
    sdk           TEXT NOT NULL,
    state         TEXT NOT NULL,            -- pending | approved | failed
    active        BIGINT NOT NULL,          -- 1: the version that plays
    failure       TEXT NOT NULL,
    submitted_ms  BIGINT NOT NULL,
    PRIMARY KEY (account_id, version_id)
);
INSERT INTO skat_bot_versions_2 (account_id, version_id, digest, image_ref, size_bytes, command, sdk,
        state, active, failure, submitted_ms)
    SELECT account_id, SUBSTR(digest, 8, 12), digest, image_ref, size_bytes, command, sdk, state, active,
        failure, submitted_ms
    FROM skat_bot_versions;
DROP TABLE skat_bot_versions;
ALTER TABLE skat_bot_versions_2 RENAME TO skat_bot_versions;
-- What a hosted tournament pinned, and what a sandbox ran, by the version's name; and the
-- runner that ran a sandbox.
ALTER TABLE skat_hosted_pins ADD COLUMN version_id TEXT NOT NULL DEFAULT '';
UPDATE skat_hosted_pins SET version_id = SUBSTR(digest, 8, 12);
ALTER TABLE skat_sandboxes ADD COLUMN version_id TEXT NOT NULL DEFAULT '';
UPDATE skat_sandboxes SET version_id = SUBSTR(digest, 8, 12);
ALTER TABLE skat_sandboxes ADD COLUMN runner TEXT NOT NULL DEFAULT '';
