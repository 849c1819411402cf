//! Deals: auction calls, tricks, results, the cards of a finished deal, deal and table
//! views (and a seat's knowledge taken from a view), standings.

#[allow(unused_imports)]
use super::*;

pub(super) fn auction_call(c: &AuctionCall) -> pb::AuctionCall {
    let (call, value) = match c.call {
        Call::Bid { value } => (pb::BidCall::Say, u32::from(value.value())),
        Call::Hold => (pb::BidCall::Hold, 0),
        Call::Pass => (pb::BidCall::Pass, 0),
    };
    pb::AuctionCall { position: position(c.position), call: call as i32, value }
}

pub(super) fn trick(t: &Trick) -> pb::Trick {
    pb::Trick {
        leader: position(t.leader),
        cards: t.cards().iter().map(|c| card(*c)).collect(),
        winner: pb::Position::Unspecified as i32,
    }
}

pub(super) fn completed_trick(t: &TrickView) -> pb::Trick {
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

/// A deal view in its frame (the engine's [`skat_engine::seat_view::DealFrame`]), with
/// the Seeger-Fabian points per seat once the deal is over (empty before).
pub fn deal_view(v: &View, frame: skat_engine::seat_view::DealFrame, seeger_fabian: &[i32]) -> pb::DealView {
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
        result: v.outcome.as_ref().map(|o| deal_result(o, frame.seats, seeger_fabian)),
        dealt: v.dealt.as_ref().map(|d| dealt(d, v.discards)),
    }
}

/// A deal view's current trick and its tricks taken.
fn tricks_from(d: &pb::DealView) -> Result<(Option<Trick>, Vec<TrickView>), ConvertError> {
    let trick_cards = |t: &pb::Trick| t.cards.iter().map(|c| card_from(*c)).collect::<Result<Vec<_>, _>>();
    let current = match &d.current_trick {
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
    Ok((current, tricks))
}

/// One call of the auction.
fn auction_call_from(a: &pb::AuctionCall) -> Result<AuctionCall, ConvertError> {
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
    Ok(AuctionCall { position: position_from(a.position).ok_or_else(|| malformed("a caller"))?, call })
}

/// A deal view back to the engine's view and its frame (for clients).
pub fn deal_view_from(d: &pb::DealView) -> Result<(skat_engine::seat_view::DealFrame, View), ConvertError> {
    let seat = |v: u32| small::<Seat>(v, "a seat");
    let seats: Vec<Seat> = d.position_seats.iter().map(|s| seat(*s)).collect::<Result<_, _>>()?;
    let seats: [Seat; 3] = seats.try_into().map_err(|_| malformed("the seats of a deal"))?;
    let frame = skat_engine::seat_view::DealFrame { number: d.number, dealer: seat(d.dealer_seat)?, seats };
    let (current_trick, tricks) = tricks_from(d)?;
    let auction = d.auction.iter().map(auction_call_from).collect::<Result<Vec<_>, ConvertError>>()?;
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
