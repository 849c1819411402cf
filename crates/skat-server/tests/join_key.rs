//! A seat that survives a client crash (issue 51): a JoinTable retried with its
//! `join_key` gets the same seat and a new token (the old one stops working), also after
//! the server restarted; the same key under another name is refused; a key that is not
//! one is refused; a seat that was left forgets its key.

mod common;

use common::*;
use skat_proto::pb;
use skat_proto::pb::ErrorReason as R;
use skat_server::{Database, ServerConfig};
use tonic::Code;

const KEY: &str = "6f1c2a4e-0b7d-4c55-9a0e-3d2f8b1e7c90";

fn reason(s: &tonic::Status) -> Option<R> {
    skat_proto::convert::status_reason(s)
}

async fn join_keyed(
    c: &mut Client,
    table: &str,
    name: &str,
    key: &str,
) -> Result<pb::JoinTableResponse, tonic::Status> {
    c.join_table(pb::JoinTableRequest {
        table_id: table.into(),
        name: name.into(),
        join_key: key.into(),
        ..Default::default()
    })
    .await
    .map(tonic::Response::into_inner)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_retried_join_gets_its_seat_back_even_after_a_restart() {
    let dir = std::env::temp_dir().join(format!("skat-join-key-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let settings = || ServerConfig { database: Database::Sqlite(dir.clone()), ..config() };
    let mut s = TestServer::start(settings()).await;
    let mut c = s.client().await;
    let table = create(&mut c, 3, 2, 7).await;
    join(&mut c, &table, "first").await;
    let took = join_keyed(&mut c, &table, "crashy", KEY).await.unwrap();
    assert_eq!((took.seat, took.rejoined), (1, false));
    // The answer was lost (a crash): the retry gets the same seat, with a new token.
    let again = join_keyed(&mut c, &table, "crashy", KEY).await.unwrap();
    assert_eq!((again.seat, again.rejoined), (1, true));
    assert_ne!(again.token, took.token);
    assert_eq!(view(&mut c, &table, Some(&again.token)).await.your_seat, Some(1));
    let old =
        c.get_table(authed(pb::GetTableRequest { table_id: table.clone() }, &took.token)).await.unwrap_err();
    assert_eq!(reason(&old), Some(R::NotSeated), "the old token stopped working: {old:?}");
    // Nothing more was seated: seat 2 is still open.
    let v = view(&mut c, &table, None).await;
    assert_eq!(v.seat_info.iter().filter(|s| s.occupied).count(), 2);
    // The same key under another name: somebody else's key, refused.
    let stolen = join_keyed(&mut c, &table, "thief", KEY).await.unwrap_err();
    assert_eq!((stolen.code(), reason(&stolen)), (Code::PermissionDenied, Some(R::JoinKeyTaken)));
    // A key that is not one.
    for bad in ["short", "with a space in it, long enough", &"x".repeat(129)] {
        let refused = join_keyed(&mut c, &table, "crashy", bad).await.unwrap_err();
        assert_eq!(
            (refused.code(), reason(&refused)),
            (Code::InvalidArgument, Some(R::InvalidJoinKey)),
            "{bad}"
        );
    }
    join(&mut c, &table, "third").await;

    // After a restart (the table comes back from its journal) the key still works.
    s.stop();
    drop(s);
    let s = TestServer::start(settings()).await;
    let mut c = s.client().await;
    let after = join_keyed(&mut c, &table, "crashy", KEY).await.unwrap();
    assert_eq!((after.seat, after.rejoined), (1, true));
    assert_eq!(view(&mut c, &table, Some(&after.token)).await.your_seat, Some(1));

    // A seat that was left forgets its key: the next JoinTable with it takes a seat anew.
    let t2 = create(&mut c, 3, 1, 8).await;
    let a = join_keyed(&mut c, &t2, "leaver", KEY).await.unwrap();
    c.leave_table(authed(pb::LeaveTableRequest { table_id: t2.clone() }, &a.token)).await.unwrap();
    let b = join_keyed(&mut c, &t2, "someone", KEY).await.unwrap();
    assert!(!b.rejoined);
    let _ = std::fs::remove_dir_all(&dir);
}
