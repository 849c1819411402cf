//! The analysis workers behind AnalyzeTable: finished tables judged card by card
//! (`skat_bots::analysis`, the same JSON as `skat analyze`), on demand, without letting
//! analysis starve play.
//!
//! | rule | why |
//! |---|---|
//! | only a finished table | the analysis shows every hand: during play it would tell the seats the cards |
//! | a bounded queue (`--analysis-queue`), a full queue refuses (ANALYSIS_BUSY) | memory and waiting time have a bound whatever clients ask |
//! | a table asked for twice is queued once; the caller polls | a page refreshing every few seconds costs nothing |
//! | `--analysis-workers` threads (0: none), each one table at a time, on the blocking pool | analysis never holds a tokio worker that serves play |
//! | a node budget per card (`--analysis-nodes`) | the hardest first tricks are bounded in time (the worlds solved within it are counted and shown) |
//! | on shutdown a running analysis stops within milliseconds (the solver looks at the flag as it searches), and the workers end | the runtime waits for blocking tasks: an analysis must not hold a stopping server up |
//! | the result kept in the database (`skat_analyses`, deleted with its table), or in memory (the last [`MEMORY_CACHE`]) without one | computed once per table and settings |
//!
//! The job carries the table's records, taken when it was queued: a worker reads no table
//! and holds no lock.

use skat_table::Tasks;
use std::collections::{HashSet, VecDeque};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Instant, SystemTime};

use serde_json::Value;
use skat_bots::analysis::Report;
use skat_bots::judge::JudgeConfig;
use skat_engine::DealRecord;
use tokio::sync::{Notify, watch};

use crate::config::AnalysisConfig;
use skat_store::Store;
use skat_store::analyses::StoredAnalysis;

/// Analyses kept in memory when there is no database.
pub(crate) const MEMORY_CACHE: usize = 64;

/// A table to analyse: its records and the players by position, per deal.
#[derive(Debug)]
pub(crate) struct Job {
    pub(crate) table_id: String,
    pub(crate) deals: Vec<(DealRecord, [String; 3])>,
}

/// Where a table's analysis stands.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Standing {
    /// Waiting, with this many ahead.
    Queued(usize),
    /// Being computed.
    Running,
    /// Done.
    Ready(Arc<StoredAnalysis>),
}

/// Why a table cannot be queued.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Busy {
    /// The queue holds this many already.
    Full(usize),
    /// No workers.
    Off,
}

#[derive(Debug, Default)]
struct State {
    queue: VecDeque<Job>,
    running: HashSet<String>,
    /// Without a database: the last results.
    memory: VecDeque<(String, Arc<StoredAnalysis>)>,
}

/// The queue, its workers and the cache.
#[derive(Debug)]
pub(crate) struct Analyst {
    config: AnalysisConfig,
    store: Option<Store>,
    state: Mutex<State>,
    wake: Arc<Notify>,
    /// Set when the server shuts down ([`StopOnDrop`]): a running analysis stops within
    /// milliseconds, so that the runtime (which waits for blocking tasks) is not held up.
    stopping: Arc<AtomicBool>,
}

/// Stops a running analysis when dropped: when the shutdown signal comes, and also when
/// the runtime is dropped before the task waiting for that signal ran (`skat serve` drops
/// its runtime as soon as the server's task ends; the runtime drops every task first,
/// then waits for the blocking ones, such as an analysis, which would otherwise run to
/// its end: 30 seconds and more).
#[derive(Debug)]
struct StopOnDrop {
    stopping: Arc<AtomicBool>,
    wake: Arc<Notify>,
}

impl Drop for StopOnDrop {
    fn drop(&mut self) {
        self.stopping.store(true, Ordering::Relaxed);
        self.wake.notify_waiters();
    }
}

impl Drop for Analyst {
    fn drop(&mut self) {
        // Sleeping workers wake, find the analyst gone and end.
        self.wake.notify_waiters();
    }
}

impl Analyst {
    /// An analyst; its workers start on the current runtime.
    pub(crate) fn start(
        config: AnalysisConfig,
        store: Option<Store>,
        mut shutdown: watch::Receiver<bool>,
        tasks: &Tasks,
    ) -> Arc<Analyst> {
        let analyst = Arc::new(Analyst {
            config,
            store,
            state: Mutex::new(State::default()),
            wake: Arc::new(Notify::new()),
            stopping: Arc::new(AtomicBool::new(false)),
        });
        // Made here and moved in, so that it is dropped even with the task never polled.
        let stop = StopOnDrop { stopping: Arc::clone(&analyst.stopping), wake: Arc::clone(&analyst.wake) };
        tasks.spawn(async move {
            let _stop = stop;
            let _ = shutdown.wait_for(|s| *s).await;
        });
        for _ in 0..config.workers {
            // A worker holds only a weak reference: the analyst goes when the server does.
            let weak = Arc::downgrade(&analyst);
            let wake = Arc::clone(&analyst.wake);
            let stopping = Arc::clone(&analyst.stopping);
            tasks.spawn(async move {
                loop {
                    // Registered before looking at the queue: a job queued in between wakes it.
                    let woken = wake.notified();
                    if stopping.load(Ordering::Relaxed) {
                        break;
                    }
                    let Some(analyst) = weak.upgrade() else { break };
                    let job = analyst.lock().queue.pop_front();
                    match job {
                        Some(job) => analyst.run(job).await,
                        None => {
                            drop(analyst);
                            woken.await;
                        }
                    }
                }
            });
        }
        analyst
    }

    /// The settings analyses are made with.
    pub(crate) fn config(&self) -> AnalysisConfig {
        self.config
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// What is known of `table_id`'s analysis without queueing it.
    pub(crate) async fn standing(&self, table_id: &str) -> Result<Option<Standing>, skat_store::StoreError> {
        {
            let state = self.lock();
            if state.running.contains(table_id) {
                return Ok(Some(Standing::Running));
            }
            if let Some(i) = state.queue.iter().position(|j| j.table_id == table_id) {
                return Ok(Some(Standing::Queued(i)));
            }
            if let Some((_, a)) = state.memory.iter().find(|(id, _)| id == table_id) {
                return Ok(Some(Standing::Ready(Arc::clone(a))));
            }
        }
        match &self.store {
            Some(store) => Ok(store
                .analyses
                .analysis(table_id, &self.config.settings())
                .await?
                .map(|a| Standing::Ready(Arc::new(a)))),
            None => Ok(None),
        }
    }

    /// Queues a table (one that is already waiting or running keeps its place).
    pub(crate) fn enqueue(&self, job: Job) -> Result<Standing, Busy> {
        if self.config.workers == 0 {
            return Err(Busy::Off);
        }
        let mut state = self.lock();
        if state.running.contains(&job.table_id) {
            return Ok(Standing::Running);
        }
        if let Some(i) = state.queue.iter().position(|j| j.table_id == job.table_id) {
            return Ok(Standing::Queued(i));
        }
        if state.queue.len() >= self.config.queue {
            return Err(Busy::Full(self.config.queue));
        }
        state.queue.push_back(job);
        let ahead = state.queue.len() - 1;
        drop(state);
        self.wake.notify_one();
        Ok(Standing::Queued(ahead))
    }

    async fn run(&self, job: Job) {
        self.lock().running.insert(job.table_id.clone());
        let config = self.config;
        let table_id = job.table_id.clone();
        let stopping = Arc::clone(&self.stopping);
        let computed = tokio::task::spawn_blocking(move || analyse(&job, config, &stopping)).await;
        match computed {
            Ok(None) => tracing::info!(table = %table_id, "analysis stopped: the server is shutting down"),
            Ok(Some(analysis)) => {
                let analysis = Arc::new(analysis);
                match &self.store {
                    Some(store) => {
                        if let Err(e) =
                            store.analyses.put_analysis(&table_id, &config.settings(), &analysis).await
                        {
                            tracing::warn!(table = %table_id, error = %e, "analysis not stored");
                        }
                    }
                    None => {
                        let mut state = self.lock();
                        state.memory.push_back((table_id.clone(), Arc::clone(&analysis)));
                        while state.memory.len() > MEMORY_CACHE {
                            state.memory.pop_front();
                        }
                    }
                }
                tracing::info!(table = %table_id, took_ms = analysis.took_ms, "table analysed");
            }
            Err(e) => tracing::error!(table = %table_id, error = %e, "analysis failed"),
        }
        // Stored before no longer running: a caller in between finds it one way or the other.
        self.lock().running.remove(&table_id);
    }
}

/// One table's analysis (on a blocking thread); `None` when the server began shutting down
/// before it was done (looked at before every world of every card, and by the solver
/// every 65,536 nodes of its search).
fn analyse(job: &Job, config: AnalysisConfig, stopping: &Arc<AtomicBool>) -> Option<StoredAnalysis> {
    let started = Instant::now();
    let mut report = Report::new(JudgeConfig { worlds: config.worlds, max_nodes: config.nodes, seed: 0 })
        .stopped_by(Arc::clone(stopping));
    let mut deals = Vec::with_capacity(job.deals.len());
    for (record, names) in &job.deals {
        if stopping.load(Ordering::Relaxed) {
            return None;
        }
        let id = format!("{}.{}", job.table_id, record.number);
        deals.push(report.deal(record, &id, names).to_string());
    }
    if stopping.load(Ordering::Relaxed) {
        return None;
    }
    let summary: Value = report.summary();
    Some(StoredAnalysis {
        deals,
        summary: summary.to_string(),
        worlds: config.worlds,
        computed_ms: skat_table::unix_ms(SystemTime::now()),
        took_ms: started.elapsed().as_millis() as u64,
    })
}
