//! [`Trick`]: who led and the cards in play order, and who wins it. Bit operations on
//! the cards only: the play path allocates nothing.

use serde::{Deserialize, Serialize};

use crate::card::Card;
use crate::cards::CardSet;
use crate::contract::GameType;
use crate::position::Position;

/// A trick: who led and the cards in play order. Serialized as `{leader, cards}` with
/// only the cards played.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(into = "TrickText", try_from = "TrickText")]
pub struct Trick {
    /// Who led.
    pub leader: Position,
    /// The cards played so far, `len` of them, in play order.
    pub(crate) cards: [Card; 3],
    pub(crate) len: u8,
}

impl Trick {
    pub(crate) const fn new(leader: Position) -> Trick {
        // The placeholder card is never read: only `len` cards count.
        let placeholder = match Card::from_index(0) {
            Some(c) => c,
            None => unreachable!(),
        };
        Trick { leader, cards: [placeholder; 3], len: 0 }
    }

    /// An empty trick that `leader` leads.
    pub(crate) const fn led_by(leader: Position) -> Trick {
        Trick::new(leader)
    }

    /// A trick led by `leader` with these cards so far (at most three).
    pub fn from_cards(leader: Position, cards: &[Card]) -> Option<Trick> {
        if cards.len() > 3 {
            return None;
        }
        let mut trick = Trick::new(leader);
        trick.cards[..cards.len()].copy_from_slice(cards);
        trick.len = cards.len() as u8;
        Some(trick)
    }

    /// The trick with `card` added, and its three cards once it is complete (for a
    /// fold that follows play card by card).
    ///
    /// By value, not through an index: a byte written into the array and the array read
    /// back at once stalled the processor's store forwarding (a tenth of the in-process
    /// arena's time, which folds every card into three seats' tricks).
    pub(crate) fn with(self, card: Card) -> (Trick, Option<[Card; 3]>) {
        let [a, b, c] = self.cards;
        let (cards, len) = match self.len {
            0 => ([card, b, c], 1),
            1 => ([a, card, c], 2),
            2 => ([a, b, card], 3),
            _ => (self.cards, self.len),
        };
        (Trick { leader: self.leader, cards, len }, (len == 3).then_some(cards))
    }

    /// The cards played, in order.
    pub fn cards(&self) -> &[Card] {
        &self.cards[..self.len as usize]
    }

    /// The cards as a set.
    #[inline]
    pub fn card_set(&self) -> CardSet {
        let mut set = CardSet::EMPTY;
        for c in &self.cards[..self.len as usize] {
            set.insert(*c);
        }
        set
    }

    /// The card led, if any.
    pub fn led(&self) -> Option<Card> {
        self.cards().first().copied()
    }

    /// The cards with who played them.
    pub fn plays(&self) -> impl Iterator<Item = (Position, Card)> + '_ {
        let mut p = self.leader;
        self.cards().iter().map(move |c| {
            let who = p;
            p = p.next();
            (who, *c)
        })
    }

    /// Whether all three cards are in.
    pub fn is_complete(&self) -> bool {
        self.len == 3
    }

    /// Who takes the trick in `game`, once it is complete.
    #[inline]
    pub fn winner(&self, game: GameType) -> Option<Position> {
        if !self.is_complete() {
            return None;
        }
        Position::from_index((self.leader.index() + game.trick_winner(self.cards)) % 3)
    }
}

#[derive(Serialize, Deserialize)]
struct TrickText {
    leader: Position,
    cards: Vec<Card>,
}

impl From<Trick> for TrickText {
    fn from(t: Trick) -> TrickText {
        TrickText { leader: t.leader, cards: t.cards().to_vec() }
    }
}

impl TryFrom<TrickText> for Trick {
    type Error = &'static str;
    fn try_from(t: TrickText) -> Result<Trick, &'static str> {
        Trick::from_cards(t.leader, &t.cards).ok_or("a trick has at most 3 cards")
    }
}
