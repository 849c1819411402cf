//! Hosted tables admitted by the runners' free capacity (issue 66), without an engine: a
//! runner that follows the feed with a stated capacity and plays every seat it is handed
//! (with a random bot, over the seat's token) as a sandbox would, then reports it ended.
//! A hosted round robin larger than the runners hold plays to its end, one table at a
//! time, in its plan's order, never more seats at once than the capacity holds, no seat
//! forfeited; `GetTournament` says what waits and when it will likely be over; two
//! runners share the seats. `deploy/test-hosted.sh` runs the same with podman.

mod common;

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use common::*;
use skat_proto::pb;
use skat_proto::pb::hosting_service_client::HostingServiceClient;
use skat_server::{Database, HostingConfig, ServerConfig};
use tonic::transport::Channel;

const ADMIN: &str = "admin-secret";
const RUNNER: &str = "runner-secret-token";

/// What the runners saw: seats at once (most), and each seat's runner.
#[derive(Debug, Default)]
struct Seen {
    now: usize,
    most: usize,
    by_runner: BTreeMap<String, usize>,
}

async fn server(dir: &std::path::Path) -> (TestServer, Client, HostingServiceClient<Channel>) {
    let server = TestServer::start(ServerConfig {
        database: Database::Sqlite(dir.to_path_buf()),
        admin_token: Some(ADMIN.into()),
        hosting: HostingConfig {
            images_dir: Some(dir.join("images")),
            runner_token: Some(RUNNER.into()),
            cpu_millis: 500,
            memory_mib: 128,
            ..HostingConfig::default()
        },
        ..config()
    })
    .await;
    let games = server.client().await;
    let hosting = hosting_client(&server).await;
    (server, games, hosting)
}

/// Hosted accounts `names`, each with an active version.
async fn hosted(games: &mut Client, hosting: &mut HostingServiceClient<Channel>, names: &[&str]) {
    use pb::submit_bot_version_request::Part;
    for name in names {
        let token = games
            .register_bot(authed(
                pb::RegisterBotRequest { name: (*name).into(), owner: String::new() },
                ADMIN,
            ))
            .await
            .unwrap()
            .into_inner()
            .bot_token;
        let parts = vec![
            pb::SubmitBotVersionRequest {
                part: Some(Part::Header(pb::BotVersionHeader { activate: true, ..Default::default() })),
            },
            pb::SubmitBotVersionRequest { part: Some(Part::Chunk(oci_archive(name))) },
        ];
        hosting.submit_bot_version(authed(tokio_stream::iter(parts), &token)).await.unwrap();
    }
}

/// A runner named `name` that can hold `millis`: plays every seat it is handed with a
/// random bot over the main port (as its sandbox would through its door), then reports
/// the sandbox ended.
fn runner(
    address: String,
    hosting: HostingServiceClient<Channel>,
    name: &str,
    millis: u64,
    seen: Arc<Mutex<Seen>>,
) {
    let name = name.to_string();
    tokio::spawn(async move {
        let mut hosting = hosting;
        let request = pb::RunnerFeedRequest {
            runner: name.clone(),
            capacity_cpu_millis: millis,
            capacity_memory_mib: 4096,
        };
        let mut feed = hosting.runner_feed(authed(request, RUNNER)).await.unwrap().into_inner();
        let mut n = 0u64;
        while let Ok(Some(m)) = feed.message().await {
            let Some(seat) = m.seat else { continue };
            n += 1;
            {
                let mut s = seen.lock().unwrap();
                s.now += 1;
                s.most = s.most.max(s.now);
                *s.by_runner.entry(name.clone()).or_default() += 1;
            }
            let (address, mut hosting, seen, name) =
                (address.clone(), hosting.clone(), Arc::clone(&seen), name.clone());
            tokio::spawn(async move {
                let mut bot = skat_bots::random::RandomBot::new(n);
                let played = skat_sdk::play::play_with_token(
                    address.as_str(),
                    &seat.table_id,
                    &seat.seat_token,
                    &mut bot,
                )
                .await;
                assert!(played.is_ok(), "{played:?}");
                seen.lock().unwrap().now -= 1;
                let ended = pb::Sandbox {
                    id: format!("{name}-{n}"),
                    bot_name: seat.bot_name.clone(),
                    digest: seat.version.as_ref().map(|v| v.digest.clone()).unwrap_or_default(),
                    table_id: seat.table_id.clone(),
                    seat: seat.seat,
                    outcome: pb::SandboxOutcome::Exited as i32,
                    runner: name,
                    ..Default::default()
                };
                let report = pb::ReportSandboxRequest { sandbox: Some(ended), ..Default::default() };
                hosting.report_sandbox(authed(report, RUNNER)).await.unwrap();
            });
        }
    });
}

async fn tournament(games: &mut Client, id: &str) -> pb::Tournament {
    games
        .get_tournament(pb::GetTournamentRequest { tournament_id: id.into() })
        .await
        .unwrap()
        .into_inner()
        .tournament
        .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_hosted_round_robin_larger_than_the_runners_hold_plays_one_table_at_a_time_in_order() {
    let dir = tempfile::tempdir().unwrap().keep();
    let (mut server, mut games, mut hosting) = server(&dir).await;
    hosted(&mut games, &mut hosting, &["a1", "a2", "a3", "a4"]).await;
    let seen = Arc::new(Mutex::new(Seen::default()));
    // Two runners of two places each at half a CPU: one table of three at a time.
    let address = format!("http://{}", server.server.addr);
    runner(address.clone(), hosting.clone(), "r1", 1000, Arc::clone(&seen));
    runner(address, hosting.clone(), "r2", 1000, Arc::clone(&seen));
    tokio::time::sleep(Duration::from_millis(500)).await;
    let t = pb::CreateTournamentRequest {
        entrants: ["a1", "a2", "a3", "a4"].map(String::from).to_vec(),
        deals: 1,
        hosted: true,
        ..Default::default()
    };
    let id = games.create_tournament(authed(t, ADMIN)).await.unwrap().into_inner().tournament_id;
    let (mut order, mut waited, mut estimated, mut most_playing) = (Vec::new(), 0, 0, 0);
    let shown = within(240, async {
        loop {
            let t = tournament(&mut games, &id).await;
            for table in &t.tables {
                let index = t.tables.iter().position(|x| x.table_id == table.table_id).unwrap();
                if !table.table_id.is_empty() && !order.contains(&index) {
                    order.push(index);
                }
            }
            waited = waited.max(t.tables_waiting);
            most_playing = most_playing.max(t.tables_playing);
            if t.estimated_finish_ms > 0 {
                estimated += 1;
            }
            if t.finished {
                return t;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    })
    .await;
    assert_eq!(shown.tables_finished, 12, "every table of four entrants in threes, three rotations each");
    let seen = std::mem::take(&mut *seen.lock().unwrap());
    assert!(seen.most <= 4, "more seats at once than the runners hold: {seen:?}");
    assert_eq!(most_playing, 1, "one table at a time fits");
    assert!(waited > 0, "tables waited for places and said so");
    assert!(estimated > 0, "an estimate once a table finished");
    assert_eq!(order, (0..12).collect::<Vec<_>>(), "the queue drains in the plan's order");
    assert!(seen.by_runner.len() == 2, "both runners played: {seen:?}");
    for table in &shown.tables {
        let records = games
            .get_records(pb::GetRecordsRequest { table_id: table.table_id.clone(), ..Default::default() })
            .await
            .unwrap()
            .into_inner();
        assert!(!records.records.iter().any(|r| r.contains(" w TI.")), "a seat forfeited on its clock");
    }
    server.stop();
    std::fs::remove_dir_all(&dir).ok();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_a_runner_no_hosted_table_starts_and_a_persons_table_is_refused() {
    let dir = tempfile::tempdir().unwrap().keep();
    let (mut server, mut games, mut hosting) = server(&dir).await;
    hosted(&mut games, &mut hosting, &["b1", "b2", "b3"]).await;
    let t = pb::CreateTournamentRequest {
        entrants: ["b1", "b2", "b3"].map(String::from).to_vec(),
        deals: 1,
        hosted: true,
        ..Default::default()
    };
    let id = games.create_tournament(authed(t, ADMIN)).await.unwrap().into_inner().tournament_id;
    tokio::time::sleep(Duration::from_secs(3)).await;
    let t = tournament(&mut games, &id).await;
    assert!(
        t.tables.iter().all(|x| x.table_id.is_empty()),
        "a table started with no place for its sandboxes"
    );
    assert_eq!(t.tables_waiting, 3, "every due table (its three rotations) waits");
    let person = pb::CreateTableRequest { seats: 3, deals: 1, bots: vec!["b1".into()], ..Default::default() };
    let refused = games.create_table(authed(person, ADMIN)).await.unwrap_err();
    assert!(refused.message().contains("no runner has room"), "{}", refused.message());
    server.stop();
    std::fs::remove_dir_all(&dir).ok();
}
