//! The engine sandboxes run on: podman on one machine, or Kubernetes in a cluster. The
//! runner and a sandbox's watch speak to this one type; each engine keeps its own way of
//! starting, looking, stopping and reading output (see [`crate::podman`] and
//! [`crate::kubernetes`]).
//!
//! | | podman | Kubernetes |
//! |---|---|---|
//! | images | loaded from the server's archive, or pulled, once per version | pulled by the kubelet: versions by reference only |
//! | what a sandbox used | its cgroup (CPU time, peak memory, OOM kills) | not read (the cluster's metrics have it) |
//! | output | a pipe the runner reads at a bounded rate ([`crate::output`]) | the Pod's log, read once it ended |
//! | whose sandbox | the label `skat.runner=<name>`: a runner lists and removes only its own | the same label, in the label selector |

use std::time::Duration;

use crate::cgroup::{self, Usage};
use crate::kubernetes::Kubernetes;
use crate::output::Output;
use crate::podman::{self, Podman, State};
use crate::spec::{Limits, SandboxSpec};

/// A sandbox that started: its name, and its output as it comes (podman).
#[derive(Debug)]
pub struct Started {
    /// The container's or the Pod's name.
    pub name: String,
    /// Its output, read as it comes (podman; a Pod's is read from the API once it ended).
    pub output: Option<Output>,
}

/// Where sandboxes run.
#[derive(Debug, Clone)]
pub enum Engine {
    /// podman on this machine.
    Podman(Podman),
    /// Pods through the Kubernetes API.
    Kubernetes(Kubernetes),
}

impl Engine {
    /// Starts a sandbox, or says why not in the engine's words.
    pub async fn start(&self, id: &str, spec: &SandboxSpec, limits: &Limits) -> Result<Started, String> {
        match self {
            Engine::Podman(p) => podman::start(p, id, spec, limits)
                .await
                .map(|output| Started { name: spec.name.clone(), output: Some(output) }),
            Engine::Kubernetes(k) => k.start(spec).await.map(|name| Started { name, output: None }),
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

    /// A sandbox's output once it ended: the last [`crate::spec::MAX_LOG`] bytes, and whether
    /// older output was dropped.
    pub async fn output(&self, name: &str, output: Option<Output>) -> (Vec<u8>, bool) {
        match (self, output) {
            // What the bot wrote before it ended may still be in the pipe (read at the rate).
            (_, Some(output)) => output.finish(Duration::from_secs(10)).await,
            (Engine::Kubernetes(k), None) => k.output(name).await,
            (Engine::Podman(_), None) => (Vec::new(), false),
        }
    }

    /// Removes a sandbox, whatever its state.
    pub async fn remove(&self, name: &str) {
        match self {
            Engine::Podman(p) => p.remove(name).await,
            Engine::Kubernetes(k) => k.remove(name).await,
        }
    }

    /// Every sandbox the runner `runner` started (by its label).
    pub async fn labelled(&self, runner: &str) -> Vec<String> {
        match self {
            Engine::Podman(p) => p.labelled(runner).await,
            Engine::Kubernetes(k) => k.labelled(runner).await,
        }
    }
}
