//! Actions, turns, clocks and time-outs.
//!
//! | rule | why |
//! |---|---|
//! | an action decided on an older `seq` is refused (STALE_SEQ) | a bot never acts on a state that has moved on |
//! | each turn has an id; a timer may act only for the turn it was armed for | a late timer never forfeits a newer turn |
//! | the turn's time and the deal clocks are [`super::timing`]'s | one type holds what a turn was given |
//! | after every change the last event notes who must act, what others may do out of turn, the turn's deadline and the deal clock left | a stream reader can act on the event alone, and knows its time |

use std::time::{Duration, Instant};

use skat_engine::matches::Seat;
use skat_engine::{Action, ForfeitReason, GameEvent};

use super::records::Comment;
use super::timing::Moment;
use super::{Input, OutOfTurn, Table, TableError, TableEvent, unix_ms};

impl Table {
    /// Notes on the last event who must act next and what it may do.
    fn mark_turn(&mut self) {
        let to_move = if self.started { self.game.seat_to_move() } else { None };
        let turn = to_move.and_then(|seat| {
            let position = self.game.position_of(seat)?;
            Some((seat, self.game.deal().legal_actions(position), self.game.deal().is_hand_game()))
        });
        let mut out_of_turn = [OutOfTurn::default(); 4];
        if self.started && !self.game.is_over() {
            for (seat, slot) in out_of_turn.iter_mut().enumerate().take(self.slots.len()) {
                let seat = Seat::new(seat as u8);
                if Some(seat) == to_move {
                    continue;
                }
                if let Some(position) = self.game.position_of(seat) {
                    let legal = self.game.deal().legal_actions(position);
                    *slot = OutOfTurn { resign: legal.resign, claim: legal.claim };
                }
            }
        }
        if let Some(last) = self.log.last_mut() {
            last.turn = turn;
            last.out_of_turn = out_of_turn;
        }
    }

    pub(super) fn check_seq(&self, expected: Option<u64>) -> Result<(), TableError> {
        match expected {
            Some(expected) if expected != self.seq() => {
                Err(TableError::Stale { expected, current: self.seq() })
            }
            _ => Ok(()),
        }
    }

    /// A seat's action, checked against `expected_seq` and then by the rules.
    pub fn act(
        &mut self,
        seat: Seat,
        action: Action,
        expected_seq: Option<u64>,
        now: Instant,
    ) -> Result<u64, TableError> {
        self.act_commented(seat, action, None, expected_seq, now)
    }

    /// [`Table::act`] with the seat's comment on the action, kept with the deal and shown
    /// once the deal has ended.
    pub fn act_commented(
        &mut self,
        seat: Seat,
        action: Action,
        comment: Option<String>,
        expected_seq: Option<u64>,
        now: Instant,
    ) -> Result<u64, TableError> {
        self.check_seq(expected_seq)?;
        if !self.started {
            return Err(TableError::Waiting);
        }
        // Where the action lands in its deal's record, read before it is applied (the
        // deal may end with it).
        let (deal, index) = (self.game.deal_number(), self.game.moves_made());
        let seq = self.apply(seat, action, now)?;
        if let Some(text) = &comment {
            self.comments.push(Comment { deal, index: index as u32, seat, text: text.clone() });
        }
        self.record(Input::Acted { seat, action, comment }, now);
        self.last_activity = now;
        self.settle(now, Some(seat));
        Ok(seq)
    }

    pub(super) fn apply(&mut self, seat: Seat, action: Action, now: Instant) -> Result<u64, TableError> {
        let applied = self.game.apply(seat, action)?;
        for event in applied.events {
            if matches!(event, GameEvent::DealEnded { .. }) {
                self.deal_end_times.push(self.wall(now));
            }
            self.push(TableEvent::Game(event), now);
        }
        if applied.match_over {
            self.finished_at = Some(now);
            self.finished_ms = Some(unix_ms(self.wall(now)));
        }
        Ok(self.seq())
    }

    /// Brings the turn and clocks up to date after a change by `actor`, and notes on the
    /// last event who must act, by when.
    pub(super) fn settle(&mut self, now: Instant, actor: Option<Seat>) {
        self.settle_turn(now, actor);
        self.mark_deadline();
    }

    /// [`Table::settle`] without noting the deadline on the last event.
    pub(super) fn settle_turn(&mut self, now: Instant, actor: Option<Seat>) {
        self.mark_turn();
        let to_move = if self.started { self.game.seat_to_move() } else { None };
        let moment = Moment {
            to_move: to_move.map(|s| (s, self.slots[usize::from(s)].token.is_none())),
            deal: self.game.deal_number(),
            actor,
            now,
            now_ms: unix_ms(self.wall(now)),
            last_deal_end_ms: self.deal_end_times.last().map(|t| unix_ms(*t)),
        };
        self.timing.settle(&self.config, moment);
    }

    /// Notes on the last event the turn's deadline and the deal clock its seat had when
    /// the turn began: both follow from journaled times, so a replay writes the same.
    fn mark_deadline(&mut self) {
        let noted = self.timing.noted(&self.config);
        if let Some(last) = self.log.last_mut() {
            last.deadline = noted;
        }
    }

    /// The turn that will time out next: its id and deadline.
    pub fn next_deadline(&self) -> Option<(u64, Instant)> {
        self.timing.next_deadline()
    }

    /// Called when the deadline of turn `turn_id` passes: if that turn is still open, the
    /// seat forfeits the deal (ISS `TI`; `LE` for an open seat). Returns the new seq.
    pub fn on_deadline(&mut self, turn_id: u64, now: Instant) -> Option<u64> {
        let turn = self.timing.turn().filter(|t| t.id == turn_id)?;
        let reason = if self.slots[usize::from(turn.seat)].token.is_none() {
            ForfeitReason::Left
        } else {
            ForfeitReason::Timeout
        };
        let seq = self.apply(turn.seat, Action::Forfeit { reason }, now).ok()?;
        self.record(Input::TimedOut, now);
        self.last_activity = now;
        self.settle(now, Some(turn.seat));
        Some(seq)
    }
}

impl Table {
    /// What is left on `seat`'s deal clock at `now` (zero with no deal clock): the time
    /// the seat to move has spent on its turn so far is already taken off.
    pub fn clock_left(&self, seat: usize, now: Instant) -> Duration {
        self.timing.left(&self.config, seat, unix_ms(self.wall(now)))
    }

    /// When the seat to move loses the deal by time-out, in Unix milliseconds (0: no
    /// deadline).
    pub fn deadline_unix_ms(&self, now: Instant) -> u64 {
        self.timing.turn().and_then(|t| t.deadline).map_or(0, |d| {
            let left = d.saturating_duration_since(now);
            unix_ms(self.wall(now) + left)
        })
    }
}

impl Table {
    /// The seat that must act now, if any.
    pub fn seat_to_move(&self) -> Option<Seat> {
        if self.started { self.game.seat_to_move() } else { None }
    }

    /// What `seat` may do now: its whole turn, or what is open to it out of turn (resign,
    /// claim); nothing for a seat that sits out the deal.
    pub fn legal_actions(&self, seat: Seat) -> skat_engine::LegalActions {
        match self.game.position_of(seat) {
            Some(p) if self.started => self.game.deal().legal_actions(p),
            _ => skat_engine::LegalActions::default(),
        }
    }
}
