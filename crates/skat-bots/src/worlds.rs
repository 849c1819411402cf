//! The worlds a seat imagines: what it knows about where the unseen cards are (its
//! hand, every card played, the voids the play has shown, the skat and discards when it
//! saw them, an open hand), and deals of the unseen cards consistent with it, drawn in
//! proportion to how well they fit the auction ([`crate::evidence`]) and, when asked, the
//! cards the others played ([`crate::inference`]). `pimc`'s card play and the analysis
//! ([`crate::judge`]) solve these worlds.

use rand_chacha::ChaCha8Rng;
use skat_bot_api::Knowledge;
use skat_engine::{Card, CardSet, GameType, Position};

use crate::evidence::Auction;
use crate::inference::{self, Trick};

/// How many worlds are drawn per world kept when the auction weighs them: weighted
/// sampling without replacement can make a kind of world at most this many times more
/// frequent, so strong evidence needs a pool this large (4 measured too weak; drawing and
/// weighing 384 worlds costs about 0.2 ms).
pub const EVIDENCE_POOL: u32 = 16;

/// What a seat knows about where the unseen cards are (also the analysis' worlds:
/// [`crate::judge`]).
pub(crate) struct Facts {
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
    /// The cards each position has played (in the auction they were in its hand).
    played: [CardSet; 3],
    /// Every trick so far, the current one last (when begun): what the play showed.
    history: Vec<Trick>,
}

impl Facts {
    pub(crate) fn of(k: &Knowledge, me: Position, declarer: Position, game: GameType) -> Facts {
        // Every trick so far, the one on the table last: one pass over them finds the
        // cards seen, who played which, and the voids shown.
        let (leader, trick) = match &k.current_trick {
            Some(t) => (t.leader, t.cards().to_vec()),
            None => (k.tricks.last().map_or(Position::Forehand, |t| t.winner), Vec::new()),
        };
        let mut history: Vec<Trick> = k.tricks.iter().map(|t| (t.leader, t.cards.to_vec())).collect();
        if !trick.is_empty() {
            history.push((leader, trick.clone()));
        }
        let mut seen = k.hand;
        let mut void = [CardSet::EMPTY; 3];
        let mut played = [CardSet::EMPTY; 3];
        for (lead, cards) in &history {
            for (i, c) in cards.iter().enumerate() {
                seen.insert(*c);
                let who = (lead.index() + i) % 3;
                played[who].insert(*c);
                if i > 0 && !game.follow_set(cards[0]).contains(*c) {
                    void[who] |= game.follow_set(cards[0]);
                }
            }
        }
        let taken: Vec<_> = k.tricks.iter().filter(|t| t.winner == declarer).collect();
        let declarer_points = taken.iter().flat_map(|t| t.cards).map(|c| c.points()).sum::<u8>();
        let declarer_took = !taken.is_empty();
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
            played,
            history,
        }
    }

    /// `samples` worlds drawn in proportion to how well they fit the auction (and, with
    /// `infer`, the cards played): many are drawn, each weighed, and `samples` kept by
    /// weighted sampling without replacement (each world's key is `u^(1/weight)` for a
    /// uniform `u`; the largest keys are kept).
    pub(crate) fn weighted_worlds(
        &self,
        auction: &Auction,
        infer: bool,
        samples: u32,
        rng: &mut ChaCha8Rng,
    ) -> Vec<skat_solver::Position> {
        let unknown: Vec<usize> = (0..3).filter(|p| self.known[*p].is_none()).collect();
        let mut keyed: Vec<(f64, skat_solver::Position)> = Vec::new();
        for _ in 0..samples * EVIDENCE_POOL {
            let Some((world, away)) = self.sample(rng) else { continue };
            let ten: [CardSet; 3] = std::array::from_fn(|p| world.hands[p] | self.played[p]);
            let mut weight = auction.weight(&unknown, ten, away);
            if infer {
                weight *=
                    inference::likelihood(self.game, self.declarer, &self.history, world.hands, &unknown);
            }
            let u = f64::from(skat_engine::dealing::uniform_below(rng, 1 << 24) + 1) / f64::from(1u32 << 24);
            keyed.push((u.ln() / weight, world));
        }
        keyed.sort_by(|a, b| b.0.total_cmp(&a.0));
        keyed.into_iter().take(samples as usize).map(|(_, w)| w).collect()
    }

    /// One world consistent with the facts (voids kept when a few tries find one).
    /// With the world, what the declarer put away in it.
    pub(crate) fn sample(&self, rng: &mut ChaCha8Rng) -> Option<(skat_solver::Position, CardSet)> {
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
            return Some((p, away));
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand_core::SeedableRng;

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
            played: [cards("CJ.SJ.D7"), cards("HJ.D8"), cards("DJ")],
            history: Vec::new(),
        };
        for _ in 0..50 {
            let (w, _) = facts.sample(&mut rng).expect("a world");
            assert_eq!(w.hands.map(|h| h.len()), [8, 8, 8]);
            assert_eq!(w.hands[1], cards("CA.CT.CK.SA.ST.SK.HA.HT"));
            assert!((w.hands[0] | w.hands[2]) & cards("CJ.SJ.HJ.DJ.D7.D8") == CardSet::EMPTY);
            assert!(w.hands[2] & GameType::Grand.trumps() == CardSet::EMPTY, "rearhand showed no trump");
        }
    }

    #[test]
    fn the_auction_moves_the_jacks_to_the_declarer_of_clubs_at_forty_eight() {
        // Middlehand holds no jack; forehand declared clubs at 48 after picking up (clubs
        // "with 3" needs the three top jacks), rearhand passed at 18. Drawn uniformly the
        // declarer holds both black jacks in about a fifth of the worlds; weighed by the
        // auction, in most.
        let cards = |s: &str| s.parse::<CardSet>().expect("cards");
        let mine = cards("CA.CT.SA.ST.HA.HT.DA.DT.S7.H7");
        let facts = Facts {
            game: GameType::Clubs,
            declarer: Position::Forehand,
            known: [None, Some(mine), None],
            sizes: [10, 10, 10],
            unseen: !mine,
            void: [CardSet::EMPTY; 3],
            discards: CardSet::EMPTY,
            leader: Position::Forehand,
            trick: Vec::new(),
            declarer_points: 0,
            declarer_took: false,
            played: [CardSet::EMPTY; 3],
            history: Vec::new(),
        };
        let auction = Auction::for_test(
            [48, 0, 0],
            [None, Some(48), Some(18)],
            (Position::Forehand, GameType::Clubs, 48),
        );
        let black = cards("CJ.SJ");
        let mut rng = ChaCha8Rng::seed_from_u64(11);
        let (mut uniform, mut weighed) = (0, 0);
        for _ in 0..20 {
            for _ in 0..24 {
                let (w, _) = facts.sample(&mut rng).expect("a world");
                uniform += usize::from(w.hands[0] & black == black);
            }
            let worlds = facts.weighted_worlds(&auction, false, 24, &mut rng);
            assert_eq!(worlds.len(), 24);
            for w in worlds {
                assert_eq!(w.hands[1], mine, "my hand is mine in every world");
                weighed += usize::from(w.hands[0] & black == black);
            }
        }
        assert!(uniform < 160, "uniformly about a fifth of 480: {uniform}");
        assert!(weighed > 240, "weighed by the auction, most of 480: {weighed}");
    }
}
