//! # skat-engine
//!
//! Skat by the International Skat Order, as a pure library: no I/O, no async, no
//! network types. Everything else in the project (server, SDK, bots, arena) asks this
//! crate every rule question.
//!
//! Where things are:
//!
//! | concern | module |
//! |---|---|
//! | cards, suits, ranks, ISS codes | [`card`], [`cards`] (the 32-bit [`CardSet`]) |
//! | seeded shuffling and dealing | [`dealing`] |
//! | the auction | [`auction`], [`bid`] (the ladder) |
//! | game types, trumps, tricks, matadors | [`contract`] |
//! | one deal as a checked state machine | [`deal`] ([`Deal::apply`]) |
//! | scoring | [`score`] |
//! | what each seat may see and do | [`view`] |
//! | a list of deals with rotating dealer | [`matches`] |
//! | match events (with the public facts after each move) and their redaction per seat | [`events`] |
//! | what one seat knows, folded from the events it is shown | [`seat_view`] ([`SeatView`]) |
//! | ISS game records | [`iss`] |
//! | uniformly random legal players | [`random`] |
//!
//! ```
//! use skat_engine::{Action, Deal, Dealt, Position, random::RandomPlayer};
//!
//! let mut deal = Deal::new(Dealt::seeded(42, 0));
//! let mut player = RandomPlayer::new(1);
//! while let Some(p) = deal.to_move() {
//!     let action = player.choose(&deal, p);
//!     deal.apply(p, action).expect("random players only choose legal actions");
//! }
//! assert!(deal.outcome().is_some());
//! ```

#![forbid(unsafe_code)]

pub mod action;
pub mod auction;
pub mod bid;
pub mod card;
pub mod cards;
pub mod contract;
pub mod deal;
pub mod dealing;
pub mod events;
#[doc(hidden)]
pub mod fuzzing;
pub mod iss;
pub mod matches;
pub mod position;
pub mod random;
pub mod record;
pub mod score;
pub mod seat;
pub mod seat_view;
pub mod trick;
pub mod view;

pub use action::{Action, ForfeitReason, Phase, RuleError};
pub use auction::{AuctionCall, Call};
pub use bid::Bid;
pub use card::{Card, Rank, Suit};
pub use cards::CardSet;
pub use contract::{Announcement, Contract, Declaration, GameType};
pub use deal::{Deal, DealEnd, Trick};
pub use dealing::Dealt;
pub use events::{EventView, Facts, GameEvent};
pub use matches::{Match, MatchConfig, Seat};
pub use position::Position;
pub use record::{DealRecord, DealResult};
pub use score::{GameResult, Outcome, Penalty};
pub use seat_view::SeatView;
pub use view::{LegalActions, View};
