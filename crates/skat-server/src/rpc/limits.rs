//! What each client address holds: tables it created, streams and connections it has
//! open. Limits
//! per client keep one anonymous client from using the server's shared limits up
//! (`--max-tables`, the watcher slots) for everybody else.
//!
//! A client is its IP address (the port changes with every connection). Behind a proxy
//! that hides client addresses, every client is the proxy: use `--create-token` and
//! private tables there (docs/server.md). An entry exists only while its address holds
//! something, so the map is bounded by the tables and streams it counts.

use std::collections::HashMap;
use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::sync::{Arc, Mutex};

use ipnet::IpNet;
use prometheus_client::metrics::gauge::Gauge;
use tokio::net::TcpStream;
use tonic::transport::server::Connected as _;

use super::held::{Held, Holding};
use super::peer::{ClientAddr, trusted};
use super::refusal::Refusal;

/// What is counted per client.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Resource {
    /// Tables created and not yet expired.
    Tables,
    /// Open watch streams.
    Streams,
    /// Open TCP connections.
    Connections,
}

#[derive(Debug, Default, Clone, Copy)]
struct Usage {
    tables: usize,
    streams: usize,
    connections: usize,
}

impl Usage {
    fn of(&mut self, r: Resource) -> &mut usize {
        match r {
            Resource::Tables => &mut self.tables,
            Resource::Streams => &mut self.streams,
            Resource::Connections => &mut self.connections,
        }
    }

    fn is_empty(&self) -> bool {
        self.tables == 0 && self.streams == 0 && self.connections == 0
    }
}

/// Usage by client address.
#[derive(Debug, Default)]
pub(crate) struct Clients {
    map: Mutex<HashMap<IpAddr, Usage>>,
    /// Streams open per connection (its peer's address and port), so that a connection
    /// carrying its limit refuses the next stream instead of leaving it queued.
    streams: Arc<Mutex<HashMap<SocketAddr, usize>>>,
}

/// One stream on a connection; given back when dropped.
#[derive(Debug)]
pub(crate) struct ConnectionStream {
    streams: Arc<Mutex<HashMap<SocketAddr, usize>>>,
    peer: SocketAddr,
}

impl Drop for ConnectionStream {
    fn drop(&mut self) {
        let mut map = self.streams.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(n) = map.get_mut(&self.peer) {
            *n = n.saturating_sub(1);
            if *n == 0 {
                map.remove(&self.peer);
            }
        }
    }
}

/// What an open stream holds: one of its address's streams and one of its connection's.
#[derive(Debug)]
pub(crate) struct StreamPermits {
    _address: Permit,
    _connection: Option<ConnectionStream>,
}

/// One unit of a resource held by a client; given back when dropped.
#[derive(Debug)]
pub(crate) struct Permit {
    clients: Arc<Clients>,
    ip: IpAddr,
    resource: Resource,
}

impl Drop for Permit {
    fn drop(&mut self) {
        let mut map = self.clients.map.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(u) = map.get_mut(&self.ip) {
            let n = u.of(self.resource);
            *n = n.saturating_sub(1);
            if u.is_empty() {
                map.remove(&self.ip);
            }
        }
    }
}

/// The client of a request, as the edge layer worked it out (its peer, or behind a
/// trusted proxy the address the proxy names; unknown peers share one key).
pub(crate) fn client_of<T>(request: &tonic::Request<T>) -> IpAddr {
    match request.extensions().get::<ClientAddr>() {
        Some(ClientAddr(ip)) => *ip,
        None => request.remote_addr().map_or(IpAddr::V4(Ipv4Addr::UNSPECIFIED), |a| a.ip()),
    }
}

impl Clients {
    /// Takes one unit of `resource` for `ip` unless it holds `limit` already.
    pub fn acquire(self: &Arc<Self>, ip: IpAddr, resource: Resource, limit: usize) -> Option<Permit> {
        let mut map = self.map.lock().unwrap_or_else(|p| p.into_inner());
        let usage = map.entry(ip).or_default();
        let n = usage.of(resource);
        if *n >= limit {
            if usage.is_empty() {
                map.remove(&ip);
            }
            return None;
        }
        *n += 1;
        Some(Permit { clients: Arc::clone(self), ip, resource })
    }

    /// Takes a stream for a client at `ip` on the connection from `peer`: one of the
    /// address's `per_client` streams and one of the connection's `per_connection`
    /// (`None`: the connection is not counted, a trusted proxy's). Refused with the limit
    /// named: a client is told, never left waiting.
    pub(crate) fn open_stream(
        self: &Arc<Self>,
        ip: IpAddr,
        peer: Option<SocketAddr>,
        per_client: usize,
        per_connection: Option<usize>,
    ) -> Result<StreamPermits, Refusal> {
        let connection = match (peer, per_connection) {
            (Some(peer), Some(limit)) => {
                let mut map = self.streams.lock().unwrap_or_else(|p| p.into_inner());
                let n = map.entry(peer).or_default();
                if *n >= limit {
                    if *n == 0 {
                        map.remove(&peer);
                    }
                    return Err(Refusal::limit(
                        "max-streams-per-connection",
                        limit,
                        format!(
                            "this connection carries its limit of {limit} streams: open another connection"
                        ),
                    ));
                }
                *n += 1;
                Some(ConnectionStream { streams: Arc::clone(&self.streams), peer })
            }
            _ => None,
        };
        let address = self.acquire(ip, Resource::Streams, per_client).ok_or_else(|| {
            Refusal::limit(
                "max-streams-per-client",
                per_client,
                format!("your address holds its limit of {per_client} open streams"),
            )
        })?;
        Ok(StreamPermits { _address: address, _connection: connection })
    }

    /// How much of `resource` `ip` holds.
    #[cfg(test)]
    pub fn held(&self, ip: IpAddr, resource: Resource) -> usize {
        let mut map = self.map.lock().unwrap_or_else(|p| p.into_inner());
        map.get_mut(&ip).map_or(0, |u| *u.of(resource))
    }

    /// How many addresses hold anything (for tests: the map does not grow).
    #[cfg(test)]
    pub fn len(&self) -> usize {
        self.map.lock().unwrap_or_else(|p| p.into_inner()).len()
    }

    /// Whether no address holds anything.
    #[cfg(test)]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// What a TCP connection holds while it is open: its client's connection permit (none
/// for a trusted proxy's) and a count in `skat_connections`.
#[derive(Debug)]
pub(crate) struct TcpHolds {
    _permit: Option<Permit>,
    _open: Open,
}

impl Holding for TcpHolds {}

/// A TCP connection with what it holds.
pub(crate) type Connection = Held<TcpStream, TcpHolds>;

/// One count in the open connections' gauge, taken back when the connection goes.
#[derive(Debug)]
pub(crate) struct Open(Gauge);

impl Open {
    /// Counts one in `gauge` until dropped.
    pub(crate) fn count(gauge: &Gauge) -> Open {
        gauge.inc();
        Open(gauge.clone())
    }
}

impl Drop for Open {
    fn drop(&mut self) {
        self.0.dec();
    }
}

/// Admits `stream` if its client holds fewer than `limit` connections; a trusted
/// proxy's connections are not counted against a limit.
pub(crate) fn admit(
    clients: &Arc<Clients>,
    stream: TcpStream,
    limit: usize,
    proxies: &[IpNet],
    open: &Gauge,
) -> Option<Connection> {
    let ip = stream.peer_addr().map_or(IpAddr::V4(Ipv4Addr::UNSPECIFIED), |a| a.ip());
    let permit =
        if trusted(ip, proxies) { None } else { Some(clients.acquire(ip, Resource::Connections, limit)?) };
    let info = stream.connect_info();
    Some(Held::new(stream, TcpHolds { _permit: permit, _open: Open::count(open) }, info))
}

/// The connections `listener` accepts, each admitted against its address's limit of
/// `per_client` connections (the others are closed at once), with `TCP_NODELAY` (small
/// messages both ways: Nagle's algorithm would hold each for a delayed ACK) and keepalive.
pub(crate) fn admitted(
    listener: tokio::net::TcpListener,
    clients: Arc<Clients>,
    per_client: usize,
    proxies: Vec<IpNet>,
    open: Gauge,
) -> impl tokio_stream::Stream<Item = std::io::Result<Connection>> {
    tokio_stream::StreamExt::filter_map(
        tonic::transport::server::TcpIncoming::from(listener)
            .with_nodelay(Some(true))
            .with_keepalive(Some(std::time::Duration::from_secs(60))),
        move |accepted| match accepted {
            Ok(stream) => {
                let admitted = admit(&clients, stream, per_client, &proxies, &open);
                if admitted.is_none() {
                    tracing::debug!("connection refused: its address holds its limit of connections");
                }
                admitted.map(Ok)
            }
            Err(e) => Some(Err(e)),
        },
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn limits_hold_and_permits_give_back() {
        let clients = Arc::new(Clients::default());
        let a: IpAddr = "10.0.0.1".parse().unwrap();
        let b: IpAddr = "10.0.0.2".parse().unwrap();
        let p1 = clients.acquire(a, Resource::Tables, 2).unwrap();
        let p2 = clients.acquire(a, Resource::Tables, 2).unwrap();
        assert!(clients.acquire(a, Resource::Tables, 2).is_none());
        // Another address and another resource are not affected.
        let q = clients.acquire(b, Resource::Tables, 2).unwrap();
        let s = clients.acquire(a, Resource::Streams, 1).unwrap();
        assert_eq!(clients.held(a, Resource::Tables), 2);
        drop(p1);
        assert_eq!(clients.held(a, Resource::Tables), 1);
        assert!(clients.acquire(a, Resource::Tables, 2).is_some());
        drop((p2, q, s));
        assert!(clients.is_empty(), "entries go when nothing is held");
    }
}
