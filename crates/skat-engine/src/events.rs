//! What happens in a match as a stream of events, and each event as one seat (or a
//! spectator) may see it.
//!
//! The server keeps the full [`GameEvent`]s in its table log and calls
//! [`GameEvent::seen_by`] when it sends one, so redaction happens in exactly one place,
//! by the rules of "Who sees what":
//!
//! - a new deal shows each seat its own ten cards only;
//! - a pick-up shows the skat to the declarer only; a discard shows its cards to the
//!   declarer only;
//! - an ouvert declaration or a claim shows the declarer's cards to everyone;
//! - played cards, bids, declarations and results are public, and at the end of a deal
//!   every card is.

use serde::{Deserialize, Serialize};

use crate::action::{Action, Phase};
use crate::bid::Bid;
use crate::cards::CardSet;
use crate::contract::Declaration;
use crate::dealing::Dealt;
use crate::position::Position;
use crate::score::Outcome;
use crate::seat::{Seat, SeatStanding};

/// The public state of the deal right after a move: what clients would otherwise have to
/// recompute from the rules (and could get wrong).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Facts {
    /// The phase now.
    pub phase: Phase,
    /// Who must act now (`None` when the deal is over).
    pub to_move: Option<Position>,
    /// The declarer, once the auction has one.
    pub declarer: Option<Position>,
    /// The highest bid so far.
    pub bid: Option<Bid>,
    /// The game, once declared, with its hand flag.
    pub declaration: Option<Declaration>,
    /// When this move completed a trick: who took it.
    pub trick_winner: Option<Position>,
}

/// A match event with everything in it (never sent as is).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum GameEvent {
    /// A deal was dealt.
    DealStarted {
        /// Its number, from 0.
        number: u32,
        /// The dealer.
        dealer: Seat,
        /// The seats at forehand, middlehand, rearhand.
        seats: [Seat; 3],
        /// The cards.
        dealt: Dealt,
    },
    /// A seat acted (or the table for it: a forfeit).
    Moved {
        /// The deal's number.
        number: u32,
        /// Who.
        seat: Seat,
        /// Its position.
        position: Position,
        /// What.
        action: Action,
        /// The skat, when the action picked it up.
        skat: CardSet,
        /// The declarer's cards, when the action opened them (ouvert declaration, claim).
        open_hand: CardSet,
        /// The deal's public state after the move.
        facts: Facts,
    },
    /// A deal ended.
    DealEnded {
        /// The deal's number.
        number: u32,
        /// The seats at forehand, middlehand, rearhand.
        seats: [Seat; 3],
        /// The result.
        outcome: Outcome,
        /// The cards as dealt.
        dealt: Dealt,
        /// The declarer's discards.
        discards: CardSet,
        /// Seeger-Fabian points of this deal per seat.
        seeger_fabian: Vec<i32>,
    },
    /// The list is complete.
    MatchEnded {
        /// Final totals.
        standings: Vec<SeatStanding>,
    },
}

/// An event as one viewer may see it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum EventView {
    /// A deal was dealt.
    DealStarted {
        /// Its number.
        number: u32,
        /// The dealer.
        dealer: Seat,
        /// The seats at forehand, middlehand, rearhand.
        seats: [Seat; 3],
        /// The viewer's own cards (empty for spectators and a dealer sitting out).
        hand: CardSet,
    },
    /// A seat acted.
    Moved {
        /// The deal's number.
        number: u32,
        /// Who.
        seat: Seat,
        /// Its position.
        position: Position,
        /// What; a discard's cards are empty unless the viewer made it.
        action: Action,
        /// The skat, for the declarer who picked it up; empty for everyone else.
        skat: CardSet,
        /// The declarer's cards when this action opened them.
        open_hand: CardSet,
        /// The deal's public state after the move.
        facts: Facts,
    },
    /// A deal ended: everything is public.
    DealEnded {
        /// The deal's number.
        number: u32,
        /// The seats at forehand, middlehand, rearhand.
        seats: [Seat; 3],
        /// The result.
        outcome: Outcome,
        /// The cards as dealt.
        dealt: Dealt,
        /// The discards.
        discards: CardSet,
        /// Seeger-Fabian points of this deal per seat.
        seeger_fabian: Vec<i32>,
    },
    /// The list is complete.
    MatchEnded {
        /// Final totals.
        standings: Vec<SeatStanding>,
    },
}

/// What a move shows a viewer: its own discard and the skat it picked up; to everyone
/// else, that two cards were put away and that the skat was taken, not which.
pub(crate) fn redact_move(own: bool, action: Action, skat: CardSet) -> (Action, CardSet) {
    match action {
        Action::Discard { .. } if !own => (Action::Discard { cards: CardSet::EMPTY }, CardSet::EMPTY),
        _ if !own => (action, CardSet::EMPTY),
        _ => (action, skat),
    }
}

impl GameEvent {
    /// The event as `viewer` may see it (`None`: a spectator).
    pub fn seen_by(&self, viewer: Option<Seat>) -> EventView {
        match self {
            GameEvent::DealStarted { number, dealer, seats, dealt } => {
                let hand = viewer
                    .and_then(|v| seats.iter().position(|s| *s == v))
                    .map_or(CardSet::EMPTY, |i| dealt.hands[i]);
                EventView::DealStarted { number: *number, dealer: *dealer, seats: *seats, hand }
            }
            GameEvent::Moved { number, seat, position, action, skat, open_hand, facts } => {
                let (action, skat) = redact_move(viewer == Some(*seat), *action, *skat);
                EventView::Moved {
                    number: *number,
                    seat: *seat,
                    position: *position,
                    action,
                    skat,
                    open_hand: *open_hand,
                    facts: *facts,
                }
            }
            GameEvent::DealEnded { number, seats, outcome, dealt, discards, seeger_fabian } => {
                EventView::DealEnded {
                    number: *number,
                    seats: *seats,
                    outcome: *outcome,
                    dealt: *dealt,
                    discards: *discards,
                    seeger_fabian: seeger_fabian.clone(),
                }
            }
            GameEvent::MatchEnded { standings } => EventView::MatchEnded { standings: standings.clone() },
        }
    }
}
