//! The tables' clock: one Tokio task for the whole server, asleep until the earliest
//! deadline of any table's current turn.
//!
//! | rule | why |
//! |---|---|
//! | one ordered map of deadlines and one task for every table | a task per table (its future, its watch channel) cost about 0.9 KiB a table in play, and 2,000 tables in play were 2,000 sleeping tasks |
//! | a change moves its table's entry in the map ([`Clock::set`], O(log n) under the map's lock); the task is woken only when the earliest deadline moves earlier | no task spawned, woken or aborted per action |
//! | a deadline that passes spawns a short task that submits the forfeit through the same [`TableHandle::mutate`] a player's action goes through | time-outs are rare, and a slow journal never holds up another table's deadline |
//! | the map holds tables weakly, and a table that finishes, closes or has no turn takes its entry out | at most one entry per live table: the map's bound |

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, Weak};
use std::time::Instant;

use tokio::sync::Notify;

use super::registry::{Durability, TableHandle};
use crate::Metrics;

/// A turn that can time out: its id and when (as [`super::Table::next_deadline`] gives it).
pub(super) type Deadline = (u64, Instant);

/// An entry's place in the map: when, then which table (two tables may share an instant).
type Key = (Instant, u64);

/// A deadline in the map: the table (weakly) and the turn that times out.
#[derive(Debug)]
struct Due {
    table: Weak<TableHandle>,
    turn: u64,
}

/// Every table's current deadline, and the task that waits for the earliest.
#[derive(Debug, Default)]
pub struct Clock {
    deadlines: Mutex<BTreeMap<Key, Due>>,
    /// Wakes the task: an earlier deadline, or the clock closed. A wake-up sent while the
    /// task is busy is kept (`notify_one` stores a permit), so none is lost.
    wake: Notify,
    closed: AtomicBool,
    tables: AtomicU64,
}

impl Clock {
    /// A clock whose task submits forfeits through `journal`.
    pub(super) fn start(metrics: Metrics, journal: impl Durability) -> Arc<Clock> {
        let clock = Arc::new(Clock::default());
        tokio::spawn(run(Arc::clone(&clock), metrics, journal));
        clock
    }

    /// A number for a new table, which names its entry.
    pub(super) fn number(&self) -> u64 {
        self.tables.fetch_add(1, Ordering::Relaxed)
    }

    fn lock(&self) -> MutexGuard<'_, BTreeMap<Key, Due>> {
        self.deadlines.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Moves table `number`'s deadline from `old` to `new` (`None`: no turn times out).
    pub(super) fn set(
        &self,
        number: u64,
        table: &Weak<TableHandle>,
        old: Option<Deadline>,
        new: Option<Deadline>,
    ) {
        let mut map = self.lock();
        if let Some((_, at)) = old {
            map.remove(&(at, number));
        }
        let Some((turn, at)) = new else { return };
        let earliest = map.first_key_value().is_none_or(|(first, _)| (at, number) < *first);
        map.insert((at, number), Due { table: table.clone(), turn });
        drop(map);
        if earliest {
            self.wake.notify_one();
        }
    }

    /// Ends the task (the server's tables are gone).
    pub(super) fn close(&self) {
        self.closed.store(true, Ordering::Relaxed);
        self.wake.notify_one();
    }

    /// Takes out every deadline passed at `now`; and when the next one is.
    fn take_due(&self, now: Instant) -> (Vec<Due>, Option<Instant>) {
        let mut map = self.lock();
        let mut due = Vec::new();
        while let Some(first) = map.first_entry() {
            if first.key().0 > now {
                return (due, Some(first.key().0));
            }
            due.push(first.remove());
        }
        (due, None)
    }

    /// How many deadlines the clock holds (one per table whose turn can time out).
    #[cfg(test)]
    fn len(&self) -> usize {
        self.lock().len()
    }
}

/// The clock's task: forfeits what is due, then sleeps until the next deadline or until a
/// change brings an earlier one.
async fn run<J: Durability>(clock: Arc<Clock>, metrics: Metrics, journal: J) {
    while !clock.closed.load(Ordering::Relaxed) {
        let (due, next) = clock.take_due(Instant::now());
        for Due { table, turn } in due {
            if let Some(table) = table.upgrade() {
                tokio::spawn(forfeit(table, turn, metrics.clone(), journal.clone()));
            }
        }
        match next {
            Some(at) => {
                tokio::select! {
                    _ = tokio::time::sleep_until(at.into()) => {}
                    _ = clock.wake.notified() => {}
                }
            }
            None => clock.wake.notified().await,
        }
    }
}

/// Turn `turn` of `handle` ran out of time: its seat forfeits the deal, unless the turn
/// is over already (an action that came in at the last moment wins).
async fn forfeit<J: Durability>(handle: Arc<TableHandle>, turn: u64, metrics: Metrics, journal: J) {
    if handle.is_closed() {
        return;
    }
    let fired =
        handle.mutate(&journal, &metrics, |t| t.on_deadline(turn, Instant::now()).map(|_| t.id().clone()));
    if let Ok(Some(id)) = fired.await {
        metrics.timed_out();
        tracing::info!(table = %id, "a seat ran out of time and forfeits the deal");
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    /// One entry per table, moved by every change, taken out when the turn has no
    /// deadline; what is due comes out in order, and the next deadline is told.
    #[test]
    fn the_clock_holds_one_deadline_per_table_and_gives_them_in_order() {
        let clock = Clock::default();
        let (a, b) = (clock.number(), clock.number());
        let t0 = Instant::now();
        let at = |s: u64| t0 + Duration::from_secs(s);
        let none = Weak::new();
        clock.set(a, &none, None, Some((1, at(5))));
        clock.set(b, &none, None, Some((1, at(3))));
        clock.set(a, &none, Some((1, at(5))), Some((2, at(7))));
        assert_eq!(clock.len(), 2, "a table's new deadline replaces its old one");
        let (due, next) = clock.take_due(at(4));
        assert_eq!(due.iter().map(|d| d.turn).collect::<Vec<_>>(), [1], "b's turn 1");
        assert_eq!(next, Some(at(7)));
        clock.set(a, &none, Some((2, at(7))), None);
        assert_eq!(clock.len(), 0, "a turn without a deadline has no entry");
        assert_eq!(clock.take_due(at(100)).1, None);
    }

    /// Two tables with the same deadline both keep theirs.
    #[test]
    fn tables_may_share_an_instant() {
        let clock = Clock::default();
        let at = Instant::now();
        for _ in 0..3 {
            clock.set(clock.number(), &Weak::new(), None, Some((9, at)));
        }
        assert_eq!(clock.take_due(at).0.len(), 3);
    }
}
