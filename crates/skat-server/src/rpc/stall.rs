//! The stall watchdog: one task per server that ends the WatchTable streams whose readers
//! stopped reading, and every stream when the server shuts down.
//!
//! A WatchTable stream is read when the transport asks for its next response, and HTTP/2
//! asks only while the reader's window has room: the stream of a reader that stopped is
//! not polled at all, so it cannot notice on its own. This task looks at every open
//! stream a few times per stall timeout instead of each stream carrying a task and a timer
//! (three or more streams per table in play: the task, its buffer and its timer were
//! about 3 KiB a stream).
//!
//! | rule | why |
//! |---|---|
//! | a stream is stalled when events wait for it (its table published beyond its cursor), its past is not being derived for it, and its cursor has not moved for `--stream-stall-timeout` | a reader that is merely slow moves its cursor; a stream that waited for its table and was woken is polled at once unless its reader has no room |
//! | a stalled stream's slots are given back at once; its reader, when it reads again, gets RESOURCE_EXHAUSTED with `after_seq` | a stalled reader costs what HTTP/2 holds for it (its window), not a slot; it resumes exactly |
//! | on shutdown every stream is ended (UNAVAILABLE with `after_seq`), its slots given back and its table's watchers woken | a stream waiting for its table ends at once; one waiting for its reader ends when read, and the server closes its connection after `--shutdown-grace` |
//! | the task sweeps every quarter of the stall timeout (10 ms to 1 s) and holds weak references, pruned each sweep | a stall is found within the timeout and a half sweep; a stream that ends is forgotten within one sweep, so the list is bounded by the streams open (`--max-streams-per-client` and the tables' slots) |

use skat_table::Tasks;
use std::sync::atomic::{AtomicBool, AtomicU8, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, Weak};
use std::time::{Duration, Instant};

use tokio::sync::watch;

use super::limits::StreamPermits;
use skat_table::slots::StreamSlot;
use skat_table::{LogEntry, TableHandle};

/// What an open stream holds until it ends: its slot at the table (which holds the table)
/// and its client's permits.
pub(crate) type Guards = (StreamSlot, StreamPermits);

/// What a stream holds only while it is open, let go of when it ends however it ends
/// (the watchdog ends a stalled stream that its reader may never read again: it keeps
/// neither a slot, nor its table alive, nor the derived events it has not read).
#[derive(Debug, Default)]
pub(crate) struct Held {
    _guards: Option<Guards>,
    /// The events the stream had not read when its table's log was derived for it (from
    /// seq `backlog_after + 1`), while it catches up: only those, not the whole log (a
    /// bot back after 20 s misses about a dozen events of a list's 500 or more).
    pub(crate) backlog: Vec<LogEntry>,
    pub(crate) backlog_after: u64,
}

/// Why the watchdog ended a stream.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Ended {
    /// The reader took nothing for the stall timeout while events waited.
    Stalled,
    /// The server is shutting down.
    ShuttingDown,
}

const OPEN: u8 = 0;
const STALLED: u8 = 1;
const SHUTTING_DOWN: u8 = 2;

/// What a stream and the watchdog share: the stream writes its cursor and whether it waits
/// for its table; the watchdog may end it (and drop its guards).
#[derive(Debug)]
pub(crate) struct Shared {
    /// The server's stall timeout (for the stream's message).
    pub(crate) stall: Duration,
    cursor: AtomicU64,
    deriving: AtomicBool,
    end: AtomicU8,
    held: Mutex<Held>,
}

impl Shared {
    /// The stream delivered everything up to `cursor`.
    pub(crate) fn took(&self, cursor: u64) {
        self.cursor.store(cursor, Ordering::Relaxed);
    }

    /// The stream waits for its past to be derived, not for its reader. (A stream that
    /// waits for its table is caught up: no events wait for it.)
    pub(crate) fn deriving(&self, deriving: bool) {
        self.deriving.store(deriving, Ordering::Relaxed);
    }

    /// Whether (and why) the watchdog ended the stream.
    pub(crate) fn ended(&self) -> Option<Ended> {
        match self.end.load(Ordering::Acquire) {
            STALLED => Some(Ended::Stalled),
            SHUTTING_DOWN => Some(Ended::ShuttingDown),
            _ => None,
        }
    }

    /// Ends the stream (the first reason stands) and gives back its slots.
    pub(crate) fn end(&self, why: Ended) {
        let code = match why {
            Ended::Stalled => STALLED,
            Ended::ShuttingDown => SHUTTING_DOWN,
        };
        let _ = self.end.compare_exchange(OPEN, code, Ordering::AcqRel, Ordering::Acquire);
        self.release();
    }

    /// What the stream holds while it is open (its derived past is read here).
    pub(crate) fn held(&self) -> std::sync::MutexGuard<'_, Held> {
        self.held.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Gives back the stream's slots and lets go of its derived past (when it ends,
    /// however it ends).
    pub(crate) fn release(&self) {
        let held = std::mem::take(&mut *self.held());
        drop(held);
    }
}

/// The watchdog's note of one stream.
#[derive(Debug)]
struct Entry {
    stream: Weak<Shared>,
    table: Weak<TableHandle>,
    /// The cursor at the last sweep, and since when events have waited at it.
    seen: u64,
    since: Option<Instant>,
}

impl Entry {
    /// Whether the stream has stalled by `now`: `published` is its table's seq.
    fn stalled(
        &mut self,
        cursor: u64,
        deriving: bool,
        published: u64,
        now: Instant,
        stall: Duration,
    ) -> bool {
        if deriving || published <= cursor || cursor != self.seen {
            self.seen = cursor;
            self.since = (!deriving && published > cursor).then_some(now);
            return false;
        }
        let since = *self.since.get_or_insert(now);
        now.saturating_duration_since(since) >= stall
    }
}

/// The server's stall watchdog (see the module header).
#[derive(Debug)]
pub(crate) struct Watchdog {
    stall: Duration,
    entries: Mutex<Vec<Entry>>,
    shutting_down: AtomicBool,
}

impl Watchdog {
    /// The watchdog and its task, which ends with the server's shutdown (or when the
    /// watchdog is dropped).
    pub(crate) fn start(
        stall: Duration,
        mut shutdown: watch::Receiver<bool>,
        tasks: &Tasks,
    ) -> Arc<Watchdog> {
        let dog =
            Arc::new(Watchdog { stall, entries: Mutex::default(), shutting_down: AtomicBool::new(false) });
        let weak = Arc::downgrade(&dog);
        let every = (stall / 4).clamp(Duration::from_millis(10), Duration::from_secs(1));
        tasks.spawn(async move {
            let mut tick = tokio::time::interval(every);
            tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
            loop {
                tokio::select! {
                    _ = tick.tick() => {}
                    _ = shutdown.wait_for(|s| *s) => {
                        if let Some(dog) = weak.upgrade() { dog.end_all() }
                        return;
                    }
                }
                let Some(dog) = weak.upgrade() else { return };
                dog.sweep(Instant::now());
            }
        });
        dog
    }

    /// Notes a new stream at `cursor`, holding `guards` until it ends.
    pub(crate) fn register(&self, table: &Arc<TableHandle>, guards: Guards, cursor: u64) -> Arc<Shared> {
        let shared = Arc::new(Shared {
            stall: self.stall,
            cursor: AtomicU64::new(cursor),
            deriving: AtomicBool::new(false),
            end: AtomicU8::new(OPEN),
            held: Mutex::new(Held { _guards: Some(guards), backlog: Vec::new(), backlog_after: 0 }),
        });
        let entry = Entry {
            stream: Arc::downgrade(&shared),
            table: Arc::downgrade(table),
            seen: cursor,
            since: None,
        };
        self.lock().push(entry);
        if self.shutting_down.load(Ordering::Acquire) {
            // Opened while the server stops: the sweep that ended the others may be over.
            shared.end(Ended::ShuttingDown);
        }
        shared
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<Entry>> {
        self.entries.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Ends the stalled streams and forgets the ended ones.
    fn sweep(&self, now: Instant) {
        self.lock().retain_mut(|entry| {
            let (Some(stream), Some(table)) = (entry.stream.upgrade(), entry.table.upgrade()) else {
                return false;
            };
            if stream.ended().is_some() {
                return false;
            }
            let cursor = stream.cursor.load(Ordering::Relaxed);
            let deriving = stream.deriving.load(Ordering::Relaxed);
            if entry.stalled(cursor, deriving, table.published(), now, self.stall) {
                tracing::debug!(cursor, "a stream's reader stalled: its slots are given back");
                stream.end(Ended::Stalled);
                return false;
            }
            true
        });
    }

    /// Ends every stream and wakes its table's watchers (the server is shutting down).
    fn end_all(&self) {
        self.shutting_down.store(true, Ordering::Release);
        let entries = std::mem::take(&mut *self.lock());
        for entry in entries {
            if let Some(stream) = entry.stream.upgrade() {
                stream.end(Ended::ShuttingDown);
            }
            if let Some(table) = entry.table.upgrade() {
                table.wake_watchers();
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(seen: u64) -> Entry {
        Entry { stream: Weak::new(), table: Weak::new(), seen, since: None }
    }

    #[test]
    fn a_stream_is_stalled_only_when_events_wait_at_an_unmoved_cursor_for_the_timeout() {
        let stall = Duration::from_millis(300);
        let t0 = Instant::now();
        let at = |ms| t0 + Duration::from_millis(ms);
        // Events wait at cursor 5 from the first sweep on: stalled once 300 ms have passed.
        let mut e = entry(5);
        assert!(!e.stalled(5, false, 9, at(0), stall));
        assert!(!e.stalled(5, false, 9, at(299), stall));
        assert!(e.stalled(5, false, 9, at(300), stall));
        // A cursor that moves restarts the clock: a slow reader is not a stalled one.
        let mut e = entry(5);
        assert!(!e.stalled(5, false, 9, at(0), stall));
        assert!(!e.stalled(6, false, 9, at(250), stall));
        assert!(!e.stalled(6, false, 9, at(500), stall));
        assert!(e.stalled(6, false, 9, at(550), stall));
        // Caught up, or its past being derived: never stalled, and the clock restarts.
        let mut e = entry(9);
        assert!(!e.stalled(9, false, 9, at(0), stall));
        assert!(!e.stalled(9, false, 9, at(1000), stall));
        assert!(!e.stalled(9, false, 12, at(1100), stall), "events arrived just now");
        assert!(e.stalled(9, false, 12, at(1400), stall));
        let mut e = entry(3);
        assert!(!e.stalled(3, true, 9, at(0), stall));
        assert!(!e.stalled(3, true, 9, at(5000), stall), "its past being derived");
        assert!(!e.stalled(3, false, 9, at(5100), stall));
        assert!(e.stalled(3, false, 9, at(5400), stall));
    }
}
