//! One table: a match of the engine, its seats and tokens, its clocks, and its log.
//!
//! The log is the table's truth: every accepted event in order, numbered from 1. Views
//! are the engine's, and events are redacted for each reader when read
//! ([`skat_engine::GameEvent::seen_by`]), so one log serves every watcher and a
//! reconnect is "everything after N". This type is synchronous, holds no rule of its
//! own (every rule question goes to [`skat_engine::Match`]), reads no clock (every time
//! comes from the `now` it is given) and knows no protobuf: [`crate::project`] shows it on
//! the wire.
//!
//! Every change is also written down as an [`Input`] (created, joined, left, acted,
//! timed out) with its time: the journal stores these, and [`Table::replay`] feeds them
//! back through the same methods to rebuild the table after a restart, event for event
//! and `seq` for `seq` (the engine is deterministic; the table reads no clock).

use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use skat_engine::matches::{MatchError, Seat};
use skat_engine::{Action, ForfeitReason, GameEvent, LegalActions, Match, MatchConfig};

use serde::{Deserialize, Serialize};

use crate::auth::TokenHash;
use crate::table_id::TableId;

/// How a table is set up.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TableConfig {
    /// A name for people.
    pub name: String,
    /// 3 or 4 seats, deals, seed.
    pub game: MatchConfig,
    /// Milliseconds per action (0: no limit).
    pub action_ms: u64,
    /// Milliseconds per seat per deal (0: no limit).
    pub deal_ms: u64,
    /// If set, JoinTable must present the code with this hash (a private table).
    pub join_code: Option<TokenHash>,
    /// Most joins in the table's life (each join or leave is logged).
    pub max_joins: usize,
}

/// A change to a table, as the journal keeps it: replayed in order through the same
/// methods, the inputs rebuild the table exactly.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "input", rename_all = "snake_case")]
pub enum Input {
    /// The table was created (always the first input).
    Created {
        /// Its settings.
        config: TableConfig,
    },
    /// A player took a seat with the token of this hash.
    Joined {
        /// The seat.
        seat: Seat,
        /// The (cleaned) name.
        name: String,
        /// The hash of the seat token.
        token: TokenHash,
    },
    /// A player left.
    Left {
        /// The seat.
        seat: Seat,
    },
    /// A seat acted.
    Acted {
        /// The seat.
        seat: Seat,
        /// What it did.
        action: Action,
    },
    /// The seat to move ran out of time.
    TimedOut,
    /// A seat's token was replaced (a lobby seat handed out again after a restart: the
    /// server keeps no token, only its hash).
    Rekeyed {
        /// The seat.
        seat: Seat,
        /// The hash of the new token.
        token: TokenHash,
    },
}

/// An input with its number in the table's journal (from 0) and its time.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JournalEntry {
    /// 0 for `Created`, then 1, 2, ...
    pub n: u64,
    /// Unix milliseconds.
    pub at_ms: u64,
    /// What happened.
    pub input: Input,
}

/// Something in the table's log.
#[derive(Debug, Clone)]
pub enum TableEvent {
    /// A player took a seat.
    SeatJoined {
        /// The seat.
        seat: Seat,
        /// The player's name.
        name: String,
    },
    /// A player left a seat.
    SeatLeft {
        /// The seat.
        seat: Seat,
    },
    /// Something happened in the match (unredacted; redacted when read).
    Game(GameEvent),
}

#[derive(Debug, Clone)]
pub(crate) struct LogEntry {
    pub(crate) time_ms: u64,
    pub(crate) event: TableEvent,
    /// Who must act after this event, with what it may do (sent to that seat only).
    pub(crate) turn: Option<(Seat, LegalActions, bool)>,
    /// What the other seats may do out of turn after this event (resign, claim), by seat.
    pub(crate) out_of_turn: [OutOfTurn; 4],
}

/// What a seat may do when it is not its turn: during play, resign; the declarer, claim.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct OutOfTurn {
    pub(crate) resign: bool,
    pub(crate) claim: bool,
}

#[derive(Debug, Clone, Default)]
pub(crate) struct Slot {
    pub(crate) name: String,
    pub(crate) token: Option<TokenHash>,
}

#[derive(Debug, Clone, Copy)]
pub(crate) struct Turn {
    pub(crate) id: u64,
    pub(crate) seat: Seat,
    pub(crate) deal: u32,
    pub(crate) started: Instant,
    pub(crate) deadline: Option<Instant>,
}

/// Why a table refuses a request. The service maps each to a gRPC status.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TableError {
    /// The request was decided on an older state.
    #[error("stale request: decided on seq {expected}, the table is at seq {current}")]
    Stale {
        /// What the client sent.
        expected: u64,
        /// Where the table is.
        current: u64,
    },
    /// Seats are still open.
    #[error("the table is waiting for players; play starts when every seat is taken")]
    Waiting,
    /// Every seat is taken.
    #[error("every seat at this table is taken")]
    Full,
    /// That seat is taken.
    #[error("seat {0} is taken")]
    SeatTaken(Seat),
    /// No such seat.
    #[error("this table has no seat {0}")]
    NoSuchSeat(Seat),
    /// The match is over: nothing can join, leave or act any more.
    #[error("the table is finished ({played}/{deals} deals played)")]
    Finished {
        /// Deals played.
        played: u32,
        /// Deals in the list.
        deals: u32,
    },
    /// The table has had as many joins as it allows.
    #[error("this table has had its limit of {0} joins")]
    JoinLimit(usize),
    /// A journal entry that does not follow from the table's state (replay only).
    #[error("journal entry {0} does not apply to the table")]
    Replay(u64),
    /// A private table, and the request's join code is missing or wrong.
    #[error("this table is private: JoinTable needs the join code its creator was given")]
    JoinCode,
    /// The rules (or the match) refuse the action.
    #[error(transparent)]
    Rule(#[from] MatchError),
}

/// A table.
#[derive(Debug)]
pub struct Table {
    pub(crate) id: TableId,
    pub(crate) config: TableConfig,
    pub(crate) game: Match,
    pub(crate) slots: Vec<Slot>,
    pub(crate) started: bool,
    pub(crate) log: Vec<LogEntry>,
    pub(crate) clocks: Vec<Duration>,
    pub(crate) clock_deal: u32,
    pub(crate) turn: Option<Turn>,
    pub(crate) turn_ids: u64,
    pub(crate) deal_end_times: Vec<SystemTime>,
    /// The wall-clock time that `Instant` `.0` was: the table reads no clock itself; every
    /// time it records comes from the `now` it is given.
    pub(crate) epoch: (Instant, SystemTime),
    pub(crate) last_activity: Instant,
    pub(crate) finished_at: Option<Instant>,
    pub(crate) joins: usize,
    /// Inputs not yet handed to the journal, and how many were handed before.
    pending: Vec<JournalEntry>,
    journaled: u64,
    created_ms: u64,
    finished_ms: Option<u64>,
    /// What the journal's listing row last said (kept by [`crate::journal`]).
    pub(crate) listed: Option<crate::store::TableRow>,
}

/// Milliseconds since the Unix epoch (0 before it).
pub(crate) fn unix_ms(t: SystemTime) -> u64 {
    t.duration_since(UNIX_EPOCH).map_or(0, |d| d.as_millis() as u64)
}

impl Table {
    /// A new, empty table.
    pub fn new(
        id: TableId,
        config: TableConfig,
        now: Instant,
        wall: SystemTime,
    ) -> Result<Table, MatchError> {
        let game = Match::new(config.game)?;
        let seats = usize::from(config.game.seats);
        let created =
            JournalEntry { n: 0, at_ms: unix_ms(wall), input: Input::Created { config: config.clone() } };
        Ok(Table {
            id,
            clocks: vec![Duration::from_millis(config.deal_ms); seats],
            config,
            game,
            slots: vec![Slot::default(); seats],
            started: false,
            log: Vec::new(),
            clock_deal: 0,
            turn: None,
            turn_ids: 0,
            deal_end_times: Vec::new(),
            epoch: (now, wall),
            last_activity: now,
            finished_at: None,
            joins: 0,
            pending: vec![created],
            journaled: 1,
            created_ms: unix_ms(wall),
            finished_ms: None,
            listed: None,
        })
    }

    /// Rebuilds a table from its journal: the `Created` input, then every later input
    /// through the same methods that made it, at the times it was made (as instants
    /// after `now`; [`Table::resume`] then moves the clocks to the present). Stops at the
    /// first entry that is out of order or does not apply, and says how many applied.
    pub fn replay(
        id: TableId,
        entries: impl IntoIterator<Item = JournalEntry>,
        now: Instant,
    ) -> Result<(Table, usize), TableError> {
        let mut entries = entries.into_iter();
        let Some(JournalEntry { n: 0, at_ms: created_ms, input: Input::Created { config } }) = entries.next()
        else {
            return Err(TableError::Replay(0));
        };
        let at = |ms: u64| now + Duration::from_millis(ms.saturating_sub(created_ms));
        let mut table = Table::new(id, config, now, UNIX_EPOCH + Duration::from_millis(created_ms))?;
        let mut applied = 1;
        for entry in entries {
            if entry.n != applied as u64 || entry.at_ms < created_ms {
                break;
            }
            let when = at(entry.at_ms);
            let ok = match entry.input {
                Input::Created { .. } => false,
                Input::Joined { seat, name, token } => {
                    table.seat_player(&name, Some(seat), token, when).is_ok()
                }
                Input::Left { seat } => table.leave(seat, when).is_ok(),
                Input::Acted { seat, action } => table.act(seat, action, None, when).is_ok(),
                Input::Rekeyed { seat, token } => table.rekey(seat, token, when).is_ok(),
                Input::TimedOut => match table.turn {
                    Some(t) => table.on_deadline(t.id, when).is_some(),
                    None => false,
                },
            };
            if !ok {
                break;
            }
            applied += 1;
        }
        table.pending.clear();
        table.journaled = applied as u64;
        Ok((table, applied))
    }

    /// After a replay: the present is `now` (`wall` on the wall clock). The seat to move
    /// gets its turn afresh (nobody is charged for the time the server was down), an
    /// unfinished table counts as active now, and a finished one keeps its age.
    pub fn resume(&mut self, now: Instant, wall: SystemTime) {
        let last_ms = self.log.last().map_or(unix_ms(self.epoch.1), |e| e.time_ms);
        let age = Duration::from_millis(unix_ms(wall).saturating_sub(last_ms));
        self.epoch = (now, wall);
        self.last_activity = now;
        if self.finished_at.is_some() {
            self.finished_at = Some(now.checked_sub(age).unwrap_or(now));
        }
        self.turn = None;
        self.settle(now, None);
    }

    /// When the table was created (Unix milliseconds).
    pub fn created_ms(&self) -> u64 {
        self.created_ms
    }

    /// When the match ended (Unix milliseconds).
    pub fn finished_ms(&self) -> Option<u64> {
        self.finished_ms
    }

    /// When the table last changed (Unix milliseconds).
    pub fn last_change_ms(&self) -> u64 {
        self.log.last().map_or(self.created_ms, |e| e.time_ms)
    }

    /// The inputs since the last call, for the journal, in order.
    pub fn take_inputs(&mut self) -> Vec<JournalEntry> {
        std::mem::take(&mut self.pending)
    }

    fn record(&mut self, input: Input, now: Instant) {
        let n = self.journaled;
        self.journaled += 1;
        self.pending.push(JournalEntry { n, at_ms: unix_ms(self.wall(now)), input });
    }

    /// The table id.
    pub fn id(&self) -> &TableId {
        &self.id
    }

    /// The sequence number of the last event (0 before any).
    pub fn seq(&self) -> u64 {
        self.log.len() as u64
    }

    /// The skat, if `seat` is the current deal's declarer and has picked it up (empty
    /// otherwise: the skat is shown to nobody else).
    pub fn skat_picked_up_by(&self, seat: Seat) -> skat_engine::CardSet {
        let deal = self.game.deal();
        match self.game.position_of(seat) {
            Some(p) if deal.declarer() == Some(p) && deal.skat_picked_up() => deal.dealt().skat,
            _ => skat_engine::CardSet::EMPTY,
        }
    }

    /// Deals finished so far.
    pub fn deals_played(&self) -> usize {
        self.game.records().len()
    }

    /// Whether the match is over.
    pub fn is_finished(&self) -> bool {
        self.game.is_over()
    }

    /// How many seats the table has.
    pub fn seat_count(&self) -> usize {
        self.slots.len()
    }

    /// When the table may be dropped: finished that long ago, or without any action
    /// (waiting for players, or abandoned mid-match with no clock to end it) that long.
    pub fn expired(&self, now: Instant, expiry: Duration) -> bool {
        let since = self.finished_at.unwrap_or(self.last_activity);
        now.duration_since(since) >= expiry
    }

    /// The seat a token belongs to.
    pub fn seat_of_token(&self, token: &str) -> Option<Seat> {
        self.seat_of_hash(&TokenHash::of(token))
    }

    /// The seat the token with this hash belongs to.
    pub fn seat_of_hash(&self, token: &TokenHash) -> Option<Seat> {
        self.slots
            .iter()
            .position(|s| s.token.as_ref().is_some_and(|t| t.same(token)))
            .map(|i| Seat::new(i as u8))
    }

    pub(crate) fn names(&self) -> Vec<String> {
        self.slots.iter().map(|s| s.name.clone()).collect()
    }

    /// The wall-clock time at `now`.
    pub(crate) fn wall(&self, now: Instant) -> SystemTime {
        self.epoch.1 + now.saturating_duration_since(self.epoch.0)
    }

    fn push(&mut self, event: TableEvent, now: Instant) -> u64 {
        self.log.push(LogEntry {
            time_ms: unix_ms(self.wall(now)),
            event,
            turn: None,
            out_of_turn: [OutOfTurn::default(); 4],
        });
        self.seq()
    }

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

    fn check_not_finished(&self) -> Result<(), TableError> {
        if self.game.is_over() {
            return Err(TableError::Finished {
                played: self.game.records().len() as u32,
                deals: self.config.game.deals,
            });
        }
        Ok(())
    }

    fn check_seq(&self, expected: Option<u64>) -> Result<(), TableError> {
        match expected {
            Some(expected) if expected != self.seq() => {
                Err(TableError::Stale { expected, current: self.seq() })
            }
            _ => Ok(()),
        }
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
        if let Some(code) = &self.config.join_code
            && !code.matches(join_code)
        {
            return Err(TableError::JoinCode);
        }
        self.seat_player(name, seat, token, now)
    }

    /// Seats a player whose right to join has been checked (or is being replayed).
    fn seat_player(
        &mut self,
        name: &str,
        seat: Option<Seat>,
        token: TokenHash,
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
        // Names end up in records and logs: printable characters only, at most 64.
        let clean: String =
            name.chars().filter(|c| !c.is_control() && *c != '[' && *c != ']').take(64).collect();
        let name = if clean.trim().is_empty() { format!("seat {seat}") } else { clean.trim().to_string() };
        self.slots[usize::from(seat)] = Slot { name: name.clone(), token: Some(token) };
        self.record(Input::Joined { seat, name: name.clone(), token }, now);
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

    /// A seat's action, checked against `expected_seq` and then by the rules.
    pub fn act(
        &mut self,
        seat: Seat,
        action: Action,
        expected_seq: Option<u64>,
        now: Instant,
    ) -> Result<u64, TableError> {
        self.check_seq(expected_seq)?;
        if !self.started {
            return Err(TableError::Waiting);
        }
        let seq = self.apply(seat, action, now)?;
        self.record(Input::Acted { seat, action }, now);
        self.last_activity = now;
        self.settle(now, Some(seat));
        Ok(seq)
    }

    fn apply(&mut self, seat: Seat, action: Action, now: Instant) -> Result<u64, TableError> {
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

    /// Brings the turn and clocks up to date after a change by `actor`.
    fn settle(&mut self, now: Instant, actor: Option<Seat>) {
        self.mark_turn();
        let to_move = if self.started { self.game.seat_to_move() } else { None };
        let deal = self.game.deal_number();
        if let Some(t) = self.turn {
            if Some(t.seat) == to_move && t.deal == deal && actor != Some(t.seat) {
                // Someone else resigned or joined: the turn runs on.
                return;
            }
            if t.deal == self.clock_deal && self.config.deal_ms > 0 {
                let clock = &mut self.clocks[usize::from(t.seat)];
                *clock = clock.saturating_sub(now.duration_since(t.started));
            }
        }
        if deal != self.clock_deal {
            self.clocks.fill(Duration::from_millis(self.config.deal_ms));
            self.clock_deal = deal;
        }
        self.turn = to_move.map(|seat| {
            self.turn_ids += 1;
            let mut limit: Option<Duration> = None;
            let mut tighten = |d: Duration| limit = Some(limit.map_or(d, |l| l.min(d)));
            if self.config.action_ms > 0 {
                tighten(Duration::from_millis(self.config.action_ms));
            }
            if self.config.deal_ms > 0 {
                tighten(self.clocks[usize::from(seat)]);
            }
            if self.slots[usize::from(seat)].token.is_none() {
                // An open seat forfeits at once when there is no clock to wait for.
                tighten(Duration::from_millis(self.config.action_ms));
            }
            Turn {
                id: self.turn_ids,
                seat,
                deal,
                started: now,
                deadline: limit.and_then(|l| now.checked_add(l)),
            }
        });
    }

    /// The turn that will time out next: its id and deadline.
    pub fn next_deadline(&self) -> Option<(u64, Instant)> {
        self.turn.and_then(|t| t.deadline.map(|d| (t.id, d)))
    }

    /// Called when the deadline of turn `turn_id` passes: if that turn is still open, the
    /// seat forfeits the deal (ISS `TI`; `LE` for an open seat). Returns the new seq.
    pub fn on_deadline(&mut self, turn_id: u64, now: Instant) -> Option<u64> {
        let turn = self.turn.filter(|t| t.id == turn_id)?;
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

#[cfg(test)]
mod tests {
    use super::*;

    fn table(now: Instant) -> Table {
        let config = TableConfig {
            name: "t".into(),
            game: MatchConfig::standard(3, 1),
            action_ms: 0,
            deal_ms: 0,
            join_code: None,
            max_joins: 1000,
        };
        Table::new(TableId::new(None, 1), config, now, UNIX_EPOCH + Duration::from_secs(1_800_000_000))
            .unwrap()
    }

    /// A timer is armed for one turn; it may act only if that very turn is still open
    /// when it fires (the authority is checked at use, not when the timer was armed).
    #[test]
    fn a_deadline_fires_only_for_the_turn_it_was_armed_for() {
        let t0 = Instant::now();
        let mut t = table(t0);
        t.config.action_ms = 1000;
        for i in 0..3 {
            t.join("p", None, "", TokenHash::of(&format!("p{i}")), t0).unwrap();
        }
        let (turn, at) = t.next_deadline().expect("a clock runs");
        let seat = t.game.seat_to_move().unwrap();
        let seq = t.seq();
        // The seat acts in time; the old timer then fires and must change nothing.
        t.act(seat, Action::Pass, Some(seq), t0).unwrap();
        let after = t.seq();
        assert_eq!(t.on_deadline(turn, at), None);
        assert_eq!(t.seq(), after);
        // The seat leaves and a newcomer takes it: the old turn's timer still does nothing.
        let (turn2, at2) = t.next_deadline().unwrap();
        let mover = t.game.seat_to_move().unwrap();
        t.leave(mover, t0).unwrap();
        t.join("newcomer", Some(mover), "", TokenHash::of("new"), t0).unwrap();
        let settled = t.seq();
        assert_eq!(t.on_deadline(turn2, at2), None);
        assert_eq!(t.seq(), settled);
    }

    /// The deal clock with a fake clock: time spent is charged to the seat that spent it,
    /// the deadline is the smaller of the action limit and what is left, the log's times
    /// are the given ones, and the forfeit comes exactly at the deadline.
    #[test]
    fn deal_clocks_and_forfeits_with_a_fake_clock() {
        let t0 = Instant::now();
        let at = |ms: u64| t0 + Duration::from_millis(ms);
        let mut t = table(t0);
        t.config.deal_ms = 10_000;
        t.config.action_ms = 8_000;
        t.clocks = vec![Duration::from_millis(10_000); 3];
        for i in 0..3 {
            t.join("p", None, "", TokenHash::of(&format!("p{i}")), t0).unwrap();
        }
        // The first to act may take at most the action limit (8 s < 10 s left).
        let first = t.game.seat_to_move().unwrap();
        assert_eq!(t.next_deadline().map(|(_, d)| d), Some(at(8_000)));
        // It passes after 4 s: 6 s left on its clock.
        t.act(first, Action::Pass, None, at(4_000)).unwrap();
        let v = t.view(None, at(4_000));
        assert_eq!(v.clocks[usize::from(first)].remaining_ms, 6_000);
        assert_eq!(t.log.last().unwrap().time_ms, unix_ms(t.epoch.1 + Duration::from_millis(4_000)));
        // The next seat's turn: it runs out of time at 4 s + 8 s.
        let second = t.game.seat_to_move().unwrap();
        let (turn, deadline) = t.next_deadline().unwrap();
        assert_eq!(deadline, at(12_000));
        assert_eq!(
            t.view(None, at(5_000)).deadline_unix_ms,
            unix_ms(t.epoch.1 + Duration::from_millis(12_000))
        );
        // A second before the deadline nothing happens; at it, the seat forfeits.
        let before = t.seq();
        assert!(t.on_deadline(turn + 1, at(11_000)).is_none(), "another turn's timer does nothing");
        assert_eq!(t.seq(), before);
        assert!(t.on_deadline(turn, at(12_000)).is_some());
        let record = t.game.records().last().expect("the forfeit ended the deal");
        assert!(
            matches!(record.outcome, skat_engine::Outcome::Penalty(p) if t.game.seats_of(0)[p.offender.index()] == second)
        );
        // The next deal starts with full clocks.
        assert!(t.clocks.iter().all(|c| *c == Duration::from_millis(10_000)));
    }

    /// Plays a table at changing times with joins, a leave, time-outs and random
    /// actions; replaying its journal gives the same log (event, time, turn), the same
    /// records, the same clocks and the same tokens.
    #[test]
    fn a_replayed_journal_rebuilds_the_table_event_for_event() {
        for seed in 0..20u64 {
            let t0 = Instant::now();
            let mut t = table(t0);
            t.config.deal_ms = 60_000;
            t.config.action_ms = 5_000;
            t.config.game = MatchConfig { seats: 3, deals: 3, seed };
            t.game = Match::new(t.config.game).unwrap();
            t.clocks = vec![Duration::from_millis(60_000); 3];
            let mut journal = t.take_inputs();
            // Rewrite the creation entry with the settings the test changed.
            journal[0].input = Input::Created { config: t.config.clone() };
            let mut ms = 0u64;
            let mut player = skat_engine::random::RandomPlayer::new(seed);
            for i in 0..3 {
                ms += 100;
                t.join("p", None, "", TokenHash::of(&format!("p{i}")), t0 + Duration::from_millis(ms))
                    .unwrap();
            }
            let mut step = 0;
            while !t.is_finished() {
                step += 1;
                ms += 7 * step % 900;
                let now = t0 + Duration::from_millis(ms);
                if step % 41 == 0 {
                    // A time-out, exactly at the deadline.
                    let (turn, at) = t.next_deadline().unwrap();
                    ms = at.duration_since(t0).as_millis() as u64;
                    t.on_deadline(turn, at).unwrap();
                } else if step == 20 && t.deals_played() < 2 {
                    let seat = t.game.seat_to_move().unwrap();
                    t.leave(seat, now).unwrap();
                    t.join("back", Some(seat), "", TokenHash::of("back"), now).unwrap();
                } else {
                    let seat = t.game.seat_to_move().unwrap();
                    let position = t.game.position_of(seat).unwrap();
                    let action = player.choose(t.game.deal(), position);
                    t.act(seat, action, Some(t.seq()), now).unwrap();
                }
                journal.extend(t.take_inputs());
            }
            let (r, applied) = Table::replay(t.id.clone(), journal.clone(), t0).unwrap();
            assert_eq!(applied, journal.len());
            assert_eq!(r.seq(), t.seq());
            for (a, b) in r.log.iter().zip(&t.log) {
                assert_eq!(
                    format!("{:?}", (a.time_ms, &a.event, &a.turn)),
                    format!("{:?}", (b.time_ms, &b.event, &b.turn))
                );
            }
            assert_eq!(r.records(true, "s"), t.records(true, "s"));
            assert_eq!(r.records(false, "s"), t.records(false, "s"));
            assert_eq!(r.clocks, t.clocks);
            assert_eq!(r.seat_of_token("back"), t.seat_of_token("back"));
            assert_eq!(r.finished_ms(), t.finished_ms());
            // A journal cut short, or with an entry that does not apply, replays its prefix.
            let mut bad = journal.clone();
            let cut = journal.len() / 2;
            bad[cut].input =
                Input::Joined { seat: Seat::new(0), name: "x".into(), token: TokenHash::of("x") };
            let (p, applied) = Table::replay(t.id.clone(), bad, t0).unwrap();
            assert_eq!(applied, cut);
            assert!(p.seq() < t.seq());
        }
    }

    /// After a restart the seat to move gets its turn afresh, counted from the restart,
    /// with what was left on its deal clock before the crash.
    #[test]
    fn resume_restarts_the_pending_turn_without_charging_the_downtime() {
        let t0 = Instant::now();
        let mut t = table(t0);
        t.config.deal_ms = 10_000;
        t.config.action_ms = 8_000;
        t.clocks = vec![Duration::from_millis(10_000); 3];
        let mut journal = t.take_inputs();
        journal[0].input = Input::Created { config: t.config.clone() };
        for i in 0..3 {
            t.join("p", None, "", TokenHash::of(&format!("p{i}")), t0).unwrap();
        }
        let first = t.game.seat_to_move().unwrap();
        t.act(first, Action::Pass, None, t0 + Duration::from_millis(7_000)).unwrap();
        journal.extend(t.take_inputs());
        // The server is down for an hour.
        let (mut r, _) = Table::replay(t.id.clone(), journal, t0).unwrap();
        let later = Instant::now() + Duration::from_secs(3600);
        r.resume(later, UNIX_EPOCH + Duration::from_secs(1_800_003_600));
        let (_, deadline) = r.next_deadline().unwrap();
        assert_eq!(deadline, later + Duration::from_millis(8_000), "a full action limit from the restart");
        assert_eq!(
            r.clocks[usize::from(first)],
            Duration::from_millis(3_000),
            "time spent before stays spent"
        );
    }

    #[test]
    fn joining_and_leaving_a_waiting_table_does_not_keep_it_alive() {
        let t0 = Instant::now();
        let hour = Duration::from_secs(3600);
        let mut t = table(t0);
        for minute in 1..59 {
            let now = t0 + Duration::from_secs(60 * minute);
            let seat = t.join("x", None, "", TokenHash::of(&format!("token{minute}")), now).unwrap();
            t.leave(seat, now).unwrap();
        }
        assert!(!t.expired(t0 + hour - Duration::from_secs(1), hour));
        assert!(t.expired(t0 + hour, hour), "an hour after creation, whatever the joins");
        // Starting the match is activity.
        let start = t0 + Duration::from_secs(3000);
        for i in 0..3 {
            t.join("p", None, "", TokenHash::of(&format!("p{i}")), start).unwrap();
        }
        assert!(!t.expired(t0 + hour, hour));
        assert!(t.expired(start + hour, hour));
    }
}
