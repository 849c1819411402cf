//! What listings show of a table: the part of its state that changes at joins, leaves,
//! deal ends and the end. The journal rewrites a table's listing row only when this
//! changes, so the comparison is made in place after every change (most change nothing
//! a listing shows).

use super::{Status, Table};

/// What listings show of a table: the part of its state that changes at joins, leaves,
/// deal ends and the end (its id, name and settings never change).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Listing {
    /// Where it is in its life.
    pub status: Status,
    /// Seats taken.
    pub occupied: u32,
    /// Deals finished.
    pub deals_played: u32,
    /// Names by seat (empty for an open seat).
    pub players: Vec<String>,
    /// Seeger-Fabian totals by seat.
    pub scores: Vec<i32>,
    /// Unix milliseconds when it finished; 0 before.
    pub finished_ms: u64,
}

impl Listing {
    /// What listings show of `table` now.
    pub fn of(table: &Table) -> Listing {
        Listing {
            status: table.status(),
            occupied: table.seats().filter(|(_, taken)| *taken).count() as u32,
            deals_played: table.deals_played() as u32,
            players: table.names(),
            scores: table.game().standings().iter().map(|s| s.seeger_fabian).collect(),
            finished_ms: table.finished_ms().unwrap_or(0),
        }
    }

    /// Whether this is what listings show of `table` now, compared without building a new
    /// listing.
    pub fn shows(&self, table: &Table) -> bool {
        let standings = table.game().standings();
        self.status == table.status()
            && self.occupied as usize == table.seats().filter(|(_, taken)| *taken).count()
            && self.deals_played as usize == table.deals_played()
            && self.finished_ms == table.finished_ms().unwrap_or(0)
            && self.players.len() == table.seat_count()
            && self.players.iter().zip(table.seats()).all(|(p, (name, _))| p == name)
            && self.scores.len() == standings.len()
            && self.scores.iter().zip(standings).all(|(a, s)| *a == s.seeger_fabian)
    }
}
