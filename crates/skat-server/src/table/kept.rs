//! The table's inputs, kept in memory in a compact form, to derive the events it no
//! longer holds ([`super::log`]).
//!
//! | rule | why |
//! |---|---|
//! | an action without a comment, or a time-out: 16 bytes (its time as milliseconds since the table was created) | nearly every input is one; a 12-deal list half-way keeps about 3 KiB |
//! | anything else (the creation, a join, a leave, a comment, a new token) whole | rare, and a join's name and hashes do not shrink |
//! | a restart is kept as a marker with its wall time | a resumed table gives its seat to move a fresh turn: the events after it depend on when |
//!
//! The journal keeps the same inputs on disk; these are the table's own copy, so that
//! deriving an old event needs no database.

use std::time::{Duration, UNIX_EPOCH};

use skat_engine::Action;
use skat_engine::matches::Seat;

use super::{Input, JournalEntry};

/// One step of a table's life, as it is replayed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Step {
    /// An input, as the journal has it.
    Input(JournalEntry),
    /// The table was resumed after a restart at this wall time (Unix ms).
    Resumed(u64),
}

/// One kept input.
#[derive(Debug, Clone)]
enum Kept {
    /// A seat acted (no comment), `ms` after the table was created.
    Acted { ms: u32, seat: Seat, action: Action },
    /// The seat to move ran out of time, `ms` after the table was created.
    TimedOut { ms: u32 },
    /// Any other input.
    Whole(Box<JournalEntry>),
    /// A restart, at this wall time (Unix ms).
    Resumed(u64),
}

/// Inputs a table's kept inputs grow by at least (a deal is about 35).
const GROW: usize = 48;

/// Every input of a table, in order, with its restarts.
#[derive(Debug, Default, Clone)]
pub(crate) struct KeptInputs {
    created_ms: u64,
    kept: Vec<Kept>,
}

impl KeptInputs {
    /// Keeps `entry` (numbered in order: its `n` is how many were kept before it).
    pub(crate) fn keep(&mut self, entry: &JournalEntry) {
        if let Input::Created { .. } = entry.input {
            self.created_ms = entry.at_ms;
        }
        let ms = u32::try_from(entry.at_ms.saturating_sub(self.created_ms)).ok();
        let kept = match (&entry.input, ms) {
            (Input::Acted { seat, action, comment: None }, Some(ms)) if entry.at_ms >= self.created_ms => {
                Kept::Acted { ms, seat: *seat, action: *action }
            }
            (Input::TimedOut, Some(ms)) if entry.at_ms >= self.created_ms => Kept::TimedOut { ms },
            _ => Kept::Whole(Box::new(entry.clone())),
        };
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
        self.push(Kept::Resumed(wall_ms));
    }

    /// Every step, in order, as the journal and the restarts had them.
    pub(crate) fn steps(&self) -> impl Iterator<Item = Step> + '_ {
        let mut n = 0u64;
        self.kept.iter().map(move |k| {
            let at = |ms: u32| self.created_ms + u64::from(ms);
            let step = match k {
                Kept::Acted { ms, seat, action } => Step::Input(JournalEntry {
                    n,
                    at_ms: at(*ms),
                    input: Input::Acted { seat: *seat, action: *action, comment: None },
                }),
                Kept::TimedOut { ms } => {
                    Step::Input(JournalEntry { n, at_ms: at(*ms), input: Input::TimedOut })
                }
                Kept::Whole(entry) => Step::Input((**entry).clone()),
                Kept::Resumed(wall_ms) => return Step::Resumed(*wall_ms),
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
    use skat_engine::{Card, Rank, Suit};

    #[test]
    fn an_action_is_kept_in_16_bytes_and_every_input_comes_back_as_it_was() {
        assert!(std::mem::size_of::<Kept>() <= 16, "{}", std::mem::size_of::<Kept>());
        let seat = Seat::new(1);
        let card = Card::new(Suit::Hearts, Rank::Ten);
        let inputs = [
            Input::Created { config: crate::table::tests::config() },
            Input::Acted { seat, action: Action::Play { card }, comment: None },
            Input::Acted { seat, action: Action::Pass, comment: Some("why".into()) },
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
    }
}
