//! Scoring a finished deal: card points, matadors, multiplier, game value, overbid,
//! schneider and schwarz, the scoresheet value and Seeger-Fabian points.

use serde::{Deserialize, Serialize};

use crate::action::ForfeitReason;
use crate::bid::Bid;
use crate::cards::CardSet;
use crate::contract::Contract;
use crate::position::Position;

/// How a finished deal ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(tag = "end", rename_all = "snake_case")]
pub enum DealEnd {
    /// All three passed.
    PassedIn,
    /// All ten tricks were played.
    PlayedOut,
    /// Null: the declarer took a trick.
    DeclarerTookTrick,
    /// Schwarz announced or ouvert: the defenders took a trick.
    DefendersTookTrick,
    /// The declarer resigned the remaining tricks.
    DeclarerResigned,
    /// Both defenders resigned (conceded) the remaining tricks.
    DefendersResigned,
    /// The table ended the deal for a seat (time-out, left).
    Forfeit {
        /// Who forfeited.
        position: Position,
        /// Why.
        reason: ForfeitReason,
    },
}

impl DealEnd {
    /// Snake-case name: `played_out`, `declarer_took_trick`, `defenders_took_trick`,
    /// `declarer_resigned`, `defenders_resigned`, `forfeit`, `passed_in`.
    pub const fn name(self) -> &'static str {
        match self {
            DealEnd::PassedIn => "passed_in",
            DealEnd::PlayedOut => "played_out",
            DealEnd::DeclarerTookTrick => "declarer_took_trick",
            DealEnd::DefendersTookTrick => "defenders_took_trick",
            DealEnd::DeclarerResigned => "declarer_resigned",
            DealEnd::DefendersResigned => "defenders_resigned",
            DealEnd::Forfeit { .. } => "forfeit",
        }
    }
}

/// The result of a finished deal.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Outcome {
    /// All three passed: nobody scores.
    PassedIn,
    /// A game was declared and scored.
    Game(GameResult),
    /// A seat forfeited before the game was declared, so no game can be scored.
    Penalty(Penalty),
}

/// A game's result, as the ISS `R[...]` reports it and more.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct GameResult {
    /// The declarer.
    pub declarer: Position,
    /// What was declared.
    pub contract: Contract,
    /// Whether it was a hand game.
    pub hand: bool,
    /// The bid the declarer had to reach.
    pub bid: Bid,
    /// Matadors, signed: `+n` with, `-n` without; 0 in null.
    pub matadors: i8,
    /// The multiplier (matadors + game + levels); 0 in null.
    pub multiplier: u8,
    /// The game value: base × multiplier, raised to the lowest multiple of the base
    /// value that reaches the bid when overbid; the fixed value in null.
    pub value: u16,
    /// Card points of the declarer, skat included.
    pub declarer_points: u8,
    /// Tricks of the declarer.
    pub declarer_tricks: u8,
    /// A side has 90 or more card points (the other 30 or fewer). False in null.
    pub schneider: bool,
    /// A side took every trick. False in null.
    pub schwarz: bool,
    /// The game value fell short of the bid (lost whatever the cards).
    pub overbid: bool,
    /// Whether the declarer won.
    pub won: bool,
    /// How the play ended.
    pub end: DealEnd,
}

/// A forfeit before the declaration. The offender is charged as a declarer who lost a
/// game worth the bid reached so far (at least 18), so running out the clock can never
/// pay; this is the project's house rule (ISS keeps separate penalty points instead).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Penalty {
    /// Who forfeited.
    pub offender: Position,
    /// Why.
    pub reason: ForfeitReason,
    /// The value charged (the bid, at least 18); the offender scores −2 × this.
    pub value: u16,
}

impl GameResult {
    /// The scoresheet value: `+value` when won, `−2 × value` when lost.
    pub const fn score(&self) -> i32 {
        if self.won { self.value as i32 } else { -2 * self.value as i32 }
    }
}

impl Outcome {
    /// The scoresheet value each position gets in the plain list (only the declarer, or
    /// the penalised seat, scores).
    pub fn plain_scores(&self) -> [i32; 3] {
        let mut s = [0; 3];
        match self {
            Outcome::PassedIn => {}
            Outcome::Game(g) => s[g.declarer.index()] = g.score(),
            Outcome::Penalty(p) => s[p.offender.index()] = -2 * p.value as i32,
        }
        s
    }

    /// Seeger-Fabian points of the three positions and of a fourth seat sitting out (the
    /// dealer at a 4-seat table), in that order. Won: +value + 50. Lost: −2 × value − 50,
    /// and every other seat at the table +40 (3 seats) or +30 (4 seats, the dealer
    /// included, as in the German Skat Association's tournament rules).
    pub fn seeger_fabian(&self, seats: usize) -> ([i32; 3], i32) {
        let bonus = if seats == 4 { 30 } else { 40 };
        let (loser, value, won) = match self {
            Outcome::PassedIn => return ([0; 3], 0),
            Outcome::Game(g) => (g.declarer, g.value as i32, g.won),
            Outcome::Penalty(p) => (p.offender, p.value as i32, false),
        };
        let mut s = [0; 3];
        if won {
            s[loser.index()] = value + 50;
            return (s, 0);
        }
        for p in Position::ALL {
            s[p.index()] = if p == loser { -2 * value - 50 } else { bonus };
        }
        (s, if seats == 4 { bonus } else { 0 })
    }
}

/// What a finished deal's score depends on (gathered by [`crate::Deal::outcome`]): the
/// scoring needs these facts, not the deal, so it sits beside the deal rather than on it.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Played {
    pub(crate) declarer: Option<Position>,
    pub(crate) contract: Option<Contract>,
    pub(crate) bid: Option<Bid>,
    /// Played without picking up the skat.
    pub(crate) hand: bool,
    /// The declarer's ten cards as dealt and the skat (for the matadors).
    pub(crate) matador_cards: CardSet,
    /// The skat that counts for the declarer: the two cards put away, or the skat of a hand game.
    pub(crate) skat: CardSet,
    /// The cards in the declarer's tricks.
    pub(crate) declarer_won: CardSet,
    pub(crate) declarer_tricks: u8,
}

/// Scores a finished deal (called by [`crate::Deal::outcome`]).
pub(crate) fn outcome(deal: &Played, end: DealEnd) -> Outcome {
    let (Some(declarer), Some(contract)) = (deal.declarer, deal.contract) else {
        return match end {
            DealEnd::Forfeit { position, reason } => Outcome::Penalty(Penalty {
                offender: position,
                reason,
                value: deal.bid.map_or(18, Bid::value),
            }),
            _ => Outcome::PassedIn,
        };
    };
    let bid = deal.bid.unwrap_or(Bid::MIN);
    let hand = deal.hand;
    let points = (deal.declarer_won | deal.skat).points() as u8;
    let tricks = deal.declarer_tricks;
    let declarer_gave_up = match end {
        DealEnd::DeclarerResigned => true,
        DealEnd::Forfeit { position, .. } => position == declarer,
        _ => false,
    };
    let base = GameResult {
        declarer,
        contract,
        hand,
        bid,
        matadors: 0,
        multiplier: 0,
        value: 0,
        declarer_points: points,
        declarer_tricks: tricks,
        schneider: false,
        schwarz: false,
        overbid: false,
        won: false,
        end,
    };

    if let Some(value) = contract.null_value(hand) {
        // The declarer's null value was checked against the bid at the declaration.
        return Outcome::Game(GameResult { value, won: tricks == 0 && !declarer_gave_up, ..base });
    }

    let matadors = contract.game.matadors(deal.matador_cards);
    let v = valuation(contract, hand, matadors, bid, points, tricks);
    Outcome::Game(GameResult {
        matadors,
        multiplier: v.multiplier,
        value: v.value,
        schneider: v.schneider,
        schwarz: v.schwarz,
        overbid: v.overbid,
        won: v.won,
        ..base
    })
}

/// The value side of a suit game or grand result.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Valuation {
    /// Matadors + game + levels.
    pub multiplier: u8,
    /// Base × multiplier, or the overbid value.
    pub value: u16,
    /// A side has 90+ card points.
    pub schneider: bool,
    /// A side took every trick.
    pub schwarz: bool,
    /// The value fell short of the bid.
    pub overbid: bool,
    /// The declarer won.
    pub won: bool,
}

/// Values a suit game or grand from the declarer's card points (skat included) and
/// tricks. The pure core of scoring, kept apart so every corner is testable directly.
pub fn valuation(
    contract: Contract,
    hand: bool,
    matadors: i8,
    bid: Bid,
    points: u8,
    tricks: u8,
) -> Valuation {
    let schneider = points >= 90 || points <= 30;
    // Schwarz is counted by tricks, never by points: a trick of 7, 8 and 9 saves it.
    let schwarz = tricks == 10 || tricks == 0;
    let levels = [
        hand,
        schneider || contract.schneider_announced(),
        contract.schneider_announced(),
        schwarz || contract.schwarz_announced(),
        contract.schwarz_announced(),
        contract.ouvert(),
    ];
    let multiplier = matadors.unsigned_abs() + 1 + levels.iter().filter(|l| **l).count() as u8;
    let base_value = contract.game.base_value();
    let mut value = base_value * u16::from(multiplier);
    let made = if contract.schwarz_announced() {
        tricks == 10
    } else if contract.schneider_announced() {
        points >= 90
    } else {
        points >= 61
    };
    let overbid = value < bid.value();
    if overbid {
        // ISkO: the lowest multiple of the base value that reaches the bid.
        value = bid.value().div_ceil(base_value) * base_value;
    }
    Valuation { multiplier, value, schneider, schwarz, overbid, won: made && !overbid }
}
