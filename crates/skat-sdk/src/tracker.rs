//! Keeps a seat's [`Knowledge`] up to date from its stream of events, so that a bot can be
//! asked without a `GetTable` round trip at every decision.
//!
//! The tracker only knows a deal it has seen from its `DealStarted`; until then (a client
//! that joins or resumes mid-deal) it says so and the SDK reads the view instead.

use skat_engine::view::TrickView;
use skat_engine::{AuctionCall, Bid, Call, Card, CardSet, Contract, Phase, Position, Trick};
use skat_proto::convert;
use skat_proto::pb::{self, event::Kind};

use crate::knowledge::Knowledge;

#[derive(Debug, Clone)]
struct DealState {
    number: u32,
    seats: [u32; 3],
    position: Position,
    hand: CardSet,
    auction: Vec<AuctionCall>,
    bid: Option<Bid>,
    declarer: Option<Position>,
    played_hand: bool,
    skat: CardSet,
    discards: CardSet,
    contract: Option<Contract>,
    open_hand: Option<CardSet>,
    leader: Position,
    trick: Vec<Card>,
    tricks: Vec<TrickView>,
}

/// A seat's knowledge, kept from its events.
#[derive(Debug, Clone, Default)]
pub struct Tracker {
    seat: u32,
    deal: Option<DealState>,
}

impl Tracker {
    /// A tracker for `seat`.
    pub fn new(seat: u32) -> Tracker {
        Tracker { seat, deal: None }
    }

    /// Takes in one event of the seat's stream.
    pub fn apply(&mut self, event: &pb::Event) {
        match &event.kind {
            Some(Kind::DealStarted(d)) => {
                let seats: Option<[u32; 3]> = d.position_seats.clone().try_into().ok();
                let position =
                    seats.and_then(|s| s.iter().position(|x| *x == self.seat)).and_then(Position::from_index);
                self.deal = match (seats, position, convert::cards_from(&d.hand)) {
                    (Some(seats), Some(position), Ok(hand)) => Some(DealState {
                        number: d.number,
                        seats,
                        position,
                        hand,
                        auction: Vec::new(),
                        bid: None,
                        declarer: None,
                        played_hand: false,
                        skat: CardSet::EMPTY,
                        discards: CardSet::EMPTY,
                        contract: None,
                        open_hand: None,
                        leader: Position::Forehand,
                        trick: Vec::new(),
                        tricks: Vec::new(),
                    }),
                    // Sitting out (4 seats) or unreadable: nothing to track.
                    _ => None,
                };
            }
            Some(Kind::ActionTaken(a)) => self.follow_action(a),
            Some(Kind::DealEnded(_)) | Some(Kind::MatchEnded(_)) => self.deal = None,
            _ => {}
        }
    }

    fn follow_action(&mut self, a: &pb::ActionTaken) {
        if !self.take(a) {
            self.deal = None;
        }
    }

    /// Applies an action; `false` when it cannot be followed (the tracker then gives up
    /// on this deal and the SDK reads views instead).
    fn take(&mut self, a: &pb::ActionTaken) -> bool {
        let Some(d) = self.deal.as_mut() else { return true };
        let (Some(act), Some(who)) = (a.action.as_ref(), convert::position_from(a.position)) else {
            return false;
        };
        if a.deal != d.number {
            return false;
        }
        let mine = who == d.position;
        match pb::ActionKind::try_from(act.kind) {
            Ok(pb::ActionKind::Bid) => {
                let Some(value) = u16::try_from(act.bid).ok().and_then(Bid::new) else { return false };
                d.bid = Some(value);
                d.auction.push(AuctionCall { position: who, call: Call::Bid { value } });
            }
            Ok(pb::ActionKind::Hold) => d.auction.push(AuctionCall { position: who, call: Call::Hold }),
            Ok(pb::ActionKind::Pass) => d.auction.push(AuctionCall { position: who, call: Call::Pass }),
            Ok(pb::ActionKind::PickUpSkat) => {
                d.declarer = Some(who);
                if mine {
                    let Ok(skat) = convert::cards_from(&act.cards) else { return false };
                    d.skat = skat;
                    d.hand |= skat;
                }
            }
            Ok(pb::ActionKind::PlayHand) => {
                d.declarer = Some(who);
                d.played_hand = true;
            }
            Ok(pb::ActionKind::Discard) => {
                if mine {
                    let Ok(cards) = convert::cards_from(&act.cards) else { return false };
                    d.discards = cards;
                    d.hand = d.hand - cards;
                }
            }
            Ok(pb::ActionKind::Declare) => {
                let Some(Ok(c)) = act.contract.as_ref().map(convert::contract_from) else { return false };
                d.contract = Some(c);
                d.declarer = Some(who);
            }
            Ok(pb::ActionKind::PlayCard) => {
                let Ok(card) = convert::card_from(act.card) else { return false };
                if d.trick.is_empty() {
                    d.leader = who;
                }
                d.trick.push(card);
                if mine {
                    d.hand.remove(card);
                }
                if Some(who) == d.declarer
                    && let Some(open) = d.open_hand.as_mut()
                {
                    open.remove(card);
                }
                if d.trick.len() == 3 {
                    let (Some(game), Ok(cards)) =
                        (d.contract.map(|c| c.game), <[Card; 3]>::try_from(d.trick.clone()))
                    else {
                        return false;
                    };
                    let winner = Position::from_index((d.leader.index() + game.trick_winner(cards)) % 3);
                    let Some(winner) = winner else { return false };
                    d.tricks.push(TrickView { leader: d.leader, cards: cards.to_vec(), winner });
                    d.leader = winner;
                    d.trick.clear();
                }
            }
            Ok(pb::ActionKind::Claim | pb::ActionKind::Resign | pb::ActionKind::Forfeit) => {}
            _ => return false,
        }
        if !a.open_hand.is_empty() {
            match convert::cards_from(&a.open_hand) {
                Ok(open) => d.open_hand = Some(open),
                Err(_) => return false,
            }
        }
        true
    }

    /// The seat's knowledge at an event that carries its legal actions, if the tracker
    /// has followed the deal from its start.
    pub fn knowledge(&self, event: &pb::Event) -> Option<Knowledge> {
        let d = self.deal.as_ref()?;
        let legal = convert::legal_from(event.legal.as_ref()?).ok()?;
        let phase = if !legal.cards.is_empty() || legal.resign {
            Phase::Playing
        } else if !legal.discard_from.is_empty() {
            Phase::Discarding
        } else if !legal.contracts.is_empty() {
            Phase::Declaring
        } else if legal.pick_up_skat || legal.play_hand {
            Phase::SkatDecision
        } else {
            Phase::Bidding
        };
        // The declarer is known to the view as soon as the auction ends: at the skat
        // decision, it is this seat.
        let declarer = if phase == Phase::SkatDecision { Some(d.position) } else { d.declarer };
        let current_trick = if d.trick.is_empty() { None } else { Trick::from_cards(d.leader, &d.trick) };
        Some(Knowledge {
            seat: self.seat,
            position: d.position,
            deal: d.number,
            seats: d.seats,
            phase,
            hand: d.hand,
            legal,
            auction: d.auction.clone(),
            bid: d.bid,
            declarer,
            contract: d.contract,
            hand_game: d.contract.is_some() && d.played_hand,
            skat: d.skat,
            discards: d.discards,
            open_hand: d.open_hand,
            current_trick,
            tricks: d.tricks.clone(),
        })
    }
}
