//! [`DealRecord`]: a finished deal written down as its cards and its moves, from which
//! everything else (state, views, result, ISS text) can be derived again.

use serde::{Deserialize, Serialize};

use crate::seat::Seat;

use crate::action::{Action, RuleError};
use crate::deal::Deal;
use crate::dealing::Dealt;
use crate::position::Position;
use crate::score::Outcome;

/// One accepted move.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Move {
    /// Who moved (for a forfeit: who forfeited).
    pub position: Position,
    /// What.
    #[serde(flatten)]
    pub action: Action,
}

/// A deal's cards and moves, with its result.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DealRecord {
    /// The deal's number in its match, from 0.
    pub number: u32,
    /// The match seed the cards were dealt from, when seeded.
    pub seed: Option<u64>,
    /// The seats of the match sitting at forehand, middlehand, rearhand.
    pub seats: [Seat; 3],
    /// The dealer's seat (rearhand at 3 seats; sitting out at 4).
    pub dealer: Seat,
    /// The cards.
    pub dealt: Dealt,
    /// The moves, in order.
    pub moves: Vec<Move>,
    /// The result.
    pub outcome: Outcome,
}

/// What a finished deal scored, without its cards and moves: who sat where, who dealt and
/// the outcome. All that standings read, in 28 bytes where a record takes 88 before its
/// moves (an arena run keeps every table's to its end, and fresh memory was a sixth of an
/// in-process run's time).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct DealResult {
    /// The deal's number in its match, from 0.
    pub number: u32,
    /// The seats of the match sitting at forehand, middlehand, rearhand.
    pub seats: [Seat; 3],
    /// The dealer's seat (rearhand at 3 seats; sitting out at 4).
    pub dealer: Seat,
    /// The result.
    pub outcome: Outcome,
}

impl DealResult {
    /// Seeger-Fabian points per seat of a table of `seats` (the dealer sitting out at 4
    /// seats included).
    pub fn seeger_fabian_by_seat(&self, seats: u8) -> Vec<i32> {
        let (sf, sitting_out) = self.outcome.seeger_fabian(usize::from(seats));
        let mut by_seat = self.by_seat(sf, seats);
        if seats == 4 {
            by_seat[usize::from(self.dealer)] = sitting_out;
        }
        by_seat
    }

    /// Plain scoresheet values per seat of a table of `seats`.
    pub fn plain_by_seat(&self, seats: u8) -> Vec<i32> {
        self.by_seat(self.outcome.plain_scores(), seats)
    }

    fn by_seat(&self, by_position: [i32; 3], seats: u8) -> Vec<i32> {
        let mut by_seat = vec![0; usize::from(seats)];
        for p in Position::ALL {
            by_seat[usize::from(self.seats[p.index()])] = by_position[p.index()];
        }
        by_seat
    }
}

impl DealRecord {
    /// The deal's result without its cards and moves.
    pub fn result(&self) -> DealResult {
        DealResult { number: self.number, seats: self.seats, dealer: self.dealer, outcome: self.outcome }
    }
}

/// A move in a record that the rules refuse.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("move {index} ({position} {action}): {error}")]
pub struct IllegalMove {
    /// 0-based index in the record's moves.
    pub index: usize,
    /// Who.
    pub position: Position,
    /// The action's name.
    pub action: &'static str,
    /// The rule.
    pub error: RuleError,
}

impl DealRecord {
    /// Plays the moves again on a fresh deal of the same cards.
    pub fn replay(&self) -> Result<Deal, IllegalMove> {
        let mut deal = Deal::new(self.dealt);
        for (index, m) in self.moves.iter().enumerate() {
            deal.apply(m.position, m.action).map_err(|error| IllegalMove {
                index,
                position: m.position,
                action: m.action.name(),
                error,
            })?;
        }
        Ok(deal)
    }
}

#[cfg(test)]
mod size_tests {
    /// What an arena keeps of every deal to the end of its run: 28 bytes (a record's fixed
    /// part alone is 88).
    #[test]
    fn a_result_is_a_third_of_a_record() {
        assert!(std::mem::size_of::<super::DealResult>() <= 32);
        assert!(3 * std::mem::size_of::<super::DealResult>() <= std::mem::size_of::<super::DealRecord>());
    }
}
