//! `skat arena`: a competition between strategies.

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

use skat_arena::run::{OpenSeat, run};
use skat_arena::sprt::{Sprt, SprtState, Verdict};
use skat_arena::standings::{Standings, compute, paired_per_list};
use skat_arena::{ArenaConfig, Entry, Mode, TableOutcome};

use super::CmdResult;

#[derive(Debug, clap::Args)]
pub struct Args {
    /// The bots, one per seat (3 or 4): built-in `random`, `heuristic`, `pimc-fast` (pimc
    /// on a small budget), `pimc`, `pimc-bold`, `pimc-sim` (the strongest: game choice by
    /// simulation), `pimc-plain` (pimc
    /// without the auction as evidence), pimc with settings
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
    /// A sequential test of the first bot (new) against the second (old) on paired
    /// duplicate lists: lists are played until H0 (new − old ≤ --d0 Seeger-Fabian per
    /// list) or H1 (≥ --d1) is accepted at --alpha and --beta, or --max-lists are played.
    /// `--lists` is then ignored. See docs/arena.md for choosing d0 and d1.
    #[arg(long, conflicts_with = "csv")]
    sprt: bool,
    /// SPRT: the difference (new − old, Seeger-Fabian per list) that is no improvement.
    #[arg(long, default_value_t = 0.0, allow_negative_numbers = true)]
    d0: f64,
    /// SPRT: the difference worth detecting.
    #[arg(long, default_value_t = 20.0, allow_negative_numbers = true)]
    d1: f64,
    /// SPRT: the chance of accepting H1 when H0 holds.
    #[arg(long, default_value_t = 0.05)]
    alpha: f64,
    /// SPRT: the chance of accepting H0 when H1 holds.
    #[arg(long, default_value_t = 0.05)]
    beta: f64,
    /// A census of one family of games (`suit`, `grand` or `null`; with --in-process):
    /// every deal is bid and declared as in a full run of the same seed, but only the games
    /// of this family are played out, and their figures per bot printed with an interval.
    /// For a rare class (nulls): the same games a full run has, at the cost of the auctions.
    #[arg(long, requires = "in_process", conflicts_with_all = ["sprt", "csv"])]
    census: Option<skat_arena::classes::Family>,
    /// SPRT: stop undecided after this many lists.
    #[arg(long, default_value_t = 2000)]
    max_lists: u32,
}

/// Where the arena's tables are played: in this process, on a server named by `--server`
/// (with its TLS settings), or on a server this command starts on loopback (`embedded`).
fn mode_of(args: &Args, embedded: Option<&skat_server::RunningServer>) -> Mode {
    match (&args.server, embedded) {
        _ if args.in_process => Mode::InProcess,
        (Some(url), _) => Mode::Remote(
            skat_sdk::ServerAddress::new(url)
                .with_ca_file(args.ca_file.clone())
                .allow_plain_text(args.insecure),
        ),
        (None, Some(server)) => {
            Mode::Remote(skat_sdk::ServerAddress::new(&format!("http://{}", server.addr)))
        }
        (None, None) => Mode::InProcess,
    }
}

/// A server of the arena's own on loopback (neither `--in-process` nor `--server`), with
/// room for every table; it stops when the sender is used.
async fn embedded_server(
    args: &Args,
    tables: usize,
) -> Result<(tokio::sync::oneshot::Sender<()>, skat_server::RunningServer), Box<dyn std::error::Error>> {
    let cfg = skat_server::ServerConfig {
        addr: "127.0.0.1:0".parse()?,
        max_tables: tables + 16,
        // One local client (this arena and the open seats' bots) plays every table.
        max_tables_per_client: tables + 16,
        max_streams_per_client: usize::MAX,
        max_connections_per_client: usize::MAX,
        max_deals: args.deals.max(skat_server::ServerConfig::default().max_deals),
        default_action_ms: 0,
        default_deal_ms: 0,
        ..skat_server::ServerConfig::default()
    };
    let (tx, rx) = tokio::sync::oneshot::channel::<()>();
    let running = skat_server::start(cfg, async move {
        let _ = rx.await;
    })
    .await?;
    Ok((tx, running))
}

/// Prints each open seat (a seat for a bot of the reader's own) with its token and the
/// commands that play it; the server's address once.
fn open_seat_printer() -> Arc<dyn Fn(&OpenSeat) + Send + Sync> {
    let announced = std::sync::Once::new();
    Arc::new(move |s: &OpenSeat| {
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
    })
}

pub fn run_cmd(args: Args) -> CmdResult {
    let entries = args.bots.iter().map(|b| Entry::parse(b)).collect::<Result<Vec<_>, _>>()?;
    let cores = std::thread::available_parallelism().map_or(2, |n| n.get());
    let mut config = ArenaConfig {
        entries,
        deals: args.deals,
        lists: args.lists,
        seed: args.seed,
        duplicate: !args.no_duplicate,
        parallel: args.parallel.unwrap_or(2 * cores),
        mode: Mode::InProcess,
        records_dir: (!args.no_records).then(|| args.records.clone()),
        action_ms: args.action_timeout.as_millis() as u64,
        progress: !args.json && !args.csv,
        census: args.census,
    };
    eprintln!(
        "arena: {} | {} list(s) of {} deals | seed {} | {}",
        (0..config.entries.len()).map(|i| config.label(i)).collect::<Vec<_>>().join(", "),
        config.lists,
        config.deals,
        config.seed,
        if config.duplicate { "duplicate (every seat rotation)" } else { "no rotation" }
    );
    let on_open = open_seat_printer();
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build()?;
    // Neither in process nor on a named server: on one started here, with room for every
    // table the run can hold at once (a sequential test: up to --max-lists).
    let lists = if args.sprt { args.max_lists } else { args.lists };
    let tables = ArenaConfig { lists, ..config.clone() }.plan().len();
    let embedded = match (args.in_process, &args.server) {
        (false, None) => Some(runtime.block_on(embedded_server(&args, tables))?),
        _ => None,
    };
    config.mode = mode_of(&args, embedded.as_ref().map(|(_, s)| s));
    let _stop = embedded.map(|(stop, _)| stop);
    let started = std::time::Instant::now();
    if args.sprt {
        let test = Sprt::new(args.d0, args.d1, args.alpha, args.beta)?;
        let result = runtime.block_on(sequential(config, test, args.max_lists, on_open))?;
        let secs = started.elapsed().as_secs_f64();
        eprintln!("arena: {} lists in {secs:.2} s", result.state.lists);
        if args.json {
            outln!("{}", serde_json::to_string_pretty(&result)?);
        } else {
            out!("{}", result.standings.to_text());
            outln!("\n{}", result.summary());
        }
        return Ok(ExitCode::SUCCESS);
    }
    let (outcomes, standings) = runtime.block_on(run(&config, on_open))?;
    let secs = started.elapsed().as_secs_f64();
    let deals: usize = outcomes.iter().map(|o| o.results.len()).sum();
    match args.census {
        Some(family) => eprintln!(
            "arena: {deals} {family} games played out of {} deals in {secs:.2} s",
            outcomes.len() * config.deals as usize
        ),
        None => {
            eprintln!("arena: {deals} deals in {secs:.2} s ({:.0} deals/s)", deals as f64 / secs.max(1e-9))
        }
    }
    if args.json {
        outln!("{}", serde_json::to_string_pretty(&standings)?);
    } else if let Some(family) = args.census {
        out!("{}", standings.census_text(family));
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

/// How a sequential test ended.
#[derive(Debug, serde::Serialize)]
struct SequentialResult {
    /// The test.
    sprt: Sprt,
    /// H0, H1, or none when --max-lists ran out first.
    verdict: Option<Verdict>,
    /// The lists played and the sums the test read.
    state: SprtState,
    /// The log-likelihood ratio at the end.
    llr: f64,
    /// Wald's bounds: accept H0 at or below the first, H1 at or above the second.
    bounds: (f64, f64),
    /// The standings over every list played.
    standings: Standings,
}

impl SequentialResult {
    fn summary(&self) -> String {
        let (lo, hi) = self.bounds;
        let verdict = match self.verdict {
            Some(Verdict::H1) => format!("H1 accepted: new is better by at least {} per list", self.sprt.d1),
            Some(Verdict::H0) => format!("H0 accepted: new is better by at most {} per list", self.sprt.d0),
            None => "undecided: --max-lists ran out".to_string(),
        };
        format!(
            "SPRT new − old (Seeger-Fabian per list): {verdict}\n  {} lists, mean difference {:+.1}, LLR {:+.2} in [{lo:.2}, {hi:.2}], alpha {}, beta {}",
            self.state.lists,
            self.state.mean(),
            self.llr,
            self.sprt.alpha,
            self.sprt.beta
        )
    }
}

/// Plays lists in batches (as many at once as --parallel allows) until the test decides.
async fn sequential(
    config: ArenaConfig,
    test: Sprt,
    max_lists: u32,
    on_open: Arc<dyn Fn(&OpenSeat) + Send + Sync>,
) -> Result<SequentialResult, Box<dyn std::error::Error>> {
    let rotations = if config.duplicate { config.entries.len() } else { 1 };
    let batch = (config.parallel / rotations).max(1) as u32;
    let mut state = SprtState::default();
    let mut all: Vec<TableOutcome> = Vec::new();
    let mut played = 0u32;
    let verdict = loop {
        let lists = batch.min(max_lists - played);
        if lists == 0 {
            break None;
        }
        let round = ArenaConfig {
            lists,
            seed: config.seed.wrapping_add(u64::from(played)),
            records_dir: None,
            progress: false,
            ..config.clone()
        };
        let (mut outcomes, _) = run(&round, Arc::clone(&on_open)).await?;
        let mut decided = None;
        for d in paired_per_list(&round, &outcomes, 0, 1) {
            state.push(d);
            if let Some(v) = test.verdict(&state) {
                decided = Some(v);
                break;
            }
        }
        for o in &mut outcomes {
            o.plan.list += played;
        }
        all.extend(outcomes);
        played += lists;
        let (lo, hi) = test.bounds();
        eprintln!(
            "sprt: {} lists, mean {:+.1}, LLR {:+.2} in [{lo:.2}, {hi:.2}]",
            state.lists,
            state.mean(),
            test.llr(&state)
        );
        if decided.is_some() {
            break decided;
        }
    };
    // The lists a batch played past the decision stay out of the test (it stopped at the
    // first list that decided) but in the standings.
    let full = ArenaConfig { lists: played, ..config };
    Ok(SequentialResult {
        sprt: test,
        verdict,
        llr: test.llr(&state),
        bounds: test.bounds(),
        state,
        standings: compute(&full, &all),
    })
}
