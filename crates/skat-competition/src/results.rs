//! Results: the replica that hosts a tournament table waits for it to finish, then
//! records its result and its entrants' new ratings in one transaction, and wakes the
//! schedulers.
//!
//! | rule | why |
//! |---|---|
//! | the result is read from the table's engine standings once the end is published (durable) | a result is never recorded for a deal a crash could take back |
//! | a table the journal no longer has (its tail was damaged) is recorded without a result | its tournament can still end |
//! | recording is retried with a growing delay until it succeeds | the tournament waits for the table rather than losing it |
//! | one rating update at a time in this process (and an advisory lock on PostgreSQL) | two lists of one account finishing together cannot lose an update |

use std::collections::HashSet;
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime};

use skat_league::rating::after_list;
use skat_league::{PlannedTable, SeatResult, TournamentId};

use super::{Ctx, lock};
use skat_journal::recovery;
use skat_store::ratings::NewRating;
use skat_store::{Store, StoreError};
use skat_table::{TableId, unix_ms};

/// The result watchers running in this process.
#[derive(Debug)]
pub struct Watchers {
    /// Tables whose result watcher runs here.
    watched: Mutex<HashSet<String>>,
    /// Rating updates read and write an account's rating: one at a time, or two lists
    /// finishing together would lose one.
    rating: tokio::sync::Mutex<()>,
}

impl Default for Watchers {
    fn default() -> Self {
        Watchers { watched: Mutex::default(), rating: tokio::sync::Mutex::new(()) }
    }
}

/// Records tournament tables' results and ratings as they finish here.
#[derive(Debug)]
pub struct Results {
    pub(super) ctx: Ctx,
    pub(super) watchers: Watchers,
}

impl Results {
    /// Waits for a tournament table of this replica to finish, then records its result
    /// and the ratings, and wakes the schedulers (see the module header).
    pub(super) fn watch_table(self: &Arc<Self>, tournament_id: &TournamentId, p: PlannedTable) {
        if !lock(&self.watchers.watched).insert(p.table_id.clone()) {
            return;
        }
        let me = Arc::clone(self);
        let tid = tournament_id.clone();
        self.ctx.tasks.spawn(async move {
            let parsed = p.table_id.parse::<TableId>().ok();
            let result = match &parsed {
                Some(id) => me.final_result(id, &p).await,
                None => None,
            };
            let result = result.unwrap_or_else(|| {
                tracing::error!(table = %p.table_id, "a tournament table is lost; recorded without a result");
                Vec::new()
            });
            if let Some(id) = &parsed {
                me.ctx.lobbies.release_seats(id, p.seating.len());
            }
            if let Some(store) = me.ctx.journal.store() {
                // Until it is recorded: the tournament waits for this table.
                let mut attempt = 0u32;
                loop {
                    let recorded = {
                        let _one_at_a_time = me.watchers.rating.lock().await;
                        record(store, &tid, &p, &result).await
                    };
                    match recorded {
                        Ok(()) => break,
                        Err(e) => {
                            attempt += 1;
                            tracing::warn!(error = %e, attempt, table = %p.table_id, "could not record a tournament table's result and ratings; retrying");
                            tokio::time::sleep(Duration::from_millis(200 * u64::from(attempt.min(25)))).await;
                        }
                    }
                }
            }
            lock(&me.watchers.watched).remove(&p.table_id);
            me.ctx.schedulers.wake();
        });
    }

    /// The table's result per seat once its end is published; `None` when the table is
    /// in neither memory nor the journal.
    async fn final_result(&self, id: &TableId, p: &PlannedTable) -> Option<Vec<SeatResult>> {
        let handle = match self.ctx.tables.get(id) {
            Some(h) => h,
            None => recovery::archived(&self.ctx.journal, id).await.ok().flatten()?,
        };
        loop {
            let published = handle.published();
            {
                let t = handle.lock();
                if t.is_finished() && published >= t.seq() {
                    break;
                }
            }
            if handle.is_closed() {
                break;
            }
            handle.changed(published).await;
        }
        let t = handle.lock();
        let standings = t.game().standings();
        Some(
            p.seating
                .iter()
                .enumerate()
                .map(|(seat, account)| match standings.iter().find(|s| usize::from(s.seat) == seat) {
                    Some(s) => SeatResult {
                        account_id: account.clone(),
                        seeger_fabian: i64::from(s.seeger_fabian),
                        plain: i64::from(s.plain),
                        declared: s.declared,
                        won: s.won,
                        penalties: s.penalties,
                    },
                    None => SeatResult::empty(account.clone()),
                })
                .collect(),
        )
    }
}

/// Records a finished list: its result, and its accounts' new ratings from its
/// placements (unless its tournament is unrated), in one transaction.
async fn record(
    store: &Store,
    tournament: &TournamentId,
    p: &PlannedTable,
    result: &[SeatResult],
) -> Result<(), StoreError> {
    // An unrated challenge's lists leave the ratings alone.
    let rated = store.tournaments.tournament_rated(tournament).await?;
    let rate = |current: &[Option<skat_league::rating::Rating>]| {
        if !rated {
            return Vec::new();
        }
        let scores: Vec<i64> = result.iter().map(|r| r.seeger_fabian).collect();
        after_list(current, &scores)
            .into_iter()
            .zip(result)
            .map(|(rating, r)| NewRating { account_id: r.account_id.clone(), rating })
            .collect()
    };
    store
        .tournaments
        .finish_table((tournament, p.index), &p.table_id, result, rate, unix_ms(SystemTime::now()))
        .await
}
