//! A seat's knowledge, folded from its stream ([`fold`], [`from_view`]), and as plain
//! JSON, the same in Rust, Python and TypeScript ([`to_json`]).
//!
//! The fold is the engine's ([`skat_engine::SeatView::apply`]); what the seat may do now
//! (`legal`) is the server's word, the legal actions attached to the event: a request
//! that causes several events is answered only in its final state, so the states in
//! between carry none (the three SDKs agree on this).
//!
//! [`to_json`] writes a [`Knowledge`] (the engine's `SeatView`) in the one form the three
//! SDKs share: the Python SDK's `Knowledge.to_dict()` and the TypeScript SDK's
//! `knowledge.toJSON()` write the same object for the same knowledge, and the
//! conformance corpus (`conformance/knowledge.jsonl`, made from the server's own streams)
//! holds it after every event of its streams, for all three to replay.
//!
//! | field | form |
//! |---|---|
//! | cards | ISS codes (`CJ`, `HT`, `D7`); a set is sorted by the proto's card number, a trick keeps play order |
//! | positions, phases, games, announcements | the proto's enum names without their prefix, in lower case (`forehand`, `skat_decision`, `grand`, `none`) |
//! | absent values | `null` (a spectator's seat, the bid before the first one, the open hand when none is shown) |
//! | derived | `game`, `is_declarer`, `played`, `cards_out`, `cannot_hold` (per position) are written too, so that every SDK's derivations are checked |

use serde_json::{Value, json};
use skat_engine::matches::SeatStanding;
use skat_engine::{
    Announcement, Call, Card, CardSet, Contract, DealEnd, ForfeitReason, GameType, LegalActions, Outcome,
    Phase, Position,
};

use skat_proto::{convert, pb};

use crate::Knowledge;
use crate::client::SdkError;

/// Folds one event of the seat's stream into its knowledge.
pub fn fold(k: &mut Knowledge, event: &pb::Event) -> Result<(), SdkError> {
    let kind = event.kind.as_ref().ok_or_else(|| SdkError::Protocol("an event without a kind".into()))?;
    if let Some(e) = convert::event_from(kind).map_err(|e| SdkError::Protocol(e.message))? {
        // The legal actions are the server's (below): no need to work them out here.
        k.record(&e);
    }
    k.view.legal = match &event.legal {
        Some(l) => convert::legal_from(l).map_err(|e| SdkError::Protocol(e.message))?,
        None => LegalActions::default(),
    };
    Ok(())
}

/// The knowledge a table view shows (a client that starts following mid-deal).
pub fn from_view(view: &pb::TableView) -> Result<Knowledge, SdkError> {
    convert::seat_view_from(view).map_err(|e| SdkError::Protocol(e.message))
}

fn card(c: Card) -> Value {
    Value::String(c.to_string())
}

/// A set, sorted by card number (a `CardSet` iterates in index order).
fn cards(s: CardSet) -> Value {
    Value::Array(s.iter().map(card).collect())
}

fn position(p: Position) -> Value {
    Value::String(p.name().into())
}

fn opt_position(p: Option<Position>) -> Value {
    p.map_or(Value::Null, position)
}

fn phase(p: Phase) -> &'static str {
    match p {
        Phase::Bidding => "bidding",
        Phase::SkatDecision => "skat_decision",
        Phase::Discarding => "discarding",
        Phase::Declaring => "declaring",
        Phase::Playing => "playing",
        Phase::Finished => "finished",
    }
}

fn contract(c: Contract) -> Value {
    let announcement = match c.announcement {
        Announcement::None => "none",
        Announcement::Schneider => "schneider",
        Announcement::Schwarz => "schwarz",
        Announcement::Ouvert => "ouvert",
    };
    json!({ "game": c.game.name(), "announcement": announcement })
}

fn reason(r: ForfeitReason) -> &'static str {
    match r {
        ForfeitReason::Timeout => "timeout",
        ForfeitReason::Left => "left",
    }
}

fn outcome(o: &Outcome) -> Value {
    match o {
        Outcome::PassedIn => json!({ "kind": "passed_in" }),
        Outcome::Penalty(p) => json!({
            "kind": "penalty",
            "offender": position(p.offender),
            "reason": reason(p.reason),
            "value": p.value,
        }),
        Outcome::Game(g) => {
            let mut v = json!({
                "kind": "game",
                "declarer": position(g.declarer),
                "contract": contract(g.contract),
                "hand": g.hand,
                "bid": g.bid.value(),
                "matadors": g.matadors,
                "multiplier": g.multiplier,
                "value": g.value,
                "declarer_points": g.declarer_points,
                "declarer_tricks": g.declarer_tricks,
                "schneider": g.schneider,
                "schwarz": g.schwarz,
                "overbid": g.overbid,
                "won": g.won,
                "end": g.end.name(),
            });
            if let DealEnd::Forfeit { position: p, reason: r } = g.end {
                v["forfeited_by"] = position(p);
                v["forfeit_reason"] = Value::String(reason(r).into());
            }
            v
        }
    }
}

fn legal(l: &LegalActions) -> Value {
    json!({
        "bid_from": l.bid_from.map(|b| b.value()),
        "hold": l.hold,
        "pass": l.pass,
        "pick_up_skat": l.pick_up_skat,
        "play_hand": l.play_hand,
        "discard_from": cards(l.discard_from),
        "contracts": l.contracts.iter().map(|c| contract(*c)).collect::<Vec<_>>(),
        "cards": cards(l.cards),
        "claim": l.claim,
        "resign": l.resign,
    })
}

fn standing(s: &SeatStanding) -> Value {
    json!({
        "seat": u32::from(s.seat),
        "plain": s.plain,
        "seeger_fabian": s.seeger_fabian,
        "declared": s.declared,
        "won": s.won,
        "lost": s.lost,
        "declared_value": s.declared_value,
        "defended_won": s.defended_won,
        "penalties": s.penalties,
    })
}

/// The knowledge in the form the three SDKs share (see the module header).
pub fn to_json(k: &Knowledge) -> Value {
    let v = &k.view;
    let auction: Vec<Value> = v
        .auction
        .iter()
        .map(|a| match a.call {
            Call::Bid { value } => {
                json!({ "position": position(a.position), "call": "bid", "value": value.value() })
            }
            Call::Hold => json!({ "position": position(a.position), "call": "hold" }),
            Call::Pass => json!({ "position": position(a.position), "call": "pass" }),
        })
        .collect();
    json!({
        "seat": k.seat.map(u32::from),
        "frame": k.frame.map(|f| json!({
            "number": f.number,
            "dealer": u32::from(f.dealer),
            "seats": f.seats.iter().map(|s| u32::from(*s)).collect::<Vec<_>>(),
        })),
        "position": opt_position(v.viewer),
        "phase": phase(v.phase),
        "to_move": opt_position(v.to_move),
        "hand": cards(v.hand),
        "hand_sizes": v.hand_sizes,
        "auction": auction,
        "bid": v.bid.map(|b| b.value()),
        "declarer": opt_position(v.declarer),
        "skat_picked_up": v.skat_picked_up,
        "skat": cards(v.skat),
        "discards": cards(v.discards),
        "contract": v.contract.map(contract),
        "hand_game": v.hand_game,
        "open_hand": v.open_hand.map(cards),
        "current_trick": v.current_trick.map(|t| json!({
            "leader": position(t.leader),
            "cards": t.cards().iter().map(|c| card(*c)).collect::<Vec<_>>(),
        })),
        "tricks": v.tricks.iter().map(|t| json!({
            "leader": position(t.leader),
            "cards": t.cards.iter().map(|c| card(*c)).collect::<Vec<_>>(),
            "winner": position(t.winner),
        })).collect::<Vec<_>>(),
        "claimed": v.claimed,
        "resigned": v.resigned,
        "dealt": v.dealt.map(|d| json!({
            "hands": d.hands.iter().map(|h| cards(*h)).collect::<Vec<_>>(),
            "skat": cards(d.skat),
        })),
        "outcome": v.outcome.as_ref().map(outcome),
        "legal": legal(&v.legal),
        "final_standings": k.final_standings.as_ref().map(|s| s.iter().map(standing).collect::<Vec<_>>()),
        "game": k.game().map(GameType::name),
        "is_declarer": k.is_declarer(),
        "played": cards(k.played()),
        "cards_out": cards(k.cards_out()),
        "cannot_hold": k.cannot_hold().iter().map(|s| cards(*s)).collect::<Vec<_>>(),
    })
}
