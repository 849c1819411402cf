//! [`SeatView`]: what one seat (or a spectator) knows about its match, folded from the
//! events it is shown.
//!
//! This is the one model of a seat's knowledge. The server shows a seat its events
//! ([`GameEvent::seen_by`](crate::GameEvent::seen_by)); a client folds them into a
//! `SeatView` and holds exactly the [`View`] the engine computes for that seat
//! ([`Deal::view`](crate::Deal::view)), which the property test `tests/seat_view.rs` proves
//! at every step of thousands of random deals at 3 and 4 seats. The fold does not apply
//! the rules itself: the events carry the facts (phase, who is to move, the declarer, the
//! bid, the declaration with its hand flag, trick winners); only the seat's own legal
//! actions are derived, by the same rule the deal uses.

use serde::{Deserialize, Serialize};

use crate::action::{Action, Phase};
use crate::auction::{Auction, AuctionCall, Call};
use crate::cards::CardSet;
use crate::contract::{Contract, GameType};
use crate::deal::Trick;
use crate::events::{EventView, Facts, GameEvent, redact_move};
use crate::matches::{Seat, SeatStanding};
use crate::position::Position;
use crate::view::{Knowns, LegalActions, TrickView, View};

/// The match frame of the current deal: which deal, who deals, who sits where.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct DealFrame {
    /// The deal's number in the list, from 0.
    pub number: u32,
    /// The dealer's seat (rearhand at 3 seats; sitting out at 4).
    pub dealer: Seat,
    /// The seats at forehand, middlehand, rearhand.
    pub seats: [Seat; 3],
}

/// What one seat (or a spectator, `seat` = `None`) knows about its match.
///
/// # Examples
///
/// A seat's knowledge folded from the events it is shown agrees with what the engine
/// says that seat sees:
///
/// ```
/// use skat_engine::{Match, MatchConfig, Seat, SeatView, random::RandomPlayer};
///
/// let mut list = Match::new(MatchConfig { deals: 1, ..MatchConfig::standard(3, 3) }).expect("3 seats");
/// let me = Seat::new(1);
/// let mut knows = SeatView::new(Some(me));
/// knows.apply(&list.deal_started_event().seen_by(Some(me)));
/// assert_eq!(knows.view.hand, list.view(Some(me)).hand, "my ten cards, nobody else's");
/// let mut player = RandomPlayer::new(9);
/// while let Some(seat) = list.seat_to_move() {
///     let action = player.choose(list.deal(), list.position_of(seat).expect("at the table"));
///     for event in list.apply(seat, action).expect("legal").events {
///         knows.apply(&event.seen_by(Some(me)));
///     }
///     if !list.is_over() {
///         assert_eq!(knows.view.hand, list.view(Some(me)).hand);
///     }
/// }
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SeatView {
    /// Whose knowledge this is (`None`: a spectator).
    pub seat: Option<Seat>,
    /// The current deal's frame, once a deal has started.
    pub frame: Option<DealFrame>,
    /// The current deal as this seat sees it (an empty bidding view before the first deal).
    pub view: View,
    /// The standings, once the match is over.
    pub final_standings: Option<Vec<SeatStanding>>,
    /// The auction replayed from the public calls (for the seat's own legal actions).
    #[serde(skip)]
    auction: Auction,
}

impl std::ops::Deref for SeatView {
    type Target = View;

    fn deref(&self) -> &View {
        &self.view
    }
}

fn fresh_view(viewer: Option<Position>, hand: CardSet) -> View {
    let auction = Auction::new();
    View {
        viewer,
        phase: Phase::Bidding,
        to_move: auction.to_move(),
        hand,
        hand_sizes: [10; 3],
        auction: Vec::new(),
        bid: None,
        declarer: None,
        skat_picked_up: None,
        skat: CardSet::EMPTY,
        discards: CardSet::EMPTY,
        contract: None,
        hand_game: false,
        open_hand: None,
        current_trick: None,
        tricks: Vec::new(),
        claimed: false,
        resigned: [false; 3],
        dealt: None,
        outcome: None,
        legal: LegalActions::default(),
    }
}

impl SeatView {
    /// Knowledge before any event, for `seat` (`None`: a spectator).
    pub fn new(seat: Option<Seat>) -> SeatView {
        SeatView {
            seat,
            frame: None,
            view: fresh_view(None, CardSet::EMPTY),
            final_standings: None,
            auction: Auction::new(),
        }
    }

    /// Knowledge taken over from a view the engine (or the server) computed, for a seat
    /// that starts following in the middle of a deal.
    pub fn from_view(seat: Option<Seat>, frame: DealFrame, view: View) -> SeatView {
        let mut auction = Auction::new();
        for call in &view.auction {
            // The view's auction is the engine's own history: it replays.
            let _ = auction.apply(call.position, call.call);
        }
        SeatView { seat, frame: Some(frame), view, final_standings: None, auction }
    }

    /// This seat's position in the current deal (`None`: a spectator, or the dealer
    /// sitting out at 4 seats).
    pub fn position(&self) -> Option<Position> {
        self.view.viewer
    }

    /// Takes in the next event this seat is shown.
    pub fn apply(&mut self, event: &EventView) {
        self.fold(event);
        self.view.legal = self.legal();
    }

    /// Takes in an event without working out the seat's legal actions: for a client whose
    /// server sends them with the event (it sets `view.legal` itself).
    pub fn record(&mut self, event: &EventView) {
        self.fold(event);
    }

    /// Takes in several events in a row (the seat's legal actions are worked out once, at
    /// the end: for a client that catches up on a backlog).
    pub fn apply_all(&mut self, events: impl IntoIterator<Item = EventView>) {
        for e in events {
            self.fold(&e);
        }
        self.view.legal = self.legal();
    }

    /// [`SeatView::apply_all`] of what this seat is shown of `events` (each as
    /// [`GameEvent::seen_by`] shows it), without making the shown copies: for a host that
    /// keeps the whole log and folds each seat from it (the arena in process, where making
    /// the copies cost a fifth of a deal).
    pub fn apply_seen(&mut self, events: &[GameEvent]) {
        for e in events {
            match e {
                GameEvent::Moved { seat, position, action, skat, open_hand, facts, .. } => {
                    let (action, skat) = redact_move(self.seat == Some(*seat), *action, *skat);
                    self.moved(*position, action, skat, *open_hand, facts);
                }
                other => self.fold(&other.seen_by(self.seat)),
            }
        }
        self.view.legal = self.legal();
    }

    fn fold(&mut self, event: &EventView) {
        match event {
            EventView::DealStarted { number, dealer, seats, hand } => {
                let viewer =
                    self.seat.and_then(|s| seats.iter().position(|x| *x == s)).and_then(Position::from_index);
                self.frame = Some(DealFrame { number: *number, dealer: *dealer, seats: *seats });
                // The old deal's vectors are reused: a new deal allocates nothing.
                let mut auction = std::mem::take(&mut self.view.auction);
                let mut tricks = std::mem::take(&mut self.view.tricks);
                auction.clear();
                tricks.clear();
                let hand = if viewer.is_some() { *hand } else { CardSet::EMPTY };
                self.view = View { auction, tricks, ..fresh_view(viewer, hand) };
                self.auction = Auction::new();
            }
            EventView::Moved { position, action, skat, open_hand, facts, .. } => {
                self.moved(*position, *action, *skat, *open_hand, facts);
            }
            EventView::DealEnded { outcome, dealt, discards, .. } => {
                let v = &mut self.view;
                v.phase = Phase::Finished;
                v.to_move = None;
                v.dealt = Some(*dealt);
                v.outcome = Some(*outcome);
                v.skat = dealt.skat;
                v.discards = *discards;
                v.open_hand = None;
            }
            EventView::MatchEnded { standings } => self.final_standings = Some(standings.clone()),
        }
    }

    fn moved(&mut self, who: Position, action: Action, skat: CardSet, open_hand: CardSet, facts: &Facts) {
        let mine = self.view.viewer == Some(who);
        let v = &mut self.view;
        match action {
            Action::Bid { value } => {
                let _ = self.auction.apply(who, Call::Bid { value });
                v.auction.push(AuctionCall { position: who, call: Call::Bid { value } });
            }
            Action::Hold => {
                let _ = self.auction.apply(who, Call::Hold);
                v.auction.push(AuctionCall { position: who, call: Call::Hold });
            }
            Action::Pass => {
                let _ = self.auction.apply(who, Call::Pass);
                v.auction.push(AuctionCall { position: who, call: Call::Pass });
            }
            Action::PickUpSkat => {
                v.skat_picked_up = Some(true);
                v.hand_sizes[who.index()] = v.hand_sizes[who.index()].saturating_add(2);
                if mine {
                    v.skat = skat;
                    v.hand |= skat;
                }
            }
            Action::PlayHand => v.skat_picked_up = Some(false),
            Action::Discard { cards } => {
                v.hand_sizes[who.index()] = v.hand_sizes[who.index()].saturating_sub(2);
                if mine {
                    v.discards = cards;
                    v.hand = v.hand - cards;
                }
            }
            Action::Declare { .. } => {}
            Action::Play { card } => {
                v.hand_sizes[who.index()] = v.hand_sizes[who.index()].saturating_sub(1);
                if mine {
                    v.hand.remove(card);
                }
                if facts.declarer == Some(who)
                    && let Some(open) = v.open_hand.as_mut()
                {
                    open.remove(card);
                    if open.is_empty() {
                        v.open_hand = None;
                    }
                }
                let (trick, complete) = v.current_trick.unwrap_or(Trick::led_by(who)).with(card);
                match (facts.trick_winner, complete) {
                    (Some(winner), Some(cards)) => {
                        v.tricks.push(TrickView { leader: trick.leader, cards, winner });
                        v.current_trick = None;
                    }
                    _ => v.current_trick = Some(trick),
                }
            }
            Action::Claim => v.claimed = true,
            Action::Resign => v.resigned[who.index()] = true,
            Action::Forfeit { .. } => {}
        }
        if !open_hand.is_empty() {
            v.open_hand = Some(open_hand);
        }
        v.phase = facts.phase;
        v.to_move = facts.to_move;
        v.declarer = facts.declarer;
        v.bid = facts.bid;
        v.contract = facts.declaration.map(|d| d.contract);
        v.hand_game = facts.declaration.is_some_and(|d| d.hand) || v.skat_picked_up == Some(false);
    }

    /// What this seat may do now, by the deal's own rule.
    fn legal(&self) -> LegalActions {
        let v = &self.view;
        let Some(me) = v.viewer else { return LegalActions::default() };
        Knowns {
            me,
            phase: v.phase,
            to_move: v.to_move,
            expect: self.auction.expect(),
            hand: v.hand,
            led: v.current_trick.and_then(|t| t.led()),
            game: v.contract.map(|c| c.game),
            bid: v.bid,
            picked_up: v.skat_picked_up == Some(true),
            resigned: v.resigned,
            claimed: v.claimed,
            declarer: v.declarer,
        }
        .legal()
    }

    // ----- what bots ask -----------------------------------------------------------

    /// The game being played, once declared.
    pub fn game(&self) -> Option<GameType> {
        self.view.contract.map(|c| c.game)
    }

    /// The declaration, once made.
    pub fn contract(&self) -> Option<Contract> {
        self.view.contract
    }

    /// Whether this seat is the declarer.
    pub fn is_declarer(&self) -> bool {
        self.view.viewer.is_some() && self.view.declarer == self.view.viewer
    }

    /// Every card played so far (completed tricks and the current one).
    pub fn played(&self) -> CardSet {
        let mut s = self.view.current_trick.map_or(CardSet::EMPTY, |t| t.card_set());
        for t in &self.view.tricks {
            s |= t.cards.iter().copied().collect::<CardSet>();
        }
        s
    }

    /// The cards this seat has not seen: still in other hands (or the unseen skat).
    pub fn cards_out(&self) -> CardSet {
        CardSet::DECK
            - self.view.hand
            - self.played()
            - self.view.skat
            - self.view.discards
            - self.view.open_hand.unwrap_or_default()
    }

    /// Per position, the cards it cannot hold: those of every suit (trumps counted as one
    /// suit) it failed to follow.
    pub fn cannot_hold(&self) -> [CardSet; 3] {
        let mut out = [CardSet::EMPTY; 3];
        let Some(game) = self.game() else { return out };
        let tricks = self.view.tricks.iter().map(|t| (t.leader, &t.cards[..]));
        let current = self.view.current_trick.as_ref().map(|t| (t.leader, t.cards()));
        for (leader, cards) in tricks.chain(current) {
            let Some(led) = cards.first().copied() else { continue };
            let follow = game.follow_set(led);
            let mut p = leader;
            for c in cards {
                if !follow.contains(*c) {
                    out[p.index()] |= follow;
                }
                p = p.next();
            }
        }
        out
    }

    /// Whether `a` and `b` play on the same side (both the declarer, or both defenders).
    pub fn same_side(&self, a: Position, b: Position) -> bool {
        let decl = self.view.declarer;
        (Some(a) == decl) == (Some(b) == decl)
    }
}
