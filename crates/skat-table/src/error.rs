//! Why a table refuses a request: [`TableError`]. The rpc room maps each to a status
//! code and a stable reason (`rpc/refusal.rs`); nothing here knows the wire.

use skat_engine::matches::{MatchError, Seat};

/// Why a table refuses a request.
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
    /// A join key some seat was taken with, from a player of another name.
    #[error("this join key took seat {0} under another name: a key belongs to one player")]
    JoinKeyTaken(Seat),
    /// The rules (or the match) refuse the action.
    #[error(transparent)]
    Rule(#[from] MatchError),
}

/// A change could not be made (by [`super::TableHandle::mutate`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum ChangeError {
    /// The table was read back from the journal to be read: it changes no more.
    #[error("this table is over (finished or abandoned) and can only be read")]
    ReadOnly,
    /// The journal could not make the change durable (the server is stopping).
    #[error("the server could not store this change and is restarting; nothing was changed: retry")]
    NotDurable,
}
