//! Challenges' SQL (`skat_challenges`, `skat_challenge_opponents`): made by a challenger,
//! answered by each opponent, accepted by exactly one conditional update (so two last
//! answers at once start one meeting, not two).

use skat_league::{AccountId, ChallengeId, ChallengeState, ChallengeTerms, TournamentId};
use sqlx::Row as _;

use super::{Store, StoreError, to_i64, to_u64};

/// A challenge as stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ChallengeRow {
    pub(crate) challenge_id: ChallengeId,
    pub(crate) challenger: AccountId,
    /// The opponents in the order they were named, with their answers so far.
    pub(crate) opponents: Vec<(AccountId, Answer)>,
    pub(crate) terms: ChallengeTerms,
    /// As stored, with expiry read from `expires_ms` at the time of reading.
    pub(crate) state: ChallengeState,
    pub(crate) tournament_id: Option<TournamentId>,
    pub(crate) created_ms: u64,
    pub(crate) expires_ms: u64,
}

/// An opponent's answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Answer {
    None,
    Accept,
    Decline,
}

impl Answer {
    fn as_str(self) -> &'static str {
        match self {
            Answer::None => "",
            Answer::Accept => "accept",
            Answer::Decline => "decline",
        }
    }

    fn stored(s: &str) -> Answer {
        match s {
            "accept" => Answer::Accept,
            "decline" => Answer::Decline,
            _ => Answer::None,
        }
    }
}

/// What an answer did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Answered {
    /// Recorded; others still have to answer (or it was declined).
    Recorded,
    /// This answer was the last acceptance: the caller starts the meeting.
    AllAccepted,
    /// The opponent had answered already, or the challenge is not pending.
    TooLate,
}

impl Store {
    /// Stores a new challenge.
    pub(crate) async fn create_challenge(&self, c: &ChallengeRow) -> Result<(), StoreError> {
        let mut tx = self.pool.begin().await?;
        sqlx::query(
            "INSERT INTO skat_challenges (challenge_id, challenger_id, spec, state, tournament_id, created_ms, expires_ms) \
             VALUES ($1,$2,$3,$4,'',$5,$6)",
        )
        .bind(c.challenge_id.as_str())
        .bind(c.challenger.as_str())
        .bind(serde_json::to_string(&c.terms).map_err(|e| StoreError::Corrupt(e.to_string()))?)
        .bind(ChallengeState::Pending.as_str())
        .bind(to_i64(c.created_ms))
        .bind(to_i64(c.expires_ms))
        .execute(&mut *tx)
        .await?;
        for (place, (account, _)) in c.opponents.iter().enumerate() {
            sqlx::query(
                "INSERT INTO skat_challenge_opponents (challenge_id, account_id, place, answer) VALUES ($1,$2,$3,'')",
            )
            .bind(c.challenge_id.as_str())
            .bind(account.as_str())
            .bind(place as i64)
            .execute(&mut *tx)
            .await?;
        }
        tx.commit().await?;
        Ok(())
    }

    /// How many challenges an account made since `since_ms`.
    pub(crate) async fn challenges_since(
        &self,
        challenger: &AccountId,
        since_ms: u64,
    ) -> Result<u64, StoreError> {
        let row = sqlx::query(
            "SELECT COUNT(*) AS n FROM skat_challenges WHERE challenger_id = $1 AND created_ms >= $2",
        )
        .bind(challenger.as_str())
        .bind(to_i64(since_ms))
        .fetch_one(&self.pool)
        .await?;
        Ok(to_u64(row.try_get("n")?))
    }

    /// One challenge, as it stands at `now_ms`.
    pub(crate) async fn challenge(
        &self,
        id: &ChallengeId,
        now_ms: u64,
    ) -> Result<Option<ChallengeRow>, StoreError> {
        let row = sqlx::query(
            "SELECT challenge_id, challenger_id, spec, state, tournament_id, created_ms, expires_ms \
             FROM skat_challenges WHERE challenge_id = $1",
        )
        .bind(id.as_str())
        .fetch_optional(&self.pool)
        .await?;
        match row {
            Some(r) => Ok(Some(self.challenge_from(&r, now_ms).await?)),
            None => Ok(None),
        }
    }

    /// The challenges an account made or was offered, newest first (at most `limit`).
    pub(crate) async fn challenges_of(
        &self,
        account: &AccountId,
        pending_only: bool,
        now_ms: u64,
        limit: u64,
    ) -> Result<Vec<ChallengeRow>, StoreError> {
        let rows = sqlx::query(
            "SELECT challenge_id, challenger_id, spec, state, tournament_id, created_ms, expires_ms FROM skat_challenges \
             WHERE (challenger_id = $1 OR challenge_id IN \
                    (SELECT challenge_id FROM skat_challenge_opponents WHERE account_id = $1)) \
               AND ($2 = 0 OR (state = 'pending' AND expires_ms > $3)) \
             ORDER BY created_ms DESC, challenge_id LIMIT $4",
        )
        .bind(account.as_str())
        .bind(i64::from(pending_only))
        .bind(to_i64(now_ms))
        .bind(to_i64(limit))
        .fetch_all(&self.pool)
        .await?;
        let mut out = Vec::with_capacity(rows.len());
        for r in &rows {
            out.push(self.challenge_from(r, now_ms).await?);
        }
        Ok(out)
    }

    async fn challenge_from(&self, r: &sqlx::any::AnyRow, now_ms: u64) -> Result<ChallengeRow, StoreError> {
        let corrupt = |e: String| StoreError::Corrupt(e);
        let id: String = r.try_get("challenge_id")?;
        let challenge_id: ChallengeId = id.parse().map_err(corrupt)?;
        let challenger: String = r.try_get("challenger_id")?;
        let spec: String = r.try_get("spec")?;
        let tournament: String = r.try_get("tournament_id")?;
        let expires_ms = to_u64(r.try_get("expires_ms")?);
        let state: String = r.try_get("state")?;
        let answers = sqlx::query(
            "SELECT account_id, answer FROM skat_challenge_opponents WHERE challenge_id = $1 ORDER BY place",
        )
        .bind(challenge_id.as_str())
        .fetch_all(&self.pool)
        .await?;
        let opponents = answers
            .iter()
            .map(|a| {
                let id: String = a.try_get("account_id")?;
                let answer: String = a.try_get("answer")?;
                Ok((id.parse::<AccountId>().map_err(corrupt)?, Answer::stored(&answer)))
            })
            .collect::<Result<Vec<_>, StoreError>>()?;
        Ok(ChallengeRow {
            challenge_id,
            challenger: challenger.parse().map_err(corrupt)?,
            opponents,
            terms: serde_json::from_str(&spec).map_err(|e| corrupt(e.to_string()))?,
            state: ChallengeState::stored(&state, expires_ms, now_ms),
            tournament_id: if tournament.is_empty() {
                None
            } else {
                Some(tournament.parse().map_err(corrupt)?)
            },
            created_ms: to_u64(r.try_get("created_ms")?),
            expires_ms,
        })
    }

    /// Records `account`'s answer to a pending, unexpired challenge. A decline declines
    /// it; the last acceptance moves it to accepted (one caller only sees `AllAccepted`).
    pub(crate) async fn answer_challenge(
        &self,
        id: &ChallengeId,
        account: &AccountId,
        accept: bool,
        now_ms: u64,
    ) -> Result<Answered, StoreError> {
        let mut tx = self.pool.begin().await?;
        let answer = if accept { Answer::Accept } else { Answer::Decline };
        let recorded = sqlx::query(
            "UPDATE skat_challenge_opponents SET answer = $1 WHERE challenge_id = $2 AND account_id = $3 AND answer = '' \
             AND challenge_id IN (SELECT challenge_id FROM skat_challenges WHERE state = 'pending' AND expires_ms > $4)",
        )
        .bind(answer.as_str())
        .bind(id.as_str())
        .bind(account.as_str())
        .bind(to_i64(now_ms))
        .execute(&mut *tx)
        .await?;
        if recorded.rows_affected() == 0 {
            return Ok(Answered::TooLate);
        }
        let outcome = if !accept {
            sqlx::query(
                "UPDATE skat_challenges SET state = 'declined' WHERE challenge_id = $1 AND state = 'pending'",
            )
            .bind(id.as_str())
            .execute(&mut *tx)
            .await?;
            Answered::Recorded
        } else {
            let waiting = sqlx::query(
                "SELECT COUNT(*) AS n FROM skat_challenge_opponents WHERE challenge_id = $1 AND answer <> 'accept'",
            )
            .bind(id.as_str())
            .fetch_one(&mut *tx)
            .await?;
            let waiting: i64 = waiting.try_get("n")?;
            let moved = if waiting == 0 {
                sqlx::query(
                    "UPDATE skat_challenges SET state = 'accepted' WHERE challenge_id = $1 AND state = 'pending'",
                )
                .bind(id.as_str())
                .execute(&mut *tx)
                .await?
                .rows_affected()
            } else {
                0
            };
            if moved == 1 { Answered::AllAccepted } else { Answered::Recorded }
        };
        tx.commit().await?;
        Ok(outcome)
    }

    /// Notes the meeting an accepted challenge became.
    pub(crate) async fn set_challenge_tournament(
        &self,
        id: &ChallengeId,
        tournament: &TournamentId,
    ) -> Result<(), StoreError> {
        sqlx::query("UPDATE skat_challenges SET tournament_id = $1 WHERE challenge_id = $2")
            .bind(tournament.as_str())
            .bind(id.as_str())
            .execute(&self.pool)
            .await?;
        Ok(())
    }

    /// Whether a tournament's lists count for the ratings (a challenge's may not).
    pub(crate) async fn tournament_rated(&self, tournament: &TournamentId) -> Result<bool, StoreError> {
        let row = sqlx::query("SELECT spec FROM skat_tournaments WHERE tournament_id = $1")
            .bind(tournament.as_str())
            .fetch_optional(&self.pool)
            .await?;
        let Some(row) = row else { return Ok(true) };
        let spec: String = row.try_get("spec")?;
        let spec: skat_league::TournamentSpec =
            serde_json::from_str(&spec).map_err(|e| StoreError::Corrupt(e.to_string()))?;
        Ok(!spec.unrated)
    }
}
