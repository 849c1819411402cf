//! One test harness for every Rust test that starts a server.
//!
//! | what | how | why |
//! |---|---|---|
//! | a server in process | [`InProcess::start`] with a typed [`ServerConfig`]: port 0, the bound address read back, stopped when dropped | no port is guessed, no process is left |
//! | a `skat serve` process | [`Serve`], a builder of its flags with the test defaults; [`Serve::start`] binds port 0 and reads the address the server announces | a port picked by the test and released before the server binds it can be taken in between (a race under parallel tests) |
//! | the same port again | [`ServerProcess::restart`] kills the server (as `kill -9` does) and starts the same command on the port it had | a client's address stays valid across a crash, as in production |
//! | ports known before a start | [`reserve_port`] (replicas that name each other) | the one case where the address must exist before the server: kept, and named for what it is |
//! | the server's log | written to a file as it comes; printed when a test panics with the server alive, and readable with [`ServerProcess::log`] | a failure shows what the server saw |
//! | teardown | on drop, whatever ends the test | nothing outlives its test |
//! | what the test's process logs | [`CapturedLog`], a `tracing` writer kept in memory | tests that assert on log lines share one writer |
//! | a PostgreSQL database | [`postgres_database`]: a fresh one on the test server, or the test is skipped | the durability tests run on both databases |
//!
//! The tests of the `skat` binary live in `skat-cli` (cargo gives a test the path of its
//! own package's binaries only): they pass `env!("CARGO_BIN_EXE_skat")` to [`Serve::new`].

pub mod log;
pub mod process;

use std::net::SocketAddr;

pub use log::CapturedLog;
pub use process::{Kill, Serve, ServerProcess, reserve_port};
pub use skat_server::{RunningServer, ServerConfig};
use tokio::sync::oneshot;

/// A server in this process on 127.0.0.1 and an ephemeral port; it stops when dropped
/// (or with [`InProcess::stop`]).
pub struct InProcess {
    /// The running server: its address, metrics address, task.
    pub server: RunningServer,
    stop: Option<oneshot::Sender<()>>,
}

impl InProcess {
    /// Starts `config` on 127.0.0.1:0 (whatever `addr` it had).
    ///
    /// # Panics
    /// When the server cannot start: the test cannot go on.
    pub async fn start(mut config: ServerConfig) -> InProcess {
        config.addr = SocketAddr::from(([127, 0, 0, 1], 0));
        let (tx, rx) = oneshot::channel::<()>();
        let server = skat_server::start(config, async move {
            let _ = rx.await;
        })
        .await
        .unwrap_or_else(|e| panic!("the test server did not start: {e}"));
        InProcess { server, stop: Some(tx) }
    }

    /// Fast settings for tests: no clocks unless a test asks for them.
    pub fn fast() -> ServerConfig {
        ServerConfig { default_action_ms: 0, default_deal_ms: 0, ..ServerConfig::default() }
    }

    /// Its gRPC address.
    pub fn addr(&self) -> SocketAddr {
        self.server.addr
    }

    /// `http://` and its address.
    pub fn url(&self) -> String {
        format!("http://{}", self.server.addr)
    }

    /// Asks the server to stop (graceful shutdown); dropping does the same.
    pub fn stop(&mut self) {
        if let Some(tx) = self.stop.take() {
            let _ = tx.send(());
        }
    }
}

impl Drop for InProcess {
    fn drop(&mut self) {
        self.stop();
    }
}

/// A fresh database on the test PostgreSQL server (`SKAT_TEST_POSTGRES`, an admin URL),
/// named `{prefix}_{pid}_{n}`; `None` (the test is skipped) without one, unless
/// `SKAT_REQUIRE_POSTGRES` says it must run (`scripts/test-all` sets both).
///
/// # Panics
/// When `SKAT_REQUIRE_POSTGRES` is set without a server, or the server refuses.
pub async fn postgres_database(prefix: &str, n: u32) -> Option<String> {
    let Ok(admin) = std::env::var("SKAT_TEST_POSTGRES") else {
        assert!(
            std::env::var_os("SKAT_REQUIRE_POSTGRES").is_none(),
            "SKAT_REQUIRE_POSTGRES is set but SKAT_TEST_POSTGRES is not"
        );
        eprintln!("SKAT_TEST_POSTGRES is not set: the PostgreSQL test is skipped (scripts/test-all runs it)");
        return None;
    };
    sqlx::any::install_default_drivers();
    let name = format!("{prefix}_{}_{n}", std::process::id());
    let pool = sqlx::AnyPool::connect(&admin).await.expect("connect to SKAT_TEST_POSTGRES");
    for sql in [format!("DROP DATABASE IF EXISTS {name}"), format!("CREATE DATABASE {name}")] {
        sqlx::query(&sql).execute(&pool).await.expect("the test database is made");
    }
    pool.close().await;
    let (base, _) = admin.rsplit_once('/').expect("an admin URL ends with /DATABASE");
    Some(format!("{base}/{name}"))
}
