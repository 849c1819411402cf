-- Challenges: an account invites others to a duplicate meeting; when every opponent
-- accepted it becomes a tournament of format challenge. Kept as long as tables are
-- (`--retention`: purge_ended_before deletes those made before it, once answered or expired).
CREATE TABLE skat_challenges (
    challenge_id   TEXT PRIMARY KEY,          -- random
    challenger_id  TEXT NOT NULL,
    spec           TEXT NOT NULL,             -- JSON: seats, deals, lists, time control, rated
    state          TEXT NOT NULL,             -- pending, accepted, declined (expiry is read from expires_ms)
    tournament_id  TEXT NOT NULL,             -- '' until accepted
    created_ms     BIGINT NOT NULL,
    expires_ms     BIGINT NOT NULL
);
CREATE INDEX skat_challenges_challenger ON skat_challenges (challenger_id, created_ms);

-- Each opponent's answer: '' (none yet), 'accept', 'decline'.
CREATE TABLE skat_challenge_opponents (
    challenge_id   TEXT NOT NULL,
    account_id     TEXT NOT NULL,
    place          BIGINT NOT NULL,           -- the order the challenger named them in
    answer         TEXT NOT NULL,
    PRIMARY KEY (challenge_id, account_id)
);
CREATE INDEX skat_challenge_opponents_account ON skat_challenge_opponents (account_id);
