//! [`Deal`]: one deal from the cards dealt to the last trick, as a state machine that
//! changes only through the checked [`Deal::apply`].
//!
//! Every check happens before anything changes, so a refused action leaves the deal
//! exactly as it was. The play path (legal cards, playing a card, closing a trick) is bit
//! operations on [`CardSet`]s and allocates nothing.

use crate::action::{Action, Phase, RuleError};
use crate::auction::{Auction, Call};
use crate::bid::Bid;
use crate::card::Card;
use crate::cards::CardSet;
use crate::contract::{Announcement, Contract, GameType};
use crate::dealing::Dealt;
use crate::position::Position;
pub use crate::score::DealEnd;
use crate::score::{self, Outcome, Played};

pub use crate::trick::Trick;

/// One deal of Skat.
///
/// # Examples
///
/// The deal says whose turn it is and refuses anything else, unchanged:
///
/// ```
/// use skat_engine::{Action, Bid, Deal, Dealt, Phase, Position, RuleError};
///
/// let mut deal = Deal::new(Dealt::seeded(7, 0));
/// assert_eq!(deal.phase(), Phase::Bidding);
/// let first = deal.to_move().expect("someone opens the auction");
/// let other = Position::ALL.into_iter().find(|p| *p != first).expect("three positions");
/// let bid = Action::Bid { value: Bid::new(18).expect("18 is on the ladder") };
/// assert!(matches!(deal.apply(other, bid), Err(RuleError::NotYourTurn { .. })));
/// assert_eq!(deal.to_move(), Some(first), "a refused action changes nothing");
/// deal.apply(first, bid).expect("the one to move may bid 18");
/// assert_eq!(deal.hand(first).len(), 10);
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Deal {
    dealt: Dealt,
    hands: [CardSet; 3],
    phase: Phase,
    auction: Auction,
    skat_picked_up: bool,
    discards: CardSet,
    contract: Option<Contract>,
    trick: Trick,
    tricks: [Trick; 10],
    n_tricks: u8,
    declarer_won: CardSet,
    defenders_won: CardSet,
    declarer_tricks: u8,
    resigned: [bool; 3],
    claimed: bool,
    end: Option<DealEnd>,
}

impl Deal {
    /// A deal of these cards, ready for the auction.
    pub fn new(dealt: Dealt) -> Deal {
        Deal {
            dealt,
            hands: dealt.hands,
            phase: Phase::Bidding,
            auction: Auction::new(),
            skat_picked_up: false,
            discards: CardSet::EMPTY,
            contract: None,
            trick: Trick::new(Position::Forehand),
            tricks: [Trick::new(Position::Forehand); 10],
            n_tricks: 0,
            declarer_won: CardSet::EMPTY,
            defenders_won: CardSet::EMPTY,
            declarer_tricks: 0,
            resigned: [false; 3],
            claimed: false,
            end: None,
        }
    }

    // ----- reading the state -------------------------------------------------------

    /// The cards as dealt.
    pub fn dealt(&self) -> &Dealt {
        &self.dealt
    }

    /// The current phase.
    pub fn phase(&self) -> Phase {
        self.phase
    }

    /// The cards a position holds now.
    pub fn hand(&self, p: Position) -> CardSet {
        self.hands[p.index()]
    }

    /// The auction.
    pub fn auction(&self) -> &Auction {
        &self.auction
    }

    /// The highest bid.
    pub fn bid(&self) -> Option<Bid> {
        self.auction.bid()
    }

    /// The declarer, once the auction has one.
    pub fn declarer(&self) -> Option<Position> {
        self.auction.declarer()
    }

    /// Whether the declarer picked up the skat (false before the decision and in a hand
    /// game).
    pub fn skat_picked_up(&self) -> bool {
        self.skat_picked_up
    }

    /// Whether the game is a hand game (known once the declarer has decided).
    pub fn is_hand_game(&self) -> bool {
        !self.skat_picked_up && (self.phase == Phase::Declaring || self.contract.is_some())
    }

    /// The cards put away by the declarer (empty before the discard and in hand games).
    pub fn discards(&self) -> CardSet {
        self.discards
    }

    /// The declared contract.
    pub fn contract(&self) -> Option<Contract> {
        self.contract
    }

    /// The trick being played (empty at the start of a trick).
    pub fn current_trick(&self) -> &Trick {
        &self.trick
    }

    /// The completed tricks, in order.
    pub fn tricks(&self) -> &[Trick] {
        &self.tricks[..self.n_tricks as usize]
    }

    /// Whether the declarer has claimed (the declarer's cards are then public).
    pub fn claimed(&self) -> bool {
        self.claimed
    }

    /// Which positions have resigned.
    pub fn resigned(&self) -> [bool; 3] {
        self.resigned
    }

    /// How the deal ended, once it has.
    pub fn end(&self) -> Option<DealEnd> {
        self.end
    }

    /// Whether the deal is over.
    pub fn is_finished(&self) -> bool {
        self.phase == Phase::Finished
    }

    /// Cards won so far by the declarer's side and by the defenders (tricks only; the
    /// skat is added when scoring).
    pub fn won_cards(&self) -> (CardSet, CardSet) {
        (self.declarer_won, self.defenders_won)
    }

    /// Tricks won by the declarer so far.
    pub fn declarer_tricks(&self) -> u8 {
        self.declarer_tricks
    }

    /// Whether the declarer's hand is open to everyone (ouvert after the declaration, or
    /// after a claim).
    pub fn declarer_hand_open(&self) -> bool {
        self.claimed || self.contract.is_some_and(Contract::ouvert)
    }

    /// Who must act now: the bidder, the declarer, or the player to play. `None` when
    /// finished. (Resigning and claiming are open to others too during play.)
    pub fn to_move(&self) -> Option<Position> {
        match self.phase {
            Phase::Bidding => self.auction.to_move(),
            Phase::SkatDecision | Phase::Discarding | Phase::Declaring => self.declarer(),
            Phase::Playing => Some(self.next_to_play()),
            Phase::Finished => None,
        }
    }

    fn next_to_play(&self) -> Position {
        match self.trick.len {
            0 => self.trick.leader,
            1 => self.trick.leader.next(),
            _ => self.trick.leader.next().next(),
        }
    }

    /// The cards `p` may play now (empty when it is not `p`'s turn to play).
    #[inline]
    pub fn playable_cards(&self, p: Position) -> CardSet {
        if self.phase != Phase::Playing || p != self.next_to_play() {
            return CardSet::EMPTY;
        }
        let hand = self.hands[p.index()];
        match (self.trick.led(), self.contract) {
            (Some(led), Some(contract)) => contract.game.playable(hand, led),
            _ => hand,
        }
    }

    /// The result, once the deal is over.
    pub fn outcome(&self) -> Option<Outcome> {
        let end = self.end?;
        let hand = !self.skat_picked_up();
        let declarer = self.declarer();
        let played = Played {
            declarer,
            contract: self.contract(),
            bid: self.bid(),
            hand,
            matador_cards: declarer.map_or(CardSet::EMPTY, |d| self.dealt.hand(d) | self.dealt.skat),
            skat: if hand { self.dealt.skat } else { self.discards() },
            declarer_won: self.won_cards().0,
            declarer_tricks: self.declarer_tricks(),
        };
        Some(score::outcome(&played, end))
    }

    // ----- changing the state ------------------------------------------------------

    /// Applies `action` by `who`, or explains which rule refuses it and changes nothing.
    #[inline]
    pub fn apply(&mut self, who: Position, action: Action) -> Result<(), RuleError> {
        match action {
            Action::Play { card } => self.play(who, card),
            _ => self.apply_other(who, action),
        }
    }

    #[inline(never)]
    fn apply_other(&mut self, who: Position, action: Action) -> Result<(), RuleError> {
        if self.phase == Phase::Finished {
            return Err(RuleError::DealOver);
        }
        match action {
            Action::Bid { value } => self.call(who, Call::Bid { value }, action),
            Action::Hold => self.call(who, Call::Hold, action),
            Action::Pass => self.call(who, Call::Pass, action),
            Action::PickUpSkat | Action::PlayHand => {
                self.expect_declarer(who, Phase::SkatDecision, action)?;
                if action == Action::PickUpSkat {
                    self.skat_picked_up = true;
                    self.hands[who.index()] |= self.dealt.skat;
                    self.phase = Phase::Discarding;
                } else {
                    self.phase = Phase::Declaring;
                }
                Ok(())
            }
            Action::Discard { cards } => {
                self.expect_declarer(who, Phase::Discarding, action)?;
                if cards.len() != 2 {
                    return Err(RuleError::DiscardCount);
                }
                let hand = self.hands[who.index()];
                if let Some(card) = (cards - hand).first() {
                    return Err(RuleError::NotInHand { card });
                }
                self.hands[who.index()] = hand - cards;
                self.discards = cards;
                self.phase = Phase::Declaring;
                Ok(())
            }
            Action::Declare { contract } => {
                self.expect_declarer(who, Phase::Declaring, action)?;
                self.check_contract(contract)?;
                self.contract = Some(contract);
                self.phase = Phase::Playing;
                self.trick = Trick::new(Position::Forehand);
                Ok(())
            }
            Action::Play { card } => self.play(who, card),
            Action::Claim => {
                self.expect_playing(action)?;
                if Some(who) != self.declarer() {
                    return Err(RuleError::NotDeclarer { action: action.name() });
                }
                if self.claimed {
                    return Err(RuleError::AlreadyClaimed);
                }
                self.claimed = true;
                Ok(())
            }
            Action::Resign => {
                self.expect_playing(action)?;
                if self.resigned[who.index()] {
                    return Err(RuleError::AlreadyResigned);
                }
                self.resigned[who.index()] = true;
                if Some(who) == self.declarer() {
                    self.finish(DealEnd::DeclarerResigned);
                } else if Position::ALL
                    .iter()
                    .filter(|p| Some(**p) != self.declarer())
                    .all(|p| self.resigned[p.index()])
                {
                    self.finish(DealEnd::DefendersResigned);
                }
                Ok(())
            }
            Action::Forfeit { reason } => {
                self.finish(DealEnd::Forfeit { position: who, reason });
                Ok(())
            }
        }
    }

    /// Checks `action` by `who` without applying it.
    pub fn check(&self, who: Position, action: Action) -> Result<(), RuleError> {
        // Cheap enough: the state is a few hundred bytes and nothing is allocated.
        self.clone().apply(who, action)
    }

    fn call(&mut self, who: Position, call: Call, action: Action) -> Result<(), RuleError> {
        if self.phase != Phase::Bidding {
            return Err(RuleError::WrongPhase { action: action.name(), phase: self.phase });
        }
        self.auction.apply(who, call)?;
        if self.auction.is_done() {
            if self.auction.declarer().is_some() {
                self.phase = Phase::SkatDecision;
            } else {
                self.finish(DealEnd::PassedIn);
            }
        }
        Ok(())
    }

    fn expect_declarer(&self, who: Position, phase: Phase, action: Action) -> Result<(), RuleError> {
        if self.phase != phase {
            return Err(RuleError::WrongPhase { action: action.name(), phase: self.phase });
        }
        match self.declarer() {
            Some(d) if d == who => Ok(()),
            _ => Err(RuleError::NotDeclarer { action: action.name() }),
        }
    }

    fn expect_playing(&self, action: Action) -> Result<(), RuleError> {
        if self.phase == Phase::Playing {
            Ok(())
        } else {
            Err(RuleError::WrongPhase { action: action.name(), phase: self.phase })
        }
    }

    /// The contracts the declarer may declare now (phase aside), in [`Contract::all`]
    /// order, as a fixed array and a count: nothing is allocated.
    pub fn legal_contracts(&self) -> ([Contract; 24], usize) {
        contracts_allowed(self.skat_picked_up, self.bid())
    }

    /// Whether `contract` may be declared now (phase and declarer aside).
    pub fn check_contract(&self, contract: Contract) -> Result<(), RuleError> {
        check_contract(contract, self.skat_picked_up, self.bid())
    }

    /// Plays a card: the hot path.
    #[inline]
    fn play(&mut self, who: Position, card: Card) -> Result<(), RuleError> {
        if self.phase == Phase::Finished {
            return Err(RuleError::DealOver);
        }
        if self.phase != Phase::Playing {
            return Err(RuleError::WrongPhase { action: "play a card", phase: self.phase });
        }
        let to_move = self.next_to_play();
        if who != to_move {
            return Err(RuleError::NotYourTurn { to_move, expected: "play" });
        }
        let hand = self.hands[who.index()];
        if !hand.contains(card) {
            return Err(RuleError::NotInHand { card });
        }
        let Some(contract) = self.contract else {
            return Err(RuleError::WrongPhase { action: "play a card", phase: self.phase });
        };
        if let Some(led) = self.trick.led()
            && !contract.game.playable(hand, led).contains(card)
        {
            let led_name = if contract.game.trumps().contains(led) { "trump" } else { led.suit().name() };
            return Err(RuleError::MustFollowSuit { led: led_name });
        }
        self.hands[who.index()] = hand.without(card);
        self.trick.cards[self.trick.len as usize] = card;
        self.trick.len += 1;
        if self.trick.len == 3 {
            self.close_trick(contract);
        }
        Ok(())
    }

    #[inline(never)]
    fn close_trick(&mut self, contract: Contract) {
        let winner = self.trick.winner(contract.game).unwrap_or(self.trick.leader);
        let cards = self.trick.card_set();
        let declarer_won = Some(winner) == self.declarer();
        if declarer_won {
            self.declarer_won |= cards;
            self.declarer_tricks += 1;
        } else {
            self.defenders_won |= cards;
        }
        self.tricks[self.n_tricks as usize] = self.trick;
        self.n_tricks += 1;
        self.trick = Trick::new(winner);
        if self.n_tricks == 10 {
            self.finish(DealEnd::PlayedOut);
        } else if declarer_won && contract.game.is_null() {
            self.finish(DealEnd::DeclarerTookTrick);
        } else if !declarer_won && contract.schwarz_announced() {
            self.finish(DealEnd::DefendersTookTrick);
        }
    }

    /// Ends the deal. When play ends early, the cards still in the hands and the open
    /// trick go to the side that did not give up (in null always to the defenders: the
    /// declarer's aim is to take nothing), with the tricks not yet played.
    fn finish(&mut self, end: DealEnd) {
        self.phase = Phase::Finished;
        self.end = Some(end);
        let (Some(declarer), Some(contract)) = (self.declarer(), self.contract) else {
            return;
        };
        let remaining = self.hands[0] | self.hands[1] | self.hands[2] | self.trick.card_set();
        if remaining.is_empty() {
            return;
        }
        let declarer_gets = !contract.game.is_null()
            && match end {
                DealEnd::DefendersResigned => true,
                DealEnd::Forfeit { position, .. } => position != declarer,
                _ => false,
            };
        let tricks_left = 10 - self.n_tricks;
        if declarer_gets {
            self.declarer_won |= remaining;
            self.declarer_tricks += tricks_left;
        } else {
            self.defenders_won |= remaining;
        }
    }
}

/// The contracts a declarer may declare (phase aside) after picking up the skat or not,
/// at this bid, in [`Contract::all`] order, as a fixed array and a count.
pub(crate) fn contracts_allowed(picked_up: bool, bid: Option<Bid>) -> ([Contract; 24], usize) {
    const LEVELS: [Announcement; 4] =
        [Announcement::None, Announcement::Schneider, Announcement::Schwarz, Announcement::Ouvert];
    let mut legal = [Contract::plain(GameType::Grand); 24];
    let mut n = 0;
    for game in GameType::ALL {
        for announcement in LEVELS {
            let c = Contract { game, announcement };
            if check_contract(c, picked_up, bid).is_ok() {
                legal[n] = c;
                n += 1;
            }
        }
    }
    (legal, n)
}

/// Whether `contract` may be declared after picking up the skat or not, at this bid.
pub(crate) fn check_contract(contract: Contract, picked_up: bool, bid: Option<Bid>) -> Result<(), RuleError> {
    let hand = !picked_up;
    if contract.game.is_null() {
        if matches!(contract.announcement, Announcement::Schneider | Announcement::Schwarz) {
            return Err(RuleError::NullAnnouncement);
        }
        if let (Some(value), Some(bid)) = (contract.null_value(hand), bid)
            && value < bid.value()
        {
            return Err(RuleError::NullBelowBid { value, bid });
        }
    } else if !hand && contract.announcement != Announcement::None {
        return Err(RuleError::AnnouncementNeedsHand);
    }
    Ok(())
}
