//! What the declarer plays: the game type, its announcements, and the card order that
//! follows from it (trumps, following suit, who wins a trick, matadors).

use std::fmt;

use serde::{Deserialize, Serialize};

use crate::card::{Card, Rank, Suit};
use crate::cards::CardSet;

/// The six games.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum GameType {
    /// Diamonds are trumps (with the four jacks); base value 9.
    Diamonds,
    /// Hearts are trumps; base value 10.
    Hearts,
    /// Spades are trumps; base value 11.
    Spades,
    /// Clubs are trumps; base value 12.
    Clubs,
    /// Only the four jacks are trumps; base value 24.
    Grand,
    /// No trumps, jacks are ordinary cards; the declarer must take no trick.
    Null,
}

impl GameType {
    /// All six, suit games first.
    pub const ALL: [GameType; 6] = [
        GameType::Diamonds,
        GameType::Hearts,
        GameType::Spades,
        GameType::Clubs,
        GameType::Grand,
        GameType::Null,
    ];

    /// The suit game of this suit.
    pub const fn of_suit(suit: Suit) -> GameType {
        match suit {
            Suit::Diamonds => GameType::Diamonds,
            Suit::Hearts => GameType::Hearts,
            Suit::Spades => GameType::Spades,
            Suit::Clubs => GameType::Clubs,
        }
    }

    /// The trump suit of a suit game.
    pub const fn trump_suit(self) -> Option<Suit> {
        match self {
            GameType::Diamonds => Some(Suit::Diamonds),
            GameType::Hearts => Some(Suit::Hearts),
            GameType::Spades => Some(Suit::Spades),
            GameType::Clubs => Some(Suit::Clubs),
            _ => None,
        }
    }

    /// Whether this is the null game.
    pub const fn is_null(self) -> bool {
        matches!(self, GameType::Null)
    }

    /// Base value of a suit game or grand (null has fixed values instead: 0 here).
    pub const fn base_value(self) -> u16 {
        match self {
            GameType::Grand => 24,
            GameType::Null => 0,
            _ => match self.trump_suit() {
                Some(s) => s.base_value(),
                None => 0,
            },
        }
    }

    /// The trumps: the jacks plus the trump suit; just the jacks in grand; none in null.
    #[inline]
    pub const fn trumps(self) -> CardSet {
        TRUMPS[self as usize]
    }

    /// The cards that count as the same suit as `led` (what a player must follow with).
    #[inline]
    pub const fn follow_set(self, led: Card) -> CardSet {
        let trumps = self.trumps();
        if trumps.contains(led) {
            trumps
        } else {
            // Jacks are trumps in suit games and grand, plain cards in null.
            CardSet::from_bits(CardSet::suit(led.suit()).bits() & !trumps.bits())
        }
    }

    /// The cards of `hand` that may be played when `led` was led (all of `hand` when it
    /// cannot follow).
    #[inline]
    pub const fn playable(self, hand: CardSet, led: Card) -> CardSet {
        let follow = CardSet::from_bits(hand.bits() & self.follow_set(led).bits());
        if follow.is_empty() { hand } else { follow }
    }

    /// How strongly `card` competes in a trick where `led` was led: 0 when it cannot win
    /// (neither trump nor the led suit); otherwise higher beats lower.
    #[inline]
    pub fn strength(self, card: Card, led: Card) -> u8 {
        let eligible = self.trumps().bits() | self.follow_set(led).bits();
        if eligible & (1 << card.index()) != 0 { ORDER[self as usize][card.index() as usize] } else { 0 }
    }

    /// Which of the three cards (in play order, `trick[0]` led) wins the trick: 0, 1 or 2.
    /// The highest trump wins, else the highest card of the led suit.
    #[inline(always)]
    pub fn trick_winner(self, trick: [Card; 3]) -> usize {
        let order = &ORDER[self as usize];
        let eligible = self.trumps().bits() | self.follow_set(trick[0]).bits();
        let strength =
            |c: Card| -> u8 { if eligible & (1 << c.index()) != 0 { order[c.index() as usize] } else { 0 } };
        let (s0, s1, s2) = (strength(trick[0]), strength(trick[1]), strength(trick[2]));
        if s1 > s0 && s1 > s2 {
            1
        } else if s2 > s0 && s2 > s1 {
            2
        } else {
            0
        }
    }

    /// The trumps from the highest down, the order in which matadors are counted: the
    /// four jacks, then A T K Q 9 8 7 of the trump suit. Empty for null.
    pub fn matador_order(self) -> impl Iterator<Item = Card> {
        let jacks = [Suit::Clubs, Suit::Spades, Suit::Hearts, Suit::Diamonds]
            .into_iter()
            .map(|s| Card::new(s, Rank::Jack));
        let suit_cards = self.trump_suit().into_iter().flat_map(|s| {
            [Rank::Ace, Rank::Ten, Rank::King, Rank::Queen, Rank::Nine, Rank::Eight, Rank::Seven]
                .into_iter()
                .map(move |r| Card::new(s, r))
        });
        let jacks_if_trump = if self.is_null() { None } else { Some(jacks) };
        jacks_if_trump.into_iter().flatten().chain(suit_cards)
    }

    /// Matadors of the declarer's 12 cards (dealt hand plus the original skat): `+n`
    /// "with n" when holding the top n trumps, `-n` "without n" when lacking them.
    /// Zero for null.
    pub fn matadors(self, cards: CardSet) -> i8 {
        if self.is_null() {
            return 0;
        }
        let mut order = self.matador_order();
        let Some(top) = order.next() else { return 0 };
        let with = cards.contains(top);
        let run = 1 + order.take_while(|c| cards.contains(*c) == with).count() as i8;
        if with { run } else { -run }
    }

    /// The ISS letter: `D H S C G N`.
    pub const fn letter(self) -> char {
        match self {
            GameType::Diamonds => 'D',
            GameType::Hearts => 'H',
            GameType::Spades => 'S',
            GameType::Clubs => 'C',
            GameType::Grand => 'G',
            GameType::Null => 'N',
        }
    }

    /// Parses an ISS game letter.
    pub const fn from_letter(c: char) -> Option<GameType> {
        match c {
            'D' => Some(GameType::Diamonds),
            'H' => Some(GameType::Hearts),
            'S' => Some(GameType::Spades),
            'C' => Some(GameType::Clubs),
            'G' => Some(GameType::Grand),
            'N' => Some(GameType::Null),
            _ => None,
        }
    }

    /// Lower-case English name.
    pub const fn name(self) -> &'static str {
        match self {
            GameType::Diamonds => "diamonds",
            GameType::Hearts => "hearts",
            GameType::Spades => "spades",
            GameType::Clubs => "clubs",
            GameType::Grand => "grand",
            GameType::Null => "null",
        }
    }
}

/// What the declarer announces, as a ladder: each level implies the ones before it
/// (schwarz announced implies schneider announced; ouvert implies both for suit and
/// grand). In null only `None` and `Ouvert` exist.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Announcement {
    /// No announcement.
    #[default]
    None,
    /// Schneider announced (hand suit or grand only).
    Schneider,
    /// Schwarz announced, implying schneider (hand suit or grand only).
    Schwarz,
    /// Open: the declarer's cards are shown before the first lead. For suit and grand,
    /// hand only, implying schneider and schwarz announced.
    Ouvert,
}

/// A game as declared, with whether it is a hand game: what everyone is told once the
/// declarer has declared (the hand flag follows from the skat decision, so the declarer
/// sends only a [`Contract`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Declaration {
    /// The game and its announcement.
    pub contract: Contract,
    /// Played without picking up the skat.
    pub hand: bool,
}

/// A declaration as the declarer makes it. Whether it is a hand game is not part of it:
/// that follows from whether the skat was picked up.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Contract {
    /// The game.
    pub game: GameType,
    /// Its announcement level.
    pub announcement: Announcement,
}

impl Contract {
    /// A contract with no announcement.
    pub const fn plain(game: GameType) -> Contract {
        Contract { game, announcement: Announcement::None }
    }

    /// Whether the declarer's cards are open.
    pub const fn ouvert(self) -> bool {
        matches!(self.announcement, Announcement::Ouvert)
    }

    /// Schneider announced (suit and grand; implied by schwarz and ouvert).
    pub const fn schneider_announced(self) -> bool {
        !self.game.is_null() && !matches!(self.announcement, Announcement::None)
    }

    /// Schwarz announced (suit and grand; implied by ouvert).
    pub const fn schwarz_announced(self) -> bool {
        !self.game.is_null() && matches!(self.announcement, Announcement::Schwarz | Announcement::Ouvert)
    }

    /// The fixed value of a null contract: 23, 35 hand, 46 ouvert, 59 ouvert hand.
    /// `None` for suit games and grand, whose value depends on the play.
    pub const fn null_value(self, hand: bool) -> Option<u16> {
        if !self.game.is_null() {
            return None;
        }
        Some(match (self.ouvert(), hand) {
            (false, false) => 23,
            (false, true) => 35,
            (true, false) => 46,
            (true, true) => 59,
        })
    }

    /// Every contract that can be written down, legal or not in a given deal.
    pub fn all() -> impl Iterator<Item = Contract> {
        GameType::ALL.into_iter().flat_map(|game| {
            [Announcement::None, Announcement::Schneider, Announcement::Schwarz, Announcement::Ouvert]
                .into_iter()
                .map(move |announcement| Contract { game, announcement })
        })
    }

    /// The ISS declaration string without discards: game letter then `H` hand, `S`
    /// schneider, `Z` schwarz, `O` ouvert, as ISS writes them: `GHS`, `CHZ`, `GO` (the
    /// hand of a suit or grand ouvert is implied), `NO`, `NOH`.
    pub fn iss_code(self, hand: bool) -> String {
        let mut s = String::with_capacity(4);
        s.push(self.game.letter());
        if self.game.is_null() {
            // ISS writes null ouvert hand as `NOH`.
            if self.ouvert() {
                s.push('O');
            }
            if hand {
                s.push('H');
            }
            return s;
        }
        match self.announcement {
            Announcement::Ouvert => s.push('O'),
            level => {
                if hand {
                    s.push('H');
                }
                match level {
                    Announcement::Schneider => s.push('S'),
                    Announcement::Schwarz => s.push('Z'),
                    _ => {}
                }
            }
        }
        s
    }
}

impl fmt::Display for Contract {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.game.name())?;
        match self.announcement {
            Announcement::None => Ok(()),
            Announcement::Schneider => f.write_str(" schneider announced"),
            Announcement::Schwarz => f.write_str(" schwarz announced"),
            Announcement::Ouvert => f.write_str(" ouvert"),
        }
    }
}

/// Trumps per game type, indexed by `GameType as usize`.
const TRUMPS: [CardSet; 6] = {
    let j = CardSet::JACKS.bits();
    [
        CardSet::from_bits(j | CardSet::suit(Suit::Diamonds).bits()),
        CardSet::from_bits(j | CardSet::suit(Suit::Hearts).bits()),
        CardSet::from_bits(j | CardSet::suit(Suit::Spades).bits()),
        CardSet::from_bits(j | CardSet::suit(Suit::Clubs).bits()),
        CardSet::JACKS,
        CardSet::EMPTY,
    ]
};

/// Card strength per game type: trumps 20.. (jacks on top), other cards 1..=8 by rank
/// within their suit. A trick compares only trumps and cards of the led suit.
const ORDER: [[u8; 32]; 6] = {
    let mut table = [[0u8; 32]; 6];
    let mut g = 0;
    while g < 6 {
        let trumps = TRUMPS[g];
        let mut i = 0u8;
        while i < 32 {
            let card = Card(i);
            let rank = card.rank();
            table[g][i as usize] = if trumps.contains(card) {
                if card.is_jack() { 40 + card.suit() as u8 } else { 20 + rank as u8 }
            } else if g == 5 {
                1 + rank.null_order()
            } else {
                1 + rank as u8
            };
            i += 1;
        }
        g += 1;
    }
    table
};

#[cfg(test)]
mod tests {
    use super::*;

    fn c(s: &str) -> Card {
        s.parse().unwrap()
    }

    fn set(s: &str) -> CardSet {
        s.parse().unwrap()
    }

    #[test]
    fn jacks_follow_trump_not_their_suit() {
        let hand = set("HJ.H7.CA");
        assert_eq!(GameType::Clubs.playable(hand, c("HA")), set("H7"));
        assert_eq!(GameType::Clubs.playable(hand, c("SJ")), set("HJ.CA"));
        assert_eq!(GameType::Grand.playable(hand, c("DJ")), set("HJ"));
        assert_eq!(GameType::Null.playable(hand, c("HA")), set("HJ.H7"));
        assert_eq!(GameType::Null.playable(hand, c("DJ")), hand);
    }

    #[test]
    fn trick_winners() {
        let t = |a: &str, b: &str, d: &str| [c(a), c(b), c(d)];
        assert_eq!(GameType::Grand.trick_winner(t("HA", "HT", "DJ")), 2);
        assert_eq!(GameType::Grand.trick_winner(t("DJ", "CJ", "SJ")), 1);
        assert_eq!(GameType::Hearts.trick_winner(t("CA", "H7", "SA")), 1);
        assert_eq!(GameType::Hearts.trick_winner(t("CA", "CT", "SA")), 0);
        assert_eq!(GameType::Diamonds.trick_winner(t("DA", "D7", "DJ")), 2);
        assert_eq!(GameType::Null.trick_winner(t("HT", "HJ", "H9")), 1);
        assert_eq!(GameType::Null.trick_winner(t("H8", "CA", "SA")), 0);
        assert_eq!(GameType::Spades.trick_winner(t("ST", "SA", "SK")), 1);
    }

    #[test]
    fn matadors_with_and_without() {
        assert_eq!(GameType::Clubs.matadors(set("CJ.SJ.CA.H7")), 2);
        assert_eq!(GameType::Clubs.matadors(set("HJ.CA")), -2);
        assert_eq!(GameType::Grand.matadors(set("CJ.SJ.HJ.DJ.CA")), 4);
        assert_eq!(GameType::Grand.matadors(set("H7")), -4);
        assert_eq!(GameType::Diamonds.matadors(set("CJ.SJ.HJ.DJ.DA.DT.DK.DQ.D9.D8.D7")), 11);
        assert_eq!(GameType::Diamonds.matadors(set("H7")), -11);
        assert_eq!(GameType::Null.matadors(set("CJ")), 0);
    }

    #[test]
    fn iss_codes() {
        let k = |g, a| Contract { game: g, announcement: a };
        assert_eq!(k(GameType::Grand, Announcement::None).iss_code(false), "G");
        assert_eq!(k(GameType::Grand, Announcement::Schneider).iss_code(true), "GHS");
        assert_eq!(k(GameType::Clubs, Announcement::Schwarz).iss_code(true), "CHZ");
        assert_eq!(k(GameType::Grand, Announcement::Ouvert).iss_code(true), "GO");
        assert_eq!(k(GameType::Null, Announcement::Ouvert).iss_code(true), "NOH");
        assert_eq!(k(GameType::Null, Announcement::Ouvert).iss_code(false), "NO");
    }
}
