//! One owner for every task a server spawns: a tracker that counts them and a
//! cancellation they all hear. A server makes one [`Tasks`] and hands a clone to every
//! floor (the tables' clock, the journal's writer and housekeeping, the competitions'
//! schedulers and watchers, hosting's feed, the wire's streams); at shutdown, once serving
//! has ended, [`Tasks::shut_down`] cancels them and waits, for a bounded time, until none
//! is left.
//!
//! | rule | why |
//! |---|---|
//! | every task is spawned through [`Tasks::spawn`] | a task nobody owns outlives the server: its loop runs for ever, holds the database and counts in nobody's metrics |
//! | a spawned task ends at its work's end or at cancellation, whichever comes first | loops need no stop signal of their own to end |
//! | cancellation comes after serving ended and the journal's lease was given up | a change acknowledged during the drain still completes (forfeits, commits) |
//! | waiting is bounded | a task stuck in blocking work cannot hold the process up; it is named in the log by count |

use std::future::Future;
use std::time::Duration;

use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

/// The tasks of one server: tracked and cancelled together. Clones share them.
#[derive(Debug, Clone, Default)]
pub struct Tasks {
    tracker: TaskTracker,
    cancel: CancellationToken,
}

impl Tasks {
    /// A new, empty owner.
    pub fn new() -> Tasks {
        Tasks::default()
    }

    /// Spawns `work`, owned here: it runs until it finishes or until shutdown cancels it
    /// (then its future is dropped at its next await, and the handle gives `None`).
    pub fn spawn<F>(&self, work: F) -> JoinHandle<Option<F::Output>>
    where
        F: Future + Send + 'static,
        F::Output: Send + 'static,
    {
        let cancel = self.cancel.clone();
        self.tracker.spawn(async move {
            // Biased: cancellation is looked at first, so work spawned after shutdown
            // never starts, and a cancelled loop never takes one more turn.
            tokio::select! {
                biased;
                _ = cancel.cancelled() => None,
                out = work => Some(out),
            }
        })
    }

    /// Tasks running now.
    pub fn len(&self) -> usize {
        self.tracker.len()
    }

    /// Whether no task is running.
    pub fn is_empty(&self) -> bool {
        self.tracker.is_empty()
    }

    /// Cancels every task and waits until all have ended, at most `within`; the number
    /// still running then (0: all ended). Tasks spawned after this are cancelled at once.
    pub async fn shut_down(&self, within: Duration) -> usize {
        self.cancel.cancel();
        self.tracker.close();
        if tokio::time::timeout(within, self.tracker.wait()).await.is_err() {
            tracing::warn!(left = self.tracker.len(), "tasks still running after shutdown's bound");
        }
        self.tracker.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A loop that never ends by itself ends at shutdown; finished work is not waited for
    /// twice; what is spawned after shutdown does not run.
    #[tokio::test]
    async fn shutdown_ends_every_task_in_bounded_time() {
        let tasks = Tasks::new();
        let forever = tasks.spawn(std::future::pending::<()>());
        let done = tasks.spawn(async { 7 });
        assert_eq!(done.await.ok().flatten(), Some(7));
        assert_eq!(tasks.len(), 1, "the loop runs");
        assert_eq!(tasks.shut_down(Duration::from_secs(5)).await, 0);
        assert_eq!(forever.await.ok().flatten(), None, "cancelled, not finished");
        let late = tasks.spawn(async { 1 });
        assert_eq!(late.await.ok().flatten(), None, "spawned after shutdown: cancelled at once");
    }
}
