//! A seat at the table (0, 1, 2, and 3 at four seats) and its standing in the list: the
//! table's view of a player, apart from a deal's positions (forehand, middlehand,
//! rearhand), which change from deal to deal. Its own module because events, records and
//! the match all speak of seats, and none of them should import another for it.

use serde::{Deserialize, Serialize};

/// A seat at the table: 0, 1, 2 (and 3 at four seats). Seats are the table's; a seat's
/// position (forehand, middlehand, rearhand) changes from deal to deal.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Seat(u8);

impl Seat {
    /// Seat `n`.
    pub const fn new(n: u8) -> Seat {
        Seat(n)
    }

    /// The seat's number.
    pub const fn number(self) -> u8 {
        self.0
    }

    /// The seat's number as an index.
    pub const fn index(self) -> usize {
        self.0 as usize
    }

    /// Seats 0 to `count` - 1.
    pub fn all(count: u8) -> impl Iterator<Item = Seat> + Clone {
        (0..count).map(Seat)
    }
}

impl std::fmt::Display for Seat {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.fmt(f)
    }
}

impl From<Seat> for usize {
    fn from(s: Seat) -> usize {
        s.index()
    }
}

impl From<Seat> for u32 {
    fn from(s: Seat) -> u32 {
        u32::from(s.0)
    }
}

impl From<u8> for Seat {
    fn from(n: u8) -> Seat {
        Seat(n)
    }
}

impl TryFrom<usize> for Seat {
    type Error = std::num::TryFromIntError;

    fn try_from(n: usize) -> Result<Seat, Self::Error> {
        u8::try_from(n).map(Seat)
    }
}

impl TryFrom<u32> for Seat {
    type Error = std::num::TryFromIntError;

    fn try_from(n: u32) -> Result<Seat, Self::Error> {
        u8::try_from(n).map(Seat)
    }
}

/// Totals and counts for one seat.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct SeatStanding {
    /// The seat.
    pub seat: Seat,
    /// Sum of the scoresheet values (plain list).
    pub plain: i32,
    /// Seeger-Fabian points.
    pub seeger_fabian: i32,
    /// Games declared.
    pub declared: u32,
    /// Of those, won.
    pub won: u32,
    /// Of those, lost.
    pub lost: u32,
    /// Sum of the values of the games declared (for the average game value).
    pub declared_value: u32,
    /// Opponents' games lost (each brings the Seeger-Fabian bonus).
    pub defended_won: u32,
    /// Penalties charged (forfeits before a declaration).
    pub penalties: u32,
}
