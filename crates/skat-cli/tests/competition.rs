//! A tournament between strangers' bots, as an operator runs one: accounts registered
//! with the admin token, bots in lobby mode (`skat bot --bot-token`), one that never
//! comes, one that disconnects and comes back, a `kill -9` of the server in the middle;
//! the tournament finishes, heuristic ranks above random in the standings and the
//! ratings, the absent bot's seats forfeit, and a token acts for no other seat.

use std::net::TcpListener;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use skat_proto::pb;
use skat_proto::pb::skat_service_client::SkatServiceClient;
use tonic::transport::Channel;

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
}

struct Kill(Child);
impl Drop for Kill {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn skat() -> Command {
    Command::new(env!("CARGO_BIN_EXE_skat"))
}

fn serve(port: u16, dir: &std::path::Path) -> Kill {
    Kill(
        skat()
            .args(["serve", "--addr", &format!("127.0.0.1:{port}"), "--metrics-addr", "off"])
            .args(["--data-dir", &dir.display().to_string(), "--admin-token", "operator-secret"])
            .args(["--registration", "admin", "--action-timeout", "400ms", "--deal-clock", "0s"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap(),
    )
}

async fn client(port: u16) -> SkatServiceClient<Channel> {
    for _ in 0..400 {
        if let Ok(c) = SkatServiceClient::connect(format!("http://127.0.0.1:{port}")).await {
            return c;
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    panic!("no server on {port}");
}

fn lobby_bot(port: u16, strategy: &str, token: &str) -> Kill {
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
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap(),
    )
}

fn register(port: u16, name: &str, admin: Option<&str>) -> Result<String, String> {
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

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tournament_between_lobby_bots_survives_absence_disconnects_and_a_restart() {
    let dir = std::env::temp_dir().join(format!("skat-competition-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let port = free_port();
    let server = serve(port, &dir);
    let mut c = client(port).await;

    // Registration needs the admin token here; names are unique.
    assert!(register(port, "intruder", None).unwrap_err().contains("ADMIN_REQUIRED"));
    let h1 = register(port, "heuristic-1", Some("operator-secret")).unwrap();
    let h2 = register(port, "heuristic-2", Some("operator-secret")).unwrap();
    let r1 = register(port, "random-1", Some("operator-secret")).unwrap();
    let _absent = register(port, "absent", Some("operator-secret")).unwrap();
    assert!(register(port, "random-1", Some("operator-secret")).unwrap_err().contains("ACCOUNT_EXISTS"));

    // The refusals a competition client meets, with their reasons.
    let reason = |r: Result<tonic::Response<pb::CreateTournamentResponse>, tonic::Status>| {
        skat_proto::convert::status_reason(&r.unwrap_err())
    };
    let unknown = pb::CreateTournamentRequest {
        entrants: vec!["heuristic-1".into(), "nobody".into(), "random-1".into()],
        ..Default::default()
    };
    assert_eq!(
        reason(c.create_tournament(skat_sdk::client::with_token(unknown.clone(), "operator-secret")).await),
        Some(pb::ErrorReason::UnknownEntrant)
    );
    assert_eq!(reason(c.create_tournament(unknown).await), Some(pb::ErrorReason::AdminRequired));
    let missing =
        c.get_tournament(pb::GetTournamentRequest { tournament_id: "unope".into() }).await.unwrap_err();
    assert_eq!(skat_proto::convert::status_reason(&missing), Some(pb::ErrorReason::TournamentNotFound));
    let stranger =
        c.lobby(skat_sdk::client::with_token(pb::LobbyRequest {}, "not-a-bot-token")).await.unwrap_err();
    assert_eq!(skat_proto::convert::status_reason(&stranger), Some(pb::ErrorReason::BotTokenInvalid));

    // The operator disables an account (its lobby is refused), enables it, rotates a token.
    let spare = register(port, "spare", Some("operator-secret")).unwrap();
    let admin = |args: &[&str]| {
        let out = skat()
            .args(["admin"])
            .args(args)
            .args([
                "--name",
                "spare",
                "--server",
                &format!("127.0.0.1:{port}"),
                "--admin-token",
                "operator-secret",
            ])
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        String::from_utf8(out.stdout).unwrap()
    };
    admin(&["disable-bot"]);
    let disabled = c.lobby(skat_sdk::client::with_token(pb::LobbyRequest {}, &spare)).await.unwrap_err();
    assert_eq!(skat_proto::convert::status_reason(&disabled), Some(pb::ErrorReason::AccountDisabled));
    admin(&["enable-bot"]);
    let rotated = admin(&["rotate-token"]);
    let fresh = rotated.lines().find_map(|l| l.strip_prefix("bot token ")).unwrap().to_string();
    let old = c.lobby(skat_sdk::client::with_token(pb::LobbyRequest {}, &spare)).await.unwrap_err();
    assert_eq!(skat_proto::convert::status_reason(&old), Some(pb::ErrorReason::BotTokenInvalid));
    let mut open = c
        .lobby(skat_sdk::client::with_token(pb::LobbyRequest {}, &fresh))
        .await
        .expect("the new token opens the lobby")
        .into_inner();
    // Disabling the account ends the lobby it already has open.
    admin(&["disable-bot"]);
    let ended = tokio::time::timeout(Duration::from_secs(10), open.message()).await.expect("the lobby ends");
    assert!(!matches!(ended, Ok(Some(_))), "no seat after the account was disabled: {ended:?}");
    admin(&["enable-bot"]);

    let _b1 = lobby_bot(port, "heuristic", &h1);
    let b2 = lobby_bot(port, "heuristic", &h2);
    let _b3 = lobby_bot(port, "random", &r1);

    let created = skat()
        .args(["tournament", "create", "--name", "test cup", "--server", &format!("127.0.0.1:{port}")])
        .args(["--admin-token", "operator-secret", "--entrants", "heuristic-1,heuristic-2,random-1,absent"])
        .args(["--deals", "12", "--action-timeout", "400ms", "--deal-clock", "0s", "--seed", "3"])
        .output()
        .unwrap();
    assert!(created.status.success(), "{}", String::from_utf8_lossy(&created.stderr));
    let text = String::from_utf8(created.stdout).unwrap();
    let id = text.split_whitespace().nth(1).unwrap().to_string();
    assert!(text.contains("(12 tables)"), "4 triples x 3 rotations: {text}");

    let tournament = |mut c: SkatServiceClient<Channel>, id: String| async move {
        c.get_tournament(pb::GetTournamentRequest { tournament_id: id })
            .await
            .unwrap()
            .into_inner()
            .tournament
            .unwrap()
    };
    // A bot disconnects mid-tournament and comes back.
    let deadline = Instant::now() + Duration::from_secs(60);
    while tournament(c.clone(), id.clone()).await.tables.iter().all(|t| t.status != "finished") {
        assert!(Instant::now() < deadline, "no table finished");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    drop(b2);
    tokio::time::sleep(Duration::from_millis(500)).await;
    let _b2 = lobby_bot(port, "heuristic", &h2);

    // A seat token acts only for its own seat: heuristic-1's token, read from its lobby,
    // at a table where it does not sit.
    let mut lobby =
        c.lobby(skat_sdk::client::with_token(pb::LobbyRequest {}, &h1)).await.unwrap().into_inner();
    let first =
        tokio::time::timeout(Duration::from_secs(30), lobby.message()).await.unwrap().unwrap().unwrap();
    let Some(pb::lobby_response::Kind::SeatAssigned(seat)) = first.kind else { panic!("a seat") };
    let t = tournament(c.clone(), id.clone()).await;
    if let Some(other) =
        t.tables.iter().find(|x| !x.seating.contains(&"heuristic-1".to_string()) && !x.table_id.is_empty())
    {
        let refused = c
            .get_table(skat_sdk::client::with_token(
                pb::GetTableRequest { table_id: other.table_id.clone() },
                &seat.seat_token,
            ))
            .await
            .unwrap_err();
        assert_eq!(skat_proto::convert::status_reason(&refused), Some(pb::ErrorReason::NotSeated));
    }
    // A bot token is no seat token.
    let refused = c
        .get_table(skat_sdk::client::with_token(pb::GetTableRequest { table_id: seat.table_id.clone() }, &h1))
        .await
        .unwrap_err();
    assert_eq!(skat_proto::convert::status_reason(&refused), Some(pb::ErrorReason::NotSeated));
    drop(lobby);

    // kill -9 in the middle; the tournament goes on after the restart.
    drop(server);
    let _server = serve(port, &dir);
    let c = client(port).await;
    let deadline = Instant::now() + Duration::from_secs(300);
    let t = loop {
        let t = tournament(c.clone(), id.clone()).await;
        if t.finished {
            break t;
        }
        assert!(Instant::now() < deadline, "the tournament did not finish: {t:?}");
        tokio::time::sleep(Duration::from_millis(250)).await;
    };
    assert!(t.tables.iter().all(|x| x.status == "finished"));
    let standing = |name: &str| t.standings.iter().find(|s| s.name == name).unwrap().clone();
    let (a, b, r, x) =
        (standing("heuristic-1"), standing("heuristic-2"), standing("random-1"), standing("absent"));
    assert_eq!(a.lists, 9, "each entrant plays 3 triples x 3 rotations: {t:#?}");
    assert!(x.penalties > 0, "the absent bot's seats forfeit: {x:?}");
    assert!(a.mean > r.mean && b.mean > r.mean, "heuristic above random: {:?}", t.standings);

    let mut c2 = c.clone();
    let board = c2.get_leaderboard(pb::GetLeaderboardRequest::default()).await.unwrap().into_inner().entries;
    let rating = |name: &str| board.iter().find(|e| e.name == name).unwrap().rating;
    assert!(
        rating("heuristic-1") > rating("random-1") && rating("heuristic-2") > rating("random-1"),
        "{board:?}"
    );
    assert_eq!(board.iter().find(|e| e.name == "absent").unwrap().lists, 9);
    let shown =
        skat().args(["tournament", "show", &id, "--server", &format!("127.0.0.1:{port}")]).output().unwrap();
    assert!(String::from_utf8_lossy(&shown.stdout).contains("12/12 tables finished (complete)"));
    // Every record of the tournament, downloadable, and each re-scores with `skat replay`.
    let records = skat()
        .args(["tournament", "records", &id, "--server", &format!("127.0.0.1:{port}")])
        .output()
        .unwrap();
    let iss = String::from_utf8(records.stdout).unwrap();
    assert_eq!(iss.lines().filter(|l| l.starts_with("(;GM[Skat]")).count(), 12 * 12);
    let mut replay =
        skat().args(["replay", "-"]).stdin(Stdio::piped()).stdout(Stdio::piped()).spawn().unwrap();
    std::io::Write::write_all(replay.stdin.as_mut().unwrap(), iss.as_bytes()).unwrap();
    let replayed = replay.wait_with_output().unwrap();
    assert!(replayed.status.success(), "every record replays");
    let _ = std::fs::remove_dir_all(&dir);
}
