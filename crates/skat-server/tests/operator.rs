//! What the operator reads (issue 45): the audit log in words (dates, formats, what a
//! cancellation did), and "last seen" that moves while an account plays.

mod common;

use std::time::Duration;

use common::*;
use skat_proto::pb;
use skat_server::{Database, ServerConfig};

const ADMIN: &str = "admin-secret";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_audit_log_reads_as_words_and_last_seen_moves_while_a_lobby_is_open() {
    let dir = std::env::temp_dir().join(format!("skat-operator-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let s = TestServer::start(ServerConfig {
        database: Database::Sqlite(dir.clone()),
        admin_token: Some(ADMIN.into()),
        ..config()
    })
    .await;
    let mut c = s.client().await;
    let mut tokens = Vec::new();
    for name in ["ann", "bob", "cid"] {
        let r = c
            .register_bot(authed(pb::RegisterBotRequest { name: name.into(), owner: String::new() }, ADMIN))
            .await
            .unwrap()
            .into_inner();
        tokens.push(r.bot_token);
    }
    // A tournament that starts in a day, moved, then cancelled before it started.
    let day = 86_400_000;
    let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_millis() as u64;
    let t = c
        .create_tournament(authed(
            pb::CreateTournamentRequest {
                name: "cup".into(),
                entrants: vec!["ann".into(), "bob".into(), "cid".into()],
                start_ms: now + day,
                ..Default::default()
            },
            ADMIN,
        ))
        .await
        .unwrap()
        .into_inner();
    assert_eq!(t.deals_commitment.len(), 64);
    for (action, start_ms) in
        [(pb::TournamentAction::Unspecified, Some(now + 2 * day)), (pb::TournamentAction::Cancel, None)]
    {
        c.update_tournament(authed(
            pb::UpdateTournamentRequest {
                tournament_id: t.tournament_id.clone(),
                action: action as i32,
                start_ms,
            },
            ADMIN,
        ))
        .await
        .unwrap();
    }
    let log = c
        .list_audit_log(authed(pb::ListAuditLogRequest { page_size: 10, ..Default::default() }, ADMIN))
        .await
        .unwrap()
        .into_inner()
        .entries;
    let details: Vec<&str> = log.iter().map(|e| e.detail.as_str()).collect();
    let created = details.iter().find(|d| d.contains("deals committed")).expect("the creation");
    assert!(created.contains("round robin") && !created.contains("RoundRobin"), "{created}");
    assert!(created.contains(" UTC") && created.contains(&t.deals_commitment), "{created}");
    let moved = details.iter().find(|d| d.contains("start moved")).expect("the move");
    assert!(moved.matches(" UTC").count() == 2 && !moved.contains(&(now + day).to_string()), "{moved}");
    assert!(details.iter().any(|d| d.contains("cancelled before it started")), "{details:?}");
    assert!(!details.iter().any(|d| d.contains("abandoned")), "{details:?}");

    // Last seen: an account with a lobby open is seen now, not when its lobby opened.
    let lobby = c.lobby(authed(pb::LobbyRequest::default(), &tokens[0])).await.unwrap().into_inner();
    let seen =
        |bots: Vec<pb::BotAccount>| bots.iter().find(|b| b.name == "ann").map(|b| b.last_seen_ms).unwrap();
    let list = || pb::ListBotsRequest { page_size: 10, ..Default::default() };
    let first = seen(c.list_bots(authed(list(), ADMIN)).await.unwrap().into_inner().bots);
    tokio::time::sleep(Duration::from_millis(1100)).await;
    let second = seen(c.list_bots(authed(list(), ADMIN)).await.unwrap().into_inner().bots);
    assert!(second >= first + 1000, "last seen moved from {first} to {second}");
    drop(lobby);
    std::fs::remove_dir_all(&dir).ok();
}
