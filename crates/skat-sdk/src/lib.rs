//! # skat-sdk
//!
//! Write a Skat bot in Rust: implement [`Bot`] (six decisions, each given the seat's
//! [`Knowledge`], the engine's `SeatView`) and hand it to [`play::join_and_play`]. The SDK joins, follows the
//! table's stream, asks the bot whenever it is the seat's turn, checks the answer against
//! the legal actions, reconnects and resumes after a dropped connection, and returns the
//! final standings.
//!
//! ```no_run
//! use skat_engine::{Bid, Card, Contract, GameType};
//! use skat_sdk::{Bot, Knowledge};
//!
//! /// Bids 18 with two jacks, plays grand, and plays its lowest legal card.
//! struct Cautious;
//!
//! impl Bot for Cautious {
//!     async fn bid(&mut self, k: &Knowledge) -> Option<Bid> {
//!         let jacks = (k.hand & skat_engine::CardSet::JACKS).len();
//!         k.legal.bid_from.filter(|b| jacks >= 2 && b.value() <= 24)
//!     }
//!     async fn answer(&mut self, k: &Knowledge, bid: Bid) -> bool {
//!         (k.hand & skat_engine::CardSet::JACKS).len() >= 2 && bid.value() <= 24
//!     }
//!     async fn take_skat(&mut self, _: &Knowledge) -> bool {
//!         true
//!     }
//!     async fn discard(&mut self, k: &Knowledge) -> [Card; 2] {
//!         let mut plain = (k.hand - skat_engine::CardSet::JACKS).iter();
//!         [plain.next().unwrap(), plain.next().unwrap()]
//!     }
//!     async fn declare(&mut self, k: &Knowledge) -> Contract {
//!         let grand = Contract::plain(GameType::Grand);
//!         if k.legal.contracts.contains(&grand) { grand } else { k.legal.contracts[0] }
//!     }
//!     async fn play(&mut self, k: &Knowledge) -> Card {
//!         k.legal.cards.first().unwrap()
//!     }
//! }
//!
//! #[tokio::main]
//! async fn main() -> Result<(), skat_sdk::SdkError> {
//!     let finished =
//!         skat_sdk::play::join_and_play("http://127.0.0.1:50051", "t0123456789ab", "cautious", None, &mut Cautious)
//!             .await?;
//!     println!("{:?}", finished.standings);
//!     Ok(())
//! }
//! ```

pub mod address;
pub mod bot;
pub mod client;
pub mod connections;
pub mod error;
pub mod knowledge;
pub mod lobby;
pub mod play;
pub mod watches;

pub use address::{Keepalive, ServerAddress};
pub use bot::{Bot, decide};
pub use client::{SdkError, SeatClient};
pub use watches::{WatchHub, WatchStream};

/// What a seat knows when it must decide ([`skat_bot_api::Knowledge`], the engine's
/// `SeatView`), folded here from the seat's stream of events.
pub use skat_bot_api::Knowledge;
