//! A tournament between strangers' bots, as an operator runs one: accounts registered
//! with the admin token, bots in lobby mode (`skat bot --bot-token`), one that never
//! comes, one that disconnects and comes back, a `kill -9` of the server in the middle;
//! the tournament finishes, heuristic ranks above random in the standings and the
//! ratings, the absent bot's seats forfeit, and a token acts for no other seat.

use std::process::Stdio;
use std::time::{Duration, Instant};

use skat_proto::pb;
use skat_proto::pb::skat_service_client::SkatServiceClient;
use tonic::transport::Channel;

mod common;

use common::{
    ADMIN_TOKEN, Kill, Serve, client, create_tournament, get_tournament, lobby_bot, lobby_bot_with, register,
    reserve_port, serve, skat,
};

/// A server with the admin token `operator-secret`, fast clocks and `extra`.
fn serve_with(extra: &[&str]) -> Serve {
    serve().args(["--admin-token", ADMIN_TOKEN]).fast_clocks().args(extra.iter().copied())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tournament_between_lobby_bots_survives_absence_disconnects_and_a_restart() {
    let dir = std::env::temp_dir().join(format!("skat-competition-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let server = serve_with(&["--data-dir", &dir.display().to_string(), "--registration", "admin"]).start();
    let port = server.port();
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
    let stranger = c
        .lobby(skat_sdk::client::with_token(pb::LobbyRequest::default(), "not-a-bot-token"))
        .await
        .unwrap_err();
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
    let disabled =
        c.lobby(skat_sdk::client::with_token(pb::LobbyRequest::default(), &spare)).await.unwrap_err();
    assert_eq!(skat_proto::convert::status_reason(&disabled), Some(pb::ErrorReason::AccountDisabled));
    admin(&["enable-bot"]);
    let rotated = admin(&["rotate-token"]);
    let fresh = rotated.lines().find_map(|l| l.strip_prefix("bot token ")).unwrap().to_string();
    let old = c.lobby(skat_sdk::client::with_token(pb::LobbyRequest::default(), &spare)).await.unwrap_err();
    assert_eq!(skat_proto::convert::status_reason(&old), Some(pb::ErrorReason::BotTokenInvalid));
    let mut open = c
        .lobby(skat_sdk::client::with_token(pb::LobbyRequest::default(), &fresh))
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
        c.lobby(skat_sdk::client::with_token(pb::LobbyRequest::default(), &h1)).await.unwrap().into_inner();
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
    let _server = server.restart();
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
    // heuristic-2 forfeits while it is away (how long depends on the machine's load), so
    // the comparison by score is heuristic-1's; heuristic-2 still wins more of its games.
    assert!(a.mean > r.mean, "heuristic above random: {:?}", t.standings);
    assert!(b.won > r.won, "heuristic-2 wins more games than random: {:?}", t.standings);

    let mut c2 = c.clone();
    let board = c2.get_leaderboard(pb::GetLeaderboardRequest::default()).await.unwrap().into_inner().entries;
    let rating = |name: &str| board.iter().find(|e| e.name == name).unwrap().rating;
    assert!(rating("heuristic-1") > rating("random-1"), "{board:?}");
    assert_eq!(board.iter().find(|e| e.name == "absent").unwrap().lists, 9);
    let shown =
        skat().args(["tournament", "show", &id, "--server", &format!("127.0.0.1:{port}")]).output().unwrap();
    assert!(
        String::from_utf8_lossy(&shown.stdout).contains("tables   12/12 played"),
        "{}",
        String::from_utf8_lossy(&shown.stdout)
    );
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

fn reason_of<T: std::fmt::Debug>(r: Result<T, tonic::Status>) -> Option<pb::ErrorReason> {
    skat_proto::convert::status_reason(&r.unwrap_err())
}

/// Casual play (bots matched as they arrive, rated), a Swiss tournament within per-account
/// quotas, a bot's public page, and a server that lets anonymous clients only watch.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn casual_matchmaking_swiss_rounds_quotas_and_anonymous_spectators() {
    let dir = std::env::temp_dir().join(format!("skat-casual-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let data_dir = dir.display().to_string();
    let server = serve_with(&[
        "--data-dir",
        &data_dir,
        "--anonymous",
        "spectate",
        "--casual-deals",
        "3",
        "--account-max-tables",
        "3",
    ])
    .start();
    let port = server.port();
    let mut c = client(port).await;

    // Anonymous clients watch and read, nothing more; the operator's token still creates.
    let table = pb::CreateTableRequest { deals: 3, ..Default::default() };
    assert_eq!(reason_of(c.create_table(table.clone()).await), Some(pb::ErrorReason::CredentialRequired));
    let created = c
        .create_table(skat_sdk::client::with_token(table, "operator-secret"))
        .await
        .expect("the operator creates tables")
        .into_inner();
    let join =
        pb::JoinTableRequest { table_id: created.table_id.clone(), name: "x".into(), ..Default::default() };
    assert_eq!(reason_of(c.join_table(join).await), Some(pb::ErrorReason::CredentialRequired));
    c.list_tables(pb::ListTablesRequest::default()).await.expect("anonymous clients may read");
    c.get_table(pb::GetTableRequest { table_id: created.table_id }).await.expect("and watch");

    // Casual: three bots ask for it and are matched; their meeting is rated.
    let casual: Vec<String> =
        ["casual-a", "casual-b", "casual-c"].iter().map(|n| register(port, n, None).unwrap()).collect();
    // A house bot's name is the operator's, even where registration is open: nobody may
    // squat one before the house bots start, or pose as a level of the ladder.
    for squat in ["house-pimc", "House-Bold"] {
        let refused = register(port, squat, None).unwrap_err();
        assert!(refused.contains("ADMIN_REQUIRED") && refused.contains("house bots"), "{refused}");
    }
    let _casual_bots: Vec<Kill> = casual
        .iter()
        .enumerate()
        .map(|(i, t)| {
            lobby_bot_with(port, if i == 0 { "heuristic" } else { "random" }, t, &["--casual", "3"])
        })
        .collect();

    // Swiss: five entrants, two rounds; one of them may play only one table at a time.
    let swiss: Vec<String> = (1..=5).map(|i| format!("swiss-{i}")).collect();
    let tokens: Vec<String> = swiss.iter().map(|n| register(port, n, None).unwrap()).collect();
    let quota = skat()
        .args(["admin", "set-quota", "--name", "swiss-1", "--max-tables", "1"])
        .args(["--server", &format!("127.0.0.1:{port}"), "--admin-token", "operator-secret"])
        .output()
        .unwrap();
    assert!(quota.status.success(), "{}", String::from_utf8_lossy(&quota.stderr));
    let _swiss_bots: Vec<Kill> = tokens
        .iter()
        .enumerate()
        .map(|(i, t)| lobby_bot(port, if i % 2 == 0 { "heuristic" } else { "random" }, t))
        .collect();
    let entrants = swiss.join(",");
    let id = create_tournament(
        port,
        &["--name", "swiss cup", "--format", "swiss", "--rounds", "2", "--deals", "3", "--seed", "5"]
            .into_iter()
            .chain(["--entrants", entrants.as_str()])
            .collect::<Vec<_>>(),
    );
    let deadline = Instant::now() + Duration::from_secs(240);
    let t = loop {
        let t = get_tournament(&mut c, &id).await;
        let at_once = t
            .tables
            .iter()
            .filter(|x| x.status == "playing" && x.seating.contains(&"swiss-1".to_string()))
            .count();
        assert!(at_once <= 1, "swiss-1 may play one table at a time: {:?}", t.tables);
        if t.finished {
            break t;
        }
        assert!(Instant::now() < deadline, "the Swiss tournament did not finish: {t:?}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    assert_eq!((t.round, t.rounds), (2, 2));
    assert_eq!(t.meetings.len(), 2, "five entrants: one group of three per round");
    assert_eq!(t.tables.len(), 6, "each meeting in three rotations");
    let round1 = &t.meetings[0].entrants;
    let sat_out: Vec<&String> = swiss.iter().filter(|e| !round1.contains(e)).collect();
    assert_eq!(round1, &["swiss-1", "swiss-2", "swiss-3"], "round one follows the entrants' order");
    for e in sat_out {
        assert!(t.meetings[1].entrants.contains(e), "{e} sat out round one and plays round two");
    }
    assert_eq!(t.meetings[1].round, 2);

    // The casual meeting has been played and rated by now (or soon).
    let deadline = Instant::now() + Duration::from_secs(120);
    let casual_meeting = loop {
        let list = c
            .list_tournaments(pb::ListTournamentsRequest { include_casual: true, ..Default::default() })
            .await
            .unwrap()
            .into_inner()
            .tournaments;
        if let Some(m) = list.iter().find(|x| x.format == pb::TournamentFormat::Casual as i32 && x.finished) {
            break m.clone();
        }
        assert!(Instant::now() < deadline, "no casual meeting finished: {list:?}");
        tokio::time::sleep(Duration::from_millis(200)).await;
    };
    let mut names = casual_meeting.entrants.clone();
    names.sort();
    assert_eq!(names, ["casual-a", "casual-b", "casual-c"]);
    assert_eq!(casual_meeting.tables, 3, "one list in every rotation");
    let listed =
        c.list_tournaments(pb::ListTournamentsRequest::default()).await.unwrap().into_inner().tournaments;
    assert!(listed.iter().all(|x| x.format != pb::TournamentFormat::Casual as i32), "casual only when asked");
    assert!(listed.iter().any(|x| x.tournament_id == id));

    // A bot's page: its rating, its history (one point per rated list), its recent lists.
    let bot =
        c.get_bot(pb::GetBotRequest { name: "casual-a".into() }).await.unwrap().into_inner().bot.unwrap();
    let rating = bot.rating.expect("rated");
    assert!(rating.lists >= 3);
    assert_eq!(bot.history.len() as u32, rating.lists);
    assert!(bot.recent.len() >= 3 && bot.recent[0].seating.contains(&"casual-a".to_string()));
    assert!(bot.online, "its lobby is open");
    assert_eq!(bot.max_tables, 3, "--account-max-tables");
    let one =
        c.get_bot(pb::GetBotRequest { name: "swiss-1".into() }).await.unwrap().into_inner().bot.unwrap();
    assert_eq!(one.max_tables, 1);
    assert_eq!(
        reason_of(c.get_bot(pb::GetBotRequest { name: "nobody".into() }).await),
        Some(pb::ErrorReason::BotNotFound)
    );
    let shown =
        skat().args(["tournament", "show", &id, "--server", &format!("127.0.0.1:{port}")]).output().unwrap();
    let shown = String::from_utf8_lossy(&shown.stdout);
    assert!(shown.contains("Swiss    round 2 of 2") && shown.contains("head-to-head"), "{shown}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// Two replicas on one PostgreSQL database: exactly one schedules a tournament (a lease);
/// bots whose lobby is on the other replica follow their seats to the table's owner; when
/// the scheduling replica is killed the other takes the tournament over, and the killed
/// one, restarted, finishes the tables it hosts.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_scheduler_across_replicas_and_a_takeover_postgres() {
    let Some(db) = common::postgres_database("skat_lease", 0).await else { return };

    // Replicas name each other: their ports are known before either starts.
    let (pa, pb_) = (reserve_port(), reserve_port());
    let peers = format!("a=127.0.0.1:{pa},b=127.0.0.1:{pb_}");
    let replica = |port: u16, node: &str| {
        serve_with(&["--database", &db, "--node-id", node, "--peer", &peers]).port(port).start()
    };
    let a = replica(pa, "a");
    let b = replica(pb_, "b");
    let _ca = client(pa).await;
    let mut cb = client(pb_).await;

    // Accounts registered on one replica are known to both; every bot's lobby is on b.
    let names = ["h-1", "h-2", "r-1"];
    let tokens: Vec<String> = names.iter().map(|n| register(pa, n, None).unwrap()).collect();
    let _bots: Vec<Kill> =
        tokens.iter().zip(["heuristic", "heuristic", "random"]).map(|(t, s)| lobby_bot(pb_, s, t)).collect();
    // h-1 plays one table at a time: the tables come one after another.
    let quota = skat()
        .args(["admin", "set-quota", "--name", "h-1", "--max-tables", "1"])
        .args(["--server", &format!("127.0.0.1:{pb_}"), "--admin-token", "operator-secret"])
        .output()
        .unwrap();
    assert!(quota.status.success(), "{}", String::from_utf8_lossy(&quota.stderr));
    let id =
        create_tournament(pa, &["--entrants", "h-1,h-2,r-1", "--deals", "4", "--lists", "4", "--seed", "9"]);

    // a schedules (its tables are a's); the bots, told by b, play them through a's lobby.
    let deadline = Instant::now() + Duration::from_secs(120);
    loop {
        let t = get_tournament(&mut cb, &id).await;
        if t.tables.iter().any(|x| x.status == "finished") {
            assert!(t.tables.iter().filter(|x| !x.table_id.is_empty()).all(|x| x.table_id.starts_with("a.")));
            break;
        }
        assert!(Instant::now() < deadline, "no table finished: {t:?}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let scheduling = format!("scheduling tournament={id}");
    assert!(a.log().contains(&scheduling));
    assert!(!b.log().contains(&scheduling), "one scheduler at a time");

    // kill -9 the scheduler's replica: b takes the tournament over when the lease runs out.
    let a_before = a.log();
    a.kill9();
    let deadline = Instant::now() + Duration::from_secs(60);
    while !b.log().contains(&scheduling) {
        assert!(Instant::now() < deadline, "b did not take the tournament over");
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    // a comes back with its tables; it finishes them but leaves the scheduling to b.
    let a = replica(pa, "a");
    let deadline = Instant::now() + Duration::from_secs(240);
    let t = loop {
        let t = get_tournament(&mut cb, &id).await;
        if t.finished {
            break t;
        }
        assert!(Instant::now() < deadline, "the tournament did not finish: {t:?}");
        tokio::time::sleep(Duration::from_millis(250)).await;
    };
    assert_eq!(t.tables.len(), 12);
    assert!(t.tables.iter().all(|x| x.status == "finished"));
    assert!(t.tables.iter().any(|x| x.table_id.starts_with("b.")), "b seated the tables after the takeover");
    let a_log = a_before + &a.log();
    assert_eq!(a_log.matches(&scheduling).count(), 1, "a did not schedule again: b holds the lease");
    let board = cb.get_leaderboard(pb::GetLeaderboardRequest::default()).await.unwrap().into_inner().entries;
    assert!(board.iter().all(|e| e.lists == 12), "every list rated once: {board:?}");
}
