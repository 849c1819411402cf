//! `skat runner`: the runner of hosted bots as its own process (docs/hosted-bots.md);
//! `skat serve --runner podman` runs the same in the server's process.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use skat_host::{Limits, Podman, RunnerConfig};

use super::CmdResult;
use super::conn::ServerArgs;

/// Where sandboxes run, and how.
#[derive(Debug, Clone, clap::Args)]
pub struct SandboxArgs {
    /// The server's Unix socket on this machine (`skat serve --unix-socket`), mounted
    /// into every sandbox as its only way out.
    #[arg(long, env = "SKAT_RUNNER_SOCKET")]
    pub socket: PathBuf,
    /// Where the runner keeps fetched archives and sandboxes' env files (mode 0700).
    #[arg(long, env = "SKAT_RUNNER_DIR", default_value = "/var/lib/skat/runner")]
    pub work_dir: PathBuf,
    /// The podman program.
    #[arg(long, default_value = "podman")]
    pub podman: PathBuf,
    /// The OCI runtime podman uses (`runc`, `crun`; `runsc` is gVisor).
    #[arg(long)]
    pub oci_runtime: Option<String>,
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
    /// The cores sandboxes run on (`1`, `2-7`): keep them apart from the server's, so that
    /// a bot with many threads spends its CPU quota on its own cores (docs/hosted-bots.md).
    #[arg(long)]
    pub sandbox_cpuset: Option<String>,
}

impl SandboxArgs {
    /// The runner's settings for `server` with `token`.
    pub fn config(&self, server: skat_sdk::ServerAddress, token: String, name: String) -> RunnerConfig {
        RunnerConfig {
            server,
            token,
            name,
            podman: Podman { program: self.podman.clone(), runtime: self.oci_runtime.clone() },
            limits: Limits {
                socket: self.socket.clone(),
                work_dir: self.work_dir.clone(),
                wall: self.sandbox_wall,
                pids: self.sandbox_pids,
                tmpfs_mib: self.sandbox_tmp_mib,
                runtime_class: None,
                cpuset: self.sandbox_cpuset.clone(),
            },
        }
    }
}

#[derive(Debug, clap::Args)]
pub struct Args {
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
    /// A name for the operator.
    #[arg(long, default_value = "runner")]
    name: String,
    #[command(flatten)]
    sandbox: SandboxArgs,
    /// Print the Pod a sandbox of this image is (JSON, which is YAML: for `podman kube
    /// play` and for validating against Kubernetes' schemas) and exit.
    #[arg(long, value_name = "IMAGE")]
    print_pod: Option<String>,
    /// With --print-pod: the Pod reaches the server at this address over the network
    /// (a cluster, behind the NetworkPolicy of deploy/k8s/hosted) instead of the socket.
    #[arg(long, requires = "print_pod")]
    pod_server: Option<String>,
    /// With --print-pod: the namespace.
    #[arg(long, default_value = "skat-bots", requires = "print_pod")]
    pod_namespace: String,
    /// With --print-pod: CPU in millicores and memory in MiB.
    #[arg(long, num_args = 2, value_names = ["MILLICORES", "MIB"], default_values_t = [1000, 512], requires = "print_pod")]
    pod_size: Vec<u32>,
}

/// The Pod of a sandbox of `image` (placeholders for the seat).
fn print_pod(args: &Args, image: &str) -> CmdResult {
    let seat = skat_host::sandbox::Seat {
        bot_name: "example".into(),
        digest: "sha256:0".into(),
        image: image.to_string(),
        command: Vec::new(),
        table_id: "TABLE".into(),
        seat: 0,
        seat_token: "SEAT-TOKEN".into(),
        tournament_id: String::new(),
        cpu_millis: args.pod_size.first().copied().unwrap_or(1000),
        memory_mib: args.pod_size.get(1).copied().unwrap_or(512),
    };
    let config =
        args.sandbox.config(skat_sdk::ServerAddress::new("http://127.0.0.1:1"), String::new(), String::new());
    let mut spec = skat_host::sandbox::spec_of("example", &seat, &config.limits);
    if let Some(server) = &args.pod_server {
        spec.socket = None;
        for (k, v) in spec.env.iter_mut() {
            if k == "SKAT_SERVER" {
                *v = server.clone();
            }
        }
    }
    outln!("{}", serde_json::to_string_pretty(&spec.pod(&args.pod_namespace))?);
    Ok(ExitCode::SUCCESS)
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

pub fn run(args: Args) -> CmdResult {
    if let Some(image) = &args.print_pod {
        return print_pod(&args, image);
    }
    super::serve::init_tracing(super::serve::LogFormat::Text);
    let token = token_of(args.runner_token.as_ref(), args.runner_token_file.as_ref())?;
    let address = args.server.address();
    address.check_secret("runner token")?;
    let config = args.sandbox.config(address, token, args.name.clone());
    let rt = super::conn::runtime()?;
    rt.block_on(async move {
        let (tx, rx) = tokio::sync::watch::channel(false);
        tokio::spawn(async move {
            super::serve::shutdown_signal().await;
            let _ = tx.send(true);
        });
        skat_host::run(config, rx).await
    })?;
    Ok(ExitCode::SUCCESS)
}
