//! How long a start takes to bring tables back from the journal: 1,000 tables of 36
//! finished deals each (random legal moves, every input journaled as the server would),
//! written to a fresh SQLite database (and to PostgreSQL when `SKAT_BENCH_POSTGRES` names
//! an empty database), then recovered by the server's own start-up path.
//!
//!     cargo bench -p skat-server --bench recovery
//!     SKAT_BENCH_TABLES=200 cargo bench -p skat-server --bench recovery

use std::time::{Duration, Instant, SystemTime};

use skat_engine::MatchConfig;
use skat_engine::random::RandomPlayer;
use skat_server::Metrics;
use skat_server::bench::{
    Journal, Store, Table, TableConfig, TableId, Tables, TokenHash, recover, stored, table_row,
};

fn played(seed: u64) -> Table {
    let now = Instant::now();
    let config = TableConfig {
        name: format!("recovery {seed}"),
        game: MatchConfig::standard(3, seed),
        action_ms: 30_000,
        deal_ms: 0,
        between_deals_ms: 0,
        join_code: None,
        max_joins: 64,
        tournament: false,
    };
    let id = TableId::new(None, seed + 1);
    let mut t = Table::new(id, config, now, SystemTime::now()).expect("valid");
    for i in 0..3 {
        let token = TokenHash::of(&format!("{seed}-{i}"));
        t.join(&format!("player {i}"), None, "", token, now).expect("a seat");
    }
    let mut player = RandomPlayer::new(seed);
    while !t.is_finished() {
        let seat = t.seat_to_move().expect("to move");
        let legal = t.legal_actions(seat);
        let action = player.choose_from(&legal).expect("a move");
        t.act(seat, action, None, now).expect("legal");
    }
    t
}

async fn run(store: Store, what: &str, count: u64) {
    let started = Instant::now();
    let mut entries = 0usize;
    let mut batch = Vec::new();
    let mut rows = Vec::new();
    for seed in 0..count {
        let mut t = played(seed);
        let inputs = t.take_inputs();
        entries += inputs.len();
        let id = t.id().to_string();
        batch.extend(inputs.into_iter().map(|e| stored(&id, e)));
        rows.push(table_row(&t, ""));
        if batch.len() > 20_000 || seed + 1 == count {
            store.tables.write(&batch, &rows).await.expect("written");
            batch.clear();
            rows.clear();
        }
    }
    println!(
        "{what}: wrote {count} tables, {entries} journal entries in {:.1} s",
        started.elapsed().as_secs_f64()
    );

    let (failure, _) = tokio::sync::watch::channel(false);
    let journal = Journal::start(
        store,
        None,
        Metrics::new().journal(),
        failure,
        std::time::Duration::ZERO,
        &Default::default(),
    );
    let tables = Tables::default();
    let metrics = Metrics::new();
    let recovered = recover(&journal, &tables, 100_000, Duration::from_secs(3600), &metrics.journal())
        .await
        .expect("recovered");
    assert_eq!(recovered.tables as u64, count);
    println!(
        "{what}: recovered {} tables ({} entries) in {:.2} s: {:.0} entries/s, {:.2} ms per table",
        recovered.tables,
        recovered.entries,
        recovered.took.as_secs_f64(),
        recovered.entries as f64 / recovered.took.as_secs_f64(),
        recovered.took.as_secs_f64() * 1000.0 / recovered.tables as f64
    );
}

fn main() {
    let count: u64 = std::env::var("SKAT_BENCH_TABLES").ok().and_then(|s| s.parse().ok()).unwrap_or(1000);
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build().expect("runtime");
    runtime.block_on(async {
        let dir = std::env::temp_dir().join(format!("skat-recovery-bench-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let store = Store::open_dir(&dir).await.expect("sqlite");
        run(store, "sqlite", count).await;
        let _ = std::fs::remove_dir_all(&dir);
        if let Ok(url) = std::env::var("SKAT_BENCH_POSTGRES") {
            let store = Store::open(&url).await.expect("postgres");
            run(store, "postgres", count).await;
        }
    });
}
