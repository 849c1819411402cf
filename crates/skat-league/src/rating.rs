//! Ratings: Weng-Lin (the `skillratings` crate; a Bayesian rating for games of more
//! than two players) updated after every finished list from its placements by
//! Seeger-Fabian points, ties sharing a place.
//!
//! A list is one game of three or four players: the placement, not the margin, moves
//! the ratings, so one huge game cannot swing a rating more than a clear win does.

use skillratings::MultiTeamOutcome;
use skillratings::weng_lin::{WengLinConfig, WengLinRating, weng_lin_multi_team};

/// An account's rating.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Rating {
    /// Weng-Lin mu (25 to start).
    pub rating: f64,
    /// Weng-Lin sigma (25/3 to start).
    pub uncertainty: f64,
    /// Rated lists.
    pub lists: u64,
}

impl Rating {
    /// The conservative estimate the leaderboard sorts by: mu − 3 sigma.
    pub fn conservative(&self) -> f64 {
        self.rating - 3.0 * self.uncertainty
    }
}

/// The ratings after one list: `current[i]` is seat `i`'s rating before (`None`: not
/// rated yet), `seeger_fabian[i]` what it scored. Empty when fewer than two seats.
pub fn after_list(current: &[Option<Rating>], seeger_fabian: &[i64]) -> Vec<Rating> {
    if seeger_fabian.len() < 2 || current.len() != seeger_fabian.len() {
        return Vec::new();
    }
    let before: Vec<[WengLinRating; 1]> = current
        .iter()
        .map(|c| {
            [c.map_or_else(WengLinRating::new, |r| WengLinRating {
                rating: r.rating,
                uncertainty: r.uncertainty,
            })]
        })
        .collect();
    // A place is 1 + the number of seats that scored more: ties share it.
    let ranks: Vec<usize> =
        seeger_fabian.iter().map(|sf| 1 + seeger_fabian.iter().filter(|o| *o > sf).count()).collect();
    let teams: Vec<(&[WengLinRating], MultiTeamOutcome)> =
        before.iter().zip(&ranks).map(|(r, rank)| (&r[..], MultiTeamOutcome::new(*rank))).collect();
    let after = weng_lin_multi_team(&teams, &WengLinConfig::new());
    after
        .iter()
        .zip(current)
        .map(|(n, c)| {
            let w = n.first().copied().unwrap_or_default();
            Rating { rating: w.rating, uncertainty: w.uncertainty, lists: c.map_or(0, |c| c.lists) + 1 }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_winner_rises_the_loser_falls_and_ties_share() {
        let after = after_list(&[None, None, None], &[100, 0, -50]);
        assert_eq!(after.len(), 3);
        assert!(after[0].rating > 25.0 && after[2].rating < 25.0);
        assert!(after.iter().all(|r| r.lists == 1 && r.uncertainty < 25.0 / 3.0));
        let tie = after_list(&[None, None, None], &[10, 10, -5]);
        assert!((tie[0].rating - tie[1].rating).abs() < 1e-9);
        let again = after_list(&[Some(after[0]), Some(after[1]), Some(after[2])], &[0, 0, 0]);
        assert_eq!(again[0].lists, 2);
        assert!(after_list(&[None], &[5]).is_empty());
    }
}
