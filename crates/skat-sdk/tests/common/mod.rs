//! A real server on loopback for the SDK's tests.

use skat_server::{RunningServer, ServerConfig};
use tokio::sync::oneshot;

/// A server on an ephemeral port without clocks; it stops when the returned sender drops.
pub async fn server() -> (RunningServer, oneshot::Sender<()>) {
    let (stop, stopped) = oneshot::channel::<()>();
    let config = ServerConfig {
        addr: "127.0.0.1:0".parse().unwrap(),
        default_action_ms: 0,
        default_deal_ms: 0,
        ..ServerConfig::default()
    };
    let running = skat_server::start(config, async move {
        let _ = stopped.await;
    })
    .await
    .unwrap();
    (running, stop)
}
