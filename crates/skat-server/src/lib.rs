//! # skat-server
//!
//! The `skat.v1` gRPC server: tables playing lists of deals with the engine, seat
//! tokens, clocks, one event log per table with resumable, per-seat redacted streams, a
//! journal that makes every OK durable and brings tables back after a restart (SQLite or
//! PostgreSQL), bot accounts, lobbies, tournaments and ratings, gRPC health and
//! reflection, Prometheus metrics, graceful shutdown.
//!
//! The server is built in rooms (`table`, `journal`, `store`, `competition`, `hosting`,
//! `analysis`, `rpc`); each depends only on the rooms below it, and only `rpc` knows tonic
//! and protobuf (`tests/architecture.rs` checks both). The map, room by room and file by
//! file, is `docs/architecture.md` (one map, checked to name every file).
//!
//! Competitions without I/O (plans, standings, ratings) are the `skat-league` crate's;
//! the rules are the engine's. See `docs/architecture.md`.

pub(crate) mod analysis;
mod config;
mod metrics;
pub(crate) mod rpc;

use std::future::Future;
use std::net::SocketAddr;
use std::sync::Arc;

use tokio::sync::watch;
use tokio::task::JoinHandle;

pub use config::{AnalysisConfig, Anonymous, Database, ForwardedHeader, ServerConfig, TlsFiles};
pub use metrics::{HostingMetrics, Metrics, cpu_seconds};
pub use rpc::edge::METHODS;
pub use skat_competition::{HostingConfig, PeopleTables};
pub use skat_journal::recovery::Recovered;
/// `skat backup`: a consistent, checked copy of a SQLite journal while the server runs.
pub use skat_store::backup;

/// The health service name that answers SERVING until the process exits (liveness);
/// `""` and `skat.v1.SkatService` turn NOT_SERVING when draining (readiness).
pub const LIVENESS_SERVICE: &str = "liveness";

/// A server started by [`start`].
#[derive(Debug)]
pub struct RunningServer {
    /// The gRPC address it listens on (useful with port 0).
    pub addr: SocketAddr,
    /// The metrics address, when served.
    pub metrics_addr: Option<SocketAddr>,
    /// The spectator page's address (and its gRPC-Web), when served.
    pub web_addr: Option<SocketAddr>,
    /// Finishes when the server has shut down.
    pub task: JoinHandle<std::io::Result<()>>,
    /// Turns true if the journal failed (the server then stops by itself; exit non-zero).
    pub journal_failed: watch::Receiver<bool>,
    /// What the start brought back from the journal.
    pub recovered: Recovered,
    /// The server's metrics (also served on `metrics_addr`).
    pub metrics: Metrics,
    /// Every task the server spawned: none is left once `task` has finished.
    pub tasks: skat_table::Tasks,
}

/// The page's address for people: `http://HOST:PORT/`, or `https://` with TLS (loopback
/// for an unspecified host).
pub fn page_url(addr: SocketAddr, tls: bool) -> String {
    let host = if addr.ip().is_unspecified() { "127.0.0.1".to_string() } else { addr.ip().to_string() };
    let host = if host.contains(':') { format!("[{host}]") } else { host };
    let scheme = if tls { "https" } else { "http" };
    format!("{scheme}://{host}:{}/", addr.port())
}

/// How long shutdown waits, after serving ended, for the server's tasks to end once
/// cancelled (a task in blocking work cannot be cancelled; the process goes on without it).
const TASKS_BOUND: std::time::Duration = std::time::Duration::from_secs(5);

/// Binds and starts the server; it runs until `shutdown` resolves, then: health turns
/// NOT_SERVING, the server keeps serving for `config.drain`, open watch streams end with
/// UNAVAILABLE ("reconnect with after_seq"), and in-flight RPCs finish. Then every task
/// the server spawned (the tables' clock, the journal's writer and housekeeping, the
/// schedulers, hosting's feed, the wire's streams) is cancelled and waited for.
pub async fn start(
    config: ServerConfig,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<RunningServer> {
    let config = Arc::new(config);
    let metrics = Metrics::new();
    let tasks = skat_table::Tasks::new();
    let tables = Arc::new(skat_table::Tables::new(tasks.clone()));
    let (stop_tx, stop_rx) = watch::channel(false);
    // The journal, and every table it holds, before the first request is taken.
    let (failure_tx, failure_rx) = watch::channel(false);
    let journal = open_journal(&config, &metrics, failure_tx, &tasks).await?;
    let recovered = recover(&config, &journal, &tables, &metrics).await?;
    // Only now: a client that can connect finds every table it was promised.
    let listener = tokio::net::TcpListener::bind(config.addr).await.map_err(|e| {
        std::io::Error::new(
            e.kind(),
            format!("cannot listen on {} ({e}): is another server running there?", config.addr),
        )
    })?;
    let addr = listener.local_addr()?;
    let metrics_addr = match config.metrics_addr {
        Some(a) => Some(metrics.clone().serve(a, stopped(stop_rx.clone()), &tasks).await?),
        None => None,
    };
    keep_tables(&config, &tables, &journal, &metrics, &stop_rx, &tasks);
    let competitions = start_competitions(&config, &tables, &journal, &metrics, &stop_rx, &tasks).await?;
    let releasing = journal.clone();
    let hosting = skat_competition::hosting::Hosting::new(
        journal.clone(),
        Arc::new(config.competition()),
        Arc::clone(&competitions),
        Arc::clone(&tables),
        metrics.competition(),
        tasks.clone(),
    );
    // The feed follows hosted accounts while the server has a runner token, until it stops.
    let _feed = hosting.start(stop_rx.clone());
    let floors = rpc::Floors { tables, journal, competitions, hosting, tasks: tasks.clone() };
    let parts = rpc::Parts {
        config: Arc::clone(&config),
        metrics: metrics.clone(),
        floors,
        stop: stop_tx,
        failed: failure_rx.clone(),
    };
    let serving = rpc::serve(listener, parts, shutdown).await?;
    let task = tokio::spawn(end(serving.task, releasing, tasks.clone()));
    tracing::info!(%addr, metrics = ?metrics_addr, web = ?serving.web_addr, "skat server listening");
    Ok(RunningServer {
        addr,
        metrics_addr,
        web_addr: serving.web_addr,
        task,
        journal_failed: failure_rx,
        recovered,
        metrics,
        tasks,
    })
}

/// The server's end, once serving has ended: a replica that stopped on purpose gives its
/// lease up (so that a live replica takes its unfinished tables over at its next look
/// rather than after the lease), then every task is cancelled and waited for.
async fn end(
    served: JoinHandle<std::io::Result<()>>,
    journal: skat_journal::Journal,
    tasks: skat_table::Tasks,
) -> std::io::Result<()> {
    let result = served.await.map_err(std::io::Error::other);
    skat_journal::takeover::release(&journal).await;
    drop(journal);
    let left = tasks.shut_down(TASKS_BOUND).await;
    tracing::info!(left, "the server's tasks ended");
    result?
}

/// The tables the journal holds, back in memory.
async fn recover(
    config: &ServerConfig,
    journal: &skat_journal::Journal,
    tables: &Arc<skat_table::Tables>,
    metrics: &Metrics,
) -> std::io::Result<Recovered> {
    let recovered = skat_journal::recovery::recover(
        journal,
        tables,
        config.max_tables,
        config.table_expiry,
        &metrics.journal(),
    )
    .await
    .map_err(|e| std::io::Error::other(format!("cannot recover tables from the journal: {e}")))?;
    tracing::info!(
        database = %config.database.describe(),
        tables = recovered.tables,
        entries = recovered.entries,
        dropped = recovered.dropped,
        abandoned = recovered.abandoned,
        took_ms = recovered.took.as_millis() as u64,
        "journal ready"
    );
    Ok(recovered)
}

/// Resolves once `stop` turns true.
async fn stopped(mut stop: watch::Receiver<bool>) {
    let _ = stop.wait_for(|s| *s).await;
}

/// The journal: in memory, or on the configured database (a replica registers first:
/// every commit renews the lease of this registration's epoch).
async fn open_journal(
    config: &ServerConfig,
    metrics: &Metrics,
    failure_tx: watch::Sender<bool>,
    tasks: &skat_table::Tasks,
) -> std::io::Result<skat_journal::Journal> {
    let opened = match &config.database {
        Database::Memory => return Ok(skat_journal::Journal::memory()),
        Database::Sqlite(dir) => skat_store::Store::open_dir(dir).await,
        Database::Url(url) => match config.node_id {
            Some(_) => skat_store::Store::open_replica(url, config.replica_lease).await,
            None => skat_store::Store::open(url).await,
        },
    };
    let store = opened.map_err(|e| {
        std::io::Error::other(format!("cannot open the database ({}): {e}", config.database.describe()))
    })?;
    let lease = match &config.node_id {
        Some(node) => Some((
            skat_journal::takeover::register(&store, node, config.replica_lease).await.map_err(|e| {
                std::io::Error::other(format!("cannot register replica {node} in the database: {e}"))
            })?,
            config.replica_lease,
        )),
        None => None,
    };
    Ok(skat_journal::Journal::start(
        store,
        lease,
        metrics.journal(),
        failure_tx,
        config.journal_gather,
        tasks,
    ))
}

/// The background work that keeps the tables bounded: expiry, the records' retention and
/// the database's size.
fn keep_tables(
    config: &ServerConfig,
    tables: &Arc<skat_table::Tables>,
    journal: &skat_journal::Journal,
    metrics: &Metrics,
    stop: &watch::Receiver<bool>,
    tasks: &skat_table::Tasks,
) {
    skat_journal::expiry::expire_tables(
        Arc::clone(tables),
        journal.clone(),
        metrics.journal(),
        config.table_expiry,
        stop.clone(),
        tasks,
    );
    if let Some(retention) = config.retention {
        skat_journal::expiry::purge_records(journal, retention, stop.clone(), tasks);
    }
    skat_journal::expiry::watch_size(journal, metrics.journal(), stop.clone(), tasks);
}

/// The competitions, resumed from the journal; on replicas, the tables of dead ones taken
/// over here (the competitions then watch them and hand their lobby seats out again).
async fn start_competitions(
    config: &Arc<ServerConfig>,
    tables: &Arc<skat_table::Tables>,
    journal: &skat_journal::Journal,
    metrics: &Metrics,
    stop: &watch::Receiver<bool>,
    tasks: &skat_table::Tasks,
) -> std::io::Result<Arc<skat_competition::Competitions>> {
    let competitions = skat_competition::Competitions::new(
        journal.clone(),
        Arc::clone(tables),
        Arc::new(config.competition()),
        metrics.competition(),
        tasks.clone(),
    );
    competitions
        .start()
        .await
        .map_err(|e| std::io::Error::other(format!("cannot resume the running tournaments: {e}")))?;
    let (adopted_tx, mut adopted_rx) = tokio::sync::mpsc::unbounded_channel();
    skat_journal::takeover::Takeover {
        journal: journal.clone(),
        tables: Arc::clone(tables),
        max_tables: config.max_tables,
        expiry: config.table_expiry,
        metrics: metrics.journal(),
        adopted: adopted_tx,
    }
    .follow(stop.clone(), tasks);
    let adopting = Arc::clone(&competitions);
    tasks.spawn(async move {
        while let Some(ids) = adopted_rx.recv().await {
            adopting.adopt(&ids).await;
        }
    });
    Ok(competitions)
}

/// For the crate's own benchmarks (`benches/`): the table and the journal's recovery,
/// which are not otherwise public. Not a stable API.
#[doc(hidden)]
pub mod bench {
    pub use skat_journal::Journal;
    pub use skat_journal::recovery::recover;
    pub use skat_journal::rows::{stored, table_row};
    pub use skat_store::Store;
    pub use skat_table::Table;
    pub use skat_table::id::TableId;
    pub use skat_table::input::TableConfig;
    pub use skat_table::registry::Tables;
    pub use skat_table::secret::TokenHash;
}
