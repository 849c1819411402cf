//! Server settings. The CLI maps its flags and `SKAT_*` environment variables onto
//! [`ServerConfig`]; tests build one directly.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

/// Where tables are journaled.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Database {
    /// Nowhere: tables live in memory and are lost with the process (benchmarks, tests).
    Memory,
    /// An embedded SQLite database in this directory (`skat.db`).
    Sqlite(PathBuf),
    /// A database URL: `postgres://...` (shared by replicas) or `sqlite://FILE`.
    Url(String),
}

impl Database {
    /// From the `--database` setting: `memory`, `sqlite` (in `data_dir`), or a URL.
    pub fn from_setting(setting: &str, data_dir: PathBuf) -> Database {
        match setting {
            "memory" => Database::Memory,
            "sqlite" | "" => Database::Sqlite(data_dir),
            url => Database::Url(url.to_string()),
        }
    }

    /// For logs: the kind and place, without any password.
    pub fn describe(&self) -> String {
        match self {
            Database::Memory => "memory (no journal: tables are lost on exit)".into(),
            Database::Sqlite(dir) => format!("sqlite in {}", dir.join("skat.db").display()),
            Database::Url(url) => match url.split_once("://") {
                Some((scheme, rest)) => {
                    let host = rest.rsplit_once('@').map_or(rest, |(_, h)| h);
                    format!("{scheme}://{host}")
                }
                None => "a database".into(),
            },
        }
    }
}

/// What a client without credentials may do (`--anonymous`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Anonymous {
    /// Create tables, take seats, watch (the default).
    #[default]
    Play,
    /// Watch and read only: tables are created with the create or admin token, and seats
    /// come through a bot account's lobby.
    Spectate,
    /// Nothing: reading needs the admin token or a bot token, watching a table a seat token.
    Nothing,
}

impl std::str::FromStr for Anonymous {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "play" => Ok(Anonymous::Play),
            "spectate" => Ok(Anonymous::Spectate),
            "none" => Ok(Anonymous::Nothing),
            other => Err(format!("--anonymous is play, spectate or none, not `{other}`")),
        }
    }
}

impl std::fmt::Display for Anonymous {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Anonymous::Play => "play",
            Anonymous::Spectate => "spectate",
            Anonymous::Nothing => "none",
        })
    }
}

/// Where a trusted proxy names the client (`--forwarded-header`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ForwardedHeader {
    /// `x-forwarded-for` (nginx, HAProxy, ingress-nginx, Envoy, most load balancers).
    #[default]
    XForwardedFor,
    /// `forwarded` (RFC 7239), its `for=` parameters.
    Forwarded,
}

impl std::str::FromStr for ForwardedHeader {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        match s.to_ascii_lowercase().as_str() {
            "x-forwarded-for" => Ok(ForwardedHeader::XForwardedFor),
            "forwarded" => Ok(ForwardedHeader::Forwarded),
            other => Err(format!("--forwarded-header is x-forwarded-for or forwarded, not `{other}`")),
        }
    }
}

impl std::fmt::Display for ForwardedHeader {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            ForwardedHeader::XForwardedFor => "x-forwarded-for",
            ForwardedHeader::Forwarded => "forwarded",
        })
    }
}

/// TLS on the gRPC and web ports: PEM files, read at start and again whenever they
/// change (cert-manager rotates them in place).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TlsFiles {
    /// The certificate chain, leaf first.
    pub cert: PathBuf,
    /// Its private key (PKCS#8, PKCS#1 or SEC1).
    pub key: PathBuf,
    /// When set, every client must present a certificate this CA signed (mutual TLS).
    pub client_ca: Option<PathBuf>,
    /// How often the files are looked at for a change.
    pub reload_every: Duration,
}

/// Everything `skat serve` can be told.
#[derive(Debug, Clone)]
pub struct ServerConfig {
    /// Where to listen for gRPC.
    pub addr: SocketAddr,
    /// Where to serve Prometheus metrics (`None`: not served).
    pub metrics_addr: Option<SocketAddr>,
    /// Where to serve the spectator page and gRPC-Web (`None`: not served).
    pub web_addr: Option<SocketAddr>,
    /// TLS on both ports (`None`: plain text).
    pub tls: Option<TlsFiles>,
    /// Proxies whose `forwarded_header` names the real client: from these peers (only),
    /// per-address limits and log lines use the address the proxy names, and their own
    /// connections are not counted per address.
    pub trusted_proxies: Vec<ipnet::IpNet>,
    /// The one header a trusted proxy names the client in (the other is ignored: a proxy
    /// appends to the header it knows and passes the other on as the client wrote it).
    pub forwarded_header: ForwardedHeader,
    /// When `web_addr` is only the default: if it is taken (another server on this
    /// machine), the page is left out with a warning instead of the start failing.
    pub web_addr_default: bool,
    /// Most tables held at once (finished ones count until they expire).
    pub max_tables: usize,
    /// Most tables one client address may hold at once (created by it and not yet expired).
    pub max_tables_per_client: usize,
    /// Most deals a table may be created with.
    pub max_deals: u32,
    /// Most joins in one table's life. Every join and leave is an event in the table's
    /// log, so this bounds what join/leave loops can add to it (at most twice this).
    pub max_joins_per_table: usize,
    /// Most spectator streams (no token) per table. Seats' own streams do not count.
    pub max_spectators_per_table: usize,
    /// Most streams one seat token may hold open at once.
    pub max_streams_per_seat: usize,
    /// Most watch streams one client address may hold open at once.
    pub max_streams_per_client: usize,
    /// Most streams (WatchTable, Lobby) one connection may carry at once; more are
    /// refused with RESOURCE_EXHAUSTED (a proxy trusted with `trusted_proxies` is exempt:
    /// it carries many clients, each counted by its own address).
    pub max_streams_per_connection: usize,
    /// A stream whose reader has not taken an event for this long while events wait is
    /// ended with RESOURCE_EXHAUSTED (the reader resumes with `after_seq`).
    pub stream_stall_timeout: Duration,
    /// Most calls being answered at once on one connection (more wait their turn; open
    /// streams are counted by `max_streams_per_connection`).
    pub max_concurrent_requests_per_connection: usize,
    /// Most TCP connections one client address may hold open; more are closed at once.
    pub max_connections_per_client: usize,
    /// Every table needs its join code (from CreateTable) to take a seat.
    pub private_tables: bool,
    /// Largest gRPC request accepted, in bytes (the largest valid one is under 1 KiB).
    pub max_message_bytes: usize,
    /// How long a table is kept after it finished, or after its last action.
    pub table_expiry: Duration,
    /// Time control for tables that do not choose one.
    pub default_action_ms: u64,
    /// Deal clock for tables that do not choose one.
    pub default_deal_ms: u64,
    /// If set, CreateTable needs `authorization: Bearer <this>`.
    pub create_token: Option<String>,
    /// After SIGTERM, how long to keep serving while health reports NOT_SERVING, so that
    /// load balancers stop sending new tables before the server goes away.
    pub drain: Duration,
    /// After the drain, how long in-flight requests and streams get to finish before the
    /// server closes every connection whatever the clients do.
    pub shutdown_grace: Duration,
    /// The name written into records (`PC[...]`).
    pub server_name: String,
    /// This replica's name (e.g. the StatefulSet pod name `skat-1`). When set, table ids
    /// start with it (`skat-1.3f9ab2c4d5e6`), so any replica can tell who owns a table.
    pub node_id: Option<String>,
    /// The operator's token for admin calls (CreateTournament; RegisterBot unless
    /// registration is open).
    pub admin_token: Option<String>,
    /// Anybody may register a bot account (else only with the admin token).
    pub open_registration: bool,
    /// What clients without credentials may do.
    pub anonymous: Anonymous,
    /// Tables at once a new bot account may play (its quota; UpdateBot changes one).
    pub account_max_tables: u32,
    /// Lobby streams one bot account may hold open at once.
    pub account_max_lobbies: usize,
    /// Deals per list of a casual meeting (0: the standard 36 or 48).
    pub casual_deals: u32,
    /// Where tables are journaled (see [`Database`]).
    pub database: Database,
    /// How long records of finished and abandoned tables are kept in the database
    /// (`None`: for ever).
    pub retention: Option<Duration>,
    /// Under load, how long the journal waits to gather more changes into one commit
    /// (zero: it commits what has arrived at once). Trades latency for CPU per deal.
    pub journal_gather: Duration,
    /// With a node id and a database: how long this replica's lease lasts unless
    /// renewed; when it runs out, another replica takes its waiting and playing tables
    /// over (see `journal::takeover`).
    pub replica_lease: Duration,
    /// Addresses of other replicas by node name (static deployments, tests).
    pub peers: Vec<(String, String)>,
    /// Address of any replica from its node name: `{node}` is replaced, e.g.
    /// `{node}.skat-headless.skat.svc.cluster.local:50051` with a headless Service.
    pub peer_address_template: Option<String>,
    /// AnalyzeTable's workers, queue and effort.
    pub analysis: AnalysisConfig,
    /// Challenges one account may make per hour.
    pub challenges_per_hour: usize,
    /// Hosted bots: submissions, the runner's token, sandbox sizes.
    pub hosting: HostingConfig,
    /// Also serve gRPC on this Unix socket (for sandboxes: the only way out of theirs).
    pub unix_socket: Option<PathBuf>,
}

/// Hosted bots (`skat serve --hosting-*`, docs/hosted-bots.md).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HostingConfig {
    /// Where submitted archives are kept (`None`: archives are refused; references to
    /// images in a registry are still taken).
    pub images_dir: Option<PathBuf>,
    /// Largest archive taken, in bytes.
    pub max_image_bytes: u64,
    /// New versions wait for the operator's approval before they play.
    pub approval: bool,
    /// The runner's token (`None`: no runner may follow the feed).
    pub runner_token: Option<String>,
    /// A sandbox's CPU (requests = limits), in millicores, unless a tournament says.
    pub cpu_millis: u32,
    /// A sandbox's memory, in MiB, unless a tournament says.
    pub memory_mib: u32,
    /// Versions kept per account (the oldest inactive, unpinned ones go first).
    pub versions_per_account: usize,
}

impl Default for HostingConfig {
    fn default() -> Self {
        HostingConfig {
            images_dir: None,
            max_image_bytes: 512 * 1024 * 1024,
            approval: false,
            runner_token: None,
            cpu_millis: 1000,
            memory_mib: 512,
            versions_per_account: 20,
        }
    }
}

impl ServerConfig {
    /// Where the replica `node` is reached, if known.
    pub fn peer_address(&self, node: &str) -> Option<String> {
        if let Some((_, a)) = self.peers.iter().find(|(n, _)| n == node) {
            return Some(a.clone());
        }
        self.peer_address_template.as_ref().map(|t| t.replace("{node}", node))
    }
}

impl Default for ServerConfig {
    fn default() -> Self {
        ServerConfig {
            addr: SocketAddr::from(([127, 0, 0, 1], 50051)),
            metrics_addr: None,
            web_addr: None,
            web_addr_default: false,
            tls: None,
            trusted_proxies: Vec::new(),
            forwarded_header: ForwardedHeader::XForwardedFor,
            max_tables: 1000,
            max_tables_per_client: 100,
            max_deals: 144,
            max_joins_per_table: 64,
            max_spectators_per_table: 64,
            max_streams_per_seat: 4,
            max_streams_per_client: 64,
            max_streams_per_connection: 100,
            stream_stall_timeout: Duration::from_secs(30),
            max_concurrent_requests_per_connection: 32,
            max_connections_per_client: 64,
            private_tables: false,
            max_message_bytes: 16 * 1024,
            table_expiry: Duration::from_secs(3600),
            default_action_ms: 30_000,
            default_deal_ms: 120_000,
            create_token: None,
            drain: Duration::ZERO,
            shutdown_grace: Duration::from_secs(3),
            server_name: "skat-server".into(),
            node_id: None,
            database: Database::Memory,
            retention: None,
            journal_gather: Duration::ZERO,
            replica_lease: Duration::from_secs(10),
            admin_token: None,
            open_registration: true,
            anonymous: Anonymous::Play,
            account_max_tables: 8,
            account_max_lobbies: 4,
            casual_deals: 0,
            peers: Vec::new(),
            peer_address_template: None,
            analysis: AnalysisConfig::default(),
            challenges_per_hour: 20,
            hosting: HostingConfig::default(),
            unix_socket: None,
        }
    }
}

/// How the server analyses (`skat serve --analysis-*`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AnalysisConfig {
    /// Tables analysed at once, one thread each (0: AnalyzeTable is refused).
    pub workers: usize,
    /// Tables waiting at most; more are refused with ANALYSIS_BUSY.
    pub queue: usize,
    /// Worlds per card for the verdict on what the player knew (0: cards open only).
    pub worlds: u32,
    /// Solver nodes per card over all its worlds.
    pub nodes: u64,
}

impl Default for AnalysisConfig {
    fn default() -> AnalysisConfig {
        AnalysisConfig { workers: 1, queue: 16, worlds: 16, nodes: 4_000_000 }
    }
}

impl AnalysisConfig {
    /// What a cached analysis was made with: another setting computes anew.
    pub(crate) fn settings(&self) -> String {
        format!("v1 worlds={} nodes={}", self.worlds, self.nodes)
    }
}
