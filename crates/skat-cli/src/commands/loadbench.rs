//! `skat loadbench`: the server under load, over real gRPC on loopback.
//!
//! In one run: the rate of a trivial RPC (a health check) as the machine's baseline;
//! memory per idle table (seated, dealt, waiting for the first bid); then N tables of
//! three random clients each, playing from their streams alone (act on each event that
//! carries the seat's legal actions), reporting complete deals per second and the
//! latency of the action RPCs. With several `--database` values the load runs once per
//! database in the same process, one after the other, so the journal's cost is measured
//! against `memory` on the same machine in the same minute.
//!
//! A shared machine moves the same run by a third from one minute to the next, so one
//! pair of runs proves little: `--rounds N` runs the whole list N times, alternating, and
//! the summary gives each database's median over the rounds, its median ratio to the
//! first database *of the same round*, and the process's CPU time per deal (a capacity
//! figure that a closed loop's waiting does not hide).
//!
//! `--transport plain,tls` runs each database in plain text and over TLS (a CA and
//! certificate made for the run, as `skat certs` makes them), alternating like the
//! databases, and measures the handshake: the time to open a fresh connection (TCP, TLS
//! when on, HTTP/2) over `--handshakes` connections one after the other.

use std::process::ExitCode;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use skat_engine::random::RandomPlayer;
use skat_proto::convert;
use skat_proto::pb::{self, event::Kind, watch_table_response::Kind as WatchKind};
use skat_sdk::{SeatClient, ServerAddress};
use skat_server::{Database, ServerConfig, TlsFiles, cpu_seconds};
use tokio_stream::StreamExt;

use super::CmdResult;

#[derive(Debug, clap::Args)]
pub struct Args {
    /// Concurrent tables, three random clients each.
    #[arg(long, default_value_t = 32)]
    tables: usize,
    /// Deals per table.
    #[arg(long, default_value_t = 36)]
    deals: u32,
    /// Stop the load phase after this long even if tables are still playing.
    #[arg(long, default_value = "120s", value_parser = humantime::parse_duration)]
    duration: Duration,
    /// Idle tables to create for the memory measurement (0: skip).
    #[arg(long, default_value_t = 2000)]
    idle_tables: usize,
    /// How long to run the health-check baseline.
    #[arg(long, default_value = "3s", value_parser = humantime::parse_duration)]
    baseline: Duration,
    /// Concurrent tasks for the baseline.
    #[arg(long, default_value_t = 4)]
    baseline_tasks: usize,
    /// Load a running server (e.g. `http://127.0.0.1:50051`) instead of an embedded one;
    /// memory is then not measured, and `--database` and `--rounds` do not apply (its
    /// journal is its own).
    #[arg(long)]
    server: Option<String>,
    /// The embedded server's journal, one load run each, comma-separated: `memory`,
    /// `sqlite` (a temporary directory), `postgres://...`.
    #[arg(long, value_delimiter = ',', default_value = "memory", conflicts_with = "server")]
    database: Vec<String>,
    /// Run the `--database` list this many times, alternating, and summarise medians
    /// (each ratio against the first database of the same round).
    #[arg(
        long,
        default_value_t = 1,
        value_parser = clap::value_parser!(u32).range(1..=100),
        conflicts_with = "server"
    )]
    rounds: u32,
    /// The embedded server's transport, one load run each (per database), comma-separated:
    /// `plain`, `tls`.
    #[arg(long, value_delimiter = ',', default_value = "plain", conflicts_with = "server")]
    transport: Vec<Transport>,
    /// Fresh connections opened one after the other to time the handshake (0: skip).
    #[arg(long, default_value_t = 200)]
    handshakes: usize,
    /// With --server https://...: a PEM file with the CA that signed its certificate.
    #[arg(long, env = "SKAT_CA_FILE", requires = "server")]
    ca_file: Option<std::path::PathBuf>,
    /// With --server: seat tokens may travel in plain text to a server that is not this
    /// machine.
    #[arg(long, requires = "server")]
    insecure: bool,
}

/// How the embedded server is reached.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum Transport {
    /// Plain text (HTTP/2 without TLS).
    Plain,
    /// TLS 1.3 with a certificate made for the run (rustls on both sides).
    Tls,
}

/// What the summary keeps of one run (not its latencies: up to 100 rounds of them).
struct Run {
    shown: String,
    handshake: Option<Duration>,
    rate: f64,
    p99: Duration,
    cpu_per_deal_ms: Option<f64>,
    fsyncs: Option<f64>,
}

/// What one load run measured.
struct Load {
    deals: u64,
    elapsed: f64,
    latencies: Vec<Duration>,
    /// CPU seconds of this whole process (server and clients) during the run.
    cpu: Option<f64>,
}

impl Load {
    fn rate(&self) -> f64 {
        self.deals as f64 / self.elapsed
    }

    /// CPU milliseconds per complete deal.
    fn cpu_per_deal_ms(&self) -> Option<f64> {
        self.cpu.filter(|_| self.deals > 0).map(|c| 1000.0 * c / self.deals as f64)
    }
}

fn median(mut v: Vec<f64>) -> f64 {
    if v.is_empty() {
        return 0.0;
    }
    v.sort_by(f64::total_cmp);
    let n = v.len();
    if n % 2 == 1 { v[n / 2] } else { (v[n / 2 - 1] + v[n / 2]) / 2.0 }
}

pub(super) fn percentile(sorted: &[Duration], p: f64) -> Duration {
    if sorted.is_empty() {
        return Duration::ZERO;
    }
    let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[i.min(sorted.len() - 1)]
}

fn rss_bytes() -> Option<u64> {
    let statm = std::fs::read_to_string("/proc/self/statm").ok()?;
    let resident: u64 = statm.split_whitespace().nth(1)?.parse().ok()?;
    Some(resident * 4096)
}

pub(super) fn us(d: Duration) -> String {
    format!("{:.0} µs", d.as_secs_f64() * 1e6)
}

pub fn run(args: Args) -> CmdResult {
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build()?;
    runtime.block_on(bench(args))?;
    Ok(ExitCode::SUCCESS)
}

fn embedded_config(
    args: &Args,
    database: &str,
    dir: &std::path::Path,
    run: usize,
) -> Result<ServerConfig, Box<dyn std::error::Error>> {
    // A PostgreSQL database outlives the run (SQLite gets a fresh directory each time):
    // a replica name of its own per run keeps a later run from recovering, and counting
    // against its table limit, the tables an earlier one left unfinished.
    let node_id = database.starts_with("postgres").then(|| format!("loadbench-{}-{run}", std::process::id()));
    Ok(ServerConfig {
        node_id,
        addr: "127.0.0.1:0".parse()?,
        max_tables: args.tables + args.idle_tables + 16,
        // Every client of the benchmark is this process.
        max_tables_per_client: usize::MAX,
        max_streams_per_client: usize::MAX,
        max_connections_per_client: usize::MAX,
        max_deals: args.deals.max(ServerConfig::default().max_deals),
        default_action_ms: 0,
        default_deal_ms: 0,
        database: Database::from_setting(database, dir.to_path_buf()),
        ..ServerConfig::default()
    })
}

async fn bench(args: Args) -> Result<(), Box<dyn std::error::Error>> {
    if let Some(url) = &args.server {
        let address =
            ServerAddress::new(url).with_ca_file(args.ca_file.clone()).allow_plain_text(args.insecure);
        outln!("server: {}", address.url());
        baseline(&address, &args).await?;
        handshakes(&address, args.handshakes).await?;
        let load = load(&address, &args).await?;
        report(&load, None, false);
        return Ok(());
    }
    // One CA and certificate for every TLS run.
    let certs = std::env::temp_dir().join(format!("skat-loadbench-certs-{}", std::process::id()));
    if args.transport.contains(&Transport::Tls) {
        super::certs::make(&certs, &["127.0.0.1".to_string()], &[], 1, false)?;
    }
    let mut results: Vec<Run> = Vec::new();
    let per_round = args.database.len() * args.transport.len();
    let runs = (0..args.rounds as usize)
        .flat_map(|_| args.database.iter().flat_map(|d| args.transport.iter().map(move |t| (d, *t))));
    for (i, (database, transport)) in runs.enumerate() {
        let dir = std::env::temp_dir().join(format!("skat-loadbench-{}-{i}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let mut config = embedded_config(&args, database, &dir, i)?;
        if transport == Transport::Tls {
            config.tls = Some(TlsFiles {
                cert: certs.join("server.pem"),
                key: certs.join("server-key.pem"),
                client_ca: None,
                reload_every: Duration::from_secs(3600),
            });
        }
        let shown = match transport {
            Transport::Plain => config.database.describe(),
            Transport::Tls => format!("{}, TLS", config.database.describe()),
        };
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let server = skat_server::start(config, async move {
            let _ = stopped.await;
        })
        .await?;
        let address = match transport {
            Transport::Plain => ServerAddress::new(&format!("http://{}", server.addr)),
            Transport::Tls => ServerAddress::new(&format!("https://{}", server.addr))
                .with_ca_file(Some(certs.join("ca.pem"))),
        };
        outln!("\nserver: {} (embedded, same process), journal: {shown}", address.url());
        if i == 0 {
            baseline(&address, &args).await?;
            idle_memory(&address, &args).await?;
        }
        let handshake = handshakes(&address, args.handshakes).await?;
        let commits_before = server.metrics.journal_commits.get();
        let load = load(&address, &args).await?;
        let commits = server.metrics.journal_commits.get() - commits_before;
        let fsyncs = (database != "memory").then(|| commits as f64 / load.elapsed);
        report(&load, fsyncs, true);
        let _ = stop.send(());
        let _ = server.task.await;
        let _ = std::fs::remove_dir_all(&dir);
        results.push(Run {
            shown,
            handshake,
            rate: load.rate(),
            p99: percentile(&load.latencies, 0.99),
            cpu_per_deal_ms: load.cpu_per_deal_ms(),
            fsyncs,
        });
    }
    let _ = std::fs::remove_dir_all(&certs);
    if results.len() > 1 {
        summary(&results, per_round);
    }
    Ok(())
}

/// Opens `n` fresh connections one after the other and prints how long each took: the
/// handshake (TCP, TLS when on, HTTP/2) apart from the client's setup before it (for TLS,
/// loading the trusted roots, which a client does once per endpoint); returns the
/// handshake's median.
async fn handshakes(
    address: &ServerAddress,
    n: usize,
) -> Result<Option<Duration>, Box<dyn std::error::Error>> {
    if n == 0 {
        return Ok(None);
    }
    let (mut setups, mut times) = (Vec::with_capacity(n), Vec::with_capacity(n));
    for _ in 0..n {
        let start = Instant::now();
        let endpoint = address.endpoint()?;
        let ready = Instant::now();
        let channel = endpoint.connect().await?;
        times.push(ready.elapsed());
        setups.push(ready - start);
        drop(channel);
    }
    times.sort_unstable();
    setups.sort_unstable();
    let p50 = percentile(&times, 0.5);
    outln!(
        "handshake: p50 {}, p99 {} ({n} fresh connections: TCP{}, HTTP/2); client setup before it p50 {}",
        us(p50),
        us(percentile(&times, 0.99)),
        if address.is_tls() { ", TLS" } else { "" },
        us(percentile(&setups, 0.5)),
    );
    Ok(Some(p50))
}

/// Every run against the first database of its round, then (with several rounds) each
/// database's medians.
fn summary(results: &[Run], per_round: usize) {
    let cpu = |run: &Run| run.cpu_per_deal_ms.map_or(String::new(), |c| format!(", {c:.2} ms CPU/deal"));
    outln!("\nsummary (same process; each ratio against the first database of its round):");
    for (i, run) in results.iter().enumerate() {
        let first = &results[i - i % per_round];
        outln!(
            "  {}: {:.0} deals/s ({:.0}%), action p99 {}{}{}{}",
            run.shown,
            run.rate,
            100.0 * run.rate / first.rate,
            us(run.p99),
            cpu(run),
            run.handshake.map_or(String::new(), |h| format!(", handshake p50 {}", us(h))),
            run.fsyncs.map_or(String::new(), |f| format!(", {f:.0} commits (fsyncs)/s"))
        );
    }
    let rounds = results.len() / per_round;
    if rounds < 2 {
        return;
    }
    outln!("\nmedians over {rounds} rounds:");
    for d in 0..per_round {
        // (this database's run, the first database's run) in each round
        let pairs: Vec<(&Run, &Run)> =
            (0..rounds).map(|r| (&results[r * per_round + d], &results[r * per_round])).collect();
        let ratios: Vec<f64> = pairs.iter().map(|(run, first)| run.rate / first.rate).collect();
        let cpus: Vec<f64> = pairs.iter().filter_map(|(run, _)| run.cpu_per_deal_ms).collect();
        let cpu_ratios: Vec<f64> = pairs
            .iter()
            .filter_map(|(run, first)| Some(run.cpu_per_deal_ms? / first.cpu_per_deal_ms?))
            .collect();
        let handshakes: Vec<f64> =
            pairs.iter().filter_map(|(run, _)| run.handshake.map(|h| h.as_secs_f64())).collect();
        outln!(
            "  {}: {:.0} deals/s, {:.0}% of the first (ratios {}), action p99 {}{}{}",
            results[d].shown,
            median(pairs.iter().map(|(run, _)| run.rate).collect()),
            100.0 * median(ratios.clone()),
            ratios.iter().map(|r| format!("{:.0}%", 100.0 * r)).collect::<Vec<_>>().join(" "),
            us(Duration::from_secs_f64(median(pairs.iter().map(|(run, _)| run.p99.as_secs_f64()).collect()))),
            if cpus.is_empty() {
                String::new()
            } else {
                format!(", {:.2} ms CPU/deal ({:.2}x the first)", median(cpus), median(cpu_ratios))
            },
            if handshakes.is_empty() {
                String::new()
            } else {
                format!(", handshake p50 {}", us(Duration::from_secs_f64(median(handshakes))))
            }
        );
    }
}

async fn baseline(url: &ServerAddress, args: &Args) -> Result<(), Box<dyn std::error::Error>> {
    let baseline = health_baseline(url, args.baseline, args.baseline_tasks).await?;
    outln!(
        "baseline: health check {:.0} req/s with {} tasks, p50 {}, p99 {}",
        baseline.0,
        args.baseline_tasks,
        us(baseline.1),
        us(baseline.2)
    );
    Ok(())
}

/// Memory per idle table (seated, dealt, waiting for the first bid).
async fn idle_memory(url: &ServerAddress, args: &Args) -> Result<(), Box<dyn std::error::Error>> {
    if args.idle_tables == 0 {
        return Ok(());
    }
    let mut client = url.connect().await?;
    let before = rss_bytes().unwrap_or(0);
    for i in 0..args.idle_tables {
        let id = client
            .create_table(pb::CreateTableRequest { seats: 3, seed: Some(i as u64), ..Default::default() })
            .await?
            .into_inner()
            .table_id;
        for n in 0..3 {
            SeatClient::join(url, &id, &format!("idle{n}"), None).await?;
        }
    }
    let after = rss_bytes().unwrap_or(0);
    let per = after.saturating_sub(before) as f64 / args.idle_tables as f64;
    outln!(
        "memory: {:.1} KiB per idle table ({} tables seated and dealt, waiting for the first bid; RSS {:.1} → {:.1} MiB)",
        per / 1024.0,
        args.idle_tables,
        before as f64 / 1048576.0,
        after as f64 / 1048576.0
    );
    Ok(())
}

async fn load(url: &ServerAddress, args: &Args) -> Result<Load, Box<dyn std::error::Error>> {
    let deals = Arc::new(AtomicU64::new(0));
    let mut client = url.connect().await?;
    // Every table is created and seated before the clock starts: the figure is play.
    let mut seats = Vec::new();
    for t in 0..args.tables {
        let table = client
            .create_table(pb::CreateTableRequest {
                name: format!("load{t}"),
                seats: 3,
                deals: args.deals,
                seed: Some(t as u64),
                time_control: Some(pb::TimeControl { action_ms: 0, deal_ms: 0, between_deals_ms: 0 }),
                ..Default::default()
            })
            .await?
            .into_inner()
            .table_id;
        for s in 0..3u64 {
            let seed = t as u64 * 3 + s;
            let (seat, view) = SeatClient::join(url, &table, &format!("random{seed}"), None).await?;
            seats.push((seat, view.seq, seed));
        }
    }
    let start = Instant::now();
    let cpu_start = cpu_seconds();
    let stop_at = start + args.duration;
    let mut tasks = Vec::new();
    for (seat, seq, seed) in seats {
        let deals = Arc::clone(&deals);
        tasks.push(tokio::spawn(async move { random_seat(seat, seq, seed, deals, stop_at).await }));
    }
    let mut latencies = Vec::new();
    let mut refused = 0u64;
    for task in tasks {
        let (lat, aborted) = task.await??;
        latencies.extend(lat);
        refused += aborted;
    }
    let elapsed = start.elapsed().as_secs_f64();
    let cpu = cpu_seconds().zip(cpu_start).map(|(end, start)| end - start);
    latencies.sort_unstable();
    let played = deals.load(Ordering::Relaxed);
    let cut = if Instant::now() >= stop_at { " (stopped by --duration)" } else { "" };
    outln!(
        "load: {} tables x 3 random clients, {played} complete deals in {elapsed:.2} s{cut}, {} action RPCs ({refused} stale, ABORTED)",
        args.tables,
        latencies.len()
    );
    Ok(Load { deals: played, elapsed, latencies, cpu })
}

fn report(load: &Load, fsyncs: Option<f64>, embedded: bool) {
    let latencies = &load.latencies;
    outln!(
        "actions: {:.0}/s, latency p50 {}, p99 {}, max {}",
        latencies.len() as f64 / load.elapsed,
        us(percentile(latencies, 0.5)),
        us(percentile(latencies, 0.99)),
        us(latencies.last().copied().unwrap_or_default())
    );
    if let Some(f) = fsyncs {
        outln!(
            "journal: {f:.0} commits/s (one fsync each), {:.1} actions per commit",
            latencies.len() as f64 / load.elapsed / f.max(1e-9)
        );
    }
    if let Some(c) = load.cpu_per_deal_ms() {
        let whose = if embedded { "server and clients" } else { "the clients alone" };
        outln!("cpu: {c:.2} ms per complete deal ({whose}: this process)");
    }
    outln!("{:.0} deals/s", load.rate());
}

async fn health_baseline(
    url: &ServerAddress,
    how_long: Duration,
    tasks: usize,
) -> Result<(f64, Duration, Duration), Box<dyn std::error::Error>> {
    let channel = url.channel().await?;
    let start = Instant::now();
    let mut handles = Vec::new();
    for _ in 0..tasks {
        let mut h = tonic_health::pb::health_client::HealthClient::new(channel.clone());
        handles.push(tokio::spawn(async move {
            let mut lat = Vec::new();
            while start.elapsed() < how_long {
                let t = Instant::now();
                if h.check(tonic_health::pb::HealthCheckRequest { service: String::new() }).await.is_err() {
                    break;
                }
                lat.push(t.elapsed());
            }
            lat
        }));
    }
    let mut all = Vec::new();
    for h in handles {
        all.extend(h.await?);
    }
    let secs = start.elapsed().as_secs_f64();
    all.sort_unstable();
    Ok((all.len() as f64 / secs, percentile(&all, 0.5), percentile(&all, 0.99)))
}

/// One random client: plays from its stream alone until the match ends (or time is up).
async fn random_seat(
    mut seat: SeatClient,
    seq: u64,
    seed: u64,
    deals: Arc<AtomicU64>,
    stop_at: Instant,
) -> Result<(Vec<Duration>, u64), skat_sdk::SdkError> {
    let mut player = RandomPlayer::new(seed);
    // From the start of the log: the first seat joined before the deal was dealt.
    let _ = seq;
    let mut stream = seat.watch(Some(0)).await?;
    let mut latencies = Vec::with_capacity(1024);
    let mut aborted = 0;
    let count_deals = seat.seat().number() == 0;
    // Every wait ends at `stop_at`: a seat that stops must not leave the others of its
    // table waiting for it.
    while let Ok(Some(msg)) = tokio::time::timeout_at(stop_at.into(), stream.next()).await {
        let Some(WatchKind::Event(event)) = msg?.kind else { continue };
        match &event.kind {
            Some(Kind::DealEnded(_)) if count_deals => {
                deals.fetch_add(1, Ordering::Relaxed);
            }
            Some(Kind::MatchEnded(_)) => break,
            _ => {}
        }
        if Instant::now() >= stop_at {
            break;
        }
        let Some(legal) = event.legal.as_ref() else { continue };
        let legal = convert::legal_from(legal).map_err(|e| skat_sdk::SdkError::Protocol(e.message))?;
        let Some(action) = player.choose_from(&legal) else { continue };
        let t = Instant::now();
        match tokio::time::timeout_at(stop_at.into(), seat.act(action, Some(event.seq))).await {
            Ok(Ok(_)) => latencies.push(t.elapsed()),
            Ok(Err(s)) if s.code() == tonic::Code::Aborted => aborted += 1,
            Ok(Err(s)) => return Err(s.into()),
            Err(_) => break,
        }
    }
    Ok((latencies, aborted))
}
