//! `skat.v1.HostingService`: authors' versions and sandboxes (bot token), the operator's
//! approval (admin token), the runner's feed, archives and reports (runner token). The
//! domain is the hosting room; this file converts and authenticates.

use crate::rpc::refusal::{Refused, refuse};
use std::pin::Pin;
use std::sync::Arc;

use skat_proto::pb;
use skat_proto::pb::hosting_service_server::HostingService;
use tokio::io::AsyncReadExt as _;
use tokio_stream::{Stream, StreamExt as _};
use tonic::{Code, Request, Response, Status, Streaming};

use super::access::bearer;
use super::limits::client_of;
use super::refusal::Refusal;
use super::sandbox::Sandboxes;
use super::sandbox::doors::Pass;
use super::service::SkatServer;
use skat_competition::hosting::upload::Upload;
use skat_competition::hosting::{Hosting, HostingError, VersionHeader, VersionPick};
use skat_competition::places::Size;
use skat_proto::pb::ErrorReason as R;
use skat_store::hosting::{SandboxFilter, StoredSandbox, StoredVersion, VersionState};

/// Bytes per FetchBotImage message.
const FETCH_CHUNK: usize = 256 * 1024;

/// The hosting service over the server's state.
#[derive(Debug, Clone)]
pub(crate) struct HostingApi {
    server: SkatServer,
    sandboxes: Arc<Sandboxes>,
}

impl HostingApi {
    /// The service; the runner's feed opens a door for every seat it hands out.
    pub(crate) fn new(server: SkatServer, sandboxes: Arc<Sandboxes>) -> HostingApi {
        HostingApi { server, sandboxes }
    }

    fn hosting(&self) -> &Arc<Hosting> {
        &self.server.hosting
    }
}

type Answer<T> = Result<Response<T>, Status>;
type Boxed<T> = Pin<Box<dyn Stream<Item = Result<T, Status>> + Send + 'static>>;

/// A version as the wire shows it.
pub(crate) fn version(v: &StoredVersion, bot_name: &str) -> pb::BotVersion {
    pb::BotVersion {
        digest: v.digest.clone(),
        image_ref: v.image_ref.clone(),
        size_bytes: v.size_bytes,
        command: v.command.clone(),
        sdk: v.sdk.clone(),
        state: match v.state {
            VersionState::Pending => pb::VersionState::Pending,
            VersionState::Approved => pb::VersionState::Approved,
            VersionState::Failed => pb::VersionState::Failed,
        } as i32,
        active: v.active,
        failure: v.failure.clone(),
        submitted_unix_ms: i64::try_from(v.submitted_ms).unwrap_or(i64::MAX),
        bot_name: bot_name.to_string(),
        version_id: v.version_id.clone(),
    }
}

const OUTCOMES: [(&str, pb::SandboxOutcome); 6] = [
    ("running", pb::SandboxOutcome::Running),
    ("exited", pb::SandboxOutcome::Exited),
    ("stopped", pb::SandboxOutcome::Stopped),
    ("out-of-memory", pb::SandboxOutcome::OutOfMemory),
    ("timed-out", pb::SandboxOutcome::TimedOut),
    ("failed-to-start", pb::SandboxOutcome::FailedToStart),
];

fn sandbox(s: StoredSandbox, bot_name: String) -> pb::Sandbox {
    let outcome =
        OUTCOMES.iter().find(|(n, _)| *n == s.outcome).map_or(pb::SandboxOutcome::Unspecified, |(_, o)| *o);
    pb::Sandbox {
        id: s.sandbox_id,
        bot_name,
        digest: s.digest,
        table_id: s.table_id,
        seat: s.seat,
        tournament_id: s.tournament_id,
        outcome: outcome as i32,
        exit_code: s.exit_code,
        cpu_ms: s.cpu_ms,
        memory_peak_bytes: s.memory_peak,
        started_unix_ms: i64::try_from(s.started_ms).unwrap_or(i64::MAX),
        ended_unix_ms: i64::try_from(s.ended_ms).unwrap_or(i64::MAX),
        detail: s.detail,
        log_bytes: s.log_bytes,
        log_truncated: s.log_truncated,
        version_id: s.version_id,
        runner: s.runner,
    }
}

fn stored(s: pb::Sandbox) -> Result<StoredSandbox, Status> {
    let outcome = pb::SandboxOutcome::try_from(s.outcome).unwrap_or(pb::SandboxOutcome::Unspecified);
    let Some((name, _)) = OUTCOMES.iter().find(|(_, o)| *o == outcome) else {
        return Err(Refusal::new(
            Code::InvalidArgument,
            R::InvalidSettings,
            "a sandbox report needs an outcome",
        )
        .into());
    };
    let short = |t: String, n: usize| -> String { t.chars().filter(|c| !c.is_control()).take(n).collect() };
    if s.id.is_empty() || s.bot_name.is_empty() {
        return Err(Refusal::new(
            Code::InvalidArgument,
            R::InvalidSettings,
            "a sandbox report names its sandbox and account",
        )
        .into());
    }
    Ok(StoredSandbox {
        sandbox_id: short(s.id, 64),
        account_id: short(s.bot_name, 64),
        digest: short(s.digest, 80),
        version_id: short(s.version_id, 32),
        runner: short(s.runner, 64),
        table_id: short(s.table_id, 64),
        seat: s.seat.min(3),
        tournament_id: short(s.tournament_id, 64),
        outcome: (*name).to_string(),
        exit_code: s.exit_code,
        cpu_ms: s.cpu_ms,
        memory_peak: s.memory_peak_bytes,
        started_ms: u64::try_from(s.started_unix_ms).unwrap_or(0),
        ended_ms: u64::try_from(s.ended_unix_ms).unwrap_or(0),
        detail: s.detail,
        log_bytes: 0,
        log_truncated: s.log_truncated,
    })
}

impl HostingApi {
    async fn receive(
        &self,
        mut parts: Streaming<pb::SubmitBotVersionRequest>,
        bot_token: Option<String>,
    ) -> Result<pb::BotVersion, Status> {
        use pb::submit_bot_version_request::Part;
        let account = self.hosting().author(bot_token.as_deref()).await.refused()?;
        let first = parts.message().await?.and_then(|m| m.part);
        let Some(Part::Header(h)) = first else {
            return Err(refuse(HostingError::Protocol(
                "the first message of SubmitBotVersion is its header",
            )));
        };
        let header = VersionHeader { command: h.command, sdk: h.sdk, activate: h.activate };
        let v = if h.image_ref.is_empty() {
            let config = &self.server.config.hosting;
            let dir = config.images_dir.as_ref().ok_or(HostingError::NoArchives).refused()?;
            let mut upload = Upload::begin(dir, config.max_image_bytes).await.refused()?;
            while let Some(m) = parts.message().await? {
                match m.part {
                    Some(Part::Chunk(bytes)) => upload.write(&bytes).await.refused()?,
                    _ => {
                        return Err(refuse(HostingError::Protocol(
                            "after the header, SubmitBotVersion carries chunks only",
                        )));
                    }
                }
            }
            let kept = upload.finish().await.refused()?;
            self.hosting().keep(&account, kept.digest, String::new(), kept.size, &header).await.refused()?
        } else {
            if parts.message().await?.is_some() {
                return Err(refuse(HostingError::Protocol("a reference comes without archive chunks")));
            }
            self.hosting().submit_reference(&account, &h.image_ref, &header).await.refused()?
        };
        Ok(version(&v, account.name.as_str()))
    }

    /// Who lists sandboxes: an account (its own) or the operator (None).
    async fn lister<T>(&self, request: &Request<T>) -> Result<Option<skat_store::accounts::Account>, Status> {
        let token = bearer(request.metadata())?;
        if self.hosting().admin(token.as_deref(), client_of(request)).is_ok() {
            return Ok(None);
        }
        Ok(Some(self.hosting().author(token.as_deref()).await.refused()?))
    }

    async fn names_of(&self, rows: &[StoredSandbox]) -> std::collections::HashMap<String, String> {
        let ids: Vec<skat_league::AccountId> =
            rows.iter().filter_map(|s| s.account_id.parse().ok()).collect();
        match self.server.journal.store() {
            Some(store) => store
                .accounts
                .accounts(&ids)
                .await
                .map(|m| m.into_iter().map(|(id, a)| (id.to_string(), a.name.to_string())).collect())
                .unwrap_or_default(),
            None => Default::default(),
        }
    }
}

#[tonic::async_trait]
impl HostingService for HostingApi {
    async fn submit_bot_version(
        &self,
        request: Request<Streaming<pb::SubmitBotVersionRequest>>,
    ) -> Answer<pb::SubmitBotVersionResponse> {
        let token = bearer(request.metadata())?;
        let v = self.receive(request.into_inner(), token).await?;
        Ok(Response::new(pb::SubmitBotVersionResponse { version: Some(v) }))
    }

    async fn list_bot_versions(
        &self,
        request: Request<pb::ListBotVersionsRequest>,
    ) -> Answer<pb::ListBotVersionsResponse> {
        let token = bearer(request.metadata())?;
        let account = self.hosting().author(token.as_deref()).await.refused()?;
        let all = self.hosting().versions(&account).await.refused()?;
        Ok(Response::new(pb::ListBotVersionsResponse {
            versions: all.iter().map(|v| version(v, account.name.as_str())).collect(),
        }))
    }

    async fn activate_bot_version(
        &self,
        request: Request<pb::ActivateBotVersionRequest>,
    ) -> Answer<pb::ActivateBotVersionResponse> {
        let token = bearer(request.metadata())?;
        let account = self.hosting().author(token.as_deref()).await.refused()?;
        let r = request.get_ref();
        let pick = VersionPick { version_id: &r.version_id, digest: &r.digest };
        let v = self.hosting().activate(&account, &pick).await.refused()?;
        Ok(Response::new(pb::ActivateBotVersionResponse {
            version: v.map(|v| version(&v, account.name.as_str())),
        }))
    }

    async fn approve_bot_version(
        &self,
        request: Request<pb::ApproveBotVersionRequest>,
    ) -> Answer<pb::ApproveBotVersionResponse> {
        let token = bearer(request.metadata())?;
        let admin = self.hosting().admin(token.as_deref(), client_of(&request)).refused()?;
        let r = request.get_ref();
        let pick = VersionPick { version_id: &r.version_id, digest: &r.digest };
        let v = self.hosting().approve(&admin, &r.bot_name, &pick, r.approve).await.refused()?;
        Ok(Response::new(pb::ApproveBotVersionResponse { version: Some(version(&v, &r.bot_name)) }))
    }

    async fn list_sandboxes(
        &self,
        request: Request<pb::ListSandboxesRequest>,
    ) -> Answer<pb::ListSandboxesResponse> {
        let account = self.lister(&request).await?;
        let r = request.get_ref();
        let filter = SandboxFilter {
            account: account.as_ref().map(|a| &a.account_id),
            running_only: r.running_only,
            table_id: (!r.table_id.is_empty()).then_some(r.table_id.as_str()),
            limit: if r.limit == 0 { 50 } else { r.limit.min(500) },
        };
        let rows = self.hosting().sandboxes(&filter).await.refused()?;
        let names = self.names_of(&rows).await;
        let sandboxes = rows
            .into_iter()
            .map(|s| {
                let name = names.get(&s.account_id).cloned().unwrap_or_else(|| s.account_id.clone());
                sandbox(s, name)
            })
            .collect();
        Ok(Response::new(pb::ListSandboxesResponse { sandboxes }))
    }

    async fn get_sandbox_log(
        &self,
        request: Request<pb::GetSandboxLogRequest>,
    ) -> Answer<pb::GetSandboxLogResponse> {
        let account = self.lister(&request).await?;
        let (s, log) = self
            .hosting()
            .sandbox_log(&request.get_ref().sandbox_id, account.as_ref().map(|a| &a.account_id))
            .await
            .refused()?;
        let names = self.names_of(std::slice::from_ref(&s)).await;
        let name = names.get(&s.account_id).cloned().unwrap_or_default();
        Ok(Response::new(pb::GetSandboxLogResponse {
            sandbox: Some(sandbox(s, name)),
            log: log.into_bytes(),
        }))
    }

    type RunnerFeedStream = Boxed<pb::RunnerFeedResponse>;

    async fn runner_feed(&self, request: Request<pb::RunnerFeedRequest>) -> Answer<Self::RunnerFeedStream> {
        let token = bearer(request.metadata())?;
        self.hosting().runner(token.as_deref()).refused()?;
        let r = request.get_ref();
        // 0: the runner states no limit (an older runner): it is given what comes.
        let stated = |n: u64| if n == 0 { u64::MAX / 4 } else { n };
        let capacity = Size { millis: stated(r.capacity_cpu_millis), mib: stated(r.capacity_memory_mib) };
        let mut seats = self.hosting().feed(&r.runner, capacity);
        let mut shutdown = self.server.shutdown.clone();
        let sandboxes = Arc::clone(&self.sandboxes);
        let stream = async_stream_of(
            &self.server.tasks,
            async move |tx: tokio::sync::mpsc::Sender<Result<pb::RunnerFeedResponse, Status>>| {
                loop {
                    let seat = tokio::select! {
                        seat = seats.recv() => seat,
                        _ = tx.closed() => return,
                        _ = async { let _ = shutdown.wait_for(|s| *s).await; } => {
                            let _ = tx.send(Err(Refusal::new(Code::Unavailable, R::ShuttingDown, "server is shutting down; reconnect").status())).await;
                            return;
                        }
                    };
                    let Some(seat) = seat else {
                        let _ = tx
                            .send(Err(Refusal::new(
                                Code::Unavailable,
                                R::ShuttingDown,
                                "another runner took the feed over, or the server is stopping",
                            )
                            .status()))
                            .await;
                        return;
                    };
                    let Some(hosted) = hosted_seat(&sandboxes, seat) else { continue };
                    if tx.send(Ok(pb::RunnerFeedResponse { seat: Some(hosted) })).await.is_err() {
                        return;
                    }
                }
            },
        );
        Ok(Response::new(stream))
    }

    type FetchBotImageStream = Boxed<pb::FetchBotImageResponse>;

    async fn fetch_bot_image(
        &self,
        request: Request<pb::FetchBotImageRequest>,
    ) -> Answer<Self::FetchBotImageStream> {
        let token = bearer(request.metadata())?;
        self.hosting().runner(token.as_deref()).refused()?;
        let digest = request.get_ref().digest.clone();
        let missing = || refuse(HostingError::VersionNotFound(digest.chars().take(80).collect()));
        let path = self.hosting().archive_path(&digest).ok_or_else(missing)?;
        let mut file = tokio::fs::File::open(&path).await.map_err(|_| missing())?;
        let stream = async_stream_of(
            &self.server.tasks,
            async move |tx: tokio::sync::mpsc::Sender<Result<pb::FetchBotImageResponse, Status>>| {
                let mut buf = vec![0u8; FETCH_CHUNK];
                loop {
                    match file.read(&mut buf).await {
                        Ok(0) => return,
                        Ok(n) => {
                            if tx
                                .send(Ok(pb::FetchBotImageResponse { chunk: buf[..n].to_vec() }))
                                .await
                                .is_err()
                            {
                                return;
                            }
                        }
                        Err(e) => {
                            tracing::error!(error = %e, "an image archive could not be read");
                            let _ = tx
                                .send(Err(Status::unavailable("the archive could not be read; retry")))
                                .await;
                            return;
                        }
                    }
                }
            },
        );
        Ok(Response::new(stream))
    }

    async fn report_sandbox(
        &self,
        request: Request<pb::ReportSandboxRequest>,
    ) -> Answer<pb::ReportSandboxResponse> {
        let token = bearer(request.metadata())?;
        self.hosting().runner(token.as_deref()).refused()?;
        let r = request.into_inner();
        let Some(s) = r.sandbox else {
            return Err(Refusal::new(
                Code::InvalidArgument,
                R::InvalidSettings,
                "a report carries its sandbox",
            )
            .into());
        };
        let mut s = stored(s)?;
        // The runner names the account by name; rows keep its id.
        let store = self.server.journal.store().ok_or(HostingError::NoDatabase).refused()?;
        let account = store
            .accounts
            .account_by_name(&s.account_id)
            .await
            .refused()?
            .ok_or_else(|| HostingError::BotNotFound(s.account_id.clone()))
            .refused()?;
        s.account_id = account.account_id.to_string();
        let log = (!r.log.is_empty() || s.outcome != "running").then_some(r.log.as_slice());
        self.hosting().report(s, log, &r.version_failure).await.refused()?;
        Ok(Response::new(pb::ReportSandboxResponse {}))
    }

    async fn list_runners(
        &self,
        request: Request<pb::ListRunnersRequest>,
    ) -> Answer<pb::ListRunnersResponse> {
        let token = bearer(request.metadata())?;
        self.hosting().admin(token.as_deref(), client_of(&request)).refused()?;
        let shown = |n: u64| if n >= u64::MAX / 4 { 0 } else { n };
        let runners = self
            .server
            .competitions
            .places()
            .runners()
            .into_iter()
            .map(|r| pb::Runner {
                name: r.name,
                capacity_cpu_millis: shown(r.capacity.millis),
                capacity_memory_mib: shown(r.capacity.mib),
                used_cpu_millis: r.used.millis,
                used_memory_mib: r.used.mib,
                seats: r.seats as u32,
                connected: r.connected,
            })
            .collect();
        let tables_waiting = u32::try_from(self.server.metrics.hosting.tables_waiting.get()).unwrap_or(0);
        Ok(Response::new(pb::ListRunnersResponse { runners, tables_waiting }))
    }
}

/// A seat for the runner, with its door opened (a socket of its own when the server
/// makes them); `None` when the door could not be made (logged: the seat forfeits on its
/// clock, as an absent bot's).
fn hosted_seat(
    sandboxes: &Sandboxes,
    seat: skat_competition::hosting::feed::HostedSeat,
) -> Option<pb::HostedSeat> {
    let pass = Pass {
        table_id: seat.offer.table_id.clone(),
        seat: seat.offer.seat,
        bot_name: seat.bot_name.clone(),
    };
    let socket = match sandboxes.open(pass, &seat.offer.seat_token) {
        Ok(s) => s,
        Err(e) => {
            tracing::error!(table = %seat.offer.table_id, seat = seat.offer.seat, error = %e, "a sandbox's door could not be made; its seat forfeits on time");
            return None;
        }
    };
    Some(pb::HostedSeat {
        version: Some(version(&seat.version, &seat.bot_name)),
        bot_name: seat.bot_name,
        table_id: seat.offer.table_id.clone(),
        seat: seat.offer.seat,
        seat_token: seat.offer.seat_token.clone(),
        tournament_id: seat.offer.tournament_id.as_ref().map(ToString::to_string).unwrap_or_default(),
        cpu_millis: seat.cpu_millis,
        memory_mib: seat.memory_mib,
        socket_path: socket.map(|p| p.display().to_string()).unwrap_or_default(),
    })
}

/// A stream fed by a task: the task ends when the client goes (the channel closes).
fn async_stream_of<T, F, Fut>(tasks: &skat_table::Tasks, task: F) -> Boxed<T>
where
    T: Send + 'static,
    F: FnOnce(tokio::sync::mpsc::Sender<Result<T, Status>>) -> Fut,
    Fut: std::future::Future<Output = ()> + Send + 'static,
{
    let (tx, rx) = tokio::sync::mpsc::channel(16);
    tasks.spawn(task(tx));
    Box::pin(tokio_stream::wrappers::ReceiverStream::new(rx).map(|x| x))
}
