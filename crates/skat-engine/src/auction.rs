//! The auction (Reizen): who says, who answers, who is left, and at what bid.
//!
//! Middlehand says to forehand until one passes; rearhand then says to the one left; if
//! nobody has bid, forehand may open (normally at 18) or pass, and the deal is passed in.
//! The senior player wins ties: holding is enough, the junior must bid higher.

use serde::{Deserialize, Serialize};

use crate::action::{Phase, RuleError};
use crate::bid::Bid;
use crate::position::Position;

/// A call in the auction as it appears in the history.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(tag = "call", rename_all = "snake_case")]
pub enum Call {
    /// Said a value.
    Bid {
        /// The value.
        value: Bid,
    },
    /// Held the value just said.
    Hold,
    /// Passed.
    Pass,
}

/// One entry of the auction history.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct AuctionCall {
    /// Who called.
    pub position: Position,
    /// What.
    pub call: Call,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Stage {
    /// Middlehand says to forehand.
    MiddleToFore,
    /// Rearhand says to the survivor of the first stage.
    RearToSurvivor,
    /// Nobody bid: forehand may open or pass.
    ForehandAlone,
    /// Over: `declarer` is set, or nobody is (passed in).
    Done,
}

/// At most 63 values can be said (each higher than the last), each answered once, plus
/// three passes: 129 calls.
const MAX_CALLS: usize = 130;

/// The auction's state. It allocates nothing: the history is a fixed array of 16-bit
/// codes (position in the high byte; 0 pass, 1 hold, 2 + ladder index for a bid), zero
/// when unused so that a new deal starts with a plain memset.
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct Auction {
    stage: Stage,
    bid: Option<Bid>,
    sayer: Position,
    listener: Position,
    awaiting_answer: bool,
    declarer: Option<Position>,
    history: [u16; MAX_CALLS],
    len: u8,
}

fn encode(call: AuctionCall) -> u16 {
    let code = match call.call {
        Call::Pass => 0,
        Call::Hold => 1,
        Call::Bid { value } => 2 + value.ladder_index() as u16,
    };
    (call.position.index() as u16) << 8 | code
}

fn decode(code: u16) -> AuctionCall {
    let position = Position::from_index((code >> 8) as usize).unwrap_or(Position::Forehand);
    let call = match code & 0xff {
        0 => Call::Pass,
        1 => Call::Hold,
        i => Bid::from_ladder_index(i as usize - 2).map_or(Call::Pass, |value| Call::Bid { value }),
    };
    AuctionCall { position, call }
}

impl std::fmt::Debug for Auction {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Auction")
            .field("stage", &self.stage)
            .field("bid", &self.bid)
            .field("history", &self.history().collect::<Vec<_>>())
            .finish()
    }
}

/// What the auction expects from the position to act.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Expect {
    /// Say a value of at least `min`, or pass (`min` is `None` after 264: pass only).
    Say {
        /// The lowest value allowed.
        min: Option<Bid>,
    },
    /// Hold or pass the value just said.
    Answer {
        /// The value to answer.
        bid: Bid,
    },
}

impl Default for Auction {
    fn default() -> Self {
        Auction::new()
    }
}

impl Auction {
    /// A fresh auction: middlehand says to forehand.
    pub const fn new() -> Auction {
        Auction {
            stage: Stage::MiddleToFore,
            bid: None,
            sayer: Position::Middlehand,
            listener: Position::Forehand,
            awaiting_answer: false,
            declarer: None,
            history: [0; MAX_CALLS],
            len: 0,
        }
    }

    /// Whether the auction is over.
    pub const fn is_done(&self) -> bool {
        matches!(self.stage, Stage::Done)
    }

    /// The highest bid so far.
    pub const fn bid(&self) -> Option<Bid> {
        self.bid
    }

    /// The winner of a finished auction (`None` while running, or when passed in).
    pub const fn declarer(&self) -> Option<Position> {
        self.declarer
    }

    /// The calls so far, in order.
    pub fn history(&self) -> impl ExactSizeIterator<Item = AuctionCall> + '_ {
        self.history[..self.len as usize].iter().map(|c| decode(*c))
    }

    /// Who must call now (`None` when done).
    pub const fn to_move(&self) -> Option<Position> {
        match self.stage {
            Stage::Done => None,
            Stage::ForehandAlone => Some(Position::Forehand),
            _ if self.awaiting_answer => Some(self.listener),
            _ => Some(self.sayer),
        }
    }

    /// What the position to move may do (`None` when done).
    pub fn expect(&self) -> Option<Expect> {
        match self.stage {
            Stage::Done => None,
            _ if self.awaiting_answer => self.bid.map(|bid| Expect::Answer { bid }),
            _ => Some(Expect::Say { min: self.min_bid() }),
        }
    }

    fn min_bid(&self) -> Option<Bid> {
        match self.bid {
            None => Some(Bid::MIN),
            Some(b) => b.next(),
        }
    }

    /// Checks a call without changing anything.
    pub fn check(&self, who: Position, call: Call) -> Result<(), RuleError> {
        let Some(to_move) = self.to_move() else {
            return Err(RuleError::WrongPhase { action: "bid", phase: Phase::SkatDecision });
        };
        if who != to_move {
            let expected = if self.awaiting_answer { "answer a bid" } else { "bid" };
            return Err(RuleError::NotYourTurn { to_move, expected });
        }
        match (call, self.expect()) {
            (Call::Pass, _) => Ok(()),
            (Call::Bid { value }, Some(Expect::Say { min: Some(min) })) => {
                if value >= min {
                    Ok(())
                } else {
                    Err(RuleError::BidTooLow { min })
                }
            }
            // 264 was said: nothing above it, only pass remains.
            (Call::Bid { .. }, Some(Expect::Say { min: None }) | None) => Err(RuleError::NoHigherBid),
            (Call::Bid { .. }, Some(Expect::Answer { bid })) => Err(RuleError::MustAnswer { bid }),
            (Call::Hold, Some(Expect::Answer { .. })) => Ok(()),
            (Call::Hold, _) => Err(RuleError::NothingToHold),
        }
    }

    /// Applies a call after checking it.
    pub fn apply(&mut self, who: Position, call: Call) -> Result<(), RuleError> {
        self.check(who, call)?;
        if (self.len as usize) < MAX_CALLS {
            self.history[self.len as usize] = encode(AuctionCall { position: who, call });
            self.len += 1;
        }
        match (self.stage, call) {
            (Stage::ForehandAlone, Call::Bid { value }) => {
                self.bid = Some(value);
                self.finish(Some(Position::Forehand));
            }
            (Stage::ForehandAlone, _) => self.finish(None),
            (_, Call::Bid { value }) => {
                self.bid = Some(value);
                self.awaiting_answer = true;
            }
            (_, Call::Hold) => self.awaiting_answer = false,
            (_, Call::Pass) => {
                let survivor = if who == self.sayer { self.listener } else { self.sayer };
                self.awaiting_answer = false;
                self.end_stage(survivor);
            }
        }
        Ok(())
    }

    fn end_stage(&mut self, survivor: Position) {
        match self.stage {
            Stage::MiddleToFore => {
                self.stage = Stage::RearToSurvivor;
                self.sayer = Position::Rearhand;
                self.listener = survivor;
            }
            _ if self.bid.is_some() => self.finish(Some(survivor)),
            // Nobody bid, so the survivor is forehand, who may open.
            _ => self.stage = Stage::ForehandAlone,
        }
    }

    fn finish(&mut self, declarer: Option<Position>) {
        self.stage = Stage::Done;
        self.declarer = declarer;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use Position::*;

    fn bid(v: u16) -> Call {
        Call::Bid { value: Bid::new(v).unwrap() }
    }

    #[test]
    fn middlehand_wins_then_rearhand_passes() {
        let mut a = Auction::new();
        a.apply(Middlehand, bid(18)).unwrap();
        a.apply(Forehand, Call::Hold).unwrap();
        assert_eq!(a.check(Middlehand, bid(18)), Err(RuleError::BidTooLow { min: Bid::new(20).unwrap() }));
        a.apply(Middlehand, bid(20)).unwrap();
        a.apply(Forehand, Call::Pass).unwrap();
        assert_eq!(a.to_move(), Some(Rearhand));
        a.apply(Rearhand, bid(27)).unwrap();
        assert_eq!(a.to_move(), Some(Middlehand));
        a.apply(Middlehand, Call::Pass).unwrap();
        assert!(a.is_done());
        assert_eq!(a.declarer(), Some(Rearhand));
        assert_eq!(a.bid().map(Bid::value), Some(27));
    }

    #[test]
    fn all_pass_and_forehand_opens() {
        let mut a = Auction::new();
        a.apply(Middlehand, Call::Pass).unwrap();
        a.apply(Rearhand, Call::Pass).unwrap();
        assert_eq!(a.to_move(), Some(Forehand));
        assert_eq!(a.check(Forehand, Call::Hold), Err(RuleError::NothingToHold));
        let mut opened = a.clone();
        opened.apply(Forehand, bid(18)).unwrap();
        assert_eq!(opened.declarer(), Some(Forehand));
        a.apply(Forehand, Call::Pass).unwrap();
        assert!(a.is_done());
        assert_eq!(a.declarer(), None);
    }

    #[test]
    fn out_of_turn_and_wrong_call_change_nothing() {
        let mut a = Auction::new();
        let before = a.clone();
        assert!(matches!(a.apply(Forehand, bid(18)), Err(RuleError::NotYourTurn { .. })));
        assert_eq!(a.apply(Middlehand, Call::Hold), Err(RuleError::NothingToHold));
        assert_eq!(a, before);
        a.apply(Middlehand, bid(264)).unwrap();
        assert!(matches!(a.apply(Forehand, bid(264)), Err(RuleError::MustAnswer { .. })));
        a.apply(Forehand, Call::Hold).unwrap();
        assert_eq!(a.expect(), Some(Expect::Say { min: None }));
        assert!(a.check(Middlehand, bid(264)).is_err());
        a.apply(Middlehand, Call::Pass).unwrap();
        a.apply(Rearhand, Call::Pass).unwrap();
        assert_eq!(a.declarer(), Some(Forehand));
        let calls: Vec<AuctionCall> = a.history().collect();
        assert_eq!(calls.len(), 4);
        assert_eq!(calls[0], AuctionCall { position: Middlehand, call: bid(264) });
        assert_eq!(calls[1], AuctionCall { position: Forehand, call: Call::Hold });
        assert_eq!(calls[3], AuctionCall { position: Rearhand, call: Call::Pass });
    }
}
