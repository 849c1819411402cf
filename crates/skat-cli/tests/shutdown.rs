//! SIGTERM stops `skat serve` within `--drain` plus a few seconds, whatever its clients
//! do: here 30 watch streams that are never read, on a table that keeps playing.

use std::process::Command;
use std::time::{Duration, Instant};

use skat_bots::Strategy;
use skat_proto::pb;
use skat_proto::pb::skat_service_client::SkatServiceClient;
use tonic::transport::{Channel, Endpoint};

mod common;

use common::serve;

async fn channel(url: &str, window: u32) -> Channel {
    for _ in 0..200 {
        let endpoint = Endpoint::from_shared(url.to_string())
            .unwrap()
            .initial_stream_window_size(Some(window))
            .initial_connection_window_size(Some(65_535));
        if let Ok(c) = endpoint.connect().await {
            return c;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("server at {url} did not start");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sigterm_exits_within_drain_plus_grace_with_stalled_readers() {
    let mut server = serve()
        .args(["--drain", "1s", "--database", "memory"])
        .args(["--action-timeout", "0s", "--deal-clock", "0s", "--max-connections-per-client", "64"])
        .start();
    let url = server.url();
    let mut client = SkatServiceClient::new(channel(&url, 65_535).await);
    let table = client
        .create_table(pb::CreateTableRequest { deals: 144, seed: Some(3), ..Default::default() })
        .await
        .unwrap()
        .into_inner()
        .table_id;

    // 30 readers that never read, on small HTTP/2 windows: they stall at once.
    let mut stalled = Vec::new();
    for _ in 0..30 {
        let mut c = SkatServiceClient::new(channel(&url, 1024).await);
        let req = pb::WatchTableRequest { table_id: table.clone(), after_seq: Some(0) };
        stalled.push(c.watch_table(req).await.unwrap().into_inner());
    }
    let bots: Vec<_> = (0..3)
        .map(|i| {
            let (url, table) = (url.clone(), table.clone());
            tokio::spawn(async move {
                let mut bot = Strategy::by_name("random", i).unwrap();
                let _ = skat_sdk::play::join_and_play(&url, &table, &format!("bot{i}"), None, &mut bot).await;
            })
        })
        .collect();
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let v = client.get_table(pb::GetTableRequest { table_id: table.clone() }).await.unwrap().into_inner();
        if v.table.unwrap().seq > 600 {
            break;
        }
        assert!(Instant::now() < deadline, "the bots did not play");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }

    let sent = Instant::now();
    let ok = Command::new("kill").args(["-TERM", &server.pid().to_string()]).status().unwrap();
    assert!(ok.success());
    let exited = loop {
        if let Some(status) = server.try_wait() {
            break Some(status);
        }
        if sent.elapsed() > Duration::from_secs(20) {
            break None;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    let took = sent.elapsed();
    for b in bots {
        b.abort();
    }
    drop(stalled);
    let status = exited.expect("the server was still running 20 s after SIGTERM");
    eprintln!("SIGTERM to exit: {took:?} (--drain 1s, 30 stalled readers)");
    assert!(took < Duration::from_secs(1 + 5), "exit took {took:?}: more than --drain 1s + 5 s");
    assert!(status.success(), "a clean exit: {status:?}");
}

/// `GET path` on the metrics port: the status line's code.
async fn http_status(port: u16, path: &str) -> Option<u16> {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let mut s = tokio::net::TcpStream::connect(("127.0.0.1", port)).await.ok()?;
    s.write_all(format!("GET {path} HTTP/1.0\r\nHost: x\r\n\r\n").as_bytes()).await.ok()?;
    let mut answer = String::new();
    s.read_to_string(&mut answer).await.ok()?;
    answer.split_whitespace().nth(1)?.parse().ok()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn http_health_for_probes_turns_not_ready_while_draining() {
    let server = serve().metrics().args(["--drain", "3s", "--database", "memory"]).start();
    let (port, metrics) = (server.port(), server.metrics.expect("metrics on").port());
    channel(&format!("http://127.0.0.1:{port}"), 65_535).await;
    // The gRPC port accepts a moment before readiness turns on: wait for it (bounded).
    let ready_by = Instant::now() + Duration::from_secs(5);
    while http_status(metrics, "/health/ready").await != Some(200) && Instant::now() < ready_by {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert_eq!(http_status(metrics, "/health/ready").await, Some(200));
    assert_eq!(http_status(metrics, "/health/live").await, Some(200));
    let ok = Command::new("kill").args(["-TERM", &server.pid().to_string()]).status().unwrap();
    assert!(ok.success());
    let start = Instant::now();
    loop {
        match http_status(metrics, "/health/ready").await {
            Some(503) => break,
            Some(200) if start.elapsed() < Duration::from_secs(2) => {
                tokio::time::sleep(Duration::from_millis(20)).await
            }
            other => panic!("readiness while draining: {other:?}"),
        }
    }
    assert_eq!(http_status(metrics, "/health/live").await, Some(200), "alive while it drains");
}
