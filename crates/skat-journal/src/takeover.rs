//! Replicas: this replica's lease, and taking over the tables of one whose lease ran out.
//!
//! With `--node-id` and a database, a replica registers in `skat_nodes` on start (a new
//! epoch), and its lease is renewed by every journal commit and, when idle, every quarter
//! of its length (`--replica-lease`, 10 s by default). Every quarter, each replica also
//! looks for replicas whose lease ran out while they still own waiting or playing tables,
//! and takes those tables over: in one transaction it bumps the dead replica's epoch and
//! names itself their owner ([`Store::take_over`]), moving what the dead replica's hot
//! log still held under its tables' key in the same transaction, then rebuilds them from
//! the journal as a restart does ([`recovery::bring_back`]: the seat to move gets a fresh turn, clocks
//! go on from there) and tells the competitions, which watch them for results and hand
//! their lobby seats out again.
//!
//! | rule | why |
//! |---|---|
//! | the epoch fences, not the clock: every commit renews the lease of the epoch it holds in its own transaction | a replica that was only slow (a pause, a partition) and comes back writes nothing to a table it lost: its next commit fails and it stops (the journal's failure path), and clients find the new owner |
//! | a renewal that finds its epoch over stops the server at once | an idle replica learns it too, not only at its next commit |
//! | a database error while renewing is only logged | the database may be away for a moment; if it stays away past the lease, the epoch decides |
//! | one replica takes all of a dead replica's tables | the takeover is one conditional update: two replicas cannot split or share them |
//! | a replica's transactions left idle for half its lease are ended by PostgreSQL (`Store::open_replica`), and a takeover waits at most a quarter lease for a row lock | a replica frozen in the middle of a commit holds its lease's row lock: without the bound every other replica's takeover would wait for as long as it stays frozen (and stop renewing its own lease meanwhile) |
//! | a replica that stops cleanly gives its lease up | a rolling update's tables move on at the next look (a quarter lease), not after the whole lease |
//!
//! Takeover time: the lease's length plus up to a quarter of it (the next look) plus the
//! rebuild (about a millisecond per table of a few deals; BENCHMARKS.md, recovery).

use std::sync::Arc;
use std::time::{Duration, SystemTime};

use tokio::sync::{mpsc, watch};

use crate::Journal;
use crate::Metrics;
use crate::recovery::bring_back;
use skat_store::{NodeLease, Store, StoreError};
use skat_table::{TableId, Tables, Tasks, unix_ms};

/// What a replica needs to take tables over.
#[derive(Debug)]
pub struct Takeover {
    /// This replica's journal (its lease).
    pub journal: Journal,
    /// The tables held here, where taken tables go.
    pub tables: Arc<Tables>,
    /// The most tables held (taken tables may exceed it rather than be lost).
    pub max_tables: usize,
    /// How long an ended table stays in memory.
    pub expiry: Duration,
    /// What it counts.
    pub metrics: Metrics,
    /// Told the ids of every batch of tables taken over.
    pub adopted: mpsc::UnboundedSender<Vec<TableId>>,
}

/// Registers `node` in the database with a new epoch: the lease a journal commits under.
pub async fn register(store: &Store, node: &str, length: Duration) -> Result<NodeLease, StoreError> {
    let now = now_ms();
    store.nodes.register_node(node, now, now.saturating_add(length.as_millis() as i64)).await
}

/// Gives this replica's lease up (after a clean shutdown): live replicas take its
/// unfinished tables over at their next look. A commit after this (none is expected)
/// would renew the lease again; one after a takeover is fenced as always.
pub async fn release(journal: &Journal) {
    let (Some((lease, _)), Some(store)) = (journal.lease(), journal.store()) else { return };
    if journal.failed() {
        return;
    }
    match store.nodes.renew_lease(lease, 0).await {
        Ok(()) => tracing::info!(node = %lease.node, "gave this replica's lease up"),
        Err(e) => tracing::warn!(error = %e, "could not give this replica's lease up; it runs out by itself"),
    }
}

fn now_ms() -> i64 {
    i64::try_from(unix_ms(SystemTime::now())).unwrap_or(i64::MAX)
}

impl Takeover {
    /// Renews the lease and takes over lapsed replicas' tables until `stop` (see the
    /// module header). Nothing to do on a single server.
    pub fn follow(self, mut stop: watch::Receiver<bool>, tasks: &Tasks) {
        let (Some((lease, length)), Some(store)) =
            (self.journal.lease().cloned(), self.journal.store().cloned())
        else {
            return;
        };
        tasks.spawn(async move {
            loop {
                tokio::select! {
                    _ = tokio::time::sleep(length / 4) => {}
                    _ = stop.wait_for(|s| *s) => return,
                }
                let now = now_ms();
                let until = now.saturating_add(length.as_millis() as i64);
                match store.nodes.renew_lease(&lease, until).await {
                    Ok(()) => {}
                    Err(e @ StoreError::Fenced { .. }) => return self.journal.fail(&e),
                    Err(e) => {
                        tracing::warn!(error = %e, "could not renew this replica's lease; trying again");
                        continue;
                    }
                }
                let lapsed = match store.nodes.lapsed_owners(&lease.node, now).await {
                    Ok(l) => l,
                    Err(e) => {
                        tracing::warn!(error = %e, "could not look for replicas whose lease ran out");
                        continue;
                    }
                };
                for dead in lapsed {
                    match store.nodes.take_over(&dead, &lease, now, until).await {
                        Ok(ids) if ids.is_empty() => {}
                        Ok(ids) => self.adopt(&store, &dead, ids).await,
                        Err(e @ StoreError::Fenced { .. }) => return self.journal.fail(&e),
                        Err(e) => tracing::warn!(error = %e, from = %dead, "a takeover failed; trying again"),
                    }
                }
            }
        });
    }

    /// Brings the tables taken over from `dead` into memory and tells the competitions.
    async fn adopt(&self, store: &Store, dead: &str, ids: Vec<String>) {
        let started = std::time::Instant::now();
        let mut rows = Vec::with_capacity(ids.len());
        for id in &ids {
            // The row is there: the takeover just updated it. A read that fails leaves
            // the table in the database under this replica's name, and a restart of
            // this replica brings it back.
            match store.tables.row(id).await {
                Ok(Some(row)) => rows.push(row),
                Ok(None) => {}
                Err(e) => tracing::error!(error = %e, table = %id, "could not read a table taken over"),
            }
        }
        match bring_back(&self.journal, &self.tables, rows, self.max_tables, self.expiry, &self.metrics).await
        {
            Ok(done) => {
                self.metrics.taken_over(ids.len() as u64);
                tracing::warn!(
                    from = %dead, tables = done.tables, abandoned = done.abandoned, entries = done.entries,
                    took_ms = started.elapsed().as_millis() as u64,
                    "took over the tables of a replica whose lease ran out"
                );
            }
            Err(e) => tracing::error!(error = %e, from = %dead, "could not rebuild tables taken over"),
        }
        let _ = self.adopted.send(ids.iter().filter_map(|id| id.parse().ok()).collect());
    }
}
