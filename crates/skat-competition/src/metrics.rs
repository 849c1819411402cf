//! What the competitions and hosted bots count, for the server's metrics: this crate
//! knows no Prometheus.

use std::sync::Arc;

/// What the competition services count (the server keeps them).
pub trait CompetitionMetrics: std::fmt::Debug + Send + Sync + 'static {
    /// What the tables count (the services create tables and change them).
    fn tables(&self) -> &skat_table::Metrics;
    /// Open lobby streams and tournament tables with a seat held, per account name, on
    /// this replica: each call replaces the last (accounts not named have none).
    fn per_account(&self, lobbies: &[(String, usize)], tables: &[(String, usize)]);
    /// Hosted tournaments' tables that are due and wait for places.
    fn tables_waiting(&self, n: u32);
    /// Hosted accounts the runner's feed follows now.
    fn hosted_accounts(&self, n: usize);
    /// What the runners following this replica can hold, and what the hosted seats
    /// placed on them hold, in millicores.
    fn runner_places(&self, capacity_millis: u64, used_millis: u64);
    /// A sandbox started (the runner reported it running).
    fn sandbox_started(&self);
    /// A sandbox ended with `outcome` (`exited`, `stopped`, ...); `was_running`: it had
    /// started.
    fn sandbox_ended(&self, outcome: &str, was_running: bool);
}

/// How competition code holds the metrics: shared, behind the trait.
pub type Metrics = Arc<dyn CompetitionMetrics>;
