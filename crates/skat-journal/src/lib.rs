//! # skat-journal
//!
//! The journal: what makes an OK a promise.
//!
//! Every change to a table is handed to the journal, in the table's order, while the
//! table is locked ([`Journal::submit`]); the call that caused it waits for the
//! returned [`Durable`] before it answers, and only then is the change published to the
//! table's watchers. One writer task takes everything submitted while the previous
//! commit was on its way to the disk and writes it in one transaction: the tables of a
//! busy server share their commits (group commit), so durability costs one fsync per
//! batch rather than one per action.
//!
//! | rule | why |
//! |---|---|
//! | submit under the table's lock | the journal's order is the table's order |
//! | answer after the commit | an OK is a promise: what was acknowledged survives `kill -9` |
//! | publish after the commit | no watcher sees an event that a crash could take back |
//! | a failed commit stops the server | memory is then ahead of the disk; a restart rebuilds from the journal, so nothing unpromised is ever served |
//!
//! With `--database memory` there is no writer: every change is durable at once.
//!
//! | concern | where |
//! |---|---|
//! | the writer: group commit, an OK only once durable | this file |
//! | a table's inputs and listing as database rows | [`rows`] |
//! | the hot log: inputs appended in commit order, moved under their table's key a few seconds later | [`hotlog`] |
//! | tables back from the journal: on start, and to read ended tables | [`recovery`] |
//! | listings, from the database or (without one) from memory | [`listing`] |
//! | replicas: this one's lease, and taking a dead one's tables over | [`takeover`] |
//! | tables leaving memory (expiry) and the database (retention) | [`expiry`] |

pub mod expiry;
mod hotlog;
pub mod listing;
mod metrics;
pub mod recovery;
pub mod rows;
pub mod takeover;

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use tokio::sync::{mpsc, oneshot, watch};

use hotlog::HotLog;
use skat_store::{Batch, NodeLease, Store, StoreError, StoredEntry, TableRow};
use skat_table::{Durability, Durable, Table, Tasks};

pub use metrics::{JournalMetrics, Metrics};
pub use rows::table_row;

/// Most entries written in one commit (more wait for the next one).
pub const MAX_BATCH_ENTRIES: usize = 4096;

struct Commit {
    entries: Vec<StoredEntry>,
    rows: Vec<TableRow>,
    done: oneshot::Sender<bool>,
}

/// Where tables are journaled: a database with its writer, or nowhere (`memory`).
#[derive(Debug, Clone)]
pub struct Journal {
    inner: Option<Arc<Writer>>,
    owner: String,
}

#[derive(Debug)]
struct Writer {
    tx: mpsc::UnboundedSender<Commit>,
    store: Store,
    failed: Arc<AtomicBool>,
    failure: Arc<watch::Sender<bool>>,
    lease: Option<(NodeLease, Duration)>,
}

impl std::fmt::Debug for Commit {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Commit({} entries, {} rows)", self.entries.len(), self.rows.len())
    }
}

impl Journal {
    /// No journal: tables live in memory only.
    pub fn memory() -> Journal {
        Journal { inner: None, owner: String::new() }
    }

    /// A journal on `store`, written by a task that runs until every handle is gone.
    /// `lease`: with replicas, this replica's registration and the length of its lease,
    /// which every commit renews (and without which it writes nothing: [`takeover`]);
    /// `None` on a single server. When a commit fails, `failure` is set to true (the
    /// server then stops: see the module header). `gather`: under load (the last commit
    /// carried more than one change), how long the writer waits for more changes before
    /// it commits (0: never waits).
    pub fn start(
        store: Store,
        lease: Option<(NodeLease, Duration)>,
        metrics: Metrics,
        failure: watch::Sender<bool>,
        gather: Duration,
        tasks: &Tasks,
    ) -> Journal {
        let (tx, rx) = mpsc::unbounded_channel();
        let failed = Arc::new(AtomicBool::new(false));
        let failure = Arc::new(failure);
        let owner = lease.as_ref().map(|(l, _)| l.node.clone()).unwrap_or_default();
        let writer = Arc::new(Writer {
            tx,
            store: store.clone(),
            failed: Arc::clone(&failed),
            failure: Arc::clone(&failure),
            lease: lease.clone(),
        });
        tasks.spawn(write_loop(store, lease, rx, failed, metrics, failure, gather));
        Journal { inner: Some(writer), owner }
    }

    /// This replica's lease and its length (`None`: a single server, or no database).
    pub fn lease(&self) -> Option<&(NodeLease, Duration)> {
        self.inner.as_ref().and_then(|w| w.lease.as_ref())
    }

    /// Whether the journal stopped for good (a failed commit, a lost lease).
    pub fn failed(&self) -> bool {
        self.inner.as_ref().is_some_and(|w| w.failed.load(Ordering::Acquire))
    }

    /// Stops the journal for good (nothing more is written, every later change fails)
    /// and tells the server to stop: for a replica that learns it lost its lease.
    pub fn fail(&self, why: &StoreError) {
        if let Some(w) = &self.inner {
            tracing::error!(error = %why, "the journal can write no more: stopping the server");
            w.failed.store(true, Ordering::Release);
            let _ = w.failure.send(true);
        }
    }

    /// The database, if there is one.
    pub fn store(&self) -> Option<&Store> {
        self.inner.as_ref().map(|w| &w.store)
    }

    /// This replica's name in the database.
    pub fn owner(&self) -> &str {
        &self.owner
    }

    /// Writes rows alone (a table dropped unfinished is marked abandoned).
    pub fn submit_rows(&self, rows: Vec<TableRow>) -> Durable {
        match &self.inner {
            Some(writer) if !rows.is_empty() => writer.send(Vec::new(), rows),
            _ => Durable::now(),
        }
    }
}

impl Durability for Journal {
    /// Hands the table's new inputs (and its listing row, when that changed) to the
    /// writer. Called with the table locked, after every change.
    fn submit(&self, table: &mut Table) -> Durable {
        let entries = table.take_inputs();
        let Some(writer) = &self.inner else { return Durable::now() };
        let row_changed = !table.listed_is_current();
        if entries.is_empty() && !row_changed {
            return Durable::now();
        }
        let id = table.id().to_string();
        let entries = entries.into_iter().map(|e| rows::stored(&id, e)).collect();
        let rows = if row_changed {
            let row = table_row(table, &self.owner);
            table.mark_listed();
            vec![row]
        } else {
            Vec::new()
        };
        writer.send(entries, rows)
    }
}

impl Writer {
    fn send(&self, entries: Vec<StoredEntry>, rows: Vec<TableRow>) -> Durable {
        let (done, rx) = oneshot::channel();
        if self.failed.load(Ordering::Acquire) || self.tx.send(Commit { entries, rows, done }).is_err() {
            return Durable::failed();
        }
        Durable::when(rx)
    }
}

async fn write_loop(
    store: Store,
    lease: Option<(NodeLease, Duration)>,
    mut rx: mpsc::UnboundedReceiver<Commit>,
    failed: Arc<AtomicBool>,
    metrics: Metrics,
    failure: Arc<watch::Sender<bool>>,
    gather: Duration,
) {
    let stop = |why: String| {
        tracing::error!(error = %why, "stopping the server");
        failed.store(true, Ordering::Release);
        let _ = failure.send(true);
    };
    let mut writer = match open_writer(&store, lease.clone()).await {
        Ok(w) => Some(w),
        Err(e) => {
            stop(format!("the journal has no database connection: {e}"));
            None
        }
    };
    let mut batch: Vec<Commit> = Vec::new();
    let mut entries: Vec<StoredEntry> = Vec::new();
    let mut rows: Vec<TableRow> = Vec::new();
    let mut busy = false;
    loop {
        let waiting = writer.as_ref().is_some_and(|(_, log)| log.has_work());
        let Some(idle) = next_batch(&mut rx, waiting, busy, gather, &mut batch).await else { break };
        busy = batch.len() > 1;
        for c in &mut batch {
            entries.append(&mut c.entries);
            rows.append(&mut c.rows);
        }
        let ok = match writer.as_mut() {
            None => false,
            Some(_) if failed.load(Ordering::Acquire) => false,
            Some((w, log)) => match commit(w, log, &mut entries, &rows, idle, &metrics).await {
                Ok(()) => true,
                Err(e) => {
                    let e = why_not_committed(&store, lease.as_ref().map(|(l, _)| l), e).await;
                    stop(format!("the journal could not commit {} entries: {e}", entries.len()));
                    false
                }
            },
        };
        for c in batch.drain(..) {
            let _ = c.done.send(ok);
        }
        entries.clear();
        rows.clear();
    }
}

/// Waits for the next commits into `batch`: `Some(idle)` (idle: none came, but the hot
/// log has work to move), or `None` when every `Journal` (and so every sender) is gone.
async fn next_batch(
    rx: &mut mpsc::UnboundedReceiver<Commit>,
    waiting: bool,
    busy: bool,
    gather: Duration,
    batch: &mut Vec<Commit>,
) -> Option<bool> {
    // With a log to move, an idle writer wakes to move it.
    let first = if waiting {
        match tokio::time::timeout(hotlog::IDLE_MOVE_AFTER, rx.recv()).await {
            Ok(Some(c)) => Some(c),
            Ok(None) => return None,
            Err(_) => None,
        }
    } else {
        Some(rx.recv().await?)
    };
    let Some(first) = first else { return Some(true) };
    batch.push(first);
    if busy && !gather.is_zero() {
        // Under load, a moment's wait lets one commit (its fsync, its hand-offs to the
        // database's thread and back) make more changes durable: less CPU per change for a
        // little latency. Every OK still waits for its commit.
        tokio::time::sleep(gather).await;
    }
    while entries_in(batch) < MAX_BATCH_ENTRIES {
        match rx.try_recv() {
            Ok(c) => batch.push(c),
            Err(_) => break,
        }
    }
    Some(false)
}

/// One commit: the batch's entries into the hot log, the log's moves and forgetting as
/// planned, the tables' rows; metrics follow.
async fn commit(
    w: &mut skat_store::Writer,
    log: &mut HotLog,
    entries: &mut Vec<StoredEntry>,
    rows: &[TableRow],
    idle: bool,
    metrics: &Metrics,
) -> Result<(), StoreError> {
    let now = std::time::Instant::now();
    let plan = log.plan(now, idle);
    let moves = log.moves(&plan);
    let parts = Batch {
        log: &*entries,
        first_seq: plan.first_seq,
        moves: &moves,
        forget_upto: plan.forget_upto,
        rows,
    };
    let empty = parts.is_empty();
    if !empty {
        w.write(&parts).await?;
        metrics.committed();
    }
    metrics.entries(entries.len() as u64);
    log.committed(&plan, entries, now);
    metrics.hot_log(log.len());
    Ok(())
}

/// The writer's connection and its view of the hot log (numbered past every row there).
async fn open_writer(
    store: &Store,
    lease: Option<(NodeLease, Duration)>,
) -> Result<(skat_store::Writer, HotLog), StoreError> {
    let writer = store.writer(lease).await?;
    Ok((writer, HotLog::new(store.log.log_next_seq().await?)))
}

/// A replica's commit that failed for another reason than its fence (its connection was
/// ended, say, because the process was frozen mid-commit past half its lease) is told as
/// the lost lease when that is what happened meanwhile: the operator's log says why.
async fn why_not_committed(store: &Store, lease: Option<&NodeLease>, e: StoreError) -> StoreError {
    match lease {
        Some(lease) if !matches!(e, StoreError::Fenced { .. }) => match store.nodes.holds(lease).await {
            Ok(false) => skat_store::nodes::fenced(lease),
            _ => e,
        },
        _ => e,
    }
}

fn entries_in(batch: &[Commit]) -> usize {
    batch.iter().map(|c| c.entries.len()).sum()
}
