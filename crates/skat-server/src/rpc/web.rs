//! The spectator page on its own address (`--web-addr`): the page's files (built into
//! the binary by the `skat-web` crate) and the same `skat.v1` service over gRPC-Web
//! (tonic-web), so that the browser reads exactly what a bot or spectator reads: the
//! redaction, limits and refusals are the gRPC service's own.
//!
//! | concern | how |
//! |---|---|
//! | one API | `SkatServiceServer` (and `HostingServiceServer`, for the bot page) over the same [`SkatServer`] state, behind `GrpcWebLayer` |
//! | no third-party requests | every asset is served from here; `Content-Security-Policy: default-src 'self'` |
//! | limits | connections count against the client address's limit, and requests and streams per connection are capped, like the gRPC port's |
//! | shutdown | stops with the gRPC server, after the same grace |

use std::time::Duration;

use axum::response::IntoResponse;
use http::{HeaderValue, StatusCode, header};
use skat_proto::pb::hosting_service_server::HostingServiceServer;
use skat_proto::pb::skat_service_server::SkatServiceServer;
use tokio::sync::watch;
use tower::Layer;

use super::edge::EdgeLayer;
use super::limits::{self, Clients};
use super::service::SkatServer;
use crate::config::ServerConfig;
use crate::metrics::Metrics;

/// Who may load what from where: only this origin, no inline script.
const CSP: &str = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/// One of the page's files (gzipped when the browser takes it), or 404.
async fn asset(uri: http::Uri, request_headers: http::HeaderMap) -> axum::response::Response {
    let Some((kind, bytes)) = skat_web::file(uri.path()) else {
        return (StatusCode::NOT_FOUND, "not found").into_response();
    };
    let gzip = request_headers
        .get(header::ACCEPT_ENCODING)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.split(',').any(|e| e.trim().starts_with("gzip")));
    let mut response = match skat_web::gzipped(uri.path()).filter(|_| gzip) {
        Some(gz) => {
            let mut r = gz.into_response();
            r.headers_mut().insert(header::CONTENT_ENCODING, HeaderValue::from_static("gzip"));
            r
        }
        None => bytes.into_response(),
    };
    let headers = response.headers_mut();
    headers.insert(header::VARY, HeaderValue::from_static("accept-encoding"));
    headers.insert(header::CONTENT_TYPE, HeaderValue::from_static(kind));
    headers.insert(header::CONTENT_SECURITY_POLICY, HeaderValue::from_static(CSP));
    headers.insert(header::X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff"));
    headers.insert(header::REFERRER_POLICY, HeaderValue::from_static("no-referrer"));
    // The files change with the binary only; a restart with a new one must be seen.
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    response
}

/// Serves the page and gRPC-Web on `listener` until `stopped` turns true, then gives
/// open requests `grace`.
pub(crate) fn serve(
    listener: tokio::net::TcpListener,
    service: SkatServer,
    sandboxes: std::sync::Arc<super::sandbox::Sandboxes>,
    config: &ServerConfig,
    clients: std::sync::Arc<Clients>,
    metrics: Metrics,
    mut stopped: watch::Receiver<bool>,
) -> Result<tokio::task::JoinHandle<Result<(), tonic::transport::Error>>, super::tls::TlsError> {
    // The bot page reads an author's versions, sandboxes and their output with the bot
    // token (HostingService checks it per call, as on the gRPC port; an archive upload is
    // a client stream, which gRPC-Web cannot carry: that stays with `skat bot submit`).
    let hosting = tonic_web::GrpcWebLayer::new().layer(
        HostingServiceServer::new(super::hosting::HostingApi::new(service.clone(), sandboxes))
            .max_decoding_message_size(config.max_message_bytes),
    );
    let grpc = tonic_web::GrpcWebLayer::new()
        .layer(SkatServiceServer::new(service).max_decoding_message_size(config.max_message_bytes));
    let router = axum::Router::new()
        .route_service("/skat.v1.SkatService/{*method}", grpc)
        .route_service("/skat.v1.HostingService/{*method}", hosting)
        .fallback(asset);
    let tls = match &config.tls {
        Some(files) => Some(super::tls::Tls::start(files, super::tls::ALPN_WEB, &metrics, stopped.clone())?),
        None => None,
    };
    let incoming = super::tls::incoming(
        limits::admitted(
            listener,
            clients,
            config.max_connections_per_client,
            config.trusted_proxies.clone(),
            metrics.connections.clone(),
        ),
        tls,
    );
    let mut until_stopped = stopped.clone();
    let serve = tonic::transport::Server::builder()
        // Browsers speak HTTP/1.1 to a plain-text address.
        .accept_http1(true)
        // The same per-connection limits as the gRPC port (a client may speak HTTP/2
        // here too), so this port is no way around them.
        .concurrency_limit_per_connection(config.max_concurrent_requests_per_connection)
        .max_concurrent_streams(Some(super::h2_streams(config)))
        .http2_keepalive_interval(Some(Duration::from_secs(30)))
        .http2_keepalive_timeout(Some(Duration::from_secs(20)))
        .layer(EdgeLayer::new(metrics, &config.trusted_proxies, config.forwarded_header))
        .add_routes(tonic::service::Routes::from(router))
        .serve_with_incoming_shutdown(incoming, async move {
            let _ = until_stopped.wait_for(|s| *s).await;
        });
    let grace = config.shutdown_grace;
    Ok(tokio::spawn(async move {
        tokio::select! {
            result = serve => result,
            _ = async {
                let _ = stopped.wait_for(|s| *s).await;
                tokio::time::sleep(grace).await;
            } => Ok(()),
        }
    }))
}
