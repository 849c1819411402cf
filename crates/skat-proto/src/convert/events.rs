//! Events: what happened at a table and the public facts after a move, both ways.

#[allow(unused_imports)]
use super::*;

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
                // The engine keeps no comments: the server adds its table's.
                comments: Vec::new(),
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
