//! # skat-bots
//!
//! Example strategies written only against the SDK's [`Knowledge`](skat_sdk::Knowledge):
//!
//! - [`random`]: a uniformly random legal action at every decision;
//! - [`heuristic`]: a club player's rules of thumb for discarding and play, bidding and
//!   choosing its game by a model fitted to simulated outcomes ([`hand_model`]);
//! - [`pimc`]: bidding, discarding, declaring and card play by sampling the unseen cards
//!   and solving each world (`skat-solver`).
//!
//! [`Strategy`] picks one by name (`skat bot --strategy NAME`, `skat arena --bots ...`).

#![warn(missing_docs)]

pub mod evidence;
pub mod hand_model;
pub mod heuristic;
pub mod pimc;
pub mod random;

use skat_engine::{Bid, Card, Contract};
use skat_sdk::{Bot, Knowledge};

pub use heuristic::HeuristicBot;
pub use pimc::{PimcBot, PimcConfig};
pub use random::RandomBot;

/// The built-in strategies' names. `pimc-plain` is `pimc` with its worlds drawn without
/// the auction's evidence ([`PimcConfig::bidding_evidence`] off): what that evidence is
/// worth is measured by seating both at one table.
pub const NAMES: [&str; 4] = ["random", "heuristic", "pimc", "pimc-plain"];

/// A built-in strategy chosen at run time.
#[derive(Debug, Clone)]
pub enum Strategy {
    /// [`RandomBot`].
    Random(Box<RandomBot>),
    /// [`HeuristicBot`].
    Heuristic(HeuristicBot),
    /// [`PimcBot`] (`pimc` at its default settings, or `pimc-plain`).
    Pimc(Box<PimcBot>),
}

impl Strategy {
    /// The strategy called `name` (seeded where it uses randomness).
    pub fn by_name(name: &str, seed: u64) -> Option<Strategy> {
        match name {
            "random" => Some(Strategy::Random(Box::new(RandomBot::new(seed)))),
            "heuristic" => Some(Strategy::Heuristic(HeuristicBot::new())),
            "pimc" => Some(Strategy::Pimc(Box::new(PimcBot::new(seed, PimcConfig::default())))),
            "pimc-plain" => Some(Strategy::Pimc(Box::new(PimcBot::new(
                seed,
                PimcConfig { bidding_evidence: false, ..PimcConfig::default() },
            )))),
            _ => None,
        }
    }
}

macro_rules! delegate {
    ($self:ident, $b:ident => $call:expr) => {
        match $self {
            Strategy::Random($b) => $call.await,
            Strategy::Heuristic($b) => $call.await,
            Strategy::Pimc($b) => $call.await,
        }
    };
}

impl Bot for Strategy {
    async fn bid(&mut self, k: &Knowledge) -> Option<Bid> {
        delegate!(self, b => b.bid(k))
    }
    async fn answer(&mut self, k: &Knowledge, bid: Bid) -> bool {
        delegate!(self, b => b.answer(k, bid))
    }
    async fn take_skat(&mut self, k: &Knowledge) -> bool {
        delegate!(self, b => b.take_skat(k))
    }
    async fn discard(&mut self, k: &Knowledge) -> [Card; 2] {
        delegate!(self, b => b.discard(k))
    }
    async fn declare(&mut self, k: &Knowledge) -> Contract {
        delegate!(self, b => b.declare(k))
    }
    async fn play(&mut self, k: &Knowledge) -> Card {
        delegate!(self, b => b.play(k))
    }
}
