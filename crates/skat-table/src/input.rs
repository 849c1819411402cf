//! What a table is set up with and what it journals: [`TableConfig`], the [`Input`]s
//! that change it, and [`JournalEntry`] (an input with its number and time).
//!
//! The inputs are the table's truth on disk: replayed in order through the same
//! methods that made them ([`super::Table::replay`]), they rebuild the table event for
//! event. Their JSON form is what the journal stores, so its field names are part of
//! the database.

use serde::{Deserialize, Serialize};
use skat_engine::Action;
use skat_engine::MatchConfig;
use skat_engine::matches::Seat;

use crate::secret::TokenHash;

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
    /// Milliseconds after a deal ends in which no seat's time runs (0: none): a person
    /// reads the end of the deal before the next one asks for a decision.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub between_deals_ms: u64,
    /// If set, JoinTable must present the code with this hash (a private table).
    pub join_code: Option<TokenHash>,
    /// Most joins in the table's life (each join or leave is logged).
    pub max_joins: usize,
    /// A tournament's table: other tables are dealt the same cards (its list's other seat
    /// rotations), so spectators wait for the embargo (`competition::embargo`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub tournament: bool,
}

fn is_zero(ms: &u64) -> bool {
    *ms == 0
}

impl TableConfig {
    /// Whether spectators may have to wait for an embargo: a tournament table, or a
    /// private one (tournament tables made before the mark are private).
    pub fn marked_for_embargo(&self) -> bool {
        self.tournament || self.join_code.is_some()
    }
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
        /// The hash of the client's join key, when it gave one (a retried JoinTable
        /// with it gets this seat back).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        key: Option<TokenHash>,
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
        /// Its comment on the action (shown once the deal has ended).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        comment: Option<String>,
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
