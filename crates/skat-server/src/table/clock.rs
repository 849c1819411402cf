//! A table's clock: one Tokio task for the table's life.
//!
//! It sleeps until the deadline of the current turn, which every change resets through
//! a watch channel (no task spawned or aborted per action), and then submits the
//! forfeit through the same [`TableHandle::mutate`] a player's action goes through. It
//! holds the table weakly, so a dropped table's clock ends; a finished table's ends when
//! the match does.

use std::sync::{Arc, Weak};
use std::time::Instant;

use tokio::sync::watch;

use super::registry::{Durability, TableHandle};
use crate::metrics::Metrics;

/// Starts the clock of `handle`.
pub(super) fn start(handle: &Arc<TableHandle>, metrics: Metrics, journal: impl Durability) {
    let weak: Weak<TableHandle> = Arc::downgrade(handle);
    let deadline = handle.deadline.subscribe();
    tokio::spawn(run(weak, deadline, Box::new((metrics, journal))));
}

/// The clock's task. Its future lives as long as the table, one per table in play: what
/// it holds across an `.await` is paid for every table, so the forfeit (a change through
/// the journal, whose future is large) is boxed and paid for only while it is submitted,
/// and the metrics and journal (264 bytes, which a future may hold twice) are one pointer.
async fn run<J: Durability>(
    weak: Weak<TableHandle>,
    mut deadline: watch::Receiver<Option<(u64, Instant)>>,
    with: Box<(Metrics, J)>,
) {
    let (metrics, journal) = (&with.0, &with.1);
    loop {
        let next = *deadline.borrow_and_update();
        match next {
            Some((turn, at)) => {
                tokio::select! {
                    _ = tokio::time::sleep_until(at.into()) => {}
                    changed = deadline.changed() => {
                        if changed.is_err() { return; }
                        continue;
                    }
                }
                let Some(handle) = weak.upgrade() else { return };
                if handle.is_closed() {
                    return;
                }
                let fired = Box::pin(handle.mutate(journal, metrics, |t| {
                    t.on_deadline(turn, Instant::now()).map(|_| t.id().clone())
                }))
                .await;
                drop(handle);
                if let Ok(Some(id)) = fired {
                    metrics.timeouts.inc();
                    tracing::info!(table = %id, "a seat ran out of time and forfeits the deal");
                } else {
                    // The turn was over already; wait for the next deadline.
                    if deadline.changed().await.is_err() {
                        return;
                    }
                }
            }
            None => {
                // A finished table has no more turns: its clock ends, not at its expiry.
                if weak.upgrade().is_none_or(|h| h.is_closed() || h.lock().is_finished()) {
                    return;
                }
                if deadline.changed().await.is_err() {
                    return;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::journal::Journal;

    /// The clock's future lives as long as its table: the forfeit's change is boxed, so the
    /// future is what it waits with (docs/server.md, memory bounds).
    #[test]
    fn a_tables_clock_is_small() {
        let (_tx, rx) = watch::channel(None);
        let clock = run(Weak::new(), rx, Box::new((Metrics::new(), Journal::memory())));
        let size = std::mem::size_of_val(&clock);
        println!("a table's clock future: {size} bytes");
        assert!(size <= 512, "a table's clock future holds {size} bytes");
    }
}
