//! A finished deal's card play judged with all cards open: for every card, the
//! double-dummy value after the best card and after the card played, so that "this card
//! turned a won game into a lost one, with all cards open" is visible.
//!
//! | figure | what | what it cannot say |
//! |---|---|---|
//! | value | the declarer's final card points with perfect play from here on by everybody, every hand known (null: 1 the declarer wins, 0 loses) | a player does not see the other hands: a card that loses with all cards open may be the best on what the player knew |
//! | loss | how much worse the card played is than the best card for its side: for the declarer the best value less the value after it, for a defender the reverse (card points; null: 0 or 1) | equal cards are equal; a loss of 0 means "no worse with cards open", not "the right card" |
//! | flips | the card changed the result with cards open: a won game (61, or no trick in null) into a lost one or the reverse | schneider and announcements are not judged |
//! | curve | the value before the first card and after every card | |
//!
//! The bidding, the skat and the declaration are not judged: with all cards open they have
//! no honest verdict (the skat's cards are what a player could not know). A judgement
//! from what each seat knew (worlds sampled from its knowledge, as PIMC does) is the next
//! step (docs/arena.md).

use skat_engine::record::Move;
use skat_engine::{Action, Card, Dealt, GameType, Outcome, Position as Seat};

use crate::{Position, Solver};

/// One card judged.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CardVerdict {
    /// The move's index in the record.
    pub index: usize,
    /// Who played it (0 forehand, 1 middlehand, 2 rearhand).
    pub position: u8,
    /// Whether it was the declarer.
    pub declarer: bool,
    /// The card played.
    pub card: Card,
    /// A best card for its side.
    pub best: Card,
    /// The value after the best card.
    pub best_value: u8,
    /// The value after the card played.
    pub value: u8,
    /// How much worse for its side (0: as good as the best).
    pub loss: u8,
    /// Whether it changed the result with all cards open.
    pub flips: bool,
    /// How many legal cards there were (1: no choice, never a loss).
    pub choices: u8,
}

/// A deal's card play judged.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DealAnalysis {
    /// The game.
    pub game: GameType,
    /// The declarer's position.
    pub declarer: u8,
    /// The value before the first card.
    pub start: u8,
    /// The value after each card.
    pub curve: Vec<u8>,
    /// Every card with a choice, judged (cards without a choice are in the curve only).
    pub cards: Vec<CardVerdict>,
}

/// Whether a value is a win for the declarer (61 card points; null: no trick, value 1).
pub fn won(game: GameType, value: u8) -> bool {
    if game.is_null() { value == 1 } else { value >= 61 }
}

/// Judges the card play of a finished deal (`None` for a deal without one: passed in,
/// a penalty, a game resigned or claimed before the first card).
pub fn analyze(
    dealt: &Dealt,
    moves: &[Move],
    outcome: &Outcome,
    solver: &mut Solver,
) -> Option<DealAnalysis> {
    let Outcome::Game(result) = outcome else { return None };
    let game = result.contract.game;
    let declarer = result.declarer.index() as u8;
    let mut hands = [Seat::Forehand, Seat::Middlehand, Seat::Rearhand].map(|s| dealt.hand(s));
    let mut skat = dealt.skat;
    for m in moves {
        match m.action {
            Action::PickUpSkat => hands[usize::from(declarer)] |= dealt.skat,
            Action::Discard { cards } => {
                hands[usize::from(declarer)] = hands[usize::from(declarer)] - cards;
                skat = cards;
            }
            _ => {}
        }
    }
    if hands.iter().any(|h| h.len() != 10) {
        return None;
    }
    let mut p = Position::new(game, declarer, hands, skat);
    let start = solver.solve(&p);
    let mut curve = Vec::new();
    let mut cards = Vec::new();
    for (index, m) in moves.iter().enumerate() {
        let Action::Play { card } = m.action else { continue };
        let mover = p.to_move();
        if !p.legal().contains(card) {
            return None;
        }
        let values = solver.card_values(&p);
        let is_declarer = mover == declarer;
        let (best, best_value) = values
            .iter()
            .copied()
            .reduce(|a, b| if (b.1 > a.1) == is_declarer && b.1 != a.1 { b } else { a })
            .unwrap_or((card, 0));
        let value = values.iter().find(|(c, _)| *c == card).map_or(best_value, |(_, v)| *v);
        if values.len() > 1 {
            cards.push(CardVerdict {
                index,
                position: mover,
                declarer: is_declarer,
                card,
                best,
                best_value,
                value,
                loss: best_value.abs_diff(value),
                flips: won(game, best_value) != won(game, value),
                choices: values.len() as u8,
            });
        }
        p = p.play(card);
        curve.push(value);
    }
    Some(DealAnalysis { game, declarer, start, curve, cards })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::minimax;
    use skat_engine::{CardSet, Match, MatchConfig};

    /// A seeded deal played with a fixed policy: bid the first allowed value, pick up,
    /// put away the first two cards, declare the first suit game or grand, play the lowest
    /// legal card (a policy that blunders often).
    fn played_deal(seed: u64) -> skat_engine::DealRecord {
        let mut m = Match::new(MatchConfig { seats: 3, deals: 1, seed }).unwrap();
        while !m.is_over() {
            let seat = m.seat_to_move().unwrap();
            let legal = m.view(Some(seat)).legal;
            let action = if let Some(card) = legal.cards.first() {
                Action::Play { card }
            } else if let Some(b) = legal.bid_from {
                Action::Bid { value: b }
            } else if legal.pick_up_skat {
                Action::PickUpSkat
            } else if let (Some(a), Some(b)) = (legal.discard_from.nth(0), legal.discard_from.nth(1)) {
                Action::Discard { cards: CardSet::single(a).with(b) }
            } else if let Some(c) = legal.contracts.iter().find(|c| !c.game.is_null()) {
                Action::Declare { contract: *c }
            } else {
                Action::Pass
            };
            m.apply(seat, action).unwrap();
        }
        m.records()[0].clone()
    }

    /// The positions before every card of a record, with the card played.
    fn positions(r: &skat_engine::DealRecord) -> Vec<(Position, Card)> {
        let Outcome::Game(g) = r.outcome else { return Vec::new() };
        let declarer = g.declarer.index();
        let mut hands = [Seat::Forehand, Seat::Middlehand, Seat::Rearhand].map(|s| r.dealt.hand(s));
        let mut skat = r.dealt.skat;
        for m in &r.moves {
            match m.action {
                Action::PickUpSkat => hands[declarer] |= r.dealt.skat,
                Action::Discard { cards } => {
                    hands[declarer] = hands[declarer] - cards;
                    skat = cards;
                }
                _ => {}
            }
        }
        let mut p = Position::new(g.contract.game, declarer as u8, hands, skat);
        let mut out = Vec::new();
        for m in &r.moves {
            if let Action::Play { card } = m.action {
                out.push((p, card));
                p = p.play(card);
            }
        }
        out
    }

    #[test]
    fn the_verdicts_agree_with_plain_minimax_and_a_blunder_is_marked() {
        let mut solver = Solver::new();
        let (mut checked, mut blunders) = (0, 0);
        for seed in 0..8 {
            let r = played_deal(seed);
            let Some(a) = analyze(&r.dealt, &r.moves, &r.outcome, &mut solver) else { continue };
            let Outcome::Game(g) = r.outcome else { unreachable!() };
            assert_eq!(*a.curve.last().unwrap(), g.declarer_points, "after the last card: what was taken");
            let at = positions(&r);
            for v in &a.cards {
                let (p, card) = at.iter().copied().find(|(_, c)| *c == v.card).unwrap();
                assert_eq!(card, v.card);
                // Late in the deal (four tricks or fewer), plain minimax is cheap: the
                // verdict's values must be its values.
                if p.hands.iter().map(|h| h.len()).sum::<u32>() <= 12 {
                    assert_eq!(minimax(&p.play(v.card)), v.value, "seed {seed} move {}", v.index);
                    assert_eq!(minimax(&p.play(v.best)), v.best_value, "seed {seed} move {}", v.index);
                    let all: Vec<u8> = p.legal().into_iter().map(|c| minimax(&p.play(c))).collect();
                    let best = if v.declarer { all.iter().max() } else { all.iter().min() };
                    assert_eq!(best, Some(&v.best_value));
                    checked += 1;
                }
                assert!(v.choices > 1, "a forced card is never judged");
                assert_eq!(v.loss, v.best_value.abs_diff(v.value));
                blunders += usize::from(v.loss > 0);
            }
        }
        assert!(checked > 20, "verdicts checked by minimax: {checked}");
        assert!(blunders > 0, "the lowest-card policy blunders, and it is marked");
    }
}
