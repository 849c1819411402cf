//! The table's log: every event numbered from 1, of which only the recent ones are held.
//!
//! | rule | why |
//! |---|---|
//! | held: exactly the last [`KEEP`] events, in a vector of exactly that many slots | a stream that is caught up or nearly so (the usual reader) reads from memory; a deal is about 45 events, and holding the whole current deal took 10 KiB a table (a heap profile of 1,000 tables in play), a window of 16 to 32 events 4.5 KiB, of 8 to 16 2.4 KiB (sixteen slots, as the vector doubled), this one 1.5 KiB |
//! | the oldest event is let go as each new one comes (ten entries moved) | about 20 ns an event: cheaper than the memory a wider window holds for every table |
//! | older events are derived on demand from the table's inputs ([`super::Table::entries_after`]) | a table in play costs kilobytes, not the 8 KiB per deal the whole log took |
//! | a rebuilt table used to derive them keeps everything ([`Log::whole`]) | it lives for one read |
//! | the seq of every deal's end is kept (8 bytes a deal) | the records up to a seq are counted without the events |
//!
//! The events are a function of the inputs (the engine is deterministic and the table
//! reads no clock), so the derived events are the bytes the table sent: the golden tests
//! (`tests/unit/log_golden.rs`) hold every reader of the past to the digests the
//! whole-log table wrote.

use skat_engine::GameEvent;

use super::{LogEntry, TableEvent};

/// Events held: a stream a few events behind (the last card, the deal's end and the next
/// deal's first turns come in one change, five events) still reads from memory; a bot that
/// drops its stream and resumes two seconds later has missed about five.
pub const KEEP: usize = 10;

/// The events of one table.
#[derive(Debug, Default)]
pub struct Log {
    /// How many events came before the first one held.
    dropped: u64,
    held: Vec<LogEntry>,
    /// The seq of each deal's end, in order.
    deal_ends: Vec<u64>,
    /// Keep every event (a table rebuilt to derive old events).
    whole: bool,
}

impl Log {
    /// A log that keeps every event.
    pub fn whole() -> Log {
        Log { whole: true, ..Log::default() }
    }

    /// Whether every event is kept (a table rebuilt to be read).
    pub fn is_whole(&self) -> bool {
        self.whole
    }

    /// The seq of the last event (0 before any).
    pub fn seq(&self) -> u64 {
        self.dropped + self.held.len() as u64
    }

    /// The last event, if any (always held).
    pub fn last(&self) -> Option<&LogEntry> {
        self.held.last()
    }

    /// The last event, to note the turn on it.
    pub fn last_mut(&mut self) -> Option<&mut LogEntry> {
        self.held.last_mut()
    }

    /// Appends an event; a full window lets go of all but the last [`KEEP`].
    pub fn push(&mut self, entry: LogEntry) {
        if let TableEvent::Game(GameEvent::DealEnded { .. }) = &entry.event {
            self.deal_ends.push(self.seq() + 1);
        }
        if !self.whole {
            if self.held.len() == KEEP {
                self.held.remove(0);
                self.dropped += 1;
            } else if self.held.len() == self.held.capacity() {
                // Grows to exactly KEEP slots (doubling would stop at sixteen).
                self.held.reserve_exact((2 * self.held.len()).clamp(1, KEEP) - self.held.len());
            }
        }
        self.held.push(entry);
    }

    /// The events after seq `after`, if they are held (`None`: some must be derived).
    pub fn held_after(&self, after: u64) -> Option<&[LogEntry]> {
        let from = usize::try_from(after.checked_sub(self.dropped)?).ok()?;
        Some(self.held.get(from..).unwrap_or(&[]))
    }

    /// How many deals ended at or before `seq`.
    pub fn deals_ended_by(&self, seq: u64) -> usize {
        self.deal_ends.partition_point(|s| *s <= seq)
    }

    /// Every event held, from the first (all of them in a [`Log::whole`]).
    pub fn into_held(self) -> Vec<LogEntry> {
        self.held
    }
}
