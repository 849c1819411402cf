//! Connections that seats share. A lobby plays many seats at once; each seat needs a
//! watch stream and makes a call for each action, and all of that fits on one HTTP/2
//! connection. So one connection carries up to [`SEATS_PER_CONNECTION`] seats of a
//! lobby, and a bot at a hundred tables holds two connections to a server, not a
//! hundred.
//!
//! Why it matters: the server spends about 45 KiB on each connection (h2's buffers and
//! tables), several times what a table in play costs it (docs/BENCHMARKS.md, "memory per
//! table in play"), and counts connections against the client address's limit (64 by
//! default, `skat serve --max-connections-per-client`). Why a cap and not one connection
//! for everything: the server lets a connection carry 100 watches at once
//! (`--max-streams-per-connection`) and refuses more (RESOURCE_EXHAUSTED); 64 seats stay
//! under it with room for what else the bot watches on the same connection. Why 64 and
//! not the 32 it was: at 2,000 tables the server held 3.4 KiB a table less with 63
//! seats a connection than with 30 (h2's buffers and tables are a connection's), at the
//! same latency and CPU a deal (docs/BENCHMARKS.md, "memory per table in play").
//!
//! The seats on a connection watch their tables on one WatchTables stream, not a
//! WatchTable stream each ([`crate::watches`]).
//!
//! A connection no seat holds any more is closed, except one per server kept for the next
//! seat (a lobby's seats come and go between lists). A broken connection (the server
//! restarted) is dialled again by the channel itself at its next call, so the seats on it
//! resume through the same pool.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard};

use skat_proto::pb::skat_service_client::SkatServiceClient;
use tonic::transport::Channel;

use crate::address::ServerAddress;
use crate::error::SdkError;
use crate::watches::WatchHub;

/// Most seats on one connection.
pub const SEATS_PER_CONNECTION: usize = 64;

/// Connections to servers, shared by the seats given out through them. Clones share
/// the same connections.
#[derive(Clone, Default)]
pub struct Connections {
    by_server: Arc<Mutex<HashMap<ServerAddress, Vec<Shared>>>>,
}

/// One connection, the count of the seats on it (the lease's strong count, less the
/// pool's own) and the one stream they watch their tables on.
struct Shared {
    channel: Channel,
    seats: Arc<()>,
    hub: WatchHub,
}

impl Shared {
    fn seats(&self) -> usize {
        Arc::strong_count(&self.seats) - 1
    }
}

/// A seat's place on a shared connection: the seat counts there until its lease (and
/// every clone) is dropped.
#[derive(Clone, Debug)]
pub struct Lease {
    _seat: Arc<()>,
    /// The connection's watch stream, shared by its seats ([`crate::watches`]).
    pub hub: WatchHub,
}

impl Connections {
    /// A client of `server` on a connection with room for one more seat (a new one when
    /// none has room), and the seat's lease on it.
    pub async fn client(
        &self,
        server: &ServerAddress,
    ) -> Result<(SkatServiceClient<Channel>, Lease), SdkError> {
        if let Some(found) = self.with_room(server) {
            return Ok(found);
        }
        // Dialled outside the lock: two seats arriving together may open two connections,
        // which is harmless; holding every other seat back during a dial is not.
        let channel = server.channel().await?;
        let lease = self.add(server, channel.clone());
        Ok((SkatServiceClient::new(channel), lease))
    }

    /// Puts `channel` in the pool for `server`, with one seat on it: the returned lease.
    fn add(&self, server: &ServerAddress, channel: Channel) -> Lease {
        let (seats, hub) = (Arc::new(()), WatchHub::new());
        let lease = Lease { _seat: Arc::clone(&seats), hub: hub.clone() };
        self.lock().entry(server.clone()).or_default().push(Shared { channel, seats, hub });
        lease
    }

    /// Open connections to `server` (for tests and logs).
    pub fn open(&self, server: &ServerAddress) -> usize {
        self.lock().get(server).map_or(0, Vec::len)
    }

    /// The first connection to `server` with room, after closing the idle ones but one.
    fn with_room(&self, server: &ServerAddress) -> Option<(SkatServiceClient<Channel>, Lease)> {
        let mut by_server = self.lock();
        let list = by_server.get_mut(server)?;
        let mut idle_kept = false;
        list.retain(|c| c.seats() > 0 || !std::mem::replace(&mut idle_kept, true));
        let shared = list.iter().find(|c| c.seats() < SEATS_PER_CONNECTION)?;
        let lease = Lease { _seat: Arc::clone(&shared.seats), hub: shared.hub.clone() };
        Some((SkatServiceClient::new(shared.channel.clone()), lease))
    }

    /// The map; a panic elsewhere while it was held left it whole (every change is one
    /// push or one retain), so a poisoned lock is taken as it is.
    fn lock(&self) -> MutexGuard<'_, HashMap<ServerAddress, Vec<Shared>>> {
        self.by_server.lock().unwrap_or_else(|e| e.into_inner())
    }
}

impl std::fmt::Debug for Connections {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let by_server = self.lock();
        let mut map = f.debug_map();
        for (server, list) in by_server.iter() {
            map.entry(&server.url(), &list.iter().map(Shared::seats).collect::<Vec<_>>());
        }
        map.finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A channel that dials nothing until used: the pool's counting needs no server.
    fn lazy(server: &ServerAddress) -> Channel {
        server.endpoint().expect("a plain address").connect_lazy()
    }

    #[tokio::test]
    async fn seats_fill_a_connection_before_another_is_needed_and_idle_ones_close() {
        let server = ServerAddress::new("127.0.0.1:9");
        let pool = Connections::default();
        let mut leases = vec![pool.add(&server, lazy(&server))];
        for _ in 1..SEATS_PER_CONNECTION {
            leases.push(pool.with_room(&server).expect("room on the first connection").1);
        }
        assert!(pool.with_room(&server).is_none(), "a full connection takes no more seats");
        leases.push(pool.add(&server, lazy(&server)));
        assert_eq!(pool.open(&server), 2);
        // Every seat gone: one connection is kept for the next seat, the other closes.
        leases.clear();
        let (_, again) = pool.with_room(&server).expect("the kept connection");
        assert_eq!(pool.open(&server), 1);
        drop(again);
        assert_eq!(pool.open(&ServerAddress::new("127.0.0.1:10")), 0, "servers are apart");
    }
}
