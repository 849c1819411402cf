//! # skat-table
//!
//! One table: a match of the engine, its seats and tokens, its clocks, and its log; and
//! the registry of every live table with the one path every change takes.
//!
//! | concern | where |
//! |---|---|
//! | the table: state, replay from the journal, resume after a restart | this file |
//! | the log: the last events held (ten), the older ones derived | [`log`] |
//! | the inputs kept in memory to derive them (4 bytes an action) | [`kept`] |
//! | taking, leaving and re-keying seats (join codes, names, the join limit) | [`seats`] |
//! | actions, turns, clocks and time-outs | [`turns`] |
//! | records of the finished deals (ISS, JSON) | [`records`] |
//! | what a table is set up with, and the inputs the journal keeps | [`input`] |
//! | which settings a new table may have (seats, deals, time control) | [`settings`] |
//! | why a table refuses | [`error`] |
//! | table ids (owner replica and number) | [`id`] |
//! | every live table, its lock, wake-ups, and the one path of a change ([`TableHandle::mutate`]) | [`registry`] |
//! | the table's clock: one task that forfeits a seat at its deadline | [`clock`] |
//! | stream slots per table (spectators, a seat's own streams) | [`slots`] |
//!
//! The log is the table's truth: every accepted event in order, numbered from 1. Views
//! are the engine's, and events are redacted for each reader when read
//! ([`skat_engine::GameEvent::seen_by`]), so one log serves every watcher and a
//! reconnect is "everything after N". Only the recent events are held; older ones are
//! derived from the inputs when a reader asks ([`Table::entries_after`]). [`Table`] is
//! synchronous, holds no rule of its own (every rule question goes to
//! [`skat_engine::Match`]), reads no clock (every time comes from the `now` it is given)
//! and knows no protobuf: the rpc room shows it on the wire.
//!
//! Every change is also written down as an [`Input`] (created, joined, left, acted,
//! timed out) with its time: the journal stores these, and [`Table::replay`] feeds them
//! back through the same methods to rebuild the table after a restart, event for event
//! and `seq` for `seq` (the engine is deterministic; the table reads no clock).
//!
//! This crate depends on the engine only. What makes a change durable is the journal's
//! business, reached through [`registry::Durability`]; what it counts goes to a
//! [`TableMetrics`] the server implements; the server's settings reach it as
//! [`TableLimits`]. Its state is private: other crates read a table through its methods.
//! The secrets (seat tokens, join codes, their hashes) live here too ([`secret`]): a
//! table holds its seats' hashes, and the store keeps accounts' with the same type.

pub mod clock;
pub mod error;
pub mod id;
pub mod input;
pub mod kept;
mod limits;
mod listing;
pub mod log;
pub mod published;
pub mod records;
pub mod registry;
mod replay;
pub mod seats;
pub mod secret;
pub mod settings;
pub mod slots;
pub mod tasks;
mod timing;
pub mod turns;

#[cfg(test)]
mod tests;

use std::borrow::Cow;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use skat_engine::matches::{MatchError, Seat};
use skat_engine::{GameEvent, LegalActions, Match};

pub use crate::secret::TokenHash;
pub use error::{ChangeError, TableError};
pub use id::TableId;
pub use input::{Input, JournalEntry, TableConfig};
pub use limits::{Metrics, TableLimits, TableMetrics};
pub use listing::Listing;
pub use registry::{Durability, Durable, TableHandle, Tables};
pub use tasks::Tasks;

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

/// One event of a table's log, with what the seats may do after it.
#[derive(Debug, Clone)]
pub struct LogEntry {
    /// When it happened (Unix ms).
    pub time_ms: u64,
    /// What happened (unredacted: redacted for each reader when read).
    pub event: TableEvent,
    /// Who must act after this event, with what it may do (sent to that seat only).
    pub turn: Option<(Seat, LegalActions, bool)>,
    /// What the other seats may do out of turn after this event (resign, claim), by seat.
    pub out_of_turn: [OutOfTurn; 4],
    /// The turn's deadline after this event (Unix ms; 0: none) and what is left of the
    /// seat to move's deal clock then (ms; 0: no deal clock): a stream reader sees its
    /// time on the event that hands it the turn.
    pub deadline: (u64, u64),
}

/// What a seat may do when it is not its turn: during play, resign; the declarer, claim.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct OutOfTurn {
    /// It may resign the deal.
    pub resign: bool,
    /// It may claim the remaining tricks (the declarer).
    pub claim: bool,
}

/// A seat's place: who sits there and the hash of its token (private to the table).
#[derive(Debug, Clone, Default)]
pub(crate) struct Slot {
    pub(crate) name: String,
    pub(crate) token: Option<TokenHash>,
    /// The hash of the join key the seat was taken with, if any.
    pub(crate) key: Option<TokenHash>,
}

/// Where a table is in its life.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    /// Seats are open.
    Waiting,
    /// Playing its list.
    Playing,
    /// Every deal played.
    Finished,
}

/// A table.
#[derive(Debug)]
pub struct Table {
    pub(crate) id: TableId,
    pub(crate) config: TableConfig,
    pub(crate) game: Match,
    pub(crate) slots: Vec<Slot>,
    pub(crate) started: bool,
    pub(crate) log: log::Log,
    /// Every input, compactly, to derive the events the log no longer holds.
    kept: kept::KeptInputs,
    /// The running turn and the seats' deal clocks.
    pub(crate) timing: timing::TurnClock,
    pub(crate) deal_end_times: Vec<SystemTime>,
    /// The wall-clock time that `Instant` `.0` was: the table reads no clock itself; every
    /// time it records comes from the `now` it is given.
    pub(crate) epoch: (Instant, SystemTime),
    pub(crate) last_activity: Instant,
    pub(crate) finished_at: Option<Instant>,
    pub(crate) joins: usize,
    /// Inputs not yet handed to the journal, and how many were handed before.
    pub(crate) pending: Vec<JournalEntry>,
    pub(crate) journaled: u64,
    created_ms: u64,
    finished_ms: Option<u64>,
    /// What listings last showed of this table (kept by the journal, which rewrites the
    /// table's listing row only when this changes).
    pub(crate) listed: Option<Listing>,
    /// The seats' comments on their actions, in order (bounded: one per action).
    pub(crate) comments: Vec<records::Comment>,
}

/// A table's inputs, taken to derive its whole log away from the table.
#[derive(Debug)]
pub struct Past {
    id: TableId,
    kept: kept::KeptInputs,
    now: Instant,
}

impl Past {
    /// Every event from seq 1, by rebuilding the table from its inputs with a whole log
    /// (the same methods at the same times: the same events).
    pub fn derive(self) -> Vec<LogEntry> {
        self.rebuilt().map_or_else(Vec::new, |table| table.log.into_held())
    }

    /// The records of the deals that ended at or before `seq`
    /// ([`records::Records::until`]), derived.
    pub fn records_until(self, seq: u64, json: bool, context: &records::RecordContext) -> Vec<String> {
        self.rebuilt().map_or_else(Vec::new, |t| t.records().until(seq, json, context))
    }

    /// Every finished deal's record, derived.
    pub fn deal_records(self) -> Vec<skat_engine::record::DealRecord> {
        self.rebuilt().map_or_else(Vec::new, |t| t.game.into_records())
    }

    /// The table rebuilt from its inputs with a whole log and its finished deals'
    /// records: to be read once (records, analysis), then dropped.
    pub fn rebuilt(self) -> Option<Table> {
        replay::rebuild(self.id, self.kept.steps(), self.now, log::Log::whole()).ok().map(|(table, _)| table)
    }
}

/// Milliseconds since the Unix epoch (0 before it).
pub fn unix_ms(t: SystemTime) -> u64 {
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
        Table::with_log(id, config, now, wall, log::Log::default())
    }

    /// [`Table::new`] with `log`: a table rebuilt to be read (a whole log) keeps its
    /// finished deals' records; a table in play keeps only its inputs and derives them
    /// when they are asked for ([`records::Records::until`]).
    pub(crate) fn with_log(
        id: TableId,
        config: TableConfig,
        now: Instant,
        wall: SystemTime,
        log: log::Log,
    ) -> Result<Table, MatchError> {
        let game = Match::new(config.game)?;
        let game = if log.is_whole() { game } else { game.without_records() };
        let seats = usize::from(config.game.seats);
        let created =
            JournalEntry { n: 0, at_ms: unix_ms(wall), input: Input::Created { config: config.clone() } };
        let mut kept = kept::KeptInputs::default();
        kept.keep(&created);
        Ok(Table {
            id,
            timing: timing::TurnClock::new(seats, config.deal_ms),
            config,
            game,
            slots: vec![Slot::default(); seats],
            started: false,
            log,
            kept,
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
            comments: Vec::new(),
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
        replay::rebuild(id, entries.into_iter().map(kept::Step::Input), now, log::Log::default())
    }

    /// The events after seq `after`, at most `max`: from the log when it holds them,
    /// otherwise derived ([`Table::past`]) while the caller waits.
    pub fn entries_after(&self, after: u64, max: usize) -> Cow<'_, [LogEntry]> {
        match self.log.held_after(after) {
            Some(held) => Cow::Borrowed(&held[..max.min(held.len())]),
            None => {
                let whole = self.past().derive();
                let from = usize::try_from(after).unwrap_or(usize::MAX).min(whole.len());
                Cow::Owned(whole[from..].iter().take(max).cloned().collect())
            }
        }
    }

    /// Whether the log holds the events after seq `after` (otherwise a reader derives them).
    pub fn holds_after(&self, after: u64) -> bool {
        self.log.held_after(after).is_some()
    }

    /// What deriving the whole log takes: the kept inputs, to rebuild from outside the
    /// table's lock.
    pub fn past(&self) -> Past {
        Past { id: self.id.clone(), kept: self.kept.clone(), now: self.epoch.0 }
    }

    /// After a replay: the present is `now` (`wall` on the wall clock). The seat to move
    /// gets its turn afresh (nobody is charged for the time the server was down), an
    /// unfinished table counts as active now, and a finished one keeps its age.
    pub fn resume(&mut self, now: Instant, wall: SystemTime) {
        self.kept.resumed(unix_ms(wall));
        let last_ms = self.log.last().map_or(unix_ms(self.epoch.1), |e| e.time_ms);
        let age = Duration::from_millis(unix_ms(wall).saturating_sub(last_ms));
        self.epoch = (now, wall);
        self.last_activity = now;
        if self.finished_at.is_some() {
            self.finished_at = Some(now.checked_sub(age).unwrap_or(now));
        }
        self.timing.clear();
        // The seat to move gets its turn afresh, but the events keep the deadlines they
        // were recorded with: a table's events are the same bytes before and after a
        // restart (GetTable has the turn's new deadline).
        self.settle_turn(now, None);
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
        let entry = JournalEntry { n, at_ms: unix_ms(self.wall(now)), input };
        self.kept.keep(&entry);
        self.pending.push(entry);
    }

    /// The match: deals, scores, the current deal (read by the projection and results).
    pub fn game(&self) -> &Match {
        &self.game
    }

    /// What the table was set up with.
    pub fn config(&self) -> &TableConfig {
        &self.config
    }

    /// Whether play has begun (every seat was taken once).
    pub fn started(&self) -> bool {
        self.started
    }

    /// The table's id.
    pub fn id(&self) -> &TableId {
        &self.id
    }

    /// The sequence number of the last event (0 before any).
    pub fn seq(&self) -> u64 {
        self.log.seq()
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
        self.game.deal_number() as usize
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

    /// Each seat in order: its name (empty when open) and whether it is taken.
    pub fn seats(&self) -> impl Iterator<Item = (&str, bool)> {
        self.slots.iter().map(|s| (s.name.as_str(), s.token.is_some()))
    }

    /// The seats' names in seat order (empty for an open seat).
    pub fn names(&self) -> Vec<String> {
        self.slots.iter().map(|s| s.name.clone()).collect()
    }

    /// The wall-clock time at `now`.
    pub fn wall(&self, now: Instant) -> SystemTime {
        self.epoch.1 + now.saturating_duration_since(self.epoch.0)
    }

    fn push(&mut self, event: TableEvent, now: Instant) -> u64 {
        let time_ms = unix_ms(self.wall(now));
        self.log.push(LogEntry {
            time_ms,
            event,
            turn: None,
            out_of_turn: [OutOfTurn::default(); 4],
            deadline: (0, 0),
        });
        self.seq()
    }

    /// Waiting, playing or finished.
    pub fn status(&self) -> Status {
        if self.game.is_over() {
            Status::Finished
        } else if self.started {
            Status::Playing
        } else {
            Status::Waiting
        }
    }

    /// What listings show of the table now.
    pub fn listing(&self) -> Listing {
        Listing::of(self)
    }

    /// Notes that listings now show [`Table::listing`] (the journal wrote its row).
    pub fn mark_listed(&mut self) {
        self.listed = Some(self.listing());
    }

    /// Whether the listing last written ([`Table::mark_listed`]) is still the table's:
    /// compared in place, since the journal asks after every change and most change no
    /// listing.
    pub fn listed_is_current(&self) -> bool {
        self.listed.as_ref().is_some_and(|l| l.shows(self))
    }
}
