//! WatchTables: many watches on one stream. Each watch must be exactly the WatchTable
//! stream it stands for (the same messages, the same refusals, the same limits), and one
//! watch's end must not end the others.

mod common;

use std::collections::HashMap;
use std::time::Duration;

use common::{
    Client, Connect, TestServer, authed, config, create, drain_stream, join, play_to_end, seated, within,
};
use skat_proto::convert;
use skat_proto::pb::{
    self, ErrorReason, watch_tables_request::Kind as Ask, watch_tables_response::Kind as Said,
};
use tokio::sync::mpsc;
use tokio_stream::StreamExt;
use tokio_stream::wrappers::UnboundedReceiverStream;
use tonic::{Code, Request, Status, Streaming};

/// An open WatchTables stream: where to send adds and removes, and its responses.
struct Hub {
    requests: mpsc::UnboundedSender<pb::WatchTablesRequest>,
    responses: Streaming<pb::WatchTablesResponse>,
}

impl Hub {
    async fn open(client: &Client) -> Hub {
        let (requests, rx) = mpsc::unbounded_channel();
        let responses =
            client.clone().watch_tables(UnboundedReceiverStream::new(rx)).await.expect("opened").into_inner();
        Hub { requests, responses }
    }

    fn add(&self, watch_id: u64, table: &str, token: Option<&str>, after_seq: Option<u64>) {
        let add = pb::WatchAdd {
            watch_id,
            table_id: table.into(),
            seat_token: token.unwrap_or_default().into(),
            after_seq,
        };
        self.requests.send(pb::WatchTablesRequest { kind: Some(Ask::Add(add)) }).expect("stream open");
    }

    fn remove(&self, watch_id: u64) {
        let remove = pb::WatchRemove { watch_id };
        self.requests.send(pb::WatchTablesRequest { kind: Some(Ask::Remove(remove)) }).expect("stream open");
    }

    /// The next response.
    async fn next(&mut self) -> pb::WatchTablesResponse {
        within(10, self.responses.next()).await.expect("a response").expect("not an error")
    }

    /// Every response until the watches `ids` have all ended: each watch's messages as
    /// WatchTable's, and how it ended.
    async fn drain(&mut self, ids: &[u64]) -> HashMap<u64, Drained> {
        let mut out: HashMap<u64, Drained> = ids.iter().map(|id| (*id, Drained::default())).collect();
        while out.values().any(|d| d.end.is_none()) {
            let said = self.next().await;
            let d = out.get_mut(&said.watch_id).expect("a watch this test opened");
            assert!(d.end.is_none(), "nothing comes for watch {} after its end", said.watch_id);
            match said.kind.expect("a kind") {
                Said::Snapshot(view) => d.snapshot = Some(view),
                Said::Event(event) => d.events.push(event),
                Said::Ended(end) => d.end = Some(end),
            }
        }
        out
    }
}

#[derive(Default, Debug)]
struct Drained {
    events: Vec<pb::Event>,
    snapshot: Option<pb::TableView>,
    end: Option<pb::WatchEnded>,
}

/// The status a watch ended with, as a client rebuilds it.
fn status(end: &pb::WatchEnded) -> Status {
    Status::with_details(Code::from(end.code as i32), end.message.clone(), end.details.clone().into())
}

/// A WatchTable stream as `token` (or a spectator).
async fn watch_table(
    client: &mut Client,
    table: &str,
    token: Option<&str>,
    after: Option<u64>,
) -> Streaming<pb::WatchTableResponse> {
    let req = pb::WatchTableRequest { table_id: table.into(), after_seq: after };
    let req = match token {
        Some(t) => authed(req, t),
        None => Request::new(req),
    };
    client.watch_table(req).await.expect("watched").into_inner()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_watch_is_the_watch_table_stream_it_stands_for() {
    let server = TestServer::start(config()).await;
    let mut client = server.client().await;
    let (table, tokens) = seated(&mut client, 3, 6, 11).await;
    // Live: three seats and a spectator watch from the start on one WatchTables stream,
    // beside their own WatchTable streams, while the list is played.
    let mut hub = Hub::open(&client).await;
    let watchers: Vec<Option<&str>> = vec![None, Some(&tokens[0]), Some(&tokens[1]), Some(&tokens[2])];
    let mut own = Vec::new();
    for (i, token) in watchers.iter().enumerate() {
        hub.add(i as u64 + 1, &table, *token, Some(0));
        own.push(watch_table(&mut client, &table, *token, Some(0)).await);
    }
    within(60, play_to_end(&mut client, &table, &tokens, 3)).await;
    let live = within(30, hub.drain(&[1, 2, 3, 4])).await;
    for (i, stream) in own.into_iter().enumerate() {
        let (events, _, end) = within(30, drain_stream(stream)).await;
        assert!(end.is_none());
        let watched = &live[&(i as u64 + 1)];
        assert!(events.len() > 100, "a six-deal list: {} events", events.len());
        assert_eq!(watched.events, events, "watcher {i}: the same events, in the same order");
        assert_eq!(watched.end.as_ref().map(|e| e.code), Some(0), "a clean end: {:?}", watched.end);
    }
    // Finished, resumed from anywhere (the old events derived from the inputs), and with
    // a snapshot: the same as WatchTable again, on one stream with several watches at once.
    let last = common::view(&mut client, &table, None).await.seq;
    let asks = [
        (None, None),
        (Some(0), Some(1)),
        (Some(97), Some(2)),
        (Some(last - 3), None),
        (Some(last), Some(0)),
    ];
    for (i, (after, seat)) in asks.iter().enumerate() {
        hub.add(10 + i as u64, &table, seat.map(|s: usize| tokens[s].as_str()), *after);
    }
    let resumed = within(30, hub.drain(&[10, 11, 12, 13, 14])).await;
    for (i, (after, seat)) in asks.iter().enumerate() {
        let token = seat.map(|s| tokens[s].as_str());
        let (events, snapshot, end) =
            drain_stream(watch_table(&mut client, &table, token, *after).await).await;
        let watched = &resumed[&(10 + i as u64)];
        assert!(end.is_none());
        assert_eq!(watched.events, events, "after {after:?} as seat {seat:?}");
        assert_eq!(watched.snapshot, snapshot, "after {after:?} as seat {seat:?}");
    }
    assert!(server.server.metrics.render().contains("skat_watchers 0\n"), "every watch let go of its slot");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_watch_that_is_refused_or_ends_leaves_the_others_running() {
    let server = TestServer::start(config()).await;
    let mut client = server.client().await;
    let table = create(&mut client, 3, 2, 5).await;
    let (_, token) = join(&mut client, &table, "a").await;
    // Watches 1 and 5 from the table as it is: the next event is the next join.
    let now = common::view(&mut client, &table, None).await.seq;
    let mut hub = Hub::open(&client).await;
    hub.add(1, &table, None, Some(now));
    hub.add(2, &table, Some("no-such-token-at-all"), None);
    hub.add(3, "t0000000000zz", None, None);
    hub.add(4, &table, None, Some(1_000));
    hub.add(5, &table, Some(&token), Some(now));
    let mut ended = HashMap::new();
    while ended.len() < 3 {
        let said = hub.next().await;
        if let Some(Said::Ended(end)) = said.kind {
            ended.insert(said.watch_id, status(&end));
        }
    }
    let reason = |id: u64| convert::status_reason(&ended[&id]);
    assert_eq!(ended[&2].code(), Code::PermissionDenied);
    assert_eq!(reason(2), Some(ErrorReason::NotSeated));
    assert_eq!(ended[&3].code(), Code::NotFound);
    assert_eq!(reason(3), Some(ErrorReason::TableNotFound));
    assert_eq!(ended[&4].code(), Code::OutOfRange);
    assert_eq!(reason(4), Some(ErrorReason::AfterSeqAhead));
    // The others go on: the next seat's join reaches the spectator and the seat.
    join(&mut client, &table, "b").await;
    let mut heard = Vec::new();
    while heard.len() < 2 {
        let said = hub.next().await;
        assert!(matches!(said.kind, Some(Said::Event(_))), "{said:?}");
        heard.push(said.watch_id);
    }
    heard.sort();
    assert_eq!(heard, [1, 5], "the join, seen by both watches");
    // The seat leaves: its watch ends as its WatchTable stream would, the spectator's goes on.
    client
        .leave_table(authed(pb::LeaveTableRequest { table_id: table.clone() }, &token))
        .await
        .expect("left");
    let mut seat_end = None;
    while seat_end.is_none() {
        let said = hub.next().await;
        match said.kind {
            Some(Said::Ended(end)) if said.watch_id == 5 => seat_end = Some(status(&end)),
            Some(Said::Event(_)) => {}
            other => panic!("watch {}: {other:?}", said.watch_id),
        }
    }
    let seat_end = seat_end.expect("ended");
    assert_eq!(seat_end.code(), Code::PermissionDenied);
    assert_eq!(convert::status_reason(&seat_end), Some(ErrorReason::SeatLost));
    // A removal is answered, and gives the slot back.
    hub.remove(1);
    let said = hub.next().await;
    assert_eq!(said.watch_id, 1);
    assert!(matches!(said.kind, Some(Said::Ended(ref e)) if e.code == Code::Cancelled as u32), "{said:?}");
    assert!(server.server.metrics.render().contains("skat_watchers 0\n"));
    // A watch id already open ends the whole stream: responses could not be told apart.
    hub.add(7, &table, None, Some(0));
    hub.add(7, &table, None, Some(0));
    let end = loop {
        match within(10, hub.responses.next()).await {
            Some(Ok(_)) => continue,
            Some(Err(status)) => break status,
            None => panic!("the stream ended without a status"),
        }
    };
    assert_eq!(end.code(), Code::InvalidArgument);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn watches_count_against_the_stream_limits() {
    let mut cfg = config();
    cfg.max_streams_per_client = 4;
    let server = TestServer::start(cfg).await;
    let mut client = server.client().await;
    let table = create(&mut client, 3, 1, 5).await;
    // The stream itself is one; three watches fit beside it, a fourth does not.
    let mut hub = Hub::open(&client).await;
    for id in 1..=4 {
        hub.add(id, &table, None, Some(0));
    }
    let said = hub.next().await;
    assert_eq!(said.watch_id, 4);
    let Some(Said::Ended(end)) = said.kind else { panic!("{said:?}") };
    let refused = status(&end);
    assert_eq!(refused.code(), Code::ResourceExhausted);
    assert_eq!(convert::status_reason(&refused), Some(ErrorReason::Limit));
    // The three are open and hear the table.
    join(&mut client, &table, "a").await;
    let mut heard = Vec::new();
    for _ in 0..3 {
        heard.push(hub.next().await.watch_id);
    }
    heard.sort();
    assert_eq!(heard, [1, 2, 3]);
    // Closing its side ends the stream once its watches end: here, never on its own, so
    // the client drops it and every slot comes back.
    drop(hub);
    tokio::time::sleep(Duration::from_millis(200)).await;
    let again = Hub::open(&client).await;
    again.add(1, &table, None, Some(0));
    let mut again = again;
    assert!(matches!(again.next().await.kind, Some(Said::Event(_))), "the slots came back");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn on_shutdown_every_watch_ends_and_then_the_stream() {
    let mut server = TestServer::start(config()).await;
    let mut client = server.client().await;
    let table = create(&mut client, 3, 1, 5).await;
    let mut hub = Hub::open(&client).await;
    hub.add(1, &table, None, Some(0));
    hub.add(2, &table, None, None);
    // The snapshot says the second watch is open.
    assert!(matches!(hub.next().await.kind, Some(Said::Snapshot(_))));
    server.stop();
    let mut ended = HashMap::new();
    let end = loop {
        match within(10, hub.responses.next()).await {
            Some(Ok(said)) => {
                if let Some(Said::Ended(e)) = said.kind {
                    ended.insert(said.watch_id, status(&e));
                }
            }
            Some(Err(status)) => break status,
            None => panic!("the stream ended without a status"),
        }
    };
    for id in [1, 2] {
        assert_eq!(ended[&id].code(), Code::Unavailable, "watch {id}");
        assert_eq!(convert::status_reason(&ended[&id]), Some(ErrorReason::ShuttingDown));
    }
    // Then the stream itself: its client opens the next one elsewhere.
    assert_eq!(end.code(), Code::Unavailable);
    assert_eq!(convert::status_reason(&end), Some(ErrorReason::ShuttingDown));
}
