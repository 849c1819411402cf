//! Tables survive the server: `kill -9` in the middle of matches (tables mid-trick,
//! between deals, one with a pending claim), SIGTERM with a drain, a crash during the
//! recovery itself, and a damaged journal tail. Each runs against the real `skat`
//! binary, on SQLite and on a real PostgreSQL server (`SKAT_TEST_POSTGRES`, an admin URL;
//! `scripts/test-all` starts one and sets `SKAT_REQUIRE_POSTGRES=1` so that it cannot be
//! skipped there).
//!
//! What must hold after the restart: every event a spectator saw before the kill (only
//! durable events are published) is in the log again with the same `seq` and the same
//! content, nothing is duplicated, the bots reconnect with their tokens and finish, and
//! their records equal those of an uninterrupted run with the same seeds (the heuristic
//! bot is deterministic).

use std::path::PathBuf;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use prost::Message as _;
use skat_bots::Strategy;
use skat_engine::Action;
use skat_proto::pb::skat_service_client::SkatServiceClient;
use skat_proto::pb::{self, watch_table_response::Kind as WatchKind};
use skat_sdk::SeatClient;
use skat_sdk::play::PlayOptions;
use tokio::task::JoinHandle;
use tonic::transport::Channel;

mod common;

use common::{ServerProcess, Slow, records, reserve_port, serve};

static COUNTER: AtomicU32 = AtomicU32::new(0);

/// Where the server keeps its journal.
#[derive(Clone, Debug)]
enum Db {
    Memory,
    Sqlite(PathBuf),
    Postgres(String),
}

impl Db {
    fn sqlite() -> Db {
        let dir = std::env::temp_dir().join(format!(
            "skat-durability-{}-{}",
            std::process::id(),
            COUNTER.fetch_add(1, Ordering::Relaxed)
        ));
        let _ = std::fs::remove_dir_all(&dir);
        Db::Sqlite(dir)
    }

    /// A fresh database on the test PostgreSQL server, or None (skipped) without one.
    async fn postgres() -> Option<Db> {
        common::postgres_database("skat_test", COUNTER.fetch_add(1, Ordering::Relaxed))
            .await
            .map(Db::Postgres)
    }

    fn args(&self) -> Vec<String> {
        match self {
            Db::Memory => vec!["--database".into(), "memory".into()],
            Db::Sqlite(dir) => {
                vec!["--database".into(), "sqlite".into(), "--data-dir".into(), dir.display().to_string()]
            }
            Db::Postgres(url) => vec!["--database".into(), url.clone()],
        }
    }

    fn url(&self) -> String {
        match self {
            Db::Memory => String::new(),
            Db::Sqlite(dir) => format!("sqlite://{}", dir.join("skat.db").display()),
            Db::Postgres(url) => url.clone(),
        }
    }
}

/// The server on `port` (0: one it picks) with `db` and `extra` flags, once it listens.
fn start(port: u16, db: &Db, extra: &[&str]) -> ServerProcess {
    serve().args(db.args()).args(extra.iter().copied()).port(port).start()
}

async fn client(port: u16) -> SkatServiceClient<Channel> {
    for _ in 0..400 {
        if let Ok(c) = SkatServiceClient::connect(format!("http://127.0.0.1:{port}")).await {
            return c;
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    panic!("server on {port} did not start");
}

const SEEDS: [u64; 4] = [11, 12, 13, 14];
const DEALS: u32 = 8;

fn create_request(seed: u64, deals: u32) -> pb::CreateTableRequest {
    pb::CreateTableRequest {
        name: format!("durability {seed}"),
        deals,
        seed: Some(seed),
        time_control: Some(pb::TimeControl { action_ms: 60_000, deal_ms: 0, between_deals_ms: 0 }),
        ..Default::default()
    }
}

/// Every event a spectator has seen, by table.
type Seen = Arc<Mutex<Vec<pb::Event>>>;

fn spectate(port: u16, table: String) -> (Seen, JoinHandle<()>) {
    let seen: Seen = Arc::default();
    let out = Arc::clone(&seen);
    let task = tokio::spawn(async move {
        let mut c = client(port).await;
        let req = pb::WatchTableRequest { table_id: table, after_seq: Some(0) };
        let Ok(stream) = c.watch_table(req).await else { return };
        let mut stream = stream.into_inner();
        while let Ok(Some(msg)) = stream.message().await {
            if let Some(WatchKind::Event(e)) = msg.kind {
                out.lock().unwrap().push(e);
            }
        }
    });
    (seen, task)
}

/// The whole log of a table, read as a spectator from the start.
async fn log_of(port: u16, table: &str, at_least: usize) -> Vec<pb::Event> {
    let mut c = client(port).await;
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let req = pb::WatchTableRequest { table_id: table.to_string(), after_seq: Some(0) };
        let mut stream = c.watch_table(req).await.unwrap().into_inner();
        let mut events = Vec::new();
        while let Ok(Ok(Some(msg))) = tokio::time::timeout(Duration::from_millis(300), stream.message()).await
        {
            if let Some(WatchKind::Event(e)) = msg.kind {
                events.push(e);
            }
        }
        if events.len() >= at_least || Instant::now() > deadline {
            return events;
        }
    }
}

/// Joins three seats and plays them with slow heuristic bots; the seat tokens are
/// returned so that a test can play on after taking the bots away.
async fn seat_bots(
    port: u16,
    table: &str,
) -> (Vec<String>, Vec<JoinHandle<Result<skat_sdk::play::Finished, skat_sdk::SdkError>>>) {
    let url = format!("http://127.0.0.1:{port}");
    let mut tokens = Vec::new();
    let mut bots = Vec::new();
    for i in 0..3 {
        let (seat, _) = SeatClient::join(&url, table, &format!("bot{i}"), Some(i)).await.unwrap();
        tokens.push(seat.token().to_string());
        bots.push(tokio::spawn(async move {
            let mut bot = Slow(Strategy::by_name("heuristic", 0).unwrap());
            let options = PlayOptions { max_reconnect_attempts: 200, ..PlayOptions::default() };
            skat_sdk::play::play(seat, &mut bot, options).await
        }));
    }
    (tokens, bots)
}

/// The records of an uninterrupted run: the same seeds and bots on a server without a
/// journal.
async fn reference_records() -> Vec<Vec<String>> {
    let server = start(0, &Db::Memory, &[]);
    let port = server.port();
    let mut c = client(port).await;
    let mut out = Vec::new();
    for seed in SEEDS {
        let table = c.create_table(create_request(seed, DEALS)).await.unwrap().into_inner().table_id;
        let (_, bots) = seat_bots(port, &table).await;
        for b in bots {
            b.await.unwrap().unwrap();
        }
        out.push(records(port, &table).await);
    }
    drop(server);
    out
}

/// Drives a one-deal table with the first legal action until the card play starts,
/// then the declarer claims; returns the three seats and the declarer's seat index.
async fn claim_table(port: u16, table: &str) -> (Vec<SeatClient>, usize) {
    let url = format!("http://127.0.0.1:{port}");
    let mut seats = Vec::new();
    for i in 0..3 {
        seats.push(SeatClient::join(&url, table, &format!("claimer{i}"), Some(i)).await.unwrap().0);
    }
    let mut bot = Strategy::by_name("heuristic", 0).unwrap();
    loop {
        let mut acted = false;
        for i in 0..3 {
            let view = seats[i].view().await.unwrap();
            let deal = view.deal.as_ref().unwrap();
            if deal.phase == pb::Phase::Playing as i32 {
                // Positions are numbered from 1 (forehand); `position_seats` maps them to seats.
                let seat_of_declarer = deal.position_seats[(deal.declarer - 1) as usize];
                let declarer = seats
                    .iter()
                    .position(|s| u32::from(s.seat()) == seat_of_declarer)
                    .expect("a declarer once the card play starts");
                seats[declarer].act(Action::Claim, None).await.unwrap();
                return (seats, declarer);
            }
            let k = skat_proto::convert::seat_view_from(&view).unwrap();
            if k.legal.has_turn()
                && let Some(action) = skat_sdk::decide(&mut bot, &k).await
            {
                seats[i].act(action, Some(view.seq)).await.unwrap();
                acted = true;
            }
        }
        assert!(acted, "somebody can act until the card play starts");
    }
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Stop {
    Kill,
    Term,
    KillDuringRecovery,
}

async fn survives(db: Db, stop: Stop) {
    survives_with(db, stop, &[]).await;
}

/// [`survives`], the first server started with `extra` flags.
async fn survives_with(db: Db, stop: Stop, extra: &[&str]) {
    let first: Vec<&str> = ["--drain", "200ms"].iter().chain(extra).copied().collect();
    let server = start(0, &db, &first);
    let port = server.port();
    let mut c = client(port).await;
    let mut tables = Vec::new();
    for seed in SEEDS {
        tables.push(c.create_table(create_request(seed, DEALS)).await.unwrap().into_inner().table_id);
    }
    let mut seen = Vec::new();
    let mut bots = Vec::new();
    for t in &tables {
        let (s, _) = spectate(port, t.clone());
        seen.push(s);
        bots.extend(seat_bots(port, t).await.1);
    }
    let claim_id = c.create_table(create_request(99, 1)).await.unwrap().into_inner().table_id;
    let (mut claimers, declarer) = claim_table(port, &claim_id).await;

    // Mid-match: every table has played a while, none has finished.
    let deadline = Instant::now() + Duration::from_secs(60);
    while seen.iter().any(|s| s.lock().unwrap().len() < 60) {
        assert!(Instant::now() < deadline, "the bots did not get going");
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    match stop {
        Stop::Kill | Stop::KillDuringRecovery => {
            server.kill9();
        }
        Stop::Term => {
            let status = server.sigterm();
            assert!(status.success(), "SIGTERM exits cleanly: {status:?}");
        }
    }
    let before: Vec<Vec<pb::Event>> = seen.iter().map(|s| s.lock().unwrap().clone()).collect();
    assert!(before.iter().all(|b| !b.iter().any(|e| matches!(e.kind, Some(pb::event::Kind::MatchEnded(_))))));

    if stop == Stop::KillDuringRecovery {
        // Start, and kill it as soon as it says it is recovering (or has).
        let server = serve().args(db.args()).port(port).spawn().expect("the server runs");
        let deadline = Instant::now() + Duration::from_secs(20);
        while !server.log().contains("recovering tables") && Instant::now() < deadline {
            tokio::time::sleep(Duration::from_millis(1)).await;
        }
        server.kill9();
    }
    let server = start(port, &db, &[]);
    let _ = client(port).await;
    assert!(server.log().contains("tables=5"), "five tables recovered:\n{}", server.log());

    // Everything seen before is there again, with the same seq and content.
    for (t, before) in tables.iter().zip(&before) {
        let after = log_of(port, t, before.len()).await;
        assert!(after.len() >= before.len(), "{t}: {} events before, {} after", before.len(), after.len());
        for (a, b) in after.iter().zip(before) {
            assert_eq!(
                a.encode_to_vec(),
                b.encode_to_vec(),
                "{t}: event {} differs after the restart",
                b.seq
            );
        }
        for (i, e) in after.iter().enumerate() {
            assert_eq!(e.seq, i as u64 + 1, "{t}: seqs are 1, 2, 3, ... with no gap or repeat");
        }
    }

    // The claim is still pending: a second one is refused; the defenders concede.
    let again = claimers[declarer].act(Action::Claim, None).await.unwrap_err();
    assert_eq!(
        skat_proto::convert::status_reason(&again),
        Some(pb::ErrorReason::AlreadyClaimed),
        "{again:?}"
    );
    for (i, s) in claimers.iter_mut().enumerate() {
        if i != declarer {
            s.act(Action::Resign, None).await.unwrap();
        }
    }
    let claim_records = records(port, &claim_id).await;
    assert_eq!(claim_records.len(), 1);
    assert!(claim_records[0].contains("defenders_resigned"), "{}", claim_records[0]);

    // The bots reconnect with their tokens and finish their lists.
    for b in bots {
        let finished = tokio::time::timeout(Duration::from_secs(120), b).await.unwrap().unwrap().unwrap();
        assert!(finished.reconnects >= 1);
    }
    let reference = reference_records().await;
    for (i, t) in tables.iter().enumerate() {
        assert_eq!(records(port, t).await, reference[i], "{t}: records as in an uninterrupted run");
    }
    drop(server);
    if let Db::Sqlite(dir) = db {
        let _ = std::fs::remove_dir_all(dir);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kill_9_mid_match_sqlite() {
    survives(Db::sqlite(), Stop::Kill).await;
}

/// A journal that waits to gather changes under load (`--journal-gather`) still sends no
/// OK, and publishes no event, before its commit: kill -9 loses nothing anybody saw.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kill_9_mid_match_sqlite_gathering() {
    survives_with(Db::sqlite(), Stop::Kill, &["--journal-gather", "3ms"]).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kill_9_mid_match_postgres() {
    if let Some(db) = Db::postgres().await {
        survives(db, Stop::Kill).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sigterm_with_drain_sqlite() {
    survives(Db::sqlite(), Stop::Term).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sigterm_with_drain_postgres() {
    if let Some(db) = Db::postgres().await {
        survives(db, Stop::Term).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn crash_during_recovery_sqlite() {
    survives(Db::sqlite(), Stop::KillDuringRecovery).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn crash_during_recovery_postgres() {
    if let Some(db) = Db::postgres().await {
        survives(db, Stop::KillDuringRecovery).await;
    }
}

/// A damaged tail: the last entry of one table altered (as a torn write leaves it) and,
/// on SQLite, the write-ahead log cut short. The server recovers the intact prefix, says
/// what it dropped, never serves a half-written event, and the table plays on.
async fn damaged_tail(db: Db) {
    let server = start(0, &db, &[]);
    let port = server.port();
    let mut c = client(port).await;
    let table = c.create_table(create_request(21, DEALS)).await.unwrap().into_inner().table_id;
    let (seen, _) = spectate(port, table.clone());
    let (tokens, bots) = seat_bots(port, &table).await;
    while seen.lock().unwrap().len() < 80 {
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    server.kill9();
    for b in &bots {
        b.abort();
    }
    let before = seen.lock().unwrap().clone();
    if let Db::Sqlite(dir) = &db {
        let wal = dir.join("skat.db-wal");
        if let Ok(meta) = std::fs::metadata(&wal)
            && meta.len() > 2000
        {
            let f = std::fs::OpenOptions::new().write(true).open(&wal).unwrap();
            f.set_len(meta.len() - 1000).unwrap();
        }
    }
    sqlx::any::install_default_drivers();
    let pool = sqlx::AnyPool::connect(&db.url()).await.unwrap();
    // The last input is in the hot log or already under its table's key (or in both,
    // between a move and its forgetting): damage it wherever it is.
    let last: i64 = sqlx::query_scalar(
        "SELECT MAX(n) FROM (SELECT n FROM skat_entries WHERE table_id = $1 \
         UNION ALL SELECT n FROM skat_log WHERE table_id = $1) AS t",
    )
    .bind(&table)
    .fetch_one(&pool)
    .await
    .unwrap();
    for target in ["skat_entries", "skat_log"] {
        sqlx::query(&format!(
            "UPDATE {target} SET body = substr(body, 1, length(body) - 5) WHERE table_id = $1 AND n = $2"
        ))
        .bind(&table)
        .bind(last)
        .execute(&pool)
        .await
        .unwrap();
    }
    pool.close().await;

    let server = start(port, &db, &[]);
    let _ = client(port).await;
    let log = server.log();
    assert!(
        log.contains("damaged") && log.contains(&table) && log.contains(&format!("first_dropped={last}")),
        "the server names the table and what it dropped:\n{log}"
    );
    let after = log_of(port, &table, 1).await;
    assert!(!after.is_empty() && after.len() < before.len().max(after.len() + 1));
    for (a, b) in after.iter().zip(&before) {
        assert_eq!(a.encode_to_vec(), b.encode_to_vec(), "event {} is the one written before", b.seq);
    }
    // The table plays on from the intact prefix, with the same tokens.
    let url = format!("http://127.0.0.1:{port}");
    let mut rest = Vec::new();
    for token in tokens {
        let url = url.clone();
        let table = table.clone();
        rest.push(tokio::spawn(async move {
            let (seat, _) = SeatClient::with_token(&url, &table, &token).await.unwrap();
            let mut bot = Strategy::by_name("heuristic", 0).unwrap();
            skat_sdk::play::play(seat, &mut bot, PlayOptions::default()).await
        }));
    }
    for r in rest {
        tokio::time::timeout(Duration::from_secs(120), r).await.unwrap().unwrap().unwrap();
    }
    assert_eq!(records(port, &table).await.len(), DEALS as usize);
    drop(server);
    if let Db::Sqlite(dir) = db {
        let _ = std::fs::remove_dir_all(dir);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn damaged_tail_sqlite() {
    damaged_tail(Db::sqlite()).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn damaged_tail_postgres() {
    if let Some(db) = Db::postgres().await {
        damaged_tail(db).await;
    }
}

/// Replicas on one PostgreSQL database: a table finished on one is listed and its
/// records read on the other, also after it left the owner's memory.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn replicas_share_listings_and_records_postgres() {
    let Some(db) = Db::postgres().await else { return };
    // Replicas name each other: their ports are known before either starts.
    let (pa, pb_) = (reserve_port(), reserve_port());
    let peers = format!("a=127.0.0.1:{pa},b=127.0.0.1:{pb_}");
    let _a = start(pa, &db, &["--node-id", "a", "--peer", &peers]);
    let _b = start(pb_, &db, &["--node-id", "b", "--peer", &peers, "--table-expiry", "1s"]);
    let mut on_a = client(pa).await;
    let mut on_b = client(pb_).await;
    let table = on_b.create_table(create_request(5, 2)).await.unwrap().into_inner().table_id;
    assert!(table.starts_with("b."));
    let (_, bots) = seat_bots(pb_, &table).await;
    for b in bots {
        b.await.unwrap().unwrap();
    }
    let on_b_records = records(pb_, &table).await;
    assert_eq!(on_b_records.len(), 2);
    let listed = on_a
        .list_tables(pb::ListTablesRequest { filter: pb::TableFilter::Finished as i32, ..Default::default() })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(listed.tables.len(), 1);
    assert_eq!(listed.tables[0].table_id, table);
    assert_eq!(listed.tables[0].status, pb::TableStatus::Finished as i32);
    assert_eq!(listed.tables[0].players, vec!["bot0", "bot1", "bot2"]);
    assert_eq!(records(pa, &table).await, on_b_records, "replica a reads b's records from the database");
    // After b drops it from memory (expiry 1 s), both still answer from the database.
    tokio::time::sleep(Duration::from_millis(2500)).await;
    assert_eq!(records(pb_, &table).await, on_b_records);
    let view = on_a.get_table(pb::GetTableRequest { table_id: table.clone() }).await.unwrap().into_inner();
    assert_eq!(view.table.unwrap().status, pb::TableStatus::Finished as i32);
}

/// Finished tables stay listed (paged, newest first) and readable after they leave
/// memory; `--retention` deletes them later.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn finished_tables_are_listed_paged_and_deleted_after_retention() {
    let db = Db::sqlite();
    let server = start(0, &db, &["--table-expiry", "1s"]);
    let port = server.port();
    let mut c = client(port).await;
    let mut ids = Vec::new();
    for seed in 0..5 {
        let t = c.create_table(create_request(seed, 1)).await.unwrap().into_inner().table_id;
        let (_, bots) = seat_bots(port, &t).await;
        for b in bots {
            b.await.unwrap().unwrap();
        }
        ids.push(t);
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    tokio::time::sleep(Duration::from_millis(2500)).await;
    // Pages of two, newest first.
    let mut listed = Vec::new();
    let mut token = String::new();
    loop {
        let page = c
            .list_tables(pb::ListTablesRequest {
                filter: pb::TableFilter::Finished as i32,
                page_size: 2,
                page_token: token.clone(),
            })
            .await
            .unwrap()
            .into_inner();
        assert!(page.tables.len() <= 2);
        listed.extend(page.tables.into_iter().map(|t| t.table_id));
        if page.next_page_token.is_empty() {
            break;
        }
        token = page.next_page_token;
    }
    let newest_first: Vec<String> = ids.iter().rev().cloned().collect();
    assert_eq!(listed, newest_first);
    let bad = c
        .list_tables(pb::ListTablesRequest { page_token: "nonsense".into(), ..Default::default() })
        .await
        .unwrap_err();
    assert_eq!(skat_proto::convert::status_reason(&bad), Some(pb::ErrorReason::InvalidPageToken));
    assert_eq!(records(port, &ids[0]).await.len(), 1, "records outlive the table in memory");
    drop(server);

    // A restart with a retention shorter than their age deletes them.
    let server = start(port, &db, &["--retention", "1s", "--table-expiry", "1s"]);
    let mut c = client(port).await;
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let all = c.list_tables(pb::ListTablesRequest::default()).await.unwrap().into_inner().tables;
        if all.is_empty() {
            break;
        }
        assert!(Instant::now() < deadline, "retention deletes ended tables");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let gone =
        c.get_records(pb::GetRecordsRequest { table_id: ids[0].clone(), format: 0 }).await.unwrap_err();
    assert_eq!(gone.code(), tonic::Code::NotFound);
    drop(server);
    if let Db::Sqlite(dir) = db {
        let _ = std::fs::remove_dir_all(dir);
    }
}

/// When the database fails a commit, the call that needed it is refused (UNAVAILABLE,
/// STORAGE_UNAVAILABLE: nothing promised), the server stops with a non-zero exit, and a
/// restart serves the table as it was before the failed change.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_failing_database_stops_the_server_and_promises_nothing() {
    let db = Db::sqlite();
    let mut server = start(0, &db, &[]);
    let port = server.port();
    let mut c = client(port).await;
    let table = c.create_table(create_request(3, 1)).await.unwrap().into_inner().table_id;
    let join = |seat: u32| pb::JoinTableRequest {
        table_id: table.clone(),
        name: format!("p{seat}"),
        seat: Some(seat),
        ..Default::default()
    };
    c.join_table(join(0)).await.unwrap();
    c.join_table(join(1)).await.unwrap();
    // The disk "fails": every later insert into the journal (its hot log, where every
    // input is written first) is refused.
    sqlx::any::install_default_drivers();
    let pool = sqlx::AnyPool::connect(&db.url()).await.unwrap();
    sqlx::query(
        "CREATE TRIGGER broken BEFORE INSERT ON skat_log BEGIN SELECT RAISE(ABORT, 'disk failure'); END",
    )
    .execute(&pool)
    .await
    .unwrap();
    let refused = c.join_table(join(2)).await.unwrap_err();
    assert_eq!(refused.code(), tonic::Code::Unavailable, "{refused:?}");
    assert_eq!(skat_proto::convert::status_reason(&refused), Some(pb::ErrorReason::StorageUnavailable));
    let deadline = Instant::now() + Duration::from_secs(20);
    let status = loop {
        if let Some(status) = server.try_wait() {
            break status;
        }
        assert!(Instant::now() < deadline, "the server stops by itself");
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    assert!(!status.success(), "a journal failure is a failed exit: {status:?}");
    assert!(server.log().contains("could not commit"), "{}", server.log());
    sqlx::query("DROP TRIGGER broken").execute(&pool).await.unwrap();
    pool.close().await;

    let server = start(port, &db, &[]);
    let mut c = client(port).await;
    let view = c.get_table(pb::GetTableRequest { table_id: table.clone() }).await.unwrap().into_inner();
    let seats = view.table.unwrap().seat_info;
    assert_eq!(seats.iter().filter(|s| s.occupied).count(), 2, "the refused join is not there");
    drop(server);
    if let Db::Sqlite(dir) = db {
        let _ = std::fs::remove_dir_all(dir);
    }
}
