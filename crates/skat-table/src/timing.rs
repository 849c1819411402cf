//! A table's turn and its seats' deal clocks: what a turn was given and when it runs out,
//! charged from journaled Unix milliseconds so that a replay charges exactly what the live
//! table charged. The table says who is to move; this type says until when.
//!
//! | rule | why |
//! |---|---|
//! | the deadline is the smaller of the action limit and what is left of the seat's deal clock | both time controls hold |
//! | an open seat forfeits at once when no clock runs | a list with an empty seat still ends |
//! | clocks refill when a new deal starts | the deal clock is per deal |
//! | a turn that begins within `between_deals_ms` of a deal's end starts its limit and clock when that pause is over | a person reads the deal's end first |
//! | a turn that runs on (someone else resigned or joined) keeps its start | nobody's time is given back |

use std::time::{Duration, Instant};

use skat_engine::matches::Seat;

use super::TableConfig;

/// The turn running now: whose, in which deal, and its clock.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Turn {
    pub(crate) id: u64,
    pub(crate) seat: Seat,
    pub(crate) deal: u32,
    /// When it started on the table's wall clock, in whole Unix milliseconds.
    pub(crate) started_ms: u64,
    /// The time it was given (the action limit or the deal clock left, the smaller), in
    /// whole milliseconds; none: no clock.
    pub(crate) limit_ms: Option<u64>,
    pub(crate) deadline: Option<Instant>,
}

/// A change, as the clock needs to know it.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Moment {
    /// The seat to move after it, and whether that seat is open (nobody sits there).
    pub(crate) to_move: Option<(Seat, bool)>,
    /// The deal being played.
    pub(crate) deal: u32,
    /// Who made the change (none: a restart).
    pub(crate) actor: Option<Seat>,
    pub(crate) now: Instant,
    pub(crate) now_ms: u64,
    /// When the last deal ended (Unix ms), if one did.
    pub(crate) last_deal_end_ms: Option<u64>,
}

/// The turn and the seats' deal clocks.
#[derive(Debug, Clone)]
pub(crate) struct TurnClock {
    /// What is left of each seat's deal clock at the start of the running turn.
    pub(crate) clocks: Vec<Duration>,
    /// The deal the clocks are for.
    deal: u32,
    turn: Option<Turn>,
    ids: u64,
}

impl TurnClock {
    /// Full clocks for `seats` seats, no turn.
    pub(crate) fn new(seats: usize, deal_ms: u64) -> TurnClock {
        TurnClock { clocks: vec![Duration::from_millis(deal_ms); seats], deal: 0, turn: None, ids: 0 }
    }

    /// The turn running now.
    pub(crate) fn turn(&self) -> Option<Turn> {
        self.turn
    }

    /// Forgets the running turn (a restart: the seat to move gets its turn afresh).
    pub(crate) fn clear(&mut self) {
        self.turn = None;
    }

    /// Brings the turn and clocks up to date after a change: the turn that ended is
    /// charged to its seat, and the seat to move gets a new turn, unless its turn runs on.
    pub(crate) fn settle(&mut self, config: &TableConfig, m: Moment) {
        if let Some(t) = self.turn {
            let runs_on =
                m.to_move.map(|(s, _)| s) == Some(t.seat) && t.deal == m.deal && m.actor != Some(t.seat);
            if runs_on {
                return;
            }
            if t.deal == self.deal && config.deal_ms > 0 {
                let clock = &mut self.clocks[usize::from(t.seat)];
                *clock = clock.saturating_sub(Duration::from_millis(m.now_ms.saturating_sub(t.started_ms)));
            }
        }
        if m.deal != self.deal {
            self.clocks.fill(Duration::from_millis(config.deal_ms));
            self.deal = m.deal;
        }
        // Within the pause after a deal no time runs: the turn's time starts at its end.
        // (None without a pause: times passed in need not rise, and nothing may change then.)
        let resume_ms = match m.last_deal_end_ms {
            Some(ended) if config.between_deals_ms > 0 => ended.saturating_add(config.between_deals_ms),
            _ => 0,
        };
        let paused = Duration::from_millis(resume_ms.saturating_sub(m.now_ms));
        self.turn = m.to_move.map(|(seat, open)| {
            self.ids += 1;
            let limit = self.limit(config, seat, open);
            Turn {
                id: self.ids,
                seat,
                deal: m.deal,
                started_ms: m.now_ms.max(resume_ms),
                limit_ms: limit.map(|l| l.as_millis() as u64),
                deadline: limit.and_then(|l| m.now.checked_add(paused + l)),
            }
        });
    }

    /// What a turn of `seat` is given: the smaller of the action limit and its deal clock;
    /// an open seat only the action limit (at once when none is set).
    fn limit(&self, config: &TableConfig, seat: Seat, open: bool) -> Option<Duration> {
        let mut limit: Option<Duration> = None;
        let mut tighten = |d: Duration| limit = Some(limit.map_or(d, |l| l.min(d)));
        if config.action_ms > 0 {
            tighten(Duration::from_millis(config.action_ms));
        }
        if config.deal_ms > 0 {
            tighten(self.clocks[usize::from(seat)]);
        }
        if open {
            tighten(Duration::from_millis(config.action_ms));
        }
        limit
    }

    /// What the event that hands out the running turn notes: its deadline (Unix ms; 0:
    /// none) and the deal clock its seat had when it began (0: no deal clock).
    pub(crate) fn noted(&self, config: &TableConfig) -> (u64, u64) {
        self.turn.map_or((0, 0), |t| {
            let clock =
                if config.deal_ms > 0 { self.clocks[usize::from(t.seat)].as_millis() as u64 } else { 0 };
            (t.limit_ms.map_or(0, |l| t.started_ms + l), clock)
        })
    }

    /// The turn that will time out next: its id and deadline.
    pub(crate) fn next_deadline(&self) -> Option<(u64, Instant)> {
        self.turn.and_then(|t| t.deadline.map(|d| (t.id, d)))
    }

    /// What is left on `seat`'s deal clock at `now_ms` (zero with no deal clock), the
    /// running turn's time so far taken off.
    pub(crate) fn left(&self, config: &TableConfig, seat: usize, now_ms: u64) -> Duration {
        if config.deal_ms == 0 {
            return Duration::ZERO;
        }
        let mut left = self.clocks.get(seat).copied().unwrap_or_default();
        if let Some(t) = self.turn.filter(|t| usize::from(t.seat) == seat && t.deal == self.deal) {
            left = left.saturating_sub(Duration::from_millis(now_ms.saturating_sub(t.started_ms)));
        }
        left
    }
}
