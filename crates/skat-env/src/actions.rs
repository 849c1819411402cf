//! The fixed action space: every decision of a deal as one integer in `0..N_ACTIONS`, so
//! a policy can end in one softmax over a mask.
//!
//! | ids | action |
//! |---|---|
//! | 0-31 | play the card with this index (`suit * 8 + rank`, suits D H S C, ranks 7 8 9 Q K T A J) |
//! | 32-63 | put away the card `id - 32` (a discard is two such steps) |
//! | 64-126 | bid the ladder value `LADDER[id - 64]` (18, 20, 22, ... 264; jumps allowed) |
//! | 127 | hold the value just said |
//! | 128 | pass |
//! | 129 | pick up the skat |
//! | 130 | play hand |
//! | 131-154 | declare `GAMES[(id - 131) / 4]` (D H S C G N) with announcement `(id - 131) % 4` (none, schneider, schwarz, ouvert) |
//!
//! Why a discard is two steps: two cards of twelve are 66 choices, of 32 cards 496 ids, most
//! of them never legal; one card at a time keeps the space small and lets the second choice
//! see the first (the observation shows it among the discards). The engine receives one
//! `Discard` of both cards, as a server does.
//!
//! Claim and resign are not in the space: they are open to any seat at any time during play,
//! which no turn-based API expresses, and they change no result a played-out deal would not
//! reach. Environments play every deal out; records that contain them still yield examples
//! for every other decision.

use skat_engine::bid::LADDER;
use skat_engine::{Action, Announcement, Bid, Card, CardSet, Contract, GameType, LegalActions};

/// How many action ids there are.
pub const N_ACTIONS: usize = 155;
/// First id of "put away a card".
pub const DISCARD: u16 = 32;
/// First id of "bid a ladder value".
pub const BID: u16 = 64;
/// Hold.
pub const HOLD: u16 = 127;
/// Pass.
pub const PASS: u16 = 128;
/// Pick up the skat.
pub const PICK_UP: u16 = 129;
/// Play hand.
pub const HAND: u16 = 130;
/// First id of "declare".
pub const DECLARE: u16 = 131;
/// The most ids legal at once (a bid of 18 against nothing: 63 values and pass).
pub const MAX_LEGAL: usize = 64;

const ANNOUNCEMENTS: [Announcement; 4] =
    [Announcement::None, Announcement::Schneider, Announcement::Schwarz, Announcement::Ouvert];

/// One step of the action space, decoded.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Step {
    /// An engine action, complete in itself.
    Action(Action),
    /// One of the two cards to put away.
    Discard(Card),
}

/// The id is not in `0..N_ACTIONS`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("action id {0} is outside the action space 0..{N_ACTIONS}")]
pub struct UnknownAction(pub i64);

/// The id of a contract.
pub fn contract_id(c: Contract) -> u16 {
    let game = GameType::ALL.iter().position(|g| *g == c.game).unwrap_or(0) as u16;
    DECLARE + game * 4 + c.announcement as u16
}

/// The step an id stands for.
pub fn decode(id: i64) -> Result<Step, UnknownAction> {
    let Ok(i) = u16::try_from(id) else { return Err(UnknownAction(id)) };
    Ok(match i {
        0..32 => Step::Action(Action::Play { card: card(i) }),
        32..64 => Step::Discard(card(i - DISCARD)),
        64..127 => match Bid::from_ladder_index(usize::from(i - BID)) {
            Some(value) => Step::Action(Action::Bid { value }),
            None => return Err(UnknownAction(id)),
        },
        HOLD => Step::Action(Action::Hold),
        PASS => Step::Action(Action::Pass),
        PICK_UP => Step::Action(Action::PickUpSkat),
        HAND => Step::Action(Action::PlayHand),
        131..155 => {
            let k = usize::from(i - DECLARE);
            Step::Action(Action::Declare {
                contract: Contract { game: GameType::ALL[k / 4], announcement: ANNOUNCEMENTS[k % 4] },
            })
        }
        _ => return Err(UnknownAction(id)),
    })
}

fn card(i: u16) -> Card {
    // `i` < 32 by the match arms above.
    Card::from_index(i as u8).unwrap_or(Card::new(skat_engine::Suit::Clubs, skat_engine::Rank::Jack))
}

/// The ids of an engine action: one, or two for a discard (in card order), none for the
/// actions outside the space (claim, resign, forfeit).
pub fn encode(action: Action) -> Vec<u16> {
    match action {
        Action::Play { card } => vec![u16::from(card.index())],
        Action::Discard { cards } => cards.iter().map(|c| DISCARD + u16::from(c.index())).collect(),
        Action::Bid { value } => vec![BID + value.ladder_index() as u16],
        Action::Hold => vec![HOLD],
        Action::Pass => vec![PASS],
        Action::PickUpSkat => vec![PICK_UP],
        Action::PlayHand => vec![HAND],
        Action::Declare { contract } => vec![contract_id(contract)],
        Action::Claim | Action::Resign | Action::Forfeit { .. } => Vec::new(),
    }
}

/// Calls `f` with every legal id, in increasing order. `pending` is the first card put
/// away when the seat is half-way through its discard.
pub fn for_each_legal(legal: &LegalActions, pending: Option<Card>, mut f: impl FnMut(u16)) {
    for c in legal.cards {
        f(u16::from(c.index()));
    }
    let discardable = match pending {
        Some(first) => legal.discard_from.without(first),
        None => legal.discard_from,
    };
    for c in discardable {
        f(DISCARD + u16::from(c.index()));
    }
    if let Some(min) = legal.bid_from {
        for i in min.ladder_index()..LADDER.len() {
            f(BID + i as u16);
        }
    }
    for (ok, id) in
        [(legal.hold, HOLD), (legal.pass, PASS), (legal.pick_up_skat, PICK_UP), (legal.play_hand, HAND)]
    {
        if ok {
            f(id);
        }
    }
    let mut declare: Vec<u16> = legal.contracts.iter().map(|c| contract_id(*c)).collect();
    declare.sort_unstable();
    declare.into_iter().for_each(f);
}

/// Writes the mask (1 = legal) into `out` (`N_ACTIONS` bytes) and returns how many are legal.
pub fn write_mask(legal: &LegalActions, pending: Option<Card>, out: &mut [u8]) -> usize {
    out.fill(0);
    let mut n = 0;
    for_each_legal(legal, pending, |id| {
        out[usize::from(id)] = 1;
        n += 1;
    });
    n
}

/// A short English name of an id: `play CJ`, `discard HT`, `bid 18`, `declare G hand`...
pub fn name(id: i64) -> Result<String, UnknownAction> {
    Ok(match decode(id)? {
        Step::Discard(c) => format!("discard {c}"),
        Step::Action(Action::Play { card }) => format!("play {card}"),
        Step::Action(Action::Bid { value }) => format!("bid {}", value.value()),
        Step::Action(Action::Declare { contract }) => {
            let a = ["", " schneider", " schwarz", " ouvert"][contract.announcement as usize];
            format!("declare {}{a}", contract.game.letter())
        }
        Step::Action(a) => a.name().to_string(),
    })
}

/// Whether a discard of `cards` (two) is what the ids say, whichever card came first.
pub fn same_discard(first: Card, second: Card, cards: CardSet) -> bool {
    cards == CardSet::single(first).with(second)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_id_round_trips() {
        for id in 0..N_ACTIONS as i64 {
            match decode(id).expect("in range") {
                Step::Discard(c) => assert_eq!(id, i64::from(DISCARD + u16::from(c.index()))),
                Step::Action(a) => assert_eq!(encode(a), vec![id as u16], "{id}"),
            }
            assert!(!name(id).expect("named").is_empty());
        }
        assert!(decode(-1).is_err());
        assert!(decode(N_ACTIONS as i64).is_err());
    }
}
