//! `skat serve`: the gRPC server.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use skat_server::{Database, ServerConfig, TlsFiles};

use super::CmdResult;
pub use super::process::{LogFormat, init_tracing, shutdown_signal};

#[derive(Debug, clap::Args)]
pub struct Args {
    /// Address for gRPC.
    #[arg(long, env = "SKAT_ADDR", default_value = "127.0.0.1:50051")]
    pub addr: SocketAddr,
    /// Address for Prometheus metrics (`GET /metrics`); `off` to disable.
    #[arg(long, env = "SKAT_METRICS_ADDR", default_value = "127.0.0.1:9090")]
    pub metrics_addr: String,
    /// Address for the spectator web page (tables, live tables, replays, tournaments,
    /// ratings; it reads the same API over gRPC-Web); `off` to disable. [default:
    /// 127.0.0.1:8080, left out with a warning when another program has it]
    #[arg(long, env = "SKAT_WEB_ADDR")]
    pub web_addr: Option<String>,
    /// Most tables held at once (finished ones count until they expire).
    #[arg(long, env = "SKAT_MAX_TABLES", default_value_t = 1000)]
    pub max_tables: usize,
    /// Most tables one client address may hold at once (created and not yet expired).
    #[arg(long, env = "SKAT_MAX_TABLES_PER_CLIENT", default_value_t = 100)]
    pub max_tables_per_client: usize,
    /// Most deals a new table may have.
    #[arg(long, env = "SKAT_MAX_DEALS", default_value_t = 144)]
    pub max_deals: u32,
    /// Most joins in one table's life (each join and leave is kept in its log).
    #[arg(long, env = "SKAT_MAX_JOINS", default_value_t = 64)]
    pub max_joins: usize,
    /// Most spectator streams (without a seat token) per table; seats' own streams do
    /// not count against it.
    #[arg(long, alias = "max-watchers", env = "SKAT_MAX_SPECTATORS", default_value_t = 64)]
    pub max_spectators: usize,
    /// Most streams one seat token may hold open at once.
    #[arg(long, env = "SKAT_MAX_STREAMS_PER_SEAT", default_value_t = 4)]
    pub max_streams_per_seat: usize,
    /// Most watch streams one client address may hold open at once.
    #[arg(long, env = "SKAT_MAX_STREAMS_PER_CLIENT", default_value_t = 64)]
    pub max_streams_per_client: usize,
    /// A stream whose reader takes no event for this long while events wait is ended
    /// (RESOURCE_EXHAUSTED; the client resumes with after_seq).
    #[arg(long, env = "SKAT_STREAM_STALL_TIMEOUT", default_value = "30s", value_parser = humantime::parse_duration)]
    pub stream_stall_timeout: Duration,
    /// Most streams (WatchTable, Lobby) one connection may carry at once; more are refused
    /// (RESOURCE_EXHAUSTED), never left waiting. A trusted proxy's connections are exempt.
    #[arg(long, env = "SKAT_MAX_STREAMS_PER_CONNECTION", default_value_t = 100)]
    pub max_streams_per_connection: usize,
    /// Most calls being answered at once on one connection (more wait their turn; open
    /// streams are counted by --max-streams-per-connection instead).
    #[arg(long, env = "SKAT_MAX_REQUESTS_PER_CONNECTION", default_value_t = 32)]
    pub max_requests_per_connection: usize,
    /// TLS certificate chain (PEM, leaf first) for the gRPC and web ports; with --tls-key.
    /// Plain-text connections are then refused. The files are read again when they change
    /// (see --tls-reload), so a rotated certificate needs no restart.
    #[arg(long, env = "SKAT_TLS_CERT", requires = "tls_key")]
    pub tls_cert: Option<PathBuf>,
    /// The TLS private key (PEM: PKCS#8, PKCS#1 or SEC1); with --tls-cert.
    #[arg(long, env = "SKAT_TLS_KEY", requires = "tls_cert")]
    pub tls_key: Option<PathBuf>,
    /// Mutual TLS: every client must present a certificate this CA (PEM) signed.
    #[arg(long, env = "SKAT_TLS_CLIENT_CA", requires = "tls_cert")]
    pub tls_client_ca: Option<PathBuf>,
    /// How often the TLS files are looked at for a change (a changed set that loads is
    /// used for new connections; open ones keep theirs).
    #[arg(long, env = "SKAT_TLS_RELOAD", default_value = "10s", value_parser = humantime::parse_duration)]
    pub tls_reload: Duration,
    /// Proxies trusted to name the real client (in --forwarded-header), as comma-separated
    /// CIDRs (`10.0.0.0/8,127.0.0.1/32`). From these peers only, per-address limits and log
    /// lines use the rightmost address in the header that is not itself a trusted proxy;
    /// headers from anyone else are ignored. Their own connections count against no
    /// per-address limit.
    #[arg(long, env = "SKAT_TRUSTED_PROXIES", value_delimiter = ',')]
    pub trusted_proxies: Vec<ipnet::IpNet>,
    /// The header trusted proxies name the client in: `x-forwarded-for` (nginx, HAProxy,
    /// ingress-nginx, Envoy) or `forwarded` (RFC 7239). The other is ignored: a proxy
    /// passes on unchanged the header it does not write.
    #[arg(long, env = "SKAT_FORWARDED_HEADER", default_value = "x-forwarded-for")]
    pub forwarded_header: skat_server::ForwardedHeader,
    /// Most TCP connections one client address may hold open (more are closed at once).
    #[arg(long, env = "SKAT_MAX_CONNECTIONS_PER_CLIENT", default_value_t = 64)]
    pub max_connections_per_client: usize,
    /// Make every table private: JoinTable needs the join code CreateTable returns, so
    /// strangers cannot take seats (use with --create-token).
    #[arg(long, env = "SKAT_PRIVATE_TABLES")]
    pub private_tables: bool,
    /// Largest gRPC request in bytes (valid requests are under 1 KiB).
    #[arg(long, env = "SKAT_MAX_MESSAGE_BYTES", default_value_t = 16 * 1024)]
    pub max_message_bytes: usize,
    /// How long a table is kept after it finished or after its last action, e.g. `1h`.
    #[arg(long, env = "SKAT_TABLE_EXPIRY", default_value = "1h", value_parser = humantime::parse_duration)]
    pub table_expiry: Duration,
    /// Default per-action time limit for new tables, e.g. `30s` (`0s`: none).
    #[arg(long, env = "SKAT_ACTION_TIMEOUT", default_value = "30s", value_parser = humantime::parse_duration)]
    pub action_timeout: Duration,
    /// Default per-seat clock for one deal, e.g. `2m` (`0s`: none).
    #[arg(long, env = "SKAT_DEAL_CLOCK", default_value = "2m", value_parser = humantime::parse_duration)]
    pub deal_clock: Duration,
    /// If set, CreateTable requires `authorization: Bearer <this token>`.
    #[arg(long, env = "SKAT_CREATE_TOKEN", hide_env_values = true)]
    pub create_token: Option<String>,
    /// After SIGTERM, keep serving this long with health NOT_SERVING before stopping.
    #[arg(long, env = "SKAT_DRAIN", default_value = "0s", value_parser = humantime::parse_duration)]
    pub drain: Duration,
    /// After the drain, how long open requests and streams get before every connection
    /// is closed, whatever the clients do.
    #[arg(long, env = "SKAT_SHUTDOWN_GRACE", default_value = "3s", value_parser = humantime::parse_duration)]
    pub shutdown_grace: Duration,
    /// Log format.
    #[arg(long, env = "SKAT_LOG_FORMAT", value_enum, default_value = "text")]
    pub log_format: LogFormat,
    /// This replica's name when several run (e.g. the pod name `skat-1`); table ids then
    /// start with it, and with a shared PostgreSQL database the replica holds a lease
    /// there: any replica redirects clients to a table's owner.
    #[arg(long, env = "SKAT_NODE_ID")]
    pub node_id: Option<String>,
    /// With --node-id and a database: how long this replica's lease lasts unless renewed
    /// (every commit and every quarter of it renews it). When a replica dies, a live one
    /// takes its waiting and playing tables over within about 1.25 times this. PostgreSQL
    /// ends a transaction of this replica left idle for half of it (a frozen process).
    #[arg(long, env = "SKAT_REPLICA_LEASE", default_value = "10s", value_parser = humantime::parse_duration)]
    pub replica_lease: Duration,
    /// Other replicas, `NODE=HOST:PORT` (repeat, or comma-separate in SKAT_PEERS).
    #[arg(long = "peer", env = "SKAT_PEERS", value_delimiter = ',')]
    pub peers: Vec<String>,
    /// Address of any replica from its name: `{node}` is replaced, e.g.
    /// `{node}.skat-headless.skat.svc.cluster.local:50051`.
    #[arg(long, env = "SKAT_PEER_ADDRESS_TEMPLATE")]
    pub peer_address_template: Option<String>,
    /// Where tables are journaled: `sqlite` (a file in --data-dir), `memory` (nothing is
    /// kept: a restart loses every table), or `postgres://USER:PASSWORD@HOST/DB` (shared by
    /// replicas). Every OK is durable before it is sent; a restart brings tables back.
    #[arg(long, env = "SKAT_DATABASE", default_value = "sqlite", hide_env_values = true)]
    pub database: String,
    /// The directory of the SQLite database (`skat.db`). With --demo and no --data-dir, a
    /// temporary directory that is removed on exit.
    #[arg(long, env = "SKAT_DATA_DIR")]
    pub data_dir: Option<PathBuf>,
    /// How long records of finished and abandoned tables are kept in the database
    /// (`keep`: for ever; e.g. `30d`).
    #[arg(long, env = "SKAT_RETENTION", default_value = "keep", value_parser = parse_retention)]
    pub retention: Retention,
    /// Under load (the last commit carried several changes), how long the journal waits
    /// to gather more into one commit, e.g. `2ms`: less CPU per deal for up to that much
    /// latency per action; `0s`: commit at once. Every OK stays durable.
    #[arg(long, env = "SKAT_JOURNAL_GATHER", default_value = "0s", value_parser = humantime::parse_duration)]
    pub journal_gather: Duration,
    /// The operator's token for admin calls (CreateTournament, and RegisterBot with
    /// `--registration admin`). Without it nobody can create tournaments.
    #[arg(long, env = "SKAT_ADMIN_TOKEN", hide_env_values = true)]
    pub admin_token: Option<String>,
    /// Who may register bot accounts: `open` (anybody) or `admin` (with the admin token).
    #[arg(long, env = "SKAT_REGISTRATION", default_value = "open", value_parser = ["open", "admin"])]
    pub registration: String,
    /// What clients without a token may do: `play` (create tables, take seats, watch),
    /// `spectate` (watch and read; tables need --create-token or the admin token, seats
    /// come through bot accounts' lobbies), `none` (reading needs a bot token or the admin
    /// token; watching a table needs a seat token).
    #[arg(long, env = "SKAT_ANONYMOUS", default_value = "play")]
    pub anonymous: skat_server::Anonymous,
    /// Tables at once a new bot account may play (`skat admin set-quota` changes one).
    #[arg(long, env = "SKAT_ACCOUNT_MAX_TABLES", default_value_t = 8, value_parser = clap::value_parser!(u32).range(1..=1000))]
    pub account_max_tables: u32,
    /// Lobby streams one bot account may hold open at once.
    #[arg(long, env = "SKAT_ACCOUNT_MAX_LOBBIES", default_value_t = 4)]
    pub account_max_lobbies: usize,
    /// Deals per list of a casual meeting (bots that ask their lobby for casual play are
    /// matched as they arrive; 0: the standard 36 or 48).
    #[arg(long, env = "SKAT_CASUAL_DEALS", default_value_t = 0)]
    pub casual_deals: u32,
    /// Challenges one bot account may make per hour (Challenge).
    #[arg(long, env = "SKAT_CHALLENGES_PER_HOUR", default_value_t = 20, value_parser = clap::value_parser!(u32).range(1..=10_000))]
    pub challenges_per_hour: u32,
    /// Host built-in opponents as bot accounts, always there, accepting every challenge:
    /// comma-separated strategies (the ladder: random, heuristic, pimc-fast, pimc,
    /// pimc-bold; names without settings), each the account `house-NAME` (a name only the
    /// admin token registers). Needs a database and --admin-token; plays over loopback in
    /// plain text (with TLS run `skat house-bots --server https://...` beside the server).
    #[arg(long, env = "SKAT_HOUSE_BOTS", value_delimiter = ',', conflicts_with = "tls_cert")]
    pub house_bots: Vec<String>,
    #[command(flatten)]
    pub house_budget: super::house::Budget,
    /// Tables analysed at once for AnalyzeTable, one core each (0: AnalyzeTable is
    /// refused). Analysis runs beside play on the blocking pool.
    #[arg(long, env = "SKAT_ANALYSIS_WORKERS", default_value_t = 1, value_parser = clap::value_parser!(u32).range(0..=64))]
    pub analysis_workers: u32,
    /// Tables waiting for analysis at most (more are refused with ANALYSIS_BUSY).
    #[arg(long, env = "SKAT_ANALYSIS_QUEUE", default_value_t = 16, value_parser = clap::value_parser!(u32).range(1..=10_000))]
    pub analysis_queue: u32,
    /// Worlds per card for the verdict on what the player knew (0: cards open only,
    /// about 16 times less work). docs/analysis.md.
    #[arg(long, env = "SKAT_ANALYSIS_WORLDS", default_value_t = 16, value_parser = clap::value_parser!(u32).range(0..=256))]
    pub analysis_worlds: u32,
    /// Solver nodes per card over all its worlds (10-17 M a second on one core): bounds
    /// the time of the hardest cards.
    #[arg(long, env = "SKAT_ANALYSIS_NODES", default_value_t = 4_000_000, value_parser = clap::value_parser!(u64).range(10_000..=1_000_000_000))]
    pub analysis_nodes: u64,
    /// Also serve gRPC (the game service and health) on this Unix socket: a hosted bot's
    /// sandbox gets it mounted as its only way out (docs/hosted-bots.md).
    #[arg(long, env = "SKAT_UNIX_SOCKET")]
    pub unix_socket: Option<PathBuf>,
    /// A file holding the runner token: the runner of hosted bots follows the feed of
    /// their seats with it (`skat runner --runner-token-file`). Without it no runner may.
    #[arg(long, env = "SKAT_RUNNER_TOKEN_FILE")]
    pub hosting_runner_token_file: Option<PathBuf>,
    /// New versions of hosted bots wait for the operator's approval
    /// (`skat admin approve-version`) before they play.
    #[arg(long, env = "SKAT_HOSTING_APPROVAL")]
    pub hosting_approval: bool,
    /// Largest image archive a hosted bot may submit, in bytes.
    #[arg(long, env = "SKAT_HOSTING_MAX_IMAGE_BYTES", default_value_t = 512 * 1024 * 1024)]
    pub hosting_max_image_bytes: u64,
    /// CPU of a hosted bot's sandbox, in millicores (requests = limits).
    #[arg(long, env = "SKAT_HOSTING_CPU_MILLIS", default_value_t = 1000, value_parser = clap::value_parser!(u32).range(100..=64_000))]
    pub hosting_cpu_millis: u32,
    /// Memory of a hosted bot's sandbox, in MiB.
    #[arg(long, env = "SKAT_HOSTING_MEMORY_MIB", default_value_t = 512, value_parser = clap::value_parser!(u32).range(16..=65_536))]
    pub hosting_memory_mib: u32,
    /// Run the runner of hosted bots in this process: `podman` (needs --unix-socket and
    /// --hosting-runner-token-file; the sandbox settings are `skat runner`'s). On
    /// Kubernetes the runner is its own Deployment (`skat runner --engine kubernetes`),
    /// so that the server's Pods hold no rights on the API.
    #[arg(long, value_parser = ["podman"])]
    pub runner: Option<String>,
    /// Where the in-process runner keeps its files (default: `runner/` in --data-dir).
    #[arg(long)]
    pub runner_dir: Option<PathBuf>,
    /// The in-process runner's OCI runtime for podman (`runc`, `crun`, `runsc`).
    #[arg(long)]
    pub runner_oci_runtime: Option<String>,
    /// The cores the in-process runner's sandboxes run on (`1`, `2-7`; default: any).
    #[arg(long)]
    pub runner_sandbox_cpuset: Option<String>,
    /// The in-process runner's wall-clock limit per sandbox.
    #[arg(long, default_value = "6h", value_parser = humantime::parse_duration)]
    pub runner_sandbox_wall: Duration,
    /// Also play a live demo: three built-in bots play a list at one table, printed here
    /// as it happens, and an open table waits for your bots (on plain text: not with TLS).
    #[arg(long, conflicts_with = "tls_cert")]
    pub demo: bool,
    /// How long the demo bots think before each decision.
    #[arg(long, default_value = "300ms", value_parser = humantime::parse_duration)]
    pub demo_delay: Duration,
    /// Seed of the demo's deals.
    #[arg(long, default_value_t = 1)]
    pub demo_seed: u64,
}

/// `--retention`: `keep` or a duration.
#[derive(Debug, Clone, Copy)]
pub struct Retention(pub Option<Duration>);

fn parse_retention(s: &str) -> Result<Retention, String> {
    match s {
        "keep" | "forever" | "" => Ok(Retention(None)),
        d => humantime::parse_duration(d)
            .map(|d| Retention(Some(d)))
            .map_err(|e| format!("`keep` or a duration: {e}")),
    }
}

/// The spectator page's address unless told otherwise.
const DEFAULT_WEB_ADDR: &str = "127.0.0.1:8080";

/// The default data directory.
pub const DATA_DIR: &str = "skat-data";

impl Args {
    /// The server settings these flags describe; `data_dir` is where SQLite keeps its file.
    pub fn config(&self, data_dir: PathBuf) -> Result<ServerConfig, Box<dyn std::error::Error>> {
        let metrics_addr = match self.metrics_addr.as_str() {
            "off" | "" => None,
            a => Some(a.parse().map_err(|e| format!("--metrics-addr {a}: {e}"))?),
        };
        let web_addr = match self.web_addr.as_deref().unwrap_or(DEFAULT_WEB_ADDR) {
            "off" | "" => None,
            a => Some(a.parse().map_err(|e| format!("--web-addr {a}: {e}"))?),
        };
        Ok(ServerConfig {
            addr: self.addr,
            metrics_addr,
            web_addr,
            web_addr_default: self.web_addr.is_none(),
            max_tables: self.max_tables,
            max_tables_per_client: self.max_tables_per_client,
            max_deals: self.max_deals,
            max_joins_per_table: self.max_joins,
            max_spectators_per_table: self.max_spectators,
            max_streams_per_seat: self.max_streams_per_seat,
            max_streams_per_client: self.max_streams_per_client,
            max_streams_per_connection: self.max_streams_per_connection,
            tls: self.tls(),
            trusted_proxies: self.trusted_proxies.clone(),
            forwarded_header: self.forwarded_header,
            stream_stall_timeout: self.stream_stall_timeout,
            max_concurrent_requests_per_connection: self.max_requests_per_connection,
            max_connections_per_client: self.max_connections_per_client,
            private_tables: self.private_tables,
            max_message_bytes: self.max_message_bytes,
            table_expiry: self.table_expiry,
            default_action_ms: self.action_timeout.as_millis() as u64,
            default_deal_ms: self.deal_clock.as_millis() as u64,
            create_token: self.create_token.clone().filter(|t| !t.is_empty()),
            drain: self.drain,
            shutdown_grace: self.shutdown_grace,
            server_name: "skat-server".into(),
            node_id: self.node_id.clone().filter(|n| !n.is_empty()),
            database: Database::from_setting(&self.database, data_dir.clone()),
            retention: self.retention.0,
            journal_gather: self.journal_gather,
            replica_lease: self.replica_lease,
            admin_token: self.admin_token.clone().filter(|t| !t.is_empty()),
            open_registration: self.registration == "open",
            anonymous: self.anonymous,
            account_max_tables: self.account_max_tables,
            account_max_lobbies: self.account_max_lobbies,
            casual_deals: self.casual_deals.min(self.max_deals),
            challenges_per_hour: self.challenges_per_hour as usize,
            analysis: skat_server::AnalysisConfig {
                workers: self.analysis_workers as usize,
                queue: self.analysis_queue as usize,
                worlds: self.analysis_worlds,
                nodes: self.analysis_nodes,
            },
            peers: self.peers()?,
            peer_address_template: self.peer_address_template.clone().filter(|t| !t.is_empty()),
            hosting: self.hosting(&data_dir)?,
            unix_socket: self.unix_socket.clone(),
        })
    }

    /// TLS, when a certificate and key are given.
    fn tls(&self) -> Option<TlsFiles> {
        let (cert, key) = (self.tls_cert.as_ref()?, self.tls_key.as_ref()?);
        Some(TlsFiles {
            cert: cert.clone(),
            key: key.clone(),
            client_ca: self.tls_client_ca.clone(),
            reload_every: self.tls_reload.max(Duration::from_millis(100)),
        })
    }

    /// `--peer NODE=HOST:PORT`, each.
    fn peers(&self) -> Result<Vec<(String, String)>, String> {
        self.peers
            .iter()
            .filter(|p| !p.is_empty())
            .map(|p| {
                p.split_once('=')
                    .map(|(n, a)| (n.trim().to_string(), a.trim().to_string()))
                    .ok_or_else(|| format!("--peer {p}: expected NODE=HOST:PORT"))
            })
            .collect()
    }

    /// Hosted bots: archives beside the journal, the runner token from its file.
    fn hosting(
        &self,
        data_dir: &std::path::Path,
    ) -> Result<skat_server::HostingConfig, Box<dyn std::error::Error>> {
        Ok(skat_server::HostingConfig {
            images_dir: match self.database.as_str() {
                "memory" => None,
                _ => Some(data_dir.join("images")),
            },
            max_image_bytes: self.hosting_max_image_bytes,
            approval: self.hosting_approval,
            runner_token: match &self.hosting_runner_token_file {
                Some(f) => Some(super::runner::token_of(None, Some(f))?).filter(|t| !t.is_empty()),
                None => None,
            },
            cpu_millis: self.hosting_cpu_millis,
            memory_mib: self.hosting_memory_mib,
            ..Default::default()
        })
    }
}

/// `--runner podman`: the runner's settings, following this server over loopback.
fn in_process_runner(
    args: &Args,
    config: &ServerConfig,
    addr: SocketAddr,
) -> Result<Option<skat_host::RunnerConfig>, Box<dyn std::error::Error>> {
    if args.runner.is_none() {
        return Ok(None);
    }
    let (Some(socket), Some(token)) = (&config.unix_socket, &config.hosting.runner_token) else {
        return Err(
            "--runner needs --unix-socket (the sandboxes' way to the server) and --hosting-runner-token-file"
                .into(),
        );
    };
    let mut at = addr;
    if at.ip().is_unspecified() {
        at.set_ip(if at.is_ipv4() { [127, 0, 0, 1].into() } else { std::net::Ipv6Addr::LOCALHOST.into() });
    }
    let scheme = if config.tls.is_some() { "https" } else { "http" };
    let work_dir = match (&args.runner_dir, &config.hosting.images_dir) {
        (Some(d), _) => d.clone(),
        (None, Some(images)) => images.with_file_name("runner"),
        (None, None) => std::env::temp_dir().join(format!("skat-runner-{}", std::process::id())),
    };
    let sandbox = super::runner::SandboxArgs {
        engine: super::runner::EngineKind::Podman,
        socket: Some(socket.clone()),
        work_dir,
        podman: PathBuf::from("podman"),
        oci_runtime: args.runner_oci_runtime.clone(),
        kube_namespace: String::new(),
        sandbox_server: None,
        sandbox_ca_file: None,
        sandbox_wall: args.runner_sandbox_wall,
        sandbox_pids: 64,
        sandbox_tmp_mib: 16,
        sandbox_cpuset: args.runner_sandbox_cpuset.clone(),
    };
    let server = skat_sdk::ServerAddress::new(&format!("{scheme}://{at}"));
    let engine = skat_host::Engine::Podman(skat_host::Podman {
        program: sandbox.podman.clone(),
        runtime: sandbox.oci_runtime.clone(),
    });
    let limits = sandbox.limits();
    Ok(Some(skat_host::RunnerConfig {
        server,
        token: token.clone(),
        name: "in-process".into(),
        engine,
        limits,
    }))
}

/// Removes a temporary directory when dropped.
struct RemoveOnDrop(PathBuf);

impl Drop for RemoveOnDrop {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// The first line a person reads: where the server listens and keeps its tables.
fn announce(server: &skat_server::RunningServer, database: &str, tls: bool) {
    let recovered = &server.recovered;
    let scheme = if tls { "https" } else { "http" };
    eprintln!(
        "skat server listening on {} (gRPC{}){}{}; tables journaled to {database}{}",
        server.addr,
        if tls { ", TLS" } else { ", plain text" },
        match server.metrics_addr {
            Some(m) => format!(", metrics on http://{m}/metrics"),
            None => String::new(),
        },
        match server.web_addr {
            Some(w) => format!(", the page on {scheme}://{w}/"),
            None => String::new(),
        },
        if recovered.tables > 0 {
            format!(" ({} tables recovered in {} ms)", recovered.tables, recovered.took.as_millis())
        } else {
            String::new()
        }
    );
}

/// What the demo prints once its table with open seats exists.
fn demo_hint(a: SocketAddr) -> impl Fn(&str) + Send + Sync + 'static {
    move |open: &str| {
        outln!(
            "\nConnect a bot of your own (docs/writing-a-bot.md). Table {open} has three open seats:\n  \
         cargo run --release -q -p skat-cli -- bot --server http://{a} --table {open}    # Rust\n  \
         pip install ./clients/python && python -m skat_bot --server {a} --table {open}    # Python SDK\n  \
         (cd clients/typescript && npm ci) && node clients/typescript/dist/src/main.js --server {a} --table {open}    # TypeScript SDK\n  \
         cargo run --release -q -p skat-cli -- watch {open} --server http://{a}    # watch it\n  \
         buf curl --protocol grpc --http2-prior-knowledge --list-methods http://{a}    # any gRPC tool: reflection is on\n\n\
         Live demo: Anna and Bernd (heuristic) and Chris (random) play a list of 36 deals."
        )
    }
}

/// The server as this machine reaches it over loopback (an unspecified address named).
fn loopback(addr: SocketAddr) -> skat_sdk::ServerAddress {
    let mut at = addr;
    if at.ip().is_unspecified() {
        at.set_ip(if at.is_ipv4() { [127, 0, 0, 1].into() } else { std::net::Ipv6Addr::LOCALHOST.into() });
    }
    skat_sdk::ServerAddress::new(&format!("http://{at}"))
}

pub fn run(args: Args) -> CmdResult {
    if args.demo && std::env::var_os("RUST_LOG").is_none() {
        // The console belongs to the demo: only warnings from the server.
        // SAFETY of intent: set before any thread starts.
        unsafe { std::env::set_var("RUST_LOG", "warn") };
    }
    init_tracing(args.log_format);
    // The demo keeps its tables in a temporary directory unless told otherwise: a demo
    // restarted tomorrow should not find yesterday's tables.
    let temporary = (args.demo && args.data_dir.is_none())
        .then(|| std::env::temp_dir().join(format!("skat-demo-{}", std::process::id())));
    let _cleanup = temporary.clone().map(RemoveOnDrop);
    let data_dir = args.data_dir.clone().or(temporary).unwrap_or_else(|| PathBuf::from(DATA_DIR));
    let config = args.config(data_dir)?;
    if !args.house_bots.is_empty() {
        skat_host::house::check(&args.house_bots)?;
        if config.admin_token.is_none() || config.database == skat_server::Database::Memory {
            return Err(
                "--house-bots needs --admin-token and a database (their accounts are kept in it)".into()
            );
        }
    }
    let database = config.database.describe();
    let tls = config.tls.is_some();
    let config_for_runner = config.clone();
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build()?;
    runtime.block_on(async {
        let server = skat_server::start(config, shutdown_signal()).await?;
        announce(&server, &database, tls);
        if let Some(web) = server.web_addr {
            outln!("watch in a browser: {}", skat_server::page_url(web, tls));
        }
        if args.demo {
            super::demo::start(server.addr, args.demo_delay, args.demo_seed, demo_hint(server.addr)).await?;
        }
        if !args.house_bots.is_empty() {
            let admin = args.admin_token.clone().unwrap_or_default();
            skat_host::house::spawn(loopback(server.addr), admin, args.house_bots.clone(), args.house_budget.into())?;
        }
        let runner = match in_process_runner(&args, &config_for_runner, server.addr)? {
            Some(config) => {
                let (tx, rx) = tokio::sync::watch::channel(false);
                let task = tokio::spawn(skat_host::run(config, rx));
                Some((tx, task))
            }
            None => None,
        };
        let journal_failed = server.journal_failed.clone();
        server.task.await??;
        if let Some((tx, task)) = runner {
            let _ = tx.send(true);
            if let Ok(Err(e)) = task.await {
                tracing::error!(error = %e, "the runner stopped");
            }
        }
        if *journal_failed.borrow() {
            return Err("the journal could not write to the database, or this replica lost its lease to another (the log says which); restart to recover from it".into());
        }
        tracing::info!("server stopped");
        Ok::<_, Box<dyn std::error::Error>>(())
    })?;
    Ok(ExitCode::SUCCESS)
}
