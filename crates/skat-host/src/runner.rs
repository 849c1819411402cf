//! The runner: follows the server's feed of hosted seats (RunnerFeed, with the runner
//! token) and plays each seat in a sandbox of its own, reporting each sandbox as it
//! starts and as it ends (ReportSandbox).
//!
//! | rule | why |
//! |---|---|
//! | a runner has a name (`skat.runner=<name>` on everything it starts); at start it removes the sandboxes with its name, at stop it stops and removes them | a runner that died left them and their seats come again through the feed; another runner's (another server's, another replica's) are left alone |
//! | a seat's sandbox is given the seat's own socket (podman), which the server made for it | its only door leads to its seat |
//! | each sandbox gets cores of its own while there are free ones ([`crate::cores`]) | one bot's spinning does not reach another's decisions |
//! | one sandbox per seat and token | the feed hands a seat out again when it reopens; a seat given a new token (the server restarted) gets a new sandbox, and the old one is stopped (its door is gone, and it would hold its cores) |
//! | an image is fetched, checked against its digest and loaded once per version (podman; a cluster's nodes pull references) | a version is immutable |
//! | a version whose image cannot be loaded or pulled is reported failed, in podman's words | the author reads why, and the server stops handing its seats out |
//! | on shutdown, every sandbox is stopped and removed | a stopped runner leaves nothing behind |

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime};

use skat_proto::pb;
use skat_proto::pb::hosting_service_client::HostingServiceClient;
use skat_proto::pb::skat_service_client::SkatServiceClient;
use skat_sdk::ServerAddress;
use tokio::io::AsyncWriteExt as _;
use tokio::sync::{OnceCell, watch};
use tokio::task::JoinHandle;
use tonic::transport::Channel;

use crate::cores::{Cores, parse_cpuset};
use crate::engine::Engine;
use crate::sandbox::{self, Ending, Limits, Seat};

/// Why the runner stopped.
#[derive(Debug, thiserror::Error)]
pub enum RunnerError {
    /// The server refused the runner token.
    #[error("the server refused the runner token: {0}")]
    Token(String),
    /// The work directory could not be made.
    #[error("the runner's work directory {0}: {1}")]
    WorkDir(PathBuf, std::io::Error),
    /// The cores given are not a list of cores.
    #[error("--sandbox-cpuset: {0}")]
    Cpuset(String),
}

/// What the runner needs.
#[derive(Debug, Clone)]
pub struct RunnerConfig {
    /// The server (its gRPC address, for the feed and reports).
    pub server: ServerAddress,
    /// The runner token.
    pub token: String,
    /// The runner's name: its sandboxes carry it, and it removes only those
    /// ([`crate::spec::runner_name_ok`]).
    pub name: String,
    /// The engine.
    pub engine: Engine,
    /// Sandbox settings.
    pub limits: Limits,
    /// What it can hold (told to the server, which hands it no more).
    pub capacity: crate::capacity::Capacity,
}

type Images = Mutex<HashMap<String, Arc<OnceCell<Result<String, String>>>>>;

/// A seat's sandbox as the runner follows it.
struct Live {
    /// The seat token it plays with.
    token: String,
    /// Its life, start to report.
    task: JoinHandle<()>,
    /// True: its seat was handed out again with a new token; stop it.
    superseded: watch::Sender<bool>,
}

struct Runner {
    config: RunnerConfig,
    channel: Channel,
    images: Images,
    cores: Arc<Cores>,
}

/// Runs until `shutdown` turns true (or the token is refused).
pub async fn run(config: RunnerConfig, mut shutdown: watch::Receiver<bool>) -> Result<(), RunnerError> {
    let dir = &config.limits.work_dir;
    std::fs::create_dir_all(dir).map_err(|e| RunnerError::WorkDir(dir.clone(), e))?;
    {
        use std::os::unix::fs::PermissionsExt as _;
        std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o700))
            .map_err(|e| RunnerError::WorkDir(dir.clone(), e))?;
    }
    let cores = Arc::new(Cores::new(&match &config.limits.cpuset {
        Some(list) => parse_cpuset(list).map_err(RunnerError::Cpuset)?,
        None => crate::cores::allowed(),
    }));
    tracing::info!(runner = %config.name, cores = cores.len(), "runner starting");
    let left = config.engine.labelled(&config.name).await;
    for name in &left {
        config.engine.remove(name).await;
    }
    if !left.is_empty() {
        tracing::info!(removed = left.len(), "sandboxes left by an earlier runner removed");
    }
    let mut live: HashMap<(String, u32), Live> = HashMap::new();
    let result = loop {
        if *shutdown.borrow() {
            break Ok(());
        }
        let channel = match config.server.channel().await {
            Ok(c) => c,
            Err(e) => {
                tracing::warn!(error = %e, "runner: cannot reach the server; trying again");
                if wait(&mut shutdown, Duration::from_secs(2)).await {
                    break Ok(());
                }
                continue;
            }
        };
        let runner = Arc::new(Runner {
            config: config.clone(),
            channel,
            images: Mutex::default(),
            cores: Arc::clone(&cores),
        });
        match runner.follow(&mut live, &mut shutdown).await {
            Ok(true) => break Ok(()),
            Ok(false) => tracing::info!("runner: following the feed again"),
            Err(e) => break Err(e),
        }
        if wait(&mut shutdown, Duration::from_secs(1)).await {
            break Ok(());
        }
    };
    // Nothing is left behind: every sandbox still running is stopped and removed.
    for (_, l) in live.drain() {
        l.task.abort();
    }
    for name in config.engine.labelled(&config.name).await {
        config.engine.remove(&name).await;
    }
    result
}

/// Waits `d` or until shutdown; true on shutdown.
async fn wait(shutdown: &mut watch::Receiver<bool>, d: Duration) -> bool {
    let stopped = tokio::select! {
        _ = tokio::time::sleep(d) => false,
        _ = shutdown.wait_for(|s| *s) => true,
    };
    stopped || *shutdown.borrow()
}

fn with_token<T>(message: T, token: &str) -> tonic::Request<T> {
    let mut r = tonic::Request::new(message);
    if let Ok(v) = format!("Bearer {token}").parse() {
        r.metadata_mut().insert("authorization", v);
    }
    r
}

impl Runner {
    fn hosting(&self) -> HostingServiceClient<Channel> {
        HostingServiceClient::new(self.channel.clone()).max_decoding_message_size(4 * 1024 * 1024)
    }

    /// Reads the feed until it ends (false: follow it again) or shutdown (true).
    async fn follow(
        self: &Arc<Self>,
        live: &mut HashMap<(String, u32), Live>,
        shutdown: &mut watch::Receiver<bool>,
    ) -> Result<bool, RunnerError> {
        let request = pb::RunnerFeedRequest {
            runner: self.config.name.clone(),
            capacity_cpu_millis: self.config.capacity.millis,
            capacity_memory_mib: self.config.capacity.mib,
        };
        let request = with_token(request, &self.config.token);
        let mut feed = match self.hosting().runner_feed(request).await {
            Ok(r) => r.into_inner(),
            Err(s) if s.code() == tonic::Code::Unauthenticated => {
                return Err(RunnerError::Token(s.message().into()));
            }
            Err(s) => {
                tracing::warn!(error = %s.message(), "runner: the feed was refused");
                return Ok(false);
            }
        };
        tracing::info!(runner = %self.config.name, cpu_millis = self.config.capacity.millis, memory_mib = self.config.capacity.mib, "following the feed of hosted seats");
        loop {
            let next = tokio::select! {
                n = feed.message() => n,
                _ = shutdown.wait_for(|s| *s) => return Ok(true),
            };
            let seat = match next {
                Ok(Some(m)) => m.seat,
                Ok(None) => return Ok(false),
                Err(s) => {
                    tracing::warn!(error = %s.message(), "runner: the feed broke");
                    return Ok(false);
                }
            };
            let Some(seat) = seat else { continue };
            live.retain(|_, l| !l.task.is_finished());
            let key = (seat.table_id.clone(), seat.seat);
            if live.get(&key).is_some_and(|l| l.token == seat.seat_token) {
                continue;
            }
            let (superseded, stop) = watch::channel(false);
            let token = seat.seat_token.clone();
            let task = tokio::spawn(Arc::clone(self).play(seat, stop));
            if let Some(old) = live.insert(key, Live { token, task, superseded }) {
                old.superseded.send_replace(true);
            }
        }
    }

    /// One hosted seat, start to end.
    async fn play(self: Arc<Self>, hosted: pb::HostedSeat, superseded: watch::Receiver<bool>) {
        let Some(version) = hosted.version else { return };
        let id = sandbox_id();
        let started = SystemTime::now();
        let mut seat = Seat {
            bot_name: hosted.bot_name,
            digest: version.digest.clone(),
            version_id: version.version_id.clone(),
            image: String::new(),
            command: version.command.clone(),
            table_id: hosted.table_id,
            seat: hosted.seat,
            seat_token: hosted.seat_token,
            tournament_id: hosted.tournament_id,
            cpu_millis: hosted.cpu_millis.max(100),
            memory_mib: hosted.memory_mib.max(16),
            socket: (!hosted.socket_path.is_empty()).then(|| PathBuf::from(&hosted.socket_path)),
        };
        let failed = |detail: String| Ending { outcome: "failed-to-start", detail, ..Default::default() };
        if seat.socket.is_none() && matches!(self.config.engine, Engine::Podman(_)) {
            let why = "the server made no socket for this seat, and a podman sandbox has no other way out: \
                       start the server with --hosting-socket-dir on this machine (--runner podman does)";
            tracing::error!(sandbox = %id, table = %seat.table_id, "{why}");
            self.report(&id, &seat, started, &failed(why.into()), true, "").await;
            return;
        }
        seat.image = match self.image(&version).await {
            Ok(i) => i,
            Err(why) => {
                self.report(&id, &seat, started, &failed(why.clone()), true, &why).await;
                return;
            }
        };
        let place = self.cores.take(seat.cpu_millis);
        let mut ending = self.run(&id, &seat, &place, started, &superseded).await;
        self.cores.release(&place);
        if place.shared && ending.outcome != "failed-to-start" {
            ending.detail.push_str("; it shared its cores with other sandboxes (the runner had no free core): its times were not all its own");
        }
        // An image the cluster cannot pull is the version's fault: its seats stop coming.
        let failure = if ending.image_failed { ending.detail.clone() } else { String::new() };
        self.report(&id, &seat, started, &ending, true, &failure).await;
    }

    /// Starts the sandbox on its cores, reports it running and watches it to its end.
    async fn run(
        &self,
        id: &str,
        seat: &Seat,
        place: &crate::cores::Place,
        started: SystemTime,
        superseded: &watch::Receiver<bool>,
    ) -> Ending {
        let engine = &self.config.engine;
        let limits = &self.config.limits;
        if place.shared {
            tracing::warn!(sandbox = %id, bot = %seat.bot_name, cores = %place.cpuset, "no free core: this sandbox shares its cores with another, whose spinning reaches its decisions (measured: p99 42 -> 133 ms; docs/hosted-bots.md)");
        }
        // Kubernetes places Pods itself: the cpuset is podman's.
        let cpuset = matches!(engine, Engine::Podman(_)).then(|| place.cpuset.clone());
        let spec = sandbox::spec_of(id, seat, limits, cpuset);
        let running = match engine.start(id, &spec, limits).await {
            Ok(s) => s,
            Err(why) => return Ending { outcome: "failed-to-start", detail: why, ..Default::default() },
        };
        tracing::info!(sandbox = %id, bot = %seat.bot_name, table = %seat.table_id, seat = seat.seat, cores = %place.cpuset, "sandbox started");
        let note = Ending { outcome: "running", detail: "running".into(), ..Default::default() };
        self.report(id, seat, started, &note, false, "").await;
        let client = SkatServiceClient::new(self.channel.clone());
        let ending = sandbox::watch(engine, running, seat, limits, Some(client), superseded).await;
        tracing::info!(sandbox = %id, bot = %seat.bot_name, outcome = ending.outcome, cpu_ms = ending.usage.cpu_ms, "sandbox ended");
        ending
    }

    /// Sends a report, trying a few times (the server may be restarting).
    async fn report(
        &self,
        id: &str,
        seat: &Seat,
        started: SystemTime,
        ending: &Ending,
        ended: bool,
        failure: &str,
    ) {
        let message = pb::ReportSandboxRequest {
            sandbox: Some(sandbox::report(id, seat, &self.config.name, started, ending, ended)),
            log: ending.log.clone(),
            version_failure: failure.to_string(),
        };
        for attempt in 0..5u32 {
            match self.hosting().report_sandbox(with_token(message.clone(), &self.config.token)).await {
                Ok(_) => return,
                Err(s) => {
                    tracing::warn!(sandbox = %id, attempt, error = %s.message(), "runner: a report was not taken");
                    tokio::time::sleep(Duration::from_secs(1 << attempt)).await;
                }
            }
        }
    }

    /// The image of a version, loaded or pulled once: its name, or why not.
    async fn image(&self, version: &pb::BotVersion) -> Result<String, String> {
        let cell = {
            let mut images = self.images.lock().unwrap_or_else(|p| p.into_inner());
            Arc::clone(images.entry(version.digest.clone()).or_default())
        };
        cell.get_or_init(|| self.load(version)).await.clone()
    }

    async fn load(&self, version: &pb::BotVersion) -> Result<String, String> {
        let podman = match &self.config.engine {
            Engine::Podman(p) => p,
            // The kubelet pulls the image when the Pod starts; failures show in the Pod.
            Engine::Kubernetes(_) if !version.image_ref.is_empty() => return Ok(version.image_ref.clone()),
            Engine::Kubernetes(_) => {
                return Err("this server runs hosted bots on Kubernetes, whose nodes pull images from \
                     registries: submit the version by reference (skat bot submit --image \
                     REGISTRY/NAME@sha256:...) from a registry the cluster can reach"
                    .into());
            }
        };
        if !version.image_ref.is_empty() {
            podman
                .pull(&version.image_ref)
                .await
                .map_err(|e| format!("the image could not be pulled: {e}"))?;
            return Ok(version.image_ref.clone());
        }
        let hex = version.digest.strip_prefix("sha256:").unwrap_or(&version.digest);
        let tag = format!("localhost/skat-hosted:sha256-{hex}");
        if podman.has_image(&tag).await {
            return Ok(tag);
        }
        let path = self.config.limits.work_dir.join(format!("sha256-{hex}.tar"));
        let fetched = self.fetch(&version.digest, &path).await;
        let loaded = match fetched {
            Ok(()) => {
                podman.load(&path, &tag).await.map_err(|e| format!("the image could not be loaded: {e}"))
            }
            Err(e) => Err(e),
        };
        let _ = tokio::fs::remove_file(&path).await;
        loaded.map(|()| tag)
    }

    /// Fetches an archive and checks it against its digest.
    async fn fetch(&self, digest: &str, path: &std::path::Path) -> Result<(), String> {
        use sha2::Digest as _;
        let request = with_token(pb::FetchBotImageRequest { digest: digest.to_string() }, &self.config.token);
        let mut stream = self
            .hosting()
            .fetch_bot_image(request)
            .await
            .map_err(|s| format!("the archive could not be fetched: {}", s.message()))?
            .into_inner();
        let mut file = tokio::fs::File::create(path)
            .await
            .map_err(|e| format!("the runner could not write the archive: {e}"))?;
        let mut hasher = sha2::Sha256::new();
        while let Some(chunk) = stream
            .message()
            .await
            .map_err(|s| format!("the archive could not be fetched: {}", s.message()))?
        {
            hasher.update(&chunk.chunk);
            file.write_all(&chunk.chunk)
                .await
                .map_err(|e| format!("the runner could not write the archive: {e}"))?;
        }
        file.flush().await.map_err(|e| e.to_string())?;
        let got: String = hasher.finalize().iter().map(|b| format!("{b:02x}")).collect();
        if format!("sha256:{got}") != digest {
            return Err(format!("the archive fetched is not {digest}: it was damaged on the way"));
        }
        Ok(())
    }
}

/// 12 random hex digits.
fn sandbox_id() -> String {
    let mut b = [0u8; 6];
    if getrandom::fill(&mut b).is_err() {
        let n = SystemTime::now().duration_since(SystemTime::UNIX_EPOCH).map_or(0, |d| d.as_nanos());
        b.copy_from_slice(&n.to_le_bytes()[..6]);
    }
    b.iter().map(|x| format!("{x:02x}")).collect()
}
