//! Shuffling and dealing, reproducible from `(seed, deal number)` on every machine.
//!
//! The algorithm is fixed and written down so that other programs can deal the same
//! cards (see `docs/dealing.md`):
//!
//! 1. A ChaCha8 generator (ChaCha with 8 rounds, `rand_chacha::ChaCha8Rng`) is keyed
//!    with the 32-byte seed
//!    whose first 8 bytes are `seed` in little-endian order and the rest zero, and its
//!    64-bit stream number is set to the deal number.
//! 2. The deck starts in index order (`D7 D8 D9 DQ DK DT DA DJ H7 ... CJ`) and is
//!    shuffled by Fisher-Yates from the top: for `i` from 31 down to 1, draw `j` uniform
//!    in `0..=i` and swap positions `i` and `j`. A uniform draw below `n` takes the next
//!    32-bit output `x`, computes `m = x * n` in 64 bits, draws again while the low 32
//!    bits of `m` are below `2^32 mod n`, and returns `m >> 32` (Lemire's method).
//! 3. The shuffled deck is dealt from position 0: 3 cards each to forehand, middlehand,
//!    rearhand, 2 to the skat, 4 each, 3 each.

use rand_chacha::ChaCha8Rng;
use rand_core::{Rng, SeedableRng};
use serde::{Deserialize, Serialize};

use crate::card::Card;
use crate::cards::CardSet;
use crate::position::Position;

/// The cards of one deal: three hands of ten (indexed by [`Position`]) and the skat.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Dealt {
    /// Hands of forehand, middlehand, rearhand.
    pub hands: [CardSet; 3],
    /// The two skat cards.
    pub skat: CardSet,
}

/// Why a set of hands is not a deal.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DealError {
    /// A hand does not hold ten cards or the skat not two.
    #[error("a deal needs hands of 10 cards and a skat of 2")]
    WrongSize,
    /// A card appears twice.
    #[error("a card is dealt twice")]
    Duplicate,
}

impl Dealt {
    /// Checks that the hands and skat are 10, 10, 10 and 2 distinct cards.
    pub fn new(hands: [CardSet; 3], skat: CardSet) -> Result<Dealt, DealError> {
        if hands.iter().any(|h| h.len() != 10) || skat.len() != 2 {
            return Err(DealError::WrongSize);
        }
        let all = hands[0] | hands[1] | hands[2] | skat;
        if all.len() != 32 {
            return Err(DealError::Duplicate);
        }
        Ok(Dealt { hands, skat })
    }

    /// Deals a shuffled deck (a permutation of the 32 cards) the Skat way: 3 each,
    /// 2 to the skat, 4 each, 3 each, starting with forehand.
    pub fn from_deck(deck: &[Card; 32]) -> Result<Dealt, DealError> {
        let mut sets = [CardSet::EMPTY; 4];
        for (card, to) in deck.iter().zip(DEAL_ORDER) {
            sets[to as usize].insert(*card);
        }
        Dealt::new([sets[0], sets[1], sets[2]], sets[3])
    }

    /// The seeded deal number `deal` of the match with `seed` (see the module docs).
    pub fn seeded(seed: u64, deal: u64) -> Dealt {
        let mut key = [0u8; 32];
        key[..8].copy_from_slice(&seed.to_le_bytes());
        let mut rng = ChaCha8Rng::from_seed(key);
        rng.set_stream(deal);
        let mut deck: [Card; 32] = std::array::from_fn(|i| card_at(i as u8));
        for i in (1..32u32).rev() {
            let j = uniform_below(&mut rng, i + 1);
            deck.swap(i as usize, j as usize);
        }
        // A permutation of all 32 cards always deals into 10/10/10/2.
        match Dealt::from_deck(&deck) {
            Ok(d) => d,
            Err(_) => unreachable!("a permutation of the deck is a deal"),
        }
    }

    /// The hand of a position.
    pub fn hand(&self, p: Position) -> CardSet {
        self.hands[p.index()]
    }

    /// Writes the deal as the 32 cards of an ISS `w` move: forehand's 10, middlehand's 10,
    /// rearhand's 10, the skat (each group in index order).
    pub fn to_iss(&self) -> String {
        let mut s = String::with_capacity(96);
        for (i, set) in self.hands.iter().chain(std::iter::once(&self.skat)).enumerate() {
            if i > 0 {
                s.push('.');
            }
            s.push_str(&set.to_string());
        }
        s
    }
}

/// Where each card of the shuffled deck goes: 0-2 the hands of forehand, middlehand,
/// rearhand; 3 the skat. Three each, two to the skat, four each, three each.
const DEAL_ORDER: [u8; 32] =
    [0, 0, 0, 1, 1, 1, 2, 2, 2, 3, 3, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 0, 0, 0, 1, 1, 1, 2, 2, 2];

const fn card_at(i: u8) -> Card {
    match Card::from_index(i) {
        Some(c) => c,
        None => panic!("index below 32"),
    }
}

/// A uniform number in `0..n` (`n >= 1`), the same in every language (Lemire's
/// multiply-and-reject): take the next 32-bit output `x`, let `m = x * n` in 64 bits,
/// draw again while the low 32 bits of `m` are below `2^32 mod n`, return `m >> 32`.
/// It needs no division in all but a few draws, which matters at a million deals a second.
pub fn uniform_below<R: Rng + ?Sized>(rng: &mut R, n: u32) -> u32 {
    debug_assert!(n > 0);
    let mut m = u64::from(rng.next_u32()) * u64::from(n);
    if (m as u32) < n {
        // 2^32 mod n.
        let threshold = n.wrapping_neg() % n;
        while (m as u32) < threshold {
            m = u64::from(rng.next_u32()) * u64::from(n);
        }
    }
    (m >> 32) as u32
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seeded_deals_are_complete_and_reproducible() {
        for deal in 0..50 {
            let a = Dealt::seeded(7, deal);
            assert_eq!(a, Dealt::seeded(7, deal));
            assert_eq!((a.hands[0] | a.hands[1] | a.hands[2] | a.skat).len(), 32);
        }
        assert_ne!(Dealt::seeded(7, 0), Dealt::seeded(7, 1));
        assert_ne!(Dealt::seeded(7, 0), Dealt::seeded(8, 0));
    }

    /// Pins the algorithm: if this changes, every recorded match deals differently.
    #[test]
    fn seeded_deal_is_pinned() {
        let d = Dealt::seeded(1, 0);
        assert_eq!(d.to_iss(), PINNED_SEED1_DEAL0);
    }

    const PINNED_SEED1_DEAL0: &str =
        "D7.DQ.DT.H8.HA.S8.SA.SJ.C7.C8.DJ.H7.HK.HT.S7.S9.ST.C9.CK.CA.D9.DK.DA.H9.HQ.HJ.SQ.SK.CQ.CJ.D8.CT";

    #[test]
    fn deck_order_deals_3_2_4_3() {
        let deck: [Card; 32] = std::array::from_fn(|i| card_at(i as u8));
        let d = Dealt::from_deck(&deck).unwrap();
        // Forehand gets deck cards 0-2, 11-14, 23-25.
        let fh: Vec<u8> = d.hands[0].iter().map(|c| c.index()).collect();
        assert_eq!(fh, vec![0, 1, 2, 11, 12, 13, 14, 23, 24, 25]);
        let skat: Vec<u8> = d.skat.iter().map(|c| c.index()).collect();
        assert_eq!(skat, vec![9, 10]);
    }
}
