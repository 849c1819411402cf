//! Challenges' SQL (`skat_challenges`, `skat_challenge_opponents`): made by a challenger,
//! answered by each opponent, accepted by exactly one conditional update (so two last
//! answers at once start one meeting, not two), in the transaction that stores the
//! meeting with its id (so no reader, crash or failed insert ever leaves a challenge
//! accepted without its meeting).

use skat_league::{AccountId, ChallengeId, ChallengeState, ChallengeTerms, PlannedTable, TournamentId};
use sqlx::Row as _;

use super::tournaments::{Tournament, TournamentRepo};
use super::{Db, StoreError, to_i64, to_u64};

/// A challenge as stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChallengeRow {
    /// Its id.
    pub challenge_id: ChallengeId,
    /// Who challenged.
    pub challenger: AccountId,
    /// The opponents in the order they were named, with their answers so far.
    pub opponents: Vec<(AccountId, Answer)>,
    /// What was offered (format, deals, time).
    pub terms: ChallengeTerms,
    /// As stored, with expiry read from `expires_ms` at the time of reading.
    pub state: ChallengeState,
    /// The meeting it became, once accepted by all.
    pub tournament_id: Option<TournamentId>,
    /// When it was made (Unix ms).
    pub created_ms: u64,
    /// When it expires unanswered (Unix ms).
    pub expires_ms: u64,
}

/// An opponent's answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Answer {
    /// Not answered yet.
    None,
    /// Accepted.
    Accept,
    /// Declined.
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

/// An opponent's reply as the store records it.
#[derive(Debug, Clone, Copy)]
pub enum Reply<'a> {
    /// Declines the challenge.
    Decline,
    /// Accepts it; if this is the last acceptance, the meeting is stored with it.
    Accept(Meeting<'a>),
}

/// The meeting the last acceptance starts: a tournament with its first plan and the
/// lease its creator holds until its scheduler runs.
#[derive(Debug, Clone, Copy)]
pub struct Meeting<'a> {
    /// The tournament to create.
    pub tournament: &'a Tournament,
    /// Its first plan.
    pub plan: &'a [PlannedTable],
    /// Until when its creator holds it (Unix ms).
    pub lease_until_ms: u64,
}

/// What an answer did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Answered {
    /// Recorded; others still have to answer (or it was declined).
    Recorded,
    /// This answer was the last acceptance: the meeting is stored, the caller runs it.
    AllAccepted,
    /// The opponent had answered already, or the challenge is not pending.
    TooLate,
}

/// Challenges and each opponent's answer (an acceptance stores its meeting).
#[derive(Debug, Clone)]
pub struct ChallengeRepo {
    pub(super) db: Db,
}

impl ChallengeRepo {
    /// Stores a new challenge.
    pub async fn create_challenge(&self, c: &ChallengeRow) -> Result<(), StoreError> {
        let mut tx = self.db.pool.begin().await?;
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
    pub async fn challenges_since(&self, challenger: &AccountId, since_ms: u64) -> Result<u64, StoreError> {
        let row = sqlx::query(
            "SELECT COUNT(*) AS n FROM skat_challenges WHERE challenger_id = $1 AND created_ms >= $2",
        )
        .bind(challenger.as_str())
        .bind(to_i64(since_ms))
        .fetch_one(&self.db.pool)
        .await?;
        Ok(to_u64(row.try_get("n")?))
    }

    /// One challenge, as it stands at `now_ms`.
    pub async fn challenge(&self, id: &ChallengeId, now_ms: u64) -> Result<Option<ChallengeRow>, StoreError> {
        let row = sqlx::query(
            "SELECT challenge_id, challenger_id, spec, state, tournament_id, created_ms, expires_ms \
             FROM skat_challenges WHERE challenge_id = $1",
        )
        .bind(id.as_str())
        .fetch_optional(&self.db.pool)
        .await?;
        match row {
            Some(r) => Ok(Some(self.challenge_from(&r, now_ms).await?)),
            None => Ok(None),
        }
    }

    /// The challenges an account made or was offered, newest first (at most `limit`).
    pub async fn challenges_of(
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
        .fetch_all(&self.db.pool)
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
        .fetch_all(&self.db.pool)
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

    /// Records `account`'s reply to a pending, unexpired challenge. A decline declines
    /// it; the last acceptance moves it to accepted with its meeting's id and stores the
    /// meeting, all in one transaction (one caller only sees `AllAccepted`; if any of it
    /// fails, the reply is not recorded either).
    pub async fn answer_challenge(
        &self,
        id: &ChallengeId,
        account: &AccountId,
        reply: Reply<'_>,
        now_ms: u64,
    ) -> Result<Answered, StoreError> {
        let mut tx = self.db.pool.begin().await?;
        let answer = match reply {
            Reply::Decline => Answer::Decline,
            Reply::Accept(_) => Answer::Accept,
        };
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
        let outcome = match reply {
            Reply::Decline => {
                sqlx::query(
                    "UPDATE skat_challenges SET state = 'declined' WHERE challenge_id = $1 AND state = 'pending'",
                )
                .bind(id.as_str())
                .execute(&mut *tx)
                .await?;
                Answered::Recorded
            }
            Reply::Accept(meeting) => {
                let waiting = sqlx::query(
                    "SELECT COUNT(*) AS n FROM skat_challenge_opponents WHERE challenge_id = $1 AND answer <> 'accept'",
                )
                .bind(id.as_str())
                .fetch_one(&mut *tx)
                .await?;
                let waiting: i64 = waiting.try_get("n")?;
                let moved = if waiting == 0 {
                    sqlx::query(
                        "UPDATE skat_challenges SET state = 'accepted', tournament_id = $1 \
                         WHERE challenge_id = $2 AND state = 'pending'",
                    )
                    .bind(meeting.tournament.tournament_id.as_str())
                    .bind(id.as_str())
                    .execute(&mut *tx)
                    .await?
                    .rows_affected()
                } else {
                    0
                };
                if moved == 1 {
                    TournamentRepo::insert_tournament(
                        &mut tx,
                        meeting.tournament,
                        meeting.plan,
                        meeting.lease_until_ms,
                    )
                    .await?;
                    Answered::AllAccepted
                } else {
                    Answered::Recorded
                }
            }
        };
        tx.commit().await?;
        Ok(outcome)
    }
}

#[cfg(test)]
mod tests {
    use skat_league::{Format, TournamentStatus};

    use super::*;
    use crate::Store;
    use crate::nodes::tests::database;

    fn meeting_of(id: u64, terms: ChallengeTerms, entrants: Vec<AccountId>) -> Tournament {
        Tournament {
            tournament_id: TournamentId::from_random(id),
            owner: String::new(),
            name: "challenge".into(),
            spec: terms.meeting(entrants),
            status: TournamentStatus::Running,
            created_ms: 1,
            finished_ms: 0,
        }
    }

    fn accept(t: &Tournament) -> Reply<'_> {
        Reply::Accept(Meeting { tournament: t, plan: &[], lease_until_ms: 2 })
    }

    /// The last acceptance, the challenge's move to accepted with its meeting's id and the
    /// meeting are one transaction: before it nothing of the meeting exists; when storing
    /// the meeting fails, the reply is not recorded and the challenge stays pending (the
    /// same opponent may answer again); when it succeeds, whoever reads the challenge
    /// accepted reads its meeting's id, and the meeting is there.
    async fn an_acceptance_is_stored_with_its_meeting_or_not_at_all(store: Store) {
        let [challenger, first, last] = [1, 2, 3].map(AccountId::from_random);
        let id = ChallengeId::from_random(7);
        let terms =
            ChallengeTerms { seats: 3, deals: 6, lists: 1, action_ms: 1_000, deal_ms: 10_000, rated: false };
        let row = ChallengeRow {
            challenge_id: id.clone(),
            challenger: challenger.clone(),
            opponents: vec![(first.clone(), Answer::None), (last.clone(), Answer::None)],
            terms,
            state: ChallengeState::Pending,
            tournament_id: None,
            created_ms: 1_000,
            expires_ms: 100_000,
        };
        store.challenges.create_challenge(&row).await.unwrap();
        let entrants = vec![challenger, first.clone(), last.clone()];
        let now = 2_000;

        let unused = meeting_of(10, terms, entrants.clone());
        assert_eq!(
            store.challenges.answer_challenge(&id, &first, accept(&unused), now).await.unwrap(),
            Answered::Recorded
        );
        assert!(
            store.tournaments.tournament(&unused.tournament_id).await.unwrap().is_none(),
            "not the last acceptance"
        );

        // Storing the meeting fails (its id is taken): nothing of the reply stays.
        let taken = meeting_of(11, terms, entrants.clone());
        store.tournaments.create_tournament(&taken, &[], 2).await.unwrap();
        assert!(store.challenges.answer_challenge(&id, &last, accept(&taken), now).await.is_err());
        let read = store.challenges.challenge(&id, now).await.unwrap().unwrap();
        assert_eq!(read.state, ChallengeState::Pending);
        assert_eq!(read.tournament_id, None);
        assert_eq!(read.opponents, vec![(first.clone(), Answer::Accept), (last.clone(), Answer::None)]);

        // Answered again, it goes through: accepted, with the id of a meeting that exists.
        let meeting = meeting_of(12, terms, entrants);
        assert_eq!(
            store.challenges.answer_challenge(&id, &last, accept(&meeting), now).await.unwrap(),
            Answered::AllAccepted
        );
        let read = store.challenges.challenge(&id, now).await.unwrap().unwrap();
        assert_eq!(read.state, ChallengeState::Accepted);
        assert_eq!(read.tournament_id.as_ref(), Some(&meeting.tournament_id));
        let (stored, _) = store.tournaments.tournament(&meeting.tournament_id).await.unwrap().unwrap();
        assert_eq!(stored.spec.format, Format::Challenge);

        // Later replies are too late and change nothing.
        assert_eq!(
            store.challenges.answer_challenge(&id, &first, Reply::Decline, now).await.unwrap(),
            Answered::TooLate
        );
        assert_eq!(
            store.challenges.challenge(&id, now).await.unwrap().unwrap().state,
            ChallengeState::Accepted
        );
    }

    #[tokio::test]
    async fn acceptance_and_meeting_on_sqlite() {
        let dir = std::env::temp_dir().join(format!("skat-challenge-test-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        an_acceptance_is_stored_with_its_meeting_or_not_at_all(Store::open_dir(&dir).await.unwrap()).await;
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[tokio::test]
    async fn acceptance_and_meeting_on_postgres() {
        let Some(url) = database("skat_challenge_meeting").await else { return };
        an_acceptance_is_stored_with_its_meeting_or_not_at_all(Store::open(&url).await.unwrap()).await;
    }
}
