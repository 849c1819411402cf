//! [`CardSet`]: a set of cards as a 32-bit mask, the engine's workhorse.
//!
//! Following suit, finding trumps, counting points and picking a random legal card are
//! each a handful of bit operations on it, which is what lets the engine play over a
//! million random deals a second.

use std::fmt;
use std::ops::{BitAnd, BitAndAssign, BitOr, BitOrAssign, Not, Sub};
use std::str::FromStr;

use serde::{Deserialize, Serialize};

use crate::card::{Card, ParseCardError, Rank, Suit};

/// A set of cards, one bit per [`Card::index`].
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct CardSet(u32);

/// Bit masks of the points per card, split by points so that counting the points of a set
/// is five popcounts.
const ACES: u32 = 0x4040_4040;
const TENS: u32 = 0x2020_2020;
const KINGS: u32 = 0x1010_1010;
const QUEENS: u32 = 0x0808_0808;
const JACKS: u32 = 0x8080_8080;

impl CardSet {
    /// No card.
    pub const EMPTY: CardSet = CardSet(0);
    /// All 32 cards.
    pub const DECK: CardSet = CardSet(u32::MAX);
    /// The four jacks.
    pub const JACKS: CardSet = CardSet(JACKS);

    /// The set with these bits (bit `i` is the card with index `i`).
    pub const fn from_bits(bits: u32) -> CardSet {
        CardSet(bits)
    }

    /// The bits.
    pub const fn bits(self) -> u32 {
        self.0
    }

    /// The set holding only `card`.
    pub const fn single(card: Card) -> CardSet {
        CardSet(1 << card.index())
    }

    /// All eight cards of a suit, its jack included.
    pub const fn suit(suit: Suit) -> CardSet {
        CardSet(0xff << (suit as u32 * 8))
    }

    /// The seven cards of a suit without its jack: what "follow suit" asks for when a
    /// plain card of the suit is led in a suit game or grand.
    pub const fn suit_without_jack(suit: Suit) -> CardSet {
        CardSet(0x7f << (suit as u32 * 8))
    }

    /// All four cards of a rank.
    pub const fn rank(rank: Rank) -> CardSet {
        CardSet(0x0101_0101 << rank as u32)
    }

    /// Number of cards.
    pub const fn len(self) -> u32 {
        self.0.count_ones()
    }

    /// Whether the set is empty.
    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// Whether `card` is in the set.
    pub const fn contains(self, card: Card) -> bool {
        self.0 & (1 << card.index()) != 0
    }

    /// Whether every card of `other` is in the set.
    pub const fn contains_all(self, other: CardSet) -> bool {
        self.0 & other.0 == other.0
    }

    /// Adds a card.
    pub fn insert(&mut self, card: Card) {
        self.0 |= 1 << card.index();
    }

    /// Removes a card.
    pub fn remove(&mut self, card: Card) {
        self.0 &= !(1 << card.index());
    }

    /// The set with `card` added.
    pub const fn with(self, card: Card) -> CardSet {
        CardSet(self.0 | 1 << card.index())
    }

    /// The set with `card` removed.
    pub const fn without(self, card: Card) -> CardSet {
        CardSet(self.0 & !(1 << card.index()))
    }

    /// Card points in the set.
    pub const fn points(self) -> u32 {
        let s = self.0;
        11 * (s & ACES).count_ones()
            + 10 * (s & TENS).count_ones()
            + 4 * (s & KINGS).count_ones()
            + 3 * (s & QUEENS).count_ones()
            + 2 * (s & JACKS).count_ones()
    }

    /// The card with the lowest index, if any.
    pub const fn first(self) -> Option<Card> {
        if self.0 == 0 { None } else { Card::from_index(self.0.trailing_zeros() as u8) }
    }

    /// The card with the highest index, if any.
    pub const fn last(self) -> Option<Card> {
        if self.0 == 0 { None } else { Card::from_index(31 - self.0.leading_zeros() as u8) }
    }

    /// The `n`-th card in index order (0-based), if the set has more than `n` cards.
    /// Used to pick a uniformly random member without allocating: a binary search by
    /// population counts, five steps without data-dependent loops.
    #[inline]
    pub fn nth(self, n: u32) -> Option<Card> {
        if n >= self.len() {
            return None;
        }
        let (mut bits, mut n, mut base) = (self.0, n, 0u32);
        for width in [16u32, 8, 4, 2, 1] {
            let low = bits & ((1u32 << width) - 1);
            let count = low.count_ones();
            if n >= count {
                n -= count;
                bits >>= width;
                base += width;
            } else {
                bits = low;
            }
        }
        Card::from_index(base as u8)
    }

    /// The cards in index order.
    pub const fn iter(self) -> CardSetIter {
        CardSetIter(self.0)
    }
}

/// Iterator over a [`CardSet`] in index order.
#[derive(Clone, Debug)]
pub struct CardSetIter(u32);

impl Iterator for CardSetIter {
    type Item = Card;

    fn next(&mut self) -> Option<Card> {
        if self.0 == 0 {
            return None;
        }
        let i = self.0.trailing_zeros() as u8;
        self.0 &= self.0 - 1;
        Card::from_index(i)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.0.count_ones() as usize;
        (n, Some(n))
    }
}

impl ExactSizeIterator for CardSetIter {}

impl IntoIterator for CardSet {
    type Item = Card;
    type IntoIter = CardSetIter;
    fn into_iter(self) -> CardSetIter {
        self.iter()
    }
}

impl FromIterator<Card> for CardSet {
    fn from_iter<I: IntoIterator<Item = Card>>(iter: I) -> CardSet {
        let mut set = CardSet::EMPTY;
        for c in iter {
            set.insert(c);
        }
        set
    }
}

impl From<Card> for CardSet {
    fn from(card: Card) -> CardSet {
        CardSet::single(card)
    }
}

impl BitOr for CardSet {
    type Output = CardSet;
    fn bitor(self, rhs: CardSet) -> CardSet {
        CardSet(self.0 | rhs.0)
    }
}

impl BitOrAssign for CardSet {
    fn bitor_assign(&mut self, rhs: CardSet) {
        self.0 |= rhs.0;
    }
}

impl BitAnd for CardSet {
    type Output = CardSet;
    fn bitand(self, rhs: CardSet) -> CardSet {
        CardSet(self.0 & rhs.0)
    }
}

impl BitAndAssign for CardSet {
    fn bitand_assign(&mut self, rhs: CardSet) {
        self.0 &= rhs.0;
    }
}

impl Sub for CardSet {
    type Output = CardSet;
    fn sub(self, rhs: CardSet) -> CardSet {
        CardSet(self.0 & !rhs.0)
    }
}

impl Not for CardSet {
    type Output = CardSet;
    fn not(self) -> CardSet {
        CardSet(!self.0)
    }
}

/// Prints the cards as ISS codes joined by `.`, the ISS record style (`CJ.HT.D7`).
impl fmt::Display for CardSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, c) in self.iter().enumerate() {
            if i > 0 {
                f.write_str(".")?;
            }
            write!(f, "{c}")?;
        }
        Ok(())
    }
}

impl fmt::Debug for CardSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{{{self}}}")
    }
}

/// Parses `.`-separated ISS codes; the empty string is the empty set.
impl FromStr for CardSet {
    type Err = ParseCardError;
    fn from_str(s: &str) -> Result<CardSet, ParseCardError> {
        if s.is_empty() {
            return Ok(CardSet::EMPTY);
        }
        s.split('.').map(str::parse::<Card>).collect()
    }
}

/// Serialized as a list of card codes, which every JSON reader understands.
impl Serialize for CardSet {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.iter())
    }
}

impl<'de> Deserialize<'de> for CardSet {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<CardSet, D::Error> {
        let cards = Vec::<Card>::deserialize(d)?;
        Ok(cards.into_iter().collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn masks_match_cards() {
        for card in Card::all() {
            assert_eq!(CardSet::JACKS.contains(card), card.rank() == Rank::Jack);
            assert!(CardSet::suit(card.suit()).contains(card));
            assert_eq!(CardSet::suit_without_jack(card.suit()).contains(card), !card.is_jack());
            assert!(CardSet::rank(card.rank()).contains(card));
            assert_eq!(CardSet::single(card).points(), card.points() as u32);
        }
        assert_eq!(CardSet::DECK.points(), 120);
    }

    #[test]
    fn nth_and_iter_agree() {
        let set: CardSet = "CJ.HT.D7.SA".parse().unwrap();
        let listed: Vec<Card> = set.iter().collect();
        for (i, c) in listed.iter().enumerate() {
            assert_eq!(set.nth(i as u32), Some(*c));
        }
        assert_eq!(set.nth(4), None);
        for bits in [1u32, 0x8000_0000, u32::MAX, 0xdead_beef, 0x0101_0101] {
            let set = CardSet::from_bits(bits);
            for (i, c) in set.iter().enumerate() {
                assert_eq!(set.nth(i as u32), Some(c), "{bits:x} {i}");
            }
        }
        assert_eq!(set.to_string().parse::<CardSet>(), Ok(set));
    }
}
