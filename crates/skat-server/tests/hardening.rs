//! Regression tests for the holes an outside audit found (issue: hardening): a stream
//! that outlived its seat, backlogs cut at 256 events, readers that never read, limits
//! an anonymous client could break, wrong status codes, LeaveTable after the end.

mod common;

use std::time::Duration;

use common::*;
use skat_engine::CardSet;
use skat_proto::convert;
use skat_proto::pb::{self, event::Kind};
use skat_server::ServerConfig;
use tokio_stream::StreamExt;
use tonic::{Code, Request};

fn hand_of(view: &pb::TableView) -> CardSet {
    view.deal.as_ref().expect("a deal").hand.iter().filter_map(|c| convert::card_from(*c).ok()).collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_seat_stream_ends_when_its_token_leaves_and_never_shows_the_newcomer() {
    let server = TestServer::start(config()).await;
    let mut client = server.client().await;
    let (table, tokens) = seated(&mut client, 3, 36, 42).await;
    let watch =
        |after| authed(pb::WatchTableRequest { table_id: table.clone(), after_seq: after }, &tokens[1]);
    let old_snapshot = client.watch_table(watch(None)).await.unwrap().into_inner();
    let old_resumed = client.watch_table(watch(Some(0))).await.unwrap().into_inner();

    let left = client
        .leave_table(authed(pb::LeaveTableRequest { table_id: table.clone() }, &tokens[1]))
        .await
        .unwrap()
        .into_inner()
        .seq;
    let joined = client
        .join_table(pb::JoinTableRequest {
            table_id: table.clone(),
            name: "newcomer".into(),
            seat: Some(1),
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner();
    let newcomer_hand = hand_of(joined.table.as_ref().unwrap());
    assert_eq!(newcomer_hand.len(), 10);

    for stream in [old_snapshot, old_resumed] {
        let (events, _, end) = within(10, drain_stream(stream)).await;
        let end = end.expect("the stream must end with an error, not run on");
        assert_eq!(end.code(), Code::PermissionDenied, "{end:?}");
        for e in &events {
            assert!(e.seq <= left, "event {} after the leave (seq {left}) reached the old token", e.seq);
            assert!(e.legal.is_none() || e.seq < left, "legal actions after the leave");
        }
        // The newcomer's deal is new: its hand must not reach the old stream.
        for e in &events {
            if let Some(Kind::DealStarted(_)) = e.kind {
                assert_ne!(event_cards(e), newcomer_hand, "the newcomer's hand leaked at seq {}", e.seq);
            }
        }
    }

    // A stream opened with the old token now is refused, and so is every call with it.
    let e = client.watch_table(watch(None)).await.unwrap_err();
    assert_eq!(e.code(), Code::PermissionDenied);
    let e = client
        .get_table(authed(pb::GetTableRequest { table_id: table.clone() }, &tokens[1]))
        .await
        .unwrap_err();
    assert_eq!(e.code(), Code::PermissionDenied);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn resuming_delivers_every_event_of_a_long_finished_table() {
    let server = TestServer::start(config()).await;
    let mut client = server.client().await;
    let (table, tokens) = seated(&mut client, 3, 72, 5).await;
    within(120, play_to_end(&mut client, &table, &tokens, 5)).await;
    let last = view(&mut client, &table, None).await.seq;
    assert!(last > 1000, "a 72-deal table has far more events than any batch: {last}");

    for (after, token) in
        [(0, None), (0, Some(&tokens[0])), (257, Some(&tokens[2])), (last - 1, None), (last, None)]
    {
        let req = pb::WatchTableRequest { table_id: table.clone(), after_seq: Some(after) };
        let req = match token {
            Some(t) => authed(req, t),
            None => Request::new(req),
        };
        let stream = client.watch_table(req).await.unwrap().into_inner();
        let (events, snapshot, end) = within(20, drain_stream(stream)).await;
        assert!(snapshot.is_none());
        assert!(end.is_none(), "a finished table's stream ends cleanly: {end:?}");
        assert_eq!(events.len() as u64, last - after, "after_seq {after}");
        for (i, e) in events.iter().enumerate() {
            assert_eq!(e.seq, after + 1 + i as u64);
        }
    }
    // The old events are derived from the table's inputs (it holds only the last deal's),
    // the recent ones read from memory: a spectator resuming anywhere reads the same bytes
    // as one that read everything.
    let spectator = |after: u64| {
        let mut client = client.clone();
        let table = table.clone();
        async move {
            let req = pb::WatchTableRequest { table_id: table, after_seq: Some(after) };
            let stream = client.watch_table(req).await.unwrap().into_inner();
            within(20, drain_stream(stream)).await.0
        }
    };
    let whole = spectator(0).await;
    // Only a stream behind what the table holds derives the past, and the metric counts it.
    let derivations = || server.server.metrics.stream_derivations.get();
    let before = derivations();
    assert!(before >= 3, "the resumes from 0 and 257 derived: {before}");
    assert_eq!(spectator(last - 5).await, whole[last as usize - 5..]);
    assert_eq!(derivations(), before, "the last events are read from memory");
    assert_eq!(spectator(last - 40).await, whole[last as usize - 40..]);
    assert_eq!(derivations(), before + 1, "40 events back is derived");
    for after in [1, 63, 64, 65, 700, last - 40, last - 1] {
        assert_eq!(spectator(after).await, whole[after as usize..], "after_seq {after}");
    }
    // With a snapshot: the snapshot is the end, and the stream closes.
    let stream = client
        .watch_table(pb::WatchTableRequest { table_id: table.clone(), after_seq: None })
        .await
        .unwrap()
        .into_inner();
    let (events, snapshot, end) = within(20, drain_stream(stream)).await;
    assert_eq!(snapshot.map(|s| s.seq), Some(last));
    assert!(events.is_empty() && end.is_none());
}

/// A client whose HTTP/2 windows are tiny, so that a stream it does not read fills up at
/// once on the server.
async fn slow_client(addr: std::net::SocketAddr) -> Client {
    let channel = tonic::transport::Endpoint::from_shared(format!("http://{addr}"))
        .unwrap()
        .initial_stream_window_size(Some(2048))
        .initial_connection_window_size(Some(65_535))
        .connect()
        .await
        .unwrap();
    Client::new(channel)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_reader_that_stalls_is_ended_and_resumes_exactly() {
    let server =
        TestServer::start(ServerConfig { stream_stall_timeout: Duration::from_millis(300), ..config() })
            .await;
    let mut client = server.client().await;
    let (table, tokens) = seated(&mut client, 3, 36, 9).await;
    let mut slow = slow_client(server.server.addr).await;
    let stalled = slow
        .watch_table(pb::WatchTableRequest { table_id: table.clone(), after_seq: Some(0) })
        .await
        .unwrap()
        .into_inner();
    within(120, play_to_end(&mut client, &table, &tokens, 9)).await;
    let last = view(&mut client, &table, None).await.seq;
    tokio::time::sleep(Duration::from_millis(600)).await;

    // The server gave up on the reader: it gets what was buffered, then the end.
    let (events, _, end) = within(20, drain_stream(stalled)).await;
    let end = end.expect("a stalled stream is ended");
    assert_eq!(end.code(), Code::ResourceExhausted, "{end:?}");
    assert!((events.len() as u64) < last, "it was ended before the backlog was delivered");
    let cursor = events.last().map_or(0, |e| e.seq);
    assert!(end.message().contains(&format!("after_seq={cursor}")), "{}", end.message());
    for (i, e) in events.iter().enumerate() {
        assert_eq!(e.seq, 1 + i as u64);
    }
    // Resuming where it ended gets exactly the rest.
    let stream = client
        .watch_table(pb::WatchTableRequest { table_id: table.clone(), after_seq: Some(cursor) })
        .await
        .unwrap()
        .into_inner();
    let (rest, _, end) = within(20, drain_stream(stream)).await;
    assert!(end.is_none());
    assert_eq!(rest.first().map(|e| e.seq), Some(cursor + 1));
    assert_eq!(rest.last().map(|e| e.seq), Some(last));
}

/// A stalled reader gives its slot back when the watchdog finds it, not when its reader
/// comes back: the seat can open a stream at once to resume.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stalled_readers_slot_is_given_back() {
    let server = TestServer::start(ServerConfig {
        stream_stall_timeout: Duration::from_millis(300),
        max_streams_per_seat: 1,
        ..config()
    })
    .await;
    let mut client = server.client().await;
    let (table, tokens) = seated(&mut client, 3, 12, 21).await;
    let watch = |after_seq| authed(pb::WatchTableRequest { table_id: table.clone(), after_seq }, &tokens[0]);
    let mut slow = slow_client(server.server.addr).await;
    let stalled = slow.watch_table(watch(Some(0))).await.unwrap().into_inner();
    let e = client.watch_table(watch(None)).await.unwrap_err();
    assert_eq!(e.code(), Code::ResourceExhausted, "the seat's one slot is taken: {e:?}");
    within(120, play_to_end(&mut client, &table, &tokens, 21)).await;
    tokio::time::sleep(Duration::from_millis(800)).await;
    // The stalled stream still exists (its reader never read), but its slot is free.
    let fresh = client.watch_table(watch(None)).await.expect("the slot was given back").into_inner();
    let (_, snapshot, end) = within(20, drain_stream(fresh)).await;
    assert!(snapshot.is_some() && end.is_none());
    let (_, _, end) = within(20, drain_stream(stalled)).await;
    assert_eq!(end.map(|e| e.code()), Some(Code::ResourceExhausted));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn limits_on_deals_joins_and_expiry() {
    let server = TestServer::start(ServerConfig { max_deals: 50, max_joins_per_table: 6, ..config() }).await;
    let mut client = server.client().await;
    // Deals per table.
    let e =
        client.create_table(pb::CreateTableRequest { deals: 51, ..Default::default() }).await.unwrap_err();
    assert_eq!(e.code(), Code::InvalidArgument);
    assert!(e.message().contains("at most 50 deals"), "{}", e.message());
    assert!(client.create_table(pb::CreateTableRequest { deals: 50, ..Default::default() }).await.is_ok());

    // Join/leave loops: bounded joins (that they do not keep a table alive is a unit test
    // of the table, with its own clock).
    let table = create(&mut client, 3, 1, 1).await;
    for _ in 0..6 {
        let (_, token) = join(&mut client, &table, "loop").await;
        client.leave_table(authed(pb::LeaveTableRequest { table_id: table.clone() }, &token)).await.unwrap();
    }
    let e = client
        .join_table(pb::JoinTableRequest { table_id: table.clone(), name: "x".into(), ..Default::default() })
        .await
        .unwrap_err();
    assert_eq!(e.code(), Code::ResourceExhausted);
    assert!(e.message().contains("limit of 6 joins"), "{}", e.message());
    assert_eq!(view(&mut client, &table, None).await.seq, 12, "6 joins and 6 leaves, nothing more");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn spectators_cannot_crowd_out_the_seats_and_clients_have_quotas() {
    let server = TestServer::start(ServerConfig {
        max_spectators_per_table: 4,
        max_streams_per_seat: 2,
        max_streams_per_client: 12,
        max_tables_per_client: 3,
        ..config()
    })
    .await;
    let mut client = server.client().await;
    let (table, tokens) = seated(&mut client, 3, 1, 3).await;
    let spectate = || pb::WatchTableRequest { table_id: table.clone(), after_seq: None };
    let mut open = Vec::new();
    for _ in 0..4 {
        open.push(client.watch_table(spectate()).await.unwrap().into_inner());
    }
    let e = client.watch_table(spectate()).await.unwrap_err();
    assert_eq!(e.code(), Code::ResourceExhausted);
    // The seats still get their own streams, up to their own limit.
    for token in &tokens {
        open.push(client.watch_table(authed(spectate(), token)).await.unwrap().into_inner());
    }
    open.push(client.watch_table(authed(spectate(), &tokens[0])).await.unwrap().into_inner());
    let e = client.watch_table(authed(spectate(), &tokens[0])).await.unwrap_err();
    assert_eq!(e.code(), Code::ResourceExhausted, "a seat's own limit");
    // 8 streams open; the client's limit of 12 holds across tables too.
    let (other, other_tokens) = seated(&mut client, 3, 1, 4).await;
    for token in &other_tokens {
        open.push(
            client
                .watch_table(authed(
                    pb::WatchTableRequest { table_id: other.clone(), after_seq: None },
                    token,
                ))
                .await
                .unwrap()
                .into_inner(),
        );
    }
    open.push(
        client
            .watch_table(pb::WatchTableRequest { table_id: other.clone(), after_seq: None })
            .await
            .unwrap()
            .into_inner(),
    );
    let e = client
        .watch_table(pb::WatchTableRequest { table_id: other.clone(), after_seq: None })
        .await
        .unwrap_err();
    assert_eq!(e.code(), Code::ResourceExhausted);
    assert!(e.message().contains("your address"), "{}", e.message());
    // Closing streams gives their slots back.
    open.clear();
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert!(client.watch_table(spectate()).await.is_ok());

    // Tables per client: two made above, one more, then refused.
    create(&mut client, 3, 1, 5).await;
    let e = client.create_table(pb::CreateTableRequest::default()).await.unwrap_err();
    assert_eq!(e.code(), Code::ResourceExhausted);
    assert!(e.message().contains("your address holds its limit of 3 tables"), "{}", e.message());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn private_tables_keep_strangers_out_of_the_seats() {
    let server = TestServer::start(config()).await;
    let mut client = server.client().await;
    let created = client
        .create_table(pb::CreateTableRequest { private: true, deals: 1, ..Default::default() })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(created.join_code.len(), 32);
    let listed = client.list_tables(pb::ListTablesRequest::default()).await.unwrap().into_inner();
    assert!(listed.tables.iter().any(|t| t.table_id == created.table_id && t.private));
    for code in ["", "0123456789abcdef0123456789abcdef"] {
        let e = client
            .join_table(pb::JoinTableRequest {
                table_id: created.table_id.clone(),
                join_code: code.into(),
                ..Default::default()
            })
            .await
            .unwrap_err();
        assert_eq!(e.code(), Code::PermissionDenied);
    }
    assert_eq!(view(&mut client, &created.table_id, None).await.seq, 0, "refused joins change nothing");
    client
        .join_table(pb::JoinTableRequest {
            table_id: created.table_id.clone(),
            join_code: created.join_code.clone(),
            ..Default::default()
        })
        .await
        .unwrap();

    // --private-tables makes every table private.
    let server = TestServer::start(ServerConfig { private_tables: true, ..config() }).await;
    let mut client = server.client().await;
    let created = client.create_table(pb::CreateTableRequest::default()).await.unwrap().into_inner();
    assert!(!created.join_code.is_empty());
    let e = client
        .join_table(pb::JoinTableRequest { table_id: created.table_id.clone(), ..Default::default() })
        .await
        .unwrap_err();
    assert_eq!(e.code(), Code::PermissionDenied);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn leaving_a_finished_table_is_refused_and_changes_nothing() {
    let server = TestServer::start(config()).await;
    let mut client = server.client().await;
    let (table, tokens) = seated(&mut client, 3, 2, 11).await;
    within(60, play_to_end(&mut client, &table, &tokens, 11)).await;
    let before = view(&mut client, &table, None).await;
    let e = client
        .leave_table(authed(pb::LeaveTableRequest { table_id: table.clone() }, &tokens[0]))
        .await
        .unwrap_err();
    assert_eq!(e.code(), Code::FailedPrecondition);
    assert!(e.message().contains("finished (2/2 deals"), "{}", e.message());
    let e = client
        .join_table(pb::JoinTableRequest { table_id: table.clone(), ..Default::default() })
        .await
        .unwrap_err();
    assert!(matches!(e.code(), Code::FailedPrecondition | Code::ResourceExhausted), "{e:?}");
    assert_eq!(view(&mut client, &table, None).await, before);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn malformed_and_oversized_requests_are_the_clients_fault() {
    let server = TestServer::start(ServerConfig { max_message_bytes: 2048, ..config() }).await;
    let mut client = server.client().await;
    let table = create(&mut client, 3, 1, 1).await;
    let mut raw = RawClient::connect(server.server.addr).await;
    // Field 1 (table_id) as a varint where a string belongs; a truncated length.
    for body in [vec![0x08, 0x01], vec![0x0a, 0x20, b'x'], vec![0xff; 7]] {
        for method in ["GetTable", "JoinTable", "Bid", "PlayCard", "WatchTable", "CreateTable"] {
            let e = raw.call(method, body.clone()).await.unwrap_err();
            assert_eq!(e.code(), Code::InvalidArgument, "{method} {body:?}: {e:?}");
        }
    }
    let e = client
        .join_table(pb::JoinTableRequest {
            table_id: table.clone(),
            name: "x".repeat(4096),
            ..Default::default()
        })
        .await
        .unwrap_err();
    assert_eq!(e.code(), Code::ResourceExhausted, "{e:?}");
    assert_eq!(view(&mut client, &table, None).await.seq, 0);
    // Within the limit all is well; after_seq ahead keeps its own OUT_OF_RANGE.
    let e = client
        .watch_table(pb::WatchTableRequest { table_id: table.clone(), after_seq: Some(5) })
        .await
        .unwrap_err();
    assert_eq!(e.code(), Code::OutOfRange);
    let mut stream = client
        .watch_table(pb::WatchTableRequest { table_id: table.clone(), after_seq: None })
        .await
        .unwrap()
        .into_inner();
    assert!(stream.next().await.unwrap().is_ok());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_address_holds_a_bounded_number_of_connections() {
    let server = TestServer::start(ServerConfig { max_connections_per_client: 2, ..config() }).await;
    let mut first = server.client().await;
    let mut second = server.client().await;
    create(&mut first, 3, 1, 1).await;
    create(&mut second, 3, 1, 2).await;
    // A third connection from the same address is closed at once.
    let mut third = Client::new(
        tonic::transport::Endpoint::from_shared(format!("http://{}", server.server.addr))
            .unwrap()
            .connect_lazy(),
    );
    assert!(third.list_tables(pb::ListTablesRequest::default()).await.is_err());
    // Closing one makes room.
    drop(first);
    tokio::time::sleep(Duration::from_millis(200)).await;
    let mut fourth = server.client().await;
    assert_eq!(
        fourth.list_tables(pb::ListTablesRequest::default()).await.unwrap().into_inner().tables.len(),
        2
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_connection_answers_a_bounded_number_of_calls_at_once_and_open_streams_do_not_hold_them() {
    let server =
        TestServer::start(ServerConfig { max_concurrent_requests_per_connection: 1, ..config() }).await;
    let mut client = server.client().await;
    let table = create(&mut client, 3, 1, 1).await;
    // An open stream is counted by --max-streams-per-connection, not here: a call beside
    // it on the same connection is answered.
    let _stream = client
        .watch_table(pb::WatchTableRequest { table_id: table.clone(), after_seq: None })
        .await
        .unwrap()
        .into_inner();
    let listed = within(10, client.list_tables(pb::ListTablesRequest::default())).await.unwrap();
    assert_eq!(listed.into_inner().tables.len(), 1);
    // Many calls at once on the one connection take their turns: every one is answered,
    // none refused.
    let calls: Vec<_> = (0..40)
        .map(|_| {
            let mut c = client.clone();
            tokio::spawn(async move { c.list_tables(pb::ListTablesRequest::default()).await })
        })
        .collect();
    for call in calls {
        assert!(within(10, call).await.unwrap().is_ok());
    }
}
