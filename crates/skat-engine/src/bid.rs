//! The bid ladder: the values a game can have, and nothing else, can be bid.

use std::fmt;

use serde::{Deserialize, Serialize};

/// Every legal bid, ascending: multiples 2..18 of 9, 10, 11, 12, multiples 2..11 of 24,
/// and the null values 23, 35, 46, 59.
pub const LADDER: [u16; 63] = [
    18, 20, 22, 23, 24, 27, 30, 33, 35, 36, 40, 44, 45, 46, 48, 50, 54, 55, 59, 60, 63, 66, 70, 72, 77, 80,
    81, 84, 88, 90, 96, 99, 100, 108, 110, 117, 120, 121, 126, 130, 132, 135, 140, 143, 144, 150, 153, 154,
    156, 160, 162, 165, 168, 170, 176, 180, 187, 192, 198, 204, 216, 240, 264,
];

/// A value on the bid ladder. Only ladder values can be built, so a `Bid` is always legal
/// as a number; whether it is high enough is the auction's question.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Bid(u8);

impl Bid {
    /// The lowest bid, 18.
    pub const MIN: Bid = Bid(0);
    /// The highest bid, 264 (grand with 4, hand, schneider, schwarz, both announced, ouvert).
    pub const MAX: Bid = Bid(LADDER.len() as u8 - 1);

    /// The bid of this value, or `None` if no game has that value.
    pub fn new(value: u16) -> Option<Bid> {
        LADDER.binary_search(&value).ok().map(|i| Bid(i as u8))
    }

    /// The game value bid.
    pub const fn value(self) -> u16 {
        LADDER[self.0 as usize]
    }

    /// The bid's place on the ladder, 0 for 18.
    pub const fn ladder_index(self) -> usize {
        self.0 as usize
    }

    /// The bid at ladder index `i`.
    pub const fn from_ladder_index(i: usize) -> Option<Bid> {
        if i < LADDER.len() { Some(Bid(i as u8)) } else { None }
    }

    /// The next higher value, if any ("next value" for clients that offer it).
    pub const fn next(self) -> Option<Bid> {
        Bid::from_ladder_index(self.0 as usize + 1)
    }
}

impl fmt::Display for Bid {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.value())
    }
}

impl fmt::Debug for Bid {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Bid({})", self.value())
    }
}

impl Serialize for Bid {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_u16(self.value())
    }
}

impl<'de> Deserialize<'de> for Bid {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Bid, D::Error> {
        let v = u16::deserialize(d)?;
        Bid::new(v).ok_or_else(|| serde::de::Error::custom(format!("{v} is not on the bid ladder")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ladder_is_exactly_the_game_values() {
        let mut values = Vec::new();
        for base in [9u16, 10, 11, 12] {
            values.extend((2..=18).map(|m| base * m));
        }
        values.extend((2..=11).map(|m| 24 * m));
        values.extend([23, 35, 46, 59]);
        values.sort_unstable();
        values.dedup();
        assert_eq!(values, LADDER.to_vec());
        assert!(Bid::new(19).is_none());
        assert_eq!(Bid::new(18), Some(Bid::MIN));
        assert_eq!(Bid::MAX.value(), 264);
        assert_eq!(Bid::MAX.next(), None);
    }
}
