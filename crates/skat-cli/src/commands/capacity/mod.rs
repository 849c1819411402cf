//! `skat capacity`: how many tables of bots that think one server holds, and whether it
//! stays flat for hours.
//!
//! The closed loop of `skat loadbench` (clients that answer at once) measures a race; a
//! competition is open-loop: bots think for hundreds of milliseconds, a few much longer,
//! some drop their connection and resume, some vanish and lose on time. Here every bot
//! thinks for a time drawn from `--think` before each decision, and:
//!
//! - **ramp** (default): starts `--tables` tables, measures a `--window`, adds `--step`
//!   tables, and stops when the bots' action latency p99 crosses `--p99`; the capacity is
//!   the last step under it. Each row has the p99 as the bots saw it and as the server
//!   timed it (its histogram), deals/s, memory per table and CPU per deal.
//! - **soak** (`--soak 1h`): holds `--tables` for that long and samples every `--window`:
//!   the server's resident memory, open file descriptors, live tasks, database size and
//!   the latency percentiles. With `--check-growth` it fails when, once warm
//!   (`--warmup`), any of them grew beyond the bounds in [`Bounds`].
//!
//! The server is embedded (`--database`), or a running one (`--server URL --metrics
//! HOST:PORT`), so that the load can run as its own process on other cores (`taskset`).

mod bots;
mod probe;

use std::process::ExitCode;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use skat_sdk::ServerAddress;
use skat_server::{Database, ServerConfig};
use tokio::sync::watch;

use self::bots::{Behaviour, Pool, Stats, Think};
use self::probe::{Reading, Source};
use super::CmdResult;
use super::loadbench::{percentile, us};

#[derive(Debug, clap::Args)]
pub struct Args {
    /// Tables in play at the start of the ramp, or throughout the soak.
    #[arg(long, default_value_t = 100)]
    tables: usize,
    /// Ramp: tables added after each window.
    #[arg(long, default_value_t = 100)]
    step: usize,
    /// Ramp: the most tables to try.
    #[arg(long, default_value_t = 20_000)]
    max_tables: usize,
    /// How long each ramp step is measured; the soak's sampling period.
    #[arg(long, default_value = "30s", value_parser = humantime::parse_duration)]
    window: Duration,
    /// Ramp: after adding tables, how long to let them settle before the next window (new
    /// tables start together; their first deals are a burst no steady load has).
    #[arg(long, default_value = "10s", value_parser = humantime::parse_duration)]
    settle: Duration,
    /// Ramp: stop when the bots' action latency p99 crosses this.
    #[arg(long, default_value = "20ms", value_parser = humantime::parse_duration)]
    p99: Duration,
    /// Soak instead of ramp: hold `--tables` for this long.
    #[arg(long, value_parser = humantime::parse_duration)]
    soak: Option<Duration>,
    /// Soak: samples before this much time are warm-up, not checked for growth.
    #[arg(long, default_value = "5m", value_parser = humantime::parse_duration)]
    warmup: Duration,
    /// Soak: exit with status 1 if, once warm, memory, descriptors, tasks or the database
    /// grew beyond the bounds (docs/BENCHMARKS.md).
    #[arg(long)]
    check_growth: bool,
    /// Think time before each decision: `fixed:500ms`, `exp:500ms` (exponential, this
    /// mean) or `pareto:500ms:1.5` (this mean, a heavy tail).
    #[arg(long, default_value = "exp:500ms")]
    think: Think,
    /// Per seat and deal, the chance that the bot drops its stream once and resumes.
    #[arg(long, default_value_t = 0.02)]
    disconnect: f64,
    /// Per seat and deal, the chance that the bot does not answer at all (it loses the
    /// deal on time).
    #[arg(long, default_value_t = 0.005)]
    vanish: f64,
    /// How long a dropped bot stays away before it resumes.
    #[arg(long, default_value = "2s", value_parser = humantime::parse_duration)]
    away: Duration,
    /// Where a dropped bot's stream resumes: after the last event it saw, the missed
    /// events first (`last`, as the SDKs do; the server derives those older than its
    /// window from the table's inputs), or after the table's current `seq` (`now`).
    #[arg(long, value_enum, default_value_t = bots::ResumeFrom::Last)]
    resume_from: bots::ResumeFrom,
    /// Deals per table; a finished table is replaced by a new one.
    #[arg(long, default_value_t = 12)]
    deals: u32,
    /// The tables' time per decision (a vanished bot forfeits after it).
    #[arg(long, default_value = "5s", value_parser = humantime::parse_duration)]
    action_timeout: Duration,
    /// Tables sharing one connection (the server caps streams per connection). The
    /// default, 63 seats a connection, is what the SDKs' lobbies do (up to 64 seats on one).
    #[arg(long, default_value_t = 21)]
    tables_per_connection: usize,
    /// How the seats watch their tables: on one WatchTables stream per connection
    /// (`shared`, as the SDKs' lobbies do) or on a WatchTable stream each (`seat`, as a
    /// bot that plays one seat on its own connection does, and as before WatchTables).
    #[arg(long, value_enum, default_value_t = bots::Streams::Shared)]
    streams: bots::Streams,
    /// A running server (`http://127.0.0.1:50051`) instead of an embedded one. Start it
    /// with limits for the load (`--max-tables`, `--max-tables-per-client`,
    /// `--max-streams-per-client`, `--max-connections-per-client`).
    #[arg(long)]
    server: Option<String>,
    /// With --server: its metrics address (`127.0.0.1:9090`), for what it measures itself.
    #[arg(long, requires = "server")]
    metrics: Option<std::net::SocketAddr>,
    /// The embedded server's journal: `memory`, `sqlite` (a temporary directory) or
    /// `postgres://...`.
    #[arg(long, default_value = "sqlite", conflicts_with = "server")]
    database: String,
    /// The embedded server's `--retention` (finished tables leave the database after it).
    #[arg(long, default_value = "2m", value_parser = humantime::parse_duration, conflicts_with = "server")]
    retention: Duration,
    /// The embedded server's `--table-expiry` (finished tables leave memory after it).
    #[arg(long, default_value = "1m", value_parser = humantime::parse_duration, conflicts_with = "server")]
    table_expiry: Duration,
}

/// Growth a warm server may show in a soak, against its first warm sample. Memory and
/// tasks move with the tables in play at the moment of a sample (a table between lists
/// holds less), hence the floors.
pub struct Bounds;

impl Bounds {
    const RSS: (f64, f64) = (0.15, 32.0 * 1048576.0);
    const FDS: f64 = 64.0;
    const TASKS: (f64, f64) = (0.10, 256.0);
    const DATABASE: (f64, f64) = (0.25, 4.0 * 1048576.0);

    fn allowed(base: f64, (share, floor): (f64, f64)) -> f64 {
        base + (base * share).max(floor)
    }
}

pub fn run(args: Args) -> CmdResult {
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build()?;
    runtime.block_on(drive(args))
}

/// One sample: the bots' latencies and counters, the server's reading.
struct Sample {
    at: Duration,
    tables: usize,
    reading: Reading,
    bot_p50: Duration,
    bot_p99: Duration,
    server_p99: Option<f64>,
    deals_per_s: f64,
    actions_per_s: f64,
    cpu_ms_per_deal: Option<f64>,
}

/// The server under load: the one named by `--server` (its metrics from `--metrics`), or
/// one embedded in this process with room for every table (stopped by `stopped`).
async fn target(
    args: &Args,
    dir: &std::path::Path,
    stopped: tokio::sync::oneshot::Receiver<()>,
) -> Result<(ServerAddress, Option<Source>), Box<dyn std::error::Error>> {
    Ok(match &args.server {
        Some(url) => {
            let source = args.metrics.map(Source::Http);
            (ServerAddress::new(url), source)
        }
        None => {
            let node_id =
                args.database.starts_with("postgres").then(|| format!("capacity-{}", std::process::id()));
            let config = ServerConfig {
                node_id,
                addr: "127.0.0.1:0".parse()?,
                max_tables: args.max_tables.max(args.tables) * 2 + 64,
                max_tables_per_client: usize::MAX,
                max_streams_per_client: usize::MAX,
                max_connections_per_client: usize::MAX,
                max_deals: args.deals.max(ServerConfig::default().max_deals),
                table_expiry: args.table_expiry,
                retention: Some(args.retention),
                database: Database::from_setting(&args.database, dir.to_path_buf()),
                ..ServerConfig::default()
            };
            let shown = config.database.describe();
            let server = skat_server::start(config, async move {
                let _ = stopped.await;
            })
            .await?;
            outln!("embedded server: {shown}, load and server in this one process");
            (
                ServerAddress::new(&format!("http://{}", server.addr)),
                Some(Source::Embedded(server.metrics.clone())),
            )
        }
    })
}

/// How the bots behave: their thinking, drops, vanishing, absence, the table's settings.
fn behaviour(args: &Args) -> Arc<Behaviour> {
    Arc::new(Behaviour {
        think: args.think,
        disconnect: args.disconnect,
        vanish: args.vanish,
        away: args.away,
        resume_from: args.resume_from,
        deals: args.deals,
        action_ms: args.action_timeout.as_millis() as u64,
    })
}

/// The table's columns.
fn print_header() {
    outln!(
        "{:>7} {:>7} {:>8} {:>9} {:>9} {:>10} {:>10} {:>9} {:>8} {:>8} {:>6} {:>7} {:>8} {:>7}",
        "time",
        "tables",
        "deals/s",
        "actions/s",
        "bot p50",
        "bot p99",
        "srv p99",
        "RSS MiB",
        "KiB/tbl",
        "+KiB/tbl",
        "fds",
        "tasks",
        "db MiB",
        "ms/deal"
    );
}

/// What the bots saw, and how many of their resumes the server derived.
async fn print_bots(stats: &Stats, source: &Option<Source>) {
    outln!(
        "bots: {} tables started, {} actions, {} stale (the table had moved on), {} errors, {} drops ({} events missed in all), {} streams resumed, {} vanished",
        stats.tables_started.load(Ordering::Relaxed),
        stats.actions.load(Ordering::Relaxed),
        stats.stale.load(Ordering::Relaxed),
        stats.errors.load(Ordering::Relaxed),
        stats.disconnects.load(Ordering::Relaxed),
        stats.missed.load(Ordering::Relaxed),
        stats.resumes.load(Ordering::Relaxed),
        stats.vanished.load(Ordering::Relaxed),
    );
    outln!(
        "server: {} streams resumed from events older than their table's window (derived from its inputs)",
        read(source).await.gauge("skat_stream_derivations_total")
    );
}

async fn drive(args: Args) -> CmdResult {
    let dir = std::env::temp_dir().join(format!("skat-capacity-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let (stop_server, stopped) = tokio::sync::oneshot::channel::<()>();
    let (address, source) = target(&args, &dir, stopped).await?;
    let how = behaviour(&args);
    outln!(
        "bots think {:?}; per seat and deal {:.1}% drop and resume, {:.1}% vanish (time control {})",
        args.think,
        args.disconnect * 100.0,
        args.vanish * 100.0,
        humantime::format_duration(args.action_timeout)
    );
    let stats = Arc::new(Stats::default());
    let pool = Arc::new(Pool::new(address, args.tables_per_connection, args.streams));
    let (stop_tx, stop_rx) = watch::channel(false);
    let mut runners = Vec::new();
    let start = |n: usize, runners: &mut Vec<tokio::task::JoinHandle<()>>| {
        for _ in 0..n {
            let i = runners.len();
            runners.push(tokio::spawn(bots::table_runner(
                i,
                Arc::clone(&pool),
                Arc::clone(&how),
                Arc::clone(&stats),
                stop_rx.clone(),
            )));
        }
    };
    // What the server holds before any table: the rest, divided by the tables, is what a
    // table in play adds (the sizing rule's per-table term; RSS / tables also counts the
    // server's fixed part).
    let idle = read(&source).await.gauge("skat_process_resident_bytes");
    outln!("server before the load: {:.1} MiB resident", mib(idle));
    start(args.tables, &mut runners);
    let began = Instant::now();
    let reading = read(&source).await;
    let mut last = Mark { deals: 0, actions: 0, cpu: reading.gauge("skat_process_cpu_seconds"), reading };
    let mut samples: Vec<Sample> = Vec::new();
    print_header();
    let verdict = loop {
        tokio::time::sleep(args.window).await;
        let lat = stats.take();
        let now = Mark::now(&source, &stats).await;
        let sample = last.sample(&now, &lat, args.window.as_secs_f64(), began.elapsed(), runners.len());
        print_row(&sample, idle);
        last = now;
        let over = sample.bot_p99 > args.p99;
        samples.push(sample);
        match args.soak {
            Some(soak) if began.elapsed() >= soak => break soak_verdict(&samples, args.warmup),
            Some(_) => {}
            None if over || runners.len() >= args.max_tables => break ramp_verdict(&samples, args.p99, idle),
            None => {
                start(args.step.min(args.max_tables - runners.len()), &mut runners);
                // The window starts after the newcomers' first burst.
                tokio::time::sleep(args.settle).await;
                stats.take();
                last = Mark::now(&source, &stats).await;
            }
        }
    };
    print_bots(&stats, &source).await;
    let _ = stop_tx.send(true);
    for r in runners {
        let _ = tokio::time::timeout(Duration::from_secs(10), r).await;
    }
    let _ = stop_server.send(());
    let _ = std::fs::remove_dir_all(&dir);
    outln!(
        "{}",
        match &verdict {
            Err(why) if args.check_growth => format!("growth: {why}"),
            // A short run (the database before its retention deletes, say) is told, not failed.
            Err(why) => format!("growth (not checked without --check-growth): {why}"),
            Ok(summary) => summary.to_string(),
        }
    );
    Ok(if verdict.is_err() && args.check_growth { ExitCode::FAILURE } else { ExitCode::SUCCESS })
}

/// Where a window starts or ends: the server's reading and the bots' counts.
struct Mark {
    reading: Reading,
    deals: u64,
    actions: u64,
    cpu: f64,
}

impl Mark {
    async fn now(source: &Option<Source>, stats: &Stats) -> Mark {
        let reading = read(source).await;
        Mark {
            deals: stats.deals.load(Ordering::Relaxed),
            actions: stats.actions.load(Ordering::Relaxed),
            cpu: reading.gauge("skat_process_cpu_seconds"),
            reading,
        }
    }

    /// The window from this mark to `now`: `lat` the bots' latencies in it, `secs` its
    /// length, `at` its end since the start, with `tables` being played.
    fn sample(&self, now: &Mark, lat: &[Duration], secs: f64, at: Duration, tables: usize) -> Sample {
        let server_deals =
            now.reading.gauge("skat_deals_played_total") - self.reading.gauge("skat_deals_played_total");
        Sample {
            at,
            tables,
            bot_p50: percentile(lat, 0.5),
            bot_p99: percentile(lat, 0.99),
            server_p99: now.reading.quantile_since(&self.reading, 0.99),
            deals_per_s: (now.deals - self.deals) as f64 / secs,
            actions_per_s: (now.actions - self.actions) as f64 / secs,
            cpu_ms_per_deal: (server_deals > 0.0 && now.cpu > 0.0)
                .then(|| 1000.0 * (now.cpu - self.cpu) / server_deals),
            reading: now.reading.clone(),
        }
    }
}

async fn read(source: &Option<Source>) -> Reading {
    match source {
        Some(s) => s.read().await.unwrap_or_default(),
        None => Reading::default(),
    }
}

fn mib(bytes: f64) -> f64 {
    bytes / 1048576.0
}

/// KiB per table: the process's resident memory and what the tables added to `idle`.
fn per_table(s: &Sample, idle: f64) -> (f64, f64) {
    let (rss, tables) = (s.reading.gauge("skat_process_resident_bytes"), s.tables.max(1) as f64);
    (rss / 1024.0 / tables, (rss - idle).max(0.0) / 1024.0 / tables)
}

fn print_row(s: &Sample, idle: f64) {
    let r = &s.reading;
    let rss = r.gauge("skat_process_resident_bytes");
    let (whole, added) = per_table(s, idle);
    outln!(
        "{:>6.0}s {:>7} {:>8.1} {:>9.0} {:>9} {:>10} {:>10} {:>9.1} {:>8.1} {:>8.1} {:>6.0} {:>7.0} {:>8.1} {:>7}",
        s.at.as_secs_f64(),
        s.tables,
        s.deals_per_s,
        s.actions_per_s,
        us(s.bot_p50),
        us(s.bot_p99),
        s.server_p99.map_or("-".into(), |p| us(Duration::from_secs_f64(p))),
        mib(rss),
        whole,
        added,
        r.gauge("skat_process_open_fds"),
        r.gauge("skat_runtime_alive_tasks"),
        mib(r.gauge("skat_database_bytes")),
        s.cpu_ms_per_deal.map_or("-".into(), |c| format!("{c:.2}")),
    );
}

fn ramp_verdict(samples: &[Sample], bound: Duration, idle: f64) -> Result<String, String> {
    let held = samples.iter().rev().find(|s| s.bot_p99 <= bound);
    Ok(match held {
        Some(s) => {
            let (whole, added) = per_table(s, idle);
            format!(
                "capacity: {} tables at bot p99 {} (server p99 {}), {:.0} actions/s, {:.1} KiB per table (process RSS / tables; {:.1} added to the idle server's), {} ms CPU per deal",
                s.tables,
                us(s.bot_p99),
                s.server_p99.map_or("-".into(), |p| us(Duration::from_secs_f64(p))),
                s.actions_per_s,
                whole,
                added,
                s.cpu_ms_per_deal.map_or("-".into(), |c| format!("{c:.2}"))
            )
        }
        None => format!(
            "capacity: below the first step ({} tables already over {})",
            samples.first().map_or(0, |s| s.tables),
            us(bound)
        ),
    })
}

/// The most a gauge may reach, from its first warm value.
type Allowed = dyn Fn(f64) -> f64;

fn soak_verdict(samples: &[Sample], warmup: Duration) -> Result<String, String> {
    let warm: Vec<&Sample> = samples.iter().filter(|s| s.at >= warmup).collect();
    let Some(first) = warm.first() else {
        return Err(format!("no sample after the warm-up of {}", humantime::format_duration(warmup)));
    };
    let mut over = Vec::new();
    let checks: [(&str, f64, &Allowed); 4] = [
        ("skat_process_resident_bytes", mib(1.0), &|b| Bounds::allowed(b, Bounds::RSS)),
        ("skat_process_open_fds", 1.0, &|b| b + Bounds::FDS),
        ("skat_runtime_alive_tasks", 1.0, &|b| Bounds::allowed(b, Bounds::TASKS)),
        ("skat_database_bytes", mib(1.0), &|b| Bounds::allowed(b, Bounds::DATABASE)),
    ];
    let mut summary = format!("soak: {} warm samples from {:.0} s;", warm.len(), first.at.as_secs_f64());
    for (name, unit, allowed) in checks {
        let base = first.reading.gauge(name);
        let peak = warm.iter().map(|s| s.reading.gauge(name)).fold(0.0, f64::max);
        let limit = allowed(base);
        summary.push_str(&format!(
            " {name} {:.1} -> peak {:.1} (bound {:.1});",
            base * unit,
            peak * unit,
            limit * unit
        ));
        if peak > limit {
            over.push(format!(
                "{name} grew from {:.1} to {:.1}, beyond {:.1}",
                base * unit,
                peak * unit,
                limit * unit
            ));
        }
    }
    let p99s: Vec<Duration> = warm.iter().map(|s| s.bot_p99).collect();
    summary.push_str(&format!(
        " bot p99 per sample {:?}..{:?}",
        p99s.iter().min().copied().unwrap_or_default(),
        p99s.iter().max().copied().unwrap_or_default()
    ));
    if over.is_empty() {
        Ok(summary)
    } else {
        Err(format!("{summary}\nBEYOND THE BOUNDS: {}", over.join("; ")))
    }
}
