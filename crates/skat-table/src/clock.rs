//! The tables' clock: one Tokio task for the whole server, asleep until the earliest
//! deadline of any table's current turn.
//!
//! | rule | why |
//! |---|---|
//! | one ordered map of deadlines and one task for every table | a task per table (its future, its watch channel) cost about 0.9 KiB a table in play, and 2,000 tables in play were 2,000 sleeping tasks |
//! | a change moves its table's entry in the map ([`Clock::set`], O(log n) under the map's lock); the task is woken only when the earliest deadline moves earlier | no task spawned, woken or aborted per action |
//! | a deadline that passes is handed to the registry, which spawns a short task that submits the forfeit through the same `TableHandle::mutate` a player's action goes through | time-outs are rare, and a slow journal never holds up another table's deadline |
//! | the map holds tables weakly, and a table that finishes, closes or has no turn takes its entry out | at most one entry per live table: the map's bound |

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, Weak};
use std::time::Instant;

use tokio::sync::Notify;

/// A turn that can time out: its id and when (as [`super::Table::next_deadline`] gives it).
pub(super) type Deadline = (u64, Instant);

/// An entry's place in the map: when, then which table (two tables may share an instant).
type Key = (Instant, u64);

/// A deadline in the map: the table (weakly) and the turn that times out.
#[derive(Debug)]
struct Due<T> {
    table: Weak<T>,
    turn: u64,
}

/// Every table's current deadline, and the task that waits for the earliest. It holds
/// its tables (`T`, the registry's `TableHandle`) weakly and hands what is due to the
/// function it was started with, so it knows nothing of how a seat forfeits.
#[derive(Debug)]
pub struct Clock<T> {
    deadlines: Mutex<BTreeMap<Key, Due<T>>>,
    /// Wakes the task: an earlier deadline, or the clock closed. A wake-up sent while the
    /// task is busy is kept (`notify_one` stores a permit), so none is lost.
    wake: Notify,
    closed: AtomicBool,
    tables: AtomicU64,
}

impl<T> Default for Clock<T> {
    fn default() -> Self {
        Clock {
            deadlines: Mutex::default(),
            wake: Notify::default(),
            closed: AtomicBool::default(),
            tables: AtomicU64::default(),
        }
    }
}

impl<T: Send + Sync + 'static> Clock<T> {
    /// A clock whose task hands every turn that ran out to `due` (with the table).
    pub(super) fn start(tasks: &crate::Tasks, due: impl Fn(Arc<T>, u64) + Send + 'static) -> Arc<Clock<T>> {
        let clock = Arc::new(Clock::default());
        tasks.spawn(run(Arc::clone(&clock), due));
        clock
    }

    /// A number for a new table, which names its entry.
    pub(super) fn number(&self) -> u64 {
        self.tables.fetch_add(1, Ordering::Relaxed)
    }

    fn lock(&self) -> MutexGuard<'_, BTreeMap<Key, Due<T>>> {
        self.deadlines.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Moves table `number`'s deadline from `old` to `new` (`None`: no turn times out).
    pub(super) fn set(&self, number: u64, table: &Weak<T>, old: Option<Deadline>, new: Option<Deadline>) {
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
    fn take_due(&self, now: Instant) -> (Vec<Due<T>>, Option<Instant>) {
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

/// The clock's task: hands over what is due, then sleeps until the next deadline or until
/// a change brings an earlier one.
async fn run<T: Send + Sync + 'static>(clock: Arc<Clock<T>>, due: impl Fn(Arc<T>, u64)) {
    while !clock.closed.load(Ordering::Relaxed) {
        let (passed, next) = clock.take_due(Instant::now());
        for Due { table, turn } in passed {
            if let Some(table) = table.upgrade() {
                due(table, turn);
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

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    /// One entry per table, moved by every change, taken out when the turn has no
    /// deadline; what is due comes out in order, and the next deadline is told.
    #[test]
    fn the_clock_holds_one_deadline_per_table_and_gives_them_in_order() {
        let clock = Clock::<()>::default();
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
        let clock = Clock::<()>::default();
        let at = Instant::now();
        for _ in 0..3 {
            clock.set(clock.number(), &Weak::new(), None, Some((9, at)));
        }
        assert_eq!(clock.take_due(at).0.len(), 3);
    }
}
