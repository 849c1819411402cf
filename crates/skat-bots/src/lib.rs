//! # skat-bots
//!
//! Example strategies written only against the SDK's [`Knowledge`](skat_bot_api::Knowledge):
//!
//! - [`random`]: a uniformly random legal action at every decision;
//! - [`heuristic`]: a club player's rules of thumb for discarding and play, bidding and
//!   choosing its game by a model fitted to simulated outcomes ([`hand_model`]);
//! - [`pimc`]: bidding, discarding, declaring and card play by sampling the unseen cards
//!   and solving each world (`skat-solver`);
//! - [`choice`]: game choice by simulation (`pimc-sim`): every option, hand or not, null
//!   open or not, judged over sampled deals; [`judge_game`] judges a finished deal's
//!   bidding and game with it; [`inference`]: `pimc-sim`'s worlds weighed by the cards
//!   the others played.
//!
//! [`Strategy`] picks one by name (`skat bot --strategy NAME`, `skat arena --bots ...`).

pub mod analysis;
pub mod choice;
pub mod evidence;
pub mod hand_model;
pub mod heuristic;
pub mod inference;
pub mod judge;
pub mod judge_game;
pub mod pimc;
pub mod put_away;
pub mod random;
pub mod worlds;

use skat_bot_api::{Bot, Knowledge};
use skat_engine::{Bid, Card, Contract};

use crate::choice::ChoiceConfig;

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
/// level between `heuristic` and `pimc`, a few milliseconds per card. `pimc-sim` is
/// `pimc-bold` choosing its games by simulation ([`choice`]) and weighing its worlds by the
/// cards played as well ([`inference`]): the top of the ladder.
pub const NAMES: [&str; 7] =
    ["random", "heuristic", "pimc-fast", "pimc", "pimc-plain", "pimc-bold", "pimc-sim"];

/// The ladder of built-in strengths, weakest first (docs/bots.md: each level's measured
/// margin over the one below). The page marks the house bots of these names.
pub const LADDER: [&str; 6] = ["random", "heuristic", "pimc-fast", "pimc", "pimc-bold", "pimc-sim"];

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
        "pimc-sim" => PimcConfig {
            boldness: BOLD,
            play_evidence: true,
            choice: Some(ChoiceConfig::default()),
            ..default
        },
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
    /// `on` or `off`; `infer`, the cards played as evidence, `on` or `off`; `bold`, hundredths of a log-odd added to the hand model's chances
    /// when bidding and declaring, 0 to 400; and the game choice's, which turn it on:
    /// `lift`, hundredths of a log-odd, 0 to 400; `floor`, the null floor in percent;
    /// `choicenodes`, solver nodes per bidding or declaring decision; `suithand`, `hands`,
    /// `nullsim`, `on` or `off`: [`ChoiceConfig`]). Colons, not commas, so that a setting
    /// survives `--bots a,b,c`.
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
            apply(&mut config, key, value)?;
        }
        Ok(Strategy::Pimc(Box::new(PimcBot::new(seed, config))))
    }
}

/// One `KEY=VALUE` setting of a PIMC strategy applied to `config`.
fn apply(config: &mut PimcConfig, key: &str, value: &str) -> Result<(), String> {
    let number =
        |lo: u64, hi: u64| {
            value.parse::<u64>().ok().filter(|v| (lo..=hi).contains(v)).ok_or_else(|| {
                format!("pimc `{key}` must be a whole number from {lo} to {hi}, not `{value}`")
            })
        };
    let switch = || match value {
        "on" => Ok(true),
        "off" => Ok(false),
        _ => Err(format!("pimc `{key}` is `on` or `off`, not `{value}`")),
    };
    // Hundredths of a log-odd: `bold=50` adds 0.5.
    let hundredths = |hi: u64| number(0, hi).map(|n| n as f64 / 100.0);
    match key {
        "samples" => config.samples = number(1, 1024)? as u32,
        "bold" => config.boldness = hundredths(400)?,
        "nodes" => config.max_nodes = number(1_000, 100_000_000)?,
        "evidence" => config.bidding_evidence = switch()?,
        "infer" => config.play_evidence = switch()?,
        _ => {
            // Game choice by simulation (`pimc-sim`'s): any of these turns it on.
            let choice = config.choice.get_or_insert_with(ChoiceConfig::default);
            match key {
                "lift" => choice.lift = hundredths(400)?,
                "floor" => choice.null_floor = hundredths(100)?,
                "choicenodes" => choice.nodes = number(10_000, 100_000_000)?,
                "suithand" => choice.suit_hand = switch()?,
                "hands" => choice.hand_games = switch()?,
                "nullsim" => choice.null_by_simulation = switch()?,
                _ => {
                    return Err(format!(
                        "unknown pimc setting `{key}` (samples, nodes, evidence, infer, bold, lift, floor, choicenodes, suithand, hands, nullsim)"
                    ));
                }
            }
        }
    }
    Ok(())
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
