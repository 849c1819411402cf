//! Sandboxes' doors over the wire (issue 65): a hosted seat handed to the runner gets a
//! Unix socket of its own (or its token on the sandbox port), and a client there, as a
//! hostile bot would be, can do its seat's calls and nothing else: no tables made, joined
//! or listed, no accounts, no other table, no other token; a few connections, and calls
//! at a bounded rate, all of them its own. `deploy/test-hosted.sh` runs the same attacks
//! from inside a submitted image under podman.

mod common;

use std::time::Duration;

use common::*;
use skat_proto::pb;
use skat_proto::pb::ErrorReason as R;
use skat_proto::pb::hosting_service_client::HostingServiceClient;
use skat_proto::pb::skat_service_client::SkatServiceClient;
use skat_server::{Database, HostingConfig, ServerConfig};
use tonic::Code;
use tonic::transport::Channel;

const ADMIN: &str = "admin-secret";
const RUNNER: &str = "runner-secret-token";

/// A server with hosting, its sockets in a directory of the test's, and a sandbox port.
struct Doors {
    server: TestServer,
    games: Client,
    hosting: HostingServiceClient<Channel>,
    port: std::net::SocketAddr,
    dir: std::path::PathBuf,
}

async fn doors() -> Doors {
    let dir = tempfile::tempdir().unwrap().keep();
    let port = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap()
    };
    let server = TestServer::start(ServerConfig {
        database: Database::Sqlite(dir.clone()),
        admin_token: Some(ADMIN.into()),
        hosting: HostingConfig {
            images_dir: Some(dir.join("images")),
            runner_token: Some(RUNNER.into()),
            socket_dir: Some(dir.join("sockets")),
            sandbox_addr: Some(port),
            ..HostingConfig::default()
        },
        ..config()
    })
    .await;
    let games = server.client().await;
    let hosting = hosting_client(&server).await;
    Doors { server, games, hosting, port, dir }
}

/// Hosted seats as the runner gets them, at a table of the operator's with people in
/// the other seats.
struct Seated {
    seats: Vec<pb::HostedSeat>,
    table: String,
    /// A person's seat token at the same table.
    person: String,
    /// The runner's feed (open while the test runs).
    _feed: tonic::Streaming<pb::RunnerFeedResponse>,
}

impl Doors {
    async fn hosted(&mut self, name: &str) -> String {
        use pb::submit_bot_version_request::Part;
        let token = self
            .games
            .register_bot(authed(pb::RegisterBotRequest { name: name.into(), owner: String::new() }, ADMIN))
            .await
            .unwrap()
            .into_inner()
            .bot_token;
        let header = pb::BotVersionHeader { activate: true, ..Default::default() };
        let parts = vec![
            pb::SubmitBotVersionRequest { part: Some(Part::Header(header)) },
            pb::SubmitBotVersionRequest { part: Some(Part::Chunk(oci_archive(name))) },
        ];
        self.hosting.submit_bot_version(authed(tokio_stream::iter(parts), &token)).await.unwrap();
        token
    }

    /// The runner's feed, and a table of the operator's seating `bots` with people in the
    /// other seats: the seats the feed hands out.
    async fn seated(&mut self, bots: &[&str]) -> Seated {
        let mut feed = self
            .hosting
            .runner_feed(authed(
                pb::RunnerFeedRequest { runner: "test".into(), ..Default::default() },
                RUNNER,
            ))
            .await
            .unwrap()
            .into_inner();
        let request = pb::CreateTableRequest {
            seats: 3,
            deals: 2,
            bots: bots.iter().map(ToString::to_string).collect(),
            ..Default::default()
        };
        let mut table = None;
        for _ in 0..100 {
            if let Ok(r) = self.games.create_table(authed(request.clone(), ADMIN)).await {
                table = Some(r.into_inner().table_id);
                break;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        let table = table.expect("the hosted bots are seated");
        let mut person = String::new();
        for n in 0..3 - bots.len() {
            person = join(&mut self.games, &table, &format!("person{n}")).await.1;
        }
        let mut seats = Vec::new();
        for _ in bots {
            seats.push(within(10, feed.message()).await.unwrap().unwrap().seat.unwrap());
        }
        Seated { seats, table, person, _feed: feed }
    }

    fn stop(mut self) {
        self.server.stop();
        std::fs::remove_dir_all(&self.dir).ok();
    }
}

/// A client through a door's socket (a connection of its own).
async fn through(socket: &str) -> SkatServiceClient<Channel> {
    try_through(socket).await.unwrap()
}

async fn try_through(socket: &str) -> Result<SkatServiceClient<Channel>, String> {
    let address = skat_sdk::ServerAddress::new(&format!("unix://{socket}"));
    Ok(SkatServiceClient::new(address.channel().await.map_err(|e| e.to_string())?))
}

/// Whether a connection (made by `client`) is closed as it arrives: the connection or
/// its first call fails, with no answer from the server.
async fn refused<F: std::future::Future<Output = Result<SkatServiceClient<Channel>, String>>>(
    client: F,
    table: &str,
    token: &str,
) -> bool {
    match client.await {
        Err(_) => true,
        Ok(mut c) => get(&mut c, table, Some(token)).await.is_err_and(|e| closed(&e)),
    }
}

/// GetTable at `table`, with `token` as the bearer if given.
async fn get(
    c: &mut SkatServiceClient<Channel>,
    table: &str,
    token: Option<&str>,
) -> Result<pb::TableView, tonic::Status> {
    let request = pb::GetTableRequest { table_id: table.into() };
    let request = match token {
        Some(t) => authed(request, t),
        None => tonic::Request::new(request),
    };
    Ok(c.get_table(request).await?.into_inner().table.unwrap_or_default())
}

/// The connection was closed under the call (no answer from the server: no reason).
fn closed(status: &tonic::Status) -> bool {
    matches!(status.code(), Code::Unavailable | Code::Unknown | Code::Cancelled) && reason(status).is_none()
}

fn scope(status: &tonic::Status) -> bool {
    status.code() == Code::PermissionDenied && reason(status) == Some(R::SandboxScope)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_sandbox_socket_serves_its_seat_and_nothing_else() {
    let mut d = doors().await;
    d.hosted("alpha").await;
    d.hosted("beta").await;
    let s = d.seated(&["alpha"]).await;
    let seat = &s.seats[0];
    assert!(
        seat.socket_path.starts_with(&d.dir.join("sockets").display().to_string()),
        "{}",
        seat.socket_path
    );
    let mut c = through(&seat.socket_path).await;
    let view = get(&mut c, &s.table, Some(&seat.seat_token)).await.unwrap();
    assert_eq!(view.your_seat, Some(seat.seat), "the seat's own calls: its view");
    let mut watch = c
        .watch_table(authed(
            pb::WatchTableRequest { table_id: s.table.clone(), ..Default::default() },
            &seat.seat_token,
        ))
        .await
        .unwrap()
        .into_inner();
    assert!(within(5, watch.message()).await.unwrap().is_some(), "its stream");

    // No anonymous rights: nothing that makes, joins, lists or registers.
    let no = get(&mut c, &s.table, None).await.unwrap_err();
    assert_eq!(no.code(), Code::Unauthenticated);
    let hostile = [
        c.create_table(authed(
            pb::CreateTableRequest { bots: vec!["beta".into()], ..Default::default() },
            &seat.seat_token,
        ))
        .await
        .map(|_| ()),
        c.create_table(pb::CreateTableRequest::default()).await.map(|_| ()),
        c.list_tables(pb::ListTablesRequest::default()).await.map(|_| ()),
        c.join_table(pb::JoinTableRequest {
            table_id: s.table.clone(),
            name: "x".into(),
            ..Default::default()
        })
        .await
        .map(|_| ()),
        c.register_bot(pb::RegisterBotRequest { name: "sock-puppet".into(), owner: String::new() })
            .await
            .map(|_| ()),
        c.list_tournaments(pb::ListTournamentsRequest::default()).await.map(|_| ()),
        c.get_leaderboard(pb::GetLeaderboardRequest::default()).await.map(|_| ()),
        c.lobby(pb::LobbyRequest::default()).await.map(|_| ()),
    ];
    for (i, r) in hostile.into_iter().enumerate() {
        let e = r.expect_err("refused");
        assert!(scope(&e), "call {i}: {e:?}");
    }
    // Another table, or another seat's token, through this door: refused.
    let other = create(&mut d.games, 3, 1, 7).await;
    assert!(scope(&get(&mut c, &other, Some(&seat.seat_token)).await.unwrap_err()));
    assert!(scope(&get(&mut c, &s.table, Some(&s.person)).await.unwrap_err()));
    let records = c
        .get_records(authed(
            pb::GetRecordsRequest { table_id: other.clone(), ..Default::default() },
            &seat.seat_token,
        ))
        .await
        .unwrap_err();
    assert!(scope(&records));
    let many = c
        .watch_tables(authed(tokio_stream::iter(Vec::<pb::WatchTablesRequest>::new()), &seat.seat_token))
        .await;
    assert_eq!(many.unwrap_err().code(), Code::Unimplemented, "one seat, one stream: the SDKs fall back");
    // Nothing was made or registered.
    let tables = d.games.list_tables(pb::ListTablesRequest::default()).await.unwrap().into_inner();
    assert_eq!(tables.tables.len(), 2, "{:?}", tables.tables.iter().map(|t| &t.table_id).collect::<Vec<_>>());
    let puppet = d.games.get_bot(pb::GetBotRequest { name: "sock-puppet".into() }).await;
    assert!(puppet.is_err(), "no account was registered from inside");
    d.stop();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_door_holds_its_own_limits_and_no_door_reaches_another() {
    let mut d = doors().await;
    d.hosted("alpha").await;
    d.hosted("beta").await;
    let s = d.seated(&["alpha", "beta"]).await;
    let (a, b) = (&s.seats[0], &s.seats[1]);
    assert_ne!(a.socket_path, b.socket_path, "a socket each");
    // Four connections: each a call; the fifth is closed as it arrives.
    let mut held = Vec::new();
    for _ in 0..4 {
        let mut c = through(&a.socket_path).await;
        get(&mut c, &s.table, Some(&a.seat_token)).await.unwrap();
        held.push(c);
    }
    assert!(refused(try_through(&a.socket_path), &s.table, &a.seat_token).await, "a fifth connection");
    // The other door is not affected.
    let mut other = through(&b.socket_path).await;
    get(&mut other, &s.table, Some(&b.seat_token)).await.unwrap();

    // Calls at a bounded rate: a flood is refused past its burst, the other door plays on.
    let c = &mut held[0];
    let mut limited = None;
    for _ in 0..600 {
        if let Err(e) = get(c, &s.table, Some(&a.seat_token)).await {
            limited = Some(e);
            break;
        }
    }
    let limited = limited.expect("a flood meets the door's rate");
    assert_eq!((limited.code(), reason(&limited)), (Code::ResourceExhausted, Some(R::Limit)));
    get(&mut other, &s.table, Some(&b.seat_token)).await.unwrap();
    tokio::time::sleep(Duration::from_millis(200)).await;
    get(c, &s.table, Some(&a.seat_token)).await.expect("the bucket refills");
    drop(held);
    d.stop();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_sandbox_port_admits_hosted_seats_by_their_tokens_only() {
    let mut d = doors().await;
    d.hosted("alpha").await;
    let s = d.seated(&["alpha"]).await;
    let seat = &s.seats[0];
    let try_connect = || async {
        let channel = Channel::from_shared(format!("http://{}", d.port)).unwrap().connect().await;
        channel.map(SkatServiceClient::new).map_err(|e| e.to_string())
    };
    let connect = || async { try_connect().await.unwrap() };
    let mut c = connect().await;
    let view = get(&mut c, &s.table, Some(&seat.seat_token)).await.unwrap();
    assert_eq!(view.your_seat, Some(seat.seat));
    // A person's token is no hosted seat's; nothing anonymous.
    assert!(scope(&get(&mut c, &s.table, Some(&s.person)).await.unwrap_err()));
    assert!(scope(&c.list_tables(pb::ListTablesRequest::default()).await.unwrap_err()));
    assert!(scope(&c.create_table(pb::CreateTableRequest::default()).await.unwrap_err()));
    // A few connections per address (a Pod is one).
    let mut held = vec![c];
    for _ in 0..3 {
        let mut c = connect().await;
        get(&mut c, &s.table, Some(&seat.seat_token)).await.unwrap();
        held.push(c);
    }
    assert!(refused(try_connect(), &s.table, &seat.seat_token).await, "a fifth connection");
    drop(held);
    d.stop();
}
