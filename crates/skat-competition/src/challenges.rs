//! Challenges: an account invites others (a house bot, or any account that accepts) to a
//! duplicate meeting; when every opponent accepted, the meeting is a tournament of format
//! challenge, seated, scored and recorded like any other.
//!
//! | rule | why |
//! |---|---|
//! | at most `--challenges-per-hour` per challenger, counted in the database | a bot cannot flood others' lobbies or the server's tables |
//! | opponents are named accounts, enabled, not the challenger, as many as the table has other seats | the meeting can be played as asked |
//! | an offer reaches only lobbies that asked for challenges, and waits [`OFFER_TTL`] | older bots see nothing new; an offer nobody answers does not hold anything |
//! | a decline declines; the last acceptance starts the meeting, once (a conditional update) | two answers at once make one meeting |
//! | the last acceptance, the challenge's move to accepted with its meeting's id, and the meeting itself are one transaction | nobody ever sees a challenge accepted without its meeting, and a failure or a crash leaves it pending, the reply unrecorded |
//! | the meeting is the challenger's and opponents' only: format challenge, not managed by the operator's pause or cancel, listed with casual meetings | it is theirs, and its results count (for the ratings only when `rated`) |
//! | its deals come from a fresh secret, committed when the meeting starts | like every tournament's (`skat tournament verify`) |

use std::collections::HashMap;
use std::sync::Arc;
use std::time::{Duration, SystemTime};

use skat_league::{AccountId, BotName, ChallengeId, ChallengeState, ChallengeTerms};

use super::error::shown;
use super::{CompetitionError, Ctx};
use skat_store::accounts::Account;
use skat_store::challenges::{Answer, Answered, ChallengeRow, Meeting, Reply};
use skat_table::secret::random_u64;
use skat_table::unix_ms;

/// How long an offer waits for its answers.
pub const OFFER_TTL: Duration = Duration::from_secs(600);

/// Most challenges listed at once.
const LIST_LIMIT: u64 = 100;

/// A challenge with its accounts' names, as callers see it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChallengeView {
    /// The challenge as stored.
    pub row: ChallengeRow,
    /// The names of the accounts it names.
    pub names: HashMap<AccountId, BotName>,
    /// The commitment to the meeting's deals, once it started.
    pub commitment: String,
}

impl ChallengeView {
    /// The name of an account of the challenge (its id if it is gone).
    pub fn name(&self, id: &AccountId) -> String {
        self.names.get(id).map_or_else(|| id.to_string(), |n| n.to_string())
    }
}

/// Challenges: made, offered, answered; an accepted one starts its meeting.
#[derive(Debug)]
pub struct Challenges {
    pub(super) ctx: Ctx,
    pub(super) scheduler: Arc<super::scheduler::Scheduler>,
}

impl Challenges {
    /// `challenger` challenges the accounts named `opponents` on `terms` (its `seats` are
    /// worked out here): stored, then offered to the opponents' lobbies.
    pub async fn challenge(
        &self,
        challenger: &Account,
        opponents: &[String],
        mut terms: ChallengeTerms,
    ) -> Result<ChallengeView, CompetitionError> {
        let store = self.ctx.store()?;
        let now = unix_ms(SystemTime::now());
        let most = self.ctx.config.challenges_per_hour;
        if store.challenges.challenges_since(&challenger.account_id, now.saturating_sub(3_600_000)).await?
            >= most as u64
        {
            return Err(CompetitionError::ChallengeQuota(most));
        }
        if !(2..=3).contains(&opponents.len()) {
            return Err(CompetitionError::InvalidTournament {
                field: "opponents",
                max: Some(3),
                message: format!(
                    "a challenge names 2 opponents (a table of 3) or 3 (a table of 4), not {}",
                    opponents.len()
                ),
            });
        }
        let mut accounts: Vec<AccountId> = Vec::new();
        for name in opponents {
            let a = store
                .accounts
                .account_by_name(name)
                .await?
                .ok_or_else(|| CompetitionError::UnknownEntrant(shown(name)))?;
            if a.disabled || a.removed_ms > 0 {
                return Err(CompetitionError::EntrantDisabled(a.name.to_string()));
            }
            if a.account_id == challenger.account_id || accounts.contains(&a.account_id) {
                return Err(CompetitionError::InvalidTournament {
                    field: "opponents",
                    max: None,
                    message: format!("`{}` is named twice (the challenger plays anyway)", a.name),
                });
            }
            accounts.push(a.account_id);
        }
        terms.seats = opponents.len() as u8 + 1;
        terms.lists = terms.lists.max(1);
        if terms.lists > 10 {
            return Err(CompetitionError::InvalidTournament {
                field: "lists",
                max: Some(10),
                message: "a challenge has at most 10 lists".into(),
            });
        }
        let row = ChallengeRow {
            challenge_id: ChallengeId::from_random(random_u64()?),
            challenger: challenger.account_id.clone(),
            opponents: accounts.iter().map(|a| (a.clone(), Answer::None)).collect(),
            terms,
            state: ChallengeState::Pending,
            tournament_id: None,
            created_ms: now,
            expires_ms: now + OFFER_TTL.as_millis() as u64,
        };
        store.challenges.create_challenge(&row).await?;
        tracing::info!(challenge = %row.challenge_id, challenger = %challenger.name, opponents = ?opponents, "challenge made");
        let view = self.view_of(row).await?;
        for a in &accounts {
            self.ctx.lobbies.offer_challenge(a, &view);
        }
        Ok(view)
    }

    /// `account` accepts or declines a challenge offered to it; the last acceptance starts
    /// the meeting.
    pub async fn answer_challenge(
        &self,
        account: &Account,
        id: &str,
        accept: bool,
    ) -> Result<ChallengeView, CompetitionError> {
        let store = self.ctx.store()?;
        let not_found = || CompetitionError::ChallengeNotFound(shown(id));
        let cid: ChallengeId = id.parse().map_err(|_| not_found())?;
        let now = unix_ms(SystemTime::now());
        let row = store.challenges.challenge(&cid, now).await?.ok_or_else(not_found)?;
        if !row.opponents.iter().any(|(a, _)| *a == account.account_id) {
            return Err(not_found());
        }
        // An acceptance carries the meeting it would start, stored with it if it is the
        // last one: a challenge is never accepted without its meeting.
        let meeting = if accept {
            let mut entrants = vec![row.challenger.clone()];
            entrants.extend(row.opponents.iter().map(|(a, _)| a.clone()));
            Some(self.scheduler.new_tournament(format!("challenge {cid}"), row.terms.meeting(entrants))?)
        } else {
            None
        };
        let reply = match &meeting {
            Some((t, plan, lease_until_ms)) => {
                Reply::Accept(Meeting { tournament: t, plan, lease_until_ms: *lease_until_ms })
            }
            None => Reply::Decline,
        };
        match store.challenges.answer_challenge(&cid, &account.account_id, reply, now).await? {
            Answered::TooLate => {
                let state = match row.state {
                    ChallengeState::Pending => "answered by this account already",
                    s => s.as_str(),
                };
                return Err(CompetitionError::ChallengeState(state));
            }
            Answered::Recorded => {}
            Answered::AllAccepted => {
                if let Some((t, plan, _)) = &meeting {
                    self.scheduler.launch(t, plan.len());
                    tracing::info!(challenge = %cid, tournament = %t.tournament_id, "challenge accepted: meeting started");
                }
            }
        }
        tracing::info!(challenge = %cid, account = %account.name, accept, "challenge answered");
        let row =
            store.challenges.challenge(&cid, unix_ms(SystemTime::now())).await?.ok_or_else(not_found)?;
        self.view_of(row).await
    }

    /// The challenges `account` made or was offered, newest first.
    pub async fn challenges_of(
        &self,
        account: &Account,
        pending_only: bool,
    ) -> Result<Vec<ChallengeView>, CompetitionError> {
        let store = self.ctx.store()?;
        let now = unix_ms(SystemTime::now());
        let rows = store.challenges.challenges_of(&account.account_id, pending_only, now, LIST_LIMIT).await?;
        let mut out = Vec::with_capacity(rows.len());
        for r in rows {
            out.push(self.view_of(r).await?);
        }
        Ok(out)
    }

    /// The pending challenges `account` has not answered yet (for a lobby that opens).
    pub async fn offered_to(&self, account: &Account) -> Result<Vec<ChallengeView>, CompetitionError> {
        Ok(self
            .challenges_of(account, true)
            .await?
            .into_iter()
            .filter(|c| {
                c.row.opponents.iter().any(|(a, answer)| *a == account.account_id && *answer == Answer::None)
            })
            .collect())
    }

    async fn view_of(&self, row: ChallengeRow) -> Result<ChallengeView, CompetitionError> {
        let store = self.ctx.store()?;
        let mut ids = vec![row.challenger.clone()];
        ids.extend(row.opponents.iter().map(|(a, _)| a.clone()));
        let names = store.accounts.accounts(&ids).await?.into_iter().map(|(id, a)| (id, a.name)).collect();
        let commitment = match &row.tournament_id {
            Some(t) => {
                store.tournaments.tournament(t).await?.map(|(t, _)| t.spec.commitment).unwrap_or_default()
            }
            None => String::new(),
        };
        Ok(ChallengeView { row, names, commitment })
    }
}
