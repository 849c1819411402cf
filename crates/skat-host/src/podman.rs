//! The podman engine, through its command line (no daemon, no socket to guard): load or
//! pull an image, run a sandbox, look at it, read its output, remove it. Every call has
//! a time limit, and every failure carries podman's own words.

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use serde_json::Value;
use tokio::process::Command;

use crate::output::Output;
use crate::spec::{LABEL, Limits, RUNNER_LABEL, SandboxSpec};

/// What podman said when it failed.
#[derive(Debug, thiserror::Error)]
pub enum PodmanError {
    /// It could not be started.
    #[error("podman could not be run ({0}): is it installed? (apt-get install podman runc)")]
    Spawn(std::io::Error),
    /// It answered with an error.
    #[error("{0}")]
    Failed(String),
    /// It took too long.
    #[error("podman {0} took longer than {1:?}")]
    Timeout(String, Duration),
}

/// How to run podman.
#[derive(Debug, Clone)]
pub struct Podman {
    /// The program.
    pub program: PathBuf,
    /// The OCI runtime (`runc`, `crun`, `runsc`...); `None`: podman's default.
    pub runtime: Option<String>,
}

/// A sandbox as podman sees it.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct State {
    /// Still running.
    pub running: bool,
    /// Its exit status (when it ended).
    pub exit_code: i32,
    /// The kernel killed it for memory.
    pub oom_killed: bool,
    /// Its cgroup, relative to a hierarchy's root.
    pub cgroup: String,
    /// podman's words when it could not start.
    pub error: String,
    /// The engine stopped it at its deadline (a Pod's `activeDeadlineSeconds`).
    pub deadline: bool,
    /// It never started because its image could not be had.
    pub image_failed: bool,
    /// Not started yet, and why (a Pod that waits for a node).
    pub waiting: Option<String>,
}

impl Podman {
    fn command(&self) -> Command {
        let mut c = Command::new(&self.program);
        if let Some(r) = &self.runtime {
            c.arg("--runtime").arg(r);
        }
        c.stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::piped()).kill_on_drop(true);
        c
    }

    /// Runs `podman ARGS` and returns its stdout.
    pub async fn call(&self, args: &[&str], limit: Duration) -> Result<String, PodmanError> {
        let mut c = self.command();
        c.args(args);
        let what = args.first().copied().unwrap_or("").to_string();
        let out = tokio::time::timeout(limit, c.output())
            .await
            .map_err(|_| PodmanError::Timeout(what, limit))?
            .map_err(PodmanError::Spawn)?;
        if out.status.success() {
            return Ok(String::from_utf8_lossy(&out.stdout).into_owned());
        }
        let err = String::from_utf8_lossy(&out.stderr);
        let last = err.lines().rev().find(|l| !l.trim().is_empty()).unwrap_or("podman failed").trim();
        Err(PodmanError::Failed(last.trim_start_matches("Error: ").chars().take(400).collect()))
    }

    /// Whether an image is here.
    pub async fn has_image(&self, image: &str) -> bool {
        self.call(&["image", "exists", image], Duration::from_secs(30)).await.is_ok()
    }

    /// Loads an archive and names the image `tag`.
    pub async fn load(&self, archive: &Path, tag: &str) -> Result<(), PodmanError> {
        let path = archive.display().to_string();
        let out = self.call(&["load", "--quiet", "--input", &path], Duration::from_secs(600)).await?;
        // `Loaded image: NAME` or `Loaded image(s): NAME,NAME`: the first is the bot.
        let loaded = out
            .lines()
            .filter_map(|l| l.split_once(':').map(|(_, rest)| rest.trim()))
            .flat_map(|rest| rest.split(','))
            .map(str::trim)
            .find(|n| !n.is_empty())
            .ok_or_else(|| PodmanError::Failed("the archive holds no image".into()))?
            .to_string();
        self.call(&["tag", &loaded, tag], Duration::from_secs(60)).await?;
        Ok(())
    }

    /// Pulls a reference.
    pub async fn pull(&self, reference: &str) -> Result<(), PodmanError> {
        self.call(&["pull", "--quiet", reference], Duration::from_secs(600)).await.map(|_| ())
    }

    /// Starts a sandbox whose stdout and stderr are `output` (podman's own words, when it
    /// fails, come through the same pipe: its stderr is the container's).
    pub async fn run(
        &self,
        spec: &SandboxSpec,
        env_file: &Path,
        output: std::io::PipeWriter,
    ) -> Result<(), PodmanError> {
        let limit = Duration::from_secs(120);
        let mut c = self.command();
        c.arg("run").args(spec.podman_args(env_file));
        c.stdout(output.try_clone().map_err(PodmanError::Spawn)?).stderr(output);
        let mut child = c.spawn().map_err(PodmanError::Spawn)?;
        // The runner's copies of the pipe's write end go with the command: the pipe closes
        // when the sandbox and its monitor let go of it.
        drop(c);
        let status = tokio::time::timeout(limit, child.wait())
            .await
            .map_err(|_| PodmanError::Timeout("run".into(), limit))?
            .map_err(PodmanError::Spawn)?;
        if status.success() {
            Ok(())
        } else {
            Err(PodmanError::Failed(format!("podman run ended with {status}")))
        }
    }

    /// A sandbox's state; `None` when it is gone.
    pub async fn inspect(&self, name: &str) -> Option<State> {
        let out = self
            .call(&["container", "inspect", "--format", "json", name], Duration::from_secs(30))
            .await
            .ok()?;
        let v: Value = serde_json::from_str(&out).ok()?;
        let s = v.get(0)?.get("State")?;
        Some(State {
            running: s.get("Running").and_then(Value::as_bool).unwrap_or(false),
            exit_code: s
                .get("ExitCode")
                .and_then(Value::as_i64)
                .map_or(-1, |c| i32::try_from(c).unwrap_or(-1)),
            oom_killed: s.get("OOMKilled").and_then(Value::as_bool).unwrap_or(false),
            cgroup: s.get("CgroupPath").and_then(Value::as_str).unwrap_or("").to_string(),
            error: s.get("Error").and_then(Value::as_str).unwrap_or("").to_string(),
            ..State::default()
        })
    }

    /// Stops a sandbox (SIGTERM, then SIGKILL after `grace`).
    pub async fn stop(&self, name: &str, grace: Duration) {
        let secs = grace.as_secs().max(1).to_string();
        let _ = self.call(&["stop", "--time", &secs, name], grace + Duration::from_secs(30)).await;
    }

    /// Removes a sandbox, whatever its state.
    pub async fn remove(&self, name: &str) {
        let _ = self.call(&["rm", "--force", "--time", "1", name], Duration::from_secs(60)).await;
    }

    /// Every sandbox `runner` started, running or not (its label and the runner's: other
    /// runners' sandboxes on this machine are theirs).
    pub async fn labelled(&self, runner: &str) -> Vec<String> {
        let hosted = format!("label={LABEL}=1");
        let mine = format!("label={RUNNER_LABEL}={runner}");
        let args = ["ps", "--all", "--filter", &hosted, "--filter", &mine, "--format", "{{.Names}}"];
        match self.call(&args, Duration::from_secs(60)).await {
            Ok(out) => out.lines().map(str::trim).filter(|l| !l.is_empty()).map(String::from).collect(),
            Err(e) => {
                tracing::warn!(error = %e, "cannot list the sandboxes left over");
                Vec::new()
            }
        }
    }
}

/// Writes the env file (mode 0600): values are single lines (a token, a table id).
async fn env_file(path: &std::path::Path, env: &[(String, String)]) -> std::io::Result<()> {
    use std::io::Write as _;
    use std::os::unix::fs::OpenOptionsExt as _;
    let text: String = env.iter().map(|(k, v)| format!("{k}={}\n", v.replace(['\n', '\r'], ""))).collect();
    let path = path.to_path_buf();
    tokio::task::spawn_blocking(move || {
        let mut f = std::fs::OpenOptions::new().write(true).create_new(true).mode(0o600).open(&path)?;
        f.write_all(text.as_bytes())
    })
    .await
    .map_err(std::io::Error::other)?
}

/// Starts the sandbox: its output as it comes, or podman's words.
pub async fn start(podman: &Podman, id: &str, spec: &SandboxSpec, limits: &Limits) -> Result<Output, String> {
    let env_path = limits.work_dir.join(format!("env-{id}"));
    env_file(&env_path, &spec.env)
        .await
        .map_err(|e| format!("the runner could not write the sandbox's environment: {e}"))?;
    let (output, writer) = match Output::pipe() {
        Ok(pipe) => pipe,
        Err(e) => {
            let _ = tokio::fs::remove_file(&env_path).await;
            return Err(format!("the runner could not make the sandbox's output pipe: {e}"));
        }
    };
    let ran = podman.run(spec, &env_path, writer).await;
    let _ = tokio::fs::remove_file(&env_path).await;
    match ran {
        Ok(()) => Ok(output),
        Err(e) => {
            // podman's own words came through the pipe (its stderr is the container's).
            let (said, _) = output.finish(Duration::from_secs(2)).await;
            podman.remove(&spec.name).await;
            let words = crate::output::last_line(&said);
            Err(format!(
                "the sandbox did not start: {}",
                if words.is_empty() { e.to_string() } else { words }
            ))
        }
    }
}
