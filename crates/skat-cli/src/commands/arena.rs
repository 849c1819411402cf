//! `skat arena`: a competition between strategies.

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

use skat_arena::run::{OpenSeat, run};
use skat_arena::{ArenaConfig, Entry, Mode};

use super::CmdResult;

#[derive(Debug, clap::Args)]
pub struct Args {
    /// The bots, one per seat (3 or 4): built-in `random`, `heuristic`, `pimc`,
    /// `pimc-plain` (pimc without the auction as evidence), pimc with settings
    /// (`pimc:samples=48:nodes=800000:evidence=off`), or `open` (or `open:NAME`, shown
    /// under that name in the standings) for a seat an external bot takes with the printed
    /// token.
    #[arg(long, value_delimiter = ',', default_value = "heuristic,random,random")]
    bots: Vec<String>,
    /// Deals per list.
    #[arg(long, default_value_t = 36)]
    deals: u32,
    /// Seeded lists; list i is dealt from seed + i.
    #[arg(long, default_value_t = 1)]
    lists: u32,
    /// The competition seed (printed, so every deal can be dealt again).
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Play each list once instead of under every seat rotation.
    #[arg(long)]
    no_duplicate: bool,
    /// Tables at once (default: 2 per core).
    #[arg(long)]
    parallel: Option<usize>,
    /// Play on a running server instead of an embedded one (`https://` for TLS).
    #[arg(long, conflicts_with = "in_process")]
    server: Option<String>,
    /// With --server: a PEM file with the CA that signed its certificate.
    #[arg(long, env = "SKAT_CA_FILE", requires = "server")]
    ca_file: Option<PathBuf>,
    /// With --server: seat tokens may travel in plain text to a server that is not this
    /// machine.
    #[arg(long, env = "SKAT_INSECURE", requires = "server")]
    insecure: bool,
    /// Play straight on the engine, without a network (fastest; no open seats).
    #[arg(long)]
    in_process: bool,
    /// Folder for the ISS records of every deal (one file per table).
    #[arg(long, default_value = "arena-records")]
    records: PathBuf,
    /// Write no records.
    #[arg(long)]
    no_records: bool,
    /// Per-action time limit at server tables, e.g. `30s` (`0s`: none).
    #[arg(long, default_value = "0s", value_parser = humantime::parse_duration)]
    action_timeout: std::time::Duration,
    /// Print the standings as JSON.
    #[arg(long, conflicts_with = "csv")]
    json: bool,
    /// Print the standings as CSV.
    #[arg(long)]
    csv: bool,
}

pub fn run_cmd(args: Args) -> CmdResult {
    let entries = args.bots.iter().map(|b| Entry::parse(b)).collect::<Result<Vec<_>, _>>()?;
    let mode = if args.in_process {
        Mode::InProcess
    } else if let Some(url) = &args.server {
        Mode::Remote(
            skat_sdk::ServerAddress::new(url)
                .with_ca_file(args.ca_file.clone())
                .allow_plain_text(args.insecure),
        )
    } else {
        Mode::Embedded
    };
    let cores = std::thread::available_parallelism().map_or(2, |n| n.get());
    let config = ArenaConfig {
        entries,
        deals: args.deals,
        lists: args.lists,
        seed: args.seed,
        duplicate: !args.no_duplicate,
        parallel: args.parallel.unwrap_or(2 * cores),
        mode,
        records_dir: (!args.no_records).then(|| args.records.clone()),
        action_ms: args.action_timeout.as_millis() as u64,
        progress: !args.json && !args.csv,
    };
    eprintln!(
        "arena: {} | {} list(s) of {} deals | seed {} | {}",
        (0..config.entries.len()).map(|i| config.label(i)).collect::<Vec<_>>().join(", "),
        config.lists,
        config.deals,
        config.seed,
        if config.duplicate { "duplicate (every seat rotation)" } else { "no rotation" }
    );
    let announced = std::sync::Once::new();
    let on_open: Arc<dyn Fn(&OpenSeat) + Send + Sync> = Arc::new(move |s: &OpenSeat| {
        announced.call_once(|| {
            eprintln!(
                "arena server: {} (open seats are played there; each line below is one seat to play, with its token)",
                s.server
            );
        });
        eprintln!(
            "open seat: table {} seat {} token {} (list {}, rotation {})\n  skat bot --strategy NAME --server {} --table {} --token {}\n  python -m skat_bot --server {} --table {} --token {}",
            s.table_id,
            s.seat,
            s.token,
            s.list,
            s.rotation,
            s.server,
            s.table_id,
            s.token,
            s.server,
            s.table_id,
            s.token
        );
    });
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build()?;
    let started = std::time::Instant::now();
    let (outcomes, standings) = runtime.block_on(run(&config, on_open))?;
    let secs = started.elapsed().as_secs_f64();
    let deals: usize = outcomes.iter().map(|o| o.records.len()).sum();
    eprintln!("arena: {deals} deals in {secs:.2} s ({:.0} deals/s)", deals as f64 / secs.max(1e-9));
    if args.json {
        outln!("{}", serde_json::to_string_pretty(&standings)?);
    } else if args.csv {
        out!("{}", standings.to_csv());
    } else {
        out!("{}", standings.to_text());
        if let Some(dir) = &config.records_dir {
            outln!("\nISS records of every deal: {}/ (skat replay {}/*.sgf)", dir.display(), dir.display());
        }
    }
    Ok(ExitCode::SUCCESS)
}
