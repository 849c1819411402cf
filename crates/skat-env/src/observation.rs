//! The observation: what one seat knows, as a fixed-length vector of `f32`.
//!
//! It is computed from the engine's [`View`] for that seat (the one place the rules'
//! "who sees what" is applied), so it cannot hold a card the seat may not see. Positions
//! are relative to the observer: 0 is the observer, 1 the next to play after it (on its
//! left), 2 the one after that. A spectator (or the dealer sitting out at four seats)
//! observes from forehand's place with an empty hand and no position.
//!
//! Every section is 0/1 unless said otherwise; [`LAYOUT`] gives the offsets, and
//! `docs/research.md` the same table for people.

use skat_engine::action::Phase;
use skat_engine::auction::Call;
use skat_engine::{Card, CardSet, GameType, Position, View};

/// One section of the observation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Section {
    /// Its name (stable: the Python package and the SDK use it).
    pub name: &'static str,
    /// Where it starts.
    pub offset: usize,
    /// How many numbers.
    pub len: usize,
    /// What it holds.
    pub meaning: &'static str,
}

macro_rules! layout {
    ($($name:ident $len:literal $meaning:literal),* $(,)?) => {
        #[allow(non_upper_case_globals, dead_code)]
        mod at { layout!(@offsets 0; $($name $len),*); }
        /// The sections, in order.
        pub const LAYOUT: &[Section] = &[$(Section { name: stringify!($name), offset: at::$name, len: $len, meaning: $meaning }),*];
        /// The observation's length.
        pub const OBS_LEN: usize = 0 $(+ $len)*;
    };
    (@offsets $at:expr; $name:ident $len:literal $(, $rest:ident $rlen:literal)*) => {
        pub const $name: usize = $at;
        layout!(@offsets $at + $len; $($rest $rlen),*);
    };
    (@offsets $at:expr;) => {};
}

layout! {
    hand 32 "the observer's cards now (a card put away in the first discard step is no longer here)",
    skat 32 "the skat as dealt, once the observer may see it (the declarer after picking up; everyone at the end)",
    discards 32 "the cards put away, when the observer may see them (including the first of two during the discard)",
    open_hand 32 "the declarer's cards when they are open (ouvert, or claimed)",
    played 96 "the cards each relative position has played in this deal (3 x 32), current trick included",
    trick 96 "the cards of the trick in progress by relative position (3 x 32)",
    trick_leader 3 "who led the trick in progress (relative), once it has a card",
    my_position 3 "the observer's position: forehand, middlehand, rearhand (none for a spectator)",
    phase 6 "bidding, skat decision, discarding, declaring, playing, finished",
    to_move 3 "who must act now (relative)",
    bid 63 "the highest value said, as its place on the ladder 18 ... 264",
    bidder 3 "who said the highest value (relative)",
    passed 3 "who has passed (relative)",
    declarer 3 "the declarer (relative), once known: position 0 means the observer declares",
    skat_taken 2 "the declarer picked up the skat, or plays hand (both 0 until decided)",
    game 6 "the game declared: diamonds, hearts, spades, clubs, grand, null",
    announced 3 "schneider, schwarz, ouvert announced",
    card_points 2 "card points taken in tricks so far by the declarer and by the defenders, divided by 120",
    tricks_won 2 "tricks taken so far by the declarer and by the defenders, divided by 10",
}

/// Position `p` relative to `me`.
fn rel(me: Position, p: Position) -> usize {
    (p.index() + 3 - me.index()) % 3
}

fn set_cards(out: &mut [f32], at: usize, cards: CardSet) {
    for c in cards {
        out[at + usize::from(c.index())] = 1.0;
    }
}

fn set_card(out: &mut [f32], at: usize, c: Card) {
    out[at + usize::from(c.index())] = 1.0;
}

/// Writes `view`'s observation into `out` (`OBS_LEN` numbers). `pending` is the first card
/// the observer put away when it is half-way through its discard.
pub fn encode(view: &View, pending: Option<Card>, out: &mut [f32]) {
    out.fill(0.0);
    let me = view.viewer.unwrap_or(Position::Forehand);
    let mut hand = view.hand;
    let mut discards = view.discards;
    if let Some(c) = pending {
        hand.remove(c);
        discards.insert(c);
    }
    set_cards(out, at::hand, hand);
    set_cards(out, at::skat, view.skat);
    set_cards(out, at::discards, discards);
    set_cards(out, at::open_hand, view.open_hand.unwrap_or_default());
    for t in &view.tricks {
        let mut p = t.leader;
        for c in t.cards {
            set_card(out, at::played + 32 * rel(me, p), c);
            p = p.next();
        }
    }
    if let Some(t) = &view.current_trick {
        for (p, c) in t.plays() {
            set_card(out, at::played + 32 * rel(me, p), c);
            set_card(out, at::trick + 32 * rel(me, p), c);
        }
        out[at::trick_leader + rel(me, t.leader)] = 1.0;
    }
    if let Some(v) = view.viewer {
        out[at::my_position + v.index()] = 1.0;
    }
    out[at::phase + phase_index(view.phase)] = 1.0;
    if let Some(p) = view.to_move {
        out[at::to_move + rel(me, p)] = 1.0;
    }
    for call in &view.auction {
        match call.call {
            Call::Bid { .. } => {
                out[at::bidder..at::bidder + 3].fill(0.0);
                out[at::bidder + rel(me, call.position)] = 1.0;
            }
            Call::Pass => out[at::passed + rel(me, call.position)] = 1.0,
            Call::Hold => {}
        }
    }
    if let Some(b) = view.bid {
        out[at::bid + b.ladder_index()] = 1.0;
    }
    if let Some(d) = view.declarer {
        out[at::declarer + rel(me, d)] = 1.0;
    }
    match view.skat_picked_up {
        Some(true) => out[at::skat_taken] = 1.0,
        Some(false) => out[at::skat_taken + 1] = 1.0,
        None => {}
    }
    if let Some(c) = view.contract {
        out[at::game + game_index(c.game)] = 1.0;
        out[at::announced] = f32::from(u8::from(c.schneider_announced()));
        out[at::announced + 1] = f32::from(u8::from(c.schwarz_announced()));
        out[at::announced + 2] = f32::from(u8::from(c.ouvert()));
    }
    let (mut points, mut tricks) = ([0u32; 2], [0u32; 2]);
    for t in &view.tricks {
        let side = usize::from(Some(t.winner) != view.declarer);
        points[side] += t.cards.iter().map(|c| u32::from(c.points())).sum::<u32>();
        tricks[side] += 1;
    }
    for side in 0..2 {
        out[at::card_points + side] = points[side] as f32 / 120.0;
        out[at::tricks_won + side] = tricks[side] as f32 / 10.0;
    }
}

fn phase_index(p: Phase) -> usize {
    match p {
        Phase::Bidding => 0,
        Phase::SkatDecision => 1,
        Phase::Discarding => 2,
        Phase::Declaring => 3,
        Phase::Playing => 4,
        Phase::Finished => 5,
    }
}

fn game_index(g: GameType) -> usize {
    GameType::ALL.iter().position(|x| *x == g).unwrap_or(0)
}

/// The cards an observation names (every 32-card section), for the hidden-information
/// tests: it must be a subset of what the view names.
pub fn named_cards(obs: &[f32]) -> CardSet {
    let mut s = CardSet::EMPTY;
    for sec in LAYOUT.iter().filter(|s| s.len % 32 == 0) {
        for (i, v) in obs[sec.offset..sec.offset + sec.len].iter().enumerate() {
            if *v != 0.0 {
                s.insert(
                    Card::from_index((i % 32) as u8)
                        .unwrap_or(Card::new(skat_engine::Suit::Clubs, skat_engine::Rank::Jack)),
                );
            }
        }
    }
    s
}

/// The cards of one 32-card section (or of part `k` of a 3 x 32 section).
pub fn section_cards(obs: &[f32], name: &str, k: usize) -> CardSet {
    let Some(sec) = LAYOUT.iter().find(|s| s.name == name) else { return CardSet::EMPTY };
    let at = sec.offset + 32 * k;
    (0..32u8)
        .filter(|i| obs.get(at + usize::from(*i)).is_some_and(|v| *v != 0.0))
        .filter_map(Card::from_index)
        .collect()
}
