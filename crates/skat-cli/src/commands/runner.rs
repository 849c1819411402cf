//! `skat runner`: the runner of hosted bots as its own process (docs/hosted-bots.md);
//! `skat serve --runner podman` runs the same in the server's process. On Kubernetes the
//! runner is its own Deployment (`--engine kubernetes`), so that the server's Pods hold
//! no rights on the API.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use skat_host::{ClusterServer, Engine, Kubernetes, Limits, Podman, RunnerConfig};

use super::CmdResult;
use super::conn::ServerArgs;

/// The engines sandboxes run on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum EngineKind {
    /// podman on this machine: `podman run`, each seat's own Unix socket (which the server
    /// makes: `skat serve --hosting-socket-dir`) its sandbox's only way out.
    Podman,
    /// Pods through the Kubernetes API, with the runner's ServiceAccount (deploy/k8s/hosted).
    Kubernetes,
}

/// Where sandboxes run, and how.
#[derive(Debug, Clone, clap::Args)]
pub struct SandboxArgs {
    /// The engine.
    #[arg(long, value_enum, env = "SKAT_RUNNER_ENGINE", default_value = "podman")]
    pub engine: EngineKind,
    /// With --print-pod (podman): the socket the printed Pod mounts. The runner itself
    /// mounts each seat's own socket, which the server makes for that seat alone.
    #[arg(long, env = "SKAT_RUNNER_SOCKET")]
    pub socket: Option<PathBuf>,
    /// Where the runner keeps fetched archives and sandboxes' env files (mode 0700).
    #[arg(long, env = "SKAT_RUNNER_DIR", default_value = "/var/lib/skat/runner")]
    pub work_dir: PathBuf,
    /// The podman program.
    #[arg(long, default_value = "podman")]
    pub podman: PathBuf,
    /// podman: the OCI runtime (`runc`, `crun`; `runsc` is gVisor). Kubernetes: the
    /// Pods' RuntimeClass (e.g. `gvisor`).
    #[arg(long)]
    pub oci_runtime: Option<String>,
    /// Kubernetes: the namespace bot Pods run in (the runner's Role is limited to it).
    #[arg(long, env = "SKAT_RUNNER_NAMESPACE", default_value = "skat-bots")]
    pub kube_namespace: String,
    /// Kubernetes: the server as the sandboxes reach it (default: --server, the replica
    /// this runner follows). Its host name is resolved by the runner and pinned in the
    /// Pod's hostAliases: bot Pods get no DNS.
    #[arg(long, env = "SKAT_RUNNER_SANDBOX_SERVER")]
    pub sandbox_server: Option<String>,
    /// Kubernetes: the CA the sandboxes check the server's certificate against (PEM;
    /// default: --ca-file). Handed to each Pod in its Secret.
    #[arg(long, env = "SKAT_RUNNER_SANDBOX_CA_FILE")]
    pub sandbox_ca_file: Option<PathBuf>,
    /// Wall-clock limit per sandbox (a list of 36 deals with 30 s per action fits in an
    /// hour; the default leaves room).
    #[arg(long, default_value = "6h", value_parser = humantime::parse_duration)]
    pub sandbox_wall: Duration,
    /// Most processes and threads per sandbox.
    #[arg(long, default_value_t = 64)]
    pub sandbox_pids: u32,
    /// Size of a sandbox's /tmp, in MiB (memory).
    #[arg(long, default_value_t = 16)]
    pub sandbox_tmp_mib: u32,
    /// The cores sandboxes run on (`1`, `2-7`; default: every core the runner may use).
    /// Each sandbox gets cores of its own among them while there are free ones, and says
    /// when it had to share; keep them apart from the server's (docs/hosted-bots.md).
    #[arg(long, env = "SKAT_RUNNER_SANDBOX_CPUSET")]
    pub sandbox_cpuset: Option<String>,
    /// What the runner can hold, in millicores (the server hands it no more seats than
    /// fit). Default: podman, the cores of --sandbox-cpuset x 1000; Kubernetes, the bots'
    /// namespace's ResourceQuota (`requests.cpu`) divided by --quota-share.
    #[arg(long, env = "SKAT_RUNNER_CAPACITY_CPU_MILLIS")]
    pub capacity_cpu_millis: Option<u64>,
    /// What the runner can hold, in MiB. Default: podman, the memory available when it
    /// starts less 512 MiB; Kubernetes, the quota's `requests.memory` divided by
    /// --quota-share.
    #[arg(long, env = "SKAT_RUNNER_CAPACITY_MEMORY_MIB")]
    pub capacity_memory_mib: Option<u64>,
    /// Kubernetes: how many runners share the bots' namespace's ResourceQuota (one per
    /// server replica): each holds its share.
    #[arg(long, env = "SKAT_RUNNER_QUOTA_SHARE", default_value_t = 1, value_parser = clap::value_parser!(u64).range(1..=1000))]
    pub quota_share: u64,
}

impl SandboxArgs {
    /// A sandbox's settings, for the runner named `runner`.
    pub fn limits(&self, runner: &str) -> Limits {
        let cluster = self.engine == EngineKind::Kubernetes;
        Limits {
            runner: runner.to_string(),
            work_dir: self.work_dir.clone(),
            wall: self.sandbox_wall,
            pids: self.sandbox_pids,
            tmpfs_mib: self.sandbox_tmp_mib,
            runtime_class: if cluster { self.oci_runtime.clone() } else { None },
            cpuset: self.sandbox_cpuset.clone(),
        }
    }

    /// What the runner can hold on `engine` (see `skat_host::capacity`).
    pub async fn capacity(&self, engine: &Engine) -> Result<skat_host::capacity::Capacity, String> {
        use skat_host::capacity::{self, Capacity};
        let given = Capacity {
            millis: self.capacity_cpu_millis.unwrap_or(0),
            mib: self.capacity_memory_mib.unwrap_or(0),
        };
        Ok(match engine {
            Engine::Podman(_) => {
                let cores = match &self.sandbox_cpuset {
                    Some(list) => {
                        skat_host::cores::parse_cpuset(list).map_err(|e| format!("--sandbox-cpuset: {e}"))?
                    }
                    None => skat_host::cores::allowed(),
                };
                capacity::podman(cores.len(), given)
            }
            Engine::Kubernetes(k) => {
                let quota = capacity::of_quotas(&k.quotas().await);
                let pick = |g: u64, q: u64| if g > 0 { g } else { q / self.quota_share };
                Capacity { millis: pick(given.millis, quota.millis), mib: pick(given.mib, quota.mib) }
            }
        })
    }

    /// How the sandboxes of a cluster reach `server`.
    async fn cluster_server(&self, server: &ServerArgs) -> Result<ClusterServer, String> {
        let url = match &self.sandbox_server {
            Some(s) => skat_sdk::ServerAddress::new(s).url().to_string(),
            None => server.address().url().to_string(),
        };
        if !url.starts_with("https://") {
            return Err(format!(
                "the sandboxes would reach {url} in plain text, and their seat tokens with it: \
                 give the server TLS (--sandbox-server https://...)"
            ));
        }
        let ca = match self.sandbox_ca_file.as_ref().or(server.ca_file.as_ref()) {
            Some(f) => Some(std::fs::read_to_string(f).map_err(|e| format!("{}: {e}", f.display()))?),
            None => None,
        };
        ClusterServer::resolve(&url, ca).await
    }

    /// The engine, connected.
    pub async fn engine(&self, server: &ServerArgs) -> Result<Engine, String> {
        let podman = Podman {
            program: self.podman.clone(),
            runtime: if self.engine == EngineKind::Podman { self.oci_runtime.clone() } else { None },
        };
        if let Some(list) = &self.sandbox_cpuset {
            skat_host::cores::parse_cpuset(list).map_err(|e| format!("--sandbox-cpuset: {e}"))?;
        }
        match self.engine {
            EngineKind::Podman => Ok(Engine::Podman(podman)),
            EngineKind::Kubernetes => {
                let target = self.cluster_server(server).await?;
                Ok(Engine::Kubernetes(Kubernetes::connect(&self.kube_namespace, target).await?))
            }
        }
    }
}

#[derive(Debug, clap::Args)]
pub struct Args {
    /// The server whose feed this runner follows; `{ordinal}` in it (and in
    /// --sandbox-server) is the number this runner's Pod name ends with.
    #[command(flatten)]
    server: ServerArgs,
    /// The runner token (`skat serve --hosting-runner-token-file`).
    #[arg(
        long,
        env = "SKAT_RUNNER_TOKEN",
        hide_env_values = true,
        required_unless_present_any = ["runner_token_file", "print_pod"]
    )]
    runner_token: Option<String>,
    /// A file holding the runner token.
    #[arg(long)]
    runner_token_file: Option<PathBuf>,
    /// The runner's name (1 to 63 letters, digits, `-`, `_`, `.`): every sandbox it
    /// starts is labelled with it (`skat.runner=NAME`), and it finds, stops and removes
    /// only those, so that runners of other servers on the same engine keep theirs.
    /// Default: the Pod's name (`POD_NAME`), else this host's name and the work
    /// directory's (`HOST-1a2b3c4d`), the same after a restart.
    #[arg(long, env = "SKAT_RUNNER_NAME")]
    name: Option<String>,
    #[command(flatten)]
    sandbox: SandboxArgs,
    /// Print what a sandbox of this image is and exit (JSON, which is YAML: for `podman
    /// kube play` and for validating against Kubernetes' schemas): with --engine podman
    /// the Pod `podman kube play` runs, with --engine kubernetes the Secret and the Pod
    /// the runner creates, as two YAML documents.
    #[arg(long, value_name = "IMAGE")]
    print_pod: Option<String>,
    /// With --print-pod: CPU in millicores and memory in MiB.
    #[arg(long, num_args = 2, value_names = ["MILLICORES", "MIB"], default_values_t = [1000, 512], requires = "print_pod")]
    pod_size: Vec<u32>,
}

/// What a sandbox of `image` is (placeholders for the seat).
fn print_pod(args: &Args, image: &str) -> CmdResult {
    let seat = skat_host::sandbox::Seat {
        bot_name: "example".into(),
        digest: "sha256:0".into(),
        version_id: "0".into(),
        socket: args.sandbox.socket.clone(),
        image: image.to_string(),
        command: Vec::new(),
        table_id: "TABLE".into(),
        seat: 0,
        seat_token: "SEAT-TOKEN".into(),
        tournament_id: String::new(),
        cpu_millis: args.pod_size.first().copied().unwrap_or(1000),
        memory_mib: args.pod_size.get(1).copied().unwrap_or(512),
    };
    let name = runner_name(args.name.as_deref(), &args.sandbox.work_dir)?;
    let spec = skat_host::sandbox::spec_of(
        "example",
        &seat,
        &args.sandbox.limits(&name),
        args.sandbox.sandbox_cpuset.clone(),
    );
    let namespace = &args.sandbox.kube_namespace;
    match args.sandbox.engine {
        EngineKind::Podman => outln!("{}", serde_json::to_string_pretty(&spec.pod(namespace))?),
        EngineKind::Kubernetes => {
            let target = super::conn::runtime()?.block_on(args.sandbox.cluster_server(&args.server))?;
            let secret = skat_host::kubernetes::cluster_secret(&spec, namespace, &target);
            let pod = skat_host::kubernetes::cluster_pod(&spec, namespace, &target);
            // Two documents: JSON objects between `---` lines are YAML.
            outln!(
                "{}\n---\n{}",
                serde_json::to_string_pretty(&secret)?,
                serde_json::to_string_pretty(&pod)?
            );
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// The runner's name: `given`, else the Pod's (`POD_NAME`), else this host's and the
/// work directory's (`HOST-1a2b3c4d`): stable across restarts, apart for two runners.
pub fn runner_name(given: Option<&str>, work_dir: &std::path::Path) -> Result<String, String> {
    let pod = std::env::var("POD_NAME").ok();
    skat_host::spec::runner_name(given.or(pod.as_deref()), work_dir)
}

/// Reads a token from its flag or its file (the first line).
pub fn token_of(
    token: Option<&String>,
    file: Option<&PathBuf>,
) -> Result<String, Box<dyn std::error::Error>> {
    if let Some(t) = token {
        return Ok(t.trim().to_string());
    }
    let path = file.ok_or("a runner token is needed")?;
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(text.lines().next().unwrap_or("").trim().to_string())
}

/// `{ordinal}` in an address: the number this runner's Pod ends with (`skat-runner-1`:
/// `1`, from `POD_NAME` or the host name), so that runner `N` of a StatefulSet follows
/// server replica `N` (a replica's feed holds the seats of its own tables).
fn with_ordinal(address: &str) -> Result<String, String> {
    if !address.contains("{ordinal}") {
        return Ok(address.to_string());
    }
    let name = std::env::var("POD_NAME")
        .or_else(|_| std::env::var("HOSTNAME"))
        .map_err(|_| "{ordinal} needs POD_NAME or HOSTNAME".to_string())?;
    let ordinal = name
        .rsplit_once('-')
        .map(|(_, n)| n)
        .filter(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
        .ok_or_else(|| format!("{{ordinal}}: the Pod's name {name} does not end with -N"))?;
    Ok(address.replace("{ordinal}", ordinal))
}

pub fn run(mut args: Args) -> CmdResult {
    args.server.server = with_ordinal(&args.server.server)?;
    if let Some(s) = &args.sandbox.sandbox_server {
        args.sandbox.sandbox_server = Some(with_ordinal(s)?);
    }
    if let Some(image) = &args.print_pod {
        return print_pod(&args, image);
    }
    super::process::init_tracing(super::process::LogFormat::Text);
    let token = token_of(args.runner_token.as_ref(), args.runner_token_file.as_ref())?;
    let address = args.server.address();
    address.check_secret("runner token")?;
    let rt = super::conn::runtime()?;
    let engine = rt.block_on(args.sandbox.engine(&args.server))?;
    let name = runner_name(args.name.as_deref(), &args.sandbox.work_dir)?;
    let capacity = rt.block_on(args.sandbox.capacity(&engine))?;
    let config =
        RunnerConfig { server: address, token, limits: args.sandbox.limits(&name), name, engine, capacity };
    rt.block_on(async move {
        let (tx, rx) = tokio::sync::watch::channel(false);
        tokio::spawn(async move {
            super::process::shutdown_signal().await;
            let _ = tx.send(true);
        });
        skat_host::run(config, rx).await
    })?;
    Ok(ExitCode::SUCCESS)
}
