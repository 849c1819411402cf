//! Many streams on one connection: a proxy multiplexes many clients' streams over a few
//! upstream connections, browsers share one connection per origin, a bot process may
//! play many tables over one channel. Every stream the server accepts is served, every
//! limit counts it, and a stream over a limit is refused with a status the client can act
//! on (never left waiting without an error).

mod common;

use std::time::Duration;

use common::{Connect, TestServer, config, create, join};
use skat_proto::convert;
use skat_proto::pb::{self, ErrorReason, watch_table_response::Kind};
use skat_server::ServerConfig;
use tokio_stream::StreamExt;
use tonic::Code;

/// Opens `n` spectator streams on one connection (one tonic channel) and returns what
/// each answered first: its stream, or the refusal.
async fn open_streams(
    client: &common::Client,
    table: &str,
    n: usize,
) -> Vec<Result<tonic::Streaming<pb::WatchTableResponse>, tonic::Status>> {
    let mut out = Vec::new();
    for _ in 0..n {
        let mut c = client.clone();
        let opened = tokio::time::timeout(
            Duration::from_secs(5),
            c.watch_table(pb::WatchTableRequest { table_id: table.into(), after_seq: Some(0) }),
        )
        .await
        .expect("every stream is answered: served or refused, never left waiting");
        out.push(opened.map(|r| r.into_inner()));
    }
    out
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_stream_on_one_connection_is_served_up_to_the_limits_and_refused_beyond() {
    let server = TestServer::start(config()).await;
    let client = server.client().await;
    let mut c = client.clone();
    let table = create(&mut c, 3, 1, 7).await;
    // 60 spectator streams on one connection: within the per-table (64) and per-address
    // (64) limits, so every one must hear the next event.
    let streams = open_streams(&client, &table, 60).await;
    let mut streams: Vec<_> = streams.into_iter().map(|s| s.expect("within the limits: served")).collect();
    join(&mut c, &table, "a").await;
    for (i, s) in streams.iter_mut().enumerate() {
        let msg = tokio::time::timeout(Duration::from_secs(5), s.next())
            .await
            .unwrap_or_else(|_| panic!("stream {i} heard nothing"))
            .expect("a message")
            .expect("not an error");
        assert!(matches!(msg.kind, Some(Kind::Event(_))), "stream {i}: {msg:?}");
    }
    let watchers = server.server.metrics.render();
    assert!(watchers.contains("skat_watchers 60"), "the gauge counts every stream:\n{watchers}");
    assert!(watchers.contains("skat_connections 1\n"), "and one connection carries them:\n{watchers}");
    // Past the per-table spectator limit: refused at once, with the limit named.
    let more = open_streams(&client, &table, 10).await;
    let refused: Vec<tonic::Status> = more.into_iter().filter_map(|s| s.err()).collect();
    assert_eq!(refused.len(), 6, "64 spectators at most: 4 more served, 6 refused");
    for s in &refused {
        assert_eq!(s.code(), Code::ResourceExhausted);
        assert_eq!(convert::status_reason(s), Some(ErrorReason::Limit));
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn more_streams_than_a_connection_carries_are_refused_not_queued() {
    let server = TestServer::start(ServerConfig {
        max_streams_per_connection: 40,
        max_streams_per_client: 1000,
        max_spectators_per_table: 1000,
        ..config()
    })
    .await;
    let client = server.client().await;
    let mut c = client.clone();
    let table = create(&mut c, 3, 1, 7).await;
    let streams = open_streams(&client, &table, 150).await;
    let (served, refused): (Vec<_>, Vec<_>) = streams.into_iter().partition(|s| s.is_ok());
    assert_eq!(served.len(), 40, "a connection carries --max-streams-per-connection streams");
    for s in refused {
        let Err(s) = s else { panic!("refused") };
        assert_eq!(s.code(), Code::ResourceExhausted, "{s:?}");
        let info = tonic_types::StatusExt::get_error_details(&s);
        let limit = info.error_info().and_then(|i| i.metadata.get("limit").cloned());
        assert_eq!(limit.as_deref(), Some("max-streams-per-connection"), "{s:?}");
    }
    // Unary calls still go through on the same connection.
    join(&mut c, &table, "a").await;
}
