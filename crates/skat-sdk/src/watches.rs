//! The seats on a shared connection watch their tables through one WatchTables stream
//! (`skat.v1`), not a WatchTable stream each. The server keeps state for every open
//! HTTP/2 stream (h2's, hyper's task, tonic's body and buffer: about 2 KiB a stream), so
//! thirty seats on one stream cost it less than on thirty (docs/BENCHMARKS.md, memory per
//! table in play).
//!
//! | rule | why |
//! |---|---|
//! | a [`WatchHub`] belongs to one connection; it opens its WatchTables stream at its first watch and again after the stream ended | a stream that broke with its connection is not reused; the seats on it resume through the hub's next stream |
//! | each watch gets its own queue, filled by the hub's reader as responses arrive | a seat that thinks (and reads nothing meanwhile) never holds the other seats' events back; its queue holds what its table did meanwhile, which its own turn bounds (the table waits for it) |
//! | a watch that ends yields the status WatchTable would have ended with (code, message, `ErrorInfo`, `skat-owner`), then its end | a seat handles a watch's end exactly as a WatchTable stream's: `play` resumes, stops, or follows a redirect the same way |
//! | when the shared stream breaks, every open watch yields UNAVAILABLE | each seat reconnects and resumes after its last event, as after any break |
//! | a server without WatchTables (UNIMPLEMENTED) is remembered: the hub's seats use WatchTable | new SDKs work with older servers |
//! | dropping a [`WatchStream`] removes its watch | the server lets go of the watch's slots at once |

use std::collections::HashMap;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, Weak};
use std::task::{Context, Poll};

use skat_proto::pb::skat_service_client::SkatServiceClient;
use skat_proto::pb::{self, watch_table_response::Kind as WatchKind, watch_tables_response::Kind as Said};
use tokio::sync::mpsc;
use tokio_stream::Stream;
use tokio_stream::wrappers::UnboundedReceiverStream;
use tonic::metadata::MetadataMap;
use tonic::transport::Channel;
use tonic::{Code, Status, Streaming};

use crate::error::OWNER_METADATA;

/// What a watch yields: WatchTable's messages, or the status it ended with.
type Item = Result<pb::WatchTableResponse, Status>;

/// The WatchTables stream of one connection, shared by the seats on it. Clones share it.
#[derive(Clone, Default)]
pub struct WatchHub {
    slot: Arc<tokio::sync::Mutex<Slot>>,
}

impl std::fmt::Debug for WatchHub {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("WatchHub")
    }
}

/// The hub's stream: not opened yet (or ended), open, or not offered by the server.
#[derive(Default)]
enum Slot {
    #[default]
    Closed,
    Open(Arc<Shared>),
    Unsupported,
}

/// One open WatchTables stream: where to send adds and removes, and each watch's queue.
struct Shared {
    requests: mpsc::UnboundedSender<pb::WatchTablesRequest>,
    routes: Mutex<HashMap<u64, mpsc::UnboundedSender<Item>>>,
    next_id: AtomicU64,
    /// The stream ended: no more watches on it.
    ended: AtomicBool,
}

impl Shared {
    fn routes(&self) -> MutexGuard<'_, HashMap<u64, mpsc::UnboundedSender<Item>>> {
        // Every change is one insert or remove: a panic elsewhere left the map whole.
        self.routes.lock().unwrap_or_else(|e| e.into_inner())
    }
}

impl WatchHub {
    /// A hub that opens its stream on first use.
    pub fn new() -> WatchHub {
        WatchHub::default()
    }

    /// A watch of `table_id` as `token`'s seat (or the public view without one), on this
    /// hub's stream over `client`'s connection: `None` when the server has no WatchTables
    /// (then use WatchTable).
    pub async fn watch(
        &self,
        client: &SkatServiceClient<Channel>,
        table_id: &str,
        token: &str,
        after_seq: Option<u64>,
    ) -> Result<Option<WatchStream>, Status> {
        let shared = {
            let mut slot = self.slot.lock().await;
            match &*slot {
                Slot::Unsupported => return Ok(None),
                Slot::Open(shared) if !shared.ended.load(Ordering::Acquire) => Arc::clone(shared),
                _ => match open(client.clone()).await? {
                    Some(shared) => {
                        *slot = Slot::Open(Arc::clone(&shared));
                        shared
                    }
                    None => {
                        *slot = Slot::Unsupported;
                        return Ok(None);
                    }
                },
            }
        };
        let id = shared.next_id.fetch_add(1, Ordering::Relaxed);
        let (tx, rx) = mpsc::unbounded_channel();
        {
            // Under the routes' lock, which the reader takes to mark the end: a route is
            // either in the map it empties or refused here, never left without a reader.
            let mut routes = shared.routes();
            if shared.ended.load(Ordering::Acquire) {
                let _ = tx.send(Err(Status::unavailable("the shared watch stream ended")));
            } else {
                routes.insert(id, tx);
            }
        }
        let add =
            pb::WatchAdd { watch_id: id, table_id: table_id.into(), seat_token: token.into(), after_seq };
        if shared
            .requests
            .send(pb::WatchTablesRequest { kind: Some(pb::watch_tables_request::Kind::Add(add)) })
            .is_err()
        {
            // The stream's sender has gone: the queue just made yields its end at once.
            shared.routes().remove(&id);
        }
        Ok(Some(WatchStream { inner: Inner::Shared { rx, id, shared } }))
    }
}

/// Opens a WatchTables stream on `client`'s connection and starts its reader: `None`
/// when the server does not offer it.
async fn open(mut client: SkatServiceClient<Channel>) -> Result<Option<Arc<Shared>>, Status> {
    let (requests, outgoing) = mpsc::unbounded_channel();
    let responses = match client.watch_tables(UnboundedReceiverStream::new(outgoing)).await {
        Ok(r) => r.into_inner(),
        Err(s) if s.code() == Code::Unimplemented => {
            tracing::debug!("the server has no WatchTables: each seat watches on its own stream");
            return Ok(None);
        }
        Err(s) => return Err(s),
    };
    let shared = Arc::new(Shared {
        requests,
        routes: Mutex::default(),
        next_id: AtomicU64::new(1),
        ended: AtomicBool::new(false),
    });
    tokio::spawn(read(Arc::downgrade(&shared), responses));
    Ok(Some(shared))
}

/// The hub's reader: hands each response to its watch's queue until the stream ends or
/// nobody holds the hub (its last seat went, so its requests' side closed and the server
/// ended the stream).
async fn read(shared: Weak<Shared>, mut responses: Streaming<pb::WatchTablesResponse>) {
    let end = loop {
        let said = match responses.message().await {
            Ok(Some(said)) => said,
            Ok(None) => break Status::unavailable("the server ended the shared watch stream"),
            Err(status) => break status,
        };
        let Some(shared) = shared.upgrade() else { return };
        let id = said.watch_id;
        let item = match said.kind {
            Some(Said::Snapshot(view)) => {
                Ok(pb::WatchTableResponse { kind: Some(WatchKind::Snapshot(view)) })
            }
            Some(Said::Event(event)) => Ok(pb::WatchTableResponse { kind: Some(WatchKind::Event(event)) }),
            Some(Said::Ended(end)) => {
                let route = shared.routes().remove(&id);
                if let (Some(route), Some(status)) = (route, status_of(end)) {
                    let _ = route.send(Err(status));
                }
                continue;
            }
            None => continue,
        };
        if let Some(route) = shared.routes().get(&id) {
            // A watch whose reader went is removed by its drop; a late response is let go.
            let _ = route.send(item);
        }
    };
    let Some(shared) = shared.upgrade() else { return };
    let routes = {
        let mut routes = shared.routes();
        shared.ended.store(true, Ordering::Release);
        std::mem::take(&mut *routes)
    };
    tracing::debug!(code = ?end.code(), watches = routes.len(), "the shared watch stream ended");
    for route in routes.into_values() {
        let broke = Status::unavailable(format!("the shared watch stream ended: {}", end.message()));
        let _ = route.send(Err(broke));
    }
}

/// The status a WatchTable stream would have ended with; `None` for a clean end (the
/// match is over) or a removal.
fn status_of(end: pb::WatchEnded) -> Option<Status> {
    let code = Code::from(i32::try_from(end.code).unwrap_or(Code::Unknown as i32));
    if matches!(code, Code::Ok | Code::Cancelled) {
        return None;
    }
    let mut metadata = MetadataMap::new();
    if let Ok(owner) = end.owner.parse()
        && !end.owner.is_empty()
    {
        metadata.insert(OWNER_METADATA, owner);
    }
    Some(Status::with_details_and_metadata(code, end.message, end.details.into(), metadata))
}

/// A seat's stream of its table: WatchTable's messages, read from its own WatchTable
/// stream or from its connection's shared WatchTables stream ([`WatchHub`]).
pub struct WatchStream {
    inner: Inner,
}

enum Inner {
    Direct(Box<Streaming<pb::WatchTableResponse>>),
    Shared { rx: mpsc::UnboundedReceiver<Item>, id: u64, shared: Arc<Shared> },
}

impl std::fmt::Debug for WatchStream {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.inner {
            Inner::Direct(_) => f.write_str("WatchStream(WatchTable)"),
            Inner::Shared { id, .. } => write!(f, "WatchStream(WatchTables, watch {id})"),
        }
    }
}

impl WatchStream {
    /// A seat's own WatchTable stream.
    pub fn direct(stream: Streaming<pb::WatchTableResponse>) -> WatchStream {
        WatchStream { inner: Inner::Direct(Box::new(stream)) }
    }

    /// The next message, `None` at the end (the match is over), or the status the
    /// stream ended with.
    pub async fn message(&mut self) -> Result<Option<pb::WatchTableResponse>, Status> {
        std::future::poll_fn(|cx| Pin::new(&mut *self).poll_next(cx)).await.transpose()
    }

    /// Whether this stream is carried by the connection's shared WatchTables stream.
    pub fn is_shared(&self) -> bool {
        matches!(self.inner, Inner::Shared { .. })
    }
}

impl Stream for WatchStream {
    type Item = Item;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Item>> {
        match &mut self.inner {
            Inner::Direct(stream) => Pin::new(&mut **stream).poll_next(cx),
            Inner::Shared { rx, .. } => rx.poll_recv(cx),
        }
    }
}

impl Drop for WatchStream {
    fn drop(&mut self) {
        if let Inner::Shared { id, shared, .. } = &self.inner
            && shared.routes().remove(id).is_some()
        {
            let remove = pb::WatchRemove { watch_id: *id };
            let _ = shared
                .requests
                .send(pb::WatchTablesRequest { kind: Some(pb::watch_tables_request::Kind::Remove(remove)) });
        }
    }
}
