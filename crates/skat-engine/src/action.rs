//! What a player (or the table, for a forfeit) can do in a deal, and the typed errors for
//! what the rules do not allow.

use std::fmt;

use serde::{Deserialize, Serialize};

use crate::bid::Bid;
use crate::card::Card;
use crate::cards::CardSet;
use crate::contract::Contract;
use crate::position::Position;

/// One move in a deal. Applied with [`Deal::apply`](crate::Deal::apply), which checks it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(tag = "action", rename_all = "snake_case")]
pub enum Action {
    /// Say a value (any ladder value above the current bid; jumps allowed).
    Bid {
        /// The value said.
        value: Bid,
    },
    /// Accept the value just said ("yes").
    Hold,
    /// Leave the auction.
    Pass,
    /// The declarer takes the two skat cards into the hand.
    PickUpSkat,
    /// The declarer leaves the skat face down and plays hand.
    PlayHand,
    /// After picking up: put exactly two cards away.
    Discard {
        /// The two cards.
        cards: CardSet,
    },
    /// Name the game and its announcements.
    Declare {
        /// The contract.
        contract: Contract,
    },
    /// Play a card to the current trick.
    Play {
        /// The card.
        card: Card,
    },
    /// The declarer shows the hand and claims the remaining tricks; the defenders concede
    /// by resigning. Play continues until they do.
    Claim,
    /// Give up the remaining tricks. The declarer's resignation ends the deal at once; the
    /// defenders' ends it when both have resigned (ISS `RE`).
    Resign,
    /// The table ends the deal for a seat that ran out of time or left (ISS `TI`, `LE`).
    /// Its side gives up; before the game is declared this is a penalty.
    Forfeit {
        /// Why.
        reason: ForfeitReason,
    },
}

/// Why a seat forfeits.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ForfeitReason {
    /// Ran out of time (ISS `TI`).
    Timeout,
    /// Left the table (ISS `LE`).
    Left,
}

impl Action {
    /// Short lower-case name, for messages and metrics labels.
    pub const fn name(self) -> &'static str {
        match self {
            Action::Bid { .. } => "bid",
            Action::Hold => "hold",
            Action::Pass => "pass",
            Action::PickUpSkat => "pick up the skat",
            Action::PlayHand => "play hand",
            Action::Discard { .. } => "discard",
            Action::Declare { .. } => "declare",
            Action::Play { .. } => "play a card",
            Action::Claim => "claim",
            Action::Resign => "resign",
            Action::Forfeit { .. } => "forfeit",
        }
    }
}

/// The phases of a deal, in order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Phase {
    /// The auction.
    Bidding,
    /// The declarer decides: pick up the skat or play hand.
    SkatDecision,
    /// The declarer, holding 12 cards, puts two away.
    Discarding,
    /// The declarer names the game.
    Declaring,
    /// Tricks.
    Playing,
    /// Over: passed in, played out, or ended early.
    Finished,
}

impl fmt::Display for Phase {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Phase::Bidding => "bidding",
            Phase::SkatDecision => "skat decision",
            Phase::Discarding => "discarding",
            Phase::Declaring => "declaring",
            Phase::Playing => "playing",
            Phase::Finished => "finished",
        })
    }
}

/// Why an action was refused. The message names the rule; it never names a card the
/// acting player does not already know (only cards the player itself named, or public
/// facts such as the led suit).
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum RuleError {
    /// The deal is over.
    #[error("the deal is over")]
    DealOver,
    /// Another position must act now.
    #[error("not your turn: {to_move} is to {expected}")]
    NotYourTurn {
        /// Who is to act.
        to_move: Position,
        /// What they are expected to do.
        expected: &'static str,
    },
    /// This action does not belong to the current phase.
    #[error("cannot {action} now: the deal is in the {phase} phase")]
    WrongPhase {
        /// The action tried.
        action: &'static str,
        /// The current phase.
        phase: Phase,
    },
    /// A bid must be higher than the current one.
    #[error("a bid must be at least {min} (above the current bid)")]
    BidTooLow {
        /// The lowest bid allowed now.
        min: Bid,
    },
    /// 264 has been said: only pass remains.
    #[error("nothing can be bid above 264: pass")]
    NoHigherBid,
    /// The player is being asked to answer a bid (hold or pass), not to say one.
    #[error("a bid of {bid} is waiting for your answer: hold or pass")]
    MustAnswer {
        /// The bid to answer.
        bid: Bid,
    },
    /// Hold is only an answer to a bid just said.
    #[error("there is no bid for you to hold: say a value or pass")]
    NothingToHold,
    /// Only the declarer may do this.
    #[error("only the declarer may {action}")]
    NotDeclarer {
        /// The action tried.
        action: &'static str,
    },
    /// A discard must be exactly two different cards.
    #[error("discard exactly two different cards")]
    DiscardCount,
    /// The named card is not in the player's hand.
    #[error("{card} is not in your hand")]
    NotInHand {
        /// The card named by the player.
        card: Card,
    },
    /// Schneider, schwarz and ouvert announcements in suit and grand need a hand game.
    #[error(
        "schneider, schwarz and ouvert can be announced in a suit game or grand only when playing hand (the skat was picked up)"
    )]
    AnnouncementNeedsHand,
    /// Null has no schneider or schwarz.
    #[error("a null game cannot announce schneider or schwarz (only ouvert)")]
    NullAnnouncement,
    /// A null game worth less than the bid is refused.
    #[error("{value} for this null game is less than the bid of {bid}: declare a game that can reach it")]
    NullBelowBid {
        /// The null game's value.
        value: u16,
        /// The bid.
        bid: Bid,
    },
    /// The card does not follow the led suit though the hand can.
    #[error("you must follow suit: {led} was led and you hold {led}")]
    MustFollowSuit {
        /// What was led: a suit name or "trump".
        led: &'static str,
    },
    /// A defender can resign once per deal.
    #[error("you have already resigned")]
    AlreadyResigned,
    /// The declarer can claim once per deal.
    #[error("the declarer has already claimed")]
    AlreadyClaimed,
}
