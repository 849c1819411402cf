//! How tables leave: from memory when they expire, from the database when their
//! retention ends.
//!
//! | rule | why |
//! |---|---|
//! | a table finished (or idle, with no clock to end it) for `--table-expiry` leaves memory | memory is bounded by the live tables; the journal still has it for replays and records |
//! | an unfinished table that expires is marked abandoned in the database | listings show what became of it |
//! | finished and abandoned tables are deleted from the database `--retention` after they ended (never without the flag) | the database is bounded when the operator wants it to be |
//! | the database's size is published every 30 s (`skat_database_bytes`) | an operator (and the soak test) can see that it is |

use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime};

use tokio::sync::watch;

use super::{Journal, table_row};
use crate::Metrics;
use skat_store::{RowStatus, TableRow};
use skat_table::{Tables, Tasks, unix_ms};

/// Expires tables every quarter of `expiry` (between 50 ms and 30 s) until `stop`.
pub fn expire_tables(
    tables: Arc<Tables>,
    journal: Journal,
    metrics: Metrics,
    expiry: Duration,
    mut stop: watch::Receiver<bool>,
    tasks: &Tasks,
) {
    tasks.spawn(async move {
        let every = (expiry / 4).clamp(Duration::from_millis(50), Duration::from_secs(30));
        loop {
            tokio::select! {
                _ = tokio::time::sleep(every) => {}
                _ = stop.wait_for(|s| *s) => return,
            }
            let dropped = tables.expire(Instant::now(), expiry);
            if !dropped.is_empty() {
                tracing::info!(dropped = dropped.len(), "expired tables dropped");
            }
            let abandoned: Vec<TableRow> = dropped
                .iter()
                .filter_map(|h| {
                    let t = h.lock();
                    (!t.is_finished()).then(|| {
                        let mut row = table_row(&t, journal.owner());
                        row.status = RowStatus::Abandoned;
                        row.finished_ms = unix_ms(SystemTime::now());
                        row
                    })
                })
                .collect();
            if journal.submit_rows(abandoned).wait().await.is_err() {
                return;
            }
            metrics.tables().tables_held(tables.len());
        }
    });
}

/// Deletes the records of tables that ended more than `retention` ago, every tenth of
/// it (between 1 s and an hour), until `stop`.
pub fn purge_records(journal: &Journal, retention: Duration, mut stop: watch::Receiver<bool>, tasks: &Tasks) {
    let Some(store) = journal.store().cloned() else { return };
    tasks.spawn(async move {
        let every = (retention / 10).clamp(Duration::from_secs(1), Duration::from_secs(3600));
        loop {
            let before = unix_ms(SystemTime::now()).saturating_sub(retention.as_millis() as u64);
            match store.tables.purge_ended_before(before).await {
                Ok(0) => {}
                Ok(n) => tracing::info!(tables = n, "records past the retention time deleted"),
                Err(e) => tracing::warn!(error = %e, "could not delete records past the retention time"),
            }
            tokio::select! {
                _ = tokio::time::sleep(every) => {}
                _ = stop.wait_for(|s| *s) => return,
            }
        }
    });
}

/// Publishes the database's size every 30 s until `stop` (nothing without a database).
pub fn watch_size(journal: &Journal, metrics: Metrics, mut stop: watch::Receiver<bool>, tasks: &Tasks) {
    let Some(store) = journal.store().cloned() else { return };
    tasks.spawn(async move {
        loop {
            match store.size_bytes().await {
                Ok(bytes) => {
                    metrics.database_bytes(bytes);
                }
                Err(e) => tracing::debug!(error = %e, "database size not read"),
            }
            tokio::select! {
                _ = tokio::time::sleep(Duration::from_secs(30)) => {}
                _ = stop.wait_for(|s| *s) => return,
            }
        }
    });
}
