//! What operators rely on: health, reflection, metrics, graceful shutdown.

mod common;

use std::time::Duration;

use common::*;
use skat_proto::pb::{self, watch_table_response::Kind as WatchKind};
use skat_server::ServerConfig;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio_stream::StreamExt;
use tonic_health::pb::HealthCheckRequest;
use tonic_health::pb::health_check_response::ServingStatus;
use tonic_health::pb::health_client::HealthClient;
use tonic_reflection::pb::v1::ServerReflectionRequest;
use tonic_reflection::pb::v1::server_reflection_client::ServerReflectionClient;
use tonic_reflection::pb::v1::server_reflection_request::MessageRequest;
use tonic_reflection::pb::v1::server_reflection_response::MessageResponse;

async fn health(addr: std::net::SocketAddr, service: &str) -> Result<i32, tonic::Status> {
    let channel = tonic::transport::Endpoint::from_shared(format!("http://{addr}"))
        .map_err(|e| tonic::Status::unavailable(e.to_string()))?
        .connect()
        .await
        .map_err(|e| tonic::Status::unavailable(e.to_string()))?;
    let mut h = HealthClient::new(channel);
    Ok(h.check(HealthCheckRequest { service: service.into() }).await?.into_inner().status)
}

async fn http_get(addr: std::net::SocketAddr, path: &str) -> String {
    let mut s = tokio::net::TcpStream::connect(addr).await.unwrap();
    s.write_all(format!("GET {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n").as_bytes())
        .await
        .unwrap();
    let mut out = String::new();
    s.read_to_string(&mut out).await.unwrap();
    out
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn health_reflection_and_metrics() {
    let server =
        TestServer::start(ServerConfig { metrics_addr: Some("127.0.0.1:0".parse().unwrap()), ..config() })
            .await;
    let addr = server.server.addr;
    assert_eq!(health(addr, "").await.unwrap(), ServingStatus::Serving as i32);
    assert_eq!(health(addr, "skat.v1.SkatService").await.unwrap(), ServingStatus::Serving as i32);

    let channel =
        tonic::transport::Endpoint::from_shared(format!("http://{addr}")).unwrap().connect().await.unwrap();
    let mut r = ServerReflectionClient::new(channel);
    let req = ServerReflectionRequest {
        host: String::new(),
        message_request: Some(MessageRequest::ListServices(String::new())),
    };
    let mut stream = r.server_reflection_info(tokio_stream::iter(vec![req])).await.unwrap().into_inner();
    let resp = stream.next().await.unwrap().unwrap();
    let Some(MessageResponse::ListServicesResponse(list)) = resp.message_response else { panic!("{resp:?}") };
    let names: Vec<String> = list.service.into_iter().map(|s| s.name).collect();
    assert!(names.contains(&"skat.v1.SkatService".to_string()), "{names:?}");
    assert!(names.contains(&"grpc.health.v1.Health".to_string()), "{names:?}");
    // The health service can be described too (its descriptor is registered).
    let req = ServerReflectionRequest {
        host: String::new(),
        message_request: Some(MessageRequest::FileContainingSymbol("grpc.health.v1.Health".into())),
    };
    let mut stream = r.server_reflection_info(tokio_stream::iter(vec![req])).await.unwrap().into_inner();
    let resp = stream.next().await.unwrap().unwrap();
    assert!(matches!(resp.message_response, Some(MessageResponse::FileDescriptorResponse(_))), "{resp:?}");

    // Play a little so the metrics have something to say.
    let mut client = server.client().await;
    let table = create(&mut client, 3, 1, 1).await;
    for n in ["a", "b", "c"] {
        join(&mut client, &table, n).await;
    }
    let text = http_get(server.server.metrics_addr.unwrap(), "/metrics").await;
    assert!(text.starts_with("HTTP/1.1 200"), "{text}");
    assert!(text.contains("skat_tables 1"), "{text}");
    assert!(text.contains("skat_rpc_duration_seconds_bucket"), "{text}");
    assert!(text.contains("method=\"JoinTable\""), "{text}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sigterm_drains_then_closes_streams_cleanly() {
    let mut server = TestServer::start(ServerConfig { drain: Duration::from_millis(400), ..config() }).await;
    let addr = server.server.addr;
    let mut client = server.client().await;
    let table = create(&mut client, 3, 36, 1).await;
    let mut stream = client
        .watch_table(pb::WatchTableRequest { table_id: table.clone(), after_seq: None })
        .await
        .unwrap()
        .into_inner();
    assert!(matches!(stream.next().await.unwrap().unwrap().kind, Some(WatchKind::Snapshot(_))));
    server.stop();
    // While draining: NOT_SERVING, but requests are still answered.
    tokio::time::sleep(Duration::from_millis(100)).await;
    assert_eq!(health(addr, "").await.unwrap(), ServingStatus::NotServing as i32);
    assert_eq!(health(addr, "skat.v1.SkatService").await.unwrap(), ServingStatus::NotServing as i32);
    assert_eq!(
        health(addr, "liveness").await.unwrap(),
        ServingStatus::Serving as i32,
        "alive while draining"
    );
    client.get_table(pb::GetTableRequest { table_id: table.clone() }).await.unwrap();
    // Then the stream ends with UNAVAILABLE, telling the client how to resume.
    let end = within(5, stream.next()).await;
    match end {
        Some(Err(status)) => {
            assert_eq!(status.code(), tonic::Code::Unavailable);
            assert!(status.message().contains("after_seq"));
        }
        other => panic!("expected UNAVAILABLE, got {other:?}"),
    }
    // And the server stops.
    within(10, &mut server.server.task).await.unwrap().unwrap();
}
