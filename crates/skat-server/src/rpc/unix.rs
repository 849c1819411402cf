//! gRPC on a Unix socket (`skat serve --unix-socket PATH`): the game service and health,
//! for hosted bots' sandboxes, whose only way out is this socket mounted into them (they
//! have no network at all). The hosting service is not served here: nothing a sandbox
//! holds is any use to it.
//!
//! A Unix connection has no address, so each is given one of its own from the
//! unique-local range `fd00:5ca7::/64` (never routed): the per-address limits then count
//! each connection as its own client, the way each sandbox is one. At most
//! [`MAX_CONNECTIONS`] are open at once; more are closed as they arrive.

use std::net::{IpAddr, Ipv6Addr, SocketAddr};
use std::os::unix::fs::{FileTypeExt as _, PermissionsExt as _};
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::time::Duration;

use skat_proto::pb::skat_service_server::SkatServiceServer;
use tokio::sync::watch;
use tokio::task::JoinHandle;
use tokio_stream::StreamExt as _;
use tonic::transport::server::TcpConnectInfo;

use super::edge;
use super::held::{Held, Holding};
use super::service::SkatServer;
use crate::config::ServerConfig;
use crate::metrics::Metrics;

/// Unix connections open at once.
pub(crate) const MAX_CONNECTIONS: usize = 4096;

/// One of the socket's open connections, given back when it closes.
#[derive(Debug)]
pub(crate) struct OpenCount(Arc<AtomicUsize>);

impl Drop for OpenCount {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}

impl Holding for OpenCount {}

/// The address of the `n`th connection: `fd00:5ca7::<n>`.
fn address(n: u64) -> SocketAddr {
    let ip = Ipv6Addr::from((0xfd00_5ca7_u128 << 96) | u128::from(n));
    SocketAddr::new(IpAddr::V6(ip), 0)
}

/// Listens on `path` (a stale socket there is replaced; any other file is an error) and
/// serves the game service until `stopped` turns true, then gives open calls `grace`.
pub(crate) fn serve(
    path: &Path,
    grpc: SkatServiceServer<SkatServer>,
    config: &ServerConfig,
    metrics: &Metrics,
    mut stopped: watch::Receiver<bool>,
) -> std::io::Result<JoinHandle<()>> {
    if let Ok(meta) = std::fs::symlink_metadata(path) {
        if !meta.file_type().is_socket() {
            return Err(std::io::Error::other(format!(
                "--unix-socket {}: a file that is not a socket is there",
                path.display()
            )));
        }
        std::fs::remove_file(path)?;
    }
    let listener = tokio::net::UnixListener::bind(path).map_err(|e| {
        std::io::Error::new(e.kind(), format!("cannot listen on --unix-socket {}: {e}", path.display()))
    })?;
    // Sandboxes run as users of their own: the socket is for whoever it is mounted into.
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o666))?;
    let next = AtomicU64::new(1);
    let open = Arc::new(AtomicUsize::new(0));
    let incoming = tokio_stream::wrappers::UnixListenerStream::new(listener).filter_map(move |accepted| {
        let stream = match accepted {
            Ok(s) => s,
            Err(e) => return Some(Err(e)),
        };
        if open.fetch_add(1, Ordering::SeqCst) >= MAX_CONNECTIONS {
            open.fetch_sub(1, Ordering::SeqCst);
            tracing::warn!(max = MAX_CONNECTIONS, "a Unix connection refused: the socket holds its limit");
            return None;
        }
        let info = TcpConnectInfo {
            local_addr: None,
            remote_addr: Some(address(next.fetch_add(1, Ordering::Relaxed))),
        };
        Some(Ok(Held::new(stream, OpenCount(Arc::clone(&open)), info)))
    });
    let (health_reporter, health) = tonic_health::server::health_reporter();
    let mut ending = stopped.clone();
    let serve = tonic::transport::Server::builder()
        .concurrency_limit_per_connection(config.max_concurrent_requests_per_connection)
        .max_concurrent_streams(Some(super::h2_streams(config)))
        .layer(edge::EdgeLayer::new(metrics.clone(), &[], config.forwarded_header))
        .add_service(health)
        .add_service(grpc)
        .serve_with_incoming_shutdown(incoming, async move {
            let _ = ending.wait_for(|s| *s).await;
        });
    let grace = config.shutdown_grace;
    let shown = path.display().to_string();
    Ok(tokio::spawn(async move {
        health_reporter.set_serving::<SkatServiceServer<SkatServer>>().await;
        tracing::info!(socket = %shown, "gRPC on a Unix socket");
        tokio::select! {
            result = serve => if let Err(e) = result { tracing::error!(error = %e, "the Unix socket's server failed") },
            _ = async {
                let _ = stopped.wait_for(|s| *s).await;
                tokio::time::sleep(grace + Duration::from_millis(100)).await;
            } => {}
        }
    }))
}

#[cfg(test)]
mod tests {
    #[test]
    fn every_connection_has_an_address_of_its_own_in_a_range_never_routed() {
        let a = super::address(1);
        let b = super::address(2);
        assert_ne!(a.ip(), b.ip());
        assert_eq!(a.ip().to_string(), "fd00:5ca7::1");
    }
}
