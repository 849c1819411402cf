//! The journal on a PostgreSQL server that requires TLS, as a managed database does:
//! `skat serve --database postgres://...?sslmode=verify-full&sslrootcert=CA` connects over
//! TLS and checks the server's certificate against the CA (its tables survive a kill -9),
//! `sslmode=require` encrypts without checking, a wrong CA or `sslmode=disable` stops
//! the start with the reason.
//!
//! scripts/test-all gives the test PostgreSQL a certificate from `skat certs` and a role,
//! `skat_tls`, that pg_hba.conf lets in over TLS only; it sets `SKAT_TEST_POSTGRES_TLS`
//! (`postgres://skat_tls@127.0.0.1:PORT`) and `SKAT_TEST_POSTGRES_CA` (the CA file).

mod common;

use common::{ServerProcess, client, serve, skat};
use skat_proto::pb;

fn settings() -> Option<(String, String, String)> {
    let (Ok(tls), Ok(ca), Ok(admin)) = (
        std::env::var("SKAT_TEST_POSTGRES_TLS"),
        std::env::var("SKAT_TEST_POSTGRES_CA"),
        std::env::var("SKAT_TEST_POSTGRES"),
    ) else {
        assert!(
            std::env::var_os("SKAT_REQUIRE_POSTGRES").is_none(),
            "SKAT_REQUIRE_POSTGRES is set but SKAT_TEST_POSTGRES_TLS or SKAT_TEST_POSTGRES_CA is not"
        );
        eprintln!("SKAT_TEST_POSTGRES_TLS is not set: skipped (scripts/test-all runs it)");
        return None;
    };
    Some((tls, ca, admin))
}

/// A server on this database, once it listens.
fn serve_on(database: &str) -> ServerProcess {
    serve().args(["--database", database]).start()
}

/// `skat serve` with this database, expected to fail at start: what it said.
fn refused_start(database: &str) -> String {
    match serve().args(["--database", database]).try_start() {
        Ok(_) => panic!("the server started with {database}"),
        Err(said) => said,
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_journal_on_a_postgres_server_that_requires_tls() {
    let Some((tls, ca, admin)) = settings() else { return };
    sqlx::any::install_default_drivers();
    let name = format!("skat_tls_{}", std::process::id());
    let pool = sqlx::AnyPool::connect(&admin).await.unwrap();
    sqlx::query(&format!("DROP DATABASE IF EXISTS {name}")).execute(&pool).await.unwrap();
    sqlx::query(&format!("CREATE DATABASE {name}")).execute(&pool).await.unwrap();
    pool.close().await;
    let verified = format!("{tls}/{name}?sslmode=verify-full&sslrootcert={ca}");

    let server = serve_on(&verified);
    let port = server.port();
    let mut c = client(port).await;
    let table = c
        .create_table(pb::CreateTableRequest {
            seats: 3,
            deals: 1,
            name: "over tls".into(),
            ..Default::default()
        })
        .await
        .expect("a table, journaled over TLS")
        .into_inner()
        .table_id;
    // The server's own connections are encrypted: PostgreSQL says so.
    let check = sqlx::AnyPool::connect(&verified).await.expect("sqlx connects with verify-full");
    let (encrypted, plain): (i64, i64) = sqlx::query_as(
        "SELECT count(*) FILTER (WHERE s.ssl), count(*) FILTER (WHERE NOT s.ssl) \
         FROM pg_stat_ssl s JOIN pg_stat_activity a USING (pid) WHERE a.datname = $1",
    )
    .bind(&name)
    .fetch_one(&check)
    .await
    .unwrap();
    assert!(encrypted >= 2, "the server's pool and this check are encrypted ({encrypted})");
    assert_eq!(plain, 0, "no plain-text connection to the database");
    let (version,): (String,) =
        sqlx::query_as("SELECT version FROM pg_stat_ssl WHERE pid = pg_backend_pid()")
            .fetch_one(&check)
            .await
            .unwrap();
    assert!(version.starts_with("TLSv1."), "{version}");
    check.close().await;

    // kill -9 and a start with sslmode=require (encrypted, the certificate not checked):
    // the table is back.
    drop(server);
    let server = serve_on(&format!("{tls}/{name}?sslmode=require"));
    let port = server.port();
    let mut c = client(port).await;
    let view =
        c.get_table(pb::GetTableRequest { table_id: table.clone() }).await.expect("recovered").into_inner();
    assert_eq!(view.table.map(|t| t.name), Some("over tls".into()));

    // A CA that did not sign the server's certificate: verify-full refuses, and says why.
    let other = std::env::temp_dir().join(format!("skat-pg-other-ca-{}", std::process::id()));
    let out = skat().args(["certs", "--out"]).arg(&other).output().unwrap();
    assert!(out.status.success());
    let said = refused_start(&format!(
        "{tls}/{name}?sslmode=verify-full&sslrootcert={}",
        other.join("ca.pem").display()
    ));
    assert!(said.to_lowercase().contains("certificate"), "{said}");
    let _ = std::fs::remove_dir_all(&other);
    // Without TLS the server's pg_hba.conf lets this role in nowhere.
    let said = refused_start(&format!("{tls}/{name}?sslmode=disable"));
    assert!(said.contains("pg_hba.conf") || said.contains("encryption"), "{said}");
}
