//! Stream slots: how many streams a table serves at once.
//!
//! | rule | why |
//! |---|---|
//! | spectators (no token) share `--max-spectators` slots per table | a crowd of watchers cannot exhaust the server |
//! | a seat's own streams have their own `--max-streams-per-seat` slots | spectators can never lock a player out of its own table |
//! | a slot is given back when its stream ends, however it ends (a drop guard) | a broken stream never leaks a slot |

use std::sync::Arc;
use std::sync::atomic::Ordering;

use skat_engine::matches::Seat;

use super::registry::TableHandle;
use crate::Metrics;
use crate::TableLimits;

/// Why a stream found no slot.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SlotError {
    /// The table has no such seat.
    #[error("this table has no seat {0}")]
    NoSuchSeat(Seat),
    /// Every slot of this kind is taken.
    #[error("this table has its limit of {limit} {what}")]
    Full {
        /// The setting's flag name.
        flag: &'static str,
        /// Its value.
        limit: usize,
        /// What is counted.
        what: &'static str,
    },
}

/// A stream's place at a table: a spectator slot or one of its seat's own slots, given
/// back when the stream ends, however it ends.
#[derive(Debug)]
pub struct StreamSlot {
    handle: Arc<TableHandle>,
    seat: Option<Seat>,
    metrics: Metrics,
}

impl StreamSlot {
    /// Takes a slot for a spectator (`seat` None) or for `seat`'s own streams; seats never
    /// compete with spectators for slots.
    pub fn open(
        handle: &Arc<TableHandle>,
        seat: Option<Seat>,
        config: &TableLimits,
        metrics: &Metrics,
    ) -> Result<StreamSlot, SlotError> {
        let (counter, limit, flag, what) = match seat {
            None => {
                (&handle.spectators, config.max_spectators_per_table, "max-spectators", "spectator streams")
            }
            Some(s) => (
                handle.seat_streams.get(usize::from(s)).ok_or(SlotError::NoSuchSeat(s))?,
                config.max_streams_per_seat,
                "max-streams-per-seat",
                "streams for this seat",
            ),
        };
        counter
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |n| (n < limit).then_some(n + 1))
            .map_err(|_| SlotError::Full { flag, limit, what })?;
        metrics.watchers(1);
        Ok(StreamSlot { handle: Arc::clone(handle), seat, metrics: metrics.clone() })
    }
}

impl Drop for StreamSlot {
    fn drop(&mut self) {
        let counter = match self.seat {
            None => Some(&self.handle.spectators),
            Some(s) => self.handle.seat_streams.get(usize::from(s)),
        };
        if let Some(c) = counter {
            c.fetch_sub(1, Ordering::AcqRel);
        }
        self.metrics.watchers(-1);
    }
}
