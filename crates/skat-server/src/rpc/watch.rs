//! WatchTable: one stream is a cursor into a table's log, fed to the client through a
//! small bounded buffer.
//!
//! | rule | why |
//! |---|---|
//! | a seat's token is checked under the table lock on every read of the log | a stream carries a seat's rights only while its token holds the seat: after `LeaveTable` the next read ends the stream with PERMISSION_DENIED, before a newcomer's card can be read for it |
//! | only published events are read (the table's `seq` watch, set after each commit) | nobody sees an event that is not yet durable |
//! | the backlog is read in batches until the cursor reaches the log's end | resuming after any gap delivers everything, however long |
//! | the buffer holds [`BUFFER`] responses; a reader that takes none for `--stream-stall-timeout` while events wait is ended with RESOURCE_EXHAUSTED | a stalled reader costs a bounded amount of memory and gives its slot back; it resumes with `after_seq` |
//! | shutdown ends the stream with UNAVAILABLE even while it waits for the reader | a client that does not read cannot hold the server (the server also closes connections after `--shutdown-grace`) |
//!
//! The end of a stream (an error status after the buffered events) travels beside the
//! buffer, so it is delivered even when the buffer is full.

use std::future::Future as _;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use skat_engine::matches::Seat;
use skat_proto::pb::ErrorReason as R;
use skat_proto::pb::{self, watch_table_response::Kind as WatchKind};
use tokio::sync::{mpsc, oneshot, watch};
use tokio_stream::Stream;
use tonic::{Code, Request, Status};

use super::access::{Access, bearer, seat_in};
use super::projection;
use super::refusal::Refusal;
use super::service::{SkatServer, record_table};
use crate::secret::TokenHash;
use crate::table::slots::StreamSlot;
use crate::table::{LogEntry, Past, TableHandle};

/// Responses buffered per stream. Each is boxed in the buffer: a response is 912 bytes
/// inline and the channel allocates its slots 32 at a time, so an unboxed buffer held
/// about 29 KiB per stream (three per table in play) whether it was used or not; boxed,
/// it holds 256 bytes of pointers and only the responses that wait.
pub(crate) const BUFFER: usize = 32;
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

/// The response stream: the buffered responses, then the end status if there is one.
pub(crate) struct Responses {
    rx: mpsc::Receiver<Box<pb::WatchTableResponse>>,
    end: Option<oneshot::Receiver<Status>>,
}

impl Stream for Responses {
    type Item = Result<pb::WatchTableResponse, Status>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        match self.rx.poll_recv(cx) {
            Poll::Ready(Some(r)) => return Poll::Ready(Some(Ok(*r))),
            Poll::Pending => return Poll::Pending,
            Poll::Ready(None) => {}
        }
        let Some(end) = self.end.as_mut() else { return Poll::Ready(None) };
        match Pin::new(end).poll(cx) {
            Poll::Ready(status) => {
                self.end = None;
                Poll::Ready(status.ok().map(Err))
            }
            Poll::Pending => Poll::Pending,
        }
    }
}

/// Why the feeding task stopped early.
enum Stop {
    /// The client went away: nothing to say.
    Gone,
    /// End the stream with this status.
    End(Status),
}

/// Events read for a stream, whether they reach what the table had when it was woken, and
/// whether the match is over.
type Batch = (Vec<pb::Event>, bool, bool);

/// A stream's feeding task and the stream it feeds.
pub(crate) struct Feed {
    /// The table.
    pub handle: Arc<TableHandle>,
    /// Who watches.
    pub watcher: Watcher,
    /// The last seq delivered (or skipped by the snapshot).
    pub cursor: u64,
    /// The snapshot to send first, if the client asked for one (boxed: the feeding task
    /// keeps its `Feed` for the stream's life, and the snapshot is sent at once).
    pub first: Option<Box<pb::WatchTableResponse>>,
    /// Turns true when the server shuts down.
    pub shutdown: watch::Receiver<bool>,
    /// See [`ServerConfig::stream_stall_timeout`](crate::ServerConfig::stream_stall_timeout).
    pub stall_timeout: Duration,
    /// The table's whole log as derived for this stream when it was behind what the table
    /// holds (`Table::past`): rebuilt once, away from the table's lock, and read until
    /// the stream has caught up (a stream behind costs what its backlog costs).
    pub backlog: Vec<LogEntry>,
}

impl Feed {
    /// Spawns the feeding task (holding `guards` until it ends) and returns the stream.
    /// The task carries no tracing span: a span lives as long as the stream (about 800
    /// bytes in the subscriber's registry, three or more streams per table in play), and
    /// the task logs twice at most, with the table and seat as fields.
    pub(crate) fn spawn<G: Send + 'static>(self, guards: G) -> Responses {
        let (tx, rx) = mpsc::channel(BUFFER);
        let (end_tx, end_rx) = oneshot::channel();
        tokio::spawn(async move {
            let _guards = guards;
            let (handle, seat) = (Arc::clone(&self.handle), self.watcher.seat());
            if let Err(Stop::End(status)) = self.run(&tx).await {
                // The table's lock is taken only when the line is logged (tracing
                // evaluates a field only for an enabled level).
                tracing::debug!(table = %handle.lock().id(), ?seat, code = ?status.code(), "stream ended");
                let _ = end_tx.send(status);
            }
        });
        Responses { rx, end: Some(end_rx) }
    }

    async fn run(mut self, tx: &mpsc::Sender<Box<pb::WatchTableResponse>>) -> Result<(), Stop> {
        let handle = Arc::clone(&self.handle);
        let mut wake = handle.subscribe();
        if let Some(first) = self.first.take() {
            self.send(tx, first).await?;
        }
        loop {
            let until = *wake.borrow_and_update();
            let (events, at_end, finished) = match self.read(&handle, until)? {
                Ok(read) => read,
                Err(past) => {
                    // Rare (a stream resuming from long ago): boxed, so that its state
                    // is not carried by every stream.
                    Box::pin(self.derive(past)).await?;
                    continue;
                }
            };
            for event in events {
                let seq = event.seq;
                self.send(tx, Box::new(pb::WatchTableResponse { kind: Some(WatchKind::Event(event)) }))
                    .await?;
                self.cursor = seq;
            }
            if !at_end {
                // More backlog: read on without waiting for the table.
                continue;
            }
            if finished {
                // Everything up to the end of the match is delivered: a clean end.
                return Ok(());
            }
            if handle.is_closed() {
                return Err(Stop::End(
                    Refusal::new(Code::NotFound, R::TableExpired, "the table has expired").status(),
                ));
            }
            if *self.shutdown.borrow() {
                return Err(self.shutting_down());
            }
            tokio::select! {
                changed = wake.changed() => if changed.is_err() { return Err(Stop::Gone) },
                _ = self.shutdown.changed() => {}
                _ = tx.closed() => return Err(Stop::Gone),
            }
        }
    }

    /// Under the table's lock: the next events up to `until` (with whether they reach it
    /// and whether the match is over), or, for a stream behind what the table holds, its
    /// inputs to derive them from away from the lock.
    fn read(&mut self, handle: &TableHandle, until: u64) -> Result<Result<Batch, Past>, Stop> {
        let t = handle.lock();
        if let Watcher::Seat { seat, token } = &self.watcher
            && t.seat_of_hash(token) != Some(*seat)
        {
            return Err(Stop::End(
                Refusal::new(
                    Code::PermissionDenied,
                    R::SeatLost,
                    format!("this stream's token no longer holds seat {seat} (it left the table)"),
                )
                .status(),
            ));
        }
        let behind = usize::try_from(self.cursor).unwrap_or(usize::MAX);
        let events = if behind < self.backlog.len() {
            let n = BATCH.min(usize::try_from(until.saturating_sub(self.cursor)).unwrap_or(usize::MAX));
            let entries = &self.backlog[behind..self.backlog.len().min(behind + n)];
            projection::events_of(&t, entries, self.cursor + 1, self.watcher.seat())
        } else if t.holds_after(self.cursor) {
            self.backlog = Vec::new();
            projection::events_after(&t, self.cursor, until, self.watcher.seat(), BATCH)
        } else {
            return Ok(Err(t.past()));
        };
        let last = events.last().map_or(self.cursor, |e| e.seq);
        Ok(Ok((events, last >= until, t.is_finished() && until >= t.seq())))
    }

    /// Derives the table's whole log for this stream, on a blocking thread.
    async fn derive(&mut self, past: Past) -> Result<(), Stop> {
        self.backlog = tokio::task::spawn_blocking(move || past.derive()).await.map_err(|_| Stop::Gone)?;
        if self.backlog.len() as u64 <= self.cursor {
            // The inputs did not rebuild the events the table has let go of (a bug): end
            // the stream rather than ask again and again.
            let (table, seat) = (self.handle.lock().id().clone(), self.watcher.seat());
            tracing::error!(%table, ?seat, cursor = self.cursor, "the table's past could not be derived");
            return Err(Stop::End(
                Refusal::new(Code::Internal, R::Internal, "the table's past events could not be read")
                    .status(),
            ));
        }
        Ok(())
    }

    fn shutting_down(&self) -> Stop {
        Stop::End(shutting_down(self.cursor))
    }

    /// Puts one response into the buffer, waiting at most the stall timeout for room.
    /// The response comes boxed, and the wait for room (a timer and three futures) is
    /// boxed only when the buffer is full: a future keeps what it may hold across an
    /// `.await` for the stream's whole life, three or more streams per table in play.
    async fn send(
        &mut self,
        tx: &mpsc::Sender<Box<pb::WatchTableResponse>>,
        item: Box<pb::WatchTableResponse>,
    ) -> Result<(), Stop> {
        let permit = match tx.try_reserve() {
            Ok(permit) => permit,
            Err(mpsc::error::TrySendError::Closed(())) => return Err(Stop::Gone),
            Err(mpsc::error::TrySendError::Full(())) => Box::pin(self.room(tx)).await?,
        };
        permit.send(item);
        Ok(())
    }

    /// Waits for room in a full buffer, at most the stall timeout.
    async fn room<'a>(
        &mut self,
        tx: &'a mpsc::Sender<Box<pb::WatchTableResponse>>,
    ) -> Result<mpsc::Permit<'a, Box<pb::WatchTableResponse>>, Stop> {
        let (stall, cursor) = (self.stall_timeout, self.cursor);
        tokio::select! {
            permit = tx.reserve() => permit.map_err(|_| Stop::Gone),
            _ = tokio::time::sleep(stall) => Err(Stop::End(
                Refusal::new(
                    Code::ResourceExhausted,
                    R::StreamBehind,
                    format!(
                        "the stream fell behind (no event taken for {} ms); reconnect with after_seq={cursor}",
                        stall.as_millis()
                    ),
                )
                .with("after_seq", cursor)
                .status(),
            )),
            _ = self.shutdown.wait_for(|s| *s) => Err(Stop::End(shutting_down(cursor))),
        }
    }
}

/// The status that ends a stream when the server shuts down, with where to resume.
fn shutting_down(cursor: u64) -> Status {
    Refusal::new(
        Code::Unavailable,
        R::ShuttingDown,
        format!("server is shutting down; reconnect with after_seq={cursor}"),
    )
    .with("after_seq", cursor)
    .status()
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
        let marked = handle.lock().config.marked_for_embargo();
        s.competitions.embargo.check_embargo(&request.get_ref().table_id, marked).await?;
    }
    let t = handle.settled().await;
    let client = s.open_stream(&request)?;
    let watcher = match token {
        None => Watcher::Spectator,
        Some(token) => Watcher::Seat { seat: seat_in(&t, &token)?, token: TokenHash::of(&token) },
    };
    let slot = StreamSlot::open(&handle, watcher.seat(), &s.config, &s.metrics).map_err(Refusal::from)?;
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
    let feed = Feed {
        handle: Arc::clone(&handle),
        watcher,
        cursor,
        first,
        shutdown: s.shutdown.clone(),
        stall_timeout: s.config.stream_stall_timeout,
        backlog: Vec::new(),
    };
    record_table(&request.get_ref().table_id);
    Ok(Box::pin(feed.spawn((slot, client))))
}

#[cfg(test)]
mod tests {
    use std::time::SystemTime;

    use skat_engine::MatchConfig;

    use super::*;
    use crate::table::{Table, TableConfig, TableId};

    /// A stream's feeding task lives as long as the stream, three or more per table in
    /// play: what its future holds across an `.await` is paid for every stream, waiting
    /// or not (docs/server.md, memory bounds).
    #[test]
    fn a_streams_feeding_task_is_small() {
        let config = TableConfig {
            name: "t".into(),
            game: MatchConfig::standard(3, 1),
            action_ms: 0,
            deal_ms: 0,
            join_code: None,
            max_joins: 10,
            tournament: false,
        };
        let table =
            Table::new(TableId::new(None, 1), config, Instant::now(), SystemTime::now()).expect("a table");
        let feed = Feed {
            handle: TableHandle::archived(table),
            watcher: Watcher::Spectator,
            cursor: 0,
            first: None,
            shutdown: watch::channel(false).1,
            stall_timeout: Duration::from_secs(1),
            backlog: Vec::new(),
        };
        let (tx, _rx) = mpsc::channel(1);
        let run = feed.run(&tx);
        let size = std::mem::size_of_val(&run);
        println!("feeding future: {size} bytes");
        assert!(size <= 1024, "a stream's feeding future holds {size} bytes");
    }
}
