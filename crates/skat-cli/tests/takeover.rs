//! A replica's death: two or three `skat serve` replicas on one real PostgreSQL database,
//! tables played on one of them by bots that were sent to another, the owner killed with
//! `kill -9` and never restarted. A live replica takes its tables over when its lease
//! runs out, the bots find them there (the redirect now follows the database), and every
//! list finishes with records equal to an uninterrupted run's. And the fence: a replica
//! that was only frozen past its lease writes nothing once it wakes, and stops.
//!
//! Needs `SKAT_TEST_POSTGRES` (skipped without it, unless `SKAT_REQUIRE_POSTGRES`:
//! `scripts/test-all` sets both).

use std::process::Command;
use std::time::{Duration, Instant};

use skat_bots::Strategy;
use skat_proto::pb;
use skat_sdk::SeatClient;
use skat_sdk::play::{Finished, PlayOptions};
use tokio::task::JoinHandle;

mod common;

use common::{
    Kill, ServerProcess, Slow, client, get_tournament, lobby_bot, records, register, reserve_port, serve,
    skat,
};

const SEEDS: [u64; 3] = [21, 22, 23];
const DEALS: u32 = 6;
/// The replicas' lease in these tests (10 s by default): takeover within about 2.5 s.
const LEASE: &str = "2s";

struct Replica {
    node: &'static str,
    port: u16,
    process: ServerProcess,
}

impl Replica {
    fn start(node: &'static str, port: u16, db: &str, peers: &str) -> Replica {
        Replica::with_lease(node, port, db, peers, LEASE)
    }

    fn with_lease(node: &'static str, port: u16, db: &str, peers: &str, lease: &str) -> Replica {
        let process = serve()
            .args(["--node-id", node, "--peer", peers, "--database", db, "--replica-lease", lease])
            .args(["--admin-token", "operator-secret"])
            .port(port)
            .start();
        Replica { node, port, process }
    }

    fn url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    fn log(&self) -> String {
        self.process.log()
    }

    fn signal(&self, signal: &str) {
        let pid = self.process.pid().to_string();
        assert!(Command::new("kill").args([signal, &pid]).status().unwrap().success());
    }
}

fn create_request(seed: u64) -> pb::CreateTableRequest {
    pb::CreateTableRequest {
        name: format!("takeover {seed}"),
        deals: DEALS,
        seed: Some(seed),
        time_control: Some(pb::TimeControl { action_ms: 60_000, deal_ms: 0, between_deals_ms: 0 }),
        ..Default::default()
    }
}

type Seats = Vec<JoinHandle<Result<Finished, skat_sdk::SdkError>>>;

/// Three slow heuristic bots at `table`, each asked for its seat at `home` (and so
/// redirected to the owner).
async fn seat_bots(home: &str, table: &str) -> Seats {
    let mut bots = Vec::new();
    for i in 0..3 {
        let (seat, _) = SeatClient::join(home, table, &format!("bot{i}"), Some(i)).await.unwrap();
        bots.push(tokio::spawn(async move {
            let mut bot = Slow(Strategy::by_name("heuristic", 0).unwrap());
            let options = PlayOptions { max_reconnect_attempts: 400, ..PlayOptions::default() };
            skat_sdk::play::play(seat, &mut bot, options).await
        }));
    }
    bots
}

/// The records of the same seeds and bots on one server without a journal.
async fn reference_records() -> Vec<Vec<String>> {
    let server = serve().args(["--database", "memory"]).start();
    let port = server.port();
    let mut c = client(port).await;
    let mut out = Vec::new();
    for seed in SEEDS {
        let table = c.create_table(create_request(seed)).await.unwrap().into_inner().table_id;
        for b in seat_bots(&format!("http://127.0.0.1:{port}"), &table).await {
            b.await.unwrap().unwrap();
        }
        out.push(records(port, &table).await);
    }
    out
}

/// Waits until every table has played a deal (so that the kill lands mid-match).
async fn until_mid_match(port: u16, tables: &[String]) {
    let mut c = client(port).await;
    let deadline = Instant::now() + Duration::from_secs(60);
    for t in tables {
        loop {
            let view = c
                .get_table(pb::GetTableRequest { table_id: t.clone() })
                .await
                .unwrap()
                .into_inner()
                .table
                .unwrap();
            assert!(view.status != pb::TableStatus::Finished as i32, "{t} finished before the kill");
            if view.deals_played >= 1 {
                break;
            }
            assert!(Instant::now() < deadline, "{t} did not get going");
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }
}

/// `replicas` replicas; tables on the first, bots sent to the others; the first killed.
async fn a_dead_replicas_tables_finish_elsewhere(replicas: usize) {
    let Some(db) = common::postgres_database("skat_takeover", replicas as u32).await else { return };
    let nodes = ["a", "b", "c"];
    let ports: Vec<u16> = (0..replicas).map(|_| reserve_port()).collect();
    let peers =
        nodes.iter().zip(&ports).map(|(n, p)| format!("{n}=127.0.0.1:{p}")).collect::<Vec<_>>().join(",");
    let mut all: Vec<Replica> =
        (0..replicas).map(|i| Replica::start(nodes[i], ports[i], &db, &peers)).collect();
    for r in &all {
        let _ = client(r.port).await;
    }
    let mut on_a = client(all[0].port).await;
    let mut tables = Vec::new();
    for seed in SEEDS {
        tables.push(on_a.create_table(create_request(seed)).await.unwrap().into_inner().table_id);
    }
    let mut bots = Vec::new();
    for (i, t) in tables.iter().enumerate() {
        assert!(t.starts_with("a."), "{t}");
        // Each table's bots asked at another replica than a (the home they return to).
        let home = all[1 + i % (replicas - 1)].url();
        bots.extend(seat_bots(&home, t).await);
    }
    until_mid_match(all[0].port, &tables).await;

    // kill -9, never restarted.
    let killed = Instant::now();
    drop(all.remove(0));

    for b in bots {
        let finished = tokio::time::timeout(Duration::from_secs(180), b).await.unwrap().unwrap().unwrap();
        assert!(finished.reconnects >= 1, "the bot lost its server and found the table again");
    }
    let took = killed.elapsed();
    eprintln!("{replicas} replicas: every list finished {:.1} s after the kill", took.as_secs_f64());

    // Exactly one replica took a's tables over, all of them; its log says so once.
    let takers: Vec<&Replica> = all.iter().filter(|r| r.log().contains("took over the tables")).collect();
    assert_eq!(takers.len(), 1, "one replica takes the tables over");
    let taker = takers[0];
    assert_eq!(taker.log().matches("took over the tables").count(), 1);
    assert!(taker.log().contains("from=a tables=3"), "{}", taker.log());
    for r in &all {
        let mut c = client(r.port).await;
        for t in &tables {
            // Any replica serves a finished table (from the journal) or redirects to it.
            match c.get_table(pb::GetTableRequest { table_id: t.clone() }).await {
                Ok(v) => assert_eq!(v.into_inner().table.unwrap().status, pb::TableStatus::Finished as i32),
                Err(e) => panic!("{} about {t}: {e:?}", r.node),
            }
        }
    }
    // The records are those of an uninterrupted run.
    let reference = reference_records().await;
    for (i, t) in tables.iter().enumerate() {
        assert_eq!(records(taker.port, t).await, reference[i], "{t}: records as in an uninterrupted run");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_replicas_one_killed_postgres() {
    a_dead_replicas_tables_finish_elsewhere(2).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn three_replicas_one_killed_postgres() {
    a_dead_replicas_tables_finish_elsewhere(3).await;
}

/// The fence: a replica frozen (SIGSTOP) past its lease loses its tables to the other;
/// woken (SIGCONT), it must not write to them: it stops on its own, and the lists finish
/// on the other replica as if nothing had happened.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_frozen_replica_is_fenced_when_it_wakes_postgres() {
    let Some(db) = common::postgres_database("skat_fence", 0).await else { return };
    let (pa, pb_) = (reserve_port(), reserve_port());
    let peers = format!("a=127.0.0.1:{pa},b=127.0.0.1:{pb_}");
    let mut a = Replica::start("a", pa, &db, &peers);
    let b = Replica::start("b", pb_, &db, &peers);
    let _ = client(pb_).await;
    let mut on_a = client(pa).await;
    let table = on_a.create_table(create_request(SEEDS[0])).await.unwrap().into_inner().table_id;
    let bots = seat_bots(&b.url(), &table).await;
    until_mid_match(pa, std::slice::from_ref(&table)).await;

    a.signal("-STOP");
    let deadline = Instant::now() + Duration::from_secs(30);
    while !b.log().contains("took over the tables") {
        assert!(Instant::now() < deadline, "b did not take the table over:\n{}", b.log());
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    a.signal("-CONT");
    // a learns at its next commit or lease renewal that its epoch is over, and stops.
    let deadline = Instant::now() + Duration::from_secs(20);
    let status = loop {
        if let Some(status) = a.process.try_wait() {
            break status;
        }
        assert!(Instant::now() < deadline, "a did not stop after losing its lease:\n{}", a.log());
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    assert!(!status.success(), "a stops with an error");
    assert!(a.log().contains("lost its lease"), "{}", a.log());

    for bot in bots {
        tokio::time::timeout(Duration::from_secs(120), bot).await.unwrap().unwrap().unwrap();
    }
    let reference = reference_records().await;
    assert_eq!(records(pb_, &table).await, reference[0], "records as in an uninterrupted run");
}

/// A replica stopped on purpose (SIGTERM, as in a rolling update) gives its lease up:
/// the other takes its table over at its next look, long before the lease would end.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_replica_stopped_cleanly_hands_its_tables_over_at_once_postgres() {
    let Some(db) = common::postgres_database("skat_release", 0).await else { return };
    let (pa, pb_) = (reserve_port(), reserve_port());
    let peers = format!("a=127.0.0.1:{pa},b=127.0.0.1:{pb_}");
    // A lease of 8 s: b looks every 2 s.
    let mut a = Replica::with_lease("a", pa, &db, &peers, "8s");
    let b = Replica::with_lease("b", pb_, &db, &peers, "8s");
    let _ = client(pb_).await;
    let mut on_a = client(pa).await;
    let table = on_a.create_table(create_request(SEEDS[1])).await.unwrap().into_inner().table_id;
    let bots = seat_bots(&b.url(), &table).await;
    until_mid_match(pa, std::slice::from_ref(&table)).await;

    a.signal("-TERM");
    assert!(a.process.wait().success(), "a stops cleanly");
    let stopped = Instant::now();
    assert!(a.log().contains("gave this replica's lease up"), "{}", a.log());
    while !b.log().contains("took over the tables") {
        assert!(
            stopped.elapsed() < Duration::from_secs(8),
            "b waited for the lease to run out:\n{}",
            b.log()
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    eprintln!("taken over {:.1} s after a stopped", stopped.elapsed().as_secs_f64());
    for bot in bots {
        tokio::time::timeout(Duration::from_secs(120), bot).await.unwrap().unwrap().unwrap();
    }
    let reference = reference_records().await;
    assert_eq!(records(pb_, &table).await, reference[1], "records as in an uninterrupted run");
}

/// A tournament's lobby bots follow its tables: the tables and the scheduler are on `a`,
/// the bots' lobbies on `b`; `a` is killed and never comes back. `b` takes the tables over
/// (and hands their seats to the lobbies again), then the scheduler, and the tournament
/// finishes with every table played.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tournament_goes_on_after_its_replica_dies_postgres() {
    let Some(db) = common::postgres_database("skat_takeover_lobby", 0).await else { return };
    let (pa, pb_) = (reserve_port(), reserve_port());
    let peers = format!("a=127.0.0.1:{pa},b=127.0.0.1:{pb_}");
    let a = Replica::start("a", pa, &db, &peers);
    let b = Replica::start("b", pb_, &db, &peers);
    let _ = client(pa).await;
    let mut cb = client(pb_).await;
    let names = ["t-1", "t-2", "t-3"];
    let tokens: Vec<String> = names.iter().map(|n| register(pa, n, None).unwrap()).collect();
    let _bots: Vec<Kill> = tokens.iter().map(|t| lobby_bot(pb_, "heuristic", t)).collect();
    let out = skat()
        .args(["tournament", "create", "--server", &format!("127.0.0.1:{pa}")])
        .args(["--admin-token", "operator-secret", "--action-timeout", "10s", "--deal-clock", "0s"])
        .args(["--entrants", "t-1,t-2,t-3", "--deals", "6", "--lists", "2", "--seed", "4"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let id = String::from_utf8(out.stdout).unwrap().split_whitespace().nth(1).unwrap().to_string();

    // The first table is playing on a.
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let t = get_tournament(&mut cb, &id).await;
        if let Some(x) = t.tables.iter().find(|x| x.status == "playing") {
            assert!(x.table_id.starts_with("a."), "{}", x.table_id);
            break;
        }
        assert!(Instant::now() < deadline, "no table started: {t:?}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    drop(a);

    let deadline = Instant::now() + Duration::from_secs(150);
    let t = loop {
        let t = get_tournament(&mut cb, &id).await;
        if t.finished {
            break t;
        }
        assert!(
            Instant::now() < deadline,
            "the tournament did not finish after a's death: {t:?}\n{}",
            b.log()
        );
        tokio::time::sleep(Duration::from_millis(250)).await;
    };
    assert!(t.tables.iter().all(|x| x.status == "finished"), "{t:?}");
    assert!(b.log().contains("took over the tables"), "b took a's table over");
    // The bots were handed their seats at b again at once: nobody waited out a clock.
    assert!(!b.log().contains("ran out of time"), "a seat was left without its bot:\n{}", b.log());
    assert!(t.tables.iter().any(|x| x.table_id.starts_with("a.")), "a table begun on a finished on b");
}
