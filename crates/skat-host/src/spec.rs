//! One sandbox's specification, and its two renderings: the arguments of `podman run`
//! and a Kubernetes Pod (which `podman kube play` runs as well). Both say the same thing:
//!
//! | layer | podman run | Pod |
//! |---|---|---|
//! | CPU, memory: requests = limits (Guaranteed) | `--cpus`, `--memory`, `--memory-swap` (no swap) | `resources.requests` = `resources.limits` |
//! | processes | `--pids-limit` | the node's pod pids limit (kubelet `podMaxPids`; documented) |
//! | files | `--read-only`, `--tmpfs /tmp` | `readOnlyRootFilesystem`, an `emptyDir` in memory at `/tmp` |
//! | user | `--user 65534:65534`, `--cap-drop ALL`, `no-new-privileges` | `runAsNonRoot`, `runAsUser`, `capabilities.drop: [ALL]`, `allowPrivilegeEscalation: false` |
//! | syscalls | podman's default seccomp profile | `seccompProfile: RuntimeDefault` |
//! | network | `--network none` and the server's socket mounted | the socket as a `hostPath` (podman) or a NetworkPolicy to the server alone (cluster) |
//! | API access | none | `automountServiceAccountToken: false` |
//! | time | the runner's wall-clock limit | `activeDeadlineSeconds` |
//!
//! The seat token never appears in an argument list (a process listing shows those): the
//! podman runner passes it in an env file of mode 0600 that it removes once the sandbox
//! started; the Pod carries it in its env (on a cluster: a Secret, see docs/hosted-bots.md).

use std::path::PathBuf;
use std::time::Duration;

/// Output kept per sandbox.
pub const MAX_LOG: usize = 1024 * 1024;

/// The runner's settings a sandbox needs.
#[derive(Debug, Clone)]
pub struct Limits {
    /// The runner's name: every sandbox it starts carries it ([`RUNNER_LABEL`]), and it
    /// finds, stops and removes only sandboxes that do.
    pub runner: String,
    /// Where env files are written (mode 0600, removed once the sandbox started).
    pub work_dir: PathBuf,
    /// Wall-clock limit per sandbox.
    pub wall: Duration,
    /// Most processes and threads.
    pub pids: u32,
    /// `/tmp`'s size in MiB.
    pub tmpfs_mib: u32,
    /// An OCI runtime for sandboxes (`runsc`: gVisor).
    pub runtime_class: Option<String>,
    /// The cores sandboxes run on (`None`: every core the runner may use); each sandbox
    /// gets cores of its own among them while there are free ones ([`crate::cores`]).
    pub cpuset: Option<String>,
}

use serde_json::{Value, json};

/// Where the sandbox finds the server.
pub const SOCKET_IN_SANDBOX: &str = "/run/skat/grpc.sock";

/// The label every sandbox carries.
pub const LABEL: &str = "skat.hosted";

/// The label that names the runner that started a sandbox: a runner finds, stops and
/// removes only its own, so that runners of other servers (or other replicas) on the same
/// engine keep theirs.
pub const RUNNER_LABEL: &str = "skat.runner";

/// Whether `name` can be a runner's name: a Kubernetes label value (1 to 63 letters,
/// digits, `-`, `_`, `.`, beginning and ending with a letter or digit).
pub fn runner_name_ok(name: &str) -> bool {
    let b = name.as_bytes();
    (1..=63).contains(&b.len())
        && b.iter().all(|c| c.is_ascii_alphanumeric() || matches!(c, b'-' | b'_' | b'.'))
        && b.first().is_some_and(u8::is_ascii_alphanumeric)
        && b.last().is_some_and(u8::is_ascii_alphanumeric)
}

/// What one sandbox runs, and with what.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SandboxSpec {
    /// Its name (`skat-<id>`): a container's or a Pod's.
    pub name: String,
    /// The image.
    pub image: String,
    /// argv words (empty: the image's entry point).
    pub command: Vec<String>,
    /// Environment (the seat token among them).
    pub env: Vec<(String, String)>,
    /// CPU in millicores.
    pub cpu_millis: u32,
    /// Memory in MiB.
    pub memory_mib: u32,
    /// Most processes and threads.
    pub pids: u32,
    /// Size of `/tmp`, in MiB; `/dev/shm` has the same size (both are memory, counted in
    /// the sandbox's limit).
    pub tmpfs_mib: u32,
    /// The server's Unix socket on the host (mounted at [`SOCKET_IN_SANDBOX`]); `None`:
    /// the sandbox reaches the server over the network (a cluster's NetworkPolicy).
    pub socket: Option<PathBuf>,
    /// Labels (`skat.hosted=1`, the table, the seat, the sandbox id).
    pub labels: Vec<(String, String)>,
    /// The wall-clock limit.
    pub wall: Duration,
    /// A RuntimeClass (e.g. `gvisor`: `--runtime runsc` under podman).
    pub runtime_class: Option<String>,
    /// The user and group the bot runs as.
    pub user: u32,
    /// Cores the sandbox may run on (`--cpuset-cpus`, e.g. `2-7`): the runner's cores,
    /// apart from the server's. A CPU quota alone is CPU time, not cores: a bot with many
    /// threads spends its quota on every core at once, in bursts its neighbours feel.
    pub cpuset: Option<String>,
}

impl SandboxSpec {
    /// `podman run` arguments after `run` (the env file carries `env`).
    pub fn podman_args(&self, env_file: &std::path::Path) -> Vec<String> {
        let mut a: Vec<String> = vec![
            "--detach".into(),
            "--name".into(),
            self.name.clone(),
            "--network".into(),
            "none".into(),
            "--read-only".into(),
            "--read-only-tmpfs=false".into(),
            "--tmpfs".into(),
            format!("/tmp:rw,nosuid,nodev,noexec,size={}m,mode=1777", self.tmpfs_mib),
            "--shm-size".into(),
            format!("{}m", self.tmpfs_mib),
            // Images are loaded or pulled by the runner first; a sandbox never pulls.
            "--pull".into(),
            "never".into(),
            "--cpus".into(),
            format!("{}.{:03}", self.cpu_millis / 1000, self.cpu_millis % 1000),
            "--memory".into(),
            format!("{}m", self.memory_mib),
            "--memory-swap".into(),
            format!("{}m", self.memory_mib),
            "--pids-limit".into(),
            self.pids.to_string(),
            "--cap-drop".into(),
            "ALL".into(),
            "--security-opt".into(),
            "no-new-privileges".into(),
            "--user".into(),
            format!("{0}:{0}", self.user),
            // podman's own defaults on this kind of host are above the hard limits; these
            // are the sandbox's, well under them.
            "--ulimit".into(),
            "nofile=1024:1024".into(),
            "--ulimit".into(),
            "nproc=4096:4096".into(),
            // The output goes to the runner's pipe as it is, read at a bounded rate
            // (crate::output): no monitor process copies a flood outside the quota.
            "--log-driver".into(),
            "passthrough".into(),
            "--env-file".into(),
            env_file.display().to_string(),
        ];
        for (k, v) in &self.labels {
            a.push("--label".into());
            a.push(format!("{k}={v}"));
        }
        if let Some(socket) = &self.socket {
            a.push("--volume".into());
            a.push(format!("{}:{SOCKET_IN_SANDBOX}", socket.display()));
        }
        if let Some(cpus) = &self.cpuset {
            a.push("--cpuset-cpus".into());
            a.push(cpus.clone());
        }
        // A runtime class (gVisor) is podman's global `--runtime` ([`crate::Podman`]).
        // The command replaces the image's entry point, as a Pod's `command` does.
        if !self.command.is_empty() {
            a.push("--entrypoint".into());
            a.push(serde_json::to_string(&self.command).unwrap_or_default());
        }
        a.push(self.image.clone());
        a
    }

    /// The Pod: what the Kubernetes backend creates and `podman kube play` runs.
    pub fn pod(&self, namespace: &str) -> Value {
        let quantity_cpu = format!("{}m", self.cpu_millis);
        let quantity_mem = format!("{}Mi", self.memory_mib);
        let labels: serde_json::Map<String, Value> =
            self.labels.iter().map(|(k, v)| (k.clone(), Value::String(v.clone()))).collect();
        let env: Vec<Value> = self.env.iter().map(|(k, v)| json!({"name": k, "value": v})).collect();
        let mut mounts = vec![
            json!({"name": "tmp", "mountPath": "/tmp"}),
            json!({"name": "shm", "mountPath": "/dev/shm"}),
        ];
        let memory = json!({"medium": "Memory", "sizeLimit": format!("{}Mi", self.tmpfs_mib)});
        let mut volumes =
            vec![json!({"name": "tmp", "emptyDir": memory}), json!({"name": "shm", "emptyDir": memory})];
        if let Some(socket) = &self.socket {
            mounts.push(json!({"name": "skat-socket", "mountPath": SOCKET_IN_SANDBOX}));
            volumes.push(json!({"name": "skat-socket", "hostPath": {"path": socket.display().to_string(), "type": "Socket"}}));
        }
        let mut container = json!({
            "name": "bot",
            "image": self.image,
            "imagePullPolicy": "IfNotPresent",
            "env": env,
            "resources": {
                "requests": {"cpu": quantity_cpu, "memory": quantity_mem},
                "limits": {"cpu": quantity_cpu, "memory": quantity_mem},
            },
            "securityContext": {
                "runAsNonRoot": true,
                "runAsUser": self.user,
                "runAsGroup": self.user,
                "readOnlyRootFilesystem": true,
                "allowPrivilegeEscalation": false,
                "privileged": false,
                "capabilities": {"drop": ["ALL"]},
                "seccompProfile": {"type": "RuntimeDefault"},
            },
            "volumeMounts": mounts,
        });
        if !self.command.is_empty() {
            container["command"] = json!(self.command);
        }
        let mut spec = json!({
            "restartPolicy": "Never",
            "automountServiceAccountToken": false,
            "enableServiceLinks": false,
            "activeDeadlineSeconds": self.wall.as_secs().max(1),
            "terminationGracePeriodSeconds": 2,
            "securityContext": {
                "runAsNonRoot": true,
                "seccompProfile": {"type": "RuntimeDefault"},
            },
            "containers": [container],
            "volumes": volumes,
        });
        if let Some(rc) = &self.runtime_class {
            spec["runtimeClassName"] = json!(rc);
        }
        json!({
            "apiVersion": "v1",
            "kind": "Pod",
            "metadata": {"name": self.name, "namespace": namespace, "labels": labels},
            "spec": spec,
        })
    }
}

/// A runner's name: `given` (checked), else this host's name and the work directory's
/// (`HOST-1a2b3c4d`): the same after a restart, apart for two runners on one host.
pub fn runner_name(given: Option<&str>, work_dir: &std::path::Path) -> Result<String, String> {
    use sha2::Digest as _;
    let name = match given.map(str::trim).filter(|n| !n.is_empty()) {
        Some(n) => n.to_string(),
        None => {
            let host = std::fs::read_to_string("/proc/sys/kernel/hostname").unwrap_or_default();
            let host: String =
                host.trim().chars().filter(|c| c.is_ascii_alphanumeric() || *c == '-').take(40).collect();
            let host = host.trim_matches('-');
            let dir = std::fs::canonicalize(work_dir).unwrap_or_else(|_| work_dir.to_path_buf());
            let hash = sha2::Sha256::digest(dir.display().to_string().as_bytes());
            let short: String = hash.iter().take(4).map(|b| format!("{b:02x}")).collect();
            if host.is_empty() { format!("runner-{short}") } else { format!("{host}-{short}") }
        }
    };
    if runner_name_ok(&name) {
        Ok(name)
    } else {
        Err(format!(
            "the runner's name `{name}` must be 1 to 63 letters, digits, `-`, `_` or `.`, beginning and ending with a letter or digit"
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec() -> SandboxSpec {
        SandboxSpec {
            name: "skat-abc".into(),
            image: "localhost/skat-hosted:sha256-00".into(),
            command: vec!["/bot".into(), "--fast".into()],
            env: vec![("SKAT_SEAT_TOKEN".into(), "secret-token".into())],
            cpu_millis: 1000,
            memory_mib: 512,
            pids: 64,
            tmpfs_mib: 16,
            socket: Some(PathBuf::from("/run/skat.sock")),
            labels: vec![(LABEL.into(), "1".into())],
            wall: Duration::from_secs(3600),
            runtime_class: None,
            user: 65534,
            cpuset: Some("1".into()),
        }
    }

    #[test]
    fn podman_gets_every_layer_and_never_the_token() {
        let args = spec().podman_args(std::path::Path::new("/x/env"));
        let joined = args.join(" ");
        for want in [
            "--network none",
            "--read-only",
            "--cpus 1.000",
            "--memory 512m",
            "--memory-swap 512m",
            "--pids-limit 64",
            "--cap-drop ALL",
            "no-new-privileges",
            "--user 65534:65534",
            "--cpuset-cpus 1",
            "--shm-size 16m",
            "--log-driver passthrough",
            "--pull never",
            "/run/skat.sock:/run/skat/grpc.sock",
            r#"--entrypoint ["/bot","--fast"] localhost/skat-hosted:sha256-00"#,
        ] {
            assert!(joined.contains(want), "{want} missing from {joined}");
        }
        assert!(!joined.contains("secret-token"));
    }

    #[test]
    fn the_pod_is_guaranteed_and_locked_down() {
        let pod = spec().pod("skat-bots");
        let c = &pod["spec"]["containers"][0];
        assert_eq!(c["resources"]["requests"], c["resources"]["limits"]);
        assert_eq!(c["securityContext"]["readOnlyRootFilesystem"], true);
        assert_eq!(c["securityContext"]["capabilities"]["drop"][0], "ALL");
        assert_eq!(pod["spec"]["automountServiceAccountToken"], false);
        assert_eq!(pod["spec"]["activeDeadlineSeconds"], 3600);
        assert_eq!(c["command"][0], "/bot");
        assert_eq!(c["volumeMounts"][1]["mountPath"], "/dev/shm");
        assert_eq!(pod["spec"]["volumes"][1]["emptyDir"]["sizeLimit"], "16Mi");
    }

    #[test]
    fn runner_names_are_label_values() {
        for good in ["in-process", "skat-runner-0", "a", "host.example_1"] {
            assert!(runner_name_ok(good), "{good}");
        }
        for bad in ["", "-a", "a-", "a b", "ä", &"x".repeat(64)] {
            assert!(!runner_name_ok(bad), "{bad}");
        }
    }
}
