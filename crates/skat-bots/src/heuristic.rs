//! `heuristic`: plays like a sensible club player (rules of thumb from the project's
//! STRATEGY notes). It judges the hand for each game by a model fitted to simulated
//! outcomes of its own games ([`crate::hand_model`]) and bids for the game with the best
//! expected score, up to what that game is worth; picks up the skat and chooses the game
//! again with the twelve cards; discards to bank blank tens and make voids, pulls trumps
//! as declarer, gives points to its partner's tricks as defender, and keeps track of the
//! cards out.

use skat_bot_api::{Bot, Knowledge};
use skat_engine::{Bid, Card, CardSet, Contract, GameType, Position, Rank, Suit};

use crate::hand_model::{Moment, win_chance};

/// The club-player heuristic.
#[derive(Debug, Clone, Default)]
pub struct HeuristicBot {
    /// The game planned during the auction, and the most it may bid.
    plan: Option<(GameType, u16)>,
    /// Added to the hand model's log-odds of winning when bidding and choosing a game
    /// (0: the model as fitted to this bot's own card play). A bot that plays its
    /// cards better than this one wins more of the same hands: for it the fitted chances
    /// are too low, and it should bid more boldly ([`HeuristicBot::with_boldness`]).
    boldness: f64,
}

impl HeuristicBot {
    /// A fresh bot.
    pub fn new() -> HeuristicBot {
        HeuristicBot::default()
    }

    /// A bot that bids and declares as if its chance of winning each game had
    /// `boldness` more log-odds than the fitted model says (for a stronger card player).
    pub fn with_boldness(boldness: f64) -> HeuristicBot {
        HeuristicBot { plan: None, boldness }
    }
}

/// `p` with `boldness` added to its log-odds.
pub fn emboldened(p: f64, boldness: f64) -> f64 {
    if boldness == 0.0 {
        return p;
    }
    let z = (p / (1.0 - p)).ln() + boldness;
    1.0 / (1.0 + (-z).exp())
}

/// This seat's position (a seat asked to decide always plays the deal).
fn me(k: &Knowledge) -> Position {
    k.position().unwrap_or(Position::Forehand)
}

fn side_suits(game: GameType) -> impl Iterator<Item = Suit> {
    Suit::ALL.into_iter().filter(move |s| game.trump_suit() != Some(*s))
}

fn plain(suit: Suit) -> CardSet {
    CardSet::suit_without_jack(suit)
}

/// The value the declarer may count on for `game` with `cards` (hand, or hand and skat).
pub fn value(cards: CardSet, game: GameType) -> u16 {
    if game.is_null() {
        return 23;
    }
    let m = game.matadors(cards);
    // "Without" counts can collapse when the skat holds a top trump: count at most 2.
    let m = if m < 0 { m.unsigned_abs().min(2) } else { m.unsigned_abs() };
    game.base_value() * (u16::from(m) + 1)
}

/// What declaring `game` is worth on average with a chance `p` of winning it at value
/// `v`, in Seeger-Fabian points: won +v+50, lost -2v-50 (break-even about 60%). The 40
/// each opponent gains from a lost game is left out: counting it made the bot pass hands
/// it wins (measured: against random bots +1,393 per list with it, +1,567 without).
fn expected_score(p: f64, v: u16) -> f64 {
    let v = f64::from(v);
    p * (v + 50.0) - (1.0 - p) * (2.0 * v + 50.0)
}

/// The game to bid for with ten cards and what it is worth, if any is expected to score
/// (the fitted model's chance of winning, [`hand_model`]).
fn best_game(hand: CardSet, forehand: bool, boldness: f64) -> Option<(GameType, u16)> {
    GameType::ALL
        .into_iter()
        .map(|g| {
            let v = value(hand, g);
            let p = emboldened(win_chance(hand, g, forehand, 0, Moment::Auction), boldness);
            (g, v, expected_score(p, v))
        })
        .filter(|(_, _, ev)| *ev > 0.0)
        .max_by(|a, b| a.2.total_cmp(&b.2))
        .map(|(g, v, _)| (g, v))
}

/// The game to declare with twelve cards after a bid of `bid`, and the two cards to put
/// away for it: the best expected score among the games that reach the bid (when none
/// does, the one most likely to be won, for the least damage).
pub fn choose_game(twelve: CardSet, bid: u16, forehand: bool) -> (GameType, [Card; 2]) {
    choose_game_boldly(twelve, bid, forehand, 0.0)
}

/// [`choose_game`] with the model's chances emboldened ([`HeuristicBot::with_boldness`]).
pub fn choose_game_boldly(twelve: CardSet, bid: u16, forehand: bool, boldness: f64) -> (GameType, [Card; 2]) {
    let mut best: Option<(bool, f64, GameType, [Card; 2])> = None;
    for g in GameType::ALL {
        let away = discard_for(twelve, g);
        let kept = twelve.without(away[0]).without(away[1]);
        let away_points = if g.is_null() { 0 } else { u32::from(away[0].points() + away[1].points()) };
        let p = emboldened(win_chance(kept, g, forehand, away_points, Moment::Declaration), boldness);
        let v = value(twelve, g);
        let reaches = v >= bid;
        let score = if reaches { expected_score(p, v) } else { p };
        if best.is_none_or(|b| (reaches, score) > (b.0, b.1)) {
            best = Some((reaches, score, g, away));
        }
    }
    best.map_or((GameType::Grand, discard_for(twelve, GameType::Grand)), |b| (b.2, b.3))
}

/// The two cards to put away from twelve for `game`: in null the highest of the riskiest
/// suits; otherwise blank tens (banked) and short side suits (voids), never an ace.
pub fn discard_for(twelve: CardSet, game: GameType) -> [Card; 2] {
    let pick = |set: CardSet, key: &dyn Fn(Card) -> i32| {
        let first = highest_by(set, key);
        let second = first.and_then(|f| highest_by(set.without(f), key));
        match (first, second) {
            (Some(a), Some(b)) => [a, b],
            _ => {
                let mut it = twelve.iter();
                let a = it.next().unwrap_or(Card::new(Suit::Clubs, Rank::Seven));
                [a, it.next().unwrap_or(a)]
            }
        }
    };
    if game.is_null() {
        return pick(twelve, &|c| {
            let suit_len = (twelve & CardSet::suit(c.suit())).len() as i32;
            i32::from(c.rank().null_order()) * 10 - suit_len
        });
    }
    let side = twelve - game.trumps();
    let key = |c: Card| {
        let suit = twelve & plain(c.suit());
        let len = suit.len() as i32;
        let has_ace = suit.contains(Card::new(c.suit(), Rank::Ace));
        let mut score = 50 - 12 * len; // short suits first: make a void
        if c.rank() == Rank::Ten && !has_ace {
            score += 60; // a blank ten: bank its 10 points
        }
        if c.rank() == Rank::Ace {
            score -= 100; // aces take tricks
        }
        if c.rank() == Rank::Ten && has_ace {
            score -= 40;
        }
        score + i32::from(c.points())
    };
    if side.len() >= 2 { pick(side, &key) } else { pick(twelve, &|c| -worth(game, c)) }
}

/// The strength of a card in the current trick (0: cannot win it).
fn strength(game: GameType, card: Card, led: Card) -> u8 {
    game.strength(card, led)
}

fn lowest_by<F: Fn(Card) -> i32>(cards: CardSet, key: F) -> Option<Card> {
    cards.iter().min_by_key(|c| key(*c))
}

fn highest_by<F: Fn(Card) -> i32>(cards: CardSet, key: F) -> Option<Card> {
    cards.iter().max_by_key(|c| key(*c))
}

/// A card's worth to keep: points, with trumps and aces weighted up.
fn worth(game: GameType, c: Card) -> i32 {
    let trump = if game.trumps().contains(c) { 20 } else { 0 };
    i32::from(c.points()) + trump + if c.is_jack() { 10 } else { 0 }
}

impl Bot for HeuristicBot {
    /// Says why it declared: what it held (shown after the deal, in the replay).
    fn comment(&mut self, k: &Knowledge) -> Option<String> {
        if k.legal.contracts.is_empty() {
            return None;
        }
        let cards = k.hand | k.discards;
        let jacks = cards.iter().filter(|c| c.rank() == skat_engine::Rank::Jack).count();
        Some(format!(
            "declared on {jacks} jacks and {} card points among my {} cards",
            cards.points(),
            cards.len()
        ))
    }

    async fn bid(&mut self, k: &Knowledge) -> Option<Bid> {
        let plan = best_game(k.hand, me(k) == Position::Forehand, self.boldness);
        self.plan = plan;
        let (_, limit) = plan?;
        k.legal.bid_from.filter(|b| b.value() <= limit)
    }

    async fn answer(&mut self, k: &Knowledge, bid: Bid) -> bool {
        let plan = best_game(k.hand, me(k) == Position::Forehand, self.boldness);
        self.plan = plan;
        plan.is_some_and(|(_, limit)| bid.value() <= limit)
    }

    async fn take_skat(&mut self, k: &Knowledge) -> bool {
        // Hand only with a grand that cannot lose much: four jacks and two aces.
        let jacks = (k.hand & CardSet::JACKS).len();
        let aces = (k.hand & CardSet::rank(Rank::Ace)).len();
        !(jacks == 4 && aces >= 2)
    }

    async fn discard(&mut self, k: &Knowledge) -> [Card; 2] {
        let bid = k.bid.map_or(18, Bid::value);
        let (game, away) = choose_game_boldly(k.hand, bid, me(k) == Position::Forehand, self.boldness);
        self.plan = Some((game, value(k.hand, game)));
        away
    }

    async fn declare(&mut self, k: &Knowledge) -> Contract {
        // The declarer's 12 cards as far as it knows them (in a hand game, its 10).
        let cards = k.hand | k.discards;
        let bid = k.bid.map_or(18, Bid::value);
        let legal = &k.legal.contracts;
        let plain_legal = |g: GameType| legal.contains(&Contract::plain(g));
        if let Some((g, _)) =
            self.plan.filter(|(g, _)| plain_legal(*g) && (value(cards, *g) >= bid || g.is_null()))
        {
            return Contract::plain(g);
        }
        // Otherwise the plain trump game with the most trumps that reaches the bid.
        let mut options: Vec<GameType> =
            GameType::ALL.into_iter().filter(|g| !g.is_null() && plain_legal(*g)).collect();
        options.sort_by_key(|g| (value(cards, *g) >= bid, (cards & g.trumps()).len(), g.base_value()));
        options
            .last()
            .map(|g| Contract::plain(*g))
            .or_else(|| legal.first().copied())
            .unwrap_or(Contract::plain(GameType::Grand))
    }

    async fn play(&mut self, k: &Knowledge) -> Card {
        let legal = k.legal.cards;
        let fallback = legal.first().unwrap_or(Card::new(Suit::Clubs, Rank::Seven));
        let Some(game) = k.game() else { return fallback };
        if legal.len() == 1 {
            return fallback;
        }
        let card = if game.is_null() { play_null(k, game, legal) } else { play_trumps(k, game, legal) };
        card.filter(|c| legal.contains(*c)).unwrap_or(fallback)
    }
}

fn play_null(k: &Knowledge, game: GameType, legal: CardSet) -> Option<Card> {
    let order = |c: Card| i32::from(c.rank().null_order());
    let trick = k.current_trick.filter(|t| !t.cards().is_empty());
    if k.is_declarer() {
        let Some(t) = trick else { return lowest_by(legal, order) };
        let led = t.cards()[0];
        let best = t.cards().iter().map(|c| strength(game, *c, led)).max().unwrap_or(0);
        let under: CardSet =
            legal.iter().filter(|c| strength(game, *c, led) < best || strength(game, *c, led) == 0).collect();
        if under.is_empty() {
            // Every card wins: the game is lost anyway.
            return highest_by(legal, order);
        }
        // The highest card that still stays under, or throw the most dangerous card.
        if legal.iter().any(|c| strength(game, c, led) > 0) {
            highest_by(under, order)
        } else {
            highest_by(legal, order)
        }
    } else {
        lowest_by(legal, order)
    }
}

fn play_trumps(k: &Knowledge, game: GameType, legal: CardSet) -> Option<Card> {
    let trumps = game.trumps();
    let out = k.cards_out();
    let trick = k.current_trick.filter(|t| !t.cards().is_empty());
    let cheap = |c: Card| worth(game, c);
    let Some(t) = trick else {
        return lead(k, game, legal, trumps, out);
    };
    let led = t.cards()[0];
    let plays: Vec<(Position, Card)> = t.plays().collect();
    let (winner_pos, winner_card) =
        plays.iter().copied().max_by_key(|(_, c)| strength(game, *c, led)).unwrap_or((t.leader, led));
    let best = strength(game, winner_card, led);
    let last = plays.len() == 2;
    let points: i32 = t.cards().iter().map(|c| i32::from(c.points())).sum();
    let winners: CardSet = legal.iter().filter(|c| strength(game, *c, led) > best).collect();
    let partner_winning = !k.is_declarer() && k.same_side(winner_pos, me(k));

    if partner_winning {
        // The partner leads the trick: give points if it is safe (we are last, or the
        // partner's card beats everything the declarer can still have).
        let declarer_can_beat = out.iter().any(|c| strength(game, c, led) > best);
        if last || !declarer_can_beat {
            let fat = legal - trumps;
            return highest_by(if fat.is_empty() { legal } else { fat }, |c| i32::from(c.points()));
        }
        return lowest_by(legal, cheap);
    }
    if !winners.is_empty() {
        // Win it when we are last, when it is worth points, or when our card cannot be beaten.
        let cheapest = lowest_by(winners, |c| i32::from(strength(game, c, led)) * 2 + i32::from(c.points()))?;
        let unbeatable = !out.iter().any(|c| strength(game, c, led) > strength(game, cheapest, led));
        if last || points >= 10 || unbeatable {
            return Some(cheapest);
        }
    }
    lowest_by(legal, cheap)
}

fn lead(k: &Knowledge, game: GameType, legal: CardSet, trumps: CardSet, out: CardSet) -> Option<Card> {
    let my_trumps = legal & trumps;
    let trumps_out = out & trumps;
    let highest_out = trumps_out.iter().map(|c| game.strength(c, c)).max().unwrap_or(0);
    if k.is_declarer() {
        if !my_trumps.is_empty() && !trumps_out.is_empty() {
            // Pull trumps: the top trump if it is the boss, else a low one.
            let top = highest_by(my_trumps, |c| i32::from(game.strength(c, c)))?;
            return if game.strength(top, top) > highest_out {
                Some(top)
            } else {
                lowest_by(my_trumps, |c| i32::from(game.strength(c, c)))
            };
        }
        // Cash side aces, then tens whose ace is gone.
        for s in side_suits(game) {
            let ace = Card::new(s, Rank::Ace);
            if legal.contains(ace) {
                return Some(ace);
            }
        }
        for s in side_suits(game) {
            let ten = Card::new(s, Rank::Ten);
            if legal.contains(ten) && !out.contains(Card::new(s, Rank::Ace)) {
                return Some(ten);
            }
        }
        if !my_trumps.is_empty() {
            return highest_by(my_trumps, |c| i32::from(game.strength(c, c)));
        }
        // A low card of the shortest side suit.
        return lowest_by(legal, |c| (k.hand & plain(c.suit())).len() as i32 * 20 + i32::from(c.points()));
    }
    // Defender: cash an ace the declarer can't trump (as far as we know), else lead by
    // "short way, long suit; long way, short suit".
    let declarer = k.declarer.unwrap_or(Position::Forehand);
    let voids = k.cannot_hold()[declarer.index()];
    for s in side_suits(game) {
        let ace = Card::new(s, Rank::Ace);
        if legal.contains(ace) && !voids.contains(Card::new(s, Rank::Seven)) {
            return Some(ace);
        }
    }
    let side = legal - trumps;
    let pool = if side.is_empty() { legal } else { side };
    let declarer_next = me(k).next() == declarer;
    let len = |c: Card| (k.hand & plain(c.suit())).len() as i32;
    if declarer_next {
        lowest_by(pool, |c| -len(c) * 20 + i32::from(c.points()))
    } else {
        lowest_by(pool, |c| len(c) * 20 + i32::from(c.points()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn set(s: &str) -> CardSet {
        s.parse().unwrap()
    }

    #[test]
    fn judges_hands_like_a_club_player() {
        // Two top jacks and three aces: grand.
        let grand = set("CJ.SJ.CA.SA.HA.CT.C9.S8.H7.D7");
        assert_eq!(best_game(grand, false, 0.0).map(|g| g.0), Some(GameType::Grand));
        // Seven clubs with a jack: clubs.
        let clubs = set("HJ.CA.CT.CK.CQ.C9.C8.SA.H7.D7");
        assert_eq!(best_game(clubs, false, 0.0).map(|g| g.0), Some(GameType::Clubs));
        // Nothing: pass.
        assert_eq!(best_game(set("HK.HQ.H9.SK.SQ.S9.DK.DQ.D9.C8"), false, 0.0), None);
        // A null hand: low cards everywhere.
        assert_eq!(crate::hand_model::null_risk(set("C7.C9.S7.S8.H7.H9.HJ.D7.D8.D9")), 0);
        assert!(crate::hand_model::null_risk(set("CA.C9.S7.S8.H7.H9.HJ.D7.D8.D9")) > 0);
    }

    #[test]
    fn boldness_bids_more_and_never_less() {
        // A borderline clubs hand: the fitted model passes it, a bolder bot bids clubs.
        let hand = set("HJ.CA.CK.CQ.C9.C8.SA.S8.H7.D7");
        let limit = |b: f64| best_game(hand, false, b).map_or(0, |g| g.1);
        assert!(limit(0.5) >= limit(0.0));
        assert!(limit(4.0) > 0, "a bold enough bot bids this hand");
        for p in [0.1, 0.5, 0.9] {
            assert_eq!(emboldened(p, 0.0), p);
            assert!(emboldened(p, 0.5) > p && emboldened(p, 0.5) < 1.0);
        }
    }
}
