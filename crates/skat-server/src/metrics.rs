//! Prometheus metrics, served on their own port so that scraping never competes with
//! game traffic: tables, watchers, deals played, time-outs, and RPC latency per method.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Instant;

use prometheus_client::encoding::text::encode;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::{Histogram, exponential_buckets};
use prometheus_client::registry::Registry;

type Labels = Vec<(&'static str, String)>;

/// The server's metrics: one shared set, so that a clone is a pointer (a table's clock
/// and every stream's slot hold one; the set itself is 232 bytes of handles).
#[derive(Clone, Debug)]
pub struct Metrics {
    set: Arc<MetricSet>,
    /// The same set, as the tables count into it.
    table: skat_table::Metrics,
}

impl Metrics {
    /// A fresh registry with every metric registered.
    pub fn new() -> Metrics {
        let set = Arc::new(MetricSet::new());
        Metrics { table: set.clone(), set }
    }

    /// What the tables count, for the table crate (the same metrics, behind its trait).
    pub fn table(&self) -> &skat_table::Metrics {
        &self.table
    }
}

impl Metrics {
    /// What the journal counts, for the journal crate (the same metrics, behind its trait).
    pub fn journal(&self) -> skat_journal::Metrics {
        Arc::new(self.clone())
    }
}

impl skat_journal::JournalMetrics for Metrics {
    fn committed(&self) {
        self.journal_commits.inc();
    }

    fn entries(&self, n: u64) {
        self.journal_entries.inc_by(n);
    }

    fn hot_log(&self, n: usize) {
        self.journal_log.set(n as i64);
    }

    fn database_bytes(&self, bytes: u64) {
        self.set.database_bytes.set(i64::try_from(bytes).unwrap_or(i64::MAX));
    }

    fn taken_over(&self, n: u64) {
        self.tables_taken_over.inc_by(n);
    }

    fn tables(&self) -> &skat_table::Metrics {
        &self.table
    }
}

impl Metrics {
    /// What the competitions count, for the competition crate (the same metrics, behind
    /// its trait).
    pub fn competition(&self) -> skat_competition::Metrics {
        Arc::new(self.clone())
    }
}

impl skat_competition::CompetitionMetrics for Metrics {
    fn tables(&self) -> &skat_table::Metrics {
        &self.table
    }

    fn per_account(&self, lobbies: &[(String, usize)], tables: &[(String, usize)]) {
        for (family, counts) in [(&self.account_lobbies, lobbies), (&self.account_tables, tables)] {
            family.clear();
            for (name, n) in counts {
                family.get_or_create(&vec![("account", name.clone())]).set(*n as i64);
            }
        }
    }

    fn tables_waiting(&self, n: u32) {
        self.hosting.tables_waiting.set(i64::from(n));
    }

    fn hosted_accounts(&self, n: usize) {
        self.hosting.accounts.set(n as i64);
    }

    fn runner_places(&self, capacity_millis: u64, used_millis: u64) {
        self.hosting.places_millis.set(i64::try_from(capacity_millis).unwrap_or(i64::MAX));
        self.hosting.used_millis.set(i64::try_from(used_millis).unwrap_or(i64::MAX));
    }

    fn sandbox_started(&self) {
        self.hosting.sandboxes_running.inc();
    }

    fn sandbox_ended(&self, outcome: &str, was_running: bool) {
        self.hosting.ended(outcome);
        if was_running {
            self.hosting.sandboxes_running.dec();
        }
    }
}

impl Default for Metrics {
    fn default() -> Metrics {
        Metrics::new()
    }
}

impl std::ops::Deref for Metrics {
    type Target = MetricSet;

    fn deref(&self) -> &MetricSet {
        &self.set
    }
}

impl skat_table::TableMetrics for MetricSet {
    fn timed_out(&self) {
        self.timeouts.inc();
    }

    fn deals_finished(&self, n: u64) {
        self.deals.inc_by(n);
    }

    fn watchers(&self, delta: i64) {
        self.watchers.inc_by(delta);
    }

    fn tables_held(&self, n: usize) {
        self.tables.set(n as i64);
    }
}

/// The metrics themselves (handles to shared atomics), read through [`Metrics`].
pub struct MetricSet {
    registry: Arc<Registry>,
    /// Tables held.
    pub tables: Gauge,
    /// Open watch streams.
    pub watchers: Gauge,
    /// Open client connections (TCP, on the gRPC and the page's port).
    pub connections: Gauge,
    /// Deals finished.
    pub deals: Counter,
    /// Seats that ran out of time.
    pub timeouts: Counter,
    /// Streams that read events their table no longer held (derived from its inputs).
    pub stream_derivations: Counter,
    /// RPC latency by method.
    pub rpc_seconds: Family<Labels, Histogram>,
    /// RPCs by method and status code.
    pub rpcs: Family<Labels, Counter>,
    /// Journal commits (each one fsync of the database's log).
    pub journal_commits: Counter,
    /// Journal entries written.
    pub journal_entries: Counter,
    /// Inputs in the journal's hot log, not yet moved under their table's key.
    pub journal_log: Gauge,
    /// Tables this replica took over from replicas whose lease ran out.
    pub tables_taken_over: Counter,
    /// TLS reloads after the certificate files changed, by result (`ok`, `failed`).
    pub tls_reloads: Family<Labels, Counter>,
    /// 1 while the server takes new work (readiness), 0 while it starts or drains.
    pub serving: Gauge,
    /// Open lobby streams per account (by name), on this replica.
    pub account_lobbies: Family<Labels, Gauge>,
    /// Tournament tables per account (by name) with a seat held on this replica.
    pub account_tables: Family<Labels, Gauge>,
    /// The database's size in bytes (refreshed every 30 s; 0 without one).
    pub database_bytes: Gauge,
    /// This process's resident memory, open file descriptors and live tokio tasks,
    /// refreshed at each scrape: what a soak test watches for growth.
    process: [Gauge; 3],
    /// This process's CPU seconds (user and system), refreshed at each scrape.
    process_cpu: Gauge<f64, std::sync::atomic::AtomicU64>,
    /// Hosted bots.
    pub hosting: HostingMetrics,
}

/// Hosted bots' metrics: accounts the runner's feed follows, sandboxes by how they ended.
#[derive(Clone, Debug, Default)]
pub struct HostingMetrics {
    /// Hosted accounts the runner's feed follows now.
    pub accounts: Gauge,
    /// Sandboxes running, as the runner reported them.
    pub sandboxes_running: Gauge,
    /// Sandboxes ended, by outcome (`exited`, `stopped`, `out-of-memory`, `timed-out`,
    /// `failed-to-start`).
    pub sandboxes_ended: Family<Labels, Counter>,
    /// Sandboxes' doors open (a socket or a token on the sandbox port, per hosted seat).
    pub doors: Gauge,
    /// Calls refused at a sandbox's door, by why (`scope`, `rate`).
    pub door_refusals: Family<Labels, Counter>,
    /// What the runners following this replica can hold, in millicores.
    pub places_millis: Gauge,
    /// What the hosted seats placed on them hold, in millicores.
    pub used_millis: Gauge,
    /// Hosted tournaments' tables due and waiting for places.
    pub tables_waiting: Gauge,
}

impl HostingMetrics {
    fn register(registry: &mut Registry) -> HostingMetrics {
        let m = HostingMetrics::default();
        registry.register(
            "hosted_accounts",
            "Hosted accounts whose seats the runner's feed passes on (0 without a runner)",
            m.accounts.clone(),
        );
        registry.register(
            "sandboxes_running",
            "Hosted bots' sandboxes running, as the runner reported them",
            m.sandboxes_running.clone(),
        );
        registry.register(
            "sandboxes_ended",
            "Hosted bots' sandboxes ended, by outcome (exited, stopped, out-of-memory, timed-out, failed-to-start)",
            m.sandboxes_ended.clone(),
        );
        registry.register(
            "sandbox_doors",
            "Hosted seats' doors open: each a socket of its own or a token on the sandbox port",
            m.doors.clone(),
        );
        registry.register(
            "runner_capacity_millicores",
            "What the runners following this replica can hold without overcommitting, in millicores",
            m.places_millis.clone(),
        );
        registry.register(
            "runner_used_millicores",
            "What the hosted seats placed on the runners hold, in millicores",
            m.used_millis.clone(),
        );
        registry.register(
            "hosted_tables_waiting",
            "Hosted tournaments' tables that are due and wait for places on the runners (their clocks do not run)",
            m.tables_waiting.clone(),
        );
        registry.register(
            "sandbox_door_refusals",
            "Calls refused at a sandbox's door, by why (scope: not its seat's call; rate: over its calls a second)",
            m.door_refusals.clone(),
        );
        m
    }

    /// Counts a call refused at a door.
    pub fn door_refused(&self, why: &'static str) {
        self.door_refusals.get_or_create(&vec![("why", why.to_string())]).inc();
    }

    /// Counts a sandbox that ended.
    pub fn ended(&self, outcome: &str) {
        self.sandboxes_ended.get_or_create(&vec![("outcome", outcome.to_string())]).inc();
    }
}

impl std::fmt::Debug for MetricSet {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Metrics")
    }
}

impl Default for MetricSet {
    fn default() -> Self {
        MetricSet::new()
    }
}

impl MetricSet {
    /// A fresh registry with every metric registered.
    fn new() -> MetricSet {
        let mut registry = Registry::with_prefix("skat");
        let mut m = MetricSet {
            registry: Arc::new(Registry::default()),
            tables: Gauge::default(),
            watchers: Gauge::default(),
            connections: Gauge::default(),
            deals: Counter::default(),
            timeouts: Counter::default(),
            stream_derivations: Counter::default(),
            rpc_seconds: Family::<Labels, Histogram>::new_with_constructor(|| {
                Histogram::new(exponential_buckets(0.000_05, 2.0, 18))
            }),
            rpcs: Family::<Labels, Counter>::default(),
            journal_commits: Counter::default(),
            journal_entries: Counter::default(),
            journal_log: Gauge::default(),
            tables_taken_over: Counter::default(),
            tls_reloads: Family::<Labels, Counter>::default(),
            serving: Gauge::default(),
            account_lobbies: Family::<Labels, Gauge>::default(),
            account_tables: Family::<Labels, Gauge>::default(),
            database_bytes: Gauge::default(),
            process: Default::default(),
            process_cpu: Gauge::<f64, std::sync::atomic::AtomicU64>::default(),
            hosting: HostingMetrics::default(),
        };
        m.register_process(&mut registry);
        m.register_work(&mut registry);
        m.hosting = HostingMetrics::register(&mut registry);
        m.registry = Arc::new(registry);
        m
    }

    /// The process, the database, accounts, readiness and TLS.
    fn register_process(&self, registry: &mut Registry) {
        registry.register(
            "process_cpu_seconds",
            "CPU time of the server process (user and system), at scrape time",
            self.process_cpu.clone(),
        );
        registry.register(
            "database_bytes",
            "Size of the journal's database in bytes (SQLite pages in use, or pg_database_size), refreshed every 30 s",
            self.database_bytes.clone(),
        );
        registry.register(
            "process_resident_bytes",
            "Resident memory of the server process, at scrape time",
            self.process[0].clone(),
        );
        registry.register(
            "process_open_fds",
            "Open file descriptors of the server process, at scrape time",
            self.process[1].clone(),
        );
        registry.register(
            "runtime_alive_tasks",
            "Live tokio tasks of the server's runtime, at scrape time",
            self.process[2].clone(),
        );
        registry.register(
            "account_lobbies",
            "Open lobby streams per account (label: its name), on this replica; refreshed every 5 s",
            self.account_lobbies.clone(),
        );
        registry.register(
            "account_tables",
            "Tournament tables per account (label: its name) with a seat held on this replica; refreshed every 5 s",
            self.account_tables.clone(),
        );
        registry.register(
            "serving",
            "1 while the server takes new work (readiness: /health/ready), 0 while it starts or drains",
            self.serving.clone(),
        );
        registry.register(
            "tls_reloads",
            "TLS certificate reloads after the files changed, by result (a failed one keeps the old certificate)",
            self.tls_reloads.clone(),
        );
    }

    /// The journal, tables, streams, deals and RPCs.
    fn register_work(&self, registry: &mut Registry) {
        registry.register(
            "journal_commits",
            "Journal commits: each makes a batch of changes durable with one fsync",
            self.journal_commits.clone(),
        );
        registry.register("journal_entries", "Journal entries written", self.journal_entries.clone());
        registry.register(
            "journal_log_entries",
            "Inputs in the journal's hot log not yet moved under their table's key (about two stretches of a few seconds)",
            self.journal_log.clone(),
        );
        registry.register(
            "tables_taken_over",
            "Tables this replica took over from replicas whose lease ran out (each rebuilt from the journal)",
            self.tables_taken_over.clone(),
        );
        registry.register(
            "tables",
            "Tables held (waiting, playing, or finished and not yet expired)",
            self.tables.clone(),
        );
        registry.register(
            "watchers",
            "Open watches: WatchTable streams and the watches on WatchTables streams",
            self.watchers.clone(),
        );
        registry.register(
            "connections",
            "Open client connections (TCP, gRPC and the page's port; a connection costs about 45 KiB)",
            self.connections.clone(),
        );
        registry.register("deals_played", "Deals finished", self.deals.clone());
        registry.register(
            "timeouts",
            "Seats that ran out of time and forfeited a deal",
            self.timeouts.clone(),
        );
        registry.register(
            "stream_derivations",
            "Times a WatchTable stream read events its table no longer held in memory, derived from the table's inputs on a blocking thread (a stream resuming from far behind)",
            self.stream_derivations.clone(),
        );
        registry.register("rpc_duration_seconds", "gRPC handling time by method", self.rpc_seconds.clone());
        registry.register("rpcs", "gRPC requests by method and status code", self.rpcs.clone());
    }

    /// Records one RPC's latency and outcome.
    pub fn observe(&self, method: &'static str, start: Instant, code: &str) {
        self.rpc_seconds
            .get_or_create(&vec![("method", method.to_string())])
            .observe(start.elapsed().as_secs_f64());
        self.rpcs.get_or_create(&vec![("method", method.to_string()), ("code", code.to_string())]).inc();
    }

    /// The text exposition format.
    pub fn render(&self) -> String {
        self.refresh_process();
        let mut out = String::new();
        if encode(&mut out, &self.registry).is_err() {
            out.clear();
        }
        out
    }

    /// Resident memory and open descriptors from `/proc/self` (Linux; left at 0
    /// elsewhere), live tasks from the runtime this runs on.
    fn refresh_process(&self) {
        if let Some(pages) = std::fs::read_to_string("/proc/self/statm")
            .ok()
            .and_then(|s| s.split_whitespace().nth(1).and_then(|v| v.parse::<i64>().ok()))
        {
            // statm counts pages; 4 KiB on every platform this runs on (x86-64, arm64 Linux).
            self.process[0].set(pages * 4096);
        }
        if let Some(cpu) = cpu_seconds() {
            self.process_cpu.set(cpu);
        }
        if let Ok(dir) = std::fs::read_dir("/proc/self/fd") {
            self.process[1].set(dir.count() as i64);
        }
        if let Ok(handle) = tokio::runtime::Handle::try_current() {
            self.process[2].set(handle.metrics().num_alive_tasks() as i64);
        }
    }
}

impl Metrics {
    /// Serves `GET /metrics` on `addr` until `shutdown` resolves, and health for probes
    /// that cannot speak gRPC over TLS (Kubernetes' gRPC probes have no TLS):
    /// `GET /health/ready` (200 while serving, 503 while starting or draining) and
    /// `GET /health/live` (200 until the process exits).
    pub async fn serve(
        self,
        addr: SocketAddr,
        shutdown: impl std::future::Future<Output = ()> + Send + 'static,
        tasks: &skat_table::Tasks,
    ) -> std::io::Result<SocketAddr> {
        let listener = tokio::net::TcpListener::bind(addr).await?;
        let bound = listener.local_addr()?;
        let ready = self.serving.clone();
        let app = axum::Router::new()
            .route(
                "/health/ready",
                axum::routing::get(move || {
                    let serving = ready.get() == 1;
                    async move {
                        if serving {
                            (axum::http::StatusCode::OK, "SERVING\n")
                        } else {
                            (axum::http::StatusCode::SERVICE_UNAVAILABLE, "NOT_SERVING\n")
                        }
                    }
                }),
            )
            .route("/health/live", axum::routing::get(|| async { "SERVING\n" }))
            .route(
                "/metrics",
                axum::routing::get(move || {
                    let m = self.clone();
                    async move {
                        (
                            [(
                                axum::http::header::CONTENT_TYPE,
                                "application/openmetrics-text; version=1.0.0; charset=utf-8",
                            )],
                            m.render(),
                        )
                    }
                }),
            );
        tasks.spawn(async move {
            if let Err(e) = axum::serve(listener, app).with_graceful_shutdown(shutdown).await {
                tracing::warn!(error = %e, "metrics server stopped");
            }
        });
        Ok(bound)
    }
}

/// User plus system CPU seconds of this process (Linux; `None` elsewhere).
pub fn cpu_seconds() -> Option<f64> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    // After the command name (which may hold spaces: split after its `)`), utime and
    // stime are the 12th and 13th fields, in ticks of 1/100 s (USER_HZ is 100 in /proc).
    let rest = stat.rsplit_once(')')?.1;
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let utime: f64 = fields.get(11)?.parse().ok()?;
    let stime: f64 = fields.get(12)?.parse().ok()?;
    Some((utime + stime) / 100.0)
}
