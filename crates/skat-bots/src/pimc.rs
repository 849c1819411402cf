//! `pimc`: card play by perfect-information Monte Carlo over the double-dummy solver.
//!
//! For each card decision it deals the cards it cannot see in ways consistent with what
//! it knows (its hand, every card played, the voids the play has shown, the skat and
//! discards when it saw them, an open hand), solves each world with every legal card
//! (`skat-solver`), and plays the card that wins in most worlds (declarer: reaches 61 or
//! takes no trick in null; defenders: keep the declarer below), ties broken by the
//! average points. The worlds and the work are bounded by `samples` and a node budget, so
//! a decision is deterministic for a seed and bounded in time.
//!
//! Bidding, taking the skat, discarding and declaring are the heuristic bot's (see
//! docs/bots.md: evaluating them by simulation is the next step).

use rand_chacha::ChaCha8Rng;
use rand_core::SeedableRng;
use skat_engine::{Bid, Card, CardSet, Contract, GameType, Position};
use skat_sdk::{Bot, Knowledge};
use skat_solver::Solver;

use crate::HeuristicBot;

/// Settings of the PIMC bot.
#[derive(Debug, Clone, Copy)]
pub struct PimcConfig {
    /// Worlds sampled per card decision.
    pub samples: u32,
    /// Solver nodes per decision (about 8 M per second on one core): the budget that
    /// keeps a decision under 100 ms whatever the position; at least one world is solved.
    pub max_nodes: u64,
}

impl Default for PimcConfig {
    fn default() -> PimcConfig {
        PimcConfig { samples: 24, max_nodes: 400_000 }
    }
}

/// The PIMC bot.
#[derive(Debug, Clone)]
pub struct PimcBot {
    config: PimcConfig,
    seed: u64,
    rng: ChaCha8Rng,
    heuristic: HeuristicBot,
}

impl PimcBot {
    /// A PIMC bot whose worlds follow from `seed`.
    pub fn new(seed: u64, config: PimcConfig) -> PimcBot {
        PimcBot { config, seed, rng: ChaCha8Rng::seed_from_u64(seed), heuristic: HeuristicBot::new() }
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
        let worlds: Vec<skat_solver::Position> =
            (0..self.config.samples).filter_map(|_| facts.sample(&mut self.rng)).collect();
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

/// What a seat knows about where the unseen cards are.
struct Facts {
    game: GameType,
    declarer: Position,
    /// Known hands (mine; the declarer's when open).
    known: [Option<CardSet>; 3],
    /// Cards each position still holds.
    sizes: [u8; 3],
    /// Cards nobody has shown: in the other hands or in the skat.
    unseen: CardSet,
    /// Suit classes each position has shown it lacks.
    void: [CardSet; 3],
    /// What the declarer put away, when this seat knows it (it counts for the declarer).
    discards: CardSet,
    /// The trick on the table.
    leader: Position,
    trick: Vec<Card>,
    /// The declarer's points so far from tricks, and whether it took one.
    declarer_points: u8,
    declarer_took: bool,
}

impl Facts {
    fn of(k: &Knowledge, me: Position, declarer: Position, game: GameType) -> Facts {
        let mut seen = k.hand;
        let mut void = [CardSet::EMPTY; 3];
        let mut declarer_points = 0u8;
        let mut declarer_took = false;
        for t in &k.tricks {
            for (i, c) in t.cards.iter().enumerate() {
                seen.insert(*c);
                let who = Position::from_index((t.leader.index() + i) % 3).unwrap_or(t.leader);
                if i > 0 && !game.follow_set(t.cards[0]).contains(*c) {
                    void[who.index()] |= game.follow_set(t.cards[0]);
                }
            }
            if t.winner == declarer {
                declarer_points += t.cards.iter().map(|c| c.points()).sum::<u8>();
                declarer_took = true;
            }
        }
        let (leader, trick) = match &k.current_trick {
            Some(t) => (t.leader, t.cards().to_vec()),
            None => (k.tricks.last().map_or(Position::Forehand, |t| t.winner), Vec::new()),
        };
        for (i, c) in trick.iter().enumerate() {
            seen.insert(*c);
            let who = Position::from_index((leader.index() + i) % 3).unwrap_or(leader);
            if i > 0 && !game.follow_set(trick[0]).contains(*c) {
                void[who.index()] |= game.follow_set(trick[0]);
            }
        }
        seen |= k.skat | k.discards;
        let mut known = [None; 3];
        known[me.index()] = Some(k.hand);
        if let Some(open) = k.open_hand {
            known[declarer.index()] = Some(open);
            seen |= open;
        }
        Facts {
            game,
            declarer,
            known,
            sizes: k.hand_sizes,
            unseen: !seen,
            void,
            discards: k.discards,
            leader,
            trick,
            declarer_points,
            declarer_took,
        }
    }

    /// One world consistent with the facts (voids kept when a few tries find one).
    fn sample(&self, rng: &mut ChaCha8Rng) -> Option<skat_solver::Position> {
        let others: Vec<usize> = (0..3).filter(|p| self.known[*p].is_none()).collect();
        let pool: Vec<Card> = self.unseen.into_iter().collect();
        for attempt in 0..64 {
            let mut cards = pool.clone();
            for i in (1..cards.len()).rev() {
                let j = skat_engine::dealing::uniform_below(rng, i as u32 + 1) as usize;
                cards.swap(i, j);
            }
            let mut hands = self.known.map(|h| h.unwrap_or(CardSet::EMPTY));
            // Fill the unknown hands, respecting voids (after many failures, ignoring them).
            let mut rest = Vec::new();
            for c in cards {
                let fits = others
                    .iter()
                    .copied()
                    .filter(|p| hands[*p].len() < u32::from(self.sizes[*p]))
                    .find(|p| attempt >= 48 || !self.void[*p].contains(c));
                match fits {
                    Some(p) => hands[p].insert(c),
                    None => rest.push(c),
                }
            }
            if others.iter().any(|p| hands[*p].len() != u32::from(self.sizes[*p])) {
                continue;
            }
            // What is left was put away (or is the skat of a hand game): it counts for
            // the declarer, unless this seat knows what the declarer put away.
            let away: CardSet =
                if self.discards.len() == 2 { self.discards } else { rest.into_iter().collect() };
            let mut p = skat_solver::Position::new(self.game, self.declarer.index() as u8, hands, away);
            p.declarer_points += self.declarer_points;
            p.declarer_took = self.declarer_took;
            p.leader = self.leader.index() as u8;
            for (i, c) in self.trick.iter().enumerate() {
                p.trick[i] = Some(*c);
            }
            return Some(p);
        }
        None
    }
}

impl Bot for PimcBot {
    async fn bid(&mut self, k: &Knowledge) -> Option<Bid> {
        self.heuristic.bid(k).await
    }
    async fn answer(&mut self, k: &Knowledge, bid: Bid) -> bool {
        self.heuristic.answer(k, bid).await
    }
    async fn take_skat(&mut self, k: &Knowledge) -> bool {
        self.heuristic.take_skat(k).await
    }
    async fn discard(&mut self, k: &Knowledge) -> [Card; 2] {
        self.heuristic.discard(k).await
    }
    async fn declare(&mut self, k: &Knowledge) -> Contract {
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
    fn samples_keep_every_fact() {
        // A defender's view after two tricks, from a real deal: worlds hold the right
        // number of cards, never a card that was seen, and respect a shown void.
        let mut rng = ChaCha8Rng::seed_from_u64(3);
        let cards = |s: &str| s.parse::<CardSet>().expect("cards");
        let facts = Facts {
            game: GameType::Grand,
            declarer: Position::Forehand,
            known: [None, Some(cards("CA.CT.CK.SA.ST.SK.HA.HT")), None],
            sizes: [8, 8, 8],
            unseen: !(cards("CA.CT.CK.SA.ST.SK.HA.HT") | cards("CJ.SJ.HJ.DJ.D7.D8")),
            void: [CardSet::EMPTY, CardSet::EMPTY, GameType::Grand.trumps()],
            discards: CardSet::EMPTY,
            leader: Position::Forehand,
            trick: Vec::new(),
            declarer_points: 8,
            declarer_took: true,
        };
        for _ in 0..50 {
            let w = facts.sample(&mut rng).expect("a world");
            assert_eq!(w.hands.map(|h| h.len()), [8, 8, 8]);
            assert_eq!(w.hands[1], cards("CA.CT.CK.SA.ST.SK.HA.HT"));
            assert!((w.hands[0] | w.hands[2]) & cards("CJ.SJ.HJ.DJ.D7.D8") == CardSet::EMPTY);
            assert!(w.hands[2] & GameType::Grand.trumps() == CardSet::EMPTY, "rearhand showed no trump");
        }
    }
}
