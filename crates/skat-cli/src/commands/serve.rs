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
    /// The server's settings (each defined once, in `skat_server::ServerConfig`).
    #[command(flatten)]
    pub server: ServerConfig,
    /// Address for the spectator web page (tables, live tables, replays, tournaments,
    /// ratings; it reads the same API over gRPC-Web); `off` to disable. [default:
    /// 127.0.0.1:8080, left out with a warning when another program has it]
    #[arg(long, env = "SKAT_WEB_ADDR")]
    pub web_addr: Option<String>,
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
    /// Log format.
    #[arg(long, env = "SKAT_LOG_FORMAT", value_enum, default_value = "text")]
    pub log_format: LogFormat,
    /// Transparent huge pages for the server's process: `auto` turns them off with the
    /// memory journal (a fifth less memory a table, the same CPU) and leaves them to the
    /// host with a durable one (without them a durable deal cost 4-9% more CPU); `off`
    /// trades that CPU for memory (docs/deploy.md, "The allocator").
    #[arg(long, env = "SKAT_HUGE_PAGES", value_enum, default_value = "auto")]
    pub huge_pages: super::huge_pages::HugePages,
    /// Where tables are journaled: `sqlite` (a file in --data-dir), `memory` (nothing is
    /// kept: a restart loses every table), or `postgres://USER:PASSWORD@HOST/DB` (shared by
    /// replicas). Every OK is durable before it is sent; a restart brings tables back.
    #[arg(long, env = "SKAT_DATABASE", default_value = "sqlite", hide_env_values = true)]
    pub database: String,
    /// The directory of the SQLite database (`skat.db`). With --demo and no --data-dir, a
    /// temporary directory that is removed on exit.
    #[arg(long, env = "SKAT_DATA_DIR")]
    pub data_dir: Option<PathBuf>,
    /// Host built-in opponents as bot accounts, always there, accepting every challenge:
    /// comma-separated strategies (the ladder: random, heuristic, pimc-fast, pimc,
    /// pimc-bold, pimc-sim; names without settings), each the account `house-NAME` (a name only the
    /// admin token registers). Needs a database and --admin-token; plays over loopback in
    /// plain text (with TLS run `skat house-bots --server https://...` beside the server).
    #[arg(long, env = "SKAT_HOUSE_BOTS", value_delimiter = ',', conflicts_with = "tls_cert")]
    pub house_bots: Vec<String>,
    #[command(flatten)]
    pub house_budget: super::house::Budget,
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
    /// Where the server makes each hosted seat's own Unix socket, its sandbox's only door
    /// (it serves that seat's calls and nothing else); podman runners on this machine mount
    /// them. Default with --runner podman: `sockets/` in --data-dir.
    #[arg(long, env = "SKAT_HOSTING_SOCKET_DIR")]
    pub hosting_socket_dir: Option<PathBuf>,
    /// The sandbox port, for sandboxes that reach the server over a network (Pods on
    /// Kubernetes): it serves hosted seats' calls with their seat tokens and nothing else,
    /// a few connections per address. With TLS (--tls-cert) like the gRPC port; without,
    /// loopback only.
    #[arg(long, env = "SKAT_HOSTING_SANDBOX_ADDR")]
    pub hosting_sandbox_addr: Option<SocketAddr>,
    /// Who may seat a hosted bot at a table of their own (CreateTable's `bots`), each seat
    /// a sandbox on this server's runner: `operator` (tables made with the admin or create
    /// token), `anyone`, or `none` (hosted bots play tournaments only).
    #[arg(long, env = "SKAT_HOSTING_PEOPLE_TABLES", value_enum, default_value = "operator")]
    pub hosting_people_tables: skat_server::PeopleTables,
    /// Run the runner of hosted bots in this process: `podman` (needs
    /// --hosting-runner-token-file; the sandbox settings are `skat runner`'s). On
    /// Kubernetes the runner is its own Deployment (`skat runner --engine kubernetes`),
    /// so that the server's Pods hold no rights on the API.
    #[arg(long, value_parser = ["podman"])]
    pub runner: Option<String>,
    /// The in-process runner's name: its sandboxes carry it, and it removes only those
    /// (another server's runner on this machine keeps its own). Default: `serve-` and the
    /// node id, else this host's name and the runner directory's.
    #[arg(long, env = "SKAT_RUNNER_NAME")]
    pub runner_name: Option<String>,
    /// Where the in-process runner keeps its files (default: `runner/` in --data-dir).
    #[arg(long)]
    pub runner_dir: Option<PathBuf>,
    /// The in-process runner's OCI runtime for podman (`runc`, `crun`, `runsc`).
    #[arg(long)]
    pub runner_oci_runtime: Option<String>,
    /// The cores the in-process runner's sandboxes run on (`1`, `2-7`; default: every core
    /// this process may use); each sandbox gets cores of its own among them while there
    /// are free ones.
    #[arg(long)]
    pub runner_sandbox_cpuset: Option<String>,
    /// What the in-process runner can hold, in millicores (default: the cores of
    /// --runner-sandbox-cpuset x 1000): the server admits hosted tables only as they fit.
    #[arg(long, env = "SKAT_RUNNER_CAPACITY_CPU_MILLIS")]
    pub runner_capacity_cpu_millis: Option<u64>,
    /// What the in-process runner can hold, in MiB (default: the memory available at
    /// start less 512 MiB).
    #[arg(long, env = "SKAT_RUNNER_CAPACITY_MEMORY_MIB")]
    pub runner_capacity_memory_mib: Option<u64>,
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

/// The spectator page's address unless told otherwise.
const DEFAULT_WEB_ADDR: &str = "127.0.0.1:8080";

/// The default data directory.
pub const DATA_DIR: &str = "skat-data";

impl Args {
    /// The server settings these flags describe; `data_dir` is where SQLite keeps its file.
    pub fn config(&self, data_dir: PathBuf) -> Result<ServerConfig, Box<dyn std::error::Error>> {
        let web_addr = match self.web_addr.as_deref().unwrap_or(DEFAULT_WEB_ADDR) {
            "off" | "" => None,
            a => Some(a.parse().map_err(|e| format!("--web-addr {a}: {e}"))?),
        };
        let server = &self.server;
        Ok(ServerConfig {
            web_addr,
            web_addr_default: self.web_addr.is_none(),
            tls: self.tls(),
            casual_deals: server.casual_deals.min(server.max_deals),
            database: Database::from_setting(&self.database, data_dir.clone()),
            hosting: self.hosting(&data_dir)?,
            ..server.clone()
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
            socket_dir: self.socket_dir(data_dir)?,
            sandbox_addr: self.hosting_sandbox_addr,
            people_tables: self.hosting_people_tables,
            ..Default::default()
        })
    }

    /// Where seats' sockets are made: --hosting-socket-dir, else with --runner podman
    /// `sockets/` in the data directory (a temporary one with --database memory). A
    /// socket's path has at most 107 bytes: the directory leaves room for its names.
    fn socket_dir(&self, data_dir: &std::path::Path) -> Result<Option<PathBuf>, String> {
        let dir = match (&self.hosting_socket_dir, &self.runner, self.database.as_str()) {
            (Some(d), _, _) => d.clone(),
            (None, None, _) => return Ok(None),
            (None, Some(_), "memory") => {
                std::env::temp_dir().join(format!("skat-sockets-{}", std::process::id()))
            }
            (None, Some(_), _) => data_dir.join("sockets"),
        };
        let dir = if dir.is_absolute() {
            dir
        } else {
            std::env::current_dir().map_err(|e| e.to_string())?.join(dir)
        };
        // `<dir>/<16 hex>.sock`
        if dir.as_os_str().len() + 22 > 107 {
            return Err(format!(
                "--hosting-socket-dir {}: a Unix socket's path has at most 107 bytes; choose a shorter directory",
                dir.display()
            ));
        }
        Ok(Some(dir))
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
    let Some(token) = &config.hosting.runner_token else {
        return Err("--runner needs --hosting-runner-token-file (the runner follows the feed with it)".into());
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
        socket: None,
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
        capacity_cpu_millis: args.runner_capacity_cpu_millis,
        capacity_memory_mib: args.runner_capacity_memory_mib,
        quota_share: 1,
    };
    let server = skat_sdk::ServerAddress::new(&format!("{scheme}://{at}"));
    let engine = skat_host::Engine::Podman(skat_host::Podman {
        program: sandbox.podman.clone(),
        runtime: sandbox.oci_runtime.clone(),
    });
    let given = args.runner_name.clone().or_else(|| config.node_id.as_ref().map(|n| format!("serve-{n}")));
    let name = skat_host::spec::runner_name(given.as_deref(), &sandbox.work_dir)
        .map_err(|e| format!("--runner-name: {e}"))?;
    let limits = sandbox.limits(&name);
    let given = skat_host::capacity::Capacity {
        millis: sandbox.capacity_cpu_millis.unwrap_or(0),
        mib: sandbox.capacity_memory_mib.unwrap_or(0),
    };
    let cores = match &sandbox.sandbox_cpuset {
        Some(list) => {
            skat_host::cores::parse_cpuset(list).map_err(|e| format!("--runner-sandbox-cpuset: {e}"))?
        }
        None => skat_host::cores::allowed(),
    };
    let capacity = skat_host::capacity::podman(cores.len(), given);
    Ok(Some(skat_host::RunnerConfig { server, token: token.clone(), name, engine, limits, capacity }))
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
    // Before the runtime's threads allocate: the pages they fault in are then small.
    args.huge_pages.apply(config.database == Database::Memory);
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
            let admin = args.server.admin_token.clone().unwrap_or_default();
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
