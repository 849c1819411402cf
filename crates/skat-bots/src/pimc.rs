//! `pimc`: card play by perfect-information Monte Carlo over the double-dummy solver.
//!
//! For each card decision it deals the cards it cannot see in ways consistent with what
//! it knows (its hand, every card played, the voids the play has shown, the skat and
//! discards when it saw them, an open hand), keeps them in proportion to how well they
//! fit the auction ([`crate::evidence`]: a declarer's game and bid, the others' bids and
//! passes, as soft evidence), solves each world with every legal card
//! (`skat-solver`), and plays the card that wins in most worlds (declarer: reaches 61 or
//! takes no trick in null; defenders: keep the declarer below), ties broken by the
//! average points. The worlds and the work are bounded by `samples` and a node budget, so
//! a decision is deterministic for a seed and bounded in time.
//!
//! Bidding, discarding and declaring are the heuristic's: the game with the best expected
//! score by the hand model fitted to simulated games ([`crate::hand_model`]), or with
//! [`PimcConfig::choice`] the game choice by simulation ([`crate::choice`], `pimc-sim`).
//! (An earlier alternative bid by simulation alone, the best game won in 60% of
//! double-dummy worlds: it declared half as often as the model, since such worlds let the
//! defenders play as if they saw the declarer's hand; the chooser corrects for that, and
//! the alternative is gone: docs/bots.md.) Taking the skat is the heuristic's rule.

use rand_chacha::ChaCha8Rng;
use rand_core::SeedableRng;
use skat_bot_api::{Bot, Knowledge};
use skat_engine::{Bid, Card, CardSet, Contract, Position};
use skat_solver::Solver;

use crate::HeuristicBot;
use crate::choice::{ChoiceConfig, Chooser, Judged};
use crate::evidence::Auction;
pub use crate::worlds::EVIDENCE_POOL;
use crate::worlds::Facts;

/// Settings of the PIMC bot.
#[derive(Debug, Clone, Copy)]
pub struct PimcConfig {
    /// Worlds sampled per card decision.
    pub samples: u32,
    /// Solver nodes per decision (10-17 M per second on one core): the budget that
    /// keeps a decision under 100 ms whatever the position; at least one world is solved.
    pub max_nodes: u64,
    /// Weigh the worlds by what the auction says of the hidden hands
    /// ([`crate::evidence`]): draw [`EVIDENCE_POOL`] times `samples` worlds and keep
    /// `samples` of them in proportion to how well each fits.
    pub bidding_evidence: bool,
    /// Weigh the worlds also by how likely the others' past cards were in each, under a
    /// model of sound play ([`crate::inference`]): `pimc-sim`'s.
    pub play_evidence: bool,
    /// Log-odds added to the fitted hand model's chances when bidding, discarding and
    /// declaring ([`HeuristicBot::with_boldness`]): the model was fitted to the
    /// heuristic's card play, and this bot plays its cards better.
    pub boldness: f64,
    /// Bid, pick up or play hand, discard and declare by [`crate::choice`] (the fitted
    /// model and the simulation together, null by simulation, hand games and null open
    /// judged at their value) instead of by the model alone: `pimc-sim`.
    pub choice: Option<ChoiceConfig>,
}

impl Default for PimcConfig {
    fn default() -> PimcConfig {
        PimcConfig {
            samples: 24,
            max_nodes: 400_000,
            bidding_evidence: true,
            play_evidence: false,
            boldness: 0.0,
            choice: None,
        }
    }
}

/// The PIMC bot.
#[derive(Debug, Clone)]
pub struct PimcBot {
    config: PimcConfig,
    seed: u64,
    rng: ChaCha8Rng,
    heuristic: HeuristicBot,
    /// Game choice by simulation ([`PimcConfig::choice`]).
    chooser: Option<Chooser>,
    /// Its judgement of the ten cards dealt (hand bits, position): bidding asks often.
    judged: Option<(u32, Position, Vec<Judged>)>,
    /// The contract it chose, to declare.
    declaring: Option<Contract>,
}

impl PimcBot {
    /// A PIMC bot whose worlds follow from `seed`.
    pub fn new(seed: u64, config: PimcConfig) -> PimcBot {
        PimcBot {
            config,
            seed,
            rng: ChaCha8Rng::seed_from_u64(seed),
            heuristic: HeuristicBot::with_boldness(config.boldness),
            chooser: config.choice.map(|c| Chooser::new(seed, c)),
            judged: None,
            declaring: None,
        }
    }

    /// The chooser's judgement of the ten cards dealt, worked out once per hand.
    fn judgement(&mut self, hand: CardSet, me: Position) -> Option<&[Judged]> {
        let chooser = self.chooser.as_ref()?;
        if !self.judged.as_ref().is_some_and(|(h, p, _)| *h == hand.bits() && *p == me) {
            self.judged = Some((hand.bits(), me, chooser.before_skat(hand, me)));
        }
        self.judged.as_ref().map(|(_, _, j)| j.as_slice())
    }

    /// The card to play, by sampling and solving (`None`: not a card decision it can
    /// judge, e.g. no declarer known).
    pub fn choose_card(&mut self, k: &Knowledge) -> Option<Card> {
        let legal = k.legal.cards;
        if legal.len() == 1 {
            return legal.first();
        }
        let me = k.position()?;
        let declarer = k.declarer?;
        let game = k.contract?.game;
        // Reseeded per decision: the same knowledge gives the same card.
        let played =
            k.tricks.len() as u64 * 3 + k.current_trick.as_ref().map_or(0, |t| t.cards().len() as u64);
        self.rng = ChaCha8Rng::seed_from_u64(
            self.seed ^ played.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ u64::from(k.hand.bits()),
        );
        let facts = Facts::of(k, me, declarer, game);
        let worlds = if self.config.bidding_evidence {
            facts.weighted_worlds(
                &Auction::of(k),
                self.config.play_evidence,
                self.config.samples,
                &mut self.rng,
            )
        } else {
            (0..self.config.samples).filter_map(|_| facts.sample(&mut self.rng)).map(|(w, _)| w).collect()
        };
        if worlds.is_empty() {
            return None;
        }
        // First: in how many worlds each card wins the game (declarer 61, or no trick in
        // null; defenders keep it below). When that does not separate the best cards, a
        // second question: schneider (90 for the declarer when winning anyway, 31 for the
        // defenders to escape it) or, for a losing declarer, 31.
        let target = if game.is_null() { 1 } else { 61 };
        let mut budget = self.config.max_nodes;
        let (first, solved) = tally(&worlds, legal, me == declarer, target, &mut budget);
        if solved == 0 {
            // Not one world within the budget (a hard position early in the play).
            return None;
        }
        let best = first.iter().map(|(_, w)| *w).max().unwrap_or(0);
        let tied: Vec<Card> = first.iter().filter(|(_, w)| *w == best).map(|(c, _)| *c).collect();
        if tied.len() == 1 || game.is_null() || budget == 0 {
            return tied.first().copied();
        }
        let winning = best * 2 > solved;
        let second_target = match (me == declarer, winning) {
            (true, true) => 90,
            (true, false) => 31,
            (false, true) => 31,
            (false, false) => 90,
        };
        let tied_set: CardSet = tied.iter().copied().collect();
        let (second, _) = tally(&worlds, tied_set, me == declarer, second_target, &mut budget);
        second.into_iter().max_by_key(|(c, w)| (*w, std::cmp::Reverse(c.points()))).map(|(c, _)| c)
    }
}

/// For each card: the worlds in which, after it, the side of the player to move gets
/// what it wants at `target` (declarer: reaches it; defenders: keep the declarer below).
/// Worlds are solved in order until `budget` nodes are spent; also returns how many were.
fn tally(
    worlds: &[skat_solver::Position],
    cards: CardSet,
    declarer: bool,
    target: u8,
    budget: &mut u64,
) -> (Vec<(Card, u32)>, u32) {
    let mut solved = 0;
    let mut wins: Vec<(Card, u32)> = cards.into_iter().map(|c| (c, 0)).collect();
    for world in worlds {
        if *budget == 0 {
            break;
        }
        let mut solver = Solver::with_node_limit(*budget);
        let mut results = Vec::with_capacity(wins.len());
        for (card, _) in &wins {
            results.push(solver.at_least(&world.play(*card), target));
        }
        *budget = budget.saturating_sub(solver.stats.nodes);
        if solver.aborted {
            break;
        }
        for ((_, w), reaches) in wins.iter_mut().zip(results) {
            *w += u32::from(declarer == reaches);
        }
        solved += 1;
    }
    (wins, solved)
}

impl Bot for PimcBot {
    async fn bid(&mut self, k: &Knowledge) -> Option<Bid> {
        if self.chooser.is_some() {
            let limit = crate::choice::bid_limit(self.judgement(k.hand, k.position()?)?);
            return k.legal.bid_from.filter(|b| b.value() <= limit);
        }
        self.heuristic.bid(k).await
    }
    async fn answer(&mut self, k: &Knowledge, bid: Bid) -> bool {
        if self.chooser.is_some() {
            let Some(me) = k.position() else { return false };
            return self.judgement(k.hand, me).is_some_and(|j| bid.value() <= crate::choice::bid_limit(j));
        }
        self.heuristic.answer(k, bid).await
    }
    async fn take_skat(&mut self, k: &Knowledge) -> bool {
        if self.chooser.is_none() {
            return self.heuristic.take_skat(k).await;
        }
        // Hand when the best option that reaches the bid is a hand game.
        let bid = k.bid.map_or(18, Bid::value);
        let Some(me) = k.position() else { return true };
        let Some(judged) = self.judgement(k.hand, me) else { return true };
        let reaching: Vec<Judged> = judged.iter().copied().filter(|j| j.value >= bid).collect();
        match crate::choice::best(&reaching) {
            Some(j) if j.choice.hand => {
                self.declaring = Some(j.choice.contract());
                false
            }
            _ => true,
        }
    }
    async fn discard(&mut self, k: &Knowledge) -> [Card; 2] {
        if let (Some(chooser), Some(me)) = (&self.chooser, k.position()) {
            // The best expected result among the games reaching the bid, the least loss
            // when none is expected to score (not the likeliest win: a null at a low
            // chance can be likelier than a suit game and cost more).
            let judged = chooser.after_pickup(k.hand, k.bid.map_or(18, Bid::value), me);
            let pick = judged.iter().copied().max_by(|a, b| a.expected.total_cmp(&b.expected));
            if let Some(Judged { choice, away: Some(away), .. }) = pick {
                self.declaring = Some(choice.contract());
                return away;
            }
        }
        self.heuristic.discard(k).await
    }
    async fn declare(&mut self, k: &Knowledge) -> Contract {
        if let Some(contract) = self.declaring.take()
            && k.legal.contracts.contains(&contract)
        {
            return contract;
        }
        self.heuristic.declare(k).await
    }
    async fn play(&mut self, k: &Knowledge) -> Card {
        match self.choose_card(k) {
            Some(c) => c,
            None => self.heuristic.play(k).await,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use skat_engine::{GameType, Rank};

    #[test]
    fn the_rule_discard_keeps_trumps_and_aces() {
        let cards = |s: &str| s.parse::<CardSet>().expect("cards");
        let twelve = cards("CJ.SJ.HJ.DJ.CA.SA.HA.CT.ST.C7.DT.D8");
        let away = crate::heuristic::discard_for(twelve, GameType::Grand);
        assert!(away.iter().all(|c| !c.is_jack() && c.rank() != Rank::Ace), "{away:?}");
        assert!(away.contains(&Card::new(skat_engine::Suit::Diamonds, Rank::Ten)), "the blank ten: {away:?}");
    }
}
