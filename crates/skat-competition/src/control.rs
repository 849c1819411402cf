//! A tournament's life in the operator's hands: cancel, pause, resume, a new start time,
//! and the settings a new tournament is refused for.
//!
//! | rule | why |
//! |---|---|
//! | cancel: the tournament ends; its unfinished tables are abandoned (not rated, not in the standings), in one transaction; the standings so far stay | a season's bad tournament can be stopped without rewriting what was played |
//! | a table being played when its tournament is cancelled plays on to its end (its bots are seated), and is recorded as abandoned | no new table event every SDK would have to learn; nothing of it counts |
//! | pause: no new table is seated (the scheduler keeps its lease and waits); tables being played go on; resume seats again | an operator can hold a tournament over a problem without losing its place |
//! | a new start time only before the first table was seated, at most [`MAX_START_AHEAD`] away | a tournament is not moved under its players' feet, nor parked for ever |
//! | Swiss rounds beyond what the entrants allow (the groups they make), a disabled or removed entrant, a start too far away: refused with the reason | settings that cannot be honoured are not silently changed |
//! | every change is journaled in the audit log | see `admin` |

use std::time::{Duration, SystemTime};

use skat_league::plan::max_swiss_rounds;
use skat_league::{Format, TableStatus, TournamentId, TournamentSpec};

use super::CompetitionError;
use super::admin::Admin;
use super::admin::Operators;
use super::error::shown;
use skat_store::tournaments::TournamentRow;
use skat_table::unix_ms;

/// The furthest ahead a tournament may start: a season.
pub const MAX_START_AHEAD: Duration = Duration::from_secs(366 * 24 * 3600);

/// What the operator does to a tournament.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TournamentAction {
    /// Cancel it for good.
    Cancel,
    /// Seat no new table.
    Pause,
    /// Seat tables again.
    Resume,
}

impl TournamentAction {
    fn word(self) -> &'static str {
        match self {
            TournamentAction::Cancel => "cancelled",
            TournamentAction::Pause => "paused",
            TournamentAction::Resume => "resumed",
        }
    }
}

/// Refuses a start time further away than [`MAX_START_AHEAD`].
pub fn check_start(start_ms: u64) -> Result<(), CompetitionError> {
    let bound = unix_ms(SystemTime::now()) + MAX_START_AHEAD.as_millis() as u64;
    if start_ms > bound {
        return Err(CompetitionError::InvalidTournament {
            field: "start_ms",
            max: Some(bound),
            message: format!("a tournament starts at most {} days ahead", MAX_START_AHEAD.as_secs() / 86_400),
        });
    }
    Ok(())
}

/// Refuses Swiss rounds the entrants cannot play without repeating groups.
pub fn check_rounds(spec: &TournamentSpec) -> Result<(), CompetitionError> {
    if spec.format != Format::Swiss || spec.rounds == 0 {
        return Ok(());
    }
    let max = max_swiss_rounds(spec.entrants.len(), spec.seats);
    if spec.rounds > max {
        return Err(CompetitionError::InvalidTournament {
            field: "rounds",
            max: Some(u64::from(max)),
            message: format!(
                "{} entrants at {} seats allow at most {max} Swiss round{} before groups repeat; asked for {}",
                spec.entrants.len(),
                spec.seats,
                if max == 1 { "" } else { "s" },
                spec.rounds
            ),
        });
    }
    Ok(())
}

impl Operators {
    /// Cancels, pauses or resumes a tournament, and/or moves its start (see the module
    /// header). Returns it as listed after the change.
    pub async fn update_tournament(
        &self,
        id: &str,
        action: Option<TournamentAction>,
        start_ms: Option<u64>,
        admin: &Admin,
    ) -> Result<TournamentRow, CompetitionError> {
        let store = self.ctx.store()?;
        let not_found = || CompetitionError::TournamentNotFound(shown(id));
        let tid: TournamentId = id.parse().map_err(|_| not_found())?;
        let (t, plan) = store.tournaments.tournament(&tid).await?.ok_or_else(not_found)?;
        if matches!(t.spec.format, Format::Casual | Format::Challenge) {
            return Err(CompetitionError::TournamentState {
                what: "casual meetings and challenges are not managed",
                status: "casual",
            });
        }
        if action.is_none() && start_ms.is_none() {
            return Err(CompetitionError::InvalidTournament {
                field: "action",
                max: None,
                message: "say what to change: cancel, pause, resume or a start time".to_string(),
            });
        }
        let refuse = |what| CompetitionError::TournamentState { what, status: t.status.as_str() };
        if t.status.is_over() {
            return Err(refuse("it is over"));
        }
        let mut details = Vec::new();
        if let Some(start) = start_ms {
            let started = plan.iter().any(|p| p.status != TableStatus::Pending);
            if started {
                return Err(refuse("its tables are being played: the start cannot move"));
            }
            check_start(start)?;
            let mut spec = t.spec.clone();
            spec.start_ms = start;
            if !store.tournaments.update_spec(&tid, &spec).await? {
                return Err(refuse("it is over"));
            }
            let before = start_words(t.spec.start_ms);
            let after = start_words(start);
            details.push(format!(
                "start moved: {} -> {}",
                before.trim_start_matches("starts "),
                after.trim_start_matches("starts ")
            ));
        }
        let _seating = self.ctx.schedulers.hold_seating().await;
        match action {
            Some(TournamentAction::Cancel) => {
                if !store.tournaments.cancel_tournament(&tid, unix_ms(SystemTime::now())).await? {
                    return Err(refuse("it is over"));
                }
                let open = plan.iter().filter(|p| !p.status.is_done()).count();
                // Started: its start time has come (its tables are due), or a table was seated.
                let started = t.spec.start_ms <= unix_ms(SystemTime::now())
                    || plan.iter().any(|p| p.status != TableStatus::Pending);
                details.push(match (started, open) {
                    (false, _) => "cancelled before it started".to_string(),
                    (true, 0) => "cancelled".to_string(),
                    (true, 1) => "cancelled; 1 unfinished table abandoned".to_string(),
                    (true, n) => format!("cancelled; {n} unfinished tables abandoned"),
                });
            }
            Some(a @ (TournamentAction::Pause | TournamentAction::Resume)) => {
                if !store.tournaments.set_paused(&tid, a == TournamentAction::Pause).await? {
                    return Err(refuse("it is over"));
                }
                details.push(a.word().to_string());
            }
            None => {}
        }
        self.ctx.schedulers.wake();
        let detail = details.join("; ");
        tracing::info!(tournament = %tid, name = %t.name, change = %detail, "tournament updated");
        self.ctx.audit(admin, "update-tournament", tid.as_str(), format!("`{}`: {detail}", t.name)).await;
        let listing = self.list_one(&tid).await?;
        Ok(listing)
    }

    /// One tournament as listed (its table counts).
    async fn list_one(&self, id: &TournamentId) -> Result<TournamentRow, CompetitionError> {
        let store = self.ctx.store()?;
        let (tournament, plan) = store
            .tournaments
            .tournament(id)
            .await?
            .ok_or_else(|| CompetitionError::TournamentNotFound(id.to_string()))?;
        let count = |s: TableStatus| plan.iter().filter(|p| p.status == s).count() as u64;
        Ok(TournamentRow {
            tables: plan.len() as u64,
            finished: count(TableStatus::Finished),
            abandoned: count(TableStatus::Abandoned),
            tournament,
        })
    }
}

/// A tournament's start in words: `starts at once` or `starts 2026-12-24 18:00 UTC`.
pub fn start_words(start_ms: u64) -> String {
    if start_ms == 0 { "starts at once".to_string() } else { format!("starts {}", utc_words(start_ms)) }
}

/// Unix milliseconds as a UTC date and time to the minute, `2026-12-24 18:00 UTC`.
pub fn utc_words(ms: u64) -> String {
    let at = std::time::UNIX_EPOCH + std::time::Duration::from_millis(ms);
    let text = humantime::format_rfc3339_seconds(at).to_string();
    // `2026-12-24T18:00:00Z`: the date, the hour and the minute.
    format!("{} {} UTC", &text[..10], &text[11..16])
}
