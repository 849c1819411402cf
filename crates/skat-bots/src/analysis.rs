//! A finished deal's analysis as JSON, the one form `skat analyze`, the server's
//! `AnalyzeTable` and the page's replay share: every card judged with all cards open
//! ([`skat_solver::analysis`]) and on what its player knew ([`crate::judge`]), the
//! declarer's curve, per player the accuracy as declarer and as defender, and the bidding
//! and the game choice ([`crate::judge_game`]). What the figures mean and what they cannot
//! say: those modules and docs/analysis.md.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use serde_json::{Value, json};
use skat_engine::DealRecord;
use skat_solver::Solver;
use skat_solver::analysis::{DealAnalysis, analyze};

use crate::choice::ChoiceConfig;
use crate::judge::{JudgeConfig, KnownVerdict, Mark, judge_deal_until};

/// A player's decisions, as declarer or as defender.
#[derive(Debug, Default, Clone)]
struct Tally {
    decisions: u32,
    loss: u64,
    flips: u32,
    known: u32,
    known_loss: f64,
    mistakes: u32,
    blunders: u32,
}

impl Tally {
    fn json(&self) -> Value {
        let mean = |sum: f64, n: u32| if n == 0 { Value::Null } else { json!(round(sum / f64::from(n))) };
        json!({
            "decisions": self.decisions,
            "mean_loss": mean(self.loss as f64, self.decisions),
            "flips": self.flips,
            "known_decisions": self.known,
            "known_mean_loss": mean(self.known_loss, self.known),
            "mistakes": self.mistakes,
            "blunders": self.blunders,
        })
    }
}

/// Deals analysed one after another, and the players' accuracy over them.
#[derive(Debug)]
pub struct Report {
    solver: Solver,
    config: JudgeConfig,
    /// Set by the caller to give up early (a server shutting down).
    stop: Arc<AtomicBool>,
    players: BTreeMap<String, (Tally, Tally)>,
}

impl Report {
    /// A report whose knowledge verdicts draw `config.worlds` worlds per card (0: cards
    /// open only).
    pub fn new(config: JudgeConfig) -> Report {
        Report { solver: Solver::new(), config, stop: Arc::default(), players: BTreeMap::new() }
    }

    /// The same report, giving up its verdicts on knowledge once `stop` is set (what it
    /// returns then is incomplete: the caller drops it).
    pub fn stopped_by(self, stop: Arc<AtomicBool>) -> Report {
        Report { stop, ..self }
    }

    /// One deal's analysis (`analysed: false` for a deal without card play to judge);
    /// `names` are the players at forehand, middlehand, rearhand.
    pub fn deal(&mut self, record: &DealRecord, id: &str, names: &[String; 3]) -> Value {
        let Some(a) = analyze(&record.dealt, &record.moves, &record.outcome, &mut self.solver) else {
            return json!({ "id": id, "number": record.number, "analysed": false, "why": "no card play to judge" });
        };
        let known = if self.config.worlds == 0 {
            Vec::new()
        } else {
            let config = JudgeConfig { seed: self.config.seed ^ record.number as u64, ..self.config };
            judge_deal_until(&record.dealt, &record.moves, config, &self.stop)
        };
        self.tally(&a, &known, names);
        let mut out = deal_json(&a, &known, record, id, names);
        // The bidding and the game, by the simulation `pimc-sim` chooses with (only when
        // knowledge is judged at all, and not once the caller has asked to stop: it costs
        // a few hundred milliseconds per deal).
        if self.config.worlds > 0 && !self.stop.load(std::sync::atomic::Ordering::Relaxed) {
            let seed = self.config.seed ^ u64::from(record.number);
            let (bids, choice) = crate::judge_game::judge(record, ChoiceConfig::default(), seed);
            out["game_choice"] = crate::judge_game::to_json(&bids, choice.as_ref(), names);
        }
        out
    }

    /// Per player, as declarer and as defender: decisions judged, mean loss with cards
    /// open and on what it knew, results flipped, mistakes and blunders.
    pub fn summary(&self) -> Value {
        let players: BTreeMap<&String, Value> = self
            .players
            .iter()
            .map(|(name, (declarer, defender))| {
                (name, json!({ "declarer": declarer.json(), "defender": defender.json() }))
            })
            .collect();
        json!({ "summary": players, "worlds": self.config.worlds })
    }

    fn tally(&mut self, a: &DealAnalysis, known: &[KnownVerdict], names: &[String; 3]) {
        for v in &a.cards {
            let entry = self.players.entry(names[usize::from(v.position)].clone()).or_default();
            let t = if v.declarer { &mut entry.0 } else { &mut entry.1 };
            t.decisions += 1;
            t.loss += u64::from(v.loss);
            t.flips += u32::from(v.flips);
            if let Some(k) = known.iter().find(|k| k.index == v.index) {
                t.known += 1;
                t.known_loss += k.loss;
                t.mistakes += u32::from(k.mark == Mark::Mistake);
                t.blunders += u32::from(k.mark == Mark::Blunder);
            }
        }
    }
}

/// Two decimals: enough for a mean of card points, and stable in tests and caches.
fn round(x: f64) -> f64 {
    // `+ 0.0` turns a negative zero into zero.
    (x * 100.0).round() / 100.0 + 0.0
}

fn deal_json(
    a: &DealAnalysis,
    known: &[KnownVerdict],
    record: &DealRecord,
    id: &str,
    names: &[String; 3],
) -> Value {
    let cards: Vec<Value> = a
        .cards
        .iter()
        .map(|v| {
            let k = known.iter().find(|k| k.index == v.index);
            json!({
                "move": v.index,
                "player": names[usize::from(v.position)],
                "position": v.position,
                "role": if v.declarer { "declarer" } else { "defender" },
                "card": v.card.to_string(),
                "best": v.best.to_string(),
                "value": v.value,
                "best_value": v.best_value,
                "loss": v.loss,
                "flips": v.flips,
                "choices": v.choices,
                "known": k.map(|k| json!({
                    "worlds": k.worlds,
                    "best": k.best.to_string(),
                    "best_mean": round(k.best_mean),
                    "mean": round(k.mean),
                    "loss": round(k.loss),
                    "interval": [round(k.loss - k.half_width), round(k.loss + k.half_width)],
                    "win_best": round(k.win_best),
                    "win": round(k.win),
                })),
                "mark": k.map_or("", |k| k.mark.name()),
                "mark_by": k.map_or("", |k| k.mark_by(a.game.is_null())),
            })
        })
        .collect();
    json!({
        "id": id,
        "number": record.number,
        "analysed": true,
        "game": format!("{:?}", a.game).to_lowercase(),
        "declarer": names[usize::from(a.declarer)],
        "declarer_position": a.declarer,
        "value": if a.game.is_null() { "null: 1 the declarer wins, 0 loses" } else { "the declarer's card points with every hand open" },
        "start": a.start,
        "curve": a.curve,
        "cards": cards,
    })
}
