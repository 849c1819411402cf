//! `skat replay`: re-score ISS records with the engine.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use serde_json::{Value, json};
use skat_engine::Outcome;
use skat_engine::iss::{self, IssRecord, IssResult};

use super::CmdResult;

/// Record formats `skat replay` reads.
#[derive(Debug, Clone, Copy, clap::ValueEnum)]
pub enum Format {
    /// International Skat Server records, one per line (`(;GM[Skat]...;)`).
    Iss,
}

#[derive(Debug, clap::Args)]
pub struct Args {
    /// Record format.
    #[arg(long, value_enum, default_value = "iss")]
    format: Format,
    /// Files of records, one record per line (`-` for standard input).
    #[arg(required = true)]
    files: Vec<PathBuf>,
}

pub fn run(args: Args) -> CmdResult {
    let Format::Iss = args.format;
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    let mut failed = 0usize;
    super::text::each_line(&args.files, |line, location| {
        let value = replay_line(line, location);
        if value.get("error").is_some() {
            failed += 1;
        }
        writeln!(out, "{value}")?;
        Ok(())
    })?;
    Ok(if failed > 0 { ExitCode::FAILURE } else { ExitCode::SUCCESS })
}

/// One record to one JSON object.
pub fn replay_line(line: &str, location: &str) -> Value {
    let record = match IssRecord::parse(line) {
        Ok(r) => r,
        Err(e) => return json!({ "id": Value::Null, "location": location, "error": e.to_string() }),
    };
    let id = record.id().to_string();
    let replay = match iss::replay(&record) {
        Ok(r) => r,
        Err(e) => return json!({ "id": id, "error": e.to_string() }),
    };
    let mut v = result_json(&replay.outcome);
    v["id"] = json!(id);
    if let Some(expected) = record.result() {
        v["iss_agrees"] = json!(agrees(&IssResult::from_outcome(&replay.outcome), &expected));
    }
    v
}

/// The result fields of a deal in the documented `skat replay` shape.
pub fn result_json(outcome: &Outcome) -> Value {
    match outcome {
        Outcome::PassedIn => json!({
            "passed": true, "penalty": false, "declarer": null, "game": null, "bid": null,
            "hand": null, "matadors": null, "declarer_points": null, "declarer_tricks": null,
            "schneider": null, "schwarz": null, "overbid": null, "won": null, "value": 0,
            "end": skat_engine::DealEnd::PassedIn.name(),
        }),
        Outcome::Penalty(p) => json!({
            "passed": false, "penalty": true, "offender": p.offender.index(),
            "reason": p.reason, "declarer": null, "game": null, "bid": null,
            "hand": null, "matadors": null, "declarer_points": null, "declarer_tricks": null,
            "schneider": null, "schwarz": null, "overbid": null, "won": null,
            "value": -2 * p.value as i32,
            "end": "forfeit",
        }),
        Outcome::Game(g) => {
            json!({
                "passed": false,
                "penalty": false,
                "declarer": g.declarer.index(),
                "game": g.contract.iss_code(g.hand),
                "bid": g.bid.value(),
                "hand": g.hand,
                "matadors": g.matadors,
                "declarer_points": g.declarer_points,
                "declarer_tricks": g.declarer_tricks,
                "schneider": g.schneider,
                "schwarz": g.schwarz,
                "overbid": g.overbid,
                "won": g.won,
                "value": g.score(),
                "end": g.end.name(),
            })
        }
    }
}

fn agrees(ours: &IssResult, theirs: &IssResult) -> bool {
    if theirs.penalty {
        return ours.penalty;
    }
    ours.passed == theirs.passed
        && ours.declarer == theirs.declarer
        && ours.won == theirs.won
        && ours.value == theirs.value
        && ours.matadors == theirs.matadors
        && ours.overbid == theirs.overbid
        && ours.points == theirs.points
        && ours.tricks == theirs.tricks
        && ours.schneider == theirs.schneider
        && ours.schwarz == theirs.schwarz
}
