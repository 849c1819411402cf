//! What the cards played say about the cards a seat cannot see: a weight for each of
//! PIMC's sampled worlds, the likelihood of the others' past plays in that world under a
//! model of how a sound player plays (Kermit's card inference, Buro et al. 2009; the
//! policy-based inference of Rebstock et al. 2019 with a hand-written policy).
//!
//! Voids rule worlds out already ([`crate::worlds`]); this makes them more or less
//! likely. A defender who throws the ten of spades onto the declarer's winning ace when
//! it could have followed low probably had no low spade: worlds where it held one are
//! worth less. A defender who puts a seven onto its partner's winning trick probably held
//! nothing of value in that suit.
//!
//! The model scores each legal card of a past play (in log-odds) by what it does in the
//! trick:
//!
//! | the trick so far | a card that... | score |
//! |---|---|---|
//! | the partner wins it | adds points ("schmieren") | + [`SMEAR`] per point |
//! | the partner wins it | takes it over | − [`OVERTAKE`] |
//! | an opponent wins it | takes it | + [`TAKE`] (the cheapest taker a little more) |
//! | an opponent wins it | cannot take it | − [`SMEAR`] per point it gives away |
//! | a defender leads | a side ace / a ten without its ace / a trump | + [`LEAD_ACE`] / − [`LEAD_TEN`] / − [`LEAD_TRUMP`] |
//! | the declarer leads | a trump or a side ace | + [`LEAD_ACE`] / 2 |
//!
//! The chance of a card is its softmax among the legal cards, mixed with a uniform
//! choice ([`TRUST`]) so that a world the model finds odd is weighed down, never ruled
//! out (the other bots may play by another rule, or at random). Forced plays (one legal
//! card) weigh 1: a world where the player had a choice and made the odd one is what
//! moves. Null games are not weighed: their play follows other rules (ducking), and the
//! model above would mislead.

use skat_engine::{Card, CardSet, GameType, Position, Rank};

/// Log-odds per card point put onto a partner's trick, or kept off an opponent's.
pub const SMEAR: f64 = 0.15;
/// Log-odds against taking a partner's trick.
pub const OVERTAKE: f64 = 0.8;
/// Log-odds for taking an opponent's trick.
pub const TAKE: f64 = 1.0;
/// Log-odds for a defender leading a side ace (halved for the declarer).
pub const LEAD_ACE: f64 = 1.0;
/// Log-odds against a defender leading a ten without its ace.
pub const LEAD_TEN: f64 = 0.8;
/// Log-odds against a defender leading a trump.
pub const LEAD_TRUMP: f64 = 0.7;
/// The weight of the model against a uniform choice among the legal cards.
pub const TRUST: f64 = 0.75;

/// A trick as seen: who led it and the cards in play order (the current trick may hold
/// fewer than three).
pub(crate) type Trick = (Position, Vec<Card>);

/// The likelihood of the plays of the positions `who` in `history` when each holds
/// `now[p]` at present (earlier hands: `now[p]` and the cards it played since).
pub(crate) fn likelihood(
    game: GameType,
    declarer: Position,
    history: &[Trick],
    now: [CardSet; 3],
    who: &[usize],
) -> f64 {
    if game.is_null() || who.is_empty() {
        return 1.0;
    }
    let mut hands = now;
    let mut l = 1.0;
    for (leader, cards) in history.iter().rev() {
        for (i, card) in cards.iter().enumerate().rev() {
            let p = (leader.index() + i) % 3;
            if !who.contains(&p) {
                continue;
            }
            hands[p].insert(*card);
            let seat = Seat { game, declarer, me: p, leader: *leader };
            l *= seat.chance(hands[p], &cards[..i], *card);
        }
    }
    l
}

/// One past play's context: the game, who declared, who played and who led.
struct Seat {
    game: GameType,
    declarer: Position,
    me: usize,
    leader: Position,
}

impl Seat {
    /// The model's chance that a player holding `hand` played `card` after `before`.
    fn chance(&self, hand: CardSet, before: &[Card], card: Card) -> f64 {
        let legal = match before.first() {
            Some(led) if !(hand & self.game.follow_set(*led)).is_empty() => hand & self.game.follow_set(*led),
            _ => hand,
        };
        let n = legal.len();
        if n <= 1 || !legal.contains(card) {
            return 1.0;
        }
        let mut total = 0.0;
        let mut mine = 0.0;
        for c in legal {
            let w = self.score(hand, before, c).exp();
            total += w;
            if c == card {
                mine = w;
            }
        }
        TRUST * mine / total + (1.0 - TRUST) / f64::from(n)
    }

    /// The model's score of playing `c` from `hand` after `before`, in log-odds.
    fn score(&self, hand: CardSet, before: &[Card], c: Card) -> f64 {
        let points = f64::from(c.points());
        let Some(led) = before.first().copied() else { return self.lead_score(hand, c) };
        // Who wins the trick so far, and how strongly.
        let (mut best, mut at) = (0u8, 0usize);
        for (i, b) in before.iter().enumerate() {
            let s = self.game.strength(*b, led);
            if s > best {
                (best, at) = (s, i);
            }
        }
        let winner = (self.leader.index() + at) % 3;
        let partner_wins = self.me != self.declarer.index() && winner != self.declarer.index();
        let strength = self.game.strength(c, led);
        let takes = strength > best;
        match (partner_wins, takes) {
            (true, false) => SMEAR * points,
            (true, true) => SMEAR * points - OVERTAKE,
            // The cheapest card that takes it: strengths count up by one per card.
            (false, true) => TAKE - 0.05 * f64::from(strength - best),
            (false, false) => -SMEAR * points,
        }
    }

    /// The score of leading `c` from `hand`.
    fn lead_score(&self, hand: CardSet, c: Card) -> f64 {
        let trumps = self.game.trumps();
        let ace = c.rank() == Rank::Ace && !trumps.contains(c);
        if self.me == self.declarer.index() {
            return if trumps.contains(c) || ace { LEAD_ACE / 2.0 } else { 0.0 };
        }
        if trumps.contains(c) {
            -LEAD_TRUMP
        } else if ace {
            LEAD_ACE
        } else if c.rank() == Rank::Ten && !hand.contains(Card::new(c.suit(), Rank::Ace)) {
            -LEAD_TEN
        } else {
            0.0
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cards(s: &str) -> CardSet {
        s.parse().expect("cards")
    }

    fn card(s: &str) -> Card {
        cards(s).first().expect("a card")
    }

    #[test]
    fn a_ten_under_an_opponents_ace_speaks_of_a_bare_ten() {
        // Clubs, forehand declares and leads the ace of spades; middlehand (a defender)
        // plays the ten. Worlds where the ten was its only spade weigh more than worlds
        // where it could have kept the ten with a seven.
        let history = vec![(Position::Forehand, vec![card("SA"), card("ST")])];
        let mut bare = [CardSet::EMPTY; 3];
        bare[1] = cards("HA.HT.H7.D9");
        let mut kept = [CardSet::EMPTY; 3];
        kept[1] = cards("S7.HT.H7.D9");
        let l_bare = likelihood(GameType::Clubs, Position::Forehand, &history, bare, &[1]);
        let l_kept = likelihood(GameType::Clubs, Position::Forehand, &history, kept, &[1]);
        assert_eq!(l_bare, 1.0, "forced");
        assert!(l_kept < 0.3, "an odd choice: {l_kept}");
    }

    #[test]
    fn a_seven_on_a_partners_trick_speaks_of_nothing_better() {
        // Grand, rearhand declares; forehand (a defender) leads the ace of hearts,
        // middlehand (its partner) adds the seven though it could have added the king.
        let history = vec![(Position::Forehand, vec![card("HA"), card("H7")])];
        let mut low = [CardSet::EMPTY; 3];
        low[1] = cards("H8.C7.D7");
        let mut rich = [CardSet::EMPTY; 3];
        rich[1] = cards("HK.C7.D7");
        let l_low = likelihood(GameType::Grand, Position::Rearhand, &history, low, &[1]);
        let l_rich = likelihood(GameType::Grand, Position::Rearhand, &history, rich, &[1]);
        assert!(l_low > 1.2 * l_rich, "low {l_low}, rich {l_rich}");
        assert!(l_rich > 0.1, "never ruled out: {l_rich}");
    }

    #[test]
    fn null_and_known_hands_are_not_weighed() {
        let history = vec![(Position::Forehand, vec![card("SA"), card("ST")])];
        let mut hands = [CardSet::EMPTY; 3];
        hands[1] = cards("S7.HT.H7.D9");
        assert_eq!(likelihood(GameType::Null, Position::Forehand, &history, hands, &[1]), 1.0);
        assert_eq!(likelihood(GameType::Clubs, Position::Forehand, &history, hands, &[2]), 1.0);
    }
}
