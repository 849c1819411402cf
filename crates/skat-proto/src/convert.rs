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

/// A card as its protobuf enum number (1 + engine index).
pub fn card(c: Card) -> i32 {
    i32::from(c.index()) + 1
}

/// Cards in index order.
pub fn cards(set: CardSet) -> Vec<i32> {
    set.iter().map(card).collect()
}

/// A protobuf card number to a card.
pub fn card_from(v: i32) -> Result<Card, ConvertError> {
    match u8::try_from(v - 1).ok().and_then(Card::from_index) {
        Some(c) if v >= 1 => Ok(c),
        _ => {
            bad(pb::ErrorReason::InvalidCard, format!("{v} is not a card (the Card enum runs from 1 to 32)"))
        }
    }
}

/// Protobuf card numbers to a set; a card named twice is refused.
pub fn cards_from(v: &[i32]) -> Result<CardSet, ConvertError> {
    let mut set = CardSet::EMPTY;
    for c in v {
        let c = card_from(*c)?;
        if set.contains(c) {
            return bad(pb::ErrorReason::DuplicateCard, format!("{c} is named twice"));
        }
        set.insert(c);
    }
    Ok(set)
}

// ----- small enums -----------------------------------------------------------------

/// A position as its protobuf enum number.
pub fn position(p: Position) -> i32 {
    p.index() as i32 + 1
}

/// An optional position (unspecified when absent).
pub fn position_opt(p: Option<Position>) -> i32 {
    p.map_or(pb::Position::Unspecified as i32, position)
}

/// A protobuf position to a position (`None` for unspecified or unknown).
pub fn position_from(v: i32) -> Option<Position> {
    usize::try_from(v - 1).ok().and_then(Position::from_index)
}

/// A game type as its protobuf enum number.
pub fn game_type(g: GameType) -> i32 {
    (match g {
        GameType::Diamonds => pb::GameType::Diamonds,
        GameType::Hearts => pb::GameType::Hearts,
        GameType::Spades => pb::GameType::Spades,
        GameType::Clubs => pb::GameType::Clubs,
        GameType::Grand => pb::GameType::Grand,
        GameType::Null => pb::GameType::Null,
    }) as i32
}

/// A protobuf game type to the engine's.
pub fn game_type_from(v: i32) -> Result<GameType, ConvertError> {
    match pb::GameType::try_from(v) {
        Ok(pb::GameType::Diamonds) => Ok(GameType::Diamonds),
        Ok(pb::GameType::Hearts) => Ok(GameType::Hearts),
        Ok(pb::GameType::Spades) => Ok(GameType::Spades),
        Ok(pb::GameType::Clubs) => Ok(GameType::Clubs),
        Ok(pb::GameType::Grand) => Ok(GameType::Grand),
        Ok(pb::GameType::Null) => Ok(GameType::Null),
        _ if v == 0 => bad(
            pb::ErrorReason::InvalidGame,
            "no game given: set `game` to one of the seat's legal.contracts \
             (GAME_TYPE_DIAMONDS = 1, HEARTS = 2, SPADES = 3, CLUBS = 4, GRAND = 5, NULL = 6)",
        ),
        _ => bad(
            pb::ErrorReason::InvalidGame,
            format!(
                "{v} is not a game type: use one of the seat's legal.contracts \
                 (GAME_TYPE_DIAMONDS = 1, HEARTS = 2, SPADES = 3, CLUBS = 4, GRAND = 5, NULL = 6)"
            ),
        ),
    }
}

/// An announcement as its protobuf enum number.
pub fn announcement(a: Announcement) -> i32 {
    (match a {
        Announcement::None => pb::Announcement::Unspecified,
        Announcement::Schneider => pb::Announcement::Schneider,
        Announcement::Schwarz => pb::Announcement::Schwarz,
        Announcement::Ouvert => pb::Announcement::Ouvert,
    }) as i32
}

/// A protobuf announcement to the engine's.
pub fn announcement_from(v: i32) -> Result<Announcement, ConvertError> {
    match pb::Announcement::try_from(v) {
        Ok(pb::Announcement::Unspecified) => Ok(Announcement::None),
        Ok(pb::Announcement::Schneider) => Ok(Announcement::Schneider),
        Ok(pb::Announcement::Schwarz) => Ok(Announcement::Schwarz),
        Ok(pb::Announcement::Ouvert) => Ok(Announcement::Ouvert),
        Err(_) => bad(pb::ErrorReason::InvalidAnnouncement, format!("{v} is not an announcement")),
    }
}

/// A contract (with whether it is a hand game).
pub fn contract(c: Contract, hand: bool) -> pb::Contract {
    pb::Contract { game: game_type(c.game), announcement: announcement(c.announcement), hand }
}

/// A protobuf contract to the engine's (the hand flag is not part of it).
pub fn contract_from(c: &pb::Contract) -> Result<Contract, ConvertError> {
    Ok(Contract { game: game_type_from(c.game)?, announcement: announcement_from(c.announcement)? })
}

/// A phase as its protobuf enum number.
pub fn phase(p: Phase) -> i32 {
    (match p {
        Phase::Bidding => pb::Phase::Bidding,
        Phase::SkatDecision => pb::Phase::SkatDecision,
        Phase::Discarding => pb::Phase::Discarding,
        Phase::Declaring => pb::Phase::Declaring,
        Phase::Playing => pb::Phase::Playing,
        Phase::Finished => pb::Phase::Finished,
    }) as i32
}

/// A protobuf phase to the engine's.
pub fn phase_from(v: i32) -> Option<Phase> {
    match pb::Phase::try_from(v).ok()? {
        pb::Phase::Bidding => Some(Phase::Bidding),
        pb::Phase::SkatDecision => Some(Phase::SkatDecision),
        pb::Phase::Discarding => Some(Phase::Discarding),
        pb::Phase::Declaring => Some(Phase::Declaring),
        pb::Phase::Playing => Some(Phase::Playing),
        pb::Phase::Finished => Some(Phase::Finished),
        pb::Phase::Unspecified => None,
    }
}

fn forfeit_reason(r: ForfeitReason) -> i32 {
    (match r {
        ForfeitReason::Timeout => pb::ForfeitReason::Timeout,
        ForfeitReason::Left => pb::ForfeitReason::Left,
    }) as i32
}

// ----- requests to actions -------------------------------------------------------

/// A Bid request's call and value to an action.
pub fn bid_action(call: i32, value: u32) -> Result<Action, ConvertError> {
    match pb::BidCall::try_from(call) {
        Ok(pb::BidCall::Say) => match u16::try_from(value).ok().and_then(Bid::new) {
            Some(value) => Ok(Action::Bid { value }),
            None => {
                let ladder: Vec<String> = skat_engine::bid::LADDER.iter().map(u16::to_string).collect();
                let what = if value == 0 {
                    "a SAY needs a `value`, at least the seat's legal.min_bid, from the bid ladder"
                        .to_string()
                } else {
                    format!("{value} is not on the bid ladder")
                };
                bad(pb::ErrorReason::InvalidBid, format!("{what} ({})", ladder.join(", ")))
            }
        },
        Ok(pb::BidCall::Hold) => Ok(Action::Hold),
        Ok(pb::BidCall::Pass) => Ok(Action::Pass),
        _ => bad(pb::ErrorReason::InvalidCall, "call must be BID_CALL_SAY, BID_CALL_HOLD or BID_CALL_PASS"),
    }
}

/// A Discard request's cards to an action (exactly two distinct cards).
pub fn discard_action(v: &[i32]) -> Result<Action, ConvertError> {
    let cards = cards_from(v)?;
    if cards.len() != 2 {
        return bad(pb::ErrorReason::InvalidDiscard, "discard exactly two cards");
    }
    Ok(Action::Discard { cards })
}

/// A Declare request to an action.
pub fn declare_action(game: i32, announcement: i32) -> Result<Action, ConvertError> {
    Ok(Action::Declare {
        contract: Contract { game: game_type_from(game)?, announcement: announcement_from(announcement)? },
    })
}

/// A PlayCard request to an action.
pub fn play_action(c: i32) -> Result<Action, ConvertError> {
    Ok(Action::Play { card: card_from(c)? })
}

// ----- engine to protobuf --------------------------------------------------------

/// An action as a watcher sees it (redaction already done by the engine).
pub fn action(a: &Action, skat: CardSet) -> pb::Action {
    let mut out = pb::Action::default();
    let kind = match a {
        Action::Bid { value } => {
            out.bid = u32::from(value.value());
            pb::ActionKind::Bid
        }
        Action::Hold => pb::ActionKind::Hold,
        Action::Pass => pb::ActionKind::Pass,
        Action::PickUpSkat => {
            out.cards = cards(skat);
            pb::ActionKind::PickUpSkat
        }
        Action::PlayHand => pb::ActionKind::PlayHand,
        Action::Discard { cards: c } => {
            out.cards = cards(*c);
            pb::ActionKind::Discard
        }
        Action::Declare { contract: c } => {
            out.contract = Some(contract(*c, false));
            pb::ActionKind::Declare
        }
        Action::Play { card: c } => {
            out.card = card(*c);
            pb::ActionKind::PlayCard
        }
        Action::Claim => pb::ActionKind::Claim,
        Action::Resign => pb::ActionKind::Resign,
        Action::Forfeit { reason } => {
            out.forfeit_reason = forfeit_reason(*reason);
            pb::ActionKind::Forfeit
        }
    };
    out.kind = kind as i32;
    out
}

/// The legal actions.
pub fn legal(l: &LegalActions, hand: bool) -> pb::LegalActions {
    pb::LegalActions {
        min_bid: l.bid_from.map_or(0, |b| u32::from(b.value())),
        hold: l.hold,
        may_pass: l.pass,
        pick_up_skat: l.pick_up_skat,
        play_hand: l.play_hand,
        discard_from: cards(l.discard_from),
        contracts: l.contracts.iter().map(|c| contract(*c, hand)).collect(),
        cards: cards(l.cards),
        claim: l.claim,
        resign: l.resign,
    }
}

/// Protobuf legal actions back to the engine's (for clients).
pub fn legal_from(l: &pb::LegalActions) -> Result<LegalActions, ConvertError> {
    Ok(LegalActions {
        bid_from: if l.min_bid == 0 { None } else { u16::try_from(l.min_bid).ok().and_then(Bid::new) },
        hold: l.hold,
        pass: l.may_pass,
        pick_up_skat: l.pick_up_skat,
        play_hand: l.play_hand,
        discard_from: cards_from(&l.discard_from)?,
        contracts: l.contracts.iter().map(contract_from).collect::<Result<_, _>>()?,
        cards: cards_from(&l.cards)?,
        claim: l.claim,
        resign: l.resign,
    })
}

fn auction_call(c: &AuctionCall) -> pb::AuctionCall {
    let (call, value) = match c.call {
        Call::Bid { value } => (pb::BidCall::Say, u32::from(value.value())),
        Call::Hold => (pb::BidCall::Hold, 0),
        Call::Pass => (pb::BidCall::Pass, 0),
    };
    pb::AuctionCall { position: position(c.position), call: call as i32, value }
}

fn trick(t: &Trick) -> pb::Trick {
    pb::Trick {
        leader: position(t.leader),
        cards: t.cards().iter().map(|c| card(*c)).collect(),
        winner: pb::Position::Unspecified as i32,
    }
}

fn completed_trick(t: &TrickView) -> pb::Trick {
    pb::Trick {
        leader: position(t.leader),
        cards: t.cards.iter().map(|c| card(*c)).collect(),
        winner: position(t.winner),
    }
}

/// A finished deal's result; `seeger_fabian` per seat of the table.
pub fn deal_result(outcome: &Outcome, seats: [Seat; 3], seeger_fabian: &[i32]) -> pb::DealResult {
    let mut r = pb::DealResult { seeger_fabian: seeger_fabian.to_vec(), ..Default::default() };
    match outcome {
        Outcome::PassedIn => {
            r.passed_in = true;
            r.end = "passed_in".into();
        }
        Outcome::Penalty(p) => {
            r.penalty = true;
            r.declarer_seat = u32::from(seats[p.offender.index()]);
            r.declarer = position(p.offender);
            r.value = u32::from(p.value);
            r.score = -2 * i32::from(p.value);
            r.end = "forfeit".into();
            r.forfeited_by = position(p.offender);
            r.forfeit_reason = forfeit_reason(p.reason);
        }
        Outcome::Game(g) => {
            r.declarer_seat = u32::from(seats[g.declarer.index()]);
            r.declarer = position(g.declarer);
            r.contract = Some(contract(g.contract, g.hand));
            r.game_code = g.contract.iss_code(g.hand);
            r.bid = u32::from(g.bid.value());
            r.matadors = i32::from(g.matadors);
            r.value = u32::from(g.value);
            r.declarer_points = u32::from(g.declarer_points);
            r.declarer_tricks = u32::from(g.declarer_tricks);
            r.schneider = g.schneider;
            r.schwarz = g.schwarz;
            r.overbid = g.overbid;
            r.won = g.won;
            r.score = g.score();
            r.end = g.end.name().into();
            r.multiplier = u32::from(g.multiplier);
            if let DealEnd::Forfeit { position: p, reason } = g.end {
                r.forfeited_by = position(p);
                r.forfeit_reason = forfeit_reason(reason);
            }
        }
    }
    r
}

fn malformed(what: &str) -> ConvertError {
    ConvertError { reason: pb::ErrorReason::MalformedRequest, message: format!("cannot read {what}") }
}

fn forfeit_reason_from(v: i32) -> Result<ForfeitReason, ConvertError> {
    match pb::ForfeitReason::try_from(v) {
        Ok(pb::ForfeitReason::Timeout) => Ok(ForfeitReason::Timeout),
        Ok(pb::ForfeitReason::Left) => Ok(ForfeitReason::Left),
        _ => Err(malformed("a forfeit reason")),
    }
}

fn small<T: TryFrom<u32>>(v: u32, what: &str) -> Result<T, ConvertError> {
    T::try_from(v).map_err(|_| malformed(what))
}

/// A deal's result back to the engine's outcome (for clients).
pub fn outcome_from(r: &pb::DealResult) -> Result<Outcome, ConvertError> {
    if r.passed_in {
        return Ok(Outcome::PassedIn);
    }
    let declarer = position_from(r.declarer).ok_or_else(|| malformed("the declarer"))?;
    if r.penalty {
        return Ok(Outcome::Penalty(Penalty {
            offender: declarer,
            reason: forfeit_reason_from(r.forfeit_reason)?,
            value: small(r.value, "a penalty value")?,
        }));
    }
    let c = r.contract.as_ref().ok_or_else(|| malformed("the contract"))?;
    let end = match r.end.as_str() {
        "played_out" => DealEnd::PlayedOut,
        "declarer_took_trick" => DealEnd::DeclarerTookTrick,
        "defenders_took_trick" => DealEnd::DefendersTookTrick,
        "declarer_resigned" => DealEnd::DeclarerResigned,
        "defenders_resigned" => DealEnd::DefendersResigned,
        "forfeit" => DealEnd::Forfeit {
            position: position_from(r.forfeited_by).ok_or_else(|| malformed("who forfeited"))?,
            reason: forfeit_reason_from(r.forfeit_reason)?,
        },
        _ => return Err(malformed("how the deal ended")),
    };
    Ok(Outcome::Game(GameResult {
        declarer,
        contract: contract_from(c)?,
        hand: c.hand,
        bid: small::<u16>(r.bid, "the bid").ok().and_then(Bid::new).ok_or_else(|| malformed("the bid"))?,
        matadors: i8::try_from(r.matadors).map_err(|_| malformed("matadors"))?,
        multiplier: small(r.multiplier, "the multiplier")?,
        value: small(r.value, "the value")?,
        declarer_points: small(r.declarer_points, "card points")?,
        declarer_tricks: small(r.declarer_tricks, "tricks")?,
        schneider: r.schneider,
        schwarz: r.schwarz,
        overbid: r.overbid,
        won: r.won,
        end,
    }))
}

/// An action as a watcher was shown it, back to the engine's (for clients); the skat a
/// pick-up showed the declarer comes with it.
pub fn action_from(a: &pb::Action) -> Result<(Action, CardSet), ConvertError> {
    let cards_of = |v: &[i32]| cards_from(v);
    let action = match pb::ActionKind::try_from(a.kind) {
        Ok(pb::ActionKind::Bid) => Action::Bid {
            value: small::<u16>(a.bid, "a bid").ok().and_then(Bid::new).ok_or_else(|| malformed("a bid"))?,
        },
        Ok(pb::ActionKind::Hold) => Action::Hold,
        Ok(pb::ActionKind::Pass) => Action::Pass,
        Ok(pb::ActionKind::PickUpSkat) => return Ok((Action::PickUpSkat, cards_of(&a.cards)?)),
        Ok(pb::ActionKind::PlayHand) => Action::PlayHand,
        Ok(pb::ActionKind::Discard) => Action::Discard { cards: cards_of(&a.cards)? },
        Ok(pb::ActionKind::Declare) => Action::Declare {
            contract: contract_from(a.contract.as_ref().ok_or_else(|| malformed("a declaration"))?)?,
        },
        Ok(pb::ActionKind::PlayCard) => Action::Play { card: card_from(a.card)? },
        Ok(pb::ActionKind::Claim) => Action::Claim,
        Ok(pb::ActionKind::Resign) => Action::Resign,
        Ok(pb::ActionKind::Forfeit) => Action::Forfeit { reason: forfeit_reason_from(a.forfeit_reason)? },
        _ => return Err(malformed("an action kind")),
    };
    Ok((action, CardSet::EMPTY))
}

/// A redacted event back to the engine's (for clients that fold it into a
/// [`skat_engine::SeatView`]); `None` for seat joins and leaves, which are not match
/// events.
pub fn event_from(kind: &pb::event::Kind) -> Result<Option<EventView>, ConvertError> {
    use pb::event::Kind;
    let seat = |v: u32| small::<Seat>(v, "a seat");
    let seats3 = |v: &[u32]| -> Result<[Seat; 3], ConvertError> {
        let s: Vec<Seat> = v.iter().map(|x| seat(*x)).collect::<Result<_, _>>()?;
        s.try_into().map_err(|_| malformed("the seats of a deal"))
    };
    Ok(Some(match kind {
        Kind::SeatJoined(_) | Kind::SeatLeft(_) => return Ok(None),
        Kind::DealStarted(d) => EventView::DealStarted {
            number: d.number,
            dealer: seat(d.dealer_seat)?,
            seats: seats3(&d.position_seats)?,
            hand: cards_from(&d.hand)?,
        },
        Kind::ActionTaken(a) => {
            let (action, skat) = action_from(a.action.as_ref().ok_or_else(|| malformed("an action"))?)?;
            EventView::Moved {
                number: a.deal,
                seat: seat(a.seat)?,
                position: position_from(a.position).ok_or_else(|| malformed("a position"))?,
                action,
                skat,
                open_hand: cards_from(&a.open_hand)?,
                facts: facts_from(a.facts.as_ref().ok_or_else(|| malformed("the facts"))?)?,
            }
        }
        Kind::DealEnded(d) => {
            let r = d.result.as_ref().ok_or_else(|| malformed("a result"))?;
            let x = d.dealt.as_ref().ok_or_else(|| malformed("the cards"))?;
            let dealt = Dealt::new(
                [cards_from(&x.forehand)?, cards_from(&x.middlehand)?, cards_from(&x.rearhand)?],
                cards_from(&x.skat)?,
            )
            .map_err(|_| malformed("the cards of a deal"))?;
            EventView::DealEnded {
                number: d.deal,
                seats: seats3(&d.position_seats)?,
                outcome: outcome_from(r)?,
                dealt,
                discards: cards_from(&x.discards)?,
                seeger_fabian: r.seeger_fabian.clone(),
            }
        }
        Kind::MatchEnded(m) => EventView::MatchEnded {
            standings: m
                .standings
                .iter()
                .map(|s| -> Result<SeatStanding, ConvertError> {
                    Ok(SeatStanding {
                        seat: seat(s.seat)?,
                        plain: s.plain,
                        seeger_fabian: s.seeger_fabian,
                        declared: s.declared,
                        won: s.won,
                        lost: s.lost,
                        penalties: s.penalties,
                        declared_value: s.declared_value,
                        defended_won: s.defended_won,
                    })
                })
                .collect::<Result<_, _>>()?,
        },
    }))
}

/// All cards of a finished deal.
pub fn dealt(d: &Dealt, discards: CardSet) -> pb::DealtCards {
    pb::DealtCards {
        forehand: cards(d.hands[0]),
        middlehand: cards(d.hands[1]),
        rearhand: cards(d.hands[2]),
        skat: cards(d.skat),
        discards: cards(discards),
    }
}

/// The facts about a deal that the engine's [`View`] leaves to the match.
#[derive(Debug, Clone, Copy)]
pub struct DealFrame<'a> {
    /// The deal's number.
    pub number: u32,
    /// The dealer.
    pub dealer: Seat,
    /// Seats at forehand, middlehand, rearhand.
    pub seats: [Seat; 3],
    /// Seeger-Fabian points per seat, once over.
    pub seeger_fabian: &'a [i32],
}

/// A deal view.
pub fn deal_view(v: &View, frame: DealFrame<'_>) -> pb::DealView {
    let to_move = v.to_move;
    pb::DealView {
        number: frame.number,
        dealer_seat: u32::from(frame.dealer),
        position_seats: frame.seats.iter().map(|s| u32::from(*s)).collect(),
        your_position: position_opt(v.viewer),
        phase: phase(v.phase),
        to_move: position_opt(to_move),
        seat_to_move: to_move.map(|p| u32::from(frame.seats[p.index()])),
        hand: cards(v.hand),
        hand_sizes: v.hand_sizes.iter().map(|n| u32::from(*n)).collect(),
        auction: v.auction.iter().map(auction_call).collect(),
        bid: v.bid.map_or(0, |b| u32::from(b.value())),
        declarer: position_opt(v.declarer),
        skat_decided: v.skat_picked_up.is_some(),
        skat_picked_up: v.skat_picked_up.unwrap_or(false),
        skat: cards(v.skat),
        discards: cards(v.discards),
        contract: v.contract.map(|c| contract(c, v.hand_game)),
        open_hand: v.open_hand.map(cards).unwrap_or_default(),
        current_trick: v.current_trick.as_ref().map(trick),
        tricks: v.tricks.iter().map(completed_trick).collect(),
        claimed: v.claimed,
        resigned: Position::ALL.iter().filter(|p| v.resigned[p.index()]).map(|p| position(*p)).collect(),
        legal: Some(legal(&v.legal, v.hand_game)),
        result: v.outcome.as_ref().map(|o| deal_result(o, frame.seats, frame.seeger_fabian)),
        dealt: v.dealt.as_ref().map(|d| dealt(d, v.discards)),
    }
}

/// A deal view back to the engine's view and its frame (for clients).
pub fn deal_view_from(d: &pb::DealView) -> Result<(skat_engine::seat_view::DealFrame, View), ConvertError> {
    let seat = |v: u32| small::<Seat>(v, "a seat");
    let seats: Vec<Seat> = d.position_seats.iter().map(|s| seat(*s)).collect::<Result<_, _>>()?;
    let seats: [Seat; 3] = seats.try_into().map_err(|_| malformed("the seats of a deal"))?;
    let frame = skat_engine::seat_view::DealFrame { number: d.number, dealer: seat(d.dealer_seat)?, seats };
    let trick_cards = |t: &pb::Trick| t.cards.iter().map(|c| card_from(*c)).collect::<Result<Vec<_>, _>>();
    let current_trick = match &d.current_trick {
        Some(t) if !t.cards.is_empty() => Some(
            Trick::from_cards(
                position_from(t.leader).ok_or_else(|| malformed("a trick's leader"))?,
                &trick_cards(t)?,
            )
            .ok_or_else(|| malformed("the current trick"))?,
        ),
        _ => None,
    };
    let tricks = d
        .tricks
        .iter()
        .map(|t| {
            Ok(TrickView {
                leader: position_from(t.leader).ok_or_else(|| malformed("a trick's leader"))?,
                cards: trick_cards(t)?.try_into().map_err(|_| malformed("a trick of three cards"))?,
                winner: position_from(t.winner).ok_or_else(|| malformed("a trick's winner"))?,
            })
        })
        .collect::<Result<Vec<_>, ConvertError>>()?;
    let auction = d
        .auction
        .iter()
        .map(|a| {
            let call = match pb::BidCall::try_from(a.call) {
                Ok(pb::BidCall::Say) => Call::Bid {
                    value: small::<u16>(a.value, "a bid")
                        .ok()
                        .and_then(Bid::new)
                        .ok_or_else(|| malformed("a bid"))?,
                },
                Ok(pb::BidCall::Hold) => Call::Hold,
                Ok(pb::BidCall::Pass) => Call::Pass,
                _ => return Err(malformed("an auction call")),
            };
            Ok(AuctionCall {
                position: position_from(a.position).ok_or_else(|| malformed("a caller"))?,
                call,
            })
        })
        .collect::<Result<Vec<_>, ConvertError>>()?;
    let sizes: Vec<u8> =
        d.hand_sizes.iter().map(|n| small::<u8>(*n, "a hand size")).collect::<Result<_, _>>()?;
    let mut resigned = [false; 3];
    for p in &d.resigned {
        resigned[position_from(*p).ok_or_else(|| malformed("a resigned position"))?.index()] = true;
    }
    let dealt = match &d.dealt {
        Some(x) => Some(
            Dealt::new(
                [cards_from(&x.forehand)?, cards_from(&x.middlehand)?, cards_from(&x.rearhand)?],
                cards_from(&x.skat)?,
            )
            .map_err(|_| malformed("the cards of a deal"))?,
        ),
        None => None,
    };
    let view = View {
        viewer: position_from(d.your_position),
        phase: phase_from(d.phase).ok_or_else(|| malformed("the phase"))?,
        to_move: position_from(d.to_move),
        hand: cards_from(&d.hand)?,
        hand_sizes: sizes.try_into().map_err(|_| malformed("the hand sizes"))?,
        auction,
        bid: if d.bid == 0 {
            None
        } else {
            Some(small::<u16>(d.bid, "the bid").ok().and_then(Bid::new).ok_or_else(|| malformed("the bid"))?)
        },
        declarer: position_from(d.declarer),
        skat_picked_up: d.skat_decided.then_some(d.skat_picked_up),
        skat: cards_from(&d.skat)?,
        discards: cards_from(&d.discards)?,
        contract: d.contract.as_ref().map(contract_from).transpose()?,
        hand_game: d.contract.as_ref().map_or(d.skat_decided && !d.skat_picked_up, |c| c.hand),
        open_hand: if d.open_hand.is_empty() { None } else { Some(cards_from(&d.open_hand)?) },
        current_trick,
        tricks,
        claimed: d.claimed,
        resigned,
        dealt,
        outcome: d.result.as_ref().map(outcome_from).transpose()?,
        legal: d.legal.as_ref().map(legal_from).transpose()?.unwrap_or_default(),
    };
    Ok((frame, view))
}

/// A seat's table view as the engine's [`skat_engine::SeatView`], to fold the stream's
/// events into from there on (for clients).
pub fn seat_view_from(t: &pb::TableView) -> Result<skat_engine::SeatView, ConvertError> {
    let seat = t.your_seat.map(|s| small::<Seat>(s, "your seat")).transpose()?;
    match &t.deal {
        Some(d) => {
            let (frame, view) = deal_view_from(d)?;
            Ok(skat_engine::SeatView::from_view(seat, frame, view))
        }
        None => Ok(skat_engine::SeatView::new(seat)),
    }
}

/// A standing, with the player's name.
pub fn standing(s: &SeatStanding, name: &str) -> pb::Standing {
    pb::Standing {
        seat: u32::from(s.seat),
        name: name.to_string(),
        plain: s.plain,
        seeger_fabian: s.seeger_fabian,
        declared: s.declared,
        won: s.won,
        lost: s.lost,
        penalties: s.penalties,
        declared_value: s.declared_value,
        defended_won: s.defended_won,
    }
}

/// The public facts after a move.
pub fn facts(f: &Facts) -> pb::DealFacts {
    pb::DealFacts {
        phase: phase(f.phase),
        to_move: position_opt(f.to_move),
        declarer: position_opt(f.declarer),
        bid: f.bid.map_or(0, |b| u32::from(b.value())),
        declaration: f.declaration.map(|d| contract(d.contract, d.hand)),
        trick_winner: position_opt(f.trick_winner),
    }
}

/// Protobuf facts back to the engine's (for clients).
pub fn facts_from(f: &pb::DealFacts) -> Result<Facts, ConvertError> {
    let invalid = |m: &str| ConvertError { reason: pb::ErrorReason::MalformedRequest, message: m.into() };
    Ok(Facts {
        phase: phase_from(f.phase).ok_or_else(|| invalid("facts without a phase"))?,
        to_move: position_from(f.to_move),
        declarer: position_from(f.declarer),
        bid: if f.bid == 0 {
            None
        } else {
            Some(
                u16::try_from(f.bid)
                    .ok()
                    .and_then(Bid::new)
                    .ok_or_else(|| invalid("a bid off the ladder"))?,
            )
        },
        declaration: f
            .declaration
            .as_ref()
            .map(|c| contract_from(c).map(|contract| Declaration { contract, hand: c.hand }))
            .transpose()?,
        trick_winner: position_from(f.trick_winner),
    })
}

/// A redacted match event; `names` gives each seat's player name for standings.
pub fn event(e: &EventView, names: &[String]) -> pb::event::Kind {
    use pb::event::Kind;
    match e {
        EventView::DealStarted { number, dealer, seats, hand } => Kind::DealStarted(pb::DealStarted {
            number: *number,
            dealer_seat: u32::from(*dealer),
            position_seats: seats.iter().map(|s| u32::from(*s)).collect(),
            hand: cards(*hand),
        }),
        EventView::Moved { number, seat, position: p, action: a, skat, open_hand, facts: f } => {
            let mut act = action(a, *skat);
            if let (Some(c), Some(d)) = (act.contract.as_mut(), f.declaration) {
                c.hand = d.hand;
            }
            Kind::ActionTaken(pb::ActionTaken {
                deal: *number,
                seat: u32::from(*seat),
                position: position(*p),
                action: Some(act),
                open_hand: cards(*open_hand),
                facts: Some(facts(f)),
            })
        }
        EventView::DealEnded { number, seats, outcome, dealt: d, discards, seeger_fabian } => {
            Kind::DealEnded(pb::DealEnded {
                deal: *number,
                result: Some(deal_result(outcome, *seats, seeger_fabian)),
                dealt: Some(dealt(d, *discards)),
                position_seats: seats.iter().map(|s| u32::from(*s)).collect(),
            })
        }
        EventView::MatchEnded { standings } => Kind::MatchEnded(pb::MatchEnded {
            standings: standings
                .iter()
                .map(|s| standing(s, names.get(usize::from(s.seat)).map_or("", String::as_str)))
                .collect(),
        }),
    }
}

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
