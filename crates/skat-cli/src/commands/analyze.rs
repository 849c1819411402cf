//! `skat analyze`: a finished deal's card play judged with all cards open (the
//! double-dummy solver): per card the best value and the value of the card played, the
//! loss, whether it changed the result; per deal the curve of the declarer's value; per
//! player the mean loss per decision as declarer and as defender. What the figures mean,
//! and what they cannot say: `skat_solver::analysis` and docs/arena.md.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::ExitCode;

use serde_json::{Value, json};
use skat_engine::DealRecord;
use skat_engine::iss::{self, IssRecord};
use skat_solver::Solver;
use skat_solver::analysis::{DealAnalysis, analyze};

use super::CmdResult;

#[derive(Debug, clap::Args)]
pub struct Args {
    /// Files of records, one per line: ISS records, or the JSON records of GetRecords and
    /// `skat tournament records --format json` (`-` for standard input).
    #[arg(required = true)]
    files: Vec<PathBuf>,
}

/// A player's decisions, as declarer or as defender.
#[derive(Debug, Default)]
struct Tally {
    decisions: u32,
    loss: u64,
    flips: u32,
}

impl Tally {
    fn json(&self) -> Value {
        let mean = if self.decisions == 0 { 0.0 } else { self.loss as f64 / f64::from(self.decisions) };
        json!({ "decisions": self.decisions, "mean_loss": mean, "flips": self.flips })
    }
}

pub fn run(args: Args) -> CmdResult {
    let mut solver = Solver::new();
    let mut players: BTreeMap<String, (Tally, Tally)> = BTreeMap::new();
    let mut failed = 0;
    super::text::each_line(&args.files, |line, location| {
        match read(line) {
            Ok((record, id, names)) => {
                let judged = analyze(&record.dealt, &record.moves, &record.outcome, &mut solver);
                let value = match &judged {
                    Some(a) => {
                        tally(&mut players, a, &names);
                        deal_json(a, &record, &id, &names)
                    }
                    None => json!({ "id": id, "analysed": false, "why": "no card play to judge" }),
                };
                outln!("{value}");
            }
            Err(e) => {
                failed += 1;
                outln!("{}", json!({ "location": location, "error": e }));
            }
        }
        Ok(())
    })?;
    let summary: BTreeMap<&String, Value> = players
        .iter()
        .map(|(name, (declarer, defender))| {
            (name, json!({ "declarer": declarer.json(), "defender": defender.json() }))
        })
        .collect();
    outln!("{}", json!({ "summary": summary }));
    Ok(if failed > 0 { ExitCode::FAILURE } else { ExitCode::SUCCESS })
}

/// A record from an ISS or JSON line, its id and the players' names by position.
fn read(line: &str) -> Result<(DealRecord, String, [String; 3]), String> {
    let line = line.trim();
    if line.starts_with('{') {
        let value: Value = serde_json::from_str(line).map_err(|e| format!("not a JSON record: {e}"))?;
        let record: DealRecord =
            serde_json::from_value(value.clone()).map_err(|e| format!("not a deal record: {e}"))?;
        let name = |i: usize| {
            value["position_names"][i].as_str().map_or_else(|| format!("position {i}"), str::to_string)
        };
        let id = format!("{}.{}", value["table_id"].as_str().unwrap_or("record"), record.number);
        return Ok((record, id, [name(0), name(1), name(2)]));
    }
    let parsed = IssRecord::parse(line).map_err(|e| e.to_string())?;
    let replay = iss::replay(&parsed).map_err(|e| e.to_string())?;
    let name =
        |i: usize| parsed.get(&format!("P{i}")).map_or_else(|| format!("position {i}"), str::to_string);
    let record = DealRecord {
        number: 0,
        seed: None,
        seats: [0, 1, 2].map(skat_engine::Seat::new),
        dealer: skat_engine::Seat::new(2),
        dealt: *replay.deal.dealt(),
        moves: replay.moves,
        outcome: replay.outcome,
    };
    Ok((record, parsed.id().to_string(), [name(0), name(1), name(2)]))
}

fn tally(players: &mut BTreeMap<String, (Tally, Tally)>, a: &DealAnalysis, names: &[String; 3]) {
    for v in &a.cards {
        let entry = players.entry(names[usize::from(v.position)].clone()).or_default();
        let t = if v.declarer { &mut entry.0 } else { &mut entry.1 };
        t.decisions += 1;
        t.loss += u64::from(v.loss);
        t.flips += u32::from(v.flips);
    }
}

fn deal_json(a: &DealAnalysis, record: &DealRecord, id: &str, names: &[String; 3]) -> Value {
    let cards: Vec<Value> = a
        .cards
        .iter()
        .map(|v| {
            json!({
                "move": v.index,
                "player": names[usize::from(v.position)],
                "role": if v.declarer { "declarer" } else { "defender" },
                "card": v.card.to_string(),
                "best": v.best.to_string(),
                "value": v.value,
                "best_value": v.best_value,
                "loss": v.loss,
                "flips": v.flips,
                "choices": v.choices,
            })
        })
        .collect();
    json!({
        "id": id,
        "number": record.number,
        "game": format!("{:?}", a.game).to_lowercase(),
        "declarer": names[usize::from(a.declarer)],
        "value": if a.game.is_null() { "null: 1 the declarer wins, 0 loses" } else { "the declarer's card points with every hand open" },
        "start": a.start,
        "curve": a.curve,
        "cards": cards,
    })
}
