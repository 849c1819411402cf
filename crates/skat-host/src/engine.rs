//! The engine sandboxes run on: podman on one machine, or Kubernetes in a cluster. The
//! runner and a sandbox's watch speak to this one type; each engine keeps its own way of
//! starting, looking, stopping and reading output (see [`crate::podman`] and
//! [`crate::kubernetes`]).
//!
//! | | podman | Kubernetes |
//! |---|---|---|
//! | images | loaded from the server's archive, or pulled, once per version | pulled by the kubelet: versions by reference only |
//! | what a sandbox used | its cgroup (CPU time, peak memory, OOM kills) | not read (the cluster's metrics have it) |
//! | output | podman's log file, read as it grows | the Pod's log, read once it ended |

use std::time::Duration;

use crate::cgroup::{self, Usage};
use crate::kubernetes::Kubernetes;
use crate::podman::{self, LogTail, Podman, State};
use crate::spec::{Limits, SandboxSpec};

/// Where sandboxes run.
#[derive(Debug, Clone)]
pub enum Engine {
    /// podman on this machine.
    Podman(Podman),
    /// Pods through the Kubernetes API.
    Kubernetes(Kubernetes),
}

impl Engine {
    /// Starts a sandbox: its name, or the engine's words.
    pub async fn start(&self, id: &str, spec: &SandboxSpec, limits: &Limits) -> Result<String, String> {
        match self {
            Engine::Podman(p) => podman::start(p, id, spec, limits).await,
            Engine::Kubernetes(k) => k.start(spec).await,
        }
    }

    /// A sandbox's state and what it used; `None` when it is gone.
    pub async fn look(&self, name: &str) -> Option<(State, Option<Usage>)> {
        match self {
            Engine::Podman(p) => p.inspect(name).await.map(|s| {
                let usage = cgroup::usage(&s.cgroup);
                (s, usage)
            }),
            Engine::Kubernetes(k) => k.look(name).await.map(|s| (s, None)),
        }
    }

    /// Stops a sandbox (it may still be looked at and read).
    pub async fn stop(&self, name: &str, grace: Duration) {
        match self {
            Engine::Podman(p) => p.stop(name, grace).await,
            Engine::Kubernetes(k) => k.stop(name).await,
        }
    }

    /// Reads more of a running sandbox's output into `tail` (podman's file grows as it writes).
    pub async fn follow_output(&self, state: &State, tail: &mut LogTail) {
        if let Engine::Podman(_) = self {
            tail.look(&state.log_path).await;
        }
    }

    /// A sandbox's output once it ended: the last [`crate::spec::MAX_LOG`] bytes, and whether
    /// older output was dropped.
    pub async fn output(&self, name: &str, state: &State, mut tail: LogTail) -> (Vec<u8>, bool) {
        match self {
            Engine::Podman(_) => {
                tail.look(&state.log_path).await;
                tail.text()
            }
            Engine::Kubernetes(k) => k.output(name).await,
        }
    }

    /// Removes a sandbox, whatever its state.
    pub async fn remove(&self, name: &str) {
        match self {
            Engine::Podman(p) => p.remove(name).await,
            Engine::Kubernetes(k) => k.remove(name).await,
        }
    }

    /// Every sandbox the runner's label marks.
    pub async fn labelled(&self) -> Vec<String> {
        match self {
            Engine::Podman(p) => p.labelled().await,
            Engine::Kubernetes(k) => k.labelled().await,
        }
    }
}
