//! AnalyzeTable from the outside: a table in play is refused, a finished one is queued,
//! computed once, the same as `skat analyze` computes from its JSON records, and kept in
//! the database across a restart; the queue is bounded.

mod common;

use std::time::Duration;

use common::*;
use serde_json::Value;
use skat_bots::analysis::Report;
use skat_bots::judge::JudgeConfig;
use skat_engine::DealRecord;
use skat_proto::pb::{self, ErrorReason as R};
use skat_sdk::SdkError;
use skat_server::{AnalysisConfig, Database, ServerConfig};
use tonic::Code;

/// Asks until the analysis is ready (or fails the test after a minute).
async fn ready(client: &mut Client, table: &str) -> pb::AnalyzeTableResponse {
    for _ in 0..600 {
        let r = client
            .analyze_table(pb::AnalyzeTableRequest { table_id: table.to_string() })
            .await
            .unwrap()
            .into_inner();
        if r.state == pb::AnalysisState::Ready as i32 {
            return r;
        }
        assert!(
            [pb::AnalysisState::Queued as i32, pb::AnalysisState::Running as i32].contains(&r.state),
            "{r:?}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("the analysis of {table} did not finish within a minute");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_finished_table_is_analysed_once_as_skat_analyze_would_and_kept() {
    let dir = std::env::temp_dir().join(format!("skat-analysis-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let analysis = AnalysisConfig { workers: 1, queue: 4, worlds: 4, nodes: 2_000_000 };
    let settings = ServerConfig { database: Database::Sqlite(dir.clone()), analysis, ..config() };
    let mut server = TestServer::start(settings.clone()).await;
    let mut client = server.client().await;
    let (table, tokens) = seated(&mut client, 3, 3, 11).await;

    // In play: refused, whatever the deal; nothing is queued.
    let e = client.analyze_table(pb::AnalyzeTableRequest { table_id: table.clone() }).await.unwrap_err();
    assert_eq!(e.code(), Code::FailedPrecondition);
    assert_eq!(SdkError::from(e).reason(), Some(R::TableInPlay));

    play_to_end(&mut client, &table, &tokens, 11).await;
    let first = ready(&mut client, &table).await;
    assert_eq!(first.deals.len(), 3);
    assert_eq!(first.worlds, 4);
    assert!(first.computed_ms > 0);

    // The same figures as `skat analyze` on the table's JSON records.
    let records = client
        .get_records(pb::GetRecordsRequest { table_id: table.clone(), format: pb::RecordFormat::Json as i32 })
        .await
        .unwrap()
        .into_inner()
        .records;
    let mut report = Report::new(JudgeConfig { worlds: 4, max_nodes: 2_000_000, seed: 0 });
    let mut judged = 0;
    for (text, deal) in records.iter().zip(&first.deals) {
        let value: Value = serde_json::from_str(text).unwrap();
        let record: DealRecord = serde_json::from_value(value.clone()).unwrap();
        let names = [0, 1, 2].map(|i| value["position_names"][i].as_str().unwrap().to_string());
        let expected = report.deal(&record, &format!("{table}.{}", record.number), &names);
        let served: Value = serde_json::from_str(deal).unwrap();
        assert_eq!(served, expected);
        judged += served["cards"].as_array().map_or(0, Vec::len);
    }
    assert!(judged > 0, "random players had card choices");
    let summary: Value = serde_json::from_str(&first.summary).unwrap();
    assert_eq!(summary, report.summary());

    // Kept in the database: after a restart it is ready at once, the same analysis.
    server.stop();
    drop(client);
    tokio::time::sleep(Duration::from_millis(300)).await;
    let again = TestServer::start(settings).await;
    let mut client = again.client().await;
    let r =
        client.analyze_table(pb::AnalyzeTableRequest { table_id: table.clone() }).await.unwrap().into_inner();
    assert_eq!(r.state, pb::AnalysisState::Ready as i32, "{r:?}");
    assert_eq!((r.computed_ms, &r.deals), (first.computed_ms, &first.deals));
    let _ = std::fs::remove_dir_all(&dir);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_queue_is_bounded_and_a_table_waits_in_it_once() {
    // Slow analyses (many worlds, a large budget), one worker, room for one waiting table.
    let analysis = AnalysisConfig { workers: 1, queue: 1, worlds: 64, nodes: 50_000_000 };
    let server = TestServer::start(ServerConfig { analysis, ..config() }).await;
    let mut client = server.client().await;
    let mut tables = Vec::new();
    for seed in 0..3 {
        let (table, tokens) = seated(&mut client, 3, 2, 20 + seed).await;
        play_to_end(&mut client, &table, &tokens, seed).await;
        tables.push(table);
    }
    let mut busy = 0;
    for table in &tables {
        for _ in 0..2 {
            // Asked twice: the second ask keeps the first's place.
            match client.analyze_table(pb::AnalyzeTableRequest { table_id: table.clone() }).await {
                Ok(r) => assert_ne!(r.into_inner().state, pb::AnalysisState::Unspecified as i32),
                Err(e) => {
                    assert_eq!(e.code(), Code::ResourceExhausted);
                    assert_eq!(SdkError::from(e).reason(), Some(R::AnalysisBusy));
                    busy += 1;
                }
            }
        }
    }
    // One runs, one waits: the third table (both asks) is refused; or, when the worker
    // had not yet taken the first, the second's too.
    assert!(busy == 2 || busy == 4, "one worker and a queue of one hold two tables: {busy} refused");
    let r = ready(&mut client, &tables[0]).await;
    assert_eq!(r.deals.len(), 2);
}

/// A server that shuts down while it analyses a table stops the analysis before its next
/// world: the runtime, which waits for blocking tasks when it is dropped, is not held up.
#[test]
fn a_running_analysis_does_not_hold_a_stopping_server() {
    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
    let mut server = runtime.block_on(async {
        // Slow on purpose: many worlds and a large budget per card, for 12 deals.
        let analysis = AnalysisConfig { workers: 1, queue: 4, worlds: 128, nodes: 200_000_000 };
        let server = TestServer::start(ServerConfig { analysis, ..config() }).await;
        let mut client = server.client().await;
        let (table, tokens) = seated(&mut client, 3, 12, 31).await;
        play_to_end(&mut client, &table, &tokens, 31).await;
        let mut running = false;
        for _ in 0..100 {
            let r = client.analyze_table(pb::AnalyzeTableRequest { table_id: table.clone() }).await.unwrap();
            running = r.into_inner().state == pb::AnalysisState::Running as i32;
            if running {
                break;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        assert!(running, "the analysis started");
        server
    });
    // As `skat serve` does: the server's task ends, then the runtime is dropped.
    server.stop();
    let stopped = std::time::Instant::now();
    runtime.block_on(async { (&mut server.server.task).await.unwrap().unwrap() });
    drop(runtime);
    assert!(
        stopped.elapsed() < Duration::from_secs(20),
        "the runtime waited {:?} for the analysis",
        stopped.elapsed()
    );
}
