//! Bringing tables back from the journal: on start (every table this replica owns that
//! is waiting, playing, or finished within its expiry), and on demand to read a table
//! that has left memory (records and replays of finished tables, from any replica).
//!
//! An entry is used only if it is intact (its checksum), next in number, and decodes;
//! the first one that is not ends the table's journal there: the intact prefix is the
//! table, the rest is dropped from the database and named in the log. Nothing after a
//! damaged entry can have been acknowledged as durable without it, since a table's
//! entries commit in order.

use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime};

use crate::Metrics;
use crate::{Journal, table_row};
use skat_store::{RowStatus, StoreError, StoredEntry, TableRow};
use skat_table::{JournalEntry, Table, TableHandle, TableId, Tables, unix_ms};

/// A table rebuilt from its entries.
#[derive(Debug)]
pub struct Rebuilt {
    /// The table (None: not even its creation is readable).
    pub table: Option<Table>,
    /// Entries that were used.
    pub applied: usize,
    /// The first entry not used, and why.
    pub damaged: Option<(u64, String)>,
}

/// Rebuilds a table from its stored entries (see the module header).
pub fn rebuild(id: &TableId, stored: &[StoredEntry], now: Instant) -> Rebuilt {
    let mut decoded = Vec::with_capacity(stored.len());
    let mut damaged = None;
    for (i, e) in stored.iter().enumerate() {
        let why = if e.n != i as u64 {
            Some(format!("entry {i} is missing"))
        } else if !e.intact() {
            Some("its checksum does not match (torn or altered)".to_string())
        } else {
            match serde_json::from_str(&e.body) {
                Ok(input) => {
                    decoded.push(JournalEntry { n: e.n, at_ms: e.at_ms, input });
                    None
                }
                Err(err) => Some(format!("it does not decode ({err})")),
            }
        };
        if let Some(why) = why {
            damaged = Some((i as u64, why));
            break;
        }
    }
    match Table::replay(id.clone(), decoded, now) {
        Ok((table, applied)) => {
            if damaged.is_none() && applied < stored.len() {
                damaged = Some((applied as u64, "it does not follow from the table's state".to_string()));
            }
            Rebuilt { table: Some(table), applied, damaged }
        }
        Err(_) => Rebuilt {
            table: None,
            applied: 0,
            damaged: Some((0, damaged.map_or("the table's creation is unreadable".into(), |d| d.1))),
        },
    }
}

/// What a start recovered.
#[derive(Debug, Default, Clone, Copy)]
pub struct Recovered {
    /// Tables back in memory.
    pub tables: usize,
    /// Entries replayed.
    pub entries: usize,
    /// Entries dropped as damaged.
    pub dropped: usize,
    /// Tables found idle past their expiry and marked abandoned.
    pub abandoned: usize,
    /// How long it took.
    pub took: Duration,
}

/// Brings back every table this replica owns that is still live (see the module header).
pub async fn recover(
    journal: &Journal,
    tables: &Tables,
    max_tables: usize,
    expiry: Duration,
    metrics: &Metrics,
) -> Result<Recovered, StoreError> {
    let Some(store) = journal.store() else { return Ok(Recovered::default()) };
    // What the hot log still holds goes under its tables' key first: the reads below are
    // then by key, not a scan of the log per table.
    let moved = store.log.settle_log(journal.owner()).await?;
    if moved > 0 {
        tracing::info!(entries = moved, "moved the journal's hot log under its tables");
    }
    let since = unix_ms(SystemTime::now()).saturating_sub(expiry.as_millis() as u64);
    let rows = store.tables.tables_to_recover(journal.owner(), since).await?;
    if !rows.is_empty() {
        tracing::info!(tables = rows.len(), "recovering tables from the journal");
    }
    bring_back(journal, tables, rows, max_tables, expiry, metrics).await
}

/// Rebuilds the tables of `rows` from their entries and puts them in memory (on start,
/// and when this replica takes a dead one's tables over); those idle past `expiry` are
/// marked abandoned instead.
pub async fn bring_back(
    journal: &Journal,
    tables: &Tables,
    rows: Vec<TableRow>,
    max_tables: usize,
    expiry: Duration,
    metrics: &Metrics,
) -> Result<Recovered, StoreError> {
    let Some(store) = journal.store() else { return Ok(Recovered::default()) };
    let started = Instant::now();
    let wall = SystemTime::now();
    let mut done = Recovered::default();
    let mut abandoned_rows = Vec::new();
    for row in rows {
        let Ok(id) = row.table_id.parse::<TableId>() else {
            tracing::warn!(table = %row.table_id, "a journal row names no valid table id: skipped");
            continue;
        };
        let stored = store.tables.entries(&row.table_id).await?;
        let now = Instant::now();
        let rebuilt = rebuild(&id, &stored, now);
        if let Some((n, why)) = &rebuilt.damaged {
            let dropped = store.tables.drop_entries_from(&row.table_id, *n).await?;
            done.dropped += dropped as usize;
            tracing::warn!(
                table = %id, first_dropped = n, dropped, reason = %why,
                "the journal's tail of this table is damaged: recovered the intact prefix, dropped the rest"
            );
        }
        let Some(mut table) = rebuilt.table else {
            let mut row = row.clone();
            row.status = RowStatus::Abandoned;
            row.finished_ms = unix_ms(wall);
            abandoned_rows.push(row);
            done.abandoned += 1;
            continue;
        };
        done.entries += rebuilt.applied;
        let idle = Duration::from_millis(unix_ms(wall).saturating_sub(table.last_change_ms()));
        if !table.is_finished() && idle >= expiry {
            let mut row = table_row(&table, journal.owner());
            row.status = RowStatus::Abandoned;
            row.finished_ms = unix_ms(wall);
            abandoned_rows.push(row);
            done.abandoned += 1;
            continue;
        }
        table.resume(Instant::now(), SystemTime::now());
        // The listing row as the journal has it now (a dropped tail may change it).
        let fresh = table_row(&table, journal.owner());
        if fresh != row {
            let pending = journal.submit_rows(vec![fresh]);
            pending.wait().await.map_err(|e| StoreError::Setting(e.to_string()))?;
        }
        table.mark_listed();
        if tables.insert(table, max_tables.max(tables.len() + 1), None, metrics.tables(), journal).is_none() {
            continue;
        }
        done.tables += 1;
    }
    let pending = journal.submit_rows(abandoned_rows);
    pending.wait().await.map_err(|e| StoreError::Setting(e.to_string()))?;
    done.took = started.elapsed();
    metrics.tables().tables_held(tables.len());
    Ok(done)
}

/// A finished or abandoned table (or, for records, any table) read back from the
/// journal, from whichever replica wrote it.
pub async fn archived(journal: &Journal, id: &TableId) -> Result<Option<Arc<TableHandle>>, StoreError> {
    let Some(store) = journal.store() else { return Ok(None) };
    let stored = store.tables.entries(&id.to_string()).await?;
    if stored.is_empty() {
        return Ok(None);
    }
    let rebuilt = rebuild(id, &stored, Instant::now());
    Ok(rebuilt.table.map(TableHandle::archived))
}
