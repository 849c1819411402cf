//! The table's inputs, kept in memory in a compact form, to derive the events it no
//! longer holds ([`super::log`]).
//!
//! | rule | why |
//! |---|---|
//! | an action without a comment, or a time-out: 8 bytes (its time as milliseconds since the table was created, the seat, the action in three bytes: [`Act`]) | nearly every input is one; a 12-deal list half-way keeps about 1.5 KiB, a 36-deal list about 10 KiB less than at 16 bytes |
//! | anything else (the creation, a join, a leave, a comment, a new token) whole, beside the list, which names it by index | rare, and a join's name and hashes do not shrink |
//! | a restart is kept as a marker with its wall time (beside the list too) | a resumed table gives its seat to move a fresh turn: the events after it depend on when |
//!
//! The journal keeps the same inputs on disk; these are the table's own copy, so that
//! deriving an old event needs no database.

use std::time::{Duration, UNIX_EPOCH};

use skat_engine::matches::Seat;
use skat_engine::{Action, Bid, Card, CardSet, Contract, ForfeitReason};

use super::{Input, JournalEntry};

/// One step of a table's life, as it is replayed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Step {
    /// An input, as the journal has it.
    Input(JournalEntry),
    /// The table was resumed after a restart at this wall time (Unix ms).
    Resumed(u64),
}

/// One kept input, in 8 bytes: the rare ones are kept beside the list
/// ([`KeptInputs::whole`], [`KeptInputs::restarts`]) and named by their index.
#[derive(Debug, Clone, Copy)]
enum Kept {
    /// A seat acted (no comment), `ms` after the table was created.
    Acted { ms: u32, seat: Seat, act: Act },
    /// The seat to move ran out of time, `ms` after the table was created.
    TimedOut { ms: u32 },
    /// Any other input: `whole[i]`.
    Whole(u32),
    /// A restart: at `restarts[i]` (Unix ms).
    Resumed(u32),
}

/// An action in three bytes (an [`Action`] is eight: a discard's card set is a word).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Act {
    Bid(Bid),
    Hold,
    Pass,
    PickUpSkat,
    PlayHand,
    /// The two cards put away.
    Discard(Card, Card),
    Declare(Contract),
    Play(Card),
    Claim,
    Resign,
    Forfeit(ForfeitReason),
}

impl Act {
    /// The action in three bytes, if it has that shape (a discard of two cards).
    fn of(action: Action) -> Option<Act> {
        Some(match action {
            Action::Bid { value } => Act::Bid(value),
            Action::Hold => Act::Hold,
            Action::Pass => Act::Pass,
            Action::PickUpSkat => Act::PickUpSkat,
            Action::PlayHand => Act::PlayHand,
            Action::Discard { cards } if cards.len() == 2 => Act::Discard(cards.first()?, cards.last()?),
            Action::Discard { .. } => return None,
            Action::Declare { contract } => Act::Declare(contract),
            Action::Play { card } => Act::Play(card),
            Action::Claim => Act::Claim,
            Action::Resign => Act::Resign,
            Action::Forfeit { reason } => Act::Forfeit(reason),
        })
    }

    /// The action again.
    fn action(self) -> Action {
        match self {
            Act::Bid(value) => Action::Bid { value },
            Act::Hold => Action::Hold,
            Act::Pass => Action::Pass,
            Act::PickUpSkat => Action::PickUpSkat,
            Act::PlayHand => Action::PlayHand,
            Act::Discard(a, b) => Action::Discard { cards: CardSet::single(a).with(b) },
            Act::Declare(contract) => Action::Declare { contract },
            Act::Play(card) => Action::Play { card },
            Act::Claim => Action::Claim,
            Act::Resign => Action::Resign,
            Act::Forfeit(reason) => Action::Forfeit { reason },
        }
    }
}

/// Inputs a table's kept inputs grow by at least (a deal is about 35).
const GROW: usize = 48;

/// Every input of a table, in order, with its restarts.
#[derive(Debug, Default, Clone)]
pub(crate) struct KeptInputs {
    created_ms: u64,
    kept: Vec<Kept>,
    /// The inputs kept whole, in order (boxed: an entry is as large as its largest
    /// input, the creation's settings, and most are joins: a table churned by join and
    /// leave to its limit held 73 KiB with them inline, 60 boxed).
    #[expect(clippy::vec_box, reason = "an entry inline is its largest input's size; measured")]
    whole: Vec<Box<JournalEntry>>,
    /// The restarts' wall times (Unix ms), in order.
    restarts: Vec<u64>,
}

impl KeptInputs {
    /// Keeps `entry` (numbered in order: its `n` is how many were kept before it).
    pub(crate) fn keep(&mut self, entry: &JournalEntry) {
        if let Input::Created { .. } = entry.input {
            self.created_ms = entry.at_ms;
        }
        let ms = u32::try_from(entry.at_ms.saturating_sub(self.created_ms)).ok();
        let ms = ms.filter(|_| entry.at_ms >= self.created_ms);
        let kept = match (&entry.input, ms) {
            (Input::Acted { seat, action, comment: None }, Some(ms)) => {
                Act::of(*action).map(|act| Kept::Acted { ms, seat: *seat, act })
            }
            (Input::TimedOut, Some(ms)) => Some(Kept::TimedOut { ms }),
            _ => None,
        };
        let kept = kept.unwrap_or_else(|| {
            self.whole.push(Box::new(entry.clone()));
            Kept::Whole(self.whole.len() as u32 - 1)
        });
        self.push(kept);
    }

    /// Appends. Past [`GROW`] inputs the vector grows by an eighth (at least [`GROW`])
    /// rather than doubling: a vector that doubles holds a quarter more than its inputs on
    /// average, and a table keeps its inputs for its whole life.
    fn push(&mut self, kept: Kept) {
        let len = self.kept.len();
        if len == self.kept.capacity() {
            self.kept.reserve_exact((len / 8).max(len.min(GROW)).max(4));
        }
        self.kept.push(kept);
    }

    /// Keeps a restart at `wall_ms`.
    pub(crate) fn resumed(&mut self, wall_ms: u64) {
        self.restarts.push(wall_ms);
        self.push(Kept::Resumed(self.restarts.len() as u32 - 1));
    }

    /// Every step, in order, as the journal and the restarts had them.
    pub(crate) fn steps(&self) -> impl Iterator<Item = Step> + '_ {
        let mut n = 0u64;
        self.kept.iter().map(move |k| {
            let at = |ms: u32| self.created_ms + u64::from(ms);
            let step = match *k {
                Kept::Acted { ms, seat, act } => Step::Input(JournalEntry {
                    n,
                    at_ms: at(ms),
                    input: Input::Acted { seat, action: act.action(), comment: None },
                }),
                Kept::TimedOut { ms } => {
                    Step::Input(JournalEntry { n, at_ms: at(ms), input: Input::TimedOut })
                }
                Kept::Whole(i) => Step::Input((*self.whole[i as usize]).clone()),
                Kept::Resumed(i) => return Step::Resumed(self.restarts[i as usize]),
            };
            n += 1;
            step
        })
    }

    /// The wall time of a kept restart.
    pub(crate) fn wall(ms: u64) -> std::time::SystemTime {
        UNIX_EPOCH + Duration::from_millis(ms)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use skat_engine::{Announcement, GameType, Rank, Suit};

    #[test]
    fn an_action_is_kept_in_8_bytes_and_every_input_comes_back_as_it_was() {
        assert!(std::mem::size_of::<Kept>() <= 8, "{}", std::mem::size_of::<Kept>());
        let seat = Seat::new(1);
        let card = Card::new(Suit::Hearts, Rank::Ten);
        let ace = Card::new(Suit::Clubs, Rank::Ace);
        let contract = Contract { game: GameType::Grand, announcement: Announcement::Schwarz };
        let inputs = [
            Input::Created { config: crate::table::tests::config() },
            Input::Acted { seat, action: Action::Play { card }, comment: None },
            Input::Acted { seat, action: Action::Pass, comment: Some("why".into()) },
            Input::Acted { seat, action: Action::Bid { value: Bid::MAX }, comment: None },
            Input::Acted { seat, action: Action::Hold, comment: None },
            Input::Acted { seat, action: Action::PickUpSkat, comment: None },
            Input::Acted {
                seat,
                action: Action::Discard { cards: CardSet::single(card).with(ace) },
                comment: None,
            },
            // Not a legal discard, but kept as it came (whole).
            Input::Acted { seat, action: Action::Discard { cards: CardSet::single(ace) }, comment: None },
            Input::Acted { seat, action: Action::Declare { contract }, comment: None },
            Input::Acted { seat, action: Action::Claim, comment: None },
            Input::Acted { seat, action: Action::Resign, comment: None },
            Input::Acted { seat, action: Action::Forfeit { reason: ForfeitReason::Left }, comment: None },
            Input::Acted { seat, action: Action::PlayHand, comment: None },
            Input::TimedOut,
            Input::Left { seat },
        ];
        let mut kept = KeptInputs::default();
        let mut expected = Vec::new();
        for (n, input) in inputs.into_iter().enumerate() {
            let entry = JournalEntry { n: n as u64, at_ms: 1_800_000_000_000 + 1_500 * n as u64, input };
            kept.keep(&entry);
            expected.push(Step::Input(entry));
            if n == 2 {
                kept.resumed(1_800_000_100_000);
                expected.push(Step::Resumed(1_800_000_100_000));
            }
        }
        assert_eq!(kept.steps().collect::<Vec<_>>(), expected);
        // Only the creation, the comment, the odd discard and the leave are kept whole.
        assert_eq!(kept.whole.len(), 4);
    }
}
