//! # The rpc room
//!
//! The only room that knows tonic and protobuf: the gRPC service (and, behind the
//! default `web` feature, the page with gRPC-Web), split by RPC group; the refusal
//! mapping; the projection of the domain onto `skat.v1`; streams; the edge layer; and
//! the per-address limits.
//!
//! | concern | where |
//! |---|---|
//! | serving: the gRPC port with health and reflection, the web port, shutdown | this file |
//! | the service's state, finding a table or its owner, the trait impl | [`service`] |
//! | CreateTable, ListTables, JoinTable, LeaveTable, GetTable, GetRecords | [`tables`] |
//! | Bid, TakeSkat, Discard, Declare, PlayCard, Resign, Claim | [`actions`] |
//! | WatchTable: a cursor into the log, a bounded buffer, the stream's end | [`watch`] |
//! | WatchTables: many WatchTable streams on one (a lobby's seats) | [`watches`] |
//! | accounts, lobbies, tournaments, ratings | [`competitions`] |
//! | hosted bots: versions, sandboxes, the runner's feed (`skat.v1.HostingService`) | [`hosting`] |
//! | gRPC on a Unix socket, for sandboxes | [`unix`] |
//! | what the server allows and its settings (GetServerInfo) | [`server_info`] |
//! | bearer tokens and the `--anonymous` policy | [`access`] |
//! | every domain error as a status with `ErrorInfo` | [`refusal`] |
//! | the domain as protobuf (a projection of the tables and competitions) | [`projection`] |
//! | spans, metrics, refusal logs, client-fault codes for every call (a tower layer) | [`edge`] |
//! | what each client address holds: tables, streams, connections | [`limits`] |
//! | who the client is, also behind a trusted proxy | [`peer`] |
//! | TLS on both ports, certificates reloaded when their files change | [`tls`] |
//! | the page and gRPC-Web | `web` (feature `web`) |

pub(crate) mod access;
pub(crate) mod actions;
pub(crate) mod analysis;
pub(crate) mod challenges;
pub(crate) mod competitions;
mod dispatch;
pub(crate) mod edge;
pub(crate) mod held;
pub(crate) mod hosting;
/// The SDKs' knowledge corpus generator: a test of this crate's internals (the
/// projection, the table), kept with the tests rather than among production files.
#[cfg(test)]
#[path = "../../tests/unit/knowledge_corpus.rs"]
mod knowledge_corpus;
pub(crate) mod limits;
/// Golden digests of everything that reads a table's past (events, records).
#[cfg(test)]
#[path = "../../tests/unit/log_golden.rs"]
mod log_golden;
pub(crate) mod peer;
pub(crate) mod projection;
pub(crate) mod refusal;
pub(crate) mod sandbox;
pub(crate) mod server_info;
pub(crate) mod service;
pub(crate) use service::Floors;
pub(crate) mod stall;
pub(crate) mod tables;
pub(crate) mod tls;
pub(crate) mod unix;
pub(crate) mod watch;
pub(crate) mod watches;
#[cfg(feature = "web")]
pub(crate) mod web;
pub(crate) mod woken;

use std::future::Future;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use skat_proto::pb::hosting_service_server::HostingServiceServer;
use skat_proto::pb::skat_service_server::SkatServiceServer;
use tokio::sync::watch as signal;
use tokio::task::JoinHandle;

use crate::config::ServerConfig;
use crate::metrics::Metrics;
use service::SkatServer;

/// HTTP/2's limit of concurrent streams on one connection: room for every stream the
/// server lets a connection carry and every request in flight beside them. A client that
/// reached HTTP/2's limit would queue its next stream without an error; below it, a
/// stream over one of the server's own limits is refused with RESOURCE_EXHAUSTED instead.
pub(crate) fn h2_streams(config: &ServerConfig) -> u32 {
    let streams =
        config.max_streams_per_connection.saturating_add(config.max_concurrent_requests_per_connection);
    u32::try_from(streams.saturating_add(8)).unwrap_or(u32::MAX)
}

/// Largest HostingService request: an archive chunk or a sandbox report with its
/// output (1 MiB) and room to spare.
const HOSTING_MESSAGE_BYTES: usize = 2 * 1024 * 1024;

/// What the service is made of, from [`crate::start`].
pub(crate) struct Parts {
    pub(crate) config: Arc<ServerConfig>,
    pub(crate) metrics: Metrics,
    pub(crate) floors: service::Floors,
    /// Set to true after the drain: streams end, the server stops.
    pub(crate) stop: signal::Sender<bool>,
    /// Turns true if the journal failed (the server then stops by itself).
    pub(crate) failed: signal::Receiver<bool>,
}

/// A server being served.
pub(crate) struct Serving {
    pub(crate) web_addr: Option<SocketAddr>,
    pub(crate) task: JoinHandle<std::io::Result<()>>,
}

/// Serves gRPC on `listener` (and the page on `--web-addr`) until `shutdown` resolves or
/// the journal fails; then: health turns NOT_SERVING, the server keeps serving for the
/// drain, open streams end with UNAVAILABLE, in-flight calls finish within the grace.
pub(crate) async fn serve(
    listener: tokio::net::TcpListener,
    parts: Parts,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<Serving> {
    let Parts { config, metrics, floors, stop, failed } = parts;

    let (health_reporter, health_service) = tonic_health::server::health_reporter();
    health_reporter.set_serving::<SkatServiceServer<SkatServer>>().await;
    // For liveness probes: stays SERVING while the server drains, so that a pod that is
    // leaving (readiness NOT_SERVING) is not restarted.
    health_reporter.set_service_status(crate::LIVENESS_SERVICE, tonic_health::ServingStatus::Serving).await;
    let reflection_v1 = reflection().build_v1().map_err(std::io::Error::other)?;
    let reflection_v1alpha = reflection().build_v1alpha().map_err(std::io::Error::other)?;

    let stopped = stop.subscribe();
    let service = SkatServer::new(floors, Arc::clone(&config), metrics.clone(), stopped.clone());
    let clients = Arc::clone(&service.clients);
    // Requests are small, so the limit applies to them; responses are built by the
    // server from bounded tables.
    let grpc = SkatServiceServer::new(service.clone()).max_decoding_message_size(config.max_message_bytes);
    let mut beside = match &config.unix_socket {
        Some(path) => vec![unix::serve(path, grpc.clone(), &config, &metrics, stopped.clone())?],
        None => Vec::new(),
    };
    let tls = match &config.tls {
        Some(files) => Some(
            tls::Tls::start(files, tls::ALPN_GRPC, &metrics, stopped.clone())
                .map_err(|e| std::io::Error::other(format!("--tls-cert/--tls-key: {e}")))?,
        ),
        None => None,
    };
    let (sandboxes, doors) =
        sandbox::Sandboxes::start(&service, sandbox_port(&config, &tls).await?, stopped.clone())?;
    beside.extend(doors);
    let web_addr = serve_web(&config, &service, &sandboxes, &metrics, &stopped).await?;
    // Archive chunks and sandbox reports (1 MiB of output) are larger than game requests.
    let hosting = HostingServiceServer::new(hosting::HostingApi::new(service.clone(), sandboxes))
        .max_decoding_message_size(HOSTING_MESSAGE_BYTES);

    let on_shutdown = drained(shutdown, failed, health_reporter, config.drain, metrics.clone(), stop);

    // Every connection counts against its client's limit while it is open.
    let admitted = limits::admitted(
        listener,
        clients,
        config.max_connections_per_client,
        config.trusted_proxies.clone(),
        metrics.connections.clone(),
    );
    let incoming = tls::incoming(admitted, tls);
    let serve = tonic::transport::Server::builder()
        // A client's own connection cannot take more than its share of the workers.
        .concurrency_limit_per_connection(config.max_concurrent_requests_per_connection)
        .max_concurrent_streams(Some(h2_streams(&config)))
        // Dead peers are noticed, and their streams end, within about a minute.
        .http2_keepalive_interval(Some(Duration::from_secs(30)))
        .http2_keepalive_timeout(Some(Duration::from_secs(20)))
        // Spans, metrics, refusal logs and client-fault codes for every call, in one place.
        .layer(edge::EdgeLayer::new(metrics.clone(), &config.trusted_proxies, config.forwarded_header))
        .add_service(health_service)
        .add_service(reflection_v1)
        .add_service(reflection_v1alpha)
        .add_service(grpc)
        .add_service(hosting)
        .serve_with_incoming_shutdown(incoming, on_shutdown);
    let task = tokio::spawn(with_grace(serve, stopped, config.shutdown_grace, beside));
    metrics.serving.set(1);
    Ok(Serving { web_addr, task })
}

/// Reflection of every service served (the contract, health, the error details), so
/// that grpcurl and buf curl need no files.
fn reflection() -> tonic_reflection::server::Builder<'static> {
    tonic_reflection::server::Builder::configure()
        .register_encoded_file_descriptor_set(skat_proto::FILE_DESCRIPTOR_SET)
        .register_encoded_file_descriptor_set(tonic_health::pb::FILE_DESCRIPTOR_SET)
        .register_encoded_file_descriptor_set(tonic_types::pb::FILE_DESCRIPTOR_SET)
}

/// Resolves when the server is to stop taking work (`shutdown`, or the journal failed),
/// after the drain: health turns NOT_SERVING first, then `stop` turns true.
async fn drained(
    shutdown: impl Future<Output = ()>,
    mut failed: signal::Receiver<bool>,
    health: tonic_health::server::HealthReporter,
    drain: Duration,
    metrics: Metrics,
    stop: signal::Sender<bool>,
) {
    tokio::select! {
        _ = shutdown => {}
        // Without a journal the sender is gone at once: that is no failure.
        Ok(_) = failed.wait_for(|f| *f) => {}
    }
    tracing::info!(drain_ms = drain.as_millis() as u64, "shutting down: health NOT_SERVING, draining");
    health.set_not_serving::<SkatServiceServer<SkatServer>>().await;
    health.set_service_status("", tonic_health::ServingStatus::NotServing).await;
    metrics.serving.set(0);
    tokio::time::sleep(drain).await;
    let _ = stop.send(true);
}

/// The sandbox port (`--hosting-sandbox-addr`), bound, with the gRPC port's TLS. It
/// carries seat tokens: without TLS it listens on loopback only.
async fn sandbox_port(
    config: &ServerConfig,
    tls: &Option<Arc<tls::Tls>>,
) -> std::io::Result<Option<(tokio::net::TcpListener, Option<Arc<tls::Tls>>)>> {
    let Some(at) = config.hosting.sandbox_addr else { return Ok(None) };
    if tls.is_none() && !at.ip().is_loopback() {
        return Err(std::io::Error::other(format!(
            "--hosting-sandbox-addr {at}: the sandbox port carries seat tokens; off loopback it needs TLS (--tls-cert, --tls-key)"
        )));
    }
    let listener = tokio::net::TcpListener::bind(at).await.map_err(|e| {
        std::io::Error::new(e.kind(), format!("cannot listen on --hosting-sandbox-addr {at}: {e}"))
    })?;
    tracing::info!(addr = %at, tls = tls.is_some(), "the sandbox port: hosted seats' calls only");
    Ok(Some((listener, tls.clone())))
}

/// Runs the server to its end. Graceful shutdown waits for every open response; a client
/// that never reads its stream would hold it forever: after the drain, `grace` is all
/// they get. The servers beside it (the Unix socket, the sandboxes' doors) end with it.
async fn with_grace<E: std::error::Error + Send + Sync + 'static>(
    serve: impl Future<Output = Result<(), E>>,
    mut stopped: signal::Receiver<bool>,
    grace: Duration,
    beside: Vec<JoinHandle<()>>,
) -> std::io::Result<()> {
    let result = tokio::select! {
        result = serve => result.map_err(std::io::Error::other),
        _ = async {
            let _ = stopped.wait_for(|s| *s).await;
            tokio::time::sleep(grace).await;
        } => {
            tracing::warn!(grace_ms = grace.as_millis() as u64, "connections still open after the grace period: closing them");
            Ok(())
        }
    };
    for task in beside {
        // Each ends on `stopped` and gives its open calls the same grace.
        if tokio::time::timeout(grace + Duration::from_secs(1), task).await.is_err() {
            tracing::warn!("a server beside the gRPC port did not end within the grace period");
        }
    }
    result
}

/// The page, with the same service over gRPC-Web, on its own address.
#[cfg(feature = "web")]
async fn serve_web(
    config: &ServerConfig,
    service: &SkatServer,
    sandboxes: &Arc<sandbox::Sandboxes>,
    metrics: &Metrics,
    stopped: &signal::Receiver<bool>,
) -> std::io::Result<Option<SocketAddr>> {
    let Some(at) = config.web_addr else { return Ok(None) };
    match tokio::net::TcpListener::bind(at).await {
        Ok(listener) => {
            let bound = listener.local_addr()?;
            web::serve(
                listener,
                service.clone(),
                Arc::clone(sandboxes),
                config,
                Arc::clone(&service.clients),
                metrics.clone(),
                stopped.clone(),
            )
            .map_err(|e| std::io::Error::other(format!("--tls-cert/--tls-key on the web port: {e}")))?;
            Ok(Some(bound))
        }
        Err(e) if config.web_addr_default => {
            tracing::warn!(%at, error = %e, "the web page is off: its default address is taken (set --web-addr)");
            Ok(None)
        }
        Err(e) => Err(std::io::Error::new(e.kind(), format!("cannot listen on --web-addr {at}: {e}"))),
    }
}

/// Without the `web` feature there is no page: `--web-addr` is refused.
#[cfg(not(feature = "web"))]
async fn serve_web(
    config: &ServerConfig,
    _: &SkatServer,
    _: &Arc<sandbox::Sandboxes>,
    _: &Metrics,
    _: &signal::Receiver<bool>,
) -> std::io::Result<Option<SocketAddr>> {
    match config.web_addr {
        Some(_) if !config.web_addr_default => Err(std::io::Error::other(
            "this server was built without the web page (feature `web`): drop --web-addr",
        )),
        _ => Ok(None),
    }
}
