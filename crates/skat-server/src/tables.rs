//! All tables of the server: creating, finding, expiring; and per table the lock that
//! serializes its requests, the notification that wakes its watchers, and the timer
//! that forfeits a seat whose time has run out.
//!
//! Requests for one table take its mutex (never across an `await`); different tables
//! never wait for each other. A table's clock is one Tokio task for the table's life: it
//! sleeps until the deadline of the current turn, which every change resets through a
//! watch channel (no task spawned or aborted per action), and then submits the forfeit
//! through the same [`Table`] methods a player's action goes through. It holds the table
//! weakly, so a dropped table's clock ends.
//!
//! Every change goes through [`TableHandle::mutate`]: change under the lock, hand the
//! inputs to the [`Journal`] under the same lock, wait for them to be durable with the
//! lock released, then publish. Watchers see the published `seq` only, so nobody reads
//! an event before it is on disk.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, RwLock, Weak};
use std::time::Instant;

use skat_engine::matches::Seat;
use skat_proto::pb::ErrorReason as R;
use tokio::sync::watch;
use tonic::{Code, Status};

use crate::clients::Permit;
use crate::config::ServerConfig;
use crate::error::Refusal;
use crate::journal::Journal;
use crate::metrics::Metrics;
use crate::table::Table;
use crate::table_id::TableId;

/// A table with its lock, its watchers' wake-up and its timer.
#[derive(Debug)]
pub struct TableHandle {
    table: Mutex<Table>,
    seq: watch::Sender<u64>,
    /// The current turn's id and deadline, which the table's clock task sleeps until.
    deadline: watch::Sender<Option<(u64, Instant)>>,
    /// Open spectator streams (no token).
    pub spectators: AtomicUsize,
    /// Open streams per seat (a seat's own streams never count against spectators).
    pub seat_streams: Vec<AtomicUsize>,
    closed: AtomicBool,
    deals_counted: AtomicUsize,
    /// A finished or abandoned table rebuilt from the journal to be read: it changes no
    /// more and is in no registry.
    archived: bool,
    /// The creating client's table permit, given back when the table is dropped.
    _creator: Option<Permit>,
}

impl TableHandle {
    /// Locks the table. A panic while holding the lock cannot leave a half-applied action
    /// (the engine checks before it changes anything), so a poisoned lock is taken over.
    pub fn lock(&self) -> MutexGuard<'_, Table> {
        self.table.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// A handle for a table that is only read (rebuilt from the journal).
    pub fn archived(table: Table) -> Arc<TableHandle> {
        let mut handle = TableHandle::new(table, None);
        handle.archived = true;
        Arc::new(handle)
    }

    fn new(table: Table, creator: Option<Permit>) -> TableHandle {
        let seq = table.seq();
        let seats = table.seat_count();
        TableHandle {
            table: Mutex::new(table),
            seq: watch::Sender::new(seq),
            deadline: watch::Sender::new(None),
            spectators: AtomicUsize::new(0),
            seat_streams: (0..seats).map(|_| AtomicUsize::new(0)).collect(),
            closed: AtomicBool::new(false),
            deals_counted: AtomicUsize::new(0),
            archived: false,
            _creator: creator,
        }
    }

    /// Changes the table with `f`, journals the change, waits until it is durable, and
    /// publishes it: the one path of every change (see the module header). `f` runs
    /// under the table's lock.
    pub async fn mutate<T>(
        self: &Arc<Self>,
        journal: &Journal,
        metrics: &Metrics,
        f: impl FnOnce(&mut Table) -> T,
    ) -> Result<T, Refusal> {
        if self.archived {
            return Err(Refusal::new(
                Code::FailedPrecondition,
                R::TableFinished,
                "this table is over (finished or abandoned) and can only be read",
            ));
        }
        let (out, pending, state) = {
            let mut t = self.lock();
            let out = f(&mut t);
            let pending = journal.submit(&mut t);
            (out, pending, Published::of(&t))
        };
        pending.durable().await?;
        self.publish(state, metrics);
        Ok(out)
    }

    /// The table once everything in it is published (durable): what a snapshot may
    /// show. Waits at most for the commits in flight.
    pub async fn settled(&self) -> MutexGuard<'_, Table> {
        let mut published = self.seq.subscribe();
        loop {
            {
                let t = self.lock();
                if t.seq() <= *published.borrow_and_update() {
                    return t;
                }
            }
            if published.changed().await.is_err() {
                return self.lock();
            }
        }
    }

    /// The last published `seq`: events up to it are durable and may be read.
    pub fn published(&self) -> u64 {
        *self.seq.borrow()
    }

    /// A receiver that wakes when the log grows.
    pub fn subscribe(&self) -> watch::Receiver<u64> {
        self.seq.subscribe()
    }

    /// Publishes a state read in the critical section that changed it (so that an action
    /// takes the table's lock once).
    pub fn publish(&self, state: Published, metrics: &Metrics) {
        let Published { seq, deadline, deals } = state;
        let counted = self.deals_counted.swap(deals, Ordering::Relaxed);
        metrics.deals.inc_by(deals.saturating_sub(counted) as u64);
        // Commits of one table complete in order, but their callers may publish out of
        // order: the published seq only grows.
        self.seq.send_if_modified(|s| {
            let newer = seq > *s;
            if newer {
                *s = seq;
            }
            newer
        });
        self.deadline.send_if_modified(|d| {
            let changed = *d != deadline;
            *d = deadline;
            changed
        });
    }

    /// The table's clock: one task for the table's life.
    fn start_clock(self: &Arc<Self>, metrics: Metrics, journal: Journal) {
        let weak: Weak<TableHandle> = Arc::downgrade(self);
        let mut deadline = self.deadline.subscribe();
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

    /// Stops the clock and wakes the watchers, who end their streams (the table is
    /// being dropped).
    pub fn stop(&self) {
        self.closed.store(true, Ordering::Relaxed);
        // Wakes the clock, which sees the table closed and ends.
        self.deadline.send_replace(None);
        self.seq.send_modify(|_| {});
    }

    /// Whether the table has been dropped from the server.
    pub fn is_closed(&self) -> bool {
        self.closed.load(Ordering::Relaxed)
    }
}

/// What watchers and the clock need to know after a change, read under the table's lock.
#[derive(Debug, Clone, Copy)]
pub struct Published {
    seq: u64,
    deadline: Option<(u64, Instant)>,
    deals: usize,
}

impl Published {
    /// The state of `table` now.
    pub fn of(table: &Table) -> Published {
        Published { seq: table.seq(), deadline: table.next_deadline(), deals: table.deals_played() }
    }
}

/// The server's tables.
#[derive(Debug, Default)]
pub struct Tables {
    map: RwLock<HashMap<TableId, Arc<TableHandle>>>,
}

impl Tables {
    /// Adds a table unless `max` tables exist already; `creator` is the creating
    /// client's permit, held as long as the table.
    pub fn insert(
        &self,
        table: Table,
        max: usize,
        creator: Option<Permit>,
        metrics: &Metrics,
        journal: &Journal,
    ) -> Option<Arc<TableHandle>> {
        let mut map = self.map.write().unwrap_or_else(|p| p.into_inner());
        if map.len() >= max {
            return None;
        }
        let deals = table.deals_played();
        let handle = Arc::new(TableHandle::new(table, creator));
        // A recovered table's deals were counted before the restart.
        handle.deals_counted.store(deals, Ordering::Relaxed);
        let id = handle.lock().id().clone();
        map.insert(id, Arc::clone(&handle));
        handle.start_clock(metrics.clone(), journal.clone());
        let state = Published::of(&handle.lock());
        handle.publish(state, metrics);
        Some(handle)
    }

    /// Takes a table out (its creation could not be journaled).
    pub fn remove(&self, id: &TableId) {
        if let Some(h) = self.map.write().unwrap_or_else(|p| p.into_inner()).remove(id) {
            h.stop();
        }
    }

    /// The table with this id.
    pub fn get(&self, id: &TableId) -> Option<Arc<TableHandle>> {
        self.map.read().unwrap_or_else(|p| p.into_inner()).get(id).cloned()
    }

    /// Every table.
    pub fn all(&self) -> Vec<Arc<TableHandle>> {
        self.map.read().unwrap_or_else(|p| p.into_inner()).values().cloned().collect()
    }

    /// How many tables there are.
    pub fn len(&self) -> usize {
        self.map.read().unwrap_or_else(|p| p.into_inner()).len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Drops the tables that have expired and returns them. Each table is looked at
    /// under its own lock only; the registry is write-locked just to remove the expired.
    pub fn expire(&self, now: Instant, expiry: std::time::Duration) -> Vec<Arc<TableHandle>> {
        let expired: Vec<(TableId, Arc<TableHandle>)> = self
            .map
            .read()
            .unwrap_or_else(|p| p.into_inner())
            .iter()
            .map(|(id, h)| (id.clone(), Arc::clone(h)))
            .collect::<Vec<_>>()
            .into_iter()
            .filter(|(_, h)| h.lock().expired(now, expiry))
            .collect();
        if expired.is_empty() {
            return Vec::new();
        }
        let mut map = self.map.write().unwrap_or_else(|p| p.into_inner());
        for (id, h) in &expired {
            map.remove(id);
            h.stop();
        }
        expired.into_iter().map(|(_, h)| h).collect()
    }
}

/// A stream's place at a table: a spectator slot or one of its seat's own slots, given
/// back when the stream ends, however it ends.
#[derive(Debug)]
pub struct StreamSlot {
    handle: Arc<TableHandle>,
    seat: Option<Seat>,
    metrics: Metrics,
}

impl StreamSlot {
    /// Takes a slot for a spectator (`seat` None) or for `seat`'s own streams; seats never
    /// compete with spectators for slots.
    pub fn open(
        handle: &Arc<TableHandle>,
        seat: Option<Seat>,
        config: &ServerConfig,
        metrics: &Metrics,
    ) -> Result<StreamSlot, Status> {
        let (counter, limit, flag, what) = match seat {
            None => {
                (&handle.spectators, config.max_spectators_per_table, "max-spectators", "spectator streams")
            }
            Some(s) => (
                handle.seat_streams.get(usize::from(s)).ok_or_else(|| {
                    Refusal::new(Code::InvalidArgument, R::InvalidSeat, format!("this table has no seat {s}"))
                })?,
                config.max_streams_per_seat,
                "max-streams-per-seat",
                "streams for this seat",
            ),
        };
        counter.fetch_update(Ordering::AcqRel, Ordering::Acquire, |n| (n < limit).then_some(n + 1)).map_err(
            |_| Refusal::limit(flag, limit, format!("this table has its limit of {limit} {what}")),
        )?;
        metrics.watchers.inc();
        Ok(StreamSlot { handle: Arc::clone(handle), seat, metrics: metrics.clone() })
    }
}

impl Drop for StreamSlot {
    fn drop(&mut self) {
        let counter = match self.seat {
            None => Some(&self.handle.spectators),
            Some(s) => self.handle.seat_streams.get(usize::from(s)),
        };
        if let Some(c) = counter {
            c.fetch_sub(1, Ordering::AcqRel);
        }
        self.metrics.watchers.dec();
    }
}
