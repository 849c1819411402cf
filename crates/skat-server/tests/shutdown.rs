//! Every task a server spawns ends at its shutdown (issue 68): a server with a tournament
//! whose scheduler waits, a table on the clock, a spectator's stream, a runner following
//! the hosted feed and a lobby open is stopped; once its task has finished, its tracker
//! holds no task and the runtime has no more live tasks than before the server started.

mod common;

use std::time::Duration;

use common::*;
use skat_proto::pb;
use skat_server::{Database, HostingConfig, ServerConfig};

const ADMIN: &str = "admin-secret";
const RUNNER: &str = "runner-secret-token";

fn alive() -> usize {
    tokio::runtime::Handle::current().metrics().num_alive_tasks()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn after_shutdown_no_task_of_the_server_is_left() {
    let dir = tempfile::tempdir().unwrap();
    let before = alive();
    let mut server = TestServer::start(ServerConfig {
        database: Database::Sqlite(dir.path().to_path_buf()),
        admin_token: Some(ADMIN.into()),
        hosting: HostingConfig { runner_token: Some(RUNNER.into()), ..HostingConfig::default() },
        default_action_ms: 60_000,
        drain: Duration::ZERO,
        shutdown_grace: Duration::from_secs(2),
        ..config()
    })
    .await;
    let mut c = server.client().await;
    // Accounts, and a tournament that starts in a day: its scheduler waits.
    let mut tokens = Vec::new();
    for name in ["ann", "bob", "cid"] {
        let r = c
            .register_bot(authed(pb::RegisterBotRequest { name: name.into(), owner: String::new() }, ADMIN))
            .await
            .unwrap()
            .into_inner();
        tokens.push(r.bot_token);
    }
    let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_millis() as u64;
    c.create_tournament(authed(
        pb::CreateTournamentRequest {
            name: "cup".into(),
            entrants: vec!["ann".into(), "bob".into(), "cid".into()],
            start_ms: now + 86_400_000,
            ..Default::default()
        },
        ADMIN,
    ))
    .await
    .unwrap();
    // A table with a seat's turn on the clock, and a spectator watching it.
    let (table, _) = seated(&mut c, 3, 1, 7).await;
    let mut watch = c
        .watch_table(pb::WatchTableRequest { table_id: table.clone(), ..Default::default() })
        .await
        .unwrap()
        .into_inner();
    assert!(watch.message().await.unwrap().is_some(), "the snapshot");
    // A lobby open, and a runner following the hosted feed.
    let mut lobby = c.lobby(authed(pb::LobbyRequest::default(), &tokens[0])).await.unwrap().into_inner();
    let mut hosting = hosting_client(&server).await;
    let mut feed = hosting
        .runner_feed(authed(pb::RunnerFeedRequest { runner: "r".into(), ..Default::default() }, RUNNER))
        .await
        .unwrap()
        .into_inner();
    let running = server.server.tasks.clone();
    assert!(running.len() >= 8, "the server's tasks are counted ({})", running.len());

    server.stop();
    within(30, &mut server.server.task).await.unwrap().unwrap();
    assert_eq!(running.len(), 0, "no task of the server's is left");
    // The streams ended with the server (within the test's bound: `within` panics).
    let _ = within(10, watch.message()).await;
    let _ = within(10, lobby.message()).await;
    let _ = within(10, feed.message()).await;
    drop((c, hosting, watch, lobby, feed));
    // Nothing else of the server's runs on the runtime either (the clients' tasks end
    // with their connections).
    let mut now_alive = alive();
    for _ in 0..100 {
        if now_alive <= before {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
        now_alive = alive();
    }
    assert!(
        now_alive <= before,
        "{now_alive} tasks alive after shutdown, {before} before the server started"
    );
}
