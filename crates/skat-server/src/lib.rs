//! # skat-server
//!
//! The `skat.v1` gRPC server: tables playing lists of deals with the engine, seat
//! tokens, clocks, one event log per table with resumable, per-seat redacted streams, a
//! journal that makes every OK durable and brings tables back after a restart (SQLite or
//! PostgreSQL), gRPC health and reflection, Prometheus metrics, graceful shutdown.
//!
//! | concern | module |
//! |---|---|
//! | settings | [`config`] |
//! | seat tokens | [`auth`] |
//! | per-client limits (tables, streams by address) | [`clients`] |
//! | every call: span, metrics, refusal log, client-fault codes (a tower layer) | [`edge`] |
//! | refusals: code, stable reason, message, mapped to the wire once | [`error`] |
//! | one table: match, seats, tokens, clocks, log (no protobuf) | [`table`] |
//! | the table as protobuf: status, summary, views, events per reader, records | [`project`] |
//! | table ids (owner replica and number) | [`table_id`] |
//! | all tables, per-table lock, timers, expiry; the one path of every change | [`tables`] |
//! | the journal: group commit, an OK only once durable | [`journal`] |
//! | the database (SQLite or PostgreSQL): rows in, rows out | [`store`] |
//! | tables back from the journal: on start, and to read ended tables | [`recovery`] |
//! | the gRPC service (thin: convert, call, map errors) | [`service`] |
//! | one WatchTable stream: cursor, buffer, ending | [`stream`] |
//! | metrics (the registry; recorded by [`edge`]) | [`metrics`] |
//! | bot accounts, lobbies, tournaments, ratings | [`competition`] (rows: [`league`]) |
//! | start and stop | this page: [`start`] |

#![warn(missing_docs)]

pub mod auth;
pub mod clients;
pub mod competition;
pub mod config;
pub mod edge;
pub mod error;
pub mod journal;
pub mod league;
pub mod metrics;
pub mod project;
pub mod recovery;
pub mod service;
pub mod store;
pub mod stream;
pub mod table;
pub mod table_id;
pub mod tables;
pub mod web;

use std::future::Future;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::{Duration, Instant};

use skat_proto::pb::skat_service_server::SkatServiceServer;
use tokio::sync::watch;
use tokio::task::JoinHandle;

pub use config::{Database, ServerConfig};
pub use metrics::Metrics;

/// The health service name that answers SERVING until the process exits (liveness);
/// `""` and `skat.v1.SkatService` turn NOT_SERVING when draining (readiness).
pub const LIVENESS_SERVICE: &str = "liveness";

/// A server started by [`start`].
#[derive(Debug)]
pub struct RunningServer {
    /// The gRPC address it listens on (useful with port 0).
    pub addr: SocketAddr,
    /// The metrics address, when served.
    pub metrics_addr: Option<SocketAddr>,
    /// The spectator page's address (and its gRPC-Web), when served.
    pub web_addr: Option<SocketAddr>,
    /// Finishes when the server has shut down.
    pub task: JoinHandle<Result<(), tonic::transport::Error>>,
    /// Turns true if the journal failed (the server then stops by itself; exit non-zero).
    pub journal_failed: watch::Receiver<bool>,
    /// What the start brought back from the journal.
    pub recovered: recovery::Recovered,
    /// The server's metrics (also served on `metrics_addr`).
    pub metrics: Metrics,
}

/// Binds and starts the server; it runs until `shutdown` resolves, then: health turns
/// NOT_SERVING, the server keeps serving for `config.drain`, open watch streams end with
/// UNAVAILABLE ("reconnect with after_seq"), and in-flight RPCs finish.
pub async fn start(
    config: ServerConfig,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<RunningServer> {
    let config = Arc::new(config);
    let metrics = Metrics::new();
    let tables = Arc::new(tables::Tables::default());
    let (stop_tx, stop_rx) = watch::channel(false);

    // The journal, and every table it holds, before the first request is taken.
    let (failure_tx, failure_rx) = watch::channel(false);
    let store = match &config.database {
        Database::Memory => None,
        Database::Sqlite(dir) => Some(store::Store::open_dir(dir).await),
        Database::Url(url) => Some(store::Store::open(url).await),
    };
    let journal = match store {
        None => journal::Journal::memory(),
        Some(opened) => {
            let store = opened.map_err(|e| {
                std::io::Error::other(format!(
                    "cannot open the database ({}): {e}",
                    config.database.describe()
                ))
            })?;
            journal::Journal::start(
                store,
                config.node_id.clone().unwrap_or_default(),
                metrics.clone(),
                failure_tx,
            )
        }
    };
    let recovered = recovery::recover(&journal, &tables, config.max_tables, config.table_expiry, &metrics)
        .await
        .map_err(|e| std::io::Error::other(format!("cannot recover tables from the journal: {e}")))?;
    tracing::info!(
        database = %config.database.describe(),
        tables = recovered.tables,
        entries = recovered.entries,
        dropped = recovered.dropped,
        abandoned = recovered.abandoned,
        took_ms = recovered.took.as_millis() as u64,
        "journal ready"
    );
    // Only now: a client that can connect finds every table it was promised.
    let listener = tokio::net::TcpListener::bind(config.addr).await.map_err(|e| {
        std::io::Error::new(
            e.kind(),
            format!("cannot listen on {} ({e}): is another server running there?", config.addr),
        )
    })?;
    let addr = listener.local_addr()?;

    let (health_reporter, health_service) = tonic_health::server::health_reporter();
    health_reporter.set_serving::<SkatServiceServer<service::SkatServer>>().await;
    // For liveness probes: stays SERVING while the server drains, so that a pod that is
    // leaving (readiness NOT_SERVING) is not restarted.
    health_reporter.set_service_status(LIVENESS_SERVICE, tonic_health::ServingStatus::Serving).await;

    let reflection_v1 = tonic_reflection::server::Builder::configure()
        .register_encoded_file_descriptor_set(skat_proto::FILE_DESCRIPTOR_SET)
        .register_encoded_file_descriptor_set(tonic_health::pb::FILE_DESCRIPTOR_SET)
        .build_v1()
        .map_err(std::io::Error::other)?;
    let reflection_v1alpha = tonic_reflection::server::Builder::configure()
        .register_encoded_file_descriptor_set(skat_proto::FILE_DESCRIPTOR_SET)
        .register_encoded_file_descriptor_set(tonic_health::pb::FILE_DESCRIPTOR_SET)
        .build_v1alpha()
        .map_err(std::io::Error::other)?;

    let metrics_addr = match config.metrics_addr {
        Some(a) => {
            let mut rx = stop_rx.clone();
            let stopped = async move {
                let _ = rx.wait_for(|s| *s).await;
            };
            Some(metrics.clone().serve(a, stopped).await?)
        }
        None => None,
    };

    // Expire finished and idle tables; an unfinished one is marked abandoned.
    {
        let tables = Arc::clone(&tables);
        let metrics = metrics.clone();
        let journal = journal.clone();
        let expiry = config.table_expiry;
        let mut stop = stop_rx.clone();
        tokio::spawn(async move {
            let every = (expiry / 4).clamp(Duration::from_millis(50), Duration::from_secs(30));
            loop {
                tokio::select! {
                    _ = tokio::time::sleep(every) => {}
                    _ = stop.wait_for(|s| *s) => return,
                }
                let dropped = tables.expire(Instant::now(), expiry);
                if !dropped.is_empty() {
                    tracing::info!(dropped = dropped.len(), "expired tables dropped");
                }
                let abandoned: Vec<store::TableRow> = dropped
                    .iter()
                    .filter_map(|h| {
                        let t = h.lock();
                        (!t.is_finished()).then(|| {
                            let mut row = journal::table_row(&t, journal.owner());
                            row.status = store::RowStatus::Abandoned;
                            row.finished_ms = table::unix_ms(std::time::SystemTime::now());
                            row
                        })
                    })
                    .collect();
                if journal.submit_rows(abandoned).durable().await.is_err() {
                    return;
                }
                metrics.tables.set(tables.len() as i64);
            }
        });
    }

    // Records of ended tables are kept for the retention time, then deleted.
    if let (Some(retention), Some(store)) = (config.retention, journal.store().cloned()) {
        let mut stop = stop_rx.clone();
        tokio::spawn(async move {
            let every = (retention / 10).clamp(Duration::from_secs(1), Duration::from_secs(3600));
            loop {
                let before =
                    table::unix_ms(std::time::SystemTime::now()).saturating_sub(retention.as_millis() as u64);
                match store.purge_ended_before(before).await {
                    Ok(0) => {}
                    Ok(n) => tracing::info!(tables = n, "records past the retention time deleted"),
                    Err(e) => tracing::warn!(error = %e, "could not delete records past the retention time"),
                }
                tokio::select! {
                    _ = tokio::time::sleep(every) => {}
                    _ = stop.wait_for(|s| *s) => return,
                }
            }
        });
    }

    let competitions = competition::Competitions::new(
        journal.clone(),
        Arc::clone(&tables),
        Arc::clone(&config),
        metrics.clone(),
    );
    competitions
        .start()
        .await
        .map_err(|e| std::io::Error::other(format!("cannot resume the running tournaments: {e}")))?;
    let service = service::SkatServer::new(
        Arc::clone(&tables),
        Arc::clone(&config),
        metrics.clone(),
        stop_rx.clone(),
        journal,
        competitions,
    );
    let service_clients = service.clients();
    // The page, with the same service over gRPC-Web, on its own address.
    let web_addr = match config.web_addr {
        Some(at) => match tokio::net::TcpListener::bind(at).await {
            Ok(listener) => {
                let bound = listener.local_addr()?;
                web::serve(
                    listener,
                    service.clone(),
                    &config,
                    Arc::clone(&service_clients),
                    metrics.clone(),
                    stop_rx.clone(),
                );
                Some(bound)
            }
            Err(e) if config.web_addr_default => {
                tracing::warn!(%at, error = %e, "the web page is off: its default address is taken (set --web-addr)");
                None
            }
            Err(e) => {
                return Err(std::io::Error::new(e.kind(), format!("cannot listen on --web-addr {at}: {e}")));
            }
        },
        None => None,
    };
    // Requests are small, so the limit applies to them; responses are built by the
    // server from bounded tables.
    let grpc = SkatServiceServer::new(service).max_decoding_message_size(config.max_message_bytes);

    let drain = config.drain;
    let mut stopped = stop_rx.clone();
    let mut failed = failure_rx.clone();
    let on_shutdown = async move {
        tokio::select! {
            _ = shutdown => {}
            // Without a journal the sender is gone at once: that is no failure.
            Ok(_) = failed.wait_for(|f| *f) => {}
        }
        tracing::info!(drain_ms = drain.as_millis() as u64, "shutting down: health NOT_SERVING, draining");
        health_reporter.set_not_serving::<SkatServiceServer<service::SkatServer>>().await;
        health_reporter.set_service_status("", tonic_health::ServingStatus::NotServing).await;
        tokio::time::sleep(drain).await;
        let _ = stop_tx.send(true);
    };

    // Every connection counts against its client's limit while it is open.
    let (clients, per_client) = (service_clients, config.max_connections_per_client);
    let incoming = tokio_stream::StreamExt::filter_map(
        tonic::transport::server::TcpIncoming::from(listener)
            .with_nodelay(Some(true))
            .with_keepalive(Some(Duration::from_secs(60))),
        move |accepted| match accepted {
            Ok(stream) => {
                let admitted = clients::Connection::admit(&clients, stream, per_client);
                if admitted.is_none() {
                    tracing::debug!("connection refused: its address holds its limit of connections");
                }
                admitted.map(Ok)
            }
            Err(e) => Some(Err(e)),
        },
    );
    let serve = tonic::transport::Server::builder()
        // A client's own connection cannot take more than its share of the workers.
        .concurrency_limit_per_connection(config.max_concurrent_requests_per_connection)
        .max_concurrent_streams(Some(
            u32::try_from(config.max_concurrent_requests_per_connection).unwrap_or(u32::MAX),
        ))
        // Dead peers are noticed, and their streams end, within about a minute.
        .http2_keepalive_interval(Some(Duration::from_secs(30)))
        .http2_keepalive_timeout(Some(Duration::from_secs(20)))
        // Spans, metrics, refusal logs and client-fault codes for every call, in one place.
        .layer(edge::EdgeLayer::new(metrics.clone()))
        .add_service(health_service)
        .add_service(reflection_v1)
        .add_service(reflection_v1alpha)
        .add_service(grpc)
        // Small messages both ways: Nagle's algorithm would hold each for a delayed ACK.
        .serve_with_incoming_shutdown(incoming, on_shutdown);
    // Graceful shutdown waits for every open response; a client that never reads its
    // stream would hold it forever. After the drain, `shutdown_grace` is all they get.
    let grace = config.shutdown_grace;
    let task = tokio::spawn(async move {
        tokio::select! {
            result = serve => result,
            _ = async {
                let _ = stopped.wait_for(|s| *s).await;
                tokio::time::sleep(grace).await;
            } => {
                tracing::warn!(grace_ms = grace.as_millis() as u64, "connections still open after the grace period: closing them");
                Ok(())
            }
        }
    });
    tracing::info!(%addr, metrics = ?metrics_addr, web = ?web_addr, "skat server listening");
    Ok(RunningServer { addr, metrics_addr, web_addr, task, journal_failed: failure_rx, recovered, metrics })
}
