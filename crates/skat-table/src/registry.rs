//! Every live table of the server: creating, finding, expiring; and per table the lock
//! that serializes its requests and the notification that wakes its watchers.
//!
//! Requests for one table take its mutex (never across an `await`); different tables
//! never wait for each other.
//!
//! Every change goes through [`TableHandle::mutate`]: change under the lock, hand the
//! inputs to the [`Durability`] (the journal) under the same lock, wait for them to be
//! durable with the lock released, then publish. Watchers see the published `seq` only,
//! so nobody reads an event before it is on disk.
//!
//! The registry does not know how a change is made durable: the journal implements
//! [`Durability`] (this room would otherwise import the journal, which imports this
//! room's [`Table`]).

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock, RwLock, Weak};
use std::task::{Context, Poll};
use std::time::Instant;

use tokio::sync::oneshot;

use super::clock::{Clock, Deadline};
use super::error::ChangeError;
use super::published::{Changed, PublishedSeq, Registered};
use super::{Table, TableId, Tasks};
use crate::Metrics;

/// Where a table's changes are made durable before they are answered and published.
pub trait Durability: Clone + Send + Sync + 'static {
    /// Takes the table's new inputs (called with the table locked, after every change).
    fn submit(&self, table: &mut Table) -> Durable;
}

/// A submitted change: ready once it is durable.
#[must_use = "a change is promised only once it is durable"]
#[derive(Debug)]
pub struct Durable(Option<oneshot::Receiver<bool>>);

impl Durable {
    /// Nothing to wait for (no journal, or nothing changed).
    pub fn now() -> Durable {
        Durable(None)
    }

    /// Ready when the writer answers on `done` (true: durable).
    pub fn when(done: oneshot::Receiver<bool>) -> Durable {
        Durable(Some(done))
    }

    /// A change that can never be made durable (the journal has failed).
    pub fn failed() -> Durable {
        let (tx, rx) = oneshot::channel();
        let _ = tx.send(false);
        Durable(Some(rx))
    }

    /// Waits until the change is durable; [`ChangeError::NotDurable`] when it could not be
    /// made so (the server is then stopping, and the caller must not answer OK).
    pub async fn wait(self) -> Result<(), ChangeError> {
        let Some(rx) = self.0 else { return Ok(()) };
        match rx.await {
            Ok(true) => Ok(()),
            _ => Err(ChangeError::NotDurable),
        }
    }
}

/// Held for as long as a table lives and dropped with it (the creating client's
/// per-address permit).
pub type Guard = Box<dyn std::any::Any + Send + Sync>;

/// A table with its lock, its watchers' wake-up and its place in the clock.
pub struct TableHandle {
    table: Mutex<Table>,
    /// The last published seq, and the streams and tasks waiting for a later one.
    seq: PublishedSeq,
    /// The server's clock and this table's number in it (none for a table only read).
    clock: Option<(Arc<Clock<TableHandle>>, u64)>,
    /// The deadline last handed to the clock, and the seq it was published with (an
    /// older change published late does not move it back).
    deadline: Mutex<(u64, Option<Deadline>)>,
    /// Open spectator streams (no token).
    pub(super) spectators: AtomicUsize,
    /// Open streams per seat (a seat's own streams never count against spectators).
    pub(super) seat_streams: Vec<AtomicUsize>,
    closed: AtomicBool,
    deals_counted: AtomicUsize,
    /// A finished or abandoned table rebuilt from the journal to be read: it changes no
    /// more and is in no registry.
    archived: bool,
    _guard: Option<Guard>,
}

impl std::fmt::Debug for TableHandle {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TableHandle").field("seq", &self.seq.get()).field("archived", &self.archived).finish()
    }
}

impl TableHandle {
    /// Locks the table. A panic while holding the lock cannot leave a half-applied action
    /// (the engine checks before it changes anything), so a poisoned lock is taken over.
    pub fn lock(&self) -> MutexGuard<'_, Table> {
        self.table.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// A handle for a table that is only read (rebuilt from the journal).
    pub fn archived(table: Table) -> Arc<TableHandle> {
        let mut handle = TableHandle::new(table, None, None);
        handle.archived = true;
        Arc::new(handle)
    }

    fn new(table: Table, guard: Option<Guard>, clock: Option<&Arc<Clock<TableHandle>>>) -> TableHandle {
        let seq = table.seq();
        let seats = table.seat_count();
        TableHandle {
            table: Mutex::new(table),
            seq: PublishedSeq::new(seq),
            clock: clock.map(|c| (Arc::clone(c), c.number())),
            deadline: Mutex::new((0, None)),
            spectators: AtomicUsize::new(0),
            seat_streams: (0..seats).map(|_| AtomicUsize::new(0)).collect(),
            closed: AtomicBool::new(false),
            deals_counted: AtomicUsize::new(0),
            archived: false,
            _guard: guard,
        }
    }

    /// Changes the table with `f`, journals the change, waits until it is durable, and
    /// publishes it: the one path of every change (see the module header). `f` runs
    /// under the table's lock.
    pub async fn mutate<T>(
        self: &Arc<Self>,
        journal: &impl Durability,
        metrics: &Metrics,
        f: impl FnOnce(&mut Table) -> T,
    ) -> Result<T, ChangeError> {
        if self.archived {
            return Err(ChangeError::ReadOnly);
        }
        let (out, pending, state) = {
            let mut t = self.lock();
            let out = f(&mut t);
            let pending = journal.submit(&mut t);
            (out, pending, Published::of(&t))
        };
        pending.wait().await?;
        self.publish(state, metrics);
        Ok(out)
    }

    /// The table once everything in it is published (durable): what a snapshot may
    /// show. Waits at most for the commits in flight.
    pub async fn settled(&self) -> MutexGuard<'_, Table> {
        loop {
            let published = self.seq.get();
            {
                let t = self.lock();
                if t.seq() <= published {
                    return t;
                }
            }
            self.seq.changed(published).await;
        }
    }

    /// The last published `seq`: events up to it are durable and may be read.
    pub fn published(&self) -> u64 {
        self.seq.get()
    }

    /// Resolves once a seq past `after` is published, or the table's watchers are woken
    /// (it closes, the server stops): the caller looks again.
    pub fn changed(&self, after: u64) -> Changed<'_> {
        self.seq.changed(after)
    }

    /// A stream's wait for a seq past `after` (its waker left in `registered`, to be
    /// [forgotten](Self::forget) when the stream ends).
    pub fn poll_published(&self, after: u64, registered: &mut Registered, cx: &Context<'_>) -> Poll<u64> {
        self.seq.poll_after(after, registered, cx)
    }

    /// Takes a stream's waker out of the table's list.
    pub fn forget(&self, registered: &mut Registered) {
        self.seq.forget(registered);
    }

    /// Publishes a state read in the critical section that changed it (so that an action
    /// takes the table's lock once).
    fn publish(self: &Arc<Self>, state: Published, metrics: &Metrics) {
        let Published { seq, deadline, deals } = state;
        let counted = self.deals_counted.swap(deals, Ordering::Relaxed);
        metrics.deals_finished(deals.saturating_sub(counted) as u64);
        // Commits of one table complete in order, but their callers may publish out of
        // order: the published seq only grows.
        self.seq.publish(seq);
        self.move_deadline(seq, deadline);
    }

    /// Hands the clock the current turn's deadline as of `seq` (unless a later change
    /// was published first, or nothing moved).
    fn move_deadline(self: &Arc<Self>, seq: u64, deadline: Option<Deadline>) {
        let Some((clock, number)) = &self.clock else { return };
        let mut last = self.deadline.lock().unwrap_or_else(|p| p.into_inner());
        if seq < last.0 || last.1 == deadline || self.is_closed() {
            return;
        }
        clock.set(*number, &Arc::downgrade(self), last.1, deadline);
        *last = (seq, deadline);
    }

    /// Stops the clock and wakes the watchers, who end their streams (the table is
    /// being dropped).
    pub fn stop(&self) {
        self.closed.store(true, Ordering::Relaxed);
        if let Some((clock, number)) = &self.clock {
            // Taken out of the clock for good: a closed table's deadline is never moved.
            let mut last = self.deadline.lock().unwrap_or_else(|p| p.into_inner());
            clock.set(*number, &Weak::new(), last.1.take(), None);
        }
        self.wake_watchers();
    }

    /// Wakes the table's watchers without a change (the server is shutting down: each
    /// stream looks at why it was ended).
    pub fn wake_watchers(&self) {
        self.seq.wake_all();
    }

    /// Whether the table has been dropped from the server.
    pub fn is_closed(&self) -> bool {
        self.closed.load(Ordering::Relaxed)
    }
}

/// What watchers and the clock need to know after a change, read under the table's lock.
#[derive(Debug, Clone, Copy)]
struct Published {
    seq: u64,
    deadline: Option<Deadline>,
    deals: usize,
}

impl Published {
    /// The state of `table` now.
    fn of(table: &Table) -> Published {
        Published { seq: table.seq(), deadline: table.next_deadline(), deals: table.deals_played() }
    }
}

/// The server's live tables.
#[derive(Debug, Default)]
pub struct Tables {
    map: RwLock<HashMap<TableId, Arc<TableHandle>>>,
    /// Their clock, started with the first table (which brings the journal it submits
    /// forfeits to; a server has one).
    clock: OnceLock<Arc<Clock<TableHandle>>>,
    /// The server's tasks: the clock's and each forfeit's.
    tasks: Tasks,
}

impl Drop for Tables {
    fn drop(&mut self) {
        if let Some(clock) = self.clock.get() {
            clock.close();
        }
    }
}

impl Tables {
    /// No tables yet; their clock and forfeits will be `tasks`'.
    pub fn new(tasks: Tasks) -> Tables {
        Tables { map: RwLock::default(), clock: OnceLock::new(), tasks }
    }

    /// Adds a table unless `max` tables exist already, and puts it on the clock; `guard` is
    /// held as long as the table (the creating client's permit).
    pub fn insert(
        &self,
        table: Table,
        max: usize,
        guard: Option<Guard>,
        metrics: &Metrics,
        journal: &impl Durability,
    ) -> Option<Arc<TableHandle>> {
        let mut map = self.map.write().unwrap_or_else(|p| p.into_inner());
        if map.len() >= max {
            return None;
        }
        let deals = table.deals_played();
        let clock = self.clock.get_or_init(|| {
            let (metrics, journal) = (metrics.clone(), journal.clone());
            let tasks = self.tasks.clone();
            Clock::start(&self.tasks, move |table, turn| {
                tasks.spawn(forfeit(table, turn, metrics.clone(), journal.clone()));
            })
        });
        let handle = Arc::new(TableHandle::new(table, guard, Some(clock)));
        // A recovered table's deals were counted before the restart.
        handle.deals_counted.store(deals, Ordering::Relaxed);
        let id = handle.lock().id().clone();
        map.insert(id, Arc::clone(&handle));
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

    /// Whether there is none.
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

/// Turn `turn` of `handle` ran out of time: its seat forfeits the deal, unless the turn
/// is over already (an action that came in at the last moment wins).
async fn forfeit<J: Durability>(handle: Arc<TableHandle>, turn: u64, metrics: Metrics, journal: J) {
    if handle.is_closed() {
        return;
    }
    let fired =
        handle.mutate(&journal, &metrics, |t| t.on_deadline(turn, Instant::now()).map(|_| t.id().clone()));
    if let Ok(Some(id)) = fired.await {
        metrics.timed_out();
        tracing::info!(table = %id, "a seat ran out of time and forfeits the deal");
    }
}
