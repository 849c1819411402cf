//! Taking, leaving and re-keying seats.
//!
//! | rule | why |
//! |---|---|
//! | a private table's join code is checked before anything else | a stranger learns nothing about a private table |
//! | every join counts against `max_joins` for the table's life | each join and leave is an event in the log: join/leave loops cannot grow it without bound |
//! | names keep printable characters only (no `[` `]`), at most 64 | names end up in records and logs |
//! | a join key that took a seat gets that seat back (a new token) for the same name, and is refused for another | a client that crashed after JoinTable keeps its seat; a key is one player's |
//! | a seat that is left forgets its key | the next player of that seat is somebody else |
//! | when the last seat fills, the first deal is dealt | play starts by itself |
//! | leaving during a match forfeits the seat's deal (ISS `LE`) and leaves the seat open | the list goes on; whoever takes the seat plays on |
//! | only the start counts as activity | joining and leaving a waiting table in a loop must not keep it alive |

use std::time::Instant;

use skat_engine::matches::Seat;
use skat_engine::{Action, ForfeitReason};

use super::{Input, Slot, Table, TableError, TableEvent};
use crate::secret::TokenHash;

/// What a JoinTable got: its seat, and whether it was handed back to a retry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Joined {
    /// The seat.
    pub seat: Seat,
    /// An earlier JoinTable with the same key took it.
    pub rejoined: bool,
}

/// A name as a table keeps it: printable characters only, at most 64 (names end up in
/// records and logs); `seat N` when nothing is left.
fn clean_name(name: &str, seat: Seat) -> String {
    let clean: String = name.chars().filter(|c| !c.is_control() && *c != '[' && *c != ']').take(64).collect();
    if clean.trim().is_empty() { format!("seat {seat}") } else { clean.trim().to_string() }
}

impl Table {
    pub(super) fn check_not_finished(&self) -> Result<(), TableError> {
        if self.game.is_over() {
            return Err(TableError::Finished {
                played: self.game.deal_number(),
                deals: self.config.game.deals,
            });
        }
        Ok(())
    }

    /// Seats a player with `token`. When the last seat fills, the first deal is dealt.
    pub fn join(
        &mut self,
        name: &str,
        seat: Option<Seat>,
        join_code: &str,
        token: TokenHash,
        now: Instant,
    ) -> Result<Seat, TableError> {
        self.join_keyed(name, seat, join_code, token, None, now).map(|j| j.seat)
    }

    /// [`Table::join`] with the client's join `key`: a key that took a seat before under
    /// the same name gets that seat back with the new token (`rejoined`), so a client
    /// that crashed after the server seated it gets its seat, not a second one.
    pub fn join_keyed(
        &mut self,
        name: &str,
        seat: Option<Seat>,
        join_code: &str,
        token: TokenHash,
        key: Option<TokenHash>,
        now: Instant,
    ) -> Result<Joined, TableError> {
        if let Some(code) = &self.config.join_code
            && !code.matches(join_code)
        {
            return Err(TableError::JoinCode);
        }
        if let Some(key) = key
            && let Some(i) = self.slots.iter().position(|s| s.token.is_some() && s.key == Some(key))
        {
            let held = Seat::new(i as u8);
            if self.slots[i].name != clean_name(name, held) {
                return Err(TableError::JoinKeyTaken(held));
            }
            self.check_not_finished()?;
            self.rekey(held, token, now)?;
            return Ok(Joined { seat: held, rejoined: true });
        }
        let seat = self.seat_player(name, seat, token, key, now)?;
        Ok(Joined { seat, rejoined: false })
    }

    /// Seats a player whose right to join has been checked (or is being replayed).
    pub(super) fn seat_player(
        &mut self,
        name: &str,
        seat: Option<Seat>,
        token: TokenHash,
        key: Option<TokenHash>,
        now: Instant,
    ) -> Result<Seat, TableError> {
        self.check_not_finished()?;
        if self.joins >= self.config.max_joins {
            return Err(TableError::JoinLimit(self.config.max_joins));
        }
        let seat = match seat {
            Some(s) if usize::from(s) >= self.slots.len() => return Err(TableError::NoSuchSeat(s)),
            Some(s) if self.slots[usize::from(s)].token.is_some() => return Err(TableError::SeatTaken(s)),
            Some(s) => s,
            None => {
                Seat::new(self.slots.iter().position(|s| s.token.is_none()).ok_or(TableError::Full)? as u8)
            }
        };
        self.joins += 1;
        let name = clean_name(name, seat);
        self.slots[usize::from(seat)] = Slot { name: name.clone(), token: Some(token), key };
        self.record(Input::Joined { seat, name: name.clone(), token, key }, now);
        self.push(TableEvent::SeatJoined { seat, name }, now);
        if !self.started && self.slots.iter().all(|s| s.token.is_some()) {
            self.started = true;
            self.push(TableEvent::Game(self.game.deal_started_event()), now);
            // Only the start counts as activity: joining and leaving a waiting table in a
            // loop must not keep it alive.
            self.last_activity = now;
        }
        self.settle(now, None);
        Ok(seat)
    }

    /// Gives a taken seat a new token (the old one stops working at once).
    pub fn rekey(&mut self, seat: Seat, token: TokenHash, now: Instant) -> Result<(), TableError> {
        let slot = self.slots.get_mut(usize::from(seat)).ok_or(TableError::NoSuchSeat(seat))?;
        if slot.token.is_none() {
            return Err(TableError::NoSuchSeat(seat));
        }
        slot.token = Some(token);
        self.record(Input::Rekeyed { seat, token }, now);
        Ok(())
    }

    /// Frees a seat. During a match the seat's deal is forfeited (ISS `LE`) and the seat
    /// stays open: it forfeits whenever it must act until somebody takes it.
    pub fn leave(&mut self, seat: Seat, now: Instant) -> Result<u64, TableError> {
        self.check_not_finished()?;
        let slot = self.slots.get_mut(usize::from(seat)).ok_or(TableError::NoSuchSeat(seat))?;
        slot.token = None;
        slot.key = None;
        if !self.started {
            slot.name.clear();
        }
        self.record(Input::Left { seat }, now);
        let seq = self.push(TableEvent::SeatLeft { seat }, now);
        if self.started && !self.game.is_over() && self.game.position_of(seat).is_some() {
            self.apply(seat, Action::Forfeit { reason: ForfeitReason::Left }, now)?;
            self.last_activity = now;
        }
        self.settle(now, Some(seat));
        Ok(seq)
    }
}
