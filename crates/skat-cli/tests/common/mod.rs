//! What the CLI's end-to-end tests share: free ports, the `skat` binary, a guard that
//! kills a child process when a test ends however it ends, and a client that waits for
//! a server to come up.

// Each test file uses a part of this.
#![allow(dead_code)]

use std::net::TcpListener;
use std::process::{Child, Command};
use std::time::Duration;

use skat_proto::pb::skat_service_client::SkatServiceClient;
use tonic::transport::Channel;

/// A port nobody listens on now.
pub fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
}

/// The `skat` binary under test.
pub fn skat() -> Command {
    Command::new(env!("CARGO_BIN_EXE_skat"))
}

/// A child process (a server, a bot) killed when the test ends first.
pub struct Kill(pub Child);

impl Drop for Kill {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// A client of the server on `port`, once it answers (within 10 s).
pub async fn client(port: u16) -> SkatServiceClient<Channel> {
    for _ in 0..400 {
        if let Ok(c) = SkatServiceClient::connect(format!("http://127.0.0.1:{port}")).await {
            return c;
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    panic!("no server on {port}");
}
