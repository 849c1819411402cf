//! `skat analyze`: a finished deal's card play judged with all cards open (the
//! double-dummy solver) and on what each player knew (worlds sampled from its seat's
//! knowledge, as PIMC does): per card the best value and the value of the card played,
//! the loss, whether it changed the result, a mark; per deal the curve of the declarer's
//! value; per player the mean loss per decision as declarer and as defender. Printed for
//! people by default ([`report`]); `--format json` prints `skat_bots::analysis`'s JSON, the
//! same as the server's `AnalyzeTable`. What the figures mean and what they cannot say:
//! docs/analysis.md.

mod report;

use std::path::PathBuf;
use std::process::ExitCode;

use serde_json::{Value, json};
use skat_bots::analysis::Report;
use skat_bots::judge::JudgeConfig;
use skat_engine::DealRecord;
use skat_engine::iss::{self, IssRecord};

use skat_proto::pb;
use skat_sdk::SdkError;

use super::CmdResult;

#[derive(Debug, clap::Args)]
pub struct Args {
    /// Files of records, one per line: ISS records, or the JSON records of GetRecords and
    /// `skat tournament records --format json` (`-` for standard input).
    #[arg(required_unless_present = "table", conflicts_with = "table")]
    files: Vec<PathBuf>,
    /// Instead of files: a finished table's analysis made by the server (AnalyzeTable,
    /// with the server's worlds and nodes), waited for while it is queued or running.
    #[arg(long)]
    table: Option<String>,
    #[command(flatten)]
    server: super::conn::ServerArgs,
    /// Worlds drawn per card for the verdict on what its player knew (each solved for
    /// every legal card; 0: cards open only, about 16 times faster).
    #[arg(long, default_value_t = 16, value_parser = clap::value_parser!(u32).range(0..=256))]
    worlds: u32,
    /// Solver nodes per card for that verdict, over all its worlds (10-17 M a second on
    /// one core): a bound on the time of the hardest cards.
    #[arg(long, default_value_t = 4_000_000, value_parser = clap::value_parser!(u64).range(10_000..=1_000_000_000))]
    nodes: u64,
    /// The worlds' seed: the same seed, the same verdicts.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// `text`: a report for people (marked cards, flips, accuracy); `json`: one JSON object
    /// per deal and a summary line, as AnalyzeTable gives them.
    #[arg(long, default_value = "text", value_parser = ["text", "json"])]
    format: String,
}

impl Args {
    fn json(&self) -> bool {
        self.format == "json"
    }

    /// Prints one deal's analysis in the chosen format.
    fn deal(&self, d: &Value) {
        if self.json() { outln!("{d}") } else { out!("{}", report::deal(d)) }
    }

    /// Prints the summary in the chosen format.
    fn summary(&self, s: &Value) {
        if self.json() { outln!("{s}") } else { out!("{}", report::summary(s)) }
    }
}

pub fn run(args: Args) -> CmdResult {
    if let Some(table) = &args.table {
        return super::conn::runtime()?.block_on(from_server(&args, table));
    }
    let config = JudgeConfig { worlds: args.worlds, max_nodes: args.nodes, seed: args.seed };
    let mut report = Report::new(config);
    let mut failed = 0;
    super::text::each_line(&args.files, |line, location| {
        match read(line) {
            Ok((record, id, names)) => args.deal(&report.deal(&record, &id, &names)),
            Err(e) if args.json() => {
                failed += 1;
                outln!("{}", json!({ "location": location, "error": e }));
            }
            Err(e) => {
                failed += 1;
                eprintln!("skat: {location}: {e}");
            }
        }
        Ok(())
    })?;
    args.summary(&report.summary());
    Ok(if failed > 0 { ExitCode::FAILURE } else { ExitCode::SUCCESS })
}

/// The server's analysis of `table`: asked again every second while it is queued or
/// running; the same lines as from files.
async fn from_server(args: &Args, table: &str) -> CmdResult {
    let mut client = args.server.connect(None).await?;
    let mut said = None;
    loop {
        let request = pb::AnalyzeTableRequest { table_id: table.to_string() };
        let r = client.analyze_table(request).await.map_err(SdkError::from)?.into_inner();
        let state = pb::AnalysisState::try_from(r.state).unwrap_or(pb::AnalysisState::Unspecified);
        if state == pb::AnalysisState::Ready {
            for deal in &r.deals {
                args.deal(&serde_json::from_str(deal)?);
            }
            args.summary(&serde_json::from_str(&r.summary)?);
            eprintln!("analysed in {} ms with {} worlds per card", r.took_ms, r.worlds);
            return Ok(ExitCode::SUCCESS);
        }
        let now = match state {
            pb::AnalysisState::Queued => format!("queued, {} tables ahead", r.ahead),
            _ => "running".to_string(),
        };
        if said.as_ref() != Some(&now) {
            eprintln!("{table}: {now}");
            said = Some(now);
        }
        tokio::time::sleep(std::time::Duration::from_secs(1)).await;
    }
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
