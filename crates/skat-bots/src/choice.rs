//! Game choice by simulation: what to bid, whether to pick up the skat, what to put away
//! and what to declare, judged over sampled deals for every option the hand has.
//!
//! An option is a game, hand or not, and for null open or not. For each, the unseen cards
//! are dealt many times (the skat among them), the declarer puts away two when it picks
//! up ([`crate::put_away`]: for null the pair that leaves the fewest suits to be forced),
//! and the double-dummy solver says whether the declarer wins. Two estimates of the
//! chance of winning then meet:
//!
//! - **Null**: the simulation alone, counted in full only over ten cards with no suit
//!   the defenders can force a trick in (half otherwise). The solver's null search is its
//!   fastest question, and double-dummy is a fair and slightly cautious judge of a safe
//!   null: the defenders' task is to find the declarer's hole, which open cards make easy
//!   and real defenders find by signalling. The fitted hand model, by contrast, declared
//!   nulls that were lost half the time (issue 48's measurement against an outside
//!   program).
//! - **Suit and grand**: the fitted hand model's chance (emboldened as `pimc-bold`'s)
//!   and the simulation's, raised by [`ChoiceConfig::lift`] log-odds (double-dummy
//!   defenders see the declarer's cards, so the raw figure is too low: bidding by it alone
//!   declared half as often as the model), averaged in log-odds. Either alone has a blind
//!   spot: the model knows nothing of how the cards lie together, the simulation
//!   underrates the declarer.
//!
//! A hand game is compared with picking up at its real value (one more multiplier, and
//! the skat unseen until the end); null open, hand or not, at its own (46 and 59), where
//! double-dummy is exact: the defenders do see the cards. The option with the best
//! expected Seeger-Fabian result is taken, and the bid goes as high as the most valuable
//! option still worth playing. Every decision is deterministic for a seed and bounded by a
//! node budget (a world not solved within it is not counted).

use rand_chacha::ChaCha8Rng;
use rand_core::SeedableRng;
use skat_engine::{Card, CardSet, Contract, GameType, Position, Rank};
use skat_solver::Solver;

use crate::hand_model::{Moment, null_risk, win_chance};
use crate::heuristic::{emboldened, value};
use crate::put_away::put_away;

/// Settings of the game choice.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ChoiceConfig {
    /// Worlds sampled per option.
    pub worlds: u32,
    /// Solver nodes for one decision over all its options (about 10-17 M per second).
    pub nodes: u64,
    /// Log-odds added to the simulation's chance in suit and grand games.
    pub lift: f64,
    /// Log-odds added to the fitted model's chance (`pimc-bold`'s boldness).
    pub boldness: f64,
    /// The smallest chance at which a null is declared, whatever it is worth.
    pub null_floor: f64,
    /// Judge suit games played hand too (grand and null hand always are). Off: measured,
    /// suit hand games were won 68% of the time and scored less than picking up
    /// (docs/bots.md), as the outside program, which played 3 in 3,456 hands, suggests.
    pub suit_hand: bool,
    /// Judge hand games and null open at all (off: only the pick-ups, for the ablation).
    pub hand_games: bool,
    /// Judge null by the simulation (off: by the fitted model as suit games are, emboldened;
    /// for the ablation).
    pub null_by_simulation: bool,
}

impl Default for ChoiceConfig {
    fn default() -> ChoiceConfig {
        ChoiceConfig {
            worlds: 20,
            nodes: 3_000_000,
            lift: 1.0,
            boldness: crate::BOLD,
            null_floor: 0.8,
            suit_hand: false,
            hand_games: true,
            null_by_simulation: true,
        }
    }
}

/// One thing the declarer may play.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Choice {
    /// The game.
    pub game: GameType,
    /// Without picking up the skat.
    pub hand: bool,
    /// Null open (only null is ever chosen open: suit and grand open must be won schwarz).
    pub open: bool,
}

impl Choice {
    /// Whether the cards the declarer keeps differ from world to world: a pick-up judged
    /// before the skat is seen (each sampled skat, its own pair put away).
    fn kept_per_world(self, away: Option<[Card; 2]>) -> bool {
        away.is_none() && !self.hand
    }

    /// The contract to declare.
    pub fn contract(self) -> Contract {
        let mut c = Contract::plain(self.game);
        if self.open {
            c.announcement = skat_engine::Announcement::Ouvert;
        }
        c
    }

    /// What it is worth with `cards` (the declarer's ten, or twelve after the pick-up).
    pub fn value(self, cards: CardSet) -> u16 {
        // Null's fixed values are the engine's (23, 35 hand, 46 open, 59 open hand).
        if let Some(v) = self.contract().null_value(self.hand) {
            return v;
        }
        value(cards, self.game) + if self.hand { self.game.base_value() } else { 0 }
    }
}

/// The declarer's cards for an option: the ten it plays with, and what it put away.
#[derive(Debug, Clone, Copy)]
struct Held {
    kept: CardSet,
    away: Option<[Card; 2]>,
}

/// An option judged.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Judged {
    /// The option.
    pub choice: Choice,
    /// Its value.
    pub value: u16,
    /// The chance of winning it, both estimates combined.
    pub chance: f64,
    /// The simulation's own chance (by Laplace's rule: wins + 1 over worlds + 2).
    pub simulated: f64,
    /// Worlds solved.
    pub worlds: u32,
    /// The expected Seeger-Fabian result of declaring it.
    pub expected: f64,
    /// The two cards put away for it (after the pick-up).
    pub away: Option<[Card; 2]>,
}

/// What declaring a game worth `v` with a chance `p` of winning is worth on average in
/// Seeger-Fabian points: won +v+50, lost −2v−50 (the heuristic's measure).
pub fn expected(p: f64, v: u16) -> f64 {
    let v = f64::from(v);
    p * (v + 50.0) - (1.0 - p) * (2.0 * v + 50.0)
}

/// `p`'s log-odds, kept finite.
fn logit(p: f64) -> f64 {
    let p = p.clamp(0.02, 0.98);
    (p / (1.0 - p)).ln()
}

fn logistic(z: f64) -> f64 {
    1.0 / (1.0 + (-z).exp())
}

/// The game chooser of one bot.
#[derive(Debug, Clone)]
pub struct Chooser {
    config: ChoiceConfig,
    seed: u64,
}

impl Chooser {
    /// A chooser whose worlds follow from `seed`.
    pub fn new(seed: u64, config: ChoiceConfig) -> Chooser {
        Chooser { config, seed }
    }

    /// Every option worth judging with ten cards before the skat is seen, judged.
    pub fn before_skat(&self, hand: CardSet, me: Position) -> Vec<Judged> {
        let mut options = Vec::new();
        for game in candidates(hand) {
            options.push(Choice { game, hand: false, open: false });
            if !self.config.hand_games {
                continue;
            }
            if self.config.suit_hand || game == GameType::Grand || game.is_null() {
                options.push(Choice { game, hand: true, open: false });
            }
            if game.is_null() {
                options.push(Choice { game, hand: false, open: true });
                options.push(Choice { game, hand: true, open: true });
            }
        }
        let mut rng =
            ChaCha8Rng::seed_from_u64(self.seed ^ u64::from(hand.bits()) ^ (me.index() as u64) << 40);
        let per_option = self.config.nodes / options.len().max(1) as u64;
        let judged: Vec<Judged> = options
            .into_iter()
            .map(|choice| self.before_one(hand, me, choice, per_option, &mut rng))
            .collect();
        like_with_like(judged)
    }

    /// Every game reaching `bid` with twelve cards after the pick-up (each with the rule's
    /// discard for it), judged; when none reaches it, every game, for the least damage.
    pub fn after_pickup(&self, twelve: CardSet, bid: u16, me: Position) -> Vec<Judged> {
        let mut rng = ChaCha8Rng::seed_from_u64(self.seed ^ u64::from(twelve.bits()).rotate_left(7));
        let mut options: Vec<Choice> = Vec::new();
        for game in GameType::ALL {
            options.push(Choice { game, hand: false, open: false });
            if game.is_null() && self.config.hand_games {
                options.push(Choice { game, hand: false, open: true });
            }
        }
        let reaching: Vec<Choice> = options.iter().copied().filter(|c| c.value(twelve) >= bid).collect();
        let options = if reaching.is_empty() { options } else { reaching };
        let per_option = self.config.nodes / options.len().max(1) as u64;
        options
            .into_iter()
            .map(|choice| {
                let away = put_away(twelve, choice.game);
                let ten = twelve.without(away[0]).without(away[1]);
                self.after_discard(ten, away, me, choice, per_option, &mut rng)
            })
            .collect()
    }

    /// One option judged on its own (what a player did, for the analysis): with `cards`
    /// the ten dealt (`away` none) or the ten kept after putting `away` away.
    pub fn judge_one(&self, cards: CardSet, away: Option<[Card; 2]>, me: Position, choice: Choice) -> Judged {
        let mut rng = ChaCha8Rng::seed_from_u64(self.seed ^ u64::from(cards.bits()).rotate_left(13));
        let nodes = self.config.nodes / 4;
        match away {
            Some(away) => self.after_discard(cards, away, me, choice, nodes, &mut rng),
            // A hand game beside its pick-up, judged as before_skat judges it.
            None => {
                let pickup = Choice { hand: false, ..choice };
                let both = [choice, pickup].map(|c| self.before_one(cards, me, c, nodes, &mut rng));
                like_with_like(both.to_vec()).remove(0)
            }
        }
    }

    /// `choice` judged with the ten cards dealt, before the skat.
    fn before_one(
        &self,
        hand: CardSet,
        me: Position,
        choice: Choice,
        nodes: u64,
        rng: &mut ChaCha8Rng,
    ) -> Judged {
        let (simulated, worlds) = self.simulate(hand, None, me, choice, nodes, rng);
        // The model was fitted to games played after a pick-up: it knows nothing of a
        // hand game, so there the simulation judges alone (lifted).
        let model = (!choice.hand).then(|| {
            let p = win_chance(hand, choice.game, me == Position::Forehand, 0, Moment::Auction);
            emboldened(p, self.config.boldness)
        });
        self.judged(choice, Held { kept: hand, away: None }, simulated, worlds, model)
    }

    /// `choice` judged with `ten` kept and `away` put away.
    fn after_discard(
        &self,
        ten: CardSet,
        away: [Card; 2],
        me: Position,
        choice: Choice,
        nodes: u64,
        rng: &mut ChaCha8Rng,
    ) -> Judged {
        let (simulated, worlds) = self.simulate(ten, Some(away), me, choice, nodes, rng);
        let points = if choice.game.is_null() { 0 } else { u32::from(away[0].points() + away[1].points()) };
        let p = win_chance(ten, choice.game, me == Position::Forehand, points, Moment::Declaration);
        let model = Some(emboldened(p, self.config.boldness));
        self.judged(choice, Held { kept: ten, away: Some(away) }, simulated, worlds, model)
    }

    fn judged(&self, choice: Choice, held: Held, simulated: f64, worlds: u32, model: Option<f64>) -> Judged {
        let Held { kept, away } = held;
        let value = choice.value(away.map_or(kept, |[a, b]| kept.with(a).with(b)));
        let lifted = logit(simulated) + self.config.lift;
        let by_simulation = choice.game.is_null() && self.config.null_by_simulation;
        // A null counts at the simulation's chance only over ten cards with no suit in
        // which the defenders can force a trick (`null_risk`): such a suit is a guess the
        // double-dummy declarer never has to make. Measured by census (100 lists, seed 60):
        // over the ten kept after the pick-up, with no such suit 19 of 19 nulls were won,
        // with one 6 of 13, with two 1 of 3 (an earlier count: 6 of 6, 6 of 11, 7 of 19).
        // Before the skat, a pick-up's worlds each put their own pair away, and
        // `simulate` counts a world left with such a suit as half a win.
        let risky = !choice.kept_per_world(away) && null_risk(kept) > 0;
        let chance = match model {
            // A risky null: the simulation's chance halved (measured above: about half of
            // them are won where the simulation says 80% or more).
            _ if by_simulation && risky => simulated / 2.0,
            // Below the floor a null counts as a coin flip at best.
            _ if by_simulation && simulated < self.config.null_floor => simulated.min(0.5),
            _ if by_simulation => simulated,
            Some(model) if choice.game.is_null() => model,
            Some(model) => logistic((logit(model) + lifted) / 2.0),
            None => logistic(lifted),
        };
        Judged { choice, value, chance, simulated, worlds, expected: expected(chance, value), away }
    }

    /// How often the declarer at `me` wins `choice` over sampled worlds, and how many
    /// were solved within `nodes`: with `cards` its ten before the skat (picked up and put
    /// away by rule unless a hand game), or its ten kept after putting `away` away.
    fn simulate(
        &self,
        cards: CardSet,
        away: Option<[Card; 2]>,
        me: Position,
        choice: Choice,
        nodes: u64,
        rng: &mut ChaCha8Rng,
    ) -> (f64, u32) {
        let known = away.map_or(cards, |[a, b]| cards.with(a).with(b));
        let pool: Vec<Card> = (!known).into_iter().collect();
        let target = if choice.game.is_null() { 1 } else { 61 };
        let mut budget = nodes;
        // Wins in halves: a null world left with a suit the defenders can force counts
        // half (see `judged`).
        let (mut halves, mut worlds) = (0u32, 0u32);
        for _ in 0..self.config.worlds {
            let mut dealt = pool.clone();
            for i in (1..dealt.len()).rev() {
                let j = skat_engine::dealing::uniform_below(rng, i as u32 + 1) as usize;
                dealt.swap(i, j);
            }
            let (mine, put_away, rest) = match away {
                Some([a, b]) => (cards, CardSet::single(a).with(b), &dealt[..]),
                None if choice.hand => (cards, CardSet::single(dealt[0]).with(dealt[1]), &dealt[2..]),
                None => {
                    let twelve = cards.with(dealt[0]).with(dealt[1]);
                    let [a, b] = put_away(twelve, choice.game);
                    (twelve.without(a).without(b), CardSet::single(a).with(b), &dealt[2..])
                }
            };
            let mut hands = [CardSet::EMPTY; 3];
            hands[me.index()] = mine;
            hands[(me.index() + 1) % 3] = rest[..10].iter().copied().collect();
            hands[(me.index() + 2) % 3] = rest[10..20].iter().copied().collect();
            let position = skat_solver::Position::new(choice.game, me.index() as u8, hands, put_away);
            let mut solver = Solver::with_node_limit(budget);
            let won = solver.at_least(&position, target);
            budget = budget.saturating_sub(solver.stats.nodes);
            if solver.aborted {
                break;
            }
            let guess = choice.game.is_null() && choice.kept_per_world(away) && null_risk(mine) > 0;
            halves += match (won, guess) {
                (false, _) => 0,
                (true, true) => 1,
                (true, false) => 2,
            };
            worlds += 1;
        }
        // Laplace's rule of succession: a few worlds solved say little, and a null
        // won in 3 of 4 must not count as 75%.
        (f64::from(halves + 2) / f64::from(2 * worlds + 4), worlds)
    }
}

/// A hand game judged as its pick-up is: the simulation's chance moved by as many
/// log-odds as the pick-up's combined estimate moved it, so that the choice between the
/// two compares like with like (the model, which only knows pick-ups, is not left to
/// favour either; measured, a hand game judged by the lifted simulation alone was taken
/// too often, 68% of suit hand games won).
fn like_with_like(mut judged: Vec<Judged>) -> Vec<Judged> {
    let pickups: Vec<Judged> = judged.iter().copied().filter(|j| !j.choice.hand).collect();
    for j in judged.iter_mut().filter(|j| j.choice.hand && !j.choice.game.is_null()) {
        if let Some(p) = pickups.iter().find(|p| p.choice.game == j.choice.game) {
            j.chance = logistic(logit(j.simulated) + logit(p.chance) - logit(p.simulated));
            j.expected = expected(j.chance, j.value);
        }
    }
    judged
}

/// The best of `judged` by expected result, if any is expected to score.
pub fn best(judged: &[Judged]) -> Option<Judged> {
    judged.iter().copied().filter(|j| j.expected > 0.0).max_by(|a, b| a.expected.total_cmp(&b.expected))
}

/// The most a hand is worth bidding: the value of the most valuable option expected to
/// score (0: pass).
pub fn bid_limit(judged: &[Judged]) -> u16 {
    judged.iter().filter(|j| j.expected > 0.0).map(|j| j.value).max().unwrap_or(0)
}

/// Games worth judging with ten cards: suit games with four trumps or more, grand with
/// two jacks or more, null when the hand has at most two aces, kings or tens.
fn candidates(hand: CardSet) -> Vec<GameType> {
    let jacks = (hand & CardSet::JACKS).len();
    let high =
        (hand & (CardSet::rank(Rank::Ace) | CardSet::rank(Rank::King) | CardSet::rank(Rank::Ten))).len();
    GameType::ALL
        .into_iter()
        .filter(|g| match g {
            GameType::Grand => jacks >= 2,
            GameType::Null => high <= 2,
            _ => (hand & g.trumps()).len() >= 4,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn set(s: &str) -> CardSet {
        s.parse().expect("cards")
    }

    #[test]
    fn a_safe_null_is_declared_and_a_holed_one_is_not() {
        let chooser = Chooser::new(7, ChoiceConfig::default());
        // Sevens, eights and nines in every suit: a null that cannot be forced.
        let safe = set("C7.C8.C9.S7.S8.H7.H9.D7.D8.DT");
        let judged = chooser.before_skat(safe, Position::Forehand);
        let null =
            judged.iter().find(|j| j.choice == Choice { game: GameType::Null, hand: false, open: false });
        let null = null.expect("null judged");
        assert!(null.simulated >= 0.8, "{null:?}");
        assert!(best(&judged).is_some_and(|b| b.choice.game.is_null()), "{judged:?}");
        // A blank ace and a king with a queen: a null that is lost.
        let holed = set("CA.S7.S8.H7.H9.HK.HQ.D7.D8.D9");
        let judged = chooser.before_skat(holed, Position::Middlehand);
        assert!(judged.iter().filter(|j| j.choice.game.is_null()).all(|j| j.expected < 0.0), "{judged:?}");
    }

    #[test]
    fn four_jacks_and_aces_are_played_hand_and_bid_high() {
        let chooser = Chooser::new(3, ChoiceConfig::default());
        let hand = set("CJ.SJ.HJ.DJ.CA.CT.SA.ST.HA.HK");
        let judged = chooser.before_skat(hand, Position::Forehand);
        let b = best(&judged).expect("a game");
        assert_eq!((b.choice.game, b.choice.hand), (GameType::Grand, true), "{judged:?}");
        assert!(bid_limit(&judged) >= 144, "grand hand with four: 6 x 24: {judged:?}");
        // The same seed, the same judgement.
        assert_eq!(judged, Chooser::new(3, ChoiceConfig::default()).before_skat(hand, Position::Forehand));
    }

    #[test]
    fn after_the_pickup_only_games_reaching_the_bid_are_judged() {
        let chooser = Chooser::new(1, ChoiceConfig::default());
        let twelve = set("CJ.SJ.CA.CT.CK.CQ.C9.SA.ST.H7.D7.D8");
        let judged = chooser.after_pickup(twelve, 36, Position::Middlehand);
        assert!(judged.iter().all(|j| j.value >= 36), "{judged:?}");
        let b = best(&judged).expect("clubs");
        assert_eq!(b.choice.game, GameType::Clubs, "{judged:?}");
        let [a, c] = b.away.expect("a discard");
        assert!(twelve.contains(a) && twelve.contains(c) && a != c);
    }
}
