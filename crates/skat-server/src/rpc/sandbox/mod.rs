//! # Sandboxes' doors
//!
//! A hosted bot is a stranger's code: whatever its sandbox reaches the server through
//! must carry no right but its seat's (docs/hosted-bots.md, "The sandbox's door").
//!
//! | rule | why | where |
//! |---|---|---|
//! | every hosted seat handed to a runner gets a door: a Unix socket of its own on podman (`--hosting-socket-dir`), or its token on the sandbox port (`--hosting-sandbox-addr`, Kubernetes) | the server knows which connection is which sandbox | [`doors`], [`Sandboxes::open`] |
//! | a door serves its seat's calls at its table with its token, health and nothing else | no anonymous rights from inside: no tables made or joined, no accounts, no listings | [`service`] |
//! | limits per door: connections, streams, calls a second; none shared between doors | no sandbox can reach a cap another needs | [`doors`] |
//! | the sandbox port admits a few connections per address (a Pod), trusts no proxy header | a Pod is one client, and cannot name another | [`Sandboxes::serve_port`] |
//! | a door closes after its table, and its socket and connections with it | nothing lingers for a sandbox that should be gone | [`Sandboxes::sweep`] |

pub(crate) mod doors;
pub(crate) mod service;

use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use skat_proto::pb::skat_service_server::SkatServiceServer;
use tokio::sync::{mpsc, watch};
use tokio::task::JoinHandle;
use tonic::transport::server::TcpConnectInfo;

use super::edge;
use super::held::Held;
use super::limits::{self, Clients};
use super::service::SkatServer;
use super::tls;
use doors::{CONNECTIONS, Door, DoorConnection, Doors, Opened, Opening, Pass, STREAMS};
use service::{Entry, SandboxService};
use skat_table::TableId;

/// A connection through a door's socket.
type DoorStream = Held<tokio::net::UnixStream, DoorConnection>;

/// How often doors are looked at for their tables' ends.
const SWEEP_EVERY: Duration = Duration::from_secs(5);

/// Connections waiting to be served (each door's accept loop feeds them in).
const ARRIVING: usize = 256;

/// The doors of a server and what serves them.
#[derive(Debug)]
pub(crate) struct Sandboxes {
    doors: Arc<Doors>,
    /// Connections through doors' sockets, for the one server behind them all.
    arriving: mpsc::Sender<std::io::Result<DoorStream>>,
    /// The server's tasks: each door's accepting task is one.
    tasks: skat_table::Tasks,
}

/// The service a door's connections reach: the game service with a door's limits (its
/// own per-client map: a door, or a Pod, is the client).
fn door_server(server: &SkatServer) -> SkatServer {
    let mut config = (*server.config).clone();
    config.max_streams_per_client = STREAMS;
    config.max_streams_per_connection = STREAMS;
    config.max_tables_per_client = 0;
    config.trusted_proxies.clear();
    SkatServer { clients: Arc::new(Clients::default()), config: Arc::new(config), ..server.clone() }
}

/// A server for a door's connections: small limits per connection, the edge layer with
/// no trusted proxy.
fn builder(
    server: &SkatServer,
) -> tonic::transport::server::Router<tower::layer::util::Stack<edge::EdgeLayer, tower::layer::util::Identity>>
{
    let (_, health) = tonic_health::server::health_reporter();
    tonic::transport::Server::builder()
        .concurrency_limit_per_connection(STREAMS)
        .max_concurrent_streams(Some(2 * STREAMS as u32))
        .http2_keepalive_interval(Some(Duration::from_secs(30)))
        .http2_keepalive_timeout(Some(Duration::from_secs(20)))
        .layer(edge::EdgeLayer::new(server.metrics.clone(), &[], server.config.forwarded_header))
        .add_service(health)
}

impl Sandboxes {
    /// Starts serving doors: their sockets in `--hosting-socket-dir` (when set), the
    /// sandbox port (when `port` is given), and the sweep of ended tables' doors; all end
    /// when `stopped` turns true.
    pub(crate) fn start(
        server: &SkatServer,
        port: Option<(tokio::net::TcpListener, Option<Arc<tls::Tls>>)>,
        stopped: watch::Receiver<bool>,
    ) -> std::io::Result<(Arc<Sandboxes>, Vec<JoinHandle<()>>)> {
        let doors = Arc::new(Doors::new(server.config.hosting.socket_dir.clone())?);
        let inner = door_server(server);
        let (arriving, rx) = mpsc::channel(ARRIVING);
        let grpc = SandboxService::new(inner.clone(), Arc::clone(&doors), Entry::Socket);
        let mut stop = stopped.clone();
        let sockets = builder(server)
            .add_service(
                SkatServiceServer::new(grpc).max_decoding_message_size(server.config.max_message_bytes),
            )
            .serve_with_incoming_shutdown(tokio_stream::wrappers::ReceiverStream::new(rx), async move {
                let _ = stop.wait_for(|s| *s).await;
            });
        let mut tasks = vec![tokio::spawn(async move {
            if let Err(e) = sockets.await {
                tracing::error!(error = %e, "the sandboxes' sockets failed");
            }
        })];
        if let Some((listener, tls)) = port {
            tasks.push(serve_port(&inner, &doors, listener, tls, stopped.clone()));
        }
        let me = Arc::new(Sandboxes { doors, arriving, tasks: server.tasks.clone() });
        tasks.push(tokio::spawn(Arc::clone(&me).sweep(server.clone(), stopped)));
        Ok((me, tasks))
    }

    /// The door of a hosted seat handed to a runner (the same door when the same token is
    /// handed out again): its socket's path, if it has one.
    pub(crate) fn open(&self, pass: Pass, token: &str) -> std::io::Result<Option<PathBuf>> {
        let door = match self.doors.open(Opening { pass, token }) {
            Opened::Again(door) => return Ok(door.socket().map(PathBuf::from)),
            Opened::New(door) => door,
        };
        let Some(path) = door.socket().map(PathBuf::from) else { return Ok(None) };
        let listener = tokio::net::UnixListener::bind(&path)?;
        {
            use std::os::unix::fs::PermissionsExt as _;
            // The bot runs as a user of its own: the socket is for whoever it is mounted into.
            std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o666))?;
        }
        let pass = door.pass();
        tracing::info!(table = %pass.table_id, seat = pass.seat, bot = %pass.bot_name, "sandbox door opened");
        self.tasks.spawn(accept(listener, door, self.arriving.clone()));
        Ok(Some(path))
    }

    /// Closes the doors of tables that ended or are gone, until shutdown (then all).
    async fn sweep(self: Arc<Self>, server: SkatServer, mut stopped: watch::Receiver<bool>) {
        loop {
            tokio::select! {
                _ = tokio::time::sleep(SWEEP_EVERY) => {}
                _ = stopped.wait_for(|s| *s) => break,
            }
            let state = |id: &str| -> Option<bool> {
                let parsed: TableId = id.parse().ok()?;
                let table = server.tables.get(&parsed)?;
                Some(table.lock().is_finished())
            };
            let open = self.doors.sweep(state, Instant::now());
            server.metrics.hosting.doors.set(open as i64);
        }
        self.doors.close_all();
    }
}

/// A door's accept loop: its connections, each within the door's limit, go to the
/// server behind every door; it ends when the door closes.
async fn accept(
    listener: tokio::net::UnixListener,
    door: Arc<Door>,
    arriving: mpsc::Sender<std::io::Result<DoorStream>>,
) {
    let mut closing = door.closing();
    // Each connection its own port: per-connection limits tell them apart.
    let mut port: u16 = 0;
    loop {
        let stream = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok((stream, _)) => stream,
                Err(e) => {
                    tracing::warn!(error = %e, "a sandbox door's socket failed");
                    tokio::time::sleep(Duration::from_millis(100)).await;
                    continue;
                }
            },
            _ = async { let _ = closing.wait_for(|c| *c).await; } => return,
        };
        let Some(held) = door.connect() else {
            tracing::debug!(max = CONNECTIONS, "a sandbox door's connection refused: it holds its limit");
            continue;
        };
        port = port.wrapping_add(1);
        let info = TcpConnectInfo {
            local_addr: None,
            remote_addr: Some(std::net::SocketAddr::new(door.address(), port)),
        };
        if arriving.send(Ok(Held::new(stream, held, info))).await.is_err() {
            return;
        }
    }
}

/// The sandbox port: TLS when the server has it, a few connections per address, the
/// door found by the call's token.
fn serve_port(
    inner: &SkatServer,
    doors: &Arc<Doors>,
    listener: tokio::net::TcpListener,
    tls: Option<Arc<tls::Tls>>,
    mut stopped: watch::Receiver<bool>,
) -> JoinHandle<()> {
    let clients = Arc::new(Clients::default());
    let admitted =
        limits::admitted(listener, clients, CONNECTIONS, Vec::new(), inner.metrics.connections.clone());
    let incoming = tls::incoming(admitted, tls);
    let grpc = SandboxService::new(inner.clone(), Arc::clone(doors), Entry::Port);
    let serve = builder(inner)
        .add_service(SkatServiceServer::new(grpc).max_decoding_message_size(inner.config.max_message_bytes))
        .serve_with_incoming_shutdown(incoming, async move {
            let _ = stopped.wait_for(|s| *s).await;
        });
    tokio::spawn(async move {
        if let Err(e) = serve.await {
            tracing::error!(error = %e, "the sandbox port failed");
        }
    })
}
