//! What the CLI's end-to-end tests share: free ports, the `skat` binary, a guard that
//! kills a child process when a test ends however it ends, and a client that waits for
//! a server to come up.

// Each test file uses a part of this.
#![allow(dead_code)]

use std::net::TcpListener;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use skat_proto::pb;
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

/// A bot in lobby mode with an account's token (`skat bot --bot-token`).
pub fn lobby_bot(port: u16, strategy: &str, token: &str) -> Kill {
    lobby_bot_with(port, strategy, token, &[])
}

pub fn lobby_bot_with(port: u16, strategy: &str, token: &str, extra: &[&str]) -> Kill {
    Kill(
        skat()
            .args([
                "bot",
                "--strategy",
                strategy,
                "--server",
                &format!("127.0.0.1:{port}"),
                "--bot-token",
                token,
            ])
            .args(extra)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap(),
    )
}

/// Registers a bot account (`skat admin register-bot`); its bot token, or the refusal.
pub fn register(port: u16, name: &str, admin: Option<&str>) -> Result<String, String> {
    let mut cmd = skat();
    cmd.args(["admin", "register-bot", "--name", name, "--server", &format!("127.0.0.1:{port}")]);
    if let Some(a) = admin {
        cmd.args(["--admin-token", a]);
    }
    let out = cmd.output().unwrap();
    if !out.status.success() {
        return Err(String::from_utf8_lossy(&out.stderr).to_string());
    }
    let text = String::from_utf8(out.stdout).unwrap();
    Ok(text.lines().find_map(|l| l.strip_prefix("bot token ")).unwrap().to_string())
}

/// A tournament's view.
pub async fn get_tournament(c: &mut SkatServiceClient<Channel>, id: &str) -> pb::Tournament {
    c.get_tournament(pb::GetTournamentRequest { tournament_id: id.to_string() })
        .await
        .unwrap()
        .into_inner()
        .tournament
        .unwrap()
}

/// `skat tournament create` with the admin token `operator-secret` and fast clocks; the id.
pub fn create_tournament(port: u16, args: &[&str]) -> String {
    let out = skat()
        .args(["tournament", "create", "--server", &format!("127.0.0.1:{port}")])
        .args(["--admin-token", "operator-secret", "--action-timeout", "400ms", "--deal-clock", "0s"])
        .args(args)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap().split_whitespace().nth(1).unwrap().to_string()
}
