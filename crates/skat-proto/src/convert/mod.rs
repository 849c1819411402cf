//! Conversions between `skat.v1` protobuf messages and engine types: the only place
//! where the two meet.
//!
//! Outbound (engine → protobuf) conversions cannot fail. Inbound ones return
//! [`ConvertError`], which the server answers with `INVALID_ARGUMENT`: an unknown card,
//! a game type left unspecified, a bid that is not on the ladder. Refusals of the rules
//! get their contract reason here too ([`rule_reason`], [`match_reason`]).

use skat_engine::events::EventView;
use skat_engine::matches::{MatchError, Seat, SeatStanding};
use skat_engine::view::TrickView;
use skat_engine::{
    Action, Announcement, AuctionCall, Bid, Call, Card, CardSet, Contract, DealEnd, Dealt, Declaration,
    Facts, ForfeitReason, GameResult, GameType, LegalActions, Outcome, Penalty, Phase, Position, RuleError,
    Trick, View,
};

use crate::pb;

mod deals;
mod events;
mod values;

pub use deals::*;
pub use events::*;
pub use values::*;

/// A request field that does not describe a valid engine value: why (a stable
/// [`pb::ErrorReason`]) and a message for people.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConvertError {
    /// Which field was wrong, as the contract names it.
    pub reason: pb::ErrorReason,
    /// What was wrong.
    pub message: String,
}

impl std::fmt::Display for ConvertError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for ConvertError {}

fn bad<T>(reason: pb::ErrorReason, msg: impl Into<String>) -> Result<T, ConvertError> {
    Err(ConvertError { reason, message: msg.into() })
}

/// The stable reason of a refusal by the rules, and the facts a client may branch on
/// (public ones only: never a card).
pub fn rule_reason(e: &RuleError) -> (pb::ErrorReason, Vec<(&'static str, String)>) {
    use pb::ErrorReason as R;
    match e {
        RuleError::DealOver => (R::DealOver, vec![]),
        RuleError::NotYourTurn { to_move, .. } => (R::NotYourTurn, vec![("to_move", to_move.to_string())]),
        RuleError::WrongPhase { phase, .. } => (R::WrongPhase, vec![("phase", phase.to_string())]),
        RuleError::BidTooLow { min } => (R::BidTooLow, vec![("min_bid", min.value().to_string())]),
        RuleError::NoHigherBid => (R::NoHigherBid, vec![]),
        RuleError::MustAnswer { bid } => (R::MustAnswer, vec![("bid", bid.value().to_string())]),
        RuleError::NothingToHold => (R::NothingToHold, vec![]),
        RuleError::NotDeclarer { .. } => (R::NotDeclarer, vec![]),
        RuleError::DiscardCount => (R::InvalidDiscard, vec![]),
        RuleError::NotInHand { .. } => (R::NotInHand, vec![]),
        RuleError::AnnouncementNeedsHand => (R::AnnouncementNeedsHand, vec![]),
        RuleError::NullAnnouncement => (R::NullAnnouncement, vec![]),
        RuleError::NullBelowBid { bid, .. } => (R::NullBelowBid, vec![("bid", bid.value().to_string())]),
        RuleError::MustFollowSuit { led } => (R::MustFollowSuit, vec![("led", (*led).to_string())]),
        RuleError::AlreadyResigned => (R::AlreadyResigned, vec![]),
        RuleError::AlreadyClaimed => (R::AlreadyClaimed, vec![]),
    }
}

/// The stable reason of a refusal by the match (a rule, or the match's frame).
pub fn match_reason(e: &MatchError) -> (pb::ErrorReason, Vec<(&'static str, String)>) {
    use pb::ErrorReason as R;
    match e {
        MatchError::Rule(r) => rule_reason(r),
        MatchError::Seats(_) | MatchError::NoDeals => (R::InvalidSettings, vec![]),
        MatchError::UnknownSeat(_) => (R::InvalidSeat, vec![]),
        MatchError::SittingOut(_) => (R::SittingOut, vec![]),
        MatchError::MatchOver => (R::TableFinished, vec![]),
    }
}

/// The reason's name as it travels in `ErrorInfo.reason` (`NOT_YOUR_TURN`).
pub fn reason_name(r: pb::ErrorReason) -> &'static str {
    let name = r.as_str_name();
    name.strip_prefix("ERROR_REASON_").unwrap_or(name)
}

/// `ErrorInfo.domain` of the server's refusals.
pub const ERROR_DOMAIN: &str = "skat.v1";

/// The contract reason a refused call carries in its `google.rpc.ErrorInfo` detail, if
/// any (clients branch on this, never on the message).
pub fn status_reason(status: &tonic::Status) -> Option<pb::ErrorReason> {
    use tonic_types::StatusExt;
    let info = status.get_error_details().error_info()?.clone();
    if info.domain != ERROR_DOMAIN {
        return None;
    }
    reason_from_name(&info.reason)
}

/// The reason an `ErrorInfo.reason` names, if it is one of the contract's.
pub fn reason_from_name(name: &str) -> Option<pb::ErrorReason> {
    pb::ErrorReason::from_str_name(&format!("ERROR_REASON_{name}"))
        .filter(|r| *r != pb::ErrorReason::Unspecified)
}

// ----- cards ------------------------------------------------------------------------

#[cfg(test)]
mod tests {
    use super::*;

    /// A field left out says what to put there, not "0 is not ...".
    #[test]
    fn a_missing_game_or_bid_value_says_what_to_send() {
        let e = declare_action(0, 0).unwrap_err();
        assert_eq!(e.reason, pb::ErrorReason::InvalidGame);
        assert!(
            e.message.starts_with("no game given") && e.message.contains("legal.contracts"),
            "{}",
            e.message
        );
        let e = bid_action(pb::BidCall::Say as i32, 0).unwrap_err();
        assert_eq!(e.reason, pb::ErrorReason::InvalidBid);
        assert!(e.message.contains("needs a `value`") && e.message.contains("18, 20, 22"), "{}", e.message);
        let e = bid_action(pb::BidCall::Say as i32, 19).unwrap_err();
        assert!(e.message.starts_with("19 is not on the bid ladder"), "{}", e.message);
    }

    #[test]
    fn every_card_round_trips_and_matches_the_proto_names() {
        for c in Card::all() {
            assert_eq!(card_from(card(c)), Ok(c));
            let name = pb::Card::try_from(card(c)).unwrap().as_str_name().to_string();
            assert_eq!(name, format!("CARD_{c}"));
        }
        assert!(card_from(0).is_err());
        assert!(card_from(33).is_err());
        assert!(card_from(-5).is_err());
        assert!(cards_from(&[1, 1]).is_err());
    }

    #[test]
    fn requests_convert_or_explain() {
        assert!(bid_action(pb::BidCall::Say as i32, 19).is_err());
        assert!(bid_action(pb::BidCall::Say as i32, 70000).is_err());
        assert_eq!(bid_action(pb::BidCall::Say as i32, 18), Ok(Action::Bid { value: Bid::MIN }));
        assert!(bid_action(0, 18).is_err());
        assert!(declare_action(0, 0).is_err());
        assert!(declare_action(game_type(GameType::Grand), 9).is_err());
        assert!(discard_action(&[1]).is_err());
        assert!(discard_action(&[1, 2]).is_ok());
        for p in Position::ALL {
            assert_eq!(position_from(position(p)), Some(p));
        }
    }
}
