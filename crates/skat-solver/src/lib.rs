//! A double-dummy Skat solver: with every hand known, the outcome of the card play when
//! everybody plays perfectly, from any point of it and for every game type.
//!
//! | concern | how |
//! |---|---|
//! | cards | renumbered per game type (`layout.rs`) so that following suit, beating a card and finding equal cards are bit operations |
//! | search | alpha-beta over the cards played, declarer maximising, defenders minimising together; the last trick is played out, not searched |
//! | transposition table | at trick boundaries (`transposition.rs`): one `u64` per entry, named by the cards still in play and the leader (within a deal that says who holds what); bounds of the points still to come and the lead that decided |
//! | enhanced transposition cutoff | the third card of a trick looks up every boundary it could lead to, all at once, before searching any |
//! | fewer moves | equivalent cards (same player, same suit class, no live card between them, equal points) are searched once; of such a group with unequal points only one card is searched when the trick's side is already settled (`dominated`: the most points when it is mine, the fewest when it is theirs), which takes 2.4x fewer nodes in grands |
//! | move order | the table's best lead, then leads no opponent can beat (most points first), leads that cut off before (history), strong leads first, a defender's trumps last; following: cards that take the trick first, a side that is winning the trick adds points, a losing side keeps them |
//! | null windows | [`Solver::at_least`] asks "does the declarer reach N points?", which is all a bot usually needs (61, 90 for schneider), and is much cheaper than the exact value |
//!
//! The rules come from `skat-engine` (`follow_set`, `strength`, `trumps`, turned into the
//! layout, which a test checks against `trick_winner` on every possible trick): this
//! crate adds no rule of its own. Tests compare it with a plain minimax on thousands of
//! endgames.

pub mod analysis;
mod layout;
mod order;
mod transposition;

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use order::ordered_moves;

use skat_engine::{Card, CardSet, GameType};

use layout::Layout;
use transposition::{Entry, Table};

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

/// The deal the table was filled from: its entries are only true for it.
#[derive(Debug, Clone, Copy)]
struct Deal {
    game: GameType,
    declarer: u8,
    /// Who held each card (layout bits) in the positions seen so far.
    owners: [u32; 3],
}

/// The solver: its transposition table is kept between calls on positions of one deal
/// and game, and cleared by itself when a position of another deal or game comes.
#[derive(Debug, Default)]
pub struct Solver {
    table: Table,
    deal: Option<Deal>,
    /// What the searches so far did.
    pub stats: Stats,
    /// Stop searching after this many nodes in all (`None`: never).
    limit: Option<u64>,
    /// Stop searching once this is set (looked at every [`STOP_CHECK_NODES`] nodes).
    stop: Option<Arc<AtomicBool>>,
    /// Whether a search was cut short by the limit or the stop (its answers are then not
    /// to be trusted).
    pub aborted: bool,
    /// Per seat and card (layout bit): how much cutting off with it has saved.
    history: [[u32; 32]; 3],
}

/// How often a search looks at its stop flag: a few milliseconds of search, so that a
/// caller that must stop (a server shutting down) is not held up by one long solve.
pub const STOP_CHECK_NODES: u64 = 1 << 16;

/// The history counts are capped so that they stay below [`DEFENDER_TRUMP_LAST`].
const HISTORY_CAP: u32 = 65_535;
const DEFENDER_TRUMP_LAST: i32 = 100_000;
/// Leads that surely win come before everything (also a defender's trumps).
const SURE_LEAD: i32 = 200_000;

/// What stays the same through one search.
#[derive(Clone, Copy)]
struct Ctx {
    layout: &'static Layout,
    declarer: u8,
    null: bool,
}

/// A position inside the search, in layout bits (see `layout.rs`).
#[derive(Debug, Clone, Copy)]
struct Node {
    hands: [u32; 3],
    /// The current trick's cards (the first `len`).
    trick: [u8; 2],
    len: u8,
    leader: u8,
    /// The declarer's points so far.
    points: u8,
    /// The points of every card not yet in a finished trick (0 in null).
    stake: u8,
    took: bool,
}

impl Node {
    fn to_move(self) -> u8 {
        (self.leader + self.len) % 3
    }

    fn play(&self, cx: &Ctx, card: u8) -> Node {
        let mut next = *self;
        let me = usize::from(self.to_move());
        next.hands[me] &= !(1 << card);
        if self.len < 2 {
            next.trick[usize::from(self.len)] = card;
            next.len += 1;
            return next;
        }
        let l = cx.layout;
        let cards = [self.trick[0], self.trick[1], card];
        let mut w = 0;
        if l.beats(cards[1], cards[0]) {
            w = 1;
        }
        if l.beats(cards[2], cards[w]) {
            w = 2;
        }
        let winner = (self.leader + w as u8) % 3;
        let points = if cx.null { 0 } else { cards.iter().map(|c| l.points[usize::from(*c)]).sum() };
        if winner == cx.declarer {
            next.points += points;
            next.took = true;
        }
        next.stake -= points;
        next.leader = winner;
        next.len = 0;
        next
    }
}

impl Solver {
    /// A solver with an empty table.
    pub fn new() -> Solver {
        Solver::default()
    }

    /// Forgets every stored position.
    pub fn clear(&mut self) {
        self.table.clear();
        self.deal = None;
    }

    /// A solver that gives up after `nodes` nodes in all: answers after that are
    /// worthless and [`Solver::aborted`] says so (a bot's time budget).
    pub fn with_node_limit(nodes: u64) -> Solver {
        Solver { limit: Some(nodes), ..Solver::default() }
    }

    /// The same solver, giving up (as the node limit does: [`Solver::aborted`]) within
    /// [`STOP_CHECK_NODES`] nodes of `stop` being set.
    pub fn stopped_by(self, stop: Arc<AtomicBool>) -> Solver {
        Solver { stop: Some(stop), ..self }
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
        if target == 0 {
            return true;
        }
        let (cx, node) = self.enter(p);
        self.search(&cx, &node, target - 1, target) >= target
    }

    /// The value of every legal card for the player to move: for each, the declarer's
    /// final points (null: 1 declarer wins, 0 loses) after it with perfect play.
    pub fn card_values(&mut self, p: &Position) -> Vec<(Card, u8)> {
        p.legal().into_iter().map(|c| (c, self.solve(&p.play(c)))).collect()
    }

    /// `p` in layout bits, with the table made right for its deal.
    fn enter(&mut self, p: &Position) -> (Ctx, Node) {
        let layout = Layout::of(p.game);
        let hands = p.hands.map(|h| layout.bits(h));
        let same_deal = self.deal.is_some_and(|d| {
            d.game == p.game
                && d.declarer == p.declarer
                && (0..3).all(|i| hands[i] & (d.owners[(i + 1) % 3] | d.owners[(i + 2) % 3]) == 0)
        });
        match &mut self.deal {
            Some(d) if same_deal => (0..3).for_each(|i| d.owners[i] |= hands[i]),
            _ => {
                self.table.clear();
                self.history = [[0; 32]; 3];
                self.deal = Some(Deal { game: p.game, declarer: p.declarer, owners: hands });
            }
        }
        let cx = Ctx { layout, declarer: p.declarer, null: p.game.is_null() };
        let mut node = Node {
            hands,
            trick: [0; 2],
            len: 0,
            leader: p.leader,
            points: p.declarer_points,
            stake: p.at_stake(),
            took: p.declarer_took,
        };
        for c in p.trick.into_iter().flatten() {
            node.trick[usize::from(node.len)] = layout.bit(c);
            node.len += 1;
        }
        (cx, node)
    }

    /// Alpha-beta on the final score; the value is exact inside (alpha, beta) and a
    /// bound outside.
    fn search(&mut self, cx: &Ctx, n: &Node, mut alpha: u8, mut beta: u8) -> u8 {
        self.stats.nodes += 1;
        if self.out_of_budget() {
            // Out of budget, or told to stop: unwind without storing anything.
            return alpha;
        }
        let cards = n.hands[0] | n.hands[1] | n.hands[2];
        let (base, most) = match n.bounds(cx.null, cards) {
            Ok(b) => b,
            Err(exact) => return exact,
        };
        if most <= alpha {
            return most;
        }
        if base >= beta {
            return base;
        }
        let left = cards.count_ones();
        if n.len == 0 && left == 3 {
            // The last trick plays itself.
            return self.last_trick(cx, n);
        }
        // Small positions are searched again faster than looked up (a table probe is a
        // cache miss).
        let boundary = n.len == 0 && left > TABLE_FROM;
        let (alpha0, beta0) = (alpha, beta);
        let k = if boundary { transposition::key(cards, n.leader) } else { 0 };
        let known = if boundary { self.table.get(k) } else { None };
        if let Some(e) = known {
            let (lo, hi) = (base + e.lower, base + e.upper);
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
        let maximising = n.to_move() == cx.declarer;
        let (mut moves, count) = ordered_moves(cx, n, cards, &self.history[usize::from(n.to_move())]);
        if let Some(h) = known.and_then(|e| e.best)
            && let Some(i) = moves[..count].iter().position(|c| *c == h)
        {
            moves[..=i].rotate_right(1);
        }
        if n.len == 2
            && left > TABLE_FROM + 1
            && let Some(v) = self.cutoff(cx, n, cards, &moves[..count], maximising, alpha, beta)
        {
            return v;
        }
        let mut best = if maximising { 0 } else { u8::MAX };
        let mut best_card = None;
        for &card in &moves[..count] {
            let v = self.search(cx, &n.play(cx, card), alpha, beta);
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
                let h = &mut self.history[usize::from(n.to_move())][usize::from(card)];
                *h = h.saturating_add(left * left);
                break;
            }
        }
        if boundary && !self.aborted {
            self.store(k, known, best, base, most, (alpha0, beta0), best_card);
        }
        best
    }
}

impl Solver {
    /// Whether the search must stop: its node budget spent, or told to stop (looked at
    /// every few thousand nodes); once true, it stays true.
    #[inline(always)]
    fn out_of_budget(&mut self) -> bool {
        self.aborted = self.aborted
            || self.limit.is_some_and(|l| self.stats.nodes > l)
            || (self.stats.nodes.is_multiple_of(STOP_CHECK_NODES)
                && self.stop.as_ref().is_some_and(|s| s.load(Ordering::Relaxed)));
        self.aborted
    }

    /// Enhanced transposition cutoff, with two cards of the trick on the table: every card
    /// here ends the trick. The memory is asked for all the boundaries they lead to at once
    /// (their cache misses overlap instead of queueing), then whether one the table knows
    /// already decides this node.
    #[inline(always)]
    #[allow(clippy::too_many_arguments)]
    fn cutoff(
        &mut self,
        cx: &Ctx,
        n: &Node,
        cards: u32,
        moves: &[u8],
        maximising: bool,
        alpha: u8,
        beta: u8,
    ) -> Option<u8> {
        let l = cx.layout;
        let (mut w, mut ws) = (n.trick[0], n.leader);
        if l.beats(n.trick[1], w) {
            (w, ws) = (n.trick[1], (n.leader + 1) % 3);
        }
        let mut keys = [0u64; 12];
        let mut bases = [0u8; 12];
        let on_table =
            if cx.null { 0 } else { l.points[usize::from(n.trick[0])] + l.points[usize::from(n.trick[1])] };
        for (i, &card) in moves.iter().enumerate() {
            let leader = if l.beats(card, w) { (n.leader + 2) % 3 } else { ws };
            keys[i] = transposition::key(cards & !(1 << card), leader);
            bases[i] = if leader == cx.declarer && !cx.null {
                n.points + on_table + l.points[usize::from(card)]
            } else {
                n.points
            };
        }
        self.table.touch(&keys[..moves.len()]);
        for (i, &card) in moves.iter().enumerate() {
            if cx.null && (if l.beats(card, w) { (n.leader + 2) % 3 } else { ws }) == cx.declarer {
                continue;
            }
            if let Some(e) = self.table.get(keys[i]) {
                if maximising && bases[i] + e.lower >= beta {
                    self.stats.hits += 1;
                    return Some(bases[i] + e.lower);
                }
                if !maximising && bases[i] + e.upper <= alpha {
                    self.stats.hits += 1;
                    return Some(bases[i] + e.upper);
                }
            }
        }
        None
    }

    /// Stores what the search learned of a boundary position: an exact value, or a bound
    /// when it fell outside the window it was searched with.
    #[inline(always)]
    #[allow(clippy::too_many_arguments)]
    fn store(
        &mut self,
        k: u64,
        known: Option<Entry>,
        best: u8,
        base: u8,
        most: u8,
        window: (u8, u8),
        best_card: Option<u8>,
    ) {
        let future = best - base;
        let mut e = known.unwrap_or(Entry { lower: 0, upper: most - base, best: None });
        e.best = best_card;
        if best <= window.0 {
            e.upper = e.upper.min(future);
        } else if best >= window.1 {
            e.lower = e.lower.max(future);
        } else {
            e.lower = future;
            e.upper = future;
        }
        self.table.put(k, e);
    }
}

impl Node {
    /// The least and the most the position can still be worth, or its exact value when
    /// nothing is left to play for (null: the declarer took a trick, or every card is
    /// played; otherwise no point is left on the table or in hand).
    #[inline(always)]
    fn bounds(&self, null: bool, cards: u32) -> Result<(u8, u8), u8> {
        if null {
            return if self.took {
                Err(0)
            } else if cards == 0 {
                Err(1)
            } else {
                Ok((0, 1))
            };
        }
        if self.stake == 0 { Err(self.points) } else { Ok((self.points, self.points + self.stake)) }
    }
}

/// Positions with at most this many cards in hand are not stored (two tricks).
const TABLE_FROM: u32 = 3;

impl Solver {
    /// The value when every hand holds one card.
    fn last_trick(&mut self, cx: &Ctx, n: &Node) -> u8 {
        let mut m = *n;
        for _ in 0..3 {
            let seat = usize::from(m.to_move());
            m = m.play(cx, m.hands[seat].trailing_zeros() as u8);
        }
        if cx.null { u8::from(!m.took) } else { m.points }
    }
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
