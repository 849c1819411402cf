//! Suits, ranks and cards, with the International Skat Server's two-letter codes
//! (`CJ`, `HT`, `D7`).
//!
//! A card is a number 0..32: `suit * 8 + rank`. The rank numbering puts the non-jack
//! cards of a suit in their trump order (7 8 9 Q K T A) and the jack last, so that a
//! [`CardSet`](crate::CardSet) of one suit's plain cards compares by bit position and
//! the four jacks sit in bits 7, 15, 23 and 31, ordered ♦ < ♥ < ♠ < ♣ like their rank
//! as trumps.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

/// One of the four suits, ordered by their base value (♦ 9 < ♥ 10 < ♠ 11 < ♣ 12).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum Suit {
    /// ♦, Schellen, code `D`, base value 9.
    Diamonds = 0,
    /// ♥, Rot, code `H`, base value 10.
    Hearts = 1,
    /// ♠, Grün, code `S`, base value 11.
    Spades = 2,
    /// ♣, Eichel, code `C`, base value 12.
    Clubs = 3,
}

impl Suit {
    /// All suits, lowest first.
    pub const ALL: [Suit; 4] = [Suit::Diamonds, Suit::Hearts, Suit::Spades, Suit::Clubs];

    /// The suit with index 0..4 (♦ ♥ ♠ ♣).
    pub const fn from_index(i: u8) -> Suit {
        match i & 3 {
            0 => Suit::Diamonds,
            1 => Suit::Hearts,
            2 => Suit::Spades,
            _ => Suit::Clubs,
        }
    }

    /// The ISS letter: `C`, `S`, `H` or `D`.
    pub const fn letter(self) -> char {
        match self {
            Suit::Diamonds => 'D',
            Suit::Hearts => 'H',
            Suit::Spades => 'S',
            Suit::Clubs => 'C',
        }
    }

    /// Parses an ISS suit letter.
    pub const fn from_letter(c: char) -> Option<Suit> {
        match c {
            'D' => Some(Suit::Diamonds),
            'H' => Some(Suit::Hearts),
            'S' => Some(Suit::Spades),
            'C' => Some(Suit::Clubs),
            _ => None,
        }
    }

    /// The base value of a suit game in this suit.
    pub const fn base_value(self) -> u16 {
        9 + self as u16
    }

    /// English name, for messages.
    pub const fn name(self) -> &'static str {
        match self {
            Suit::Diamonds => "diamonds",
            Suit::Hearts => "hearts",
            Suit::Spades => "spades",
            Suit::Clubs => "clubs",
        }
    }
}

/// One of the eight ranks. The discriminants are the trump order of the plain cards,
/// with the jack after them (see the module documentation).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum Rank {
    /// 7, no points.
    Seven = 0,
    /// 8, no points.
    Eight = 1,
    /// 9, no points.
    Nine = 2,
    /// Queen (Dame), 3 points.
    Queen = 3,
    /// King (König), 4 points.
    King = 4,
    /// Ten (Zehn), 10 points.
    Ten = 5,
    /// Ace (Ass), 11 points.
    Ace = 6,
    /// Jack (Bube), 2 points; a trump in suit games and grand.
    Jack = 7,
}

impl Rank {
    /// All ranks in index order.
    pub const ALL: [Rank; 8] =
        [Rank::Seven, Rank::Eight, Rank::Nine, Rank::Queen, Rank::King, Rank::Ten, Rank::Ace, Rank::Jack];

    /// The rank with index 0..8.
    pub const fn from_index(i: u8) -> Rank {
        Rank::ALL[(i & 7) as usize]
    }

    /// Card points: A 11, T 10, K 4, Q 3, J 2, others 0.
    pub const fn points(self) -> u8 {
        match self {
            Rank::Ace => 11,
            Rank::Ten => 10,
            Rank::King => 4,
            Rank::Queen => 3,
            Rank::Jack => 2,
            _ => 0,
        }
    }

    /// The rank's place in a null game (7 lowest, A highest; T between 9 and J).
    pub const fn null_order(self) -> u8 {
        match self {
            Rank::Seven => 0,
            Rank::Eight => 1,
            Rank::Nine => 2,
            Rank::Ten => 3,
            Rank::Jack => 4,
            Rank::Queen => 5,
            Rank::King => 6,
            Rank::Ace => 7,
        }
    }

    /// The ISS letter: `A T K Q J 9 8 7`.
    pub const fn letter(self) -> char {
        match self {
            Rank::Seven => '7',
            Rank::Eight => '8',
            Rank::Nine => '9',
            Rank::Queen => 'Q',
            Rank::King => 'K',
            Rank::Ten => 'T',
            Rank::Ace => 'A',
            Rank::Jack => 'J',
        }
    }

    /// Parses an ISS rank letter.
    pub const fn from_letter(c: char) -> Option<Rank> {
        match c {
            '7' => Some(Rank::Seven),
            '8' => Some(Rank::Eight),
            '9' => Some(Rank::Nine),
            'Q' => Some(Rank::Queen),
            'K' => Some(Rank::King),
            'T' => Some(Rank::Ten),
            'A' => Some(Rank::Ace),
            'J' => Some(Rank::Jack),
            _ => None,
        }
    }
}

/// A playing card. `Copy`, one byte; every value is a real card.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Card(pub(crate) u8);

impl Card {
    /// The card of this suit and rank.
    pub const fn new(suit: Suit, rank: Rank) -> Card {
        Card((suit as u8) << 3 | rank as u8)
    }

    /// The card with index 0..32, or `None` for a larger number.
    pub const fn from_index(i: u8) -> Option<Card> {
        if i < 32 { Some(Card(i)) } else { None }
    }

    /// The index 0..32 (`suit * 8 + rank`), the card's bit in a [`CardSet`](crate::CardSet).
    pub const fn index(self) -> u8 {
        self.0
    }

    /// The printed suit (a jack's printed suit; in trump games jacks belong to trumps).
    pub const fn suit(self) -> Suit {
        Suit::from_index(self.0 >> 3)
    }

    /// The rank.
    pub const fn rank(self) -> Rank {
        Rank::from_index(self.0 & 7)
    }

    /// Card points.
    pub const fn points(self) -> u8 {
        self.rank().points()
    }

    /// Whether this is one of the four jacks.
    pub const fn is_jack(self) -> bool {
        self.0 & 7 == 7
    }

    /// All 32 cards in index order.
    pub fn all() -> impl Iterator<Item = Card> {
        (0..32).map(Card)
    }
}

impl fmt::Display for Card {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", self.suit().letter(), self.rank().letter())
    }
}

impl fmt::Debug for Card {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

/// The text is not an ISS card code such as `CJ`, `HT` or `D7`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("not a card code (expected suit C/S/H/D then rank A/T/K/Q/J/9/8/7, like CJ or HT)")]
pub struct ParseCardError;

impl FromStr for Card {
    type Err = ParseCardError;

    fn from_str(s: &str) -> Result<Card, ParseCardError> {
        let mut chars = s.chars();
        let (Some(sc), Some(rc), None) = (chars.next(), chars.next(), chars.next()) else {
            return Err(ParseCardError);
        };
        match (Suit::from_letter(sc), Rank::from_letter(rc)) {
            (Some(suit), Some(rank)) => Ok(Card::new(suit, rank)),
            _ => Err(ParseCardError),
        }
    }
}

impl Serialize for Card {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for Card {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Card, D::Error> {
        let s = <std::borrow::Cow<'de, str>>::deserialize(d)?;
        s.parse().map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_round_trip() {
        for card in Card::all() {
            let text = card.to_string();
            assert_eq!(text.parse::<Card>(), Ok(card));
        }
        assert_eq!("CJ".parse::<Card>().map(|c| c.index()), Ok(31));
        assert_eq!("D7".parse::<Card>().map(|c| c.index()), Ok(0));
        for bad in ["", "C", "CJX", "XJ", "C1", "cj", "JC"] {
            assert!(bad.parse::<Card>().is_err(), "{bad}");
        }
    }

    #[test]
    fn deck_has_120_points() {
        assert_eq!(Card::all().map(|c| c.points() as u32).sum::<u32>(), 120);
    }
}
