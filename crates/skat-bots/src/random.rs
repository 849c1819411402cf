//! `random`: a uniformly random legal action at every decision.

use rand_chacha::ChaCha8Rng;
use rand_core::{Rng, SeedableRng};
use skat_bot_api::{Bot, Knowledge};
use skat_engine::{Bid, Card, Contract};

/// Plays uniformly at random among the legal actions (coin flips for yes/no decisions).
#[derive(Debug, Clone)]
pub struct RandomBot {
    rng: ChaCha8Rng,
}

impl RandomBot {
    /// A random bot whose choices follow from `seed`.
    pub fn new(seed: u64) -> RandomBot {
        RandomBot { rng: ChaCha8Rng::seed_from_u64(seed) }
    }

    fn below(&mut self, n: u32) -> u32 {
        skat_engine::dealing::uniform_below(&mut self.rng, n.max(1))
    }

    fn coin(&mut self) -> bool {
        self.rng.next_u32() & 1 == 1
    }
}

impl Bot for RandomBot {
    async fn bid(&mut self, k: &Knowledge) -> Option<Bid> {
        if self.coin() { k.legal.bid_from } else { None }
    }

    async fn answer(&mut self, _k: &Knowledge, _bid: Bid) -> bool {
        self.coin()
    }

    async fn take_skat(&mut self, _k: &Knowledge) -> bool {
        self.coin()
    }

    async fn discard(&mut self, k: &Knowledge) -> [Card; 2] {
        let n = k.hand.len();
        let a = k
            .hand
            .nth(self.below(n))
            .unwrap_or(Card::new(skat_engine::Suit::Clubs, skat_engine::Rank::Seven));
        let rest = k.hand.without(a);
        let b = rest.nth(self.below(rest.len())).unwrap_or(a);
        [a, b]
    }

    async fn declare(&mut self, k: &Knowledge) -> Contract {
        let n = k.legal.contracts.len() as u32;
        k.legal
            .contracts
            .get(self.below(n) as usize)
            .copied()
            .unwrap_or(Contract::plain(skat_engine::GameType::Grand))
    }

    async fn play(&mut self, k: &Knowledge) -> Card {
        let cards = k.legal.cards;
        cards
            .nth(self.below(cards.len()))
            .unwrap_or(Card::new(skat_engine::Suit::Clubs, skat_engine::Rank::Seven))
    }
}
