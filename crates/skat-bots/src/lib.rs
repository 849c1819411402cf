//! # skat-bots
//!
//! Example strategies written only against the SDK's [`Knowledge`](skat_bot_api::Knowledge):
//!
//! - [`random`]: a uniformly random legal action at every decision;
//! - [`heuristic`]: a club player's rules of thumb for discarding and play, bidding and
//!   choosing its game by a model fitted to simulated outcomes ([`hand_model`]);
//! - [`pimc`]: bidding, discarding, declaring and card play by sampling the unseen cards
//!   and solving each world (`skat-solver`).
//!
//! [`Strategy`] picks one by name (`skat bot --strategy NAME`, `skat arena --bots ...`).

pub mod analysis;
pub mod evidence;
pub mod hand_model;
pub mod heuristic;
pub mod judge;
pub mod pimc;
pub mod random;

use skat_bot_api::{Bot, Knowledge};
use skat_engine::{Bid, Card, Contract};

pub use heuristic::HeuristicBot;
pub use pimc::{PimcBot, PimcConfig};
pub use random::RandomBot;

/// The built-in strategies' names. `pimc-plain` is `pimc` with its worlds drawn without
/// the auction's evidence ([`PimcConfig::bidding_evidence`] off): what that evidence is
/// worth is measured by seating both at one table. `pimc-bold` is `pimc` bidding and
/// declaring with the hand model's chances raised by [`BOLD`] log-odds: the model was
/// fitted to the heuristic's card play, and PIMC's wins more of the same hands
/// (docs/bots.md: the strongest built-in bot, measured against `pimc`). `pimc-fast` is
/// `pimc` on a small budget ([`FAST_SAMPLES`] worlds, [`FAST_NODES`] nodes): the ladder's
/// level between `heuristic` and `pimc`, a few milliseconds per card.
pub const NAMES: [&str; 6] = ["random", "heuristic", "pimc-fast", "pimc", "pimc-plain", "pimc-bold"];

/// The ladder of built-in strengths, weakest first (docs/bots.md: each level's measured
/// margin over the one below). The page marks the house bots of these names.
pub const LADDER: [&str; 5] = ["random", "heuristic", "pimc-fast", "pimc", "pimc-bold"];

/// Worlds per card decision of `pimc-fast` (`pimc` keeps 24).
pub const FAST_SAMPLES: u32 = 6;
/// Solver nodes per decision of `pimc-fast` (`pimc` spends at most 400,000).
pub const FAST_NODES: u64 = 50_000;

/// The boldness of `pimc-bold` (`pimc:bold=50`), the best of 0.25, 0.5 and 1 measured.
pub const BOLD: f64 = 0.5;

/// The settings of a built-in PIMC strategy by its name (`pimc`, `pimc-fast`,
/// `pimc-plain`, `pimc-bold`); `None` for any other name.
pub fn pimc_config(name: &str) -> Option<PimcConfig> {
    let default = PimcConfig::default();
    Some(match name {
        "pimc" => default,
        "pimc-plain" => PimcConfig { bidding_evidence: false, ..default },
        "pimc-bold" => PimcConfig { boldness: BOLD, ..default },
        "pimc-fast" => PimcConfig { samples: FAST_SAMPLES, max_nodes: FAST_NODES, ..default },
        _ => return None,
    })
}

/// A built-in strategy chosen at run time.
#[derive(Debug, Clone)]
pub enum Strategy {
    /// [`RandomBot`].
    Random(Box<RandomBot>),
    /// [`HeuristicBot`].
    Heuristic(HeuristicBot),
    /// [`PimcBot`] (`pimc` at its default settings, `pimc-fast`, `pimc-plain` or `pimc-bold`).
    Pimc(Box<PimcBot>),
}

impl Strategy {
    /// The strategy called `name` (seeded where it uses randomness), `None` for a name
    /// [`Strategy::parse`] refuses.
    pub fn by_name(name: &str, seed: u64) -> Option<Strategy> {
        Strategy::parse(name, seed).ok()
    }

    /// The strategy `name`: one of [`NAMES`], or `pimc` with settings after colons,
    /// `pimc:samples=48:nodes=800000:evidence=off` (worlds kept per card decision, 1 to
    /// 1,024; solver nodes per decision, 1,000 to 100,000,000; the auction as evidence,
    /// `on` or `off`; `bold`, hundredths of a log-odd added to the hand model's chances
    /// when bidding and declaring, 0 to 400). Colons, not commas, so that a setting survives `--bots a,b,c`.
    pub fn parse(name: &str, seed: u64) -> Result<Strategy, String> {
        let mut parts = name.trim().split(':');
        let base = parts.next().unwrap_or_default();
        let mut config = match base {
            "random" | "heuristic" if name.contains(':') => {
                return Err(format!("`{base}` takes no settings"));
            }
            "random" => return Ok(Strategy::Random(Box::new(RandomBot::new(seed)))),
            "heuristic" => return Ok(Strategy::Heuristic(HeuristicBot::new())),
            _ => pimc_config(base)
                .ok_or_else(|| format!("unknown strategy `{base}` (built-in: {})", NAMES.join(", ")))?,
        };
        for setting in parts {
            let (key, value) = setting
                .split_once('=')
                .ok_or_else(|| format!("a pimc setting is KEY=VALUE, not `{setting}`"))?;
            let number = |lo: u64, hi: u64| {
                value.parse::<u64>().ok().filter(|v| (lo..=hi).contains(v)).ok_or_else(|| {
                    format!("pimc `{key}` must be a whole number from {lo} to {hi}, not `{value}`")
                })
            };
            match key {
                "samples" => config.samples = number(1, 1024)? as u32,
                // Hundredths of a log-odd: `bold=50` adds 0.5.
                "bold" => config.boldness = number(0, 400)? as f64 / 100.0,
                "nodes" => config.max_nodes = number(1_000, 100_000_000)?,
                "evidence" => {
                    config.bidding_evidence = match value {
                        "on" => true,
                        "off" => false,
                        _ => return Err(format!("pimc `evidence` is `on` or `off`, not `{value}`")),
                    }
                }
                _ => return Err(format!("unknown pimc setting `{key}` (samples, nodes, evidence, bold)")),
            }
        }
        Ok(Strategy::Pimc(Box::new(PimcBot::new(seed, config))))
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
    fn comment(&mut self, k: &Knowledge) -> Option<String> {
        match self {
            Strategy::Random(b) => b.comment(k),
            Strategy::Heuristic(b) => b.comment(k),
            Strategy::Pimc(b) => b.comment(k),
        }
    }
}
