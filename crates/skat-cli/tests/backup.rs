//! The restore drill of docs/deploy.md: a season's state (accounts, a finished
//! tournament, ratings) is backed up while the server runs, restored into a fresh
//! server, and everything is there: with `skat backup` for SQLite, and with PostgreSQL's
//! `pg_dump`/`pg_restore` into a new database (scripts/test-all sets `SKAT_PG_BIN`).

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use common::{ServerProcess, client, create_tournament, get_tournament, lobby_bot, register, serve, skat};
use skat_proto::pb;

/// A server with the operator's settings and `database`; the port it picked.
fn serve_with(database: &[&str]) -> ServerProcess {
    serve().operator().args(database.iter().copied()).start()
}

/// What a season leaves: the tournament as shown, and the leaderboard.
#[derive(Debug, PartialEq)]
struct Season {
    tournament: pb::Tournament,
    leaderboard: Vec<(String, i64, u32)>,
}

async fn season_of(port: u16, id: &str) -> Season {
    let mut c = client(port).await;
    let tournament = get_tournament(&mut c, id).await;
    let board = c
        .get_leaderboard(pb::GetLeaderboardRequest { page_size: 50, ..Default::default() })
        .await
        .unwrap()
        .into_inner();
    let leaderboard =
        board.entries.iter().map(|e| (e.name.clone(), (e.rating * 1000.0).round() as i64, e.lists)).collect();
    Season { tournament, leaderboard }
}

/// Plays a small tournament of three lobby bots to its end; its id.
async fn play_season(port: u16) -> String {
    let mut c = client(port).await;
    let mut bots = Vec::new();
    for (name, strategy) in [("ada", "heuristic"), ("bea", "random"), ("cy", "random")] {
        let token = register(port, name, Some("operator-secret")).unwrap();
        bots.push(lobby_bot(port, strategy, &token));
    }
    let id = create_tournament(port, &["--name", "drill", "--entrants", "ada,bea,cy", "--deals", "3"]);
    let start = Instant::now();
    while !get_tournament(&mut c, &id).await.finished {
        assert!(start.elapsed() < Duration::from_secs(120), "the tournament did not finish");
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    id
}

fn temp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("skat-backup-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

fn check_restored(before: &Season, after: &Season) {
    assert!(after.tournament.finished);
    assert_eq!(before, after, "the restored server shows the same tournament and ratings");
    assert_eq!(after.leaderboard.len(), 3, "three rated bots");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_sqlite_backup_taken_while_serving_restores_the_season() {
    let (dir, restored_dir) = (temp("sqlite"), temp("sqlite-restored"));
    let server = serve_with(&["--data-dir", dir.to_str().unwrap()]);
    let port = server.port();
    let id = play_season(port).await;
    let before = season_of(port, &id).await;

    // While the server runs.
    let backup = dir.with_extension("backup.db");
    let _ = std::fs::remove_file(&backup);
    let out = skat().args(["backup", "--data-dir"]).arg(&dir).arg("--out").arg(&backup).output().unwrap();
    let said = String::from_utf8_lossy(&out.stdout).to_string() + &String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{said}");
    assert!(
        said.contains("1 tournaments") && said.contains("3 accounts") && said.contains("integrity ok"),
        "{said}"
    );
    // A backup never overwrites.
    let again = skat().args(["backup", "--data-dir"]).arg(&dir).arg("--out").arg(&backup).output().unwrap();
    assert!(!again.status.success());

    // The drill: a fresh server on a copy of the backup.
    std::fs::create_dir_all(&restored_dir).unwrap();
    std::fs::copy(&backup, restored_dir.join("skat.db")).unwrap();
    let restored = serve_with(&["--data-dir", restored_dir.to_str().unwrap()]);
    let port2 = restored.port();
    check_restored(&before, &season_of(port2, &id).await);
    for d in [&dir, &restored_dir] {
        let _ = std::fs::remove_dir_all(d);
    }
    let _ = std::fs::remove_file(&backup);
}

fn pg_tool(bin: &Path, tool: &str) -> Command {
    let mut c = Command::new(bin.join(tool));
    // PostgreSQL's tools refuse to run as root only for the server; these run as anyone.
    c.stdout(Stdio::piped()).stderr(Stdio::piped());
    c
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_postgres_dump_restores_the_season_into_a_new_database() {
    let (Ok(admin), Ok(bin)) = (std::env::var("SKAT_TEST_POSTGRES"), std::env::var("SKAT_PG_BIN")) else {
        assert!(
            std::env::var_os("SKAT_REQUIRE_POSTGRES").is_none(),
            "SKAT_REQUIRE_POSTGRES is set but SKAT_TEST_POSTGRES or SKAT_PG_BIN is not"
        );
        eprintln!("SKAT_TEST_POSTGRES or SKAT_PG_BIN is not set: skipped (scripts/test-all runs it)");
        return;
    };
    let bin = PathBuf::from(bin);
    sqlx::any::install_default_drivers();
    let (base, _) = admin.rsplit_once('/').unwrap();
    let (from, to) =
        (format!("skat_drill_{}", std::process::id()), format!("skat_restored_{}", std::process::id()));
    let pool = sqlx::AnyPool::connect(&admin).await.unwrap();
    for name in [&from, &to] {
        sqlx::query(&format!("DROP DATABASE IF EXISTS {name}")).execute(&pool).await.unwrap();
        sqlx::query(&format!("CREATE DATABASE {name}")).execute(&pool).await.unwrap();
    }
    pool.close().await;
    let (from_url, to_url) = (format!("{base}/{from}"), format!("{base}/{to}"));

    let server = serve_with(&["--database", &from_url]);
    let port = server.port();
    let id = play_season(port).await;
    let before = season_of(port, &id).await;
    // `skat backup` names PostgreSQL's own tools for a PostgreSQL journal.
    let out = skat().args(["backup", "--database", &from_url, "--out", "/tmp/never"]).output().unwrap();
    assert!(!out.status.success() && String::from_utf8_lossy(&out.stderr).contains("pg_dump"));

    // While the server runs: pg_dump is one consistent snapshot.
    let dump = temp("pg").with_extension("dump");
    let out = pg_tool(&bin, "pg_dump")
        .args(["--format=custom", "--file"])
        .arg(&dump)
        .arg(&from_url)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let out =
        pg_tool(&bin, "pg_restore").args(["--no-owner", "--dbname", &to_url]).arg(&dump).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));

    let restored = serve_with(&["--database", &to_url]);
    let port2 = restored.port();
    check_restored(&before, &season_of(port2, &id).await);
    let _ = std::fs::remove_file(&dump);
}
