//! # skat-bot-api
//!
//! The decision API that bots, the SDK, the arena and the server share, with no I/O: the
//! [`Bot`] trait (one method per decision, each given what the seat knows), [`Knowledge`]
//! (the engine's `SeatView`), and how a bot's answer becomes a legal action ([`decide`],
//! [`ask`], [`first_legal`]). A bot written against this crate plays in process (the
//! arena), over gRPC (the SDK) and as a house bot, unchanged.
//!
//! # Examples
//!
//! ```
//! use skat_bot_api::{Bot, Knowledge, first_legal};
//! use skat_engine::{Bid, Card, Contract};
//!
//! /// Passes, and otherwise takes the first legal choice.
//! struct Meek;
//!
//! impl Bot for Meek {
//!     async fn bid(&mut self, _: &Knowledge) -> Option<Bid> { None }
//!     async fn answer(&mut self, _: &Knowledge, _: Bid) -> bool { false }
//!     async fn take_skat(&mut self, _: &Knowledge) -> bool { true }
//!     async fn discard(&mut self, k: &Knowledge) -> [Card; 2] {
//!         let mut cards = k.legal.discard_from.iter();
//!         [cards.next().unwrap(), cards.next().unwrap()]
//!     }
//!     async fn declare(&mut self, k: &Knowledge) -> Contract { k.legal.contracts[0] }
//!     async fn play(&mut self, k: &Knowledge) -> Card { k.legal.cards.first().unwrap() }
//! }
//!
//! // Before the first deal a seat has nothing to decide.
//! let k = Knowledge::new(None);
//! assert_eq!(first_legal(&k), None);
//! ```

use std::future::Future;

use skat_engine::{Action, Bid, Card, CardSet, Contract};

/// What a seat knows when it must decide: the engine's [`skat_engine::SeatView`], folded
/// from the seat's stream of events (the SDK) or from the engine's events (the arena), so
/// a bot sees the same thing everywhere. Its fields are the deal view's (`hand`, `legal`,
/// `auction`, `tricks`, `current_trick`, `contract`...), and it answers `position()`,
/// `game()`, `is_declarer()`, `played()`, `cards_out()`, `cannot_hold()` and `same_side()`.
pub type Knowledge = skat_engine::SeatView;

/// A Skat player. Implement the six decisions; the SDK calls the right one when it is the
/// seat's turn, checks the answer against the legal actions, and sends it.
///
/// The methods are async so a bot may think (search, call out to a model) within its
/// clock; a plain computation just returns its answer. Each answer should be one of
/// `k.legal`'s actions; if it is not (or the server refuses it), the SDK logs a warning
/// (`illegal action refused`, with the decision, the legal set and the reason) and does
/// what the player's policy says (the SDK's `OnIllegal`): by default it plays the first legal action, so a
/// buggy bot loses points rather than its seat.
pub trait Bot: Send {
    /// Say a value (at least `k.legal.bid_from`) or pass (`None`).
    fn bid(&mut self, k: &Knowledge) -> impl Future<Output = Option<Bid>> + Send;
    /// Hold (`true`) or pass the value just said to you.
    fn answer(&mut self, k: &Knowledge, bid: Bid) -> impl Future<Output = bool> + Send;
    /// Pick up the skat (`true`) or play hand.
    fn take_skat(&mut self, k: &Knowledge) -> impl Future<Output = bool> + Send;
    /// Two cards of `k.hand` (12 cards now) to put away.
    fn discard(&mut self, k: &Knowledge) -> impl Future<Output = [Card; 2]> + Send;
    /// One of `k.legal.contracts`.
    fn declare(&mut self, k: &Knowledge) -> impl Future<Output = Contract> + Send;
    /// One of `k.legal.cards`.
    fn play(&mut self, k: &Knowledge) -> impl Future<Output = Card> + Send;
    /// A comment on the decision just made (at most 280 characters), sent with it and
    /// shown to everybody once the deal has ended (the replay, the records): why the bot
    /// did what it did. None by default.
    fn comment(&mut self, _k: &Knowledge) -> Option<String> {
        None
    }
}

/// Asks `bot` for the decision `k` calls for and returns it as a legal action (`None`
/// when the seat has no turn): an illegal answer is logged and replaced by
/// [`first_legal`].
pub async fn decide<B: Bot>(bot: &mut B, k: &Knowledge) -> Option<Action> {
    let wanted = ask(bot, k).await?;
    if k.legal.allows(wanted) {
        return Some(wanted);
    }
    tracing::warn!(
        decision = %describe_action(wanted),
        legal = %describe_legal(&k.legal),
        reason = "NOT_LEGAL",
        then = "playing the first legal action (fallback)",
        "illegal action refused"
    );
    first_legal(k)
}

/// Asks `bot` for the decision `k` calls for, as it answered (legal or not; `None` when
/// the seat has no turn).
pub async fn ask<B: Bot>(bot: &mut B, k: &Knowledge) -> Option<Action> {
    let legal = &k.legal;
    let wanted = if !legal.cards.is_empty() {
        Action::Play { card: bot.play(k).await }
    } else if !legal.discard_from.is_empty() {
        let [a, b] = bot.discard(k).await;
        Action::Discard { cards: CardSet::single(a).with(b) }
    } else if !legal.contracts.is_empty() {
        Action::Declare { contract: bot.declare(k).await }
    } else if legal.pick_up_skat || legal.play_hand {
        if bot.take_skat(k).await { Action::PickUpSkat } else { Action::PlayHand }
    } else if legal.hold {
        let bid = k.bid.unwrap_or(Bid::MIN);
        if bot.answer(k, bid).await { Action::Hold } else { Action::Pass }
    } else if legal.bid_from.is_some() || legal.pass {
        match bot.bid(k).await {
            Some(value) => Action::Bid { value },
            None => Action::Pass,
        }
    } else {
        return None;
    };
    Some(wanted)
}

/// An action in words, for logs (`bid 19`, `play CJ`, `declare grand hand`).
pub fn describe_action(a: Action) -> String {
    match a {
        Action::Bid { value } => format!("bid {value}"),
        Action::Hold => "hold".into(),
        Action::Pass => "pass".into(),
        Action::PickUpSkat => "pick up the skat".into(),
        Action::PlayHand => "play hand".into(),
        Action::Discard { cards } => format!("discard {cards}"),
        Action::Declare { contract } => format!("declare {contract}"),
        Action::Play { card } => format!("play {card}"),
        Action::Claim => "claim".into(),
        Action::Resign => "resign".into(),
        Action::Forfeit { .. } => "forfeit".into(),
    }
}

/// The legal set in words, for logs (`bid 20..264 | pass`, `play CJ SA S9`).
pub fn describe_legal(l: &skat_engine::LegalActions) -> String {
    let mut parts = Vec::new();
    if let Some(from) = l.bid_from {
        parts.push(format!("bid {from}..264"));
    }
    if l.hold {
        parts.push("hold".to_string());
    }
    if l.pass {
        parts.push("pass".to_string());
    }
    if l.pick_up_skat {
        parts.push("pick up the skat".to_string());
    }
    if l.play_hand {
        parts.push("play hand".to_string());
    }
    if !l.discard_from.is_empty() {
        parts.push(format!("discard 2 of {}", l.discard_from));
    }
    if !l.contracts.is_empty() {
        parts.push(format!("declare one of {} contracts", l.contracts.len()));
    }
    if !l.cards.is_empty() {
        parts.push(format!("play {}", l.cards));
    }
    if l.resign {
        parts.push("resign".to_string());
    }
    if parts.is_empty() { "nothing".to_string() } else { parts.join(" | ") }
}

/// The first legal action in a fixed order (pass, lowest card, first contract...).
pub fn first_legal(k: &Knowledge) -> Option<Action> {
    let l = &k.legal;
    if let Some(card) = l.cards.first() {
        return Some(Action::Play { card });
    }
    if let (Some(a), Some(b)) = (l.discard_from.nth(0), l.discard_from.nth(1)) {
        return Some(Action::Discard { cards: CardSet::single(a).with(b) });
    }
    if let Some(c) = l.contracts.first() {
        return Some(Action::Declare { contract: *c });
    }
    if l.pick_up_skat {
        return Some(Action::PickUpSkat);
    }
    if l.pass {
        return Some(Action::Pass);
    }
    None
}
