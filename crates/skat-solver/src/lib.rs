//! A double-dummy Skat solver: with every hand known, the outcome of the card play when
//! everybody plays perfectly, from any point of it and for every game type.
//!
//! | concern | how |
//! |---|---|
//! | what is solved | suit games and grand: the declarer's card points at the end (with the skat's); null: whether the declarer takes no trick |
//! | search | alpha-beta over the cards played, declarer maximising, defenders minimising together |
//! | transposition table | at trick boundaries, keyed by the three hands and the leader; bounds of the points still to come, so an entry holds whatever was already won |
//! | fewer moves | equivalent cards (same player, same suit class, no live card between them, equal points) are searched once |
//! | move order | cards that take the trick first; a side that is winning the trick adds points, a losing side keeps them |
//! | null windows | [`Solver::at_least`] asks "does the declarer reach N points?", which is all a bot usually needs (61, 90 for schneider), and is much cheaper than the exact value |
//!
//! The rules come from `skat-engine` (`GameType::playable`, `trick_winner`): this crate
//! adds no rule of its own. Tests compare it with a plain minimax on thousands of
//! endgames.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

use skat_engine::{Card, CardSet, GameType};

/// A card-play position: who holds what, the trick on the table, what is already won.
/// Positions are 0 forehand, 1 middlehand, 2 rearhand.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Position {
    /// The game being played.
    pub game: GameType,
    /// Who declared (0..3).
    pub declarer: u8,
    /// The cards each position still holds.
    pub hands: [CardSet; 3],
    /// Who led the current trick (0..3).
    pub leader: u8,
    /// The current trick's cards, in play order (`trick_len` of them).
    pub trick: [Option<Card>; 2],
    /// The declarer's card points so far (with the skat's in a suit game or grand).
    pub declarer_points: u8,
    /// Whether the declarer has taken a trick (what a null game turns on).
    pub declarer_took: bool,
}

impl Position {
    /// The start of the card play: forehand leads, nothing won but the skat's points
    /// (`skat` is the two cards put away; they count for the declarer except in null).
    pub fn new(game: GameType, declarer: u8, hands: [CardSet; 3], skat: CardSet) -> Position {
        Position {
            game,
            declarer,
            hands,
            leader: 0,
            trick: [None, None],
            declarer_points: if game.is_null() { 0 } else { skat.points() as u8 },
            declarer_took: false,
        }
    }

    fn trick_len(&self) -> usize {
        self.trick.iter().take_while(|c| c.is_some()).count()
    }

    /// Who is to play.
    pub fn to_move(&self) -> u8 {
        (self.leader + self.trick_len() as u8) % 3
    }

    /// The cards the player to move may play.
    pub fn legal(&self) -> CardSet {
        let hand = self.hands[usize::from(self.to_move())];
        match self.trick[0] {
            Some(led) => self.game.playable(hand, led),
            None => hand,
        }
    }

    /// Whether no card is left to play.
    pub fn is_over(&self) -> bool {
        self.hands.iter().all(|h| h.is_empty()) && self.trick[0].is_none()
    }

    /// The position after the player to move plays `card` (which must be legal).
    pub fn play(&self, card: Card) -> Position {
        let mut next = *self;
        let p = usize::from(self.to_move());
        next.hands[p].remove(card);
        match (self.trick[0], self.trick[1]) {
            (None, _) => next.trick[0] = Some(card),
            (Some(_), None) => next.trick[1] = Some(card),
            (Some(a), Some(b)) => {
                let winner = (self.leader + self.game.trick_winner([a, b, card]) as u8) % 3;
                if winner == self.declarer {
                    next.declarer_points += a.points() + b.points() + card.points();
                    next.declarer_took = true;
                }
                next.leader = winner;
                next.trick = [None, None];
            }
        }
        next
    }

    /// The value the search is about: the declarer's points, or in null 1 while the
    /// declarer has taken no trick and 0 once it has.
    fn score(&self) -> u8 {
        if self.game.is_null() { u8::from(!self.declarer_took) } else { self.declarer_points }
    }

    /// The lowest and highest final score still possible.
    fn range(&self) -> (u8, u8) {
        if self.game.is_null() {
            (0, u8::from(!self.declarer_took))
        } else {
            (self.declarer_points, self.declarer_points + self.at_stake())
        }
    }

    /// The card points still in play (0 in null).
    fn at_stake(&self) -> u8 {
        if self.game.is_null() {
            return 0;
        }
        let mut all = self.hands[0] | self.hands[1] | self.hands[2];
        for c in self.trick.into_iter().flatten() {
            all.insert(c);
        }
        all.points() as u8
    }
}

/// Counts what a solve did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Stats {
    /// Positions visited.
    pub nodes: u64,
    /// Transposition-table hits that ended a search.
    pub hits: u64,
}

/// Bounds of the points still to come from a trick boundary, and the lead that decided
/// the last search there (tried first next time).
#[derive(Debug, Clone, Copy)]
struct Bounds {
    lower: u8,
    upper: u8,
    best: Option<Card>,
}

/// The table's hash: its keys are already three hands' bits, so one multiply mixes them
/// well enough, at a fraction of SipHash's cost (nothing here comes from a client).
#[derive(Debug, Default, Clone, Copy)]
struct KeyHasher(u64);

impl Hasher for KeyHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for b in bytes {
            self.0 = (self.0.rotate_left(8) ^ u64::from(*b)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        }
    }

    fn write_u128(&mut self, k: u128) {
        let folded = (k as u64) ^ ((k >> 64) as u64).rotate_left(29);
        self.0 = folded.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ (folded >> 31);
    }
}

/// The solver: its transposition table is kept between calls on positions of one deal
/// and game (clear it with [`Solver::clear`] for another).
#[derive(Debug, Default)]
pub struct Solver {
    table: HashMap<u128, Bounds, BuildHasherDefault<KeyHasher>>,
    /// What the searches so far did.
    pub stats: Stats,
    /// Stop searching after this many nodes in all (`None`: never).
    limit: Option<u64>,
    /// Whether a search was cut short by the limit (its answers are then not to be trusted).
    pub aborted: bool,
}

/// Most table entries before it is cleared (about 40 MB).
const TABLE_LIMIT: usize = 1 << 20;

fn key(p: &Position) -> u128 {
    u128::from(p.hands[0].bits())
        | u128::from(p.hands[1].bits()) << 32
        | u128::from(p.hands[2].bits()) << 64
        | u128::from(p.leader) << 96
        | u128::from(p.declarer) << 98
        | u128::from(p.game as u8) << 100
}

impl Solver {
    /// A solver with an empty table.
    pub fn new() -> Solver {
        Solver::default()
    }

    /// Forgets every stored position.
    pub fn clear(&mut self) {
        self.table.clear();
    }

    /// A solver that gives up after `nodes` nodes in all: answers after that are
    /// worthless and [`Solver::aborted`] says so (a bot's time budget).
    pub fn with_node_limit(nodes: u64) -> Solver {
        Solver { limit: Some(nodes), ..Solver::default() }
    }

    /// The declarer's card points at the end with perfect play (null: 1 when the
    /// declarer wins, that is takes no trick; 0 otherwise).
    pub fn solve(&mut self, p: &Position) -> u8 {
        if p.game.is_null() {
            return u8::from(self.at_least(p, 1));
        }
        // Binary search on null windows: each probe is cheap and they share the table
        // (measured: fewer nodes than one search over the whole window).
        let (mut lo, mut hi) = p.range();
        while lo < hi {
            let mid = lo + (hi - lo).div_ceil(2);
            if self.at_least(p, mid) { lo = mid } else { hi = mid - 1 }
        }
        lo
    }

    /// Whether the declarer reaches `target` points (null: `target` 1 asks whether the
    /// declarer wins).
    pub fn at_least(&mut self, p: &Position, target: u8) -> bool {
        target == 0 || self.search(p, target - 1, target) >= target
    }

    /// The value of every legal card for the player to move: for each, the declarer's
    /// final points (null: 1 declarer wins, 0 loses) after it with perfect play.
    pub fn card_values(&mut self, p: &Position) -> Vec<(Card, u8)> {
        p.legal().into_iter().map(|c| (c, self.solve(&p.play(c)))).collect()
    }

    /// Alpha-beta on the final score; the value is exact inside (alpha, beta) and a
    /// bound outside.
    fn search(&mut self, p: &Position, mut alpha: u8, mut beta: u8) -> u8 {
        self.stats.nodes += 1;
        if self.aborted || self.limit.is_some_and(|l| self.stats.nodes > l) {
            // Out of budget: unwind without storing anything.
            self.aborted = true;
            return alpha;
        }
        if p.game.is_null() && p.declarer_took {
            return 0;
        }
        if p.is_over() {
            return p.score();
        }
        let (base, most) = p.range();
        if most <= alpha {
            return most;
        }
        if base >= beta {
            return base;
        }
        let boundary = p.trick[0].is_none();
        let (alpha0, beta0) = (alpha, beta);
        let k = if boundary { key(p) } else { 0 };
        let mut hint = None;
        if boundary && let Some(b) = self.table.get(&k) {
            hint = b.best;
            let (lo, hi) = (base + b.lower, base + b.upper);
            if lo >= beta || lo == hi {
                self.stats.hits += 1;
                return lo;
            }
            if hi <= alpha {
                self.stats.hits += 1;
                return hi;
            }
            alpha = alpha.max(lo);
            beta = beta.min(hi);
        }
        let maximising = p.to_move() == p.declarer;
        let (mut moves, count) = ordered_moves(p);
        if let Some(h) = hint
            && let Some(i) = moves[..count].iter().position(|c| *c == h)
        {
            moves[..=i].rotate_right(1);
        }
        let mut best = if maximising { 0 } else { u8::MAX };
        let mut best_card = None;
        for &card in &moves[..count] {
            let v = self.search(&p.play(card), alpha, beta);
            let better = if maximising { v > best } else { v < best };
            if better || best_card.is_none() {
                best_card = Some(card);
            }
            if maximising {
                best = best.max(v);
                alpha = alpha.max(v);
            } else {
                best = best.min(v);
                beta = beta.min(v);
            }
            if alpha >= beta {
                break;
            }
        }
        if boundary && !self.aborted {
            if self.table.len() >= TABLE_LIMIT {
                self.table.clear();
            }
            let future = best - base;
            let entry = self.table.entry(k).or_insert(Bounds { lower: 0, upper: most - base, best: None });
            entry.best = best_card;
            if best <= alpha0 {
                entry.upper = entry.upper.min(future);
            } else if best >= beta0 {
                entry.lower = entry.lower.max(future);
            } else {
                *entry = Bounds { lower: future, upper: future, best: best_card };
            }
        }
        best
    }
}

/// The legal cards, one of each group of equivalent ones, best first (the first `count`
/// of the array).
fn ordered_moves(p: &Position) -> ([Card; 12], usize) {
    let legal = p.legal();
    let me = p.to_move();
    let game = p.game;
    // Cards still in someone's hand or on the table separate my cards.
    let mut live = p.hands[0] | p.hands[1] | p.hands[2];
    for c in p.trick.into_iter().flatten() {
        live.insert(c);
    }
    let mine = p.hands[usize::from(me)];
    let mut moves = [Card::new(skat_engine::Suit::Clubs, skat_engine::Rank::Jack); 12];
    let mut count = 0;
    for card in legal {
        let class = game.follow_set(card);
        let s = game.strength(card, card);
        // Skip `card` when a stronger card of mine, next to it among the live cards of
        // its class, has the same points: that one stands for both.
        let stronger_live = (live & class).into_iter().filter(|c| game.strength(*c, card) > s);
        let next = stronger_live.min_by_key(|c| game.strength(*c, card));
        let equivalent = next.is_some_and(|n| {
            mine.contains(n) && legal.contains(n) && (game.is_null() || n.points() == card.points())
        });
        if !equivalent && count < moves.len() {
            moves[count] = card;
            count += 1;
        }
    }
    // Order: in the trick, who wins with what.
    let declarer_side = |who: u8| (who == p.declarer) == (me == p.declarer);
    let played = p.trick;
    let led = played[0];
    let key = |card: &Card| -> i32 {
        let points = i32::from(card.points());
        match led {
            None => {
                // Leading: strong cards first (trumps and aces draw the play).
                -i32::from(game.strength(*card, *card)) * 16 - points
            }
            Some(led) => {
                let (best_i, best_s) = played
                    .iter()
                    .enumerate()
                    .filter_map(|(i, c)| c.map(|c| (i, game.strength(c, led))))
                    .max_by_key(|(_, s)| *s)
                    .unwrap_or((0, 0));
                let winner = (p.leader + best_i as u8) % 3;
                let mine_wins = game.strength(*card, led) > best_s;
                if mine_wins {
                    // Take it, with points when last to play.
                    -1000 - points
                } else if declarer_side(winner) {
                    // My side takes it: add points.
                    -points
                } else {
                    // Theirs: give nothing.
                    points
                }
            }
        }
    };
    moves[..count].sort_by_key(key);
    (moves, count)
}

/// A plain minimax over every legal card (no table, no pruning, no reduction): the
/// reference the tests compare the solver with.
pub fn minimax(p: &Position) -> u8 {
    if p.game.is_null() && p.declarer_took {
        return 0;
    }
    if p.is_over() {
        return p.score();
    }
    let values = p.legal().into_iter().map(|c| minimax(&p.play(c)));
    if p.to_move() == p.declarer { values.max().unwrap_or(0) } else { values.min().unwrap_or(0) }
}

#[cfg(test)]
mod tests;
