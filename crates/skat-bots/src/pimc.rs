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
//! score by the hand model fitted to simulated games ([`crate::hand_model`]). Measured,
//! that bids better than the alternative kept behind
//! [`PimcConfig::simulate_bidding`]: for each candidate game it deals the unseen cards
//! (and the skat) many times, puts away two cards by a rule, and asks the solver whether
//! the declarer wins; it bids up to the value of the best game it wins in at least 60% of
//! the worlds, and after the pick-up declares the game (with its discard) that wins most
//! often. (Double-dummy worlds let the defenders play as if they saw the declarer's hand,
//! so they judge too many hands hopeless: it declared half as often as the model does.)
//! Taking the skat is the heuristic's rule.

use rand_chacha::ChaCha8Rng;
use rand_core::SeedableRng;
use skat_bot_api::{Bot, Knowledge};
use skat_engine::{Bid, Card, CardSet, Contract, GameType, Position, Rank};
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
    /// Bid, discard and declare by simulation (below) instead of by the fitted hand
    /// model the heuristic uses ([`crate::hand_model`]). Off by default: measured, the
    /// model bids better (docs/BENCHMARKS.md), and answers at once.
    pub simulate_bidding: bool,
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
            simulate_bidding: false,
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
    /// The bid limit worked out for a hand (hand bits, position): bidding asks several times.
    limit: Option<(u32, Position, u16)>,
    /// The game and discard chosen after the pick-up.
    chosen: Option<(GameType, [Card; 2])>,
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
            limit: None,
            chosen: None,
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

    /// The highest bid worth making with `hand` at `me`: the value of the best game that
    /// wins in at least 60% of simulated worlds (0: none).
    fn bid_limit(&mut self, hand: CardSet, me: Position) -> u16 {
        if let Some((h, p, v)) = self.limit
            && h == hand.bits()
            && p == me
        {
            return v;
        }
        self.rng = ChaCha8Rng::seed_from_u64(self.seed ^ u64::from(hand.bits()));
        let mut budget = self.config.max_nodes * 8;
        let mut best = 0u16;
        for game in candidates(hand) {
            let worth = crate::heuristic::value(hand, game);
            if worth <= best {
                continue;
            }
            let chance = self.win_chance(hand, None, me, game, &mut budget);
            if chance >= 0.6 {
                best = worth;
            }
        }
        self.limit = Some((hand.bits(), me, best));
        best
    }

    /// How often `me`, declaring `game`, wins over sampled worlds: with `hand` (10 cards)
    /// and a skat picked up and discarded by rule, or with `twelve` = `hand` after the
    /// pick-up and `away` put away.
    fn win_chance(
        &mut self,
        hand: CardSet,
        away: Option<[Card; 2]>,
        me: Position,
        game: GameType,
        budget: &mut u64,
    ) -> f64 {
        let known = away.map_or(hand, |[a, b]| hand.with(a).with(b));
        let pool: Vec<Card> = (!known).into_iter().collect();
        let target = if game.is_null() { 1 } else { 61 };
        let (mut wins, mut worlds) = (0u32, 0u32);
        for _ in 0..self.config.samples.min(16) {
            if *budget == 0 {
                break;
            }
            let mut cards = pool.clone();
            for i in (1..cards.len()).rev() {
                let j = skat_engine::dealing::uniform_below(&mut self.rng, i as u32 + 1) as usize;
                cards.swap(i, j);
            }
            let (mine, put_away, rest) = match away {
                Some([a, b]) => (hand, CardSet::single(a).with(b), &cards[..]),
                None => {
                    let twelve = hand.with(cards[0]).with(cards[1]);
                    let [a, b] = crate::heuristic::discard_for(twelve, game);
                    (twelve.without(a).without(b), CardSet::single(a).with(b), &cards[2..])
                }
            };
            let mut hands = [CardSet::EMPTY; 3];
            hands[me.index()] = mine;
            let (o1, o2) = ((me.index() + 1) % 3, (me.index() + 2) % 3);
            hands[o1] = rest[..10].iter().copied().collect();
            hands[o2] = rest[10..20].iter().copied().collect();
            let p = skat_solver::Position::new(game, me.index() as u8, hands, put_away);
            let mut solver = Solver::with_node_limit(*budget);
            let won = solver.at_least(&p, target);
            *budget = budget.saturating_sub(solver.stats.nodes);
            if solver.aborted {
                break;
            }
            wins += u32::from(won);
            worlds += 1;
        }
        if worlds == 0 { 0.0 } else { f64::from(wins) / f64::from(worlds) }
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

/// Games worth simulating for a hand: suit games with four trumps or more, grand with
/// two jacks or more, null when its hand has few high cards.
fn candidates(hand: CardSet) -> Vec<GameType> {
    let jacks = (hand & CardSet::JACKS).len();
    GameType::ALL
        .into_iter()
        .filter(|g| match g {
            GameType::Grand => jacks >= 2,
            GameType::Null => (hand & (CardSet::rank(Rank::Ace) | CardSet::rank(Rank::King))).len() <= 1,
            _ => (hand & g.trumps()).len() >= 4,
        })
        .collect()
}

impl Bot for PimcBot {
    async fn bid(&mut self, k: &Knowledge) -> Option<Bid> {
        if self.chooser.is_some() {
            let limit = crate::choice::bid_limit(self.judgement(k.hand, k.position()?)?);
            return k.legal.bid_from.filter(|b| b.value() <= limit);
        }
        if !self.config.simulate_bidding {
            return self.heuristic.bid(k).await;
        }
        let limit = self.bid_limit(k.hand, k.position()?);
        k.legal.bid_from.filter(|b| b.value() <= limit)
    }
    async fn answer(&mut self, k: &Knowledge, bid: Bid) -> bool {
        if self.chooser.is_some() {
            let Some(me) = k.position() else { return false };
            return self.judgement(k.hand, me).is_some_and(|j| bid.value() <= crate::choice::bid_limit(j));
        }
        if !self.config.simulate_bidding {
            return self.heuristic.answer(k, bid).await;
        }
        let Some(me) = k.position() else { return false };
        bid.value() <= self.bid_limit(k.hand, me)
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
        // Every game that reaches the bid, each with its rule discard: the one that wins
        // most often in simulation.
        if !self.config.simulate_bidding {
            return self.heuristic.discard(k).await;
        }
        let twelve = k.hand;
        let bid = k.bid.map_or(18, Bid::value);
        let Some(me) = k.position() else { return self.heuristic.discard(k).await };
        self.rng = ChaCha8Rng::seed_from_u64(self.seed ^ u64::from(twelve.bits()).rotate_left(7));
        let mut budget = self.config.max_nodes * 8;
        let mut best: Option<(f64, GameType, [Card; 2])> = None;
        for game in GameType::ALL {
            let away = crate::heuristic::discard_for(twelve, game);
            let ten = twelve.without(away[0]).without(away[1]);
            if !game.is_null() && crate::heuristic::value(twelve, game) < bid {
                continue;
            }
            if game.is_null() && bid > 23 {
                continue;
            }
            let chance = self.win_chance(ten, Some(away), me, game, &mut budget);
            if best.is_none_or(|b| chance > b.0) {
                best = Some((chance, game, away));
            }
        }
        match best {
            Some((_, game, away)) => {
                self.chosen = Some((game, away));
                away
            }
            None => self.heuristic.discard(k).await,
        }
    }
    async fn declare(&mut self, k: &Knowledge) -> Contract {
        if let Some(contract) = self.declaring.take()
            && k.legal.contracts.contains(&contract)
        {
            return contract;
        }
        if let Some((game, _)) = self.chosen.take()
            && k.legal.contracts.contains(&Contract::plain(game))
        {
            return Contract::plain(game);
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

    #[test]
    fn bidding_by_simulation_is_deterministic_and_sensible() {
        let cards = |s: &str| s.parse::<CardSet>().expect("cards");
        // Four jacks and three aces: a grand with four matadors (5 x 24 = 120) or more.
        let strong = cards("CJ.SJ.HJ.DJ.CA.SA.HA.CT.ST.C7");
        let mut a = PimcBot::new(5, PimcConfig::default());
        let mut b = PimcBot::new(5, PimcConfig::default());
        let limit = a.bid_limit(strong, Position::Forehand);
        assert_eq!(limit, b.bid_limit(strong, Position::Forehand), "the same seed, the same answer");
        assert!(limit >= 120, "a strong grand is bid: {limit}");
        // Nothing to play: no jacks, no aces, long nothing.
        let weak = cards("D7.D8.H7.H8.H9.S7.S8.S9.C8.C9");
        let limit = a.bid_limit(weak, Position::Middlehand);
        assert!(limit <= 23, "at most a null: {limit}");
        // The rule discard (the heuristic's) keeps trumps and aces.
        let twelve = cards("CJ.SJ.HJ.DJ.CA.SA.HA.CT.ST.C7.DT.D8");
        let away = crate::heuristic::discard_for(twelve, GameType::Grand);
        assert!(away.iter().all(|c| !c.is_jack() && c.rank() != Rank::Ace), "{away:?}");
        assert!(away.contains(&Card::new(skat_engine::Suit::Diamonds, Rank::Ten)), "the blank ten: {away:?}");
    }
}
