//! A lobby's seats share their connections (`skat_sdk::connections`): three bots in
//! casual play, each seated at three tables at once, reach the server over a proxy that
//! counts the connections it is asked for. Each bot needs two, its lobby's and one its
//! seats share; a connection per seat would be four.

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use skat_engine::{Bid, Card, Contract};
use skat_proto::pb;
use skat_sdk::client::connect;
use skat_sdk::lobby::{self, LobbyOptions};
use skat_sdk::{Bot, Knowledge};
use skat_testkit::InProcess;
use tokio::net::{TcpListener, TcpStream};

/// Passes, always picks up, plays its first legal card.
struct First;

impl Bot for First {
    async fn bid(&mut self, _k: &Knowledge) -> Option<Bid> {
        None
    }
    async fn answer(&mut self, _k: &Knowledge, _bid: Bid) -> bool {
        false
    }
    async fn take_skat(&mut self, _k: &Knowledge) -> bool {
        true
    }
    async fn discard(&mut self, k: &Knowledge) -> [Card; 2] {
        let mut it = k.hand.iter();
        [it.next().expect("a hand of 12"), it.next().expect("a hand of 12")]
    }
    async fn declare(&mut self, k: &Knowledge) -> Contract {
        k.legal.contracts[0]
    }
    async fn play(&mut self, k: &Knowledge) -> Card {
        k.legal.cards.first().expect("a legal card")
    }
}

/// A TCP proxy to `target` that counts the connections it accepts.
async fn counting_proxy(target: SocketAddr) -> (SocketAddr, Arc<AtomicUsize>) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let accepted = Arc::new(AtomicUsize::new(0));
    let count = Arc::clone(&accepted);
    tokio::spawn(async move {
        while let Ok((mut inbound, _)) = listener.accept().await {
            count.fetch_add(1, Ordering::SeqCst);
            tokio::spawn(async move {
                let Ok(mut outbound) = TcpStream::connect(target).await else { return };
                let _ = tokio::io::copy_bidirectional(&mut inbound, &mut outbound).await;
            });
        }
    });
    (addr, accepted)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_lobbys_seats_share_one_connection() {
    let dir = std::env::temp_dir().join(format!("skat-sdk-lobby-connections-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let database = skat_server::Database::Sqlite(dir.clone());
    let server =
        InProcess::start(skat_server::ServerConfig { database, casual_deals: 2, ..InProcess::fast() }).await;
    let mut client = connect(&server.url()).await.unwrap();
    let mut tokens = Vec::new();
    for name in ["share-a", "share-b", "share-c"] {
        let request = pb::RegisterBotRequest { name: name.into(), owner: String::new() };
        tokens.push(client.register_bot(request).await.unwrap().into_inner().bot_token);
    }
    let (proxy, accepted) = counting_proxy(server.addr()).await;
    let url = format!("http://{proxy}");
    let options = LobbyOptions { lists: Some(3), casual_seats: 3, max_tables: 3, ..LobbyOptions::default() };
    let bots: Vec<_> = tokens
        .into_iter()
        .map(|token| {
            let (url, options) = (url.clone(), options.clone());
            tokio::spawn(async move { lobby::run(url.as_str(), &token, || First, options).await })
        })
        .collect();
    for bot in bots {
        let result = tokio::time::timeout(Duration::from_secs(120), bot).await.unwrap().unwrap().unwrap();
        // A casual meeting of three is three tables (every rotation), played at once.
        assert_eq!(result.finished.len(), 3, "failed: {:?}", result.failed);
    }
    let connections = accepted.load(Ordering::SeqCst);
    assert!(
        connections <= 6,
        "three bots, nine seats: {connections} connections (a lobby's and its seats' each)"
    );
    // The seats watched their tables on their connections' WatchTables streams, none on
    // a WatchTable stream of its own.
    let metrics = server.server.metrics.render();
    let calls = |method: &str| {
        let label = format!("method=\"{method}\"");
        metrics.lines().filter(|l| l.starts_with("skat_rpcs_total") && l.contains(&label)).count()
    };
    assert_eq!(calls("WatchTable"), 0, "no seat watched on its own stream:\n{metrics}");
    assert!(calls("WatchTables") > 0, "the seats' watch streams:\n{metrics}");
    // The lobbies ended: their connections close, and the server's gauge says so.
    drop(client);
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    loop {
        let metrics = server.server.metrics.render();
        if metrics.contains("skat_connections 0\n") {
            break;
        }
        assert!(std::time::Instant::now() < deadline, "connections left open:\n{metrics}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    drop(server);
    let _ = std::fs::remove_dir_all(&dir);
}
