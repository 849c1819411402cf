//! How likely a hand is to win a game: the `heuristic` bot's estimate for bidding and
//! for choosing its game, a logistic model on a few counts a club player looks at.
//!
//! The weights are fitted to simulated outcomes, not set by hand: the example
//! `fit_heuristic` deals many hands, has each seat declare each game (bidding 18, so
//! never overbid) with the heuristic's own discard and card play at all three seats, and
//! fits one model per family (suit games, grand, null) and moment (before the skat, from
//! the ten cards dealt; after it, from the ten kept and the points put away):
//!
//! ```text
//! cargo run --release -p skat-bots --example fit_heuristic -- --deals 20000
//! ```
//!
//! It prints the tables below. Playouts are by the heuristic itself, so the estimate is
//! "how often does this bot win this game with this hand", which is what it must bid by.

use skat_engine::{Card, CardSet, GameType, Rank, Suit};

/// How many numbers describe a hand ([`features`]).
pub const FEATURES: usize = 12;

/// The weights of one model.
pub type Weights = [f64; FEATURES];

/// When the estimate is made.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Moment {
    /// In the auction: the ten cards dealt, the skat unseen.
    Auction,
    /// After picking up and putting two away: the ten kept, the points put away known.
    Declaration,
}

/// Which model a game uses: 0 suit games, 1 grand, 2 null.
pub fn family(game: GameType) -> usize {
    match game {
        GameType::Grand => 1,
        GameType::Null => 2,
        _ => 0,
    }
}

/// The model for `game` at `moment`.
pub fn weights(game: GameType, moment: Moment) -> &'static Weights {
    let i = family(game);
    match moment {
        Moment::Auction => &AUCTION[i],
        Moment::Declaration => &DECLARATION[i],
    }
}

/// The chance that the declarer wins `game` with `hand` (ten cards), from forehand or
/// not, with `away` points already put away (0 in the auction).
pub fn win_chance(hand: CardSet, game: GameType, forehand: bool, away: u32, moment: Moment) -> f64 {
    let x = features(hand, game, forehand, away);
    let z: f64 = weights(game, moment).iter().zip(x).map(|(w, x)| w * x).sum();
    1.0 / (1.0 + (-z).exp())
}

/// The counts the model weighs (the first is the constant 1).
///
/// Suit games and grand: trumps, jacks, the two top jacks, side aces, side tens with
/// their ace, side tens without, void side suits, low side cards (not an ace, not a ten
/// with its ace), forehand, points put away / 10. Null: suits with a card that can be
/// forced to take a trick, queens-kings-aces, voids, sevens, the longest suit, forehand.
pub fn features(hand: CardSet, game: GameType, forehand: bool, away: u32) -> [f64; FEATURES] {
    let mut x = [0.0; FEATURES];
    x[0] = 1.0;
    let f = |b: bool| if b { 1.0 } else { 0.0 };
    if game.is_null() {
        let mut longest = 0;
        for s in Suit::ALL {
            let suit = hand & CardSet::suit(s);
            x[3] += f(suit.is_empty());
            longest = longest.max(suit.len());
        }
        x[1] = f64::from(null_risk(hand));
        x[2] = hand.iter().filter(|c| c.rank().null_order() >= Rank::Queen.null_order()).count() as f64;
        x[4] = (hand & CardSet::rank(Rank::Seven)).len() as f64;
        x[5] = f64::from(longest);
        x[6] = f(forehand);
        return x;
    }
    x[1] = (hand & game.trumps()).len() as f64;
    x[2] = (hand & CardSet::JACKS).len() as f64;
    x[3] = f(hand.contains(Card::new(Suit::Clubs, Rank::Jack)));
    x[4] = f(hand.contains(Card::new(Suit::Spades, Rank::Jack)));
    for s in Suit::ALL.into_iter().filter(|s| game.trump_suit() != Some(*s)) {
        let side = hand & CardSet::suit_without_jack(s);
        let ace = side.contains(Card::new(s, Rank::Ace));
        let ten = side.contains(Card::new(s, Rank::Ten));
        x[5] += f(ace);
        x[6] += f(ace && ten);
        x[7] += f(ten && !ace);
        x[8] += f(side.is_empty());
        x[9] += side.len() as f64 - f(ace) - f(ace && ten);
    }
    x[10] = f(forehand);
    x[11] = f64::from(away) / 10.0;
    x
}

/// How many suits of a null hand have a card that can be forced to take a trick: the
/// k-th lowest card (from 0) must be at most the 2k-th lowest rank (7, 9, J, K).
pub fn null_risk(hand: CardSet) -> u32 {
    let mut risky = 0;
    for s in Suit::ALL {
        // The suit's null orders as bits (no allocation: the chooser asks this of every
        // discard a null has), read from the lowest up.
        let orders = (hand & CardSet::suit(s)).iter().fold(0u8, |m, c| m | 1 << c.rank().null_order());
        let forced = (0..8u32).filter(|o| orders & 1 << o != 0).enumerate().any(|(k, o)| o as usize > 2 * k);
        risky += u32::from(forced);
    }
    risky
}

// Fitted by `fit_heuristic` (see the module header): suit games, grand, null.
include!("hand_model_weights.rs");
