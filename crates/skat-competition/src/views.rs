//! What callers read about competitions: a tournament with its standings and meetings,
//! a page of tournaments, a bot with its rating history and recent lists, the
//! leaderboard. Plain structs with names resolved (one query for all of them); the rpc
//! room turns them into protobuf, the standings come from `skat-league`.

use std::collections::HashMap;

use skat_league::plan::rounds_planned;
use skat_league::rating::Rating;
use skat_league::standings::{EntrantStanding, MeetingStanding, entrant_standings, meetings};
use skat_league::{AccountId, BotName, Format, PlannedTable};

use super::error::shown;
use super::{CompetitionError, Ctx};
use skat_store::accounts::Account;
use skat_store::ratings::{RatedAccount, RatingPoint};
use skat_store::tournaments::{Tournament, TournamentRow};

/// Names of accounts, with the id standing in for an account that is gone.
#[derive(Debug, Clone, Default)]
pub struct Names(HashMap<AccountId, BotName>);

impl Names {
    /// The name of `account` (its id when it is unknown).
    pub fn of(&self, account: &AccountId) -> String {
        self.0.get(account).map_or_else(|| account.to_string(), |n| n.to_string())
    }
}

/// A tournament with its plan, standings and meetings.
#[derive(Debug, Clone)]
pub struct TournamentDetails {
    /// The tournament.
    pub tournament: Tournament,
    /// Its planned tables, in order.
    pub plan: Vec<PlannedTable>,
    /// Its entrants' standings, best mean first (ties by name).
    pub standings: Vec<EntrantStanding>,
    /// Its meetings (head to head), in plan order.
    pub meetings: Vec<MeetingStanding>,
    /// Swiss rounds planned so far (0 for other formats).
    pub round: u32,
    /// The entrants' names.
    pub names: Names,
    /// Tables due and waiting for places on the runners (as this replica's scheduler saw).
    pub waiting: u32,
    /// When it will likely be over (Unix ms; 0: not known yet).
    pub estimated_finish_ms: u64,
}

/// When a tournament will likely be over: now, and the pending tables played at the rate
/// its tables are played at once (its playing tables, at least one), each as long as its
/// finished tables took on average, with the playing ones half done. `None` before a table
/// finished, or once nothing is left.
pub fn estimate(plan: &[PlannedTable], finished: (u64, u64), now_ms: u64) -> Option<u64> {
    let (count, average_ms) = finished;
    let pending = plan.iter().filter(|p| p.status == skat_league::TableStatus::Pending).count() as u64;
    let playing = plan.iter().filter(|p| p.status == skat_league::TableStatus::Playing).count() as u64;
    if count == 0 || pending + playing == 0 {
        return None;
    }
    let at_once = playing.max(1);
    Some(now_ms + pending.div_ceil(at_once) * average_ms + average_ms / 2)
}

/// A tournament in a list.
#[derive(Debug, Clone)]
pub struct TournamentListing {
    /// The tournament and its table counts.
    pub row: TournamentRow,
    /// Its entrants' names.
    pub entrants: Vec<String>,
}

/// A finished list of a bot.
#[derive(Debug, Clone)]
pub struct RecentList {
    /// Its seat there.
    pub seat: u32,
    /// Seeger-Fabian points per seat.
    pub seeger_fabian: Vec<i64>,
    /// The table.
    pub table_id: String,
    /// Its tournament.
    pub tournament_id: String,
    /// The tournament's name.
    pub tournament_name: String,
    /// Names per seat.
    pub seating: Vec<String>,
}

/// A bot account as the public sees it.
#[derive(Debug, Clone)]
pub struct BotDetails {
    /// The account.
    pub account: Account,
    /// Whether a lobby of it is open on this replica.
    pub online: bool,
    /// Its rating, once rated.
    pub rating: Option<Rating>,
    /// Its rating history, oldest first (the last 500 points).
    pub history: Vec<RatingPoint>,
    /// Its most recent lists, newest first.
    pub recent: Vec<RecentList>,
}

/// Most rating history points a bot's page shows.
const HISTORY: usize = 500;
/// Most recent lists a bot's page shows.
const RECENT: u64 = 50;

/// What callers read: tournaments, standings, bots, the leaderboard.
#[derive(Debug)]
pub struct Views {
    pub(super) ctx: Ctx,
}

impl Views {
    /// The names of these accounts, in one query.
    async fn names(&self, ids: &[AccountId]) -> Result<Names, CompetitionError> {
        let accounts = self.ctx.store()?.accounts.accounts(ids).await?;
        Ok(Names(accounts.into_iter().map(|(id, a)| (id, a.name)).collect()))
    }

    /// A tournament with its standings.
    pub async fn tournament(&self, id: &str) -> Result<TournamentDetails, CompetitionError> {
        let store = self.ctx.store()?;
        let not_found = || CompetitionError::TournamentNotFound(shown(id));
        let parsed = id.parse().map_err(|_| not_found())?;
        let (tournament, plan) = store.tournaments.tournament(&parsed).await?.ok_or_else(not_found)?;
        let names = self.names(&tournament.spec.entrants).await?;
        let mut standings = entrant_standings(&tournament.spec, &plan);
        standings.sort_by(|a, b| {
            b.mean.total_cmp(&a.mean).then_with(|| names.of(&a.account_id).cmp(&names.of(&b.account_id)))
        });
        let meetings = meetings(&tournament.spec, &plan);
        let round =
            if tournament.spec.format == Format::Swiss { rounds_planned(&tournament.spec, &plan) } else { 0 };
        let finished = store.tournaments.finished_table_times(&tournament.tournament_id).await?;
        let now = skat_table::unix_ms(std::time::SystemTime::now());
        let estimated_finish_ms =
            if tournament.status.is_over() { 0 } else { estimate(&plan, finished, now).unwrap_or(0) };
        let waiting = self.ctx.schedulers.waiting(&tournament.tournament_id);
        Ok(TournamentDetails {
            tournament,
            plan,
            standings,
            meetings,
            round,
            names,
            waiting,
            estimated_finish_ms,
        })
    }

    /// A page of tournaments, newest first.
    pub async fn list_tournaments(
        &self,
        offset: u32,
        limit: u32,
        include_casual: bool,
    ) -> Result<Vec<TournamentListing>, CompetitionError> {
        let store = self.ctx.store()?;
        let limit = if limit == 0 { 50 } else { limit.min(500) };
        let rows =
            store.tournaments.list_tournaments(u64::from(offset), u64::from(limit), include_casual).await?;
        self.listings(rows).await
    }

    /// One tournament row as listed, with its entrants' names.
    pub async fn listing_of(&self, row: TournamentRow) -> Result<TournamentListing, CompetitionError> {
        let mut one = self.listings(vec![row]).await?;
        one.pop().ok_or(CompetitionError::NoDatabase)
    }

    /// Rows with their entrants' names (one query for all).
    async fn listings(&self, rows: Vec<TournamentRow>) -> Result<Vec<TournamentListing>, CompetitionError> {
        let everyone: Vec<AccountId> =
            rows.iter().flat_map(|r| r.tournament.spec.entrants.iter().cloned()).collect();
        let names = self.names(&everyone).await?;
        Ok(rows
            .into_iter()
            .map(|row| {
                let entrants = row.tournament.spec.entrants.iter().map(|a| names.of(a)).collect();
                TournamentListing { row, entrants }
            })
            .collect())
    }

    /// A bot account as the public sees it.
    pub async fn bot(&self, name: &str) -> Result<BotDetails, CompetitionError> {
        let store = self.ctx.store()?;
        let account = store
            .accounts
            .account_by_name(name)
            .await?
            .ok_or_else(|| CompetitionError::BotNotFound(shown(name)))?;
        // A removed account is hidden from the public (the operator still lists it).
        if account.removed_ms > 0 {
            return Err(CompetitionError::BotNotFound(shown(name)));
        }
        // A list rated between the two reads would show a point its rating does not count
        // yet. A rated list changes both in one transaction, so a history read between two
        // equal ratings is the same state as they are.
        let mut rating = store.ratings.rating_of(&account.account_id).await?;
        let mut history = store.ratings.rating_history(&account.account_id).await?;
        for _ in 0..3 {
            let again = store.ratings.rating_of(&account.account_id).await?;
            let same = again.as_ref().map(|r| r.lists) == rating.as_ref().map(|r| r.lists);
            rating = again;
            if same {
                break;
            }
            history = store.ratings.rating_history(&account.account_id).await?;
        }
        if history.len() > HISTORY {
            history.drain(..history.len() - HISTORY);
        }
        let lists = store.tournaments.recent_lists(&account.account_id, RECENT).await?;
        let everyone: Vec<AccountId> = lists.iter().flat_map(|l| l.seating.iter().cloned()).collect();
        let names = self.names(&everyone).await?;
        let recent = lists
            .into_iter()
            .map(|l| RecentList {
                seat: l.seating.iter().position(|a| *a == account.account_id).unwrap_or(0) as u32,
                seeger_fabian: l
                    .seating
                    .iter()
                    .map(|a| l.result.iter().find(|r| &r.account_id == a).map_or(0, |r| r.seeger_fabian))
                    .collect(),
                seating: l.seating.iter().map(|a| names.of(a)).collect(),
                table_id: l.table_id,
                tournament_id: l.tournament_id.to_string(),
                tournament_name: l.tournament_name,
            })
            .collect();
        Ok(BotDetails {
            online: self.ctx.lobbies.is_open(&account.account_id),
            account,
            rating,
            history,
            recent,
        })
    }

    /// A page of the leaderboard.
    pub async fn leaderboard(&self, offset: u32, limit: u32) -> Result<Vec<RatedAccount>, CompetitionError> {
        let store = self.ctx.store()?;
        let limit = if limit == 0 { 100 } else { limit.min(1000) };
        Ok(store.ratings.leaderboard(u64::from(offset), u64::from(limit)).await?)
    }
}
