//! What the table crate needs from the server around it, as small values: the limits it
//! enforces ([`TableLimits`], taken from the server's settings) and what it counts
//! ([`TableMetrics`], kept by the server's metrics). The table knows neither the server's
//! whole configuration nor Prometheus.

use std::sync::Arc;

/// The server's settings that a table enforces (copied out of the server's configuration).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TableLimits {
    /// Most deals a table may play.
    pub max_deals: u32,
    /// A turn's time when a table states none (ms).
    pub default_action_ms: u64,
    /// A seat's time for a whole deal when a table states none (ms; 0: no deal clock).
    pub default_deal_ms: u64,
    /// Spectator streams per table.
    pub max_spectators_per_table: usize,
    /// Streams per seat.
    pub max_streams_per_seat: usize,
}

/// What tables count, for the server's metrics (Prometheus there; nothing in tests).
pub trait TableMetrics: std::fmt::Debug + Send + Sync + 'static {
    /// A seat ran out of time.
    fn timed_out(&self);
    /// `n` more deals finished.
    fn deals_finished(&self, n: u64);
    /// A watch stream took a slot (`+1`) or gave it back (`-1`).
    fn watchers(&self, delta: i64);
    /// The tables held now.
    fn tables_held(&self, n: usize);
}

/// How table code holds the metrics: shared, behind the trait.
pub type Metrics = Arc<dyn TableMetrics>;
