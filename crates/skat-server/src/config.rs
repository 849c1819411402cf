//! Server settings: each defined once in [`ServerConfig`], with its `skat serve` flag and
//! `SKAT_*` variable (clap), which the CLI takes as they are; tests build one directly.

use skat_competition::{CompetitionConfig, HostingConfig};
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

/// Everything `skat serve` can be told. Each setting is defined here once, with its flag,
/// its `SKAT_*` variable, its default and its help text: `skat serve` takes these flags as
/// they are (`#[command(flatten)]`) and sets the few that need the command line's context
/// itself (the page's address, TLS files, the database and its directory, hosting);
/// [`ServerConfig::default`] is the library's and the tests' start (nothing served
/// beside gRPC, no database).
#[derive(Debug, Clone, clap::Args)]
pub struct ServerConfig {
    /// Address for gRPC.
    #[arg(long, env = "SKAT_ADDR", default_value = "127.0.0.1:50051")]
    pub addr: SocketAddr,
    /// Address for Prometheus metrics (`GET /metrics`) and the probes' health; `off` to
    /// disable.
    #[arg(long, env = "SKAT_METRICS_ADDR", default_value = "127.0.0.1:9090", value_parser = parse::address_or_off)]
    pub metrics_addr: std::option::Option<SocketAddr>,
    /// Where to serve the spectator page and gRPC-Web (`None`: not served): `skat serve
    /// --web-addr`.
    #[arg(skip)]
    pub web_addr: Option<SocketAddr>,
    /// TLS on both ports (`None`: plain text): `skat serve --tls-cert --tls-key`.
    #[arg(skip)]
    pub tls: Option<TlsFiles>,
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
    pub forwarded_header: ForwardedHeader,
    /// When `web_addr` is only the default: if it is taken (another server on this
    /// machine), the page is left out with a warning instead of the start failing.
    #[arg(skip)]
    pub web_addr_default: bool,
    /// Most tables held at once (finished ones count until they expire).
    #[arg(long, env = "SKAT_MAX_TABLES", default_value_t = 1000)]
    pub max_tables: usize,
    /// Most tables one client address may hold at once (created and not yet expired).
    #[arg(long, env = "SKAT_MAX_TABLES_PER_CLIENT", default_value_t = 100)]
    pub max_tables_per_client: usize,
    /// Most deals a new table may have.
    #[arg(long, env = "SKAT_MAX_DEALS", default_value_t = 144)]
    pub max_deals: u32,
    /// Most joins in one table's life (each join and leave is kept in its log, so this
    /// bounds what join/leave loops can add to it).
    #[arg(long = "max-joins", value_name = "MAX_JOINS", env = "SKAT_MAX_JOINS", default_value_t = 64)]
    pub max_joins_per_table: usize,
    /// Most spectator streams (without a seat token) per table; seats' own streams do
    /// not count against it.
    #[arg(
        long = "max-spectators",
        value_name = "MAX_SPECTATORS",
        alias = "max-watchers",
        env = "SKAT_MAX_SPECTATORS",
        default_value_t = 64
    )]
    pub max_spectators_per_table: usize,
    /// Most streams one seat token may hold open at once.
    #[arg(long, env = "SKAT_MAX_STREAMS_PER_SEAT", default_value_t = 4)]
    pub max_streams_per_seat: usize,
    /// Most watch streams one client address may hold open at once (a WatchTables stream
    /// and each of its watches count one each).
    #[arg(long, env = "SKAT_MAX_STREAMS_PER_CLIENT", default_value_t = 64)]
    pub max_streams_per_client: usize,
    /// Most streams (WatchTable, Lobby, WatchTables and each of its watches) one connection
    /// may carry at once; more are refused (RESOURCE_EXHAUSTED), never left waiting. A
    /// trusted proxy's connections are exempt.
    #[arg(long, env = "SKAT_MAX_STREAMS_PER_CONNECTION", default_value_t = 100)]
    pub max_streams_per_connection: usize,
    /// A stream whose reader takes no event for this long while events wait is ended
    /// (RESOURCE_EXHAUSTED; the client resumes with after_seq).
    #[arg(long, env = "SKAT_STREAM_STALL_TIMEOUT", default_value = "30s", value_parser = humantime::parse_duration)]
    pub stream_stall_timeout: Duration,
    /// Most calls being answered at once on one connection (more wait their turn; open
    /// streams are counted by --max-streams-per-connection instead).
    #[arg(
        long = "max-requests-per-connection",
        value_name = "MAX_REQUESTS",
        env = "SKAT_MAX_REQUESTS_PER_CONNECTION",
        default_value_t = 32
    )]
    pub max_concurrent_requests_per_connection: usize,
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
    #[arg(long = "action-timeout", value_name = "DURATION", env = "SKAT_ACTION_TIMEOUT", default_value = "30s", value_parser = parse::millis)]
    pub default_action_ms: u64,
    /// Default per-seat clock for one deal, e.g. `2m` (`0s`: none).
    #[arg(long = "deal-clock", value_name = "DURATION", env = "SKAT_DEAL_CLOCK", default_value = "2m", value_parser = parse::millis)]
    pub default_deal_ms: u64,
    /// If set, CreateTable requires `authorization: Bearer <this token>`.
    #[arg(long, env = "SKAT_CREATE_TOKEN", hide_env_values = true, default_value = "", hide_default_value = true, value_parser = parse::text_or_none)]
    pub create_token: std::option::Option<String>,
    /// After SIGTERM, keep serving this long with health NOT_SERVING before stopping.
    #[arg(long, env = "SKAT_DRAIN", default_value = "0s", value_parser = humantime::parse_duration)]
    pub drain: Duration,
    /// After the drain, how long open requests and streams get before every connection
    /// is closed, whatever the clients do.
    #[arg(long, env = "SKAT_SHUTDOWN_GRACE", default_value = "3s", value_parser = humantime::parse_duration)]
    pub shutdown_grace: Duration,
    /// The name written into records (`PC[...]`).
    #[arg(skip = String::from("skat-server"))]
    pub server_name: String,
    /// This replica's name when several run (e.g. the pod name `skat-1`); table ids then
    /// start with it, and with a shared PostgreSQL database the replica holds a lease
    /// there: any replica redirects clients to a table's owner.
    #[arg(long, env = "SKAT_NODE_ID", default_value = "", hide_default_value = true, value_parser = parse::text_or_none)]
    pub node_id: std::option::Option<String>,
    /// The operator's token for admin calls (CreateTournament, and RegisterBot with
    /// `--registration admin`). Without it nobody can create tournaments.
    #[arg(long, env = "SKAT_ADMIN_TOKEN", hide_env_values = true, default_value = "", hide_default_value = true, value_parser = parse::text_or_none)]
    pub admin_token: std::option::Option<String>,
    /// Who may register bot accounts: `open` (anybody) or `admin` (with the admin token).
    #[arg(long = "registration", value_name = "open|admin", action = clap::ArgAction::Set, env = "SKAT_REGISTRATION", default_value = "open", value_parser = parse::registration)]
    pub open_registration: bool,
    /// What clients without a token may do: `play` (create tables, take seats, watch),
    /// `spectate` (watch and read; tables need --create-token or the admin token, seats
    /// come through bot accounts' lobbies), `none` (reading needs a bot token or the admin
    /// token; watching a table needs a seat token).
    #[arg(long, env = "SKAT_ANONYMOUS", default_value = "play")]
    pub anonymous: Anonymous,
    /// Tables at once a new bot account may play (`skat admin set-quota` changes one).
    #[arg(long, env = "SKAT_ACCOUNT_MAX_TABLES", default_value_t = 8, value_parser = clap::value_parser!(u32).range(1..=1000))]
    pub account_max_tables: u32,
    /// Lobby streams one bot account may hold open at once.
    #[arg(long, env = "SKAT_ACCOUNT_MAX_LOBBIES", default_value_t = 4)]
    pub account_max_lobbies: usize,
    /// Deals per list of a casual meeting (bots that ask their lobby for casual play are
    /// matched as they arrive; 0: the standard 36 or 48; at most --max-deals).
    #[arg(long, env = "SKAT_CASUAL_DEALS", default_value_t = 0)]
    pub casual_deals: u32,
    /// Where tables are journaled: `skat serve --database --data-dir`.
    #[arg(skip = Database::Memory)]
    pub database: Database,
    /// How long records of finished and abandoned tables are kept in the database
    /// (`keep`: for ever; e.g. `30d`).
    #[arg(long, env = "SKAT_RETENTION", default_value = "keep", value_parser = parse::retention)]
    pub retention: std::option::Option<Duration>,
    /// Under load (the last commit carried several changes), how long the journal waits
    /// to gather more into one commit, e.g. `2ms`: less CPU per deal for up to that much
    /// latency per action; `0s`: commit at once. Every OK stays durable.
    #[arg(long, env = "SKAT_JOURNAL_GATHER", default_value = "0s", value_parser = humantime::parse_duration)]
    pub journal_gather: Duration,
    /// With --node-id and a database: how long this replica's lease lasts unless renewed
    /// (every commit and every quarter of it renews it). When a replica dies, a live one
    /// takes its waiting and playing tables over within about 1.25 times this. PostgreSQL
    /// ends a transaction of this replica left idle for half of it (a frozen process).
    #[arg(long, env = "SKAT_REPLICA_LEASE", default_value = "10s", value_parser = humantime::parse_duration)]
    pub replica_lease: Duration,
    /// Other replicas, `NODE=HOST:PORT` (repeat, or comma-separate in SKAT_PEERS).
    #[arg(long = "peer", value_name = "NODE=HOST:PORT", env = "SKAT_PEERS", value_delimiter = ',', value_parser = parse::peer)]
    pub peers: Vec<(String, String)>,
    /// Address of any replica from its name: `{node}` is replaced, e.g.
    /// `{node}.skat-headless.skat.svc.cluster.local:50051`.
    #[arg(long, env = "SKAT_PEER_ADDRESS_TEMPLATE", default_value = "", hide_default_value = true, value_parser = parse::text_or_none)]
    pub peer_address_template: std::option::Option<String>,
    /// AnalyzeTable's workers, queue and effort.
    #[command(flatten)]
    pub analysis: AnalysisConfig,
    /// Challenges one bot account may make per hour (Challenge).
    #[arg(long, env = "SKAT_CHALLENGES_PER_HOUR", default_value_t = 20, value_parser = parse::at_least_one)]
    pub challenges_per_hour: usize,
    /// Hosted bots: submissions, the runner's token, sandbox sizes: `skat serve
    /// --hosting-*`.
    #[arg(skip)]
    pub hosting: HostingConfig,
    /// Also serve gRPC (the game service and health) on this Unix socket, for clients on
    /// this machine (a bot author trying an image, an operator's tools). It is never
    /// mounted into a hosted bot's sandbox: each gets a socket of its own
    /// (`--hosting-socket-dir`, docs/hosted-bots.md).
    #[arg(long, env = "SKAT_UNIX_SOCKET")]
    pub unix_socket: Option<PathBuf>,
}

/// The parsers of the flags whose text is not their value's.
mod parse {
    use std::net::SocketAddr;
    use std::time::Duration;

    /// An address, or `off` (and empty) for none.
    pub(super) fn address_or_off(s: &str) -> Result<Option<SocketAddr>, String> {
        match s {
            "off" | "" => Ok(None),
            a => a
                .parse()
                .map(Some)
                .map_err(|e| format!("`{a}`: {e} (an address such as 127.0.0.1:9090, or off)")),
        }
    }

    /// A duration (`30s`, `2m`) in milliseconds.
    pub(super) fn millis(s: &str) -> Result<u64, String> {
        humantime::parse_duration(s).map(|d| d.as_millis() as u64).map_err(|e| e.to_string())
    }

    /// `keep` (for ever) or a duration.
    pub(super) fn retention(s: &str) -> Result<Option<Duration>, String> {
        match s {
            "keep" | "forever" | "" => Ok(None),
            d => humantime::parse_duration(d).map(Some).map_err(|e| format!("`keep` or a duration: {e}")),
        }
    }

    /// Text, or none when empty (an empty `SKAT_ADMIN_TOKEN` is no token, not the empty
    /// one).
    pub(super) fn text_or_none(s: &str) -> Result<Option<String>, String> {
        Ok(Some(s.to_string()).filter(|t| !t.is_empty()))
    }

    /// `open` or `admin`: whether anybody may register.
    pub(super) fn registration(s: &str) -> Result<bool, String> {
        match s {
            "open" => Ok(true),
            "admin" => Ok(false),
            other => Err(format!("`open` or `admin`, not `{other}`")),
        }
    }

    /// `NODE=HOST:PORT`.
    pub(super) fn peer(s: &str) -> Result<(String, String), String> {
        s.split_once('=')
            .map(|(n, a)| (n.trim().to_string(), a.trim().to_string()))
            .ok_or_else(|| format!("`{s}`: expected NODE=HOST:PORT"))
    }

    /// A count from 0 to `MAX`.
    pub(super) fn up_to<const MAX: usize>(s: &str) -> Result<usize, String> {
        match s.parse::<usize>() {
            Ok(n) if n <= MAX => Ok(n),
            _ => Err(format!("`{s}`: a number from 0 to {MAX}")),
        }
    }

    /// A count from 1 to 10,000.
    pub(super) fn at_least_one(s: &str) -> Result<usize, String> {
        match s.parse::<usize>() {
            Ok(n) if (1..=10_000).contains(&n) => Ok(n),
            _ => Err(format!("`{s}`: a number from 1 to 10000")),
        }
    }
}

impl ServerConfig {
    /// The limits the tables enforce, out of these settings.
    pub fn table_limits(&self) -> skat_table::TableLimits {
        skat_table::TableLimits {
            max_deals: self.max_deals,
            default_action_ms: self.default_action_ms,
            default_deal_ms: self.default_deal_ms,
            max_spectators_per_table: self.max_spectators_per_table,
            max_streams_per_seat: self.max_streams_per_seat,
        }
    }

    /// Where the replica `node` is reached, if known.
    pub fn peer_address(&self, node: &str) -> Option<String> {
        self.competition().peer_address(node)
    }

    /// The settings the competition services read, out of these settings.
    pub fn competition(&self) -> CompetitionConfig {
        CompetitionConfig {
            node_id: self.node_id.clone(),
            peers: self.peers.clone(),
            peer_address_template: self.peer_address_template.clone(),
            admin_token: self.admin_token.clone(),
            open_registration: self.open_registration,
            account_max_tables: self.account_max_tables,
            account_max_lobbies: self.account_max_lobbies,
            casual_deals: self.casual_deals,
            challenges_per_hour: self.challenges_per_hour,
            default_action_ms: self.default_action_ms,
            default_deal_ms: self.default_deal_ms,
            max_joins_per_table: self.max_joins_per_table,
            max_tables: self.max_tables,
            hosting: self.hosting.clone(),
        }
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
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::Args)]
pub struct AnalysisConfig {
    /// Tables analysed at once for AnalyzeTable, one core each (0: AnalyzeTable is
    /// refused). Analysis runs beside play on the blocking pool.
    #[arg(long = "analysis-workers", value_name = "N", env = "SKAT_ANALYSIS_WORKERS", default_value_t = 1, value_parser = parse::up_to::<64>)]
    pub workers: usize,
    /// Tables waiting for analysis at most (more are refused with ANALYSIS_BUSY).
    #[arg(long = "analysis-queue", value_name = "N", env = "SKAT_ANALYSIS_QUEUE", default_value_t = 16, value_parser = parse::at_least_one)]
    pub queue: usize,
    /// Worlds per card for the verdict on what the player knew (0: cards open only,
    /// about 16 times less work). docs/analysis.md.
    #[arg(long = "analysis-worlds", value_name = "N", env = "SKAT_ANALYSIS_WORLDS", default_value_t = 16, value_parser = clap::value_parser!(u32).range(0..=256))]
    pub worlds: u32,
    /// Solver nodes per card over all its worlds (10-17 M a second on one core): bounds
    /// the time of the hardest cards.
    #[arg(long = "analysis-nodes", value_name = "N", env = "SKAT_ANALYSIS_NODES", default_value_t = 4_000_000, value_parser = clap::value_parser!(u64).range(10_000..=1_000_000_000))]
    pub nodes: u64,
}

impl Default for AnalysisConfig {
    fn default() -> AnalysisConfig {
        AnalysisConfig { workers: 1, queue: 16, worlds: 16, nodes: 4_000_000 }
    }
}

impl AnalysisConfig {
    /// What a cached analysis was made with: another setting computes anew. `v2`: the
    /// analysis judges the bidding and the game choice too (an older one is redone).
    pub(crate) fn settings(&self) -> String {
        format!("v2 worlds={} nodes={}", self.worlds, self.nodes)
    }
}
