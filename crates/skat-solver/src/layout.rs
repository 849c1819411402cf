//! The cards of one game type renumbered so that the search's questions are bit
//! operations: every suit a player must follow (a follow class) is a run of adjacent
//! bits, weakest to strongest, and the trumps are the highest run. Then "may I follow",
//! "does this card beat that one" and "is there a live card between my two" are a mask,
//! a comparison and a `trailing_zeros`.
//!
//! Built from the engine's own answers (`follow_set`, `strength`, `trumps`), so no rule
//! is restated here; a test checks every trick of every game against `trick_winner`.

use std::sync::OnceLock;

use skat_engine::{Card, CardSet, GameType};

/// One game type's numbering. A "bit" below is a card's number in it (0..32).
#[derive(Debug)]
pub(crate) struct Layout {
    /// Engine card index -> bit.
    bit: [u8; 32],
    /// Bit -> card.
    card: [Card; 32],
    /// Bit -> the bits of its follow class.
    pub class: [u32; 32],
    /// Bit -> card points.
    pub points: [u8; 32],
    /// Bit -> how early to try it as a lead (lower first: trumps and high cards).
    pub lead_key: [i16; 32],
    /// Bits from this one up are trumps (32: none, in null).
    pub trump_start: u8,
}

impl Layout {
    fn build(game: GameType) -> Layout {
        // The follow classes, plain suits first and the trumps last (highest bits).
        let mut classes: Vec<CardSet> = Vec::new();
        for c in Card::all() {
            let class = game.follow_set(c);
            if !classes.contains(&class) {
                classes.push(class);
            }
        }
        classes.sort_by_key(|class| !game.trumps().is_empty() && *class == game.trumps());
        let mut layout = Layout {
            bit: [0; 32],
            card: [Card::from_index(0).expect("card 0"); 32],
            class: [0; 32],
            points: [0; 32],
            lead_key: [0; 32],
            trump_start: 32,
        };
        let mut next = 0u8;
        for class in classes {
            let mut cards: Vec<Card> = class.into_iter().collect();
            let Some(&first) = cards.first() else { continue };
            // Weakest first, as a trick led in this class ranks them.
            cards.sort_by_key(|c| game.strength(*c, first));
            if !game.trumps().is_empty() && class == game.trumps() {
                layout.trump_start = next;
            }
            let start = next;
            for c in &cards {
                layout.bit[c.index() as usize] = next;
                layout.card[next as usize] = *c;
                layout.points[next as usize] = c.points();
                layout.lead_key[next as usize] =
                    -(i16::from(game.strength(*c, *c)) * 16) - i16::from(c.points());
                next += 1;
            }
            let mask = ((1u64 << next) - (1u64 << start)) as u32;
            for b in start..next {
                layout.class[b as usize] = mask;
            }
        }
        layout
    }

    /// The layout of `game` (built once per process).
    pub fn of(game: GameType) -> &'static Layout {
        static LAYOUTS: OnceLock<Vec<Layout>> = OnceLock::new();
        &LAYOUTS.get_or_init(|| GameType::ALL.iter().map(|g| Layout::build(*g)).collect())[game as usize]
    }

    pub fn bit(&self, c: Card) -> u8 {
        self.bit[c.index() as usize]
    }

    #[cfg(test)]
    pub fn card(&self, bit: u8) -> Card {
        self.card[usize::from(bit)]
    }

    /// A card set in bits.
    pub fn bits(&self, set: CardSet) -> u32 {
        set.into_iter().fold(0, |acc, c| acc | 1 << self.bit(c))
    }

    /// Whether `card` takes the trick from `winner` (the best card so far): a higher bit
    /// of the same class, or any trump over a plain card (trumps are the highest bits).
    #[inline(always)]
    pub fn beats(&self, card: u8, winner: u8) -> bool {
        card > winner && (self.class[usize::from(card)] & (1 << winner) != 0 || card >= self.trump_start)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_trick_of_every_game_is_won_as_the_engine_says() {
        for game in GameType::ALL {
            let l = Layout::of(game);
            for a in Card::all() {
                for b in Card::all().filter(|b| *b != a) {
                    for c in Card::all().filter(|c| *c != a && *c != b) {
                        let mut w = 0;
                        let bits = [l.bit(a), l.bit(b), l.bit(c)];
                        for i in 1..3 {
                            if l.beats(bits[i], bits[w]) {
                                w = i;
                            }
                        }
                        assert_eq!(w, game.trick_winner([a, b, c]), "{game:?} {a} {b} {c}");
                    }
                }
            }
            for c in Card::all() {
                assert_eq!(l.card(l.bit(c)), c);
                let class: Vec<Card> = (0..32)
                    .filter(|b| l.class[usize::from(l.bit(c))] & 1 << b != 0)
                    .map(|b| l.card(b))
                    .collect();
                assert_eq!(class.into_iter().collect::<CardSet>(), game.follow_set(c));
            }
        }
    }
}
