//! What the auction says about the cards a seat cannot see: a weight for each of PIMC's
//! sampled worlds.
//!
//! Voids and played cards rule worlds out; the auction only makes them more or less
//! likely. A declarer who bid 40 and plays clubs probably holds the jacks that make clubs
//! worth 40; a player who passed at 18 probably holds no game. PIMC draws more worlds than
//! it solves and keeps them in proportion to these weights (soft evidence: nothing is ruled
//! out, since the other bots may bid by another rule, or at random).
//!
//! Every judgement is the fitted hand model's ([`crate::hand_model`]): how a good player
//! who bids by expected score would see those ten cards.
//!
//! | player (not me) | what it showed | weight of a world's cards for it |
//! |---|---|---|
//! | the declarer | its game, after the skat or from hand | the model's chance of winning that game with the ten it kept, squashed around the break-even 60%; times [`OVERBID`] when the game with its matadors is not worth the bid |
//! | bid or held V | a game worth V | the chance of its best game worth V or more, squashed |
//! | passed at V | no game worth V | one less that |
//!
//! Each factor is at least [`FLOOR`], so a world the auction makes unlikely still turns
//! up now and then.

use skat_bot_api::Knowledge;
use skat_engine::auction::Call;
use skat_engine::{Bid, CardSet, Contract, GameType, Position};

use crate::hand_model::{Moment, win_chance};
use crate::heuristic::value;

/// The smallest factor one player's evidence gives a world.
pub const FLOOR: f64 = 0.05;
/// The factor for a declarer's cards whose game would not be worth the bid.
pub const OVERBID: f64 = 0.2;

/// What the auction and the declaration showed of each player.
#[derive(Debug, Clone, Default)]
pub struct Auction {
    /// The highest value each position bid or held (0: none).
    said: [u16; 3],
    /// The value each position would not go to, when it passed.
    refused: [Option<u16>; 3],
    /// The declarer, its game, the final bid, and whether it played from hand.
    declarer: Option<(Position, GameType, u16, bool)>,
}

impl Auction {
    /// What `k`'s auction and declaration showed.
    pub fn of(k: &Knowledge) -> Auction {
        let mut a = Auction::default();
        let mut high = 0u16;
        for call in &k.auction {
            let p = call.position.index();
            match call.call {
                Call::Bid { value } => {
                    high = value.value();
                    a.said[p] = a.said[p].max(high);
                }
                Call::Hold => a.said[p] = a.said[p].max(high),
                Call::Pass => {
                    // Passing a value someone else said refuses that value; passing after
                    // saying or holding the highest refuses the next one.
                    let refused = if high == 0 {
                        Some(Bid::MIN.value())
                    } else if a.said[p] >= high {
                        Bid::new(high).and_then(Bid::next).map(Bid::value)
                    } else {
                        Some(high)
                    };
                    a.refused[p] = refused;
                }
            }
        }
        if let (Some(d), Some(Contract { game, .. })) = (k.declarer, k.contract) {
            a.declarer = Some((d, game, k.bid.map_or(18, Bid::value), k.hand_game));
        }
        a
    }

    /// An auction from its parts: what each position said, what it refused, and the
    /// declarer with its game and the bid (after picking up).
    #[cfg(test)]
    pub(crate) fn for_test(
        said: [u16; 3],
        refused: [Option<u16>; 3],
        declarer: (Position, GameType, u16),
    ) -> Auction {
        let (d, game, bid) = declarer;
        Auction { said, refused, declarer: Some((d, game, bid, false)) }
    }

    /// How well a world fits: the product over the positions whose cards this seat does
    /// not know. `ten[p]` are the cards position `p` held in the auction in that world
    /// (for the declarer: the ten it kept, or its ten from hand), `away` what the declarer
    /// put away in it.
    pub fn weight(&self, unknown: &[usize], ten: [CardSet; 3], away: CardSet) -> f64 {
        let mut w = 1.0;
        for &p in unknown {
            let forehand = p == Position::Forehand.index();
            match self.declarer {
                Some((d, game, bid, hand_game)) if d.index() == p => {
                    let chance = if hand_game {
                        win_chance(ten[p], game, forehand, 0, Moment::Auction)
                    } else {
                        win_chance(ten[p], game, forehand, away.points(), Moment::Declaration)
                    };
                    w *= soft(chance);
                    if !game.is_null() && value(ten[p] | away, game) < bid {
                        w *= OVERBID;
                    }
                }
                _ => {
                    if self.said[p] > 0 {
                        w *= soft(best_chance(ten[p], forehand, self.said[p]));
                    }
                    if let Some(r) = self.refused[p] {
                        w *= FLOOR + (1.0 - FLOOR) * (1.0 - soft_raw(best_chance(ten[p], forehand, r)));
                    }
                }
            }
        }
        w
    }
}

/// The model's chance of winning the best game worth at least `level` with `ten` (0:
/// none is worth it).
fn best_chance(ten: CardSet, forehand: bool, level: u16) -> f64 {
    GameType::ALL
        .into_iter()
        .filter(|g| value(ten, *g) >= level)
        .map(|g| win_chance(ten, g, forehand, 0, Moment::Auction))
        .fold(0.0, f64::max)
}

/// A chance of winning turned into how likely a good player is to have declared or bid
/// on it: about even at the break-even 60%, near 1 at 90%, near 0 at 30%.
fn soft_raw(chance: f64) -> f64 {
    1.0 / (1.0 + (-(chance - 0.6) / 0.1).exp())
}

/// [`soft_raw`], never below [`FLOOR`].
fn soft(chance: f64) -> f64 {
    FLOOR + (1.0 - FLOOR) * soft_raw(chance)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cards(s: &str) -> CardSet {
        s.parse().expect("cards")
    }

    #[test]
    fn a_declarer_of_clubs_at_forty_is_thought_to_hold_jacks() {
        // Middlehand declared clubs at 40 after picking up: worlds where it holds the top
        // jacks weigh much more than worlds where it holds none.
        let a = Auction {
            said: [0, 40, 0],
            refused: [Some(40), None, Some(18)],
            declarer: Some((Position::Middlehand, GameType::Clubs, 40, false)),
        };
        let strong = cards("CJ.SJ.HJ.CA.CT.CK.C9.C8.SA.HA");
        let weak = cards("DJ.C7.CQ.C9.C8.S7.S8.H7.H8.D9");
        let mut ten = [CardSet::EMPTY; 3];
        ten[1] = strong;
        let w_strong = a.weight(&[1], ten, cards("D7.D8"));
        ten[1] = weak;
        let w_weak = a.weight(&[1], ten, cards("D7.D8"));
        assert!(w_strong > 10.0 * w_weak, "strong {w_strong}, weak {w_weak}");
        assert!(w_weak >= FLOOR * FLOOR * OVERBID * 0.99, "never ruled out: {w_weak}");
    }

    #[test]
    fn a_player_who_passed_at_eighteen_is_thought_to_hold_no_game() {
        let a = Auction { said: [0; 3], refused: [Some(18), None, None], declarer: None };
        let mut ten = [CardSet::EMPTY; 3];
        ten[0] = cards("CJ.SJ.HJ.DJ.CA.CT.SA.ST.HA.HT");
        let w_grand = a.weight(&[0], ten, CardSet::EMPTY);
        ten[0] = cards("C7.C8.S7.S9.H8.HQ.D7.D8.DQ.DK");
        let w_nothing = a.weight(&[0], ten, CardSet::EMPTY);
        assert!(w_nothing > 5.0 * w_grand, "nothing {w_nothing}, grand {w_grand}");
    }
}
