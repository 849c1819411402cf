//! What the CLI's end-to-end tests share: the test harness (`skat-testkit`: a server
//! process on a port it picks, its log, teardown) with this package's binary, and
//! clients, bots and records.

// Each test file uses a part of this.
#![allow(dead_code, unused_imports)]

use std::process::{Command, Stdio};
use std::time::Duration;

use skat_bots::Strategy;
use skat_engine::{Bid, Card, Contract};
use skat_proto::pb;
use skat_proto::pb::skat_service_client::SkatServiceClient;
use skat_sdk::{Bot, Knowledge};
use tonic::transport::Channel;

pub use skat_testkit::process::ADMIN_TOKEN;
pub use skat_testkit::{Kill, Serve, ServerProcess, postgres_database, reserve_port};

/// The `skat` binary under test.
pub fn skat() -> Command {
    Command::new(env!("CARGO_BIN_EXE_skat"))
}

/// `skat serve` under test: the test harness's builder with this package's binary.
pub fn serve() -> Serve {
    Serve::new(env!("CARGO_BIN_EXE_skat"))
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

/// A bot that thinks a few milliseconds, so that matches are still running when the
/// server is killed.
pub struct Slow(pub Strategy);

impl Bot for Slow {
    async fn bid(&mut self, k: &Knowledge) -> Option<Bid> {
        tokio::time::sleep(Duration::from_millis(3)).await;
        self.0.bid(k).await
    }
    async fn answer(&mut self, k: &Knowledge, bid: Bid) -> bool {
        tokio::time::sleep(Duration::from_millis(3)).await;
        self.0.answer(k, bid).await
    }
    async fn take_skat(&mut self, k: &Knowledge) -> bool {
        self.0.take_skat(k).await
    }
    async fn discard(&mut self, k: &Knowledge) -> [Card; 2] {
        self.0.discard(k).await
    }
    async fn declare(&mut self, k: &Knowledge) -> Contract {
        self.0.declare(k).await
    }
    async fn play(&mut self, k: &Knowledge) -> Card {
        tokio::time::sleep(Duration::from_millis(3)).await;
        self.0.play(k).await
    }
}

/// A table's JSON records without their context (table id, times): what two runs of the
/// same seeds and bots must share.
pub async fn records(port: u16, table: &str) -> Vec<String> {
    let mut c = client(port).await;
    let req = pb::GetRecordsRequest { table_id: table.to_string(), format: pb::RecordFormat::Json as i32 };
    let records = c.get_records(req).await.unwrap().into_inner().records;
    records
        .iter()
        .map(|r| {
            let mut v: serde_json::Value = serde_json::from_str(r).unwrap();
            let o = v.as_object_mut().unwrap();
            assert_eq!(o["table_id"], table, "a JSON record names its table");
            for context in ["table_id", "ended_at", "ended_ms"] {
                o.remove(context);
            }
            v.to_string()
        })
        .collect()
}
