//! A table's clock: one Tokio task for the table's life.
//!
//! It sleeps until the deadline of the current turn, which every change resets through
//! a watch channel (no task spawned or aborted per action), and then submits the
//! forfeit through the same [`TableHandle::mutate`] a player's action goes through. It
//! holds the table weakly, so a dropped table's clock ends.

use std::sync::{Arc, Weak};
use std::time::Instant;

use super::registry::{Durability, TableHandle};
use crate::metrics::Metrics;

/// Starts the clock of `handle`.
pub(super) fn start(handle: &Arc<TableHandle>, metrics: Metrics, journal: impl Durability) {
    let weak: Weak<TableHandle> = Arc::downgrade(handle);
    let mut deadline = handle.deadline.subscribe();
    tokio::spawn(async move {
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
                    let fired = handle
                        .mutate(&journal, &metrics, |t| {
                            t.on_deadline(turn, Instant::now()).map(|_| t.id().clone())
                        })
                        .await;
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
                    if deadline.changed().await.is_err() {
                        return;
                    }
                    if weak.upgrade().is_none_or(|h| h.is_closed()) {
                        return;
                    }
                }
            }
        }
    });
}
