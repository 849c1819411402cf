//! Positions at the table for one deal: forehand, middlehand, rearhand.
//!
//! A deal only knows positions; which seat of a match sits where is the match's business
//! ([`crate::Match`]). ISS records number the positions 0, 1, 2 in the same order.

use std::fmt;

use serde::{Deserialize, Serialize};

/// Where a player sits relative to the dealer in one deal.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum Position {
    /// Vorhand: left of the dealer, leads the first trick, wins ties in the auction.
    Forehand = 0,
    /// Mittelhand: says first in the auction.
    Middlehand = 1,
    /// Hinterhand: the dealer at a 3-seat table.
    Rearhand = 2,
}

impl Position {
    /// F, M, R.
    pub const ALL: [Position; 3] = [Position::Forehand, Position::Middlehand, Position::Rearhand];

    /// 0 forehand, 1 middlehand, 2 rearhand (the ISS seat number).
    pub const fn index(self) -> usize {
        self as usize
    }

    /// The position with ISS number 0..3.
    pub const fn from_index(i: usize) -> Option<Position> {
        match i {
            0 => Some(Position::Forehand),
            1 => Some(Position::Middlehand),
            2 => Some(Position::Rearhand),
            _ => None,
        }
    }

    /// The next player clockwise (who plays after this one in a trick).
    pub const fn next(self) -> Position {
        match self {
            Position::Forehand => Position::Middlehand,
            Position::Middlehand => Position::Rearhand,
            Position::Rearhand => Position::Forehand,
        }
    }

    /// Lower-case English name, for messages.
    pub const fn name(self) -> &'static str {
        match self {
            Position::Forehand => "forehand",
            Position::Middlehand => "middlehand",
            Position::Rearhand => "rearhand",
        }
    }
}

impl fmt::Display for Position {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}
