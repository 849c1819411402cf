//! Figures per game class: for each entry, by suit game, grand and null, hand or not, how
//! many it declared and won, its mean Seeger-Fabian points per game as declarer, and the
//! same classes as a defender.
//!
//! Why: two bots can score alike overall and differ where it matters: one that loses
//! half its nulls, or never plays a hand game, hides that in a total. Bots that share a
//! blind spot (the same bidding) cannot show it against each other, so every run prints
//! where the points came from.

use serde::Serialize;
use skat_engine::{GameResult, GameType, Outcome};

use crate::TableOutcome;

/// The six classes, in print order.
pub const CLASSES: [&str; 6] = ["suit", "suit hand", "grand", "grand hand", "null", "null hand"];

/// A family of games: what a census plays out ([`crate::ArenaConfig::census`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum Family {
    /// Clubs, spades, hearts or diamonds.
    Suit,
    /// Grand.
    Grand,
    /// Null, hand, open or both.
    Null,
}

impl Family {
    /// The family of `game`.
    pub fn of(game: GameType) -> Family {
        match game {
            GameType::Null => Family::Null,
            GameType::Grand => Family::Grand,
            _ => Family::Suit,
        }
    }
}

impl std::str::FromStr for Family {
    type Err = String;

    fn from_str(s: &str) -> Result<Family, String> {
        match s.trim().to_ascii_lowercase().as_str() {
            "suit" => Ok(Family::Suit),
            "grand" => Ok(Family::Grand),
            "null" => Ok(Family::Null),
            other => Err(format!("`{other}` is no family of games: suit, grand or null")),
        }
    }
}

impl std::fmt::Display for Family {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Family::Suit => "suit",
            Family::Grand => "grand",
            Family::Null => "null",
        })
    }
}

/// What one entry did in one class of game.
#[derive(Debug, Clone, Default, Serialize, PartialEq)]
pub struct ClassFigures {
    /// One of [`CLASSES`].
    pub class: &'static str,
    /// Games of this class it declared.
    pub declared: u32,
    /// Of those, won.
    pub won: u32,
    /// Its Seeger-Fabian points from them, in all.
    pub declarer_points: i64,
    /// Games of this class it defended.
    pub defended: u32,
    /// Its Seeger-Fabian points from them, in all (40 for each game the declarer lost).
    pub defender_points: i64,
}

impl ClassFigures {
    /// Won per game declared, in percent (0 with none).
    pub fn won_percent(&self) -> f64 {
        if self.declared == 0 { 0.0 } else { 100.0 * f64::from(self.won) / f64::from(self.declared) }
    }

    /// Mean Seeger-Fabian points per game declared (0 with none).
    pub fn per_declared(&self) -> f64 {
        if self.declared == 0 { 0.0 } else { self.declarer_points as f64 / f64::from(self.declared) }
    }

    /// Mean Seeger-Fabian points per game defended (0 with none).
    pub fn per_defended(&self) -> f64 {
        if self.defended == 0 { 0.0 } else { self.defender_points as f64 / f64::from(self.defended) }
    }
}

/// The class of a game as [`CLASSES`] names it.
pub fn class_of(game: &GameResult) -> usize {
    let family = match Family::of(game.contract.game) {
        Family::Null => 4,
        Family::Grand => 2,
        Family::Suit => 0,
    };
    family + usize::from(game.hand)
}

/// Every entry's figures per class (`entries` entries; the classes with no game left out).
pub fn compute(entries: usize, outcomes: &[TableOutcome]) -> Vec<Vec<ClassFigures>> {
    let mut by_entry: Vec<[ClassFigures; 6]> = (0..entries)
        .map(|_| std::array::from_fn(|c| ClassFigures { class: CLASSES[c], ..ClassFigures::default() }))
        .collect();
    let seats = entries as u8;
    for t in outcomes {
        for r in &t.results {
            let Outcome::Game(g) = &r.outcome else { continue };
            let class = class_of(g);
            let sf = r.seeger_fabian_by_seat(seats);
            for p in skat_engine::Position::ALL {
                let seat = usize::from(r.seats[p.index()]);
                let e = t.plan.seating[seat];
                let f = &mut by_entry[e][class];
                if p == g.declarer {
                    f.declared += 1;
                    f.won += u32::from(g.won);
                    f.declarer_points += i64::from(sf[seat]);
                } else {
                    f.defended += 1;
                    f.defender_points += i64::from(sf[seat]);
                }
            }
        }
    }
    by_entry
        .into_iter()
        .map(|classes| classes.into_iter().filter(|f| f.declared + f.defended > 0).collect())
        .collect()
}
