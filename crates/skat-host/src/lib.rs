//! # skat-host
//!
//! The runner of hosted bots (docs/hosted-bots.md): it follows the server's feed of
//! seats that hosted accounts are to play, and plays each in a sandbox of its own, with
//! equal CPU and memory, no network but the server's Unix socket, a read-only root, no
//! capabilities, a pids limit and a wall-clock limit; then it reports how each sandbox
//! ended (exit status, out-of-memory kills, CPU time, peak memory, its output).
//!
//! | concern | where |
//! |---|---|
//! | one sandbox's specification, as `podman run` arguments and as a Pod; the runner's limits | [`spec`] |
//! | the engine a sandbox runs on: podman or Kubernetes | [`engine`] |
//! | podman, through its command line: a sandbox started with its env file and its output pipe | [`podman`] |
//! | a sandbox's output, read from its pipe at a bounded rate, its last 1 MiB kept | [`output`] |
//! | which cores a sandbox runs on: cores of its own while there are free ones | [`cores`] |
//! | what the runner can hold (it tells the server, which admits no more) | [`capacity`] |
//! | Kubernetes, Pods and Secrets through its API (`kube`) | [`kubernetes`] |
//! | what a sandbox used, from its cgroup | [`cgroup`] |
//! | one sandbox's life: start, watch, limits, output, removal | [`sandbox`] |
//! | the feed, images once per version, reports, nothing left behind | [`runner`] |
//! | the house bots: the operator's own accounts at the ladder's levels, in this process on runtimes of their own (`skat serve --house-bots`, `skat house-bots`) | [`house`] |
//!
//! It runs inside `skat serve --runner` or as its own process (`skat runner`), so that
//! a cluster can give it machines of its own.

pub mod capacity;
pub mod cgroup;
pub mod cores;
pub mod engine;
pub mod house;
pub mod kubernetes;
pub mod output;
pub mod podman;
pub mod runner;
pub mod sandbox;
pub mod spec;

pub use engine::Engine;
pub use kubernetes::{ClusterServer, Kubernetes};
pub use podman::Podman;
pub use runner::{RunnerConfig, RunnerError, run};
pub use sandbox::Limits;
pub use spec::SandboxSpec;
