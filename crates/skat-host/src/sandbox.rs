//! One sandbox's life: start it from the version's image, watch it (its state, what it
//! uses, the wall-clock limit, whether its table is over), then read its output, remove
//! it and say how it ended.
//!
//! | ending | outcome | seen from |
//! |---|---|---|
//! | the bot exits by itself | `exited` (its status) | the container's state |
//! | the kernel kills it for memory | `out-of-memory` | `OOMKilled` |
//! | it outlives the wall-clock limit | `timed-out` (killed) | the runner's clock, or the Pod's deadline |
//! | its table ended and it did not exit within [`AFTER_TABLE`] | `stopped` | GetTable |
//! | its seat was handed out again with a new token (the server restarted): another sandbox plays it | `stopped` | the feed |
//! | it never started | `failed-to-start` (the engine's words) | `podman run`; a Pod's image that cannot be pulled |
//! | it waited [`START_WITHIN`] to be started | `failed-to-start` | a Pod no node has room for |
//! | it still looks alive [`STOP_WITHIN`] after being stopped | what it was stopped for; removed by force | the engine not answering, a stop that did not take |
//!
//! The seat forfeits on the table's clock in every case where the bot does not play: a
//! sandbox is a player, not a referee.

use std::time::{Duration, Instant, SystemTime};

use skat_proto::pb;
use skat_proto::pb::skat_service_client::SkatServiceClient;
use tonic::transport::Channel;

use crate::cgroup::Usage;
use crate::engine::Engine;
use crate::podman::State;
use crate::spec::{LABEL, RUNNER_LABEL, SOCKET_IN_SANDBOX, SandboxSpec};
pub use crate::spec::{Limits, MAX_LOG};

/// How often a sandbox is looked at.
const LOOK_EVERY: Duration = Duration::from_millis(500);

/// How often its table is asked whether it is over.
const TABLE_EVERY: Duration = Duration::from_secs(5);

/// How long a sandbox may wait to be started (a Pod waiting for a node) before it is given up.
pub const START_WITHIN: Duration = Duration::from_secs(120);

/// How long a stopped sandbox may still look alive (an engine that does not answer, a stop
/// that did not take) before the runner removes it by force and reports it: a watch ends.
pub const STOP_WITHIN: Duration = Duration::from_secs(20);

/// How long a sandbox may outlive its table before it is stopped.
pub const AFTER_TABLE: Duration = Duration::from_secs(10);

/// What a sandbox is for.
#[derive(Debug, Clone)]
pub struct Seat {
    /// The account's name.
    pub bot_name: String,
    /// The version's image digest.
    pub digest: String,
    /// The version's name (its image and its command).
    pub version_id: String,
    /// The image to run (loaded or pulled already).
    pub image: String,
    /// argv words.
    pub command: Vec<String>,
    /// The table.
    pub table_id: String,
    /// The seat.
    pub seat: u32,
    /// Its token.
    pub seat_token: String,
    /// The tournament, or empty.
    pub tournament_id: String,
    /// CPU in millicores.
    pub cpu_millis: u32,
    /// Memory in MiB.
    pub memory_mib: u32,
    /// podman: the seat's own socket, which the server made for it (its only door).
    pub socket: Option<std::path::PathBuf>,
}

/// How a sandbox ended (or that it runs).
#[derive(Debug, Clone, Default)]
pub struct Ending {
    /// `running`, `exited`, `stopped`, `out-of-memory`, `timed-out`, `failed-to-start`.
    pub outcome: &'static str,
    /// Exit status.
    pub exit_code: i32,
    /// What it used.
    pub usage: Usage,
    /// In words.
    pub detail: String,
    /// Output, the last [`MAX_LOG`] bytes.
    pub log: Vec<u8>,
    /// Whether older output was dropped.
    pub log_truncated: bool,
    /// Its image could not be had: the version, not this meeting, is at fault.
    pub image_failed: bool,
}

/// A sandbox's report for the server, from `runner`.
pub fn report(
    id: &str,
    seat: &Seat,
    runner: &str,
    started: SystemTime,
    ending: &Ending,
    ended: bool,
) -> pb::Sandbox {
    let ms = |t: SystemTime| t.duration_since(SystemTime::UNIX_EPOCH).map_or(0, |d| d.as_millis() as i64);
    let outcome = match ending.outcome {
        "running" => pb::SandboxOutcome::Running,
        "exited" => pb::SandboxOutcome::Exited,
        "stopped" => pb::SandboxOutcome::Stopped,
        "out-of-memory" => pb::SandboxOutcome::OutOfMemory,
        "timed-out" => pb::SandboxOutcome::TimedOut,
        _ => pb::SandboxOutcome::FailedToStart,
    };
    pb::Sandbox {
        id: id.to_string(),
        bot_name: seat.bot_name.clone(),
        digest: seat.digest.clone(),
        table_id: seat.table_id.clone(),
        seat: seat.seat,
        tournament_id: seat.tournament_id.clone(),
        outcome: outcome as i32,
        exit_code: ending.exit_code,
        cpu_ms: ending.usage.cpu_ms,
        memory_peak_bytes: ending.usage.memory_peak,
        started_unix_ms: ms(started),
        ended_unix_ms: if ended { ms(SystemTime::now()) } else { 0 },
        detail: ending.detail.clone(),
        log_bytes: ending.log.len() as u64,
        log_truncated: ending.log_truncated,
        version_id: seat.version_id.clone(),
        runner: runner.to_string(),
    }
}

/// The specification of a seat's sandbox, on the cores `cpuset` (`None`: any).
pub fn spec_of(id: &str, seat: &Seat, limits: &Limits, cpuset: Option<String>) -> SandboxSpec {
    SandboxSpec {
        name: format!("skat-{id}"),
        image: seat.image.clone(),
        command: seat.command.clone(),
        env: vec![
            ("SKAT_SERVER".into(), format!("unix://{SOCKET_IN_SANDBOX}")),
            ("SKAT_TABLE".into(), seat.table_id.clone()),
            ("SKAT_SEAT".into(), seat.seat.to_string()),
            ("SKAT_SEAT_TOKEN".into(), seat.seat_token.clone()),
            ("SKAT_BOT_NAME".into(), seat.bot_name.clone()),
        ],
        cpu_millis: seat.cpu_millis,
        memory_mib: seat.memory_mib,
        pids: limits.pids,
        tmpfs_mib: limits.tmpfs_mib,
        socket: seat.socket.clone(),
        labels: vec![
            (LABEL.into(), "1".into()),
            (RUNNER_LABEL.into(), limits.runner.clone()),
            ("skat.sandbox".into(), id.to_string()),
            ("skat.table".into(), seat.table_id.clone()),
            ("skat.seat".into(), seat.seat.to_string()),
        ],
        wall: limits.wall,
        runtime_class: limits.runtime_class.clone(),
        user: 65534,
        cpuset,
    }
}

/// Whether the table is over (finished or abandoned), asked with the seat's token.
async fn table_over(client: &mut SkatServiceClient<Channel>, seat: &Seat) -> bool {
    let mut request = tonic::Request::new(pb::GetTableRequest { table_id: seat.table_id.clone() });
    if let Ok(v) = format!("Bearer {}", seat.seat_token).parse() {
        request.metadata_mut().insert("authorization", v);
    }
    match client.get_table(request).await {
        Ok(r) => r.into_inner().table.is_some_and(|t| {
            matches!(
                pb::TableStatus::try_from(t.status),
                Ok(pb::TableStatus::Finished | pb::TableStatus::Abandoned)
            )
        }),
        // A table that is gone is over.
        Err(s) => s.code() == tonic::Code::NotFound,
    }
}

/// Watches a started sandbox until it ends, then reads its output and removes it.
pub async fn watch(
    engine: &Engine,
    started: crate::engine::Started,
    seat: &Seat,
    limits: &Limits,
    mut server: Option<SkatServiceClient<Channel>>,
    superseded: &tokio::sync::watch::Receiver<bool>,
) -> Ending {
    let crate::engine::Started { name, output } = started;
    let name = name.as_str();
    let begun = Instant::now();
    let mut usage = Usage::default();
    let mut last_table_look = Instant::now();
    let mut table_ended: Option<Instant> = None;
    let mut forced: Option<&'static str> = None;
    let mut forced_at: Option<Instant> = None;
    let mut state = State::default();
    loop {
        match engine.look(name).await {
            Some((s, u)) => {
                state = s;
                usage = u.unwrap_or(usage);
            }
            None => break,
        }
        if !state.running || forced_at.is_some_and(|t| t.elapsed() >= STOP_WITHIN) {
            break;
        }
        let (late_start, over_wall) =
            (state.waiting.is_some() && begun.elapsed() > START_WITHIN, begun.elapsed() > limits.wall);
        if (late_start || over_wall) && forced.is_none() {
            forced = Some(if late_start { "failed-to-start" } else { "timed-out" });
            forced_at = Some(Instant::now());
            engine.stop(name, Duration::from_secs(1)).await;
            continue;
        }
        if table_ended.is_none()
            && last_table_look.elapsed() >= TABLE_EVERY
            && let Some(client) = server.as_mut()
        {
            last_table_look = Instant::now();
            if table_over(client, seat).await {
                table_ended = Some(Instant::now());
            }
        }
        if forced.is_none() && *superseded.borrow() {
            forced = Some("superseded");
            forced_at = Some(Instant::now());
            engine.stop(name, Duration::from_secs(2)).await;
            continue;
        }
        if forced.is_none() && table_ended.is_some_and(|t| t.elapsed() >= AFTER_TABLE) {
            forced = Some("stopped");
            forced_at = Some(Instant::now());
            engine.stop(name, Duration::from_secs(2)).await;
            continue;
        }
        tokio::time::sleep(LOOK_EVERY).await;
    }
    let (log, log_truncated) = engine.output(name, output).await;
    engine.remove(name).await;
    let (outcome, detail) = verdict(&state, usage, forced, seat, limits, begun.elapsed().as_secs());
    Ending {
        outcome,
        exit_code: state.exit_code,
        usage,
        detail,
        log,
        log_truncated,
        image_failed: state.image_failed,
    }
}

/// How a sandbox ended, and the words for it: `forced` is what the runner did to it
/// (`timed-out`, `stopped`), `took` its seconds.
fn verdict(
    state: &State,
    usage: Usage,
    forced: Option<&'static str>,
    seat: &Seat,
    limits: &Limits,
    took: u64,
) -> (&'static str, String) {
    // podman does not always see the kernel's OOM kill (cgroups v1), and a bot killed
    // within its first look leaves no cgroup reading: the cgroup's own count, or a
    // SIGKILL the runner did not send (nothing else in a sandbox sends one but the
    // kernel at the memory limit, unless the bot kills itself) says the same, unless the
    // last reading was far below the limit.
    let limit = u64::from(seat.memory_mib) << 20;
    let killed = forced.is_none() && state.exit_code == 137;
    let near_limit = usage.memory_peak == 0 || usage.memory_peak.saturating_mul(2) >= limit;
    let oom = state.oom_killed || usage.oom_kills > 0 || (killed && near_limit);
    // A cluster's own deadline (`activeDeadlineSeconds`, the wall-clock limit) is the runner's.
    let forced = forced.or(state.deadline.then_some("timed-out"));
    if forced == Some("failed-to-start") || (!state.error.is_empty() && state.exit_code < 0) {
        let why = if state.error.is_empty() {
            state.waiting.clone().unwrap_or_default()
        } else {
            state.error.clone()
        };
        ("failed-to-start", format!("the sandbox did not start: {why}"))
    } else if oom {
        (
            "out-of-memory",
            format!("killed by the kernel: out of memory ({} MiB) after {took} s", seat.memory_mib),
        )
    } else if let Some(f) = forced {
        match f {
            "timed-out" => (f, format!("killed at the wall-clock limit ({} s)", limits.wall.as_secs())),
            "superseded" => (
                "stopped",
                "stopped: its seat was handed out again with a new token (the server restarted); a new sandbox plays it"
                    .to_string(),
            ),
            _ => (f, format!("stopped: its table had ended {} s before and it had not exited", AFTER_TABLE.as_secs())),
        }
    } else if state.exit_code == 0 {
        ("exited", format!("exited with status 0 after {took} s"))
    } else {
        let hint = if state.error.is_empty() { String::new() } else { format!(" ({})", state.error) };
        (
            "exited",
            format!(
                "exited with status {} after {took} s{hint}: it crashed or gave up (see its output)",
                state.exit_code
            ),
        )
    }
}
