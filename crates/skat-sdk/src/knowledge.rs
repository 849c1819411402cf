//! [`Knowledge`]: everything one seat knows at a decision, typed and read-only, built
//! from the seat's view. Bots read this and nothing else.

use skat_engine::view::TrickView;
use skat_engine::{
    AuctionCall, Bid, Call, Card, CardSet, Contract, GameType, LegalActions, Phase, Position, Trick,
};
use skat_proto::convert;
use skat_proto::pb;

use crate::client::SdkError;

/// What a seat knows when it must decide.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Knowledge {
    /// The seat at the table.
    pub seat: u32,
    /// Its position in this deal.
    pub position: Position,
    /// The deal's number in the list.
    pub deal: u32,
    /// The seats at forehand, middlehand, rearhand.
    pub seats: [u32; 3],
    /// The phase.
    pub phase: Phase,
    /// The seat's cards now.
    pub hand: CardSet,
    /// What it may do now.
    pub legal: LegalActions,
    /// The auction so far.
    pub auction: Vec<AuctionCall>,
    /// The highest bid.
    pub bid: Option<Bid>,
    /// The declarer, once known.
    pub declarer: Option<Position>,
    /// The declaration, once made.
    pub contract: Option<Contract>,
    /// Whether it is a hand game.
    pub hand_game: bool,
    /// The skat, when this seat may see it (the declarer after picking it up).
    pub skat: CardSet,
    /// The discards, when this seat may see them.
    pub discards: CardSet,
    /// The declarer's cards, when open (ouvert or claimed).
    pub open_hand: Option<CardSet>,
    /// The trick in progress.
    pub current_trick: Option<Trick>,
    /// Completed tricks.
    pub tricks: Vec<TrickView>,
}

impl Knowledge {
    /// Reads a seat's table view. Fails (instead of panicking) on anything malformed.
    pub fn from_view(view: &pb::TableView) -> Result<Knowledge, SdkError> {
        let bad = |what: &str| SdkError::Protocol(format!("view: {what}"));
        let seat = view.your_seat.ok_or_else(|| bad("no seat"))?;
        let d = view.deal.as_ref().ok_or_else(|| bad("no deal"))?;
        let cards = |v: &[i32]| convert::cards_from(v).map_err(|e| bad(&e.message));
        let position =
            convert::position_from(d.your_position).ok_or_else(|| bad("the seat sits this deal out"))?;
        let seats: [u32; 3] = d.position_seats.clone().try_into().map_err(|_| bad("position_seats"))?;
        let trick = |t: &pb::Trick| -> Result<(Position, Vec<Card>, Option<Position>), SdkError> {
            let leader = convert::position_from(t.leader).ok_or_else(|| bad("trick leader"))?;
            let cs = t
                .cards
                .iter()
                .map(|c| convert::card_from(*c).map_err(|e| bad(&e.message)))
                .collect::<Result<Vec<_>, _>>()?;
            Ok((leader, cs, convert::position_from(t.winner)))
        };
        let current_trick = match &d.current_trick {
            Some(t) if !t.cards.is_empty() => {
                let (leader, cs, _) = trick(t)?;
                Some(Trick::from_cards(leader, &cs).ok_or_else(|| bad("current trick"))?)
            }
            _ => None,
        };
        let tricks = d
            .tricks
            .iter()
            .map(|t| {
                let (leader, cs, winner) = trick(t)?;
                Ok(TrickView { leader, cards: cs, winner: winner.ok_or_else(|| bad("trick winner"))? })
            })
            .collect::<Result<Vec<_>, SdkError>>()?;
        let auction = d
            .auction
            .iter()
            .map(|a| {
                let position = convert::position_from(a.position).ok_or_else(|| bad("auction position"))?;
                let call = match pb::BidCall::try_from(a.call) {
                    Ok(pb::BidCall::Say) => Call::Bid {
                        value: u16::try_from(a.value)
                            .ok()
                            .and_then(Bid::new)
                            .ok_or_else(|| bad("auction value"))?,
                    },
                    Ok(pb::BidCall::Hold) => Call::Hold,
                    Ok(pb::BidCall::Pass) => Call::Pass,
                    _ => return Err(bad("auction call")),
                };
                Ok(AuctionCall { position, call })
            })
            .collect::<Result<Vec<_>, SdkError>>()?;
        Ok(Knowledge {
            seat,
            position,
            deal: d.number,
            seats,
            phase: convert::phase_from(d.phase).ok_or_else(|| bad("phase"))?,
            hand: cards(&d.hand)?,
            legal: convert::legal_from(d.legal.as_ref().ok_or_else(|| bad("legal"))?)
                .map_err(|e| bad(&e.message))?,
            auction,
            bid: if d.bid == 0 { None } else { u16::try_from(d.bid).ok().and_then(Bid::new) },
            declarer: convert::position_from(d.declarer),
            contract: d
                .contract
                .as_ref()
                .map(convert::contract_from)
                .transpose()
                .map_err(|e| bad(&e.message))?,
            hand_game: d.contract.as_ref().is_some_and(|c| c.hand),
            skat: cards(&d.skat)?,
            discards: cards(&d.discards)?,
            open_hand: if d.open_hand.is_empty() { None } else { Some(cards(&d.open_hand)?) },
            current_trick,
            tricks,
        })
    }

    /// The game being played, once declared.
    pub fn game(&self) -> Option<GameType> {
        self.contract.map(|c| c.game)
    }

    /// Whether this seat is the declarer.
    pub fn is_declarer(&self) -> bool {
        self.declarer == Some(self.position)
    }

    /// Every card played so far (completed tricks and the current one).
    pub fn played(&self) -> CardSet {
        let mut s = self.current_trick.map_or(CardSet::EMPTY, |t| t.card_set());
        for t in &self.tricks {
            s |= t.cards.iter().copied().collect::<CardSet>();
        }
        s
    }

    /// The cards this seat has not seen: still in other hands (or the unseen skat).
    pub fn cards_out(&self) -> CardSet {
        CardSet::DECK
            - self.hand
            - self.played()
            - self.skat
            - self.discards
            - self.open_hand.unwrap_or_default()
    }

    /// Per position, the cards it cannot hold: those of every suit (trumps counted as one
    /// suit) it failed to follow.
    pub fn cannot_hold(&self) -> [CardSet; 3] {
        let mut out = [CardSet::EMPTY; 3];
        let Some(game) = self.game() else { return out };
        let tricks = self.tricks.iter().map(|t| (t.leader, t.cards.clone()));
        let current = self.current_trick.map(|t| (t.leader, t.cards().to_vec()));
        for (leader, cards) in tricks.chain(current) {
            let Some(led) = cards.first().copied() else { continue };
            let follow = game.follow_set(led);
            let mut p = leader;
            for c in &cards {
                if !follow.contains(*c) {
                    out[p.index()] |= follow;
                }
                p = p.next();
            }
        }
        out
    }

    /// The position whose side `p` is on is the declarer's.
    pub fn same_side(&self, a: Position, b: Position) -> bool {
        let decl = self.declarer;
        (Some(a) == decl) == (Some(b) == decl)
    }
}
