//! The table's inputs, kept in memory in a compact form, to derive the events it no
//! longer holds ([`super::log`]).
//!
//! | rule | why |
//! |---|---|
//! | an action without a comment, or a time-out: 4 bytes (the milliseconds since the input before it in 16 bits, the seat in 2, the action in 14: [`Act`]) | nearly every input is one; a 12-deal list half-way keeps about 0.8 KiB (1.6 at 8 bytes, 3.2 at 16) |
//! | a pause longer than 65.5 s before an input is one more entry ([`Kind::Gap`]: the pause's multiples of 65,536 ms) | a bot thinking for minutes is rare; the common input stays 4 bytes |
//! | anything else (the creation, a join, a leave, a comment, a new token, an input whose time went backwards) whole, beside the list, which names it by index | rare, and a join's name and hashes do not shrink; a whole input carries its own time |
//! | a restart is kept as a marker with its wall time (beside the list too) | a resumed table gives its seat to move a fresh turn: the events after it depend on when |
//! | an action is packed only if it unpacks to itself (checked as it is kept), else it is kept whole | what is derived from the kept inputs is exactly what was played |
//!
//! The journal keeps the same inputs on disk; these are the table's own copy, so that
//! deriving an old event needs no database.

use std::time::{Duration, UNIX_EPOCH};

use skat_engine::matches::Seat;
use skat_engine::{Action, Announcement, Bid, Card, CardSet, Contract, ForfeitReason, GameType};

use super::{Input, JournalEntry};

/// One step of a table's life, as it is replayed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Step {
    /// An input, as the journal has it.
    Input(JournalEntry),
    /// The table was resumed after a restart at this wall time (Unix ms).
    Resumed(u64),
}

/// One kept input in 4 bytes: `code` is the kind (4 bits), the seat (2) and the action's
/// payload (10); `low` the milliseconds since the input before it. A whole input's,
/// a restart's or a gap's 26-bit number spans the payload and `low`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Kept {
    code: u16,
    low: u16,
}

/// A kept input, unpacked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// A seat acted (no comment), `ms` after the input before.
    Acted { ms: u16, seat: Seat, act: Act },
    /// The seat to move ran out of time, `ms` after the input before.
    TimedOut { ms: u16 },
    /// Any other input: `whole[i]` (it carries its own time).
    Whole(u32),
    /// A restart: at `restarts[i]` (Unix ms).
    Resumed(u32),
    /// The next input came this many times 65,536 ms later (plus its own `ms`).
    Gap(u32),
}

/// An action in 14 bits: its kind (4) and what it names (10: a bid's value, one or two
/// cards, a contract, a forfeit's reason).
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

const ANNOUNCEMENTS: [Announcement; 4] =
    [Announcement::None, Announcement::Schneider, Announcement::Schwarz, Announcement::Ouvert];
const REASONS: [ForfeitReason; 2] = [ForfeitReason::Timeout, ForfeitReason::Left];

// The kinds' 4-bit tags: an action's is `act_tag`, below these.
const TIMED_OUT: u16 = 11;
const WHOLE: u16 = 12;
const RESUMED: u16 = 13;
const GAP: u16 = 14;
/// The largest number a whole input's index, a restart's or a gap carries.
const NUMBER_MAX: u32 = (1 << 26) - 1;

impl Act {
    /// The action in this form, if it has it (a discard of two cards).
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

    /// Its tag (below [`TIMED_OUT`]) and 10-bit payload.
    fn pack(self) -> (u16, u16) {
        let card = |c: Card| u16::from(c.index());
        match self {
            Act::Bid(value) => (0, value.ladder_index() as u16),
            Act::Hold => (1, 0),
            Act::Pass => (2, 0),
            Act::PickUpSkat => (3, 0),
            Act::PlayHand => (4, 0),
            Act::Discard(a, b) => (5, card(a) | card(b) << 5),
            Act::Declare(c) => (6, c.game as u16 | (c.announcement as u16) << 3),
            Act::Play(c) => (7, card(c)),
            Act::Claim => (8, 0),
            Act::Resign => (9, 0),
            Act::Forfeit(reason) => (10, reason as u16),
        }
    }

    /// The action a tag and payload name (`None` for what [`Act::pack`] never makes).
    fn unpack(tag: u16, payload: u16) -> Option<Act> {
        let card = |bits: u16| Card::from_index((bits & 31) as u8);
        Some(match tag {
            0 => Act::Bid(Bid::from_ladder_index(usize::from(payload))?),
            1 => Act::Hold,
            2 => Act::Pass,
            3 => Act::PickUpSkat,
            4 => Act::PlayHand,
            5 => Act::Discard(card(payload)?, card(payload >> 5)?),
            6 => Act::Declare(Contract {
                game: *GameType::ALL.get(usize::from(payload & 7))?,
                announcement: *ANNOUNCEMENTS.get(usize::from(payload >> 3))?,
            }),
            7 => Act::Play(card(payload)?),
            8 => Act::Claim,
            9 => Act::Resign,
            10 => Act::Forfeit(*REASONS.get(usize::from(payload))?),
            _ => return None,
        })
    }
}

impl Kept {
    fn number(tag: u16, n: u32) -> Kept {
        Kept { code: tag << 12 | (n >> 16) as u16, low: n as u16 }
    }

    /// An input in 4 bytes, if it unpacks to exactly itself.
    fn pack(kind: Kind) -> Option<Kept> {
        let kept = match kind {
            Kind::Acted { ms, seat, act } => {
                let seat_bits = u16::try_from(seat.index()).ok().filter(|s| *s < 4)?;
                let (tag, payload) = act.pack();
                (payload < 1 << 10)
                    .then_some(Kept { code: tag << 12 | seat_bits << 10 | payload, low: ms })?
            }
            Kind::TimedOut { ms } => Kept { code: TIMED_OUT << 12, low: ms },
            Kind::Whole(n) if n <= NUMBER_MAX => Kept::number(WHOLE, n),
            Kind::Resumed(n) if n <= NUMBER_MAX => Kept::number(RESUMED, n),
            Kind::Gap(n) if n <= NUMBER_MAX => Kept::number(GAP, n),
            _ => return None,
        };
        (kept.unpack() == Some(kind)).then_some(kept)
    }

    fn unpack(self) -> Option<Kind> {
        let tag = self.code >> 12;
        let number = u32::from(self.code & 0x3ff) << 16 | u32::from(self.low);
        Some(match tag {
            TIMED_OUT => Kind::TimedOut { ms: self.low },
            WHOLE => Kind::Whole(number),
            RESUMED => Kind::Resumed(number),
            GAP => Kind::Gap(number),
            _ => Kind::Acted {
                ms: self.low,
                seat: Seat::new((self.code >> 10 & 3) as u8),
                act: Act::unpack(tag, self.code & 0x3ff)?,
            },
        })
    }
}

/// Inputs a table's kept inputs grow by at least (a deal is about 35).
const GROW: usize = 48;

/// Every input of a table, in order, with its restarts.
#[derive(Debug, Default, Clone)]
pub struct KeptInputs {
    /// The time of the last input kept (Unix ms): the next one's is counted from it.
    last_ms: u64,
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
    pub fn keep(&mut self, entry: &JournalEntry) {
        let since = entry.at_ms.checked_sub(self.last_ms).filter(|_| !self.kept.is_empty());
        let packed = since.and_then(|since| {
            let ms = (since & 0xffff) as u16;
            let kind = match &entry.input {
                Input::Acted { seat, action, comment: None } => {
                    Kind::Acted { ms, seat: *seat, act: Act::of(*action)? }
                }
                Input::TimedOut => Kind::TimedOut { ms },
                _ => return None,
            };
            let gap = match u32::try_from(since >> 16) {
                Ok(0) => None,
                Ok(gap) => Some(Kept::pack(Kind::Gap(gap))?),
                Err(_) => return None,
            };
            Some((gap, Kept::pack(kind)?))
        });
        match packed {
            Some((gap, kept)) => {
                if let Some(gap) = gap {
                    self.push(gap);
                }
                self.push(kept);
            }
            None => {
                let index = Kept::pack(Kind::Whole(self.whole.len() as u32));
                self.whole.push(Box::new(entry.clone()));
                // More than 67 million whole inputs is past every table's limits.
                self.push(index.expect("a whole input's index fits 26 bits"));
            }
        }
        self.last_ms = entry.at_ms;
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
    pub fn resumed(&mut self, wall_ms: u64) {
        self.restarts.push(wall_ms);
        let index = Kept::pack(Kind::Resumed(self.restarts.len() as u32 - 1));
        self.push(index.expect("a restart's index fits 26 bits"));
    }

    /// Every step, in order, as the journal and the restarts had them.
    pub fn steps(&self) -> impl Iterator<Item = Step> + '_ {
        let (mut n, mut last_ms, mut gap) = (0u64, 0u64, 0u64);
        self.kept.iter().filter_map(move |k| {
            // Every entry was checked to unpack as it was kept (`Kept::pack`).
            let kind = k.unpack().expect("kept inputs unpack");
            let input = match kind {
                Kind::Acted { ms, seat, act } => {
                    last_ms += std::mem::take(&mut gap) + u64::from(ms);
                    Input::Acted { seat, action: act.action(), comment: None }
                }
                Kind::TimedOut { ms } => {
                    last_ms += std::mem::take(&mut gap) + u64::from(ms);
                    Input::TimedOut
                }
                Kind::Whole(i) => {
                    let entry = (*self.whole[i as usize]).clone();
                    (last_ms, gap, n) = (entry.at_ms, 0, n + 1);
                    return Some(Step::Input(entry));
                }
                Kind::Resumed(i) => return Some(Step::Resumed(self.restarts[i as usize])),
                Kind::Gap(g) => {
                    gap = u64::from(g) << 16;
                    return None;
                }
            };
            n += 1;
            Some(Step::Input(JournalEntry { n: n - 1, at_ms: last_ms, input }))
        })
    }

    /// The wall time of a kept restart.
    pub fn wall(ms: u64) -> std::time::SystemTime {
        UNIX_EPOCH + Duration::from_millis(ms)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use skat_engine::{Announcement, GameType, Rank, Suit};

    #[test]
    fn an_action_is_kept_in_4_bytes_and_every_input_comes_back_as_it_was() {
        assert_eq!(std::mem::size_of::<Kept>(), 4);
        let seat = Seat::new(1);
        let card = Card::new(Suit::Hearts, Rank::Ten);
        let ace = Card::new(Suit::Clubs, Rank::Ace);
        let contract = Contract { game: GameType::Grand, announcement: Announcement::Schwarz };
        let acted = |action| Input::Acted { seat, action, comment: None };
        // Each input's time after the one before (ms): nothing, the most 16 bits hold, one
        // more, pauses of minutes and of a month, and a clock that went back.
        let inputs = [
            (0, Input::Created { config: crate::tests::config() }),
            (1_500, acted(Action::Play { card })),
            (0, Input::Acted { seat, action: Action::Pass, comment: Some("why".into()) }),
            (65_535, acted(Action::Bid { value: Bid::MAX })),
            (65_536, acted(Action::Hold)),
            (200_000, acted(Action::PickUpSkat)),
            (1, acted(Action::Discard { cards: CardSet::single(card).with(ace) })),
            // Not a legal discard, but kept as it came (whole).
            (7, acted(Action::Discard { cards: CardSet::single(ace) })),
            (2_678_400_000, acted(Action::Declare { contract })),
            (-5_000, acted(Action::Claim)),
            (20, acted(Action::Resign)),
            (30, acted(Action::Forfeit { reason: ForfeitReason::Left })),
            (40, acted(Action::PlayHand)),
            (5_000, Input::TimedOut),
            (90_000, Input::TimedOut),
            (10, Input::Left { seat }),
        ];
        let mut kept = KeptInputs::default();
        let mut expected = Vec::new();
        let mut at_ms = 1_800_000_000_000u64;
        for (n, (after, input)) in inputs.into_iter().enumerate() {
            at_ms = at_ms.checked_add_signed(after).expect("in range");
            let entry = JournalEntry { n: n as u64, at_ms, input };
            kept.keep(&entry);
            expected.push(Step::Input(entry));
            if n == 2 {
                kept.resumed(1_800_000_100_000);
                expected.push(Step::Resumed(1_800_000_100_000));
            }
        }
        assert_eq!(kept.steps().collect::<Vec<_>>(), expected);
        // Only the creation, the comment, the odd discard, the claim after the clock went
        // back and the leave are kept whole; the four waits of 65,536 ms or more took a gap
        // entry each.
        assert_eq!(kept.whole.len(), 5);
        assert_eq!(kept.kept.len(), expected.len() + 4);
    }

    #[test]
    fn every_action_of_every_seat_packs_and_unpacks_to_itself() {
        let cards: Vec<Card> = (0..32).filter_map(Card::from_index).collect();
        let mut acts = vec![Act::Hold, Act::Pass, Act::PickUpSkat, Act::PlayHand, Act::Claim, Act::Resign];
        acts.extend((0..).map_while(Bid::from_ladder_index).map(Act::Bid));
        acts.extend(cards.iter().map(|c| Act::Play(*c)));
        acts.extend(
            cards.iter().flat_map(|a| cards.iter().filter(move |b| a < b).map(|b| Act::Discard(*a, *b))),
        );
        acts.extend(GameType::ALL.iter().flat_map(|game| {
            ANNOUNCEMENTS
                .iter()
                .map(|announcement| Act::Declare(Contract { game: *game, announcement: *announcement }))
        }));
        acts.extend(REASONS.map(Act::Forfeit));
        assert_eq!(acts.len(), 6 + 63 + 32 + 496 + 24 + 2, "the ladder has 63 bids");
        for act in acts {
            for seat in 0..4 {
                for ms in [0, 1, 65_535] {
                    let kind = Kind::Acted { ms, seat: Seat::new(seat), act };
                    let kept = Kept::pack(kind).unwrap_or_else(|| panic!("{kind:?} packs"));
                    assert_eq!(kept.unpack(), Some(kind));
                }
            }
            let fifth = Kind::Acted { ms: 0, seat: Seat::new(4), act };
            assert_eq!(Kept::pack(fifth), None, "only four seats are packed");
        }
        for kind in
            [Kind::Whole(NUMBER_MAX), Kind::Resumed(0), Kind::Gap(12_345_678), Kind::TimedOut { ms: 9 }]
        {
            assert_eq!(Kept::pack(kind).and_then(Kept::unpack), Some(kind));
        }
        assert_eq!(Kept::pack(Kind::Gap(NUMBER_MAX + 1)), None);
    }
}
