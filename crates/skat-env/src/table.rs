//! Deals stepped by action id: [`EnvDeal`] (one deal, three positions: what the batched
//! form steps) and [`EnvMatch`] (a list of deals at 3 or 4 seats with its records and
//! standings: what the multi-agent environment steps).
//!
//! Both hold the one piece of state the engine does not: the first card of a discard that
//! is given one card at a time (see [`crate::actions`]). Every action is checked before
//! anything changes, so a refused id leaves the deal as it was.

use skat_engine::matches::{MatchError, Seat};
use skat_engine::record::Move;
use skat_engine::{
    Action, Card, CardSet, Deal, DealRecord, Dealt, GameEvent, LegalActions, Match, MatchConfig, Outcome,
    Phase, Position, RuleError, View,
};

use crate::actions::{self, Step, UnknownAction};

/// Why an id was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EnvError {
    /// Not an id at all.
    #[error(transparent)]
    Unknown(#[from] UnknownAction),
    /// The rules refuse it (the engine's reason).
    #[error(transparent)]
    Rule(#[from] RuleError),
    /// The list or table refuses it (the engine's reason).
    #[error(transparent)]
    Match(#[from] MatchError),
    /// Half-way through a discard only the second card may follow.
    #[error("put away a second card first: a discard is two cards")]
    DiscardPending,
    /// The second card put away is the first again, or not in the hand.
    #[error("cannot put that card away: it is not among the cards left to put away")]
    BadDiscard,
}

/// Turns `step` by `p` into the engine action to apply: `Ok(None)` for a first discard
/// card (nothing reaches the engine yet). Whole actions are checked by the engine when
/// applied (it refuses without changing anything); discard cards are checked here.
fn resolve(deal: &Deal, p: Position, pending: Option<Card>, step: Step) -> Result<Option<Action>, EnvError> {
    match (step, pending) {
        (Step::Discard(second), Some(first)) => {
            if second == first || !deal.hand(p).contains(second) {
                return Err(EnvError::BadDiscard);
            }
            Ok(Some(Action::Discard { cards: CardSet::single(first).with(second) }))
        }
        (Step::Discard(first), None) => {
            let hand = deal.hand(p);
            if !deal.legal_actions(p).discard_from.contains(first) {
                // Not this seat's discard at all: the engine's own reason (turn, phase).
                let other = hand.without(first).first().unwrap_or(first);
                deal.check(p, Action::Discard { cards: CardSet::single(first).with(other) })?;
                return Err(EnvError::BadDiscard);
            }
            Ok(None)
        }
        (Step::Action(_), Some(_)) => Err(EnvError::DiscardPending),
        (Step::Action(a), None) => Ok(Some(a)),
    }
}

/// One deal between three positions, stepped by id.
#[derive(Debug, Clone)]
pub struct EnvDeal {
    deal: Deal,
    pending: Option<Card>,
    moves: Vec<Move>,
    keep_moves: bool,
}

impl EnvDeal {
    /// A deal of these cards.
    pub fn new(dealt: Dealt) -> EnvDeal {
        EnvDeal { deal: Deal::new(dealt), pending: None, moves: Vec::with_capacity(48), keep_moves: true }
    }

    /// A deal that keeps no moves (no record; nothing allocated while it is played): what
    /// the batch steps.
    pub fn unrecorded(dealt: Dealt) -> EnvDeal {
        EnvDeal { deal: Deal::new(dealt), pending: None, moves: Vec::new(), keep_moves: false }
    }

    /// The engine's deal.
    pub fn deal(&self) -> &Deal {
        &self.deal
    }

    /// The first card put away, while the declarer is half-way through its discard.
    pub fn pending_discard(&self) -> Option<Card> {
        self.pending
    }

    /// The moves so far, as the engine took them (a discard once, with both cards).
    pub fn moves(&self) -> &[Move] {
        &self.moves
    }

    /// Who must act.
    pub fn to_move(&self) -> Option<Position> {
        self.deal.to_move()
    }

    /// The legal actions of `p` in the engine's terms (claim and resign included).
    pub fn legal(&self, p: Position) -> LegalActions {
        self.deal.legal_actions(p)
    }

    /// The ids `p` may choose now.
    pub fn legal_ids(&self, p: Position) -> Vec<u16> {
        let mut ids = Vec::new();
        let legal = self.deal.legal_actions(p);
        if legal.has_turn() {
            actions::for_each_legal(&legal, self.pending_of(p), |id| ids.push(id));
        }
        ids
    }

    fn pending_of(&self, p: Position) -> Option<Card> {
        self.pending.filter(|_| self.deal.declarer() == Some(p))
    }

    /// `p`'s view, and the pending discard card if it is `p`'s.
    pub fn view(&self, p: Option<Position>) -> (View, Option<Card>) {
        (self.deal.view(p), p.and_then(|p| self.pending_of(p)))
    }

    /// Whether `id` is legal for the position to move, without changing anything.
    pub fn check(&self, id: i64) -> Result<(), EnvError> {
        let p = self.deal.to_move().ok_or(RuleError::DealOver)?;
        match resolve(&self.deal, p, self.pending, actions::decode(id)?)? {
            Some(action) => Ok(self.deal.check(p, action)?),
            None => Ok(()),
        }
    }

    /// The position to move takes `id`. Returns the outcome when the deal ends.
    pub fn step(&mut self, id: i64) -> Result<Option<Outcome>, EnvError> {
        let p = self.deal.to_move().ok_or(RuleError::DealOver)?;
        let step = actions::decode(id)?;
        match resolve(&self.deal, p, self.pending, step)? {
            None => {
                if let Step::Discard(c) = step {
                    self.pending = Some(c);
                }
            }
            Some(action) => {
                self.deal.apply(p, action)?;
                self.pending = None;
                if self.keep_moves {
                    self.moves.push(Move { position: p, action });
                }
            }
        }
        Ok(self.deal.outcome())
    }

    /// The finished deal's record (seats 0, 1, 2 at forehand, middlehand, rearhand); `None`
    /// before the end or for an [`EnvDeal::unrecorded`] deal.
    pub fn record(&self, number: u32, seed: Option<u64>) -> Option<DealRecord> {
        if !self.keep_moves {
            return None;
        }
        Some(DealRecord {
            number,
            seed,
            seats: [Seat::new(0), Seat::new(1), Seat::new(2)],
            dealer: Seat::new(2),
            dealt: *self.deal.dealt(),
            moves: self.moves.clone(),
            outcome: self.deal.outcome()?,
        })
    }
}

/// A list of deals at 3 or 4 seats, stepped by id: the engine's [`Match`] plus the
/// pending discard.
#[derive(Debug, Clone)]
pub struct EnvMatch {
    inner: Match,
    pending: Option<Card>,
    events: Vec<GameEvent>,
}

impl EnvMatch {
    /// A list of `deals` deals at `seats` seats dealt from `seed`.
    pub fn new(seats: u8, deals: u32, seed: u64) -> Result<EnvMatch, EnvError> {
        Ok(EnvMatch {
            inner: Match::new(MatchConfig { seats, deals, seed })?,
            pending: None,
            events: Vec::new(),
        })
    }

    /// The engine's match.
    pub fn inner(&self) -> &Match {
        &self.inner
    }

    /// The seat that must act (`None` once the list is over).
    pub fn to_move(&self) -> Option<Seat> {
        if self.inner.is_over() { None } else { self.inner.seat_to_move() }
    }

    /// The first card put away, while the declarer is half-way through its discard.
    pub fn pending_discard(&self) -> Option<Card> {
        self.pending
    }

    fn pending_of(&self, seat: Seat) -> Option<Card> {
        let p = self.inner.position_of(seat)?;
        self.pending.filter(|_| self.inner.deal().declarer() == Some(p))
    }

    /// What `seat` (`None`: a spectator) sees of the current deal, with its pending discard.
    pub fn view(&self, seat: Option<Seat>) -> (View, Option<Card>) {
        (self.inner.view(seat), seat.and_then(|s| self.pending_of(s)))
    }

    /// The ids `seat` may choose now (none when it is not its turn or it sits out).
    pub fn legal_ids(&self, seat: Seat) -> Vec<u16> {
        let mut ids = Vec::new();
        if self.inner.is_over() {
            return ids;
        }
        if let Some(p) = self.inner.position_of(seat) {
            let legal = self.inner.deal().legal_actions(p);
            if legal.has_turn() {
                actions::for_each_legal(&legal, self.pending_of(seat), |id| ids.push(id));
            }
        }
        ids
    }

    /// The seat to move takes `id`. Returns the record of the deal it ended, if any.
    pub fn step(&mut self, id: i64) -> Result<Option<DealRecord>, EnvError> {
        let seat = self.to_move().ok_or(MatchError::MatchOver)?;
        let p = self.inner.position_of(seat).ok_or(MatchError::SittingOut(seat))?;
        let step = actions::decode(id)?;
        match resolve(self.inner.deal(), p, self.pending, step)? {
            None => {
                if let Step::Discard(c) = step {
                    self.pending = Some(c);
                }
                self.events.clear();
                Ok(None)
            }
            Some(action) => {
                let applied = self.inner.apply(seat, action)?;
                self.pending = None;
                self.events = applied.events;
                Ok(applied.finished_deal)
            }
        }
    }

    /// The engine's events of the last step (none for a first discard card): what a server
    /// would show, before redaction.
    pub fn last_events(&self) -> &[GameEvent] {
        &self.events
    }

    /// Whether every deal has been played.
    pub fn is_over(&self) -> bool {
        self.inner.is_over()
    }

    /// The phase of the current deal.
    pub fn phase(&self) -> Phase {
        self.inner.deal().phase()
    }
}
