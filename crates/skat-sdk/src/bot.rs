//! The [`Bot`] trait: one method per decision, each given what the seat knows.

use std::future::Future;

use skat_engine::{Action, Bid, Card, CardSet, Contract};

use crate::Knowledge;

/// A Skat player. Implement the six decisions; the SDK calls the right one when it is the
/// seat's turn, checks the answer against the legal actions, and sends it.
///
/// The methods are async so a bot may think (search, call out to a model) within its
/// clock; a plain computation just returns its answer. Each answer should be one of
/// `k.legal`'s actions; if it is not, the SDK logs a warning and plays the first legal
/// action instead, so a buggy bot loses points rather than the connection.
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
}

/// Asks `bot` for the decision `k` calls for and returns it as a legal action (`None`
/// when the seat has no turn).
pub async fn decide<B: Bot>(bot: &mut B, k: &Knowledge) -> Option<Action> {
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
    if legal.allows(wanted) {
        return Some(wanted);
    }
    tracing::warn!(?wanted, "the bot chose an illegal action; playing the first legal one instead");
    first_legal(k)
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
