//! What the player knew: a finished deal's cards judged over worlds consistent with the
//! knowledge of the seat that played them, so that a card that was right on what the
//! player could know is not marked as a blunder because the cards lay otherwise.
//!
//! For every card with a choice, the seat's knowledge at that moment is rebuilt from the
//! engine's own view ([`skat_engine::Deal::view`], the `SeatView` its stream gave it), the
//! unseen cards are dealt as the PIMC bot deals them ([`crate::pimc`]: its hand, every
//! card played, the voids shown, the skat and discards when it saw them, an open hand,
//! weighed by the auction), and each world is solved for every legal card. Per card:
//!
//! | figure | what | what it cannot say |
//! |---|---|---|
//! | `mean` | the declarer's expected final card points after the card, over the worlds (null: the declarer's winning chance) | the worlds are double-dummy: everyone plays perfectly with every hand open from then on, which flatters defenders and guessing games alike |
//! | `best`, `best_mean` | the card with the best mean for the player's side, and its mean | another card within the interval is as good as far as the sample can tell |
//! | `loss` | the mean over worlds of (best card's value − played card's value) for the side (≥ 0) | a loss from a sample: see `interval` |
//! | `interval` | 95% interval of `loss` from the per-world differences (normal approximation) | worlds are weighed by the auction's evidence, not by how real players bid |
//! | `win_best`, `win` | how often the declarer wins after the best card and after the card played (null: the same as the mean) | schneider and announcements are not judged |
//!
//! A card is *marked* only when the interval lies above zero: `mistake` for an expected
//! loss of at least [`MISTAKE`] card points (or 10% winning chance), `blunder` for at
//! least [`BLUNDER`] points or 30% winning chance. The unique legal card is never judged.
//! The bidding, the skat and the declaration are judged apart ([`crate::judge_game`]), by
//! the simulation that chooses `pimc-sim`'s games.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use rand_chacha::ChaCha8Rng;
use rand_core::SeedableRng;
use skat_engine::record::Move;
use skat_engine::seat_view::DealFrame;
use skat_engine::{Action, Card, Deal, Dealt, Seat, SeatView};
use skat_solver::Solver;
use skat_solver::analysis::won;

use crate::evidence::Auction;
use crate::worlds::Facts;

/// The expected loss (card points) from which a card is a mistake.
pub const MISTAKE: f64 = 5.0;
/// The expected loss (card points) from which a card is a blunder.
pub const BLUNDER: f64 = 15.0;

/// How much work a card's verdict may take.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct JudgeConfig {
    /// Worlds drawn per card (each solved for every legal card).
    pub worlds: u32,
    /// Solver nodes per card, over all its worlds (10-17 M per second on one core): the
    /// worlds solved within it are the ones counted.
    pub max_nodes: u64,
    /// The seed of the worlds (the same seed, the same verdicts).
    pub seed: u64,
}

impl Default for JudgeConfig {
    fn default() -> JudgeConfig {
        JudgeConfig { worlds: 16, max_nodes: 4_000_000, seed: 0 }
    }
}

/// How bad a card was on what its player knew.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Mark {
    /// Not worse than the best card, as far as the sample tells.
    None,
    /// An expected loss of at least [`MISTAKE`] points or 10% winning chance.
    Mistake,
    /// An expected loss of at least [`BLUNDER`] points or 30% winning chance.
    Blunder,
}

impl Mark {
    /// The mark's name in reports (`""` for none).
    pub fn name(self) -> &'static str {
        match self {
            Mark::None => "",
            Mark::Mistake => "mistake",
            Mark::Blunder => "blunder",
        }
    }
}

impl KnownVerdict {
    /// What earned the mark: `card points` (the expected loss passed the mark's bound)
    /// or `winning chance` (the side's chance to win fell by 10 or 30 points, whatever
    /// the card points: a card can cost 1 point and the game). Empty without a mark.
    pub fn mark_by(&self, null: bool) -> &'static str {
        let bound = match self.mark {
            Mark::None => return "",
            Mark::Mistake => MISTAKE,
            Mark::Blunder => BLUNDER,
        };
        if !null && self.loss >= bound { "card points" } else { "winning chance" }
    }
}

/// One card judged on what its player knew.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct KnownVerdict {
    /// The move's index in the record.
    pub index: usize,
    /// Worlds solved.
    pub worlds: u32,
    /// The card with the best mean for the player's side.
    pub best: Card,
    /// Its mean (the declarer's expected card points; null: winning chance).
    pub best_mean: f64,
    /// The mean after the card played.
    pub mean: f64,
    /// The expected loss for the player's side (≥ 0).
    pub loss: f64,
    /// Half the width of the loss's 95% interval.
    pub half_width: f64,
    /// The declarer's winning chance after the best card.
    pub win_best: f64,
    /// The declarer's winning chance after the card played.
    pub win: f64,
    /// The mark, from the loss and its interval.
    pub mark: Mark,
}

/// Judges every card with a choice of a finished deal on what its player knew (cards the
/// record does not let replay, or without a game, give no verdicts).
pub fn judge_deal(dealt: &Dealt, moves: &[Move], config: JudgeConfig) -> Vec<KnownVerdict> {
    judge_deal_until(dealt, moves, config, &Arc::default())
}

/// [`judge_deal`], giving up (with the verdicts so far) once `stop` is set: looked at
/// before every world and inside the solver's search (every
/// [`skat_solver::STOP_CHECK_NODES`] nodes), so a server shutting down waits
/// milliseconds, not one world's solve (which the node budget allows to take seconds).
pub fn judge_deal_until(
    dealt: &Dealt,
    moves: &[Move],
    config: JudgeConfig,
    stop: &Arc<AtomicBool>,
) -> Vec<KnownVerdict> {
    let mut deal = Deal::new(*dealt);
    let frame = DealFrame { number: 0, dealer: Seat::new(2), seats: [0, 1, 2].map(Seat::new) };
    let mut verdicts = Vec::new();
    for (index, m) in moves.iter().enumerate() {
        if let Action::Play { card } = m.action
            && deal.playable_cards(m.position).len() > 1
        {
            let k = SeatView::from_view(
                Some(Seat::new(m.position.index() as u8)),
                frame,
                deal.view(Some(m.position)),
            );
            let seed = config.seed ^ (index as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
            if stop.load(Ordering::Relaxed) {
                break;
            }
            if let Some(v) = judge_card(&k, card, index, config, seed, stop) {
                verdicts.push(v);
            }
        }
        if deal.apply(m.position, m.action).is_err() {
            break;
        }
    }
    verdicts
}

/// Judges `card` played with knowledge `k` (`None`: not a card decision with a choice, or
/// no world within the budget); the worlds solved before `stop` was set count.
pub fn judge_card(
    k: &SeatView,
    card: Card,
    index: usize,
    config: JudgeConfig,
    seed: u64,
    stop: &Arc<AtomicBool>,
) -> Option<KnownVerdict> {
    let legal = k.legal.cards;
    if legal.len() < 2 || !legal.contains(card) {
        return None;
    }
    let me = k.position()?;
    let declarer = k.declarer?;
    let game = k.contract?.game;
    let is_declarer = me == declarer;
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let worlds =
        Facts::of(k, me, declarer, game).weighted_worlds(&Auction::of(k), false, config.worlds, &mut rng);
    // Per world, the value after every legal card (in `legal`'s order).
    let cards: Vec<Card> = legal.into_iter().collect();
    let mut values: Vec<Vec<u8>> = Vec::new();
    let mut solver = Solver::with_node_limit(config.max_nodes).stopped_by(Arc::clone(stop));
    for world in &worlds {
        if stop.load(Ordering::Relaxed) {
            break;
        }
        let row: Vec<u8> = cards.iter().map(|c| solver.solve(&world.play(*c))).collect();
        if solver.aborted {
            break;
        }
        values.push(row);
    }
    let n = values.len();
    if n == 0 {
        return None;
    }
    let mean = |i: usize| values.iter().map(|r| f64::from(r[i])).sum::<f64>() / n as f64;
    let wins = |i: usize| values.iter().filter(|r| won(game, r[i])).count() as f64 / n as f64;
    // The side's best card by mean: the declarer's highest, a defender's lowest.
    let side = |x: f64| if is_declarer { x } else { -x };
    let best = (0..cards.len()).max_by(|a, b| side(mean(*a)).total_cmp(&side(mean(*b))))?;
    let played = cards.iter().position(|c| *c == card)?;
    let losses: Vec<f64> = values.iter().map(|r| side(f64::from(r[best]) - f64::from(r[played]))).collect();
    let loss = (losses.iter().sum::<f64>() / n as f64).max(0.0);
    let half_width = if n < 2 {
        f64::INFINITY
    } else {
        let var = losses.iter().map(|l| (l - loss).powi(2)).sum::<f64>() / (n - 1) as f64;
        1.96 * (var / n as f64).sqrt()
    };
    let (win_best, win) = (wins(best), wins(played));
    let chance = side(win_best - win);
    let points = if game.is_null() { 0.0 } else { loss };
    let mark = if loss - half_width <= 0.0 {
        Mark::None
    } else if points >= BLUNDER || chance >= 0.3 {
        Mark::Blunder
    } else if points >= MISTAKE || chance >= 0.1 {
        Mark::Mistake
    } else {
        Mark::None
    };
    Some(KnownVerdict {
        index,
        worlds: n as u32,
        best: cards[best],
        best_mean: mean(best),
        mean: mean(played),
        loss,
        half_width,
        win_best,
        win,
        mark,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use skat_engine::random::RandomPlayer;
    use skat_engine::{CardSet, Outcome};

    /// A seeded deal of the engine's random players (who blunder often), when a game was
    /// played: the cards as dealt and the moves.
    fn random_game(seed: u64) -> Option<(Dealt, Vec<Move>)> {
        let dealt = Dealt::seeded(seed, 0);
        let mut deal = Deal::new(dealt);
        let mut player = RandomPlayer::new(seed);
        let mut moves = Vec::new();
        while let Some(position) = deal.to_move() {
            let action = player.choose(&deal, position);
            deal.apply(position, action).unwrap();
            moves.push(Move { position, action });
        }
        matches!(deal.outcome(), Some(Outcome::Game(_))).then_some((dealt, moves))
    }

    #[test]
    fn only_cards_with_a_choice_are_judged_and_blunders_are_marked() {
        let config = JudgeConfig { worlds: 12, ..JudgeConfig::default() };
        let (mut judged, mut marked) = (0, 0);
        for (dealt, moves) in (0..8).filter_map(random_game).take(5) {
            let verdicts = judge_deal(&dealt, &moves, config);
            // Replay: which moves had a single legal card.
            let mut deal = Deal::new(dealt);
            let mut forced = Vec::new();
            for (i, m) in moves.iter().enumerate() {
                if matches!(m.action, Action::Play { .. }) && deal.playable_cards(m.position).len() == 1 {
                    forced.push(i);
                }
                deal.apply(m.position, m.action).unwrap();
            }
            for v in &verdicts {
                assert!(!forced.contains(&v.index), "the unique legal card is never judged");
                assert!(v.worlds > 0 && v.worlds <= config.worlds);
                assert!(v.loss >= 0.0 && v.half_width >= 0.0);
                if v.mark != Mark::None {
                    assert!(v.loss > v.half_width, "a mark needs an interval above zero");
                    assert_ne!(Some(v.best), played_card(&moves[v.index]), "the best card is no mistake");
                }
            }
            judged += verdicts.len();
            marked += verdicts.iter().filter(|v| v.mark != Mark::None).count();
            assert_eq!(verdicts, judge_deal(&dealt, &moves, config), "the same seed, the same verdicts");
        }
        assert!(judged > 20, "{judged} cards judged");
        // Random players throw away tricks: some of that shows on what they knew.
        assert!(marked > 0, "no card marked in {judged}");
    }

    /// A known blunder: rearhand plays null holding every heart but ♥8 and ♥9 and the
    /// lowest card of each other suit; the first trick is ♥8, ♥9 and it plays the ace
    /// (taking the trick: lost in every world) where the seven wins in every world (nobody
    /// else has a heart left, and it can duck everything else).
    #[test]
    fn the_ace_that_loses_a_null_game_is_a_blunder_on_what_the_player_knew() {
        use skat_engine::{Bid, Contract, GameType, Position as P, record::Move as M};
        let set = |s: &str| s.parse::<CardSet>().unwrap();
        let dealt = Dealt::new(
            [
                set("H8.C8.CT.CK.S8.ST.SK.D9.DJ.DK"),
                set("H9.C9.CQ.CA.S9.SQ.SA.DT.DQ.DA"),
                set("H7.HT.HJ.HQ.HK.HA.C7.S7.D7.D8"),
            ],
            set("CJ.SJ"),
        )
        .unwrap();
        let card = |c: &str| c.parse::<Card>().unwrap();
        let moves = |ace: bool| {
            vec![
                M { position: P::Middlehand, action: Action::Pass },
                M { position: P::Rearhand, action: Action::Bid { value: Bid::new(18).unwrap() } },
                M { position: P::Forehand, action: Action::Pass },
                M { position: P::Rearhand, action: Action::PickUpSkat },
                M { position: P::Rearhand, action: Action::Discard { cards: set("CJ.SJ") } },
                M {
                    position: P::Rearhand,
                    action: Action::Declare { contract: Contract::plain(GameType::Null) },
                },
                M { position: P::Forehand, action: Action::Play { card: card("H8") } },
                M { position: P::Middlehand, action: Action::Play { card: card("H9") } },
                M {
                    position: P::Rearhand,
                    action: Action::Play { card: card(if ace { "HA" } else { "H7" }) },
                },
            ]
        };
        let config = JudgeConfig { worlds: 16, ..JudgeConfig::default() };
        let blunder = judge_deal(&dealt, &moves(true), config);
        let ace = blunder.iter().find(|v| v.index == 8).expect("the ace was judged");
        assert_eq!(ace.mark, Mark::Blunder, "{ace:?}");
        assert_eq!(ace.best, card("H7"));
        assert_eq!(ace.win, 0.0, "after the ace the declarer has lost in every world");
        assert!(ace.win_best >= 0.3, "{ace:?}");
        let seven = judge_deal(&dealt, &moves(false), config);
        let safe = seven.iter().find(|v| v.index == 8).expect("the seven was judged");
        assert_eq!(safe.mark, Mark::None, "{safe:?}");
    }

    fn played_card(m: &Move) -> Option<Card> {
        if let Action::Play { card } = m.action { Some(card) } else { None }
    }
}
