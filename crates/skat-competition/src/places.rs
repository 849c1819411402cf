//! Places for hosted seats: what the runners can hold without overcommitting a core or
//! their memory, and which seat holds which place.
//!
//! | rule | why |
//! |---|---|
//! | each runner states its capacity (CPU in millicores, memory in MiB) when it follows the feed | the server admits only what fits: equal hardware is a promise to every entrant |
//! | a table with hosted seats is admitted when every hosted seat has a place, all at once, or not at all; until then it waits (a tournament's tables in their plan's order) and its clocks do not run | a sandbox that cannot start forfeits like an absent bot |
//! | a seat's place is on the runner with the most room, so runners fill evenly | several runners share the work by their free capacity |
//! | a place is given back when the runner reports its sandbox ended, or when its table is over | the next table in the queue starts |
//! | a runner that went away for [`RUNNER_GONE_AFTER`] has its seats' places moved to runners with room (their sandboxes start there; the seats play on where their clocks allow) | one machine's loss is not a tournament's |
//!
//! In memory, per replica: a replica hands out the seats of its own tables to the runners
//! that follow it. After a restart the runners register again and the seats still in play
//! take places as they are handed out.

use std::collections::{BTreeMap, HashMap};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use tokio::sync::Notify;

use super::SeatKey;
use skat_table::TableId;

/// How long a runner may be away before its seats' places move to other runners.
pub const RUNNER_GONE_AFTER: Duration = Duration::from_secs(20);

/// A sandbox's size, or a runner's capacity.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Size {
    /// CPU, in millicores.
    pub millis: u64,
    /// Memory, in MiB.
    pub mib: u64,
}

impl Size {
    fn fits(self, room: Size) -> bool {
        self.millis <= room.millis && self.mib <= room.mib
    }

    fn less(self, other: Size) -> Size {
        Size { millis: self.millis.saturating_sub(other.millis), mib: self.mib.saturating_sub(other.mib) }
    }

    fn plus(self, other: Size) -> Size {
        Size { millis: self.millis + other.millis, mib: self.mib + other.mib }
    }
}

/// A runner as the places see it.
#[derive(Debug, Clone)]
struct Runner {
    capacity: Size,
    used: Size,
    /// `None` while its feed is open; when it closed.
    away_since: Option<Instant>,
}

impl Runner {
    fn room(&self) -> Size {
        if self.away_since.is_some() { Size::default() } else { self.capacity.less(self.used) }
    }
}

/// What a runner holds now (metrics, `skat admin online`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunnerPlaces {
    /// Its name.
    pub name: String,
    /// What it can hold.
    pub capacity: Size,
    /// What its seats hold.
    pub used: Size,
    /// Seats placed on it.
    pub seats: usize,
    /// Whether its feed is open.
    pub connected: bool,
}

#[derive(Debug, Default)]
struct State {
    runners: BTreeMap<String, Runner>,
    /// Each placed seat: its runner and size.
    seats: HashMap<SeatKey, (String, Size)>,
}

impl State {
    /// A runner for `size` (the one with the most room left), not counting `taken`.
    fn best(&self, size: Size, taken: &HashMap<String, Size>) -> Option<String> {
        self.runners
            .iter()
            .map(|(name, r)| (name, r.room().less(taken.get(name).copied().unwrap_or_default())))
            .filter(|(_, room)| size.fits(*room))
            .max_by_key(|(name, room)| (room.millis, room.mib, std::cmp::Reverse((*name).clone())))
            .map(|(name, _)| name.clone())
    }

    fn take(&mut self, seat: SeatKey, runner: &str, size: Size) {
        if let Some(r) = self.runners.get_mut(runner) {
            r.used = r.used.plus(size);
        }
        self.seats.insert(seat, (runner.to_string(), size));
    }

    fn give_back(&mut self, seat: &SeatKey) -> bool {
        let Some((runner, size)) = self.seats.remove(seat) else { return false };
        if let Some(r) = self.runners.get_mut(&runner) {
            r.used = r.used.less(size);
        }
        true
    }
}

/// The places of one replica.
#[derive(Debug, Default)]
pub struct Places {
    state: Mutex<State>,
    /// Places were given back or a runner came: a waiting table may fit now.
    freed: Notify,
}

impl Places {
    fn state(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// A runner follows the feed with `capacity` (again: it is back, its capacity as it
    /// says now).
    pub fn runner_came(&self, name: &str, capacity: Size) {
        {
            let mut s = self.state();
            let r = s.runners.entry(name.to_string()).or_insert(Runner {
                capacity,
                used: Size::default(),
                away_since: None,
            });
            r.capacity = capacity;
            r.away_since = None;
        }
        self.freed.notify_waiters();
    }

    /// A runner's feed closed: its seats keep their places for [`RUNNER_GONE_AFTER`].
    pub fn runner_left(&self, name: &str) {
        if let Some(r) = self.state().runners.get_mut(name) {
            r.away_since.get_or_insert_with(Instant::now);
        }
    }

    /// Places every seat of `seats` (each of `size`) on the runners, all or none: the
    /// runner of each, in order, or `None` when they do not all fit now.
    pub fn admit(&self, seats: &[SeatKey], size: Size) -> Option<Vec<String>> {
        let mut s = self.state();
        let mut taken: HashMap<String, Size> = HashMap::new();
        let mut chosen = Vec::with_capacity(seats.len());
        for seat in seats {
            if let Some((runner, _)) = s.seats.get(seat) {
                chosen.push(runner.clone());
                continue;
            }
            let runner = s.best(size, &taken)?;
            let t = taken.entry(runner.clone()).or_default();
            *t = t.plus(size);
            chosen.push(runner);
        }
        for (seat, runner) in seats.iter().zip(&chosen) {
            if !s.seats.contains_key(seat) {
                s.take(seat.clone(), runner, size);
            }
        }
        Some(chosen)
    }

    /// Whether seats of `size` would all fit now (`n` of them), without taking them.
    pub fn would_fit(&self, n: usize, size: Size) -> bool {
        let s = self.state();
        let mut taken: HashMap<String, Size> = HashMap::new();
        for _ in 0..n {
            let Some(runner) = s.best(size, &taken) else { return false };
            let t = taken.entry(runner).or_default();
            *t = t.plus(size);
        }
        true
    }

    /// The runner a seat's place is on.
    pub fn runner_of(&self, seat: &SeatKey) -> Option<String> {
        self.state().seats.get(seat).map(|(r, _)| r.clone())
    }

    /// Gives a seat's place back, if it is on `runner` (its sandbox there ended; a place
    /// that moved to another runner stays).
    pub fn release_from(&self, seat: &SeatKey, runner: &str) {
        let freed = {
            let mut s = self.state();
            s.seats.get(seat).is_some_and(|(r, _)| r == runner) && s.give_back(seat)
        };
        if freed {
            self.freed.notify_waiters();
        }
    }

    /// Gives back the places of every seat of a table.
    pub fn release_table(&self, table: &TableId) {
        self.release_where(|t| t == table);
    }

    /// Gives back the places of the seats at tables `over` says are over.
    pub fn release_where(&self, over: impl Fn(&TableId) -> bool) {
        let freed = {
            let mut s = self.state();
            let keys: Vec<SeatKey> = s.seats.keys().filter(|k| over(&k.table)).cloned().collect();
            // Every one given back (no short circuit), then whether any was.
            keys.iter().filter(|k| s.give_back(k)).count() > 0
        };
        if freed {
            self.freed.notify_waiters();
        }
    }

    /// Moves the seats of runners away for [`RUNNER_GONE_AFTER`] to runners with room,
    /// and forgets those runners; the seats moved, with their new runners.
    pub fn move_from_gone(&self, now: Instant) -> Vec<(SeatKey, String)> {
        let mut s = self.state();
        let gone: Vec<String> = s
            .runners
            .iter()
            .filter(|(_, r)| {
                r.away_since.is_some_and(|t| now.saturating_duration_since(t) >= RUNNER_GONE_AFTER)
            })
            .map(|(n, _)| n.clone())
            .collect();
        let mut moved = Vec::new();
        for name in gone {
            s.runners.remove(&name);
            let seats: Vec<(SeatKey, Size)> =
                s.seats.iter().filter(|(_, (r, _))| *r == name).map(|(k, (_, z))| (k.clone(), *z)).collect();
            for (seat, size) in seats {
                s.seats.remove(&seat);
                if let Some(to) = s.best(size, &HashMap::new()) {
                    s.take(seat.clone(), &to, size);
                    moved.push((seat, to));
                }
            }
        }
        moved
    }

    /// Waits until places are given back or a runner comes.
    pub async fn freed(&self) {
        self.freed.notified().await;
    }

    /// Every runner and what it holds.
    pub fn runners(&self) -> Vec<RunnerPlaces> {
        let s = self.state();
        s.runners
            .iter()
            .map(|(name, r)| RunnerPlaces {
                name: name.clone(),
                capacity: r.capacity,
                used: r.used,
                seats: s.seats.values().filter(|(n, _)| n == name).count(),
                connected: r.away_since.is_none(),
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use skat_engine::matches::Seat;

    fn key(table: u64, seat: u8) -> SeatKey {
        SeatKey { table: TableId::new(None, table), seat: Seat::new(seat) }
    }

    const HALF: Size = Size { millis: 500, mib: 256 };

    #[test]
    fn a_table_is_admitted_whole_or_not_at_all_and_fills_the_runners_evenly() {
        let places = Places::default();
        assert!(places.admit(&[key(1, 0)], HALF).is_none(), "no runner, no place");
        places.runner_came("a", Size { millis: 1000, mib: 1024 });
        places.runner_came("b", Size { millis: 1000, mib: 1024 });
        let seats = [key(1, 0), key(1, 1), key(1, 2)];
        let on = places.admit(&seats, HALF).unwrap();
        assert_eq!(on.iter().filter(|r| *r == "a").count() + on.iter().filter(|r| *r == "b").count(), 3);
        assert!(on.contains(&"a".to_string()) && on.contains(&"b".to_string()), "both runners: {on:?}");
        // One place is left: a table of three waits, and takes nothing meanwhile.
        let next = [key(2, 0), key(2, 1), key(2, 2)];
        assert!(!places.would_fit(3, HALF));
        assert!(places.admit(&next, HALF).is_none());
        assert_eq!(places.runners().iter().map(|r| r.seats).sum::<usize>(), 3);
        places.release_table(&TableId::new(None, 1));
        assert!(places.admit(&next, HALF).is_some(), "the places came back");
    }

    #[test]
    fn memory_counts_too_and_a_runner_that_is_gone_hands_its_seats_on() {
        let places = Places::default();
        places.runner_came("a", Size { millis: 4000, mib: 300 });
        assert!(places.admit(&[key(1, 0), key(1, 1)], HALF).is_none(), "memory for one only");
        assert!(places.admit(&[key(1, 0)], HALF).is_some());
        places.runner_came("b", Size { millis: 1000, mib: 1024 });
        places.runner_left("a");
        assert!(places.move_from_gone(Instant::now()).is_empty(), "not gone yet");
        let moved = places.move_from_gone(Instant::now() + RUNNER_GONE_AFTER);
        assert_eq!(moved, vec![(key(1, 0), "b".to_string())]);
        assert_eq!(places.runner_of(&key(1, 0)).as_deref(), Some("b"));
        assert_eq!(places.runners().len(), 1);
    }
}
