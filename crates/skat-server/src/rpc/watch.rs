//! WatchTable: one stream is a cursor into a table's log, read when the transport asks
//! for its next response.
//!
//! | rule | why |
//! |---|---|
//! | a seat's token is checked under the table lock on every read of the log | a stream carries a seat's rights only while its token holds the seat: after `LeaveTable` the next read ends the stream with PERMISSION_DENIED, before a newcomer's card can be read for it |
//! | only published events are read (the table's `seq` watch, set after each commit) | nobody sees an event that is not yet durable |
//! | the log is read in batches of at most [`BATCH`] events, only when the transport asks for the next response; the batch is let go once taken | a stream holds no task, no buffer and no timer of its own (about 3 KiB a stream before, three or more streams per table in play): HTTP/2's flow control is the buffer, and the table's log (or its inputs) holds what a reader has not taken |
//! | the backlog is read in batches until the cursor reaches the log's end | resuming after any gap delivers everything, however long |
//! | a reader that takes nothing for `--stream-stall-timeout` while events wait is ended with RESOURCE_EXHAUSTED; shutdown ends every stream with UNAVAILABLE | both found by the server's one watchdog ([`super::stall`]): a stream its reader does not read is not polled, so it cannot notice on its own |

use crate::rpc::refusal::Refused;
use std::pin::Pin;
use std::sync::{Arc, Weak};
use std::task::{Context, Poll, ready};
use std::time::Instant;

use skat_engine::matches::Seat;
use skat_proto::pb::ErrorReason as R;
use skat_proto::pb::{self, watch_table_response::Kind as WatchKind};
use tokio::task::JoinHandle;
use tokio_stream::Stream;
use tonic::{Code, Request, Status};

use super::access::{Access, bearer, seat_in};
use super::projection;
use super::refusal::Refusal;
use super::service::{SkatServer, record_table};
use super::stall::{Ended, Shared};
use crate::metrics::Metrics;
use skat_table::published::Registered;
use skat_table::secret::TokenHash;
use skat_table::slots::StreamSlot;
use skat_table::{LogEntry, Past, TableHandle};

/// Events read from the log under one lock.
pub(crate) const BATCH: usize = 64;

/// Who is watching.
#[derive(Debug, Clone)]
pub(crate) enum Watcher {
    /// No token: the public view.
    Spectator,
    /// A seat, for as long as `token` holds it.
    Seat {
        /// The seat.
        seat: Seat,
        /// The hash of the token that opened the stream.
        token: TokenHash,
    },
}

impl Watcher {
    /// The seat whose view to show.
    pub(crate) fn seat(&self) -> Option<Seat> {
        match self {
            Watcher::Spectator => None,
            Watcher::Seat { seat, .. } => Some(*seat),
        }
    }
}

/// Events read for a stream, whether they reach what the table had published, and
/// whether the match is over.
type Batch = (Vec<pb::Event>, bool, bool);

/// One WatchTable stream: the snapshot (if asked for), then the table's events from its
/// cursor on, read from the log when the transport asks for the next one.
pub(crate) struct Watching {
    /// The table, held strongly by the stream's slot (in `shared`): a stream the watchdog
    /// ended does not keep an expired table alive.
    handle: Weak<TableHandle>,
    watcher: Watcher,
    /// The last seq delivered (or skipped by the snapshot).
    cursor: u64,
    /// The snapshot to send first, if the client asked for one.
    first: Option<Box<pb::WatchTableResponse>>,
    /// Events read under one lock and not yet taken (an empty iterator holds nothing).
    ready: std::vec::IntoIter<pb::Event>,
    /// The last read reached what the table had published.
    caught_up: bool,
    /// ... and the match is over: the stream ends once `ready` is taken.
    finished: bool,
    /// The waker this stream left with its table, woken when the table publishes (or is
    /// closed, or the server stops).
    registered: Registered,
    /// The derivation under way, on a blocking thread.
    deriving: Option<JoinHandle<Vec<LogEntry>>>,
    /// What the watchdog sees of this stream (and the slots it holds).
    shared: Arc<Shared>,
    /// Counts the derivations.
    metrics: Metrics,
    /// The stream has ended.
    done: bool,
}

impl Stream for Watching {
    type Item = Result<pb::WatchTableResponse, Status>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let this = &mut *self;
        if this.done {
            return Poll::Ready(None);
        }
        let next = this.next(cx);
        this.shared.deriving(next.is_pending() && this.deriving.is_some());
        match &next {
            Poll::Pending => {}
            Poll::Ready(Some(Ok(_))) => this.shared.took(this.cursor),
            Poll::Ready(end) => {
                this.done = true;
                // The slots are given back when the stream ends, not when the transport
                // lets go of it.
                this.shared.release();
                if let (Some(Err(status)), Some(handle)) = (end, this.handle.upgrade()) {
                    let seat = this.watcher.seat();
                    // The table's lock is taken only when the line is logged (tracing
                    // evaluates a field only for an enabled level).
                    tracing::debug!(table = %handle.lock().id(), ?seat, code = ?status.code(), "stream ended");
                }
            }
        }
        next
    }
}

impl Watching {
    /// The next response, the end (`Some(Err)` or `None`), or pending until the table
    /// publishes or the past is derived.
    fn next(&mut self, cx: &mut Context<'_>) -> Poll<Option<Result<pb::WatchTableResponse, Status>>> {
        loop {
            if let Some(why) = self.shared.ended() {
                return Poll::Ready(Some(Err(self.ended(why))));
            }
            if let Some(first) = self.first.take() {
                return Poll::Ready(Some(Ok(*first)));
            }
            if let Some(event) = self.ready.next() {
                self.cursor = event.seq;
                return Poll::Ready(Some(Ok(pb::WatchTableResponse { kind: Some(WatchKind::Event(event)) })));
            }
            // Let go of the taken batch's memory.
            self.ready = Vec::new().into_iter();
            if let Some(job) = self.deriving.as_mut() {
                let derived = ready!(Pin::new(job).poll(cx));
                self.deriving = None;
                if let Err(status) = self.derived(derived.ok()) {
                    return Poll::Ready(Some(Err(status)));
                }
                continue;
            }
            let Some(handle) = self.handle.upgrade() else {
                // Its slot let go of the table: the stream ended.
                return Poll::Ready(None);
            };
            if !self.caught_up {
                match self.read(&handle, handle.published()) {
                    Ok(Ok((events, at_end, finished))) => {
                        self.ready = events.into_iter();
                        (self.caught_up, self.finished) = (at_end, finished);
                    }
                    // Rare (a stream resuming from long ago): derived away from the lock.
                    Ok(Err(past)) => {
                        self.metrics.stream_derivations.inc();
                        self.deriving = Some(tokio::task::spawn_blocking(move || past.derive()));
                    }
                    Err(status) => return Poll::Ready(Some(Err(status))),
                }
                continue;
            }
            if self.finished {
                // Everything up to the end of the match is delivered: a clean end.
                return Poll::Ready(None);
            }
            if handle.is_closed() {
                let expired = Refusal::new(Code::NotFound, R::TableExpired, "the table has expired");
                return Poll::Ready(Some(Err(expired.status())));
            }
            ready!(handle.poll_published(self.cursor, &mut self.registered, cx));
            self.caught_up = false;
        }
    }

    /// Under the table's lock: the next events up to `until` (with whether they reach it
    /// and whether the match is over), or, for a stream behind what the table holds, its
    /// inputs to derive them from away from the lock.
    fn read(&mut self, handle: &TableHandle, until: u64) -> Result<Result<Batch, Past>, Status> {
        let t = handle.lock();
        if let Watcher::Seat { seat, token } = &self.watcher
            && t.seat_of_hash(token) != Some(*seat)
        {
            return Err(Refusal::new(
                Code::PermissionDenied,
                R::SeatLost,
                format!("this stream's token no longer holds seat {seat} (it left the table)"),
            )
            .status());
        }
        let mut held = self.shared.held();
        let behind = self.cursor.checked_sub(held.backlog_after).and_then(|b| usize::try_from(b).ok());
        let events = if let Some(behind) = behind.filter(|b| *b < held.backlog.len()) {
            let n = BATCH.min(usize::try_from(until.saturating_sub(self.cursor)).unwrap_or(usize::MAX));
            let entries = &held.backlog[behind..held.backlog.len().min(behind + n)];
            projection::events_of(&t, entries, self.cursor + 1, self.watcher.seat())
        } else if t.holds_after(self.cursor) {
            (held.backlog, held.backlog_after) = (Vec::new(), 0);
            projection::events_after(&t, self.cursor, until, self.watcher.seat(), BATCH)
        } else {
            return Ok(Err(t.past()));
        };
        let last = events.last().map_or(self.cursor, |e| e.seq);
        Ok(Ok((events, last >= until, last >= until && t.is_finished() && until >= t.seq())))
    }

    /// Keeps, of the table's whole log as derived for this stream, the events after its
    /// cursor (in a vector of their own size: the rest is let go at once).
    fn derived(&mut self, derived: Option<Vec<LogEntry>>) -> Result<(), Status> {
        let mut derived = derived.unwrap_or_default();
        let rebuilt = derived.len() as u64 > self.cursor;
        let read = usize::try_from(self.cursor).unwrap_or(usize::MAX).min(derived.len());
        let unread = derived.split_off(read);
        let mut held = self.shared.held();
        (held.backlog, held.backlog_after) = (unread, read as u64);
        drop(held);
        if !rebuilt {
            // The inputs did not rebuild the events the table has let go of (a bug): end
            // the stream rather than ask again and again.
            let table = self.handle.upgrade().map(|h| h.lock().id().to_string());
            let seat = self.watcher.seat();
            tracing::error!(?table, ?seat, cursor = self.cursor, "the table's past could not be derived");
            return Err(Refusal::new(
                Code::Internal,
                R::Internal,
                "the table's past events could not be read",
            )
            .status());
        }
        Ok(())
    }

    /// The status that ends a stream the watchdog ended, with where to resume.
    fn ended(&self, why: Ended) -> Status {
        let cursor = self.cursor;
        match why {
            Ended::Stalled => {
                let stall = self.shared.stall;
                Refusal::new(
                    Code::ResourceExhausted,
                    R::StreamBehind,
                    format!(
                        "the stream fell behind (no event taken for {} ms); reconnect with after_seq={cursor}",
                        stall.as_millis()
                    ),
                )
                .with("after_seq", cursor)
                .status()
            }
            Ended::ShuttingDown => Refusal::new(
                Code::Unavailable,
                R::ShuttingDown,
                format!("server is shutting down; reconnect with after_seq={cursor}"),
            )
            .with("after_seq", cursor)
            .status(),
        }
    }
}

/// The WatchTable stream.
pub(crate) type WatchStream = Pin<Box<dyn Stream<Item = Result<pb::WatchTableResponse, Status>> + Send>>;

/// WatchTable: a snapshot (unless resuming with `after_seq`), then every event as the
/// caller may see it. The stream holds a slot at the table and one of its address's
/// streams until it ends.
pub(crate) async fn watch(
    s: &SkatServer,
    request: Request<pb::WatchTableRequest>,
) -> Result<WatchStream, Status> {
    s.admit(request.metadata(), Access::Watch).await?;
    let handle = s.readable(&request.get_ref().table_id, false).await?;
    let token = bearer(request.metadata())?;
    if token.is_none() {
        // Duplicate's secrets: a spectator of a tournament table waits for its list.
        let marked = handle.lock().config().marked_for_embargo();
        s.competitions.embargo.check_embargo(&request.get_ref().table_id, marked).await.refused()?;
    }
    let t = handle.settled().await;
    let client = s.open_stream(&request)?;
    let watcher = match token {
        None => Watcher::Spectator,
        Some(token) => Watcher::Seat { seat: seat_in(&t, &token)?, token: TokenHash::of(&token) },
    };
    let slot = StreamSlot::open(&handle, watcher.seat(), &s.config.table_limits(), s.metrics.table())
        .map_err(Refusal::from)?;
    let (first, cursor) = match request.get_ref().after_seq {
        None => {
            let snapshot = projection::table_view(&t, watcher.seat(), Instant::now());
            let seq = snapshot.seq;
            (Some(Box::new(pb::WatchTableResponse { kind: Some(WatchKind::Snapshot(snapshot)) })), seq)
        }
        Some(after) if after > t.seq() => {
            return Err(Refusal::new(
                Code::OutOfRange,
                R::AfterSeqAhead,
                format!("after_seq {after} is ahead of the table (seq {})", t.seq()),
            )
            .with("current_seq", t.seq())
            .into());
        }
        Some(after) => (None, after),
    };
    drop(t);
    let shared = s.watchdog.register(&handle, (slot, client), cursor);
    record_table(&request.get_ref().table_id);
    Ok(Box::pin(Watching::new(&handle, watcher, cursor, first, (shared, s.metrics.clone()))))
}

impl Watching {
    fn new(
        handle: &Arc<TableHandle>,
        watcher: Watcher,
        cursor: u64,
        first: Option<Box<pb::WatchTableResponse>>,
        (shared, metrics): (Arc<Shared>, Metrics),
    ) -> Watching {
        Watching {
            handle: Arc::downgrade(handle),
            watcher,
            cursor,
            first,
            ready: Vec::new().into_iter(),
            caught_up: false,
            finished: false,
            registered: Registered::default(),
            deriving: None,
            shared,
            metrics,
            done: false,
        }
    }
}

impl Drop for Watching {
    fn drop(&mut self) {
        if let Some(handle) = self.handle.upgrade() {
            handle.forget(&mut self.registered);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A stream lives as long as its reader reads, three or more per table in play: what
    /// it holds is paid for every stream, waiting or not (docs/server.md, memory bounds).
    #[test]
    fn a_stream_is_small() {
        let size = std::mem::size_of::<Watching>();
        println!("a WatchTable stream: {size} bytes");
        assert!(size <= 256, "a stream holds {size} bytes");
    }
}
