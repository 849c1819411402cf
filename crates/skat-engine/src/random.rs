//! Random legal players: the opponents of `skat selfplay` and `skat bench`, and the
//! fuzzers of the property tests. Seeded, so every run can be reproduced.
//!
//! Choices are uniform where that makes sense (cards, discards, the legal declarations,
//! pick-up or hand) and coin flips in the auction, so that passed-in deals, high bids,
//! hand games, announcements, ouvert and null all occur. Nothing here allocates.

use rand_chacha::ChaCha8Rng;
use rand_core::{Rng, SeedableRng};

use crate::action::{Action, Phase};
use crate::auction::Expect;
use crate::bid::Bid;
use crate::cards::CardSet;
use crate::deal::Deal;
use crate::dealing::uniform_below;
use crate::position::Position;
use crate::view::LegalActions;

/// A player that picks uniformly among legal actions.
#[derive(Debug, Clone)]
pub struct RandomPlayer {
    rng: ChaCha8Rng,
}

impl RandomPlayer {
    /// A player whose choices follow from `seed`.
    pub fn new(seed: u64) -> RandomPlayer {
        RandomPlayer { rng: ChaCha8Rng::seed_from_u64(seed) }
    }

    fn below(&mut self, n: u32) -> u32 {
        uniform_below(&mut self.rng, n)
    }

    fn coin(&mut self) -> bool {
        self.rng.next_u32() & 1 == 1
    }

    /// A uniformly random card of `set` (`None` when it is empty).
    #[inline(always)]
    fn card_of(&mut self, set: CardSet) -> Option<crate::Card> {
        let n = set.len();
        if n == 0 {
            return None;
        }
        set.nth(self.below(n))
    }

    /// A legal action for `p`, which must be the position to move. (When it is not, the
    /// action returned is a resignation during play or a pass otherwise, which the deal
    /// will refuse.)
    #[inline(always)]
    pub fn choose(&mut self, deal: &Deal, p: Position) -> Action {
        // Play is 30 of the ~40 decisions in a deal: keep it small and inlined.
        if deal.phase() == Phase::Playing {
            return match self.card_of(deal.playable_cards(p)) {
                Some(card) => Action::Play { card },
                None => Action::Resign,
            };
        }
        self.choose_before_play(deal, p)
    }

    #[inline(never)]
    fn choose_before_play(&mut self, deal: &Deal, p: Position) -> Action {
        match deal.phase() {
            Phase::Playing | Phase::Finished => Action::Pass,
            Phase::Bidding => match deal.auction().expect() {
                Some(Expect::Say { min: Some(min) }) if self.coin() => {
                    // Mostly the next value, sometimes a jump of up to 4 steps.
                    let jump = if self.below(4) == 0 { self.below(5) as usize } else { 0 };
                    let index = (min.ladder_index() + jump).min(Bid::MAX.ladder_index());
                    Action::Bid { value: Bid::from_ladder_index(index).unwrap_or(min) }
                }
                Some(Expect::Answer { .. }) if self.coin() => Action::Hold,
                _ => Action::Pass,
            },
            Phase::SkatDecision => {
                if self.coin() {
                    Action::PickUpSkat
                } else {
                    Action::PlayHand
                }
            }
            Phase::Discarding => {
                let hand = deal.hand(p);
                let first = self.card_of(hand);
                let second = first.and_then(|f| self.card_of(hand.without(f)));
                match (first, second) {
                    (Some(a), Some(b)) => Action::Discard { cards: CardSet::single(a).with(b) },
                    _ => Action::Pass,
                }
            }
            Phase::Declaring => {
                let (legal, n) = deal.legal_contracts();
                // Grand without announcements is always legal, so n > 0.
                let pick = legal[self.below(n.max(1) as u32) as usize];
                Action::Declare { contract: pick }
            }
        }
    }

    /// A uniformly random action among `legal`'s turn actions (a card, a discard, a
    /// declaration, or one of bid/hold/pass/pick up/hand), for clients that know only
    /// their legal actions. `None` when `legal` gives no turn.
    pub fn choose_from(&mut self, legal: &LegalActions) -> Option<Action> {
        if !legal.cards.is_empty() {
            return self.card_of(legal.cards).map(|card| Action::Play { card });
        }
        if !legal.discard_from.is_empty() {
            let a = self.card_of(legal.discard_from)?;
            let b = self.card_of(legal.discard_from.without(a))?;
            return Some(Action::Discard { cards: CardSet::single(a).with(b) });
        }
        if !legal.contracts.is_empty() {
            let i = self.below(legal.contracts.len() as u32) as usize;
            return Some(Action::Declare { contract: legal.contracts[i] });
        }
        let mut options = [Action::Pass; 5];
        let mut n = 0;
        let mut add = |ok: bool, a: Action| {
            if ok {
                options[n] = a;
                n += 1;
            }
        };
        if let Some(min) = legal.bid_from {
            add(true, Action::Bid { value: min });
        }
        add(legal.hold, Action::Hold);
        add(legal.pass, Action::Pass);
        add(legal.pick_up_skat, Action::PickUpSkat);
        add(legal.play_hand, Action::PlayHand);
        if n == 0 {
            return None;
        }
        Some(options[self.below(n as u32) as usize])
    }

    /// Plays a whole deal with this player in every seat; returns the actions taken.
    pub fn play_out(&mut self, deal: &mut Deal, mut log: impl FnMut(Position, Action)) {
        while let Some(p) = deal.to_move() {
            let action = self.choose(deal, p);
            if deal.apply(p, action).is_err() {
                // Unreachable by construction; stop rather than loop.
                debug_assert!(false, "random player chose an illegal action");
                return;
            }
            log(p, action);
        }
    }
}
