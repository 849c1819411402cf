//! What a position may see and do: [`View`] and [`LegalActions`].
//!
//! This is the one place that applies "Who sees what" from the rules. Everything that
//! shows a deal to a player (the server's views and events, the SDK, bots) goes through
//! [`Deal::view`], so redaction cannot be forgotten somewhere else.
//!
//! - Own cards: always. Other hands: only the declarer's, when ouvert (after the
//!   declaration) or claimed, and every card once the deal is over.
//! - The skat: nobody before the pickup; then the declarer alone, who also alone sees
//!   the discards until the deal is over. In a hand game nobody sees it until the end.
//! - Public: bids and passes, whether the skat was picked up, the declaration, every
//!   played card, trick winners, results.

use serde::{Deserialize, Serialize};

use crate::action::{Action, Phase};
use crate::auction::{AuctionCall, Expect};
use crate::bid::Bid;
use crate::card::Card;
use crate::cards::CardSet;
use crate::contract::{Contract, GameType};
use crate::deal::{Deal, Trick};
use crate::dealing::Dealt;
use crate::position::Position;
use crate::score::Outcome;

/// Every action a position may take now. Resign and claim are open during play
/// whoever's turn it is; everything else only to the position to move.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct LegalActions {
    /// May say any ladder value from this one up.
    pub bid_from: Option<Bid>,
    /// May hold the value just said.
    pub hold: bool,
    /// May pass.
    pub pass: bool,
    /// May pick up the skat.
    pub pick_up_skat: bool,
    /// May play hand.
    pub play_hand: bool,
    /// Must discard exactly two of these (the whole 12-card hand) when non-empty.
    pub discard_from: CardSet,
    /// May declare one of these.
    pub contracts: Vec<Contract>,
    /// May play one of these cards.
    pub cards: CardSet,
    /// May claim the remaining tricks (declarer, during play).
    pub claim: bool,
    /// May resign (during play, once).
    pub resign: bool,
}

impl LegalActions {
    /// Whether the position must act now (anything but resign/claim).
    pub fn has_turn(&self) -> bool {
        self.bid_from.is_some()
            || self.hold
            || self.pass
            || self.pick_up_skat
            || self.play_hand
            || !self.discard_from.is_empty()
            || !self.contracts.is_empty()
            || !self.cards.is_empty()
    }

    /// Whether `action` is among these. Agrees with [`Deal::apply`] by construction.
    pub fn allows(&self, action: Action) -> bool {
        match action {
            Action::Bid { value } => self.bid_from.is_some_and(|min| value >= min),
            Action::Hold => self.hold,
            Action::Pass => self.pass,
            Action::PickUpSkat => self.pick_up_skat,
            Action::PlayHand => self.play_hand,
            Action::Discard { cards } => cards.len() == 2 && self.discard_from.contains_all(cards),
            Action::Declare { contract } => self.contracts.contains(&contract),
            Action::Play { card } => self.cards.contains(card),
            Action::Claim => self.claim,
            Action::Resign => self.resign,
            // The table's action, never a player's.
            Action::Forfeit { .. } => false,
        }
    }
}

/// A completed trick with its winner.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TrickView {
    /// Who led.
    pub leader: Position,
    /// The three cards in play order.
    pub cards: [Card; 3],
    /// Who took it.
    pub winner: Position,
}

/// A deal as one position (or a spectator) may see it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct View {
    /// Whose view this is; `None` for the public (spectator) view.
    pub viewer: Option<Position>,
    /// The phase.
    pub phase: Phase,
    /// Who must act now.
    pub to_move: Option<Position>,
    /// The viewer's cards now (empty for spectators).
    pub hand: CardSet,
    /// How many cards each position holds now.
    pub hand_sizes: [u8; 3],
    /// Bids and passes so far.
    pub auction: Vec<AuctionCall>,
    /// The highest bid.
    pub bid: Option<Bid>,
    /// The declarer, once known.
    pub declarer: Option<Position>,
    /// Whether the skat was picked up (`None` until the declarer decides).
    pub skat_picked_up: Option<bool>,
    /// The skat as dealt, when the viewer may see it (the declarer after the pickup;
    /// everyone at the end).
    pub skat: CardSet,
    /// The declarer's discards, when the viewer may see them.
    pub discards: CardSet,
    /// The declaration.
    pub contract: Option<Contract>,
    /// Whether the game is a hand game (once known).
    pub hand_game: bool,
    /// The declarer's current cards when they are open (ouvert or claimed).
    pub open_hand: Option<CardSet>,
    /// The trick in progress: leader and cards so far.
    pub current_trick: Option<Trick>,
    /// Completed tricks.
    pub tricks: Vec<TrickView>,
    /// The declarer has claimed the rest.
    pub claimed: bool,
    /// Who has resigned.
    pub resigned: [bool; 3],
    /// Every card as dealt, once the deal is over.
    pub dealt: Option<Dealt>,
    /// The result, once the deal is over.
    pub outcome: Option<Outcome>,
    /// What the viewer may do now (nothing for spectators).
    pub legal: LegalActions,
}

/// What a position knows that decides what it may do. The one rule of
/// [`LegalActions`]: the deal ([`Deal::legal_actions`]) and a seat's own fold of its
/// events ([`crate::SeatView`]) both ask it, so they cannot disagree.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Knowns {
    pub me: Position,
    pub phase: Phase,
    pub to_move: Option<Position>,
    pub expect: Option<Expect>,
    pub hand: CardSet,
    pub led: Option<Card>,
    pub game: Option<GameType>,
    pub bid: Option<Bid>,
    pub picked_up: bool,
    pub resigned: [bool; 3],
    pub claimed: bool,
    pub declarer: Option<Position>,
}

impl Knowns {
    pub(crate) fn legal(&self) -> LegalActions {
        let mut legal = LegalActions::default();
        let my_turn = self.to_move == Some(self.me);
        match self.phase {
            Phase::Bidding if my_turn => match self.expect {
                Some(Expect::Say { min }) => {
                    legal.bid_from = min;
                    legal.pass = true;
                }
                Some(Expect::Answer { .. }) => {
                    legal.hold = true;
                    legal.pass = true;
                }
                None => {}
            },
            Phase::SkatDecision if my_turn => {
                legal.pick_up_skat = true;
                legal.play_hand = true;
            }
            Phase::Discarding if my_turn => legal.discard_from = self.hand,
            Phase::Declaring if my_turn => {
                let (contracts, n) = crate::deal::contracts_allowed(self.picked_up, self.bid);
                legal.contracts = contracts[..n].to_vec();
            }
            Phase::Playing => {
                if my_turn {
                    legal.cards = match (self.led, self.game) {
                        (Some(led), Some(game)) => game.playable(self.hand, led),
                        _ => self.hand,
                    };
                }
                legal.resign = !self.resigned[self.me.index()];
                legal.claim = self.declarer == Some(self.me) && !self.claimed;
            }
            _ => {}
        }
        legal
    }
}

impl Deal {
    /// The actions `p` may take now.
    pub fn legal_actions(&self, p: Position) -> LegalActions {
        Knowns {
            me: p,
            phase: self.phase(),
            to_move: self.to_move(),
            expect: self.auction().expect(),
            hand: self.hand(p),
            led: self.current_trick().led(),
            game: self.contract().map(|c| c.game),
            bid: self.bid(),
            picked_up: self.skat_picked_up(),
            resigned: self.resigned(),
            claimed: self.claimed(),
            declarer: self.declarer(),
        }
        .legal()
    }

    /// The cards whose place `viewer` may know beyond the cards played to tricks (which
    /// are public): its own hand, the declarer's open hand, the skat and discards when
    /// allowed, everything at the end. `None` is a spectator. Used by [`Deal::view`] and
    /// by the tests that check it.
    pub fn visible_cards(&self, viewer: Option<Position>) -> CardSet {
        if self.is_finished() {
            return CardSet::DECK;
        }
        let mut seen = CardSet::EMPTY;
        let declarer = self.declarer();
        if let Some(v) = viewer {
            seen |= self.hand(v);
            if declarer == Some(v) && self.skat_picked_up() {
                seen |= self.dealt().skat | self.discards();
            }
        }
        if let Some(d) = declarer
            && self.declarer_hand_open()
        {
            seen |= self.hand(d);
        }
        seen
    }

    /// The deal as `viewer` may see it (`None`: a spectator).
    pub fn view(&self, viewer: Option<Position>) -> View {
        let finished = self.is_finished();
        let declarer = self.declarer();
        let is_declarer = viewer.is_some() && viewer == declarer;
        let skat_visible = finished || (is_declarer && self.skat_picked_up());
        let decided = self.skat_picked_up() || self.is_hand_game();
        let game = self.contract().map(|c| c.game);
        let current = self.current_trick();
        View {
            viewer,
            phase: self.phase(),
            to_move: self.to_move(),
            hand: viewer.map_or(CardSet::EMPTY, |v| self.hand(v)),
            hand_sizes: Position::ALL.map(|p| self.hand(p).len() as u8),
            auction: self.auction().history().collect(),
            bid: self.bid(),
            declarer,
            skat_picked_up: decided.then_some(self.skat_picked_up()),
            skat: if skat_visible { self.dealt().skat } else { CardSet::EMPTY },
            discards: if skat_visible { self.discards() } else { CardSet::EMPTY },
            contract: self.contract(),
            hand_game: self.is_hand_game(),
            // An open hand with no card left shows nothing: `None`, one shape for it.
            open_hand: match declarer {
                Some(d) if self.declarer_hand_open() && !finished && !self.hand(d).is_empty() => {
                    Some(self.hand(d))
                }
                _ => None,
            },
            current_trick: (!current.cards().is_empty()).then_some(*current),
            tricks: self.tricks().iter().map(|t| trick_view(t, game)).collect(),
            claimed: self.claimed(),
            resigned: self.resigned(),
            dealt: finished.then_some(*self.dealt()),
            outcome: self.outcome(),
            legal: viewer.map(|v| self.legal_actions(v)).unwrap_or_default(),
        }
    }
}

fn trick_view(t: &Trick, game: Option<GameType>) -> TrickView {
    let winner = game.and_then(|g| t.winner(g)).unwrap_or(t.leader);
    // A completed trick has three cards; the deal keeps only completed ones here.
    let c = t.cards();
    let cards = match *c {
        [a, b, d] => [a, b, d],
        _ => [c.first().copied().unwrap_or(Card::new(crate::Suit::Clubs, crate::Rank::Seven)); 3],
    };
    TrickView { leader: t.leader, cards, winner }
}

impl View {
    /// Every card this view names: hands, skat, discards, open hand, tricks, the deal.
    /// The hidden-information tests check this against [`Deal::visible_cards`] plus the
    /// played cards.
    pub fn named_cards(&self) -> CardSet {
        let mut s = self.hand | self.skat | self.discards | self.open_hand.unwrap_or_default();
        if let Some(t) = &self.current_trick {
            s |= t.card_set();
        }
        for t in &self.tricks {
            s |= t.cards.iter().copied().collect::<CardSet>();
        }
        if let Some(d) = &self.dealt {
            s |= d.hands[0] | d.hands[1] | d.hands[2] | d.skat;
        }
        s |= self.legal.cards | self.legal.discard_from;
        s
    }
}
