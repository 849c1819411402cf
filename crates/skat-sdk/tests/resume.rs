//! The SDK end to end against a real server: three bots play a list; one of them talks
//! through a proxy whose connections are cut mid-deal, and it must reconnect, resume
//! from its last sequence number and finish without losing a turn. The same when the
//! proxy freezes instead (its connections open, nothing passing either way, as when the
//! server's machine vanishes from the network): the seat's pings go unanswered, and it
//! reconnects before its clock runs out.

mod common;

use std::net::SocketAddr;
use std::time::Duration;

use skat_engine::{Bid, Card, Contract, DealEnd, Outcome};
use skat_proto::pb;
use skat_sdk::client::connect;
use skat_sdk::connections::Connections;
use skat_sdk::play::{PlayOptions, play};
use skat_sdk::{Bot, Keepalive, Knowledge, SeatClient, ServerAddress};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::watch;

/// Bids to 20, always picks up, plays its lowest legal card.
struct Simple {
    decisions: u32,
}

impl Bot for Simple {
    async fn bid(&mut self, k: &Knowledge) -> Option<Bid> {
        self.decisions += 1;
        k.legal.bid_from.filter(|b| b.value() <= 20)
    }
    async fn answer(&mut self, _k: &Knowledge, bid: Bid) -> bool {
        self.decisions += 1;
        bid.value() <= 20
    }
    async fn take_skat(&mut self, _k: &Knowledge) -> bool {
        self.decisions += 1;
        true
    }
    async fn discard(&mut self, k: &Knowledge) -> [Card; 2] {
        self.decisions += 1;
        let mut it = k.hand.iter();
        let a = it.next().unwrap();
        [a, it.next().unwrap()]
    }
    async fn declare(&mut self, k: &Knowledge) -> Contract {
        self.decisions += 1;
        k.legal.contracts[0]
    }
    async fn play(&mut self, k: &Knowledge) -> Card {
        self.decisions += 1;
        // Take a little time, so that cutting the connection lands mid-deal.
        tokio::time::sleep(Duration::from_millis(2)).await;
        k.legal.cards.first().unwrap()
    }
}

/// What the proxy does to its open connections when told.
#[derive(Clone, Copy)]
enum Break {
    /// Closes them.
    Cut,
    /// Stops passing bytes but keeps them open: no reset, no end, only silence.
    Freeze,
    /// Closes them, and every seat talks through the proxy on one shared connection
    /// (a lobby's seats), watching on its one WatchTables stream.
    Shared,
}

/// A TCP proxy whose open connections can all be broken at once; new ones pass.
async fn proxy(target: SocketAddr, how: Break) -> (SocketAddr, watch::Sender<u32>) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let (cut, _) = watch::channel(0u32);
    let cut_rx = cut.subscribe();
    tokio::spawn(async move {
        loop {
            let Ok((mut inbound, _)) = listener.accept().await else { return };
            let mut cut = cut_rx.clone();
            cut.borrow_and_update();
            tokio::spawn(async move {
                let Ok(mut outbound) = TcpStream::connect(target).await else { return };
                tokio::select! {
                    _ = tokio::io::copy_bidirectional(&mut inbound, &mut outbound) => return,
                    _ = cut.changed() => {}
                }
                if let Break::Freeze = how {
                    // Both sockets stay open (the kernel still acknowledges what arrives)
                    // until the test ends.
                    std::future::pending::<()>().await;
                }
            });
        }
    });
    (addr, cut)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bot_resumes_after_its_connection_is_cut_mid_deal() {
    breaks_twice_and_resumes(Break::Cut, None).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn seats_on_a_shared_connection_resume_through_its_watch_stream_after_a_cut() {
    let watch_tables = breaks_twice_and_resumes(Break::Shared, None).await;
    // One WatchTables stream at the start and one after each cut (all three seats on
    // the connection's, never a WatchTable stream of their own).
    assert!((3..=5).contains(&watch_tables), "WatchTables streams opened: {watch_tables}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bot_whose_connection_goes_silent_notices_by_its_pings_and_resumes() {
    // Without pings the seat waits on the frozen stream for good (measured: the list
    // had not ended after 90 s).
    let pings = Keepalive { interval: Duration::from_secs(1), timeout: Duration::from_secs(1) };
    let played = breaks_twice_and_resumes(Break::Freeze, Some(pings));
    tokio::time::timeout(Duration::from_secs(90), played).await.expect("the list ended within 90 s");
}

/// Three bots play a six-deal list; seat 1 (every seat, for [`Break::Shared`]) talks
/// through a proxy that breaks its connections `how` in deals 2 and 4. Each must
/// reconnect both times and the list end with no forfeit and the same standings for
/// everyone. Returns the WatchTables streams the server opened.
async fn breaks_twice_and_resumes(how: Break, keepalive: Option<Keepalive>) -> u64 {
    let server = common::server().await;
    let direct = format!("http://{}", server.addr());
    let (proxy_addr, cut) = proxy(server.addr(), how).await;
    let via_proxy = ServerAddress::new(&format!("http://{proxy_addr}")).with_keepalive(keepalive);

    let mut client = connect(&direct).await.unwrap();
    let table = client
        .create_table(pb::CreateTableRequest {
            seats: 3,
            deals: 6,
            seed: Some(21),
            // A forfeit would show up in the records: the resumed bot must not miss a turn.
            time_control: Some(pb::TimeControl { action_ms: 10_000, deal_ms: 0, between_deals_ms: 0 }),
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner()
        .table_id;

    let mut tasks = Vec::new();
    let shared = Connections::default();
    for seat in 0..3u32 {
        let url = if seat == 1 { via_proxy.clone() } else { ServerAddress::new(&direct) };
        let (mut sc, _) = SeatClient::join(&url, &table, &format!("simple{seat}"), Some(seat)).await.unwrap();
        if let Break::Shared = how {
            sc = SeatClient::shared(&shared, via_proxy.clone(), &table, sc.token(), seat).await.unwrap();
        }
        tasks.push(tokio::spawn(async move {
            let mut bot = Simple { decisions: 0 };
            let finished = play(sc, &mut bot, PlayOptions::default()).await.unwrap();
            (finished, bot.decisions)
        }));
    }
    // Break seat 1's connection twice while deals are being played.
    for target in [2u32, 4] {
        loop {
            let v = client
                .get_table(pb::GetTableRequest { table_id: table.clone() })
                .await
                .unwrap()
                .into_inner()
                .table
                .unwrap();
            let d = v.deal.unwrap();
            if d.number >= target && d.phase == pb::Phase::Playing as i32 && !d.tricks.is_empty() {
                break;
            }
            tokio::time::sleep(Duration::from_millis(2)).await;
        }
        cut.send_modify(|n| *n += 1);
    }
    let mut results = Vec::new();
    for t in tasks {
        results.push(tokio::time::timeout(Duration::from_secs(60), t).await.unwrap().unwrap());
    }
    assert!(results[1].0.reconnects >= 2, "seat 1 reconnected: {:?}", results[1].0.reconnects);
    if let Break::Shared = how {
        assert_eq!(shared.open(&via_proxy), 1, "the three seats on one connection");
        assert!(results[0].0.reconnects >= 2, "seat 0 reconnected: {:?}", results[0].0.reconnects);
    } else {
        assert_eq!(results[0].0.reconnects, 0);
    }
    // Everyone saw the same final standings.
    assert_eq!(results[0].0.standings, results[1].0.standings);
    assert_eq!(results[0].0.standings, results[2].0.standings);
    // The list was played out with no forfeit: the resumed seat missed no turn.
    let records = client
        .get_records(pb::GetRecordsRequest { table_id: table.clone(), format: pb::RecordFormat::Json as i32 })
        .await
        .unwrap()
        .into_inner()
        .records;
    assert_eq!(records.len(), 6);
    for r in &records {
        let r: skat_engine::DealRecord = serde_json::from_str(r).unwrap();
        if let Outcome::Game(g) = r.outcome {
            assert!(!matches!(g.end, DealEnd::Forfeit { .. }), "no time-out");
        }
        assert!(!matches!(r.outcome, Outcome::Penalty(_)));
    }
    assert!(results[1].1 > 20, "seat 1 made its decisions");
    rpcs_of(&server.server.metrics.render(), "WatchTables")
}

/// How many calls of `method` the server's metrics count.
fn rpcs_of(metrics: &str, method: &str) -> u64 {
    let label = format!("method=\"{method}\"");
    metrics
        .lines()
        .filter(|l| l.starts_with("skat_rpcs_total") && l.contains(&label))
        .filter_map(|l| l.rsplit(' ').next()?.parse::<f64>().ok())
        .sum::<f64>() as u64
}
