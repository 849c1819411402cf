//! Scale-out: two `skat serve` processes on loopback, each owning its tables. Bots sent
//! to the wrong replica are redirected (NOT_FOUND + `skat-owner`) and the SDK follows.

use std::process::{Child, Stdio};
use std::time::Duration;

use skat_proto::pb;
use skat_proto::pb::skat_service_client::SkatServiceClient;

mod common;

use common::{ServerProcess, reserve_port, serve, skat};

/// Replica `node` on `port`, naming its `peers`.
fn replica(node: &str, port: u16, peers: &str) -> ServerProcess {
    serve().args(["--node-id", node, "--peer", peers, "--database", "memory"]).port(port).start()
}

async fn client(port: u16) -> SkatServiceClient<tonic::transport::Channel> {
    for _ in 0..200 {
        if let Ok(c) = SkatServiceClient::connect(format!("http://127.0.0.1:{port}")).await {
            return c;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("server on {port} did not start");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tables_live_on_one_replica_and_clients_are_redirected() {
    // Replicas name each other: their ports are known before either starts.
    let (pa, pb_) = (reserve_port(), reserve_port());
    let peers = format!("a=127.0.0.1:{pa},b=127.0.0.1:{pb_}");
    let _a = replica("a", pa, &peers);
    let _b = replica("b", pb_, &peers);
    let mut on_a = client(pa).await;
    let mut on_b = client(pb_).await;

    // A table created on b is named after b and says where it lives.
    let created = on_b
        .create_table(pb::CreateTableRequest { seats: 3, deals: 4, seed: Some(8), ..Default::default() })
        .await
        .unwrap()
        .into_inner();
    assert!(created.table_id.starts_with("b."), "{}", created.table_id);
    assert_eq!(created.owner_address, format!("127.0.0.1:{pb_}"));

    // Asking a about it: NOT_FOUND with the owner's address.
    let err = on_a.get_table(pb::GetTableRequest { table_id: created.table_id.clone() }).await.unwrap_err();
    assert_eq!(err.code(), tonic::Code::NotFound);
    assert_eq!(err.metadata().get("skat-owner").unwrap().to_str().unwrap(), format!("127.0.0.1:{pb_}"));
    assert!(err.message().contains("lives on server b"));
    // An unknown table of a's own is a plain NOT_FOUND.
    let err = on_a.get_table(pb::GetTableRequest { table_id: "a.000000000000".into() }).await.unwrap_err();
    assert_eq!(err.code(), tonic::Code::NotFound);
    assert!(err.metadata().get("skat-owner").is_none());

    // Three bots all sent to a play the whole list on b.
    let bots: Vec<Child> = ["heuristic", "random", "heuristic"]
        .iter()
        .map(|s| {
            skat()
                .args([
                    "bot",
                    "--strategy",
                    s,
                    "--server",
                    &format!("http://127.0.0.1:{pa}"),
                    "--table",
                    &created.table_id,
                ])
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .spawn()
                .unwrap()
        })
        .collect();
    for mut b in bots {
        let status = tokio::task::spawn_blocking(move || b.wait()).await.unwrap().unwrap();
        assert!(status.success());
    }
    let view = on_b
        .get_table(pb::GetTableRequest { table_id: created.table_id.clone() })
        .await
        .unwrap()
        .into_inner()
        .table
        .unwrap();
    assert_eq!(view.status, pb::TableStatus::Finished as i32);
    assert_eq!(view.deals_played, 4);
    // Each replica lists only its own tables.
    assert!(on_a.list_tables(pb::ListTablesRequest::default()).await.unwrap().into_inner().tables.is_empty());
    assert_eq!(
        on_b.list_tables(pb::ListTablesRequest::default()).await.unwrap().into_inner().tables.len(),
        1
    );

    // The arena, pointed at a, plays its tables where they were created.
    let out = skat()
        .args([
            "arena",
            "--server",
            &format!("http://127.0.0.1:{pa}"),
            "--deals",
            "3",
            "--no-records",
            "--json",
        ])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
}
