//! What the game chooser puts away after picking up: two of its twelve cards, chosen for
//! the game it is judging.
//!
//! Null: of the 66 pairs, one that leaves the fewest suits with a card the defenders can
//! force to take a trick ([`null_risk`]), and among those the heuristic's choice (the
//! highest cards of the shortest suits). The heuristic's rule alone takes the two highest
//! cards, which mends a blank ace but not a suit such as 8-ace, where only putting both
//! away leaves nothing to force. Why it matters: a null counts in full only over ten
//! cards with no such suit (`choice`), and in issue 48's census those were won 33 of 33
//! after the pick-up (with one such suit 6 of 13 before the rule counted them half), so
//! a discard that leaves none more often is both more nulls declared and fewer lost.
//! Suit games and grand: the heuristic's rule.

use std::cmp::Reverse;

use skat_engine::{Card, CardSet, GameType};

use crate::hand_model::null_risk;
use crate::heuristic::discard_for;

/// The two cards to put away from `twelve` for `game`.
pub fn put_away(twelve: CardSet, game: GameType) -> [Card; 2] {
    if !game.is_null() {
        return discard_for(twelve, game);
    }
    // The heuristic's preference, a card at a time: high in null order, short suit.
    let key =
        |c: Card| i32::from(c.rank().null_order()) * 10 - (twelve & CardSet::suit(c.suit())).len() as i32;
    let cards: Vec<Card> = twelve.iter().collect();
    let pairs = cards.iter().enumerate().flat_map(|(i, &a)| cards[i + 1..].iter().map(move |&b| [a, b]));
    pairs
        // The first of the best (min_by_key keeps the first of equals).
        .min_by_key(|&[a, b]| (null_risk(twelve.without(a).without(b)), Reverse(key(a) + key(b))))
        .unwrap_or_else(|| discard_for(twelve, game))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn set(s: &str) -> CardSet {
        s.parse().expect("cards")
    }

    #[test]
    fn a_null_puts_away_the_suit_that_can_be_forced() {
        // Eight and ace in clubs and in spades: the rule puts the two aces away and
        // leaves two eights to be forced; both clubs away leave one suit (spades), which
        // a null after the pick-up may have.
        let twelve = set("C8.CA.S8.SA.H7.H8.H9.HT.D7.D8.D9.DT");
        let rule = discard_for(twelve, GameType::Null);
        let ours = put_away(twelve, GameType::Null);
        let kept = |[a, b]: [Card; 2]| twelve.without(a).without(b);
        assert_eq!(null_risk(kept(ours)), 1, "{ours:?}");
        assert_eq!(null_risk(kept(rule)), 2, "{rule:?}");
    }

    #[test]
    fn a_safe_twelve_puts_away_its_highest_cards_as_the_rule_does() {
        let twelve = set("C7.C8.C9.CT.S7.S8.H7.H8.H9.D7.D8.DA");
        let mut ours = put_away(twelve, GameType::Null);
        let mut rule = discard_for(twelve, GameType::Null);
        ours.sort();
        rule.sort();
        assert_eq!(ours, rule);
        // Not null: the rule, unchanged.
        assert_eq!(put_away(twelve, GameType::Grand), discard_for(twelve, GameType::Grand));
    }
}
