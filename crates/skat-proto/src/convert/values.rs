//! Values: cards, positions, game types, announcements, contracts, phases, actions and
//! legal actions, both ways.

#[allow(unused_imports)]
use super::*;

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

pub(super) fn forfeit_reason(r: ForfeitReason) -> i32 {
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

pub(super) fn malformed(what: &str) -> ConvertError {
    ConvertError { reason: pb::ErrorReason::MalformedRequest, message: format!("cannot read {what}") }
}

pub(super) fn forfeit_reason_from(v: i32) -> Result<ForfeitReason, ConvertError> {
    match pb::ForfeitReason::try_from(v) {
        Ok(pb::ForfeitReason::Timeout) => Ok(ForfeitReason::Timeout),
        Ok(pb::ForfeitReason::Left) => Ok(ForfeitReason::Left),
        _ => Err(malformed("a forfeit reason")),
    }
}

pub(super) fn small<T: TryFrom<u32>>(v: u32, what: &str) -> Result<T, ConvertError> {
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
