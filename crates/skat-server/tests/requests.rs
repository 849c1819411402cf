//! Bad requests get the right status code and change nothing; resumed streams get
//! exactly the events they missed; silent seats time out and the match goes on.

mod common;

use std::time::Duration;

use common::*;
use skat_engine::{Action, Bid};
use skat_proto::convert;
use skat_proto::pb::{self, event::Kind, watch_table_response::Kind as WatchKind};
use skat_server::ServerConfig;
use tokio_stream::StreamExt;
use tonic::{Code, Request};

struct Seated {
    table: String,
    tokens: Vec<String>,
}

async fn seated(client: &mut Client, seed: u64) -> Seated {
    let table = create(client, 3, 36, seed).await;
    let mut tokens = vec![String::new(); 3];
    for name in ["a", "b", "c"] {
        let (seat, token) = join(client, &table, name).await;
        tokens[seat as usize] = token;
    }
    Seated { table, tokens }
}

/// The token of the seat that must act now.
async fn to_move(client: &mut Client, s: &Seated) -> (usize, pb::TableView) {
    let v = view(client, &s.table, None).await;
    let seat = v.deal.as_ref().unwrap().seat_to_move.expect("a seat to move") as usize;
    let own = view(client, &s.table, Some(&s.tokens[seat])).await;
    (seat, own)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_requests_get_the_right_code_and_change_nothing() {
    let server = TestServer::start(config()).await;
    let mut client = server.client().await;
    let s = seated(&mut client, 77).await;
    let before = view(&mut client, &s.table, None).await;
    let (mover, own) = to_move(&mut client, &s).await;
    let other = (mover + 1) % 3;
    let t = &s.table;

    let check = |r: Result<u64, tonic::Status>, code: Code| {
        let e = r.expect_err("must be refused");
        assert_eq!(e.code(), code, "{}", e.message());
        e.message().to_string()
    };

    // Unknown table, no token, a token of another table, garbage token.
    let e = client.get_table(pb::GetTableRequest { table_id: "nope".into() }).await.unwrap_err();
    assert_eq!(e.code(), Code::NotFound);
    check(send(&mut client, "nope", &s.tokens[0], Action::Pass, None).await, Code::NotFound);
    let e = client
        .bid(pb::BidRequest {
            table_id: t.clone(),
            call: pb::BidCall::Pass as i32,
            value: 0,
            expected_seq: None,
            comment: String::new(),
        })
        .await
        .unwrap_err();
    assert_eq!(e.code(), Code::Unauthenticated);
    let other_table = seated(&mut client, 78).await;
    check(send(&mut client, t, &other_table.tokens[mover], Action::Pass, None).await, Code::PermissionDenied);
    check(
        send(&mut client, t, "0123456789abcdef0123456789abcdef", Action::Pass, None).await,
        Code::PermissionDenied,
    );
    let mut bad_header = Request::new(pb::GetTableRequest { table_id: t.clone() });
    bad_header.metadata_mut().insert("authorization", "Basic xyz".parse().unwrap());
    assert_eq!(client.get_table(bad_header).await.unwrap_err().code(), Code::Unauthenticated);

    // Wrong turn, wrong phase, a bid that is not on the ladder, an unknown card.
    let msg =
        check(send(&mut client, t, &s.tokens[other], Action::Pass, None).await, Code::FailedPrecondition);
    assert!(msg.contains("not your turn"), "{msg}");
    let msg = check(
        send(&mut client, t, &s.tokens[mover], Action::Play { card: "CJ".parse().unwrap() }, None).await,
        Code::FailedPrecondition,
    );
    assert!(msg.contains("bidding"), "{msg}");
    let e = client
        .bid(authed(
            pb::BidRequest {
                table_id: t.clone(),
                call: pb::BidCall::Say as i32,
                value: 19,
                expected_seq: None,
                comment: String::new(),
            },
            &s.tokens[mover],
        ))
        .await
        .unwrap_err();
    assert_eq!(e.code(), Code::InvalidArgument);
    let e = client
        .bid(authed(
            pb::BidRequest {
                table_id: t.clone(),
                call: 0,
                value: 0,
                expected_seq: None,
                comment: String::new(),
            },
            &s.tokens[mover],
        ))
        .await
        .unwrap_err();
    assert_eq!(e.code(), Code::InvalidArgument);
    let e = client
        .play_card(authed(
            pb::PlayCardRequest { table_id: t.clone(), card: 99, expected_seq: None, comment: String::new() },
            &s.tokens[mover],
        ))
        .await
        .unwrap_err();
    assert_eq!(e.code(), Code::InvalidArgument);
    let e = client
        .discard(authed(
            pb::DiscardRequest {
                table_id: t.clone(),
                cards: vec![1, 1],
                expected_seq: None,
                comment: String::new(),
            },
            &s.tokens[mover],
        ))
        .await
        .unwrap_err();
    assert_eq!(e.code(), Code::InvalidArgument);
    let e = client
        .declare(authed(
            pb::DeclareRequest {
                table_id: t.clone(),
                game: 0,
                announcement: 0,
                expected_seq: None,
                comment: String::new(),
            },
            &s.tokens[mover],
        ))
        .await
        .unwrap_err();
    assert_eq!(e.code(), Code::InvalidArgument);
    let e = client.get_records(pb::GetRecordsRequest { table_id: t.clone(), format: 42 }).await.unwrap_err();
    assert_eq!(e.code(), Code::InvalidArgument);

    // Nothing changed.
    assert_eq!(view(&mut client, t, None).await, before);

    // A retried request with the same expected_seq is applied once, then ABORTED.
    let legal = convert::legal_from(own.deal.as_ref().unwrap().legal.as_ref().unwrap()).unwrap();
    let action = Action::Bid { value: legal.bid_from.unwrap() };
    let seq = send(&mut client, t, &s.tokens[mover], action, Some(own.seq)).await.unwrap();
    assert_eq!(seq, own.seq + 1);
    let after = view(&mut client, t, None).await;
    check(send(&mut client, t, &s.tokens[mover], action, Some(own.seq)).await, Code::Aborted);
    assert_eq!(view(&mut client, t, None).await, after);

    // Joining a full table, a seat that does not exist.
    let e = client
        .join_table(pb::JoinTableRequest {
            table_id: t.clone(),
            name: "late".into(),
            seat: None,
            ..Default::default()
        })
        .await
        .unwrap_err();
    assert_eq!(e.code(), Code::ResourceExhausted);
    let fresh = create(&mut client, 3, 1, 1).await;
    let e = client
        .join_table(pb::JoinTableRequest {
            table_id: fresh.clone(),
            name: "x".into(),
            seat: Some(7),
            ..Default::default()
        })
        .await
        .unwrap_err();
    assert_eq!(e.code(), Code::InvalidArgument);
    // Acting at a waiting table.
    let (_, tok) = join(&mut client, &fresh, "early").await;
    check(send(&mut client, &fresh, &tok, Action::Pass, None).await, Code::FailedPrecondition);
    // Bad table settings.
    let e = client.create_table(pb::CreateTableRequest { seats: 5, ..Default::default() }).await.unwrap_err();
    assert_eq!(e.code(), Code::InvalidArgument);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_table_limit_and_the_create_token() {
    let server =
        TestServer::start(ServerConfig { max_tables: 2, create_token: Some("sesame".into()), ..config() })
            .await;
    let mut client = server.client().await;
    let req = || pb::CreateTableRequest { seats: 3, deals: 1, ..Default::default() };
    assert_eq!(client.create_table(req()).await.unwrap_err().code(), Code::Unauthenticated);
    assert_eq!(client.create_table(authed(req(), "wrong")).await.unwrap_err().code(), Code::PermissionDenied);
    client.create_table(authed(req(), "sesame")).await.unwrap();
    client.create_table(authed(req(), "sesame")).await.unwrap();
    let e = client.create_table(authed(req(), "sesame")).await.unwrap_err();
    assert_eq!(e.code(), Code::ResourceExhausted);
    assert_eq!(
        client.list_tables(pb::ListTablesRequest::default()).await.unwrap().into_inner().tables.len(),
        2
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_reconnected_stream_gets_exactly_the_missed_events() {
    let server = TestServer::start(config()).await;
    let mut client = server.client().await;
    let s = seated(&mut client, 5).await;
    let mut rng = RandomClient::new(9);
    let mut stream = client
        .watch_table(authed(
            pb::WatchTableRequest { table_id: s.table.clone(), after_seq: None },
            &s.tokens[0],
        ))
        .await
        .unwrap()
        .into_inner();
    let Some(Ok(pb::WatchTableResponse { kind: Some(WatchKind::Snapshot(snap)) })) = stream.next().await
    else {
        panic!("snapshot first")
    };
    let mut last = snap.seq;
    // Play ten actions, reading the stream as we go.
    for _ in 0..10 {
        let (seat, own) = to_move(&mut client, &s).await;
        let a = rng.choose(&own).unwrap();
        send(&mut client, &s.table, &s.tokens[seat], a, Some(own.seq)).await.unwrap();
    }
    let target = view(&mut client, &s.table, None).await.seq;
    while last < target {
        let Some(Ok(pb::WatchTableResponse { kind: Some(WatchKind::Event(e)) })) = stream.next().await else {
            panic!()
        };
        assert_eq!(e.seq, last + 1);
        last = e.seq;
    }
    // The connection drops; play goes on without us.
    drop(stream);
    for _ in 0..12 {
        let (seat, own) = to_move(&mut client, &s).await;
        let Some(a) = rng.choose(&own) else { break };
        send(&mut client, &s.table, &s.tokens[seat], a, Some(own.seq)).await.unwrap();
    }
    let now = view(&mut client, &s.table, None).await.seq;
    assert!(now > last + 5);
    // Reconnect with the last seq seen: exactly the missed events, once each.
    let mut resumed = client
        .watch_table(authed(
            pb::WatchTableRequest { table_id: s.table.clone(), after_seq: Some(last) },
            &s.tokens[0],
        ))
        .await
        .unwrap()
        .into_inner();
    let mut got = Vec::new();
    while got.len() < (now - last) as usize {
        let msg = within(10, resumed.next()).await.unwrap().unwrap();
        match msg.kind {
            Some(WatchKind::Event(e)) => got.push(e),
            other => panic!("no snapshot on resume: {other:?}"),
        }
    }
    let seqs: Vec<u64> = got.iter().map(|e| e.seq).collect();
    assert_eq!(seqs, ((last + 1)..=now).collect::<Vec<_>>());
    // And nothing more until something happens.
    assert!(tokio::time::timeout(Duration::from_millis(200), resumed.next()).await.is_err());
    // They are the same events a fresh full stream of this seat shows for those numbers.
    let mut full = client
        .watch_table(authed(
            pb::WatchTableRequest { table_id: s.table.clone(), after_seq: Some(0) },
            &s.tokens[0],
        ))
        .await
        .unwrap()
        .into_inner();
    let mut all = Vec::new();
    while all.len() < now as usize {
        if let Some(WatchKind::Event(e)) = full.next().await.unwrap().unwrap().kind {
            all.push(e);
        }
    }
    for e in &got {
        let same = &all[(e.seq - 1) as usize];
        assert_eq!(e.kind, same.kind);
    }
    // A resume point in the future is refused.
    let e = client
        .watch_table(pb::WatchTableRequest { table_id: s.table.clone(), after_seq: Some(now + 100) })
        .await
        .unwrap_err();
    assert_eq!(e.code(), Code::OutOfRange);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_silent_seat_times_out_the_deal_ends_by_forfeit_and_the_match_goes_on() {
    let server = TestServer::start(config()).await;
    let mut client = server.client().await;
    let table = client
        .create_table(pb::CreateTableRequest {
            name: "clock".into(),
            seats: 3,
            deals: 3,
            seed: Some(3),
            time_control: Some(pb::TimeControl { action_ms: 300, deal_ms: 0, between_deals_ms: 0 }),
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner()
        .table_id;
    let mut tokens = vec![String::new(); 3];
    for n in ["a", "b", "c"] {
        let (seat, tok) = join(&mut client, &table, n).await;
        tokens[seat as usize] = tok;
    }
    let mut spectator = client
        .watch_table(pb::WatchTableRequest { table_id: table.clone(), after_seq: Some(0) })
        .await
        .unwrap()
        .into_inner();
    // Nobody acts. Middlehand (seat 1 in deal 0) must bid first and times out.
    let mut forfeits = 0;
    let mut ended = 0;
    let mut started = 0;
    while ended < 2 {
        let msg = within(10, spectator.next()).await.unwrap().unwrap();
        let Some(WatchKind::Event(e)) = msg.kind else { continue };
        match e.kind {
            Some(Kind::ActionTaken(a)) => {
                let act = a.action.unwrap();
                assert_eq!(act.kind, pb::ActionKind::Forfeit as i32);
                assert_eq!(act.forfeit_reason, pb::ForfeitReason::Timeout as i32);
                forfeits += 1;
            }
            Some(Kind::DealEnded(d)) => {
                let r = d.result.unwrap();
                assert!(r.penalty, "a forfeit in the auction is a penalty");
                assert_eq!(r.end, "forfeit");
                assert_eq!(r.score, -36, "charged as a lost game at 18");
                ended += 1;
            }
            Some(Kind::DealStarted(_)) => started += 1,
            _ => {}
        }
    }
    assert_eq!(forfeits, 2);
    assert!(started >= 2, "the match went on to the next deal");
    let v = view(&mut client, &table, None).await;
    assert!(v.deals_played >= 2);
    let penalised: u32 = v.standings.iter().map(|s| s.penalties).sum();
    assert!(penalised >= 2);
    // A seat that acts in time is not forfeited: play one action quickly.
    let d = v.deal.unwrap();
    if v.status == pb::TableStatus::Playing as i32 {
        let seat = d.seat_to_move.expect("a seat to move") as usize;
        let own = view(&mut client, &table, Some(&tokens[seat])).await;
        let legal = convert::legal_from(own.deal.unwrap().legal.as_ref().unwrap()).unwrap();
        let a = if legal.pass { Action::Pass } else { Action::Bid { value: Bid::MIN } };
        let r = send(&mut client, &table, &tokens[seat], a, None).await;
        assert!(r.is_ok() || r.unwrap_err().code() == Code::FailedPrecondition);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn leaving_forfeits_and_the_seat_can_be_taken_again() {
    let server = TestServer::start(ServerConfig { default_action_ms: 60_000, ..config() }).await;
    let mut client = server.client().await;
    let s = seated(&mut client, 11).await;
    let r = client
        .leave_table(authed(pb::LeaveTableRequest { table_id: s.table.clone() }, &s.tokens[2]))
        .await
        .unwrap()
        .into_inner();
    assert!(r.seq > 0);
    let v = view(&mut client, &s.table, None).await;
    assert_eq!(v.deals_played, 1, "the deal was forfeited");
    assert!(!v.seat_info[2].occupied);
    assert_eq!(v.results[0].end, "forfeit");
    // The old token no longer acts.
    assert_eq!(
        send(&mut client, &s.table, &s.tokens[2], Action::Pass, None).await.unwrap_err().code(),
        Code::PermissionDenied
    );
    let joined = client
        .join_table(pb::JoinTableRequest {
            table_id: s.table.clone(),
            name: "sub".into(),
            seat: Some(2),
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(joined.seat, 2);
    let v = view(&mut client, &s.table, Some(&joined.token)).await;
    assert_eq!(v.your_seat, Some(2));
    assert_eq!(v.deal.unwrap().hand.len(), 10, "the new player gets the seat's cards");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn idle_and_finished_tables_expire_and_their_streams_end() {
    let server =
        TestServer::start(ServerConfig { table_expiry: Duration::from_millis(300), ..config() }).await;
    let mut client = server.client().await;
    let waiting = create(&mut client, 3, 1, 1).await;
    let mut stream = client
        .watch_table(pb::WatchTableRequest { table_id: waiting.clone(), after_seq: Some(0) })
        .await
        .unwrap()
        .into_inner();
    // Nobody joins: the table expires, the stream ends with NOT_FOUND, the table is gone.
    let end = within(10, async {
        loop {
            match stream.next().await {
                Some(Ok(_)) => continue,
                other => return other,
            }
        }
    })
    .await;
    match end {
        Some(Err(s)) => assert_eq!(s.code(), Code::NotFound, "{s:?}"),
        other => panic!("expected the stream to end with NOT_FOUND, got {other:?}"),
    }
    let e = client.get_table(pb::GetTableRequest { table_id: waiting }).await.unwrap_err();
    assert_eq!(e.code(), Code::NotFound);
    assert!(
        client.list_tables(pb::ListTablesRequest::default()).await.unwrap().into_inner().tables.is_empty()
    );
}
