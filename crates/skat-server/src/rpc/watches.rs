//! WatchTables: many WatchTable streams carried on one. A lobby plays thirty seats on one
//! connection; as thirty HTTP/2 streams each costs the server h2's stream state, hyper's
//! task, tonic's body and encode buffer (about 2 KiB a stream: docs/BENCHMARKS.md, memory
//! per table in play). Here each watch is the same [`super::watch::Watching`] a
//! WatchTable call opens, polled by this one stream in turn.
//!
//! | rule | why |
//! |---|---|
//! | a watch is opened by [`super::watch::watch`] with the stream's own metadata and connection, the add's token in place of its `authorization` | a watch is exactly a WatchTable call: the same admission, seat check, embargo, slots and per-client and per-connection stream limits, the same snapshot and events byte for byte |
//! | the stream itself needs no token and counts as one stream against the limits | its watches are admitted one by one, each with its own token; an empty WatchTables holds little, but nothing open goes uncounted |
//! | the client's messages are read one at a time, and none while an add is being opened | an add may wait for the table's lock or the database; a client that sends faster is held back by HTTP/2's flow control, not by a queue here |
//! | a watch that ends sends one `ended` with the status WatchTable would have ended with (its code, message, details and `skat-owner`); the others go on | one table's refusal is not every table's |
//! | only the watches that were woken are polled ([`super::woken`]), in the order they were woken; a watch that answered goes to the back of the line | an event costs one watch's poll, not one for each watch on the stream; a watch with a long backlog (a resume derived from the inputs) does not starve the others |
//! | bytes that are no request end the whole stream with INVALID_ARGUMENT (too large a request: RESOURCE_EXHAUSTED), as any call's; an add that reuses an open `watch_id` ends it with INVALID_ARGUMENT; a remove of an unknown one is ignored (it may have ended already) | responses could not say which watch they belong to |
//! | at most [`INBOUND_PER_POLL`] client messages are taken in one poll | a client that floods removes cannot hold a worker |
//! | on shutdown, a stream whose watches have all ended ends with UNAVAILABLE | its client opens the next one elsewhere (another replica) instead of adding to a server that stops |

use std::collections::VecDeque;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll, Waker};

use skat_proto::pb::ErrorReason as R;
use skat_proto::pb::{self, watch_table_response::Kind as WatchKind, watch_tables_request::Kind as Ask};
use tokio_stream::Stream;
use tonic::metadata::{MetadataMap, MetadataValue};
use tonic::{Code, Extensions, Request, Status, Streaming};

use super::limits::StreamPermits;
use super::refusal::Refusal;
use super::service::{OWNER_METADATA, SkatServer};
use super::watch::{WatchStream, watch};
use super::woken::{WatchWaker, Woken};

/// Client messages taken in one poll before the stream yields to the other tasks.
const INBOUND_PER_POLL: usize = 64;

/// A watch being opened.
type Adding = Pin<Box<dyn Future<Output = Result<WatchStream, Status>> + Send>>;

/// The WatchTables stream.
pub(crate) type WatchesStream = Pin<Box<dyn Stream<Item = Result<pb::WatchTablesResponse, Status>> + Send>>;

/// One WatchTables stream: the client's requests and the watches they opened.
struct Watches {
    server: SkatServer,
    /// The call's metadata and connection, from which every watch is opened.
    metadata: MetadataMap,
    extensions: Extensions,
    /// The client's side, until it ends.
    inbound: Option<Streaming<pb::WatchTablesRequest>>,
    /// The watch being opened, by its id.
    adding: Option<(u64, Adding)>,
    /// The open watches.
    open: Vec<Open>,
    /// The keys of the watches to poll, in turn (woken, new, or just answered).
    due: VecDeque<u64>,
    /// The watches woken since the stream last looked.
    woken: Woken,
    /// The next watch's key (ids are the client's and may be reused after a remove).
    next_key: u64,
    /// This stream's place in the limits.
    _permits: StreamPermits,
    done: bool,
}

/// WatchTables: counted as a stream, then driven by the client's adds (each admitted
/// as the WatchTable call it stands for: the stream itself carries no token).
pub(crate) async fn watch_tables(
    s: &SkatServer,
    request: Request<Streaming<pb::WatchTablesRequest>>,
) -> Result<WatchesStream, Status> {
    let permits = s.open_stream(&request)?;
    let (metadata, extensions, inbound) = request.into_parts();
    Ok(Box::pin(Watches {
        server: s.clone(),
        metadata,
        extensions,
        inbound: Some(inbound),
        adding: None,
        open: Vec::new(),
        due: VecDeque::new(),
        woken: Woken::default(),
        next_key: 0,
        _permits: permits,
        done: false,
    }))
}

impl Stream for Watches {
    type Item = Result<pb::WatchTablesResponse, Status>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let this = &mut *self;
        if this.done {
            return Poll::Ready(None);
        }
        if let Some(answer) = this.poll_requests(cx) {
            this.done = answer.as_ref().is_err();
            return Poll::Ready(Some(answer));
        }
        if let Some(answer) = this.poll_watches(cx) {
            return Poll::Ready(Some(Ok(answer)));
        }
        if this.adding.is_none() && this.open.is_empty() {
            if this.inbound.is_none() {
                // The client closed its side and every watch has ended.
                this.done = true;
                return Poll::Ready(None);
            }
            if *this.server.shutdown.borrow() {
                // Its watches were ended by the shutdown: the client opens its next stream
                // elsewhere (another replica) rather than add to this one.
                this.done = true;
                let stopping = Refusal::new(Code::Unavailable, R::ShuttingDown, "server is shutting down");
                return Poll::Ready(Some(Err(stopping.status())));
            }
        }
        Poll::Pending
    }
}

impl Watches {
    /// Opens the adds and takes the removes the client sent: an answer to send (an add
    /// refused, a watch removed, or the whole stream's end), or `None` when there is
    /// nothing to say (waiting for the client or an add).
    fn poll_requests(&mut self, cx: &mut Context<'_>) -> Option<Result<pb::WatchTablesResponse, Status>> {
        for _ in 0..INBOUND_PER_POLL {
            if let Some((id, job)) = self.adding.as_mut() {
                let opened = match job.as_mut().poll(cx) {
                    Poll::Ready(opened) => opened,
                    Poll::Pending => return None,
                };
                let id = *id;
                self.adding = None;
                match opened {
                    Ok(stream) => self.add_open(id, stream),
                    Err(status) => return Some(Ok(ended(id, &status))),
                }
            }
            let inbound = self.inbound.as_mut()?;
            let ask = match Pin::new(inbound).poll_next(cx) {
                Poll::Pending => return None,
                Poll::Ready(Some(Ok(request))) => request.kind,
                // The client closed its side: the open watches go on until they end.
                Poll::Ready(None) => {
                    self.inbound = None;
                    return None;
                }
                // Bytes that are no request (or too large a one): the client's fault, as
                // the edge says it for any other call.
                Poll::Ready(Some(Err(status))) => {
                    self.inbound = None;
                    return Some(Err(super::edge::corrected(&status).unwrap_or(status)));
                }
            };
            match ask {
                Some(Ask::Add(add)) => {
                    if self.open.iter().any(|open| open.id == add.watch_id) {
                        let message = format!("watch_id {} is open on this stream already", add.watch_id);
                        return Some(Err(Refusal::new(Code::InvalidArgument, R::MalformedRequest, message)
                            .with("watch_id", add.watch_id)
                            .status()));
                    }
                    self.adding = Some((add.watch_id, self.open_watch(add)));
                }
                Some(Ask::Remove(remove)) => {
                    if let Some(at) = self.open.iter().position(|open| open.id == remove.watch_id) {
                        // Dropping the watch gives its slots back.
                        drop(self.open.swap_remove(at));
                        let removed = Status::cancelled("the watch was removed");
                        return Some(Ok(ended(remove.watch_id, &removed)));
                    }
                }
                None => {
                    let message = "a WatchTables request names neither an add nor a remove";
                    return Some(Err(
                        Refusal::new(Code::InvalidArgument, R::MalformedRequest, message).status()
                    ));
                }
            }
        }
        // More waits: look again after the other tasks.
        cx.waker().wake_by_ref();
        None
    }

    /// The watch `add` asks for, opened as the WatchTable call it stands for.
    fn open_watch(&self, add: pb::WatchAdd) -> Adding {
        let mut metadata = self.metadata.clone();
        metadata.remove("authorization");
        let token = (!add.seat_token.is_empty())
            .then(|| MetadataValue::try_from(format!("Bearer {}", add.seat_token)))
            .transpose();
        let server = self.server.clone();
        let extensions = self.extensions.clone();
        let request = pb::WatchTableRequest { table_id: add.table_id, after_seq: add.after_seq };
        Box::pin(async move {
            match token {
                Ok(Some(value)) => {
                    metadata.insert("authorization", value);
                }
                Ok(None) => {}
                Err(_) => {
                    let message = "a seat token is printable ASCII";
                    return Err(Refusal::new(Code::Unauthenticated, R::TokenMalformed, message).status());
                }
            }
            watch(&server, Request::from_parts(metadata, extensions, request)).await
        })
    }

    /// A watch opened: polled first at the next look (its snapshot or first events).
    fn add_open(&mut self, id: u64, stream: WatchStream) {
        let key = self.next_key;
        self.next_key += 1;
        let (one, waker) = self.woken.waker(key);
        self.open.push(Open { id, key, stream, one, waker });
        self.due.push_back(key);
    }

    /// The next response of a watch that was woken (or answered last time, or is new),
    /// in turn; a watch that ended is let go and says so.
    fn poll_watches(&mut self, cx: &mut Context<'_>) -> Option<pb::WatchTablesResponse> {
        for key in self.woken.take(cx.waker()) {
            if !self.due.contains(&key) {
                self.due.push_back(key);
            }
        }
        // Each due watch once, and those that answered with nothing to send once more.
        let mut looks = 2 * self.due.len();
        while let Some(key) = self.due.pop_front() {
            let Some(at) = self.open.iter().position(|open| open.key == key) else { continue };
            let open = &mut self.open[at];
            open.one.clear();
            let next = match open.stream.as_mut().poll_next(&mut Context::from_waker(&open.waker)) {
                Poll::Pending => continue,
                Poll::Ready(next) => next,
            };
            let id = open.id;
            let kind = match next {
                Some(Ok(pb::WatchTableResponse { kind: Some(WatchKind::Snapshot(view)) })) => {
                    pb::watch_tables_response::Kind::Snapshot(view)
                }
                Some(Ok(pb::WatchTableResponse { kind: Some(WatchKind::Event(event)) })) => {
                    pb::watch_tables_response::Kind::Event(event)
                }
                Some(Ok(pb::WatchTableResponse { kind: None })) => {
                    self.due.push_back(key);
                    looks = looks.saturating_sub(1);
                    if looks == 0 {
                        // Look again after the other tasks.
                        cx.waker().wake_by_ref();
                        return None;
                    }
                    continue;
                }
                Some(Err(status)) => {
                    drop(self.open.swap_remove(at));
                    return Some(ended(id, &status));
                }
                None => {
                    drop(self.open.swap_remove(at));
                    return Some(ended(id, &Status::ok("the match is over")));
                }
            };
            // It may have more: after the others that are due.
            self.due.push_back(key);
            return Some(pb::WatchTablesResponse { watch_id: id, kind: Some(kind) });
        }
        None
    }
}

/// An open watch: the client's id, the stream's own key, and the waker it is polled with.
struct Open {
    id: u64,
    key: u64,
    stream: WatchStream,
    one: Arc<WatchWaker>,
    waker: Waker,
}

/// The `ended` message for a watch that ended with `status`.
fn ended(watch_id: u64, status: &Status) -> pb::WatchTablesResponse {
    let owner = status.metadata().get(OWNER_METADATA).and_then(|v| v.to_str().ok()).unwrap_or_default();
    let end = pb::WatchEnded {
        code: status.code() as u32,
        message: status.message().to_string(),
        details: status.details().to_vec(),
        owner: owner.to_string(),
    };
    pb::WatchTablesResponse { watch_id, kind: Some(pb::watch_tables_response::Kind::Ended(end)) }
}
