//! What the journal counts, for the server's metrics: the journal knows no Prometheus.

use std::sync::Arc;

/// What the journal and its background work count (the server keeps them).
pub trait JournalMetrics: std::fmt::Debug + Send + Sync + 'static {
    /// A commit reached the disk (one fsync of the database's log).
    fn committed(&self);
    /// `n` more entries written.
    fn entries(&self, n: u64);
    /// Inputs in the hot log now, not yet moved under their table's key.
    fn hot_log(&self, n: usize);
    /// The database's size now.
    fn database_bytes(&self, bytes: u64);
    /// `n` tables taken over from replicas whose lease ran out.
    fn taken_over(&self, n: u64);
    /// What the tables count (the journal inserts and removes tables too).
    fn tables(&self) -> &skat_table::Metrics;
}

/// How journal code holds the metrics: shared, behind the trait.
pub type Metrics = Arc<dyn JournalMetrics>;
