//! # skat-league
//!
//! Competitions as pure functions: what a tournament plays, how its entrants stand, how
//! their ratings move. No I/O, no async, no protobuf: the server stores and schedules,
//! the arena plays in process, and both ask this crate the same questions, so a standing
//! or an interval means the same thing wherever it is printed.
//!
//! | concern | module |
//! |---|---|
//! | ids, names, a tournament's settings, a planned table and its status | [`model`] |
//! | the name policy: what a name may hold, when two names are one | [`names`] |
//! | round robin, Swiss pairing, seat rotations (duplicate) | [`plan`] |
//! | deals fixed in advance: list seeds from a secret, its commitment | [`deals`] |
//! | per-entrant totals, mean and Student-t interval, meetings | [`standings`] |
//! | Weng-Lin rating updates from a list's placements | [`rating`] |

pub mod deals;
pub mod model;
pub mod names;
pub mod plan;
pub mod rating;
pub mod standings;

pub use model::{
    AccountId, BotName, ChallengeId, ChallengeState, ChallengeTerms, Format, PlannedTable, SeatResult,
    TableStatus, TournamentId, TournamentSpec, TournamentStatus,
};
pub use names::{
    NameError, NameKind, NameRule, check_name, is_bidi_control, name_keys, primary_key, same_name,
};
