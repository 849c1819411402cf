//! The state every handler of `skat.v1.SkatService` shares, and finding a table (or the
//! replica that owns it). The trait impl that hands each RPC to its group is
//! [`super::dispatch`]: handlers import this state, the dispatch imports the handlers, and
//! nothing imports back. Handlers authenticate, convert with [`skat_proto::convert`], call
//! the domain, and map its errors with `?` ([`super::refusal`]). No Skat rule lives in this
//! room.

use crate::rpc::refusal::Refused;
use std::sync::Arc;

use skat_proto::pb::ErrorReason as R;
use tokio::sync::watch;
use tonic::{Code, Request, Status};

use super::limits::Clients;
use super::refusal::Refusal;
use super::stall::Watchdog;
use crate::analysis::Analyst;
use crate::config::ServerConfig;
use crate::metrics::Metrics;
use skat_competition::Competitions;
use skat_competition::hosting::Hosting;
use skat_journal::{Journal, recovery};
use skat_table::{TableHandle, TableId, Tables, Tasks};

/// The service state shared by all requests.
#[derive(Debug, Clone)]
pub(crate) struct SkatServer {
    pub(crate) tables: Arc<Tables>,
    pub(crate) clients: Arc<Clients>,
    pub(crate) config: Arc<ServerConfig>,
    pub(crate) metrics: Metrics,
    pub(crate) shutdown: watch::Receiver<bool>,
    pub(crate) journal: Journal,
    pub(crate) competitions: Arc<Competitions>,
    pub(crate) analyst: Arc<Analyst>,
    pub(crate) hosting: Arc<Hosting>,
    /// Ends the WatchTable streams whose readers stalled, and all of them on shutdown.
    pub(crate) watchdog: Arc<Watchdog>,
    /// The server's tasks: every task the wire spawns is one of them.
    pub(crate) tasks: Tasks,
}

/// What the floors below the wire hand it: the tables, the journal, the competitions,
/// hosting, and the tasks every floor spawns into.
#[derive(Debug)]
pub(crate) struct Floors {
    pub(crate) tables: Arc<Tables>,
    pub(crate) journal: Journal,
    pub(crate) competitions: Arc<Competitions>,
    pub(crate) hosting: Arc<Hosting>,
    pub(crate) tasks: Tasks,
}

/// The trailer that carries the address of the replica owning a table.
pub(crate) const OWNER_METADATA: &str = "skat-owner";

/// Records the table id (cut to 64 characters: it comes from the client) into the
/// call's span, which the edge layer opened.
pub(crate) fn record_table(id: &str) {
    // Printable characters only: a client must not be able to forge log lines.
    let shown: String = id.chars().filter(|c| !c.is_control()).take(64).collect();
    tracing::Span::current().record("table", shown.as_str());
}

/// A text that is no table id names no table: the same answer as an unknown one.
pub(crate) fn parse_id(id: &str) -> Result<TableId, Status> {
    let shown: String = id.chars().take(64).collect();
    id.parse().map_err(|_| {
        let message =
            if id.is_empty() { "no table id given".to_string() } else { format!("no table `{shown}`") };
        Refusal::new(Code::NotFound, R::TableNotFound, message).status()
    })
}

impl SkatServer {
    /// A service over `tables`.
    pub(crate) fn new(
        floors: Floors,
        config: Arc<ServerConfig>,
        metrics: Metrics,
        shutdown: watch::Receiver<bool>,
    ) -> Self {
        let Floors { tables, journal, competitions, hosting, tasks } = floors;
        let analyst = Analyst::start(config.analysis, journal.store().cloned(), shutdown.clone(), &tasks);
        let watchdog = Watchdog::start(config.stream_stall_timeout, shutdown.clone(), &tasks);
        SkatServer {
            tables,
            tasks,
            clients: Arc::new(Clients::default()),
            analyst,
            config,
            metrics,
            shutdown,
            journal,
            competitions,
            hosting,
            watchdog,
        }
    }

    /// The table, or NOT_FOUND; for a table another replica owns, NOT_FOUND names the
    /// owner and carries its address in the `skat-owner` trailer (the redirect).
    pub(crate) async fn table(&self, id: &str) -> Result<Arc<TableHandle>, Status> {
        let parsed = parse_id(id)?;
        if let Some(t) = self.tables.get(&parsed) {
            return Ok(t);
        }
        let owner = match self.journal.store() {
            Some(store) => store.tables.row(id).await.refused()?.map(|r| r.owner),
            None => None,
        };
        Err(self.elsewhere(id, &parsed, owner.as_deref()))
    }

    /// For reading: a table in memory, or else one read back from the journal when it
    /// has ended (finished or abandoned, on any replica), or any table for its records
    /// (`any_state`). Otherwise as [`SkatServer::table`].
    pub(crate) async fn readable(&self, id: &str, any_state: bool) -> Result<Arc<TableHandle>, Status> {
        let parsed = parse_id(id)?;
        if let Some(t) = self.tables.get(&parsed) {
            return Ok(t);
        }
        let mut owner = None;
        if let Some(store) = self.journal.store() {
            let row = store.tables.row(id).await.refused()?;
            if row.as_ref().is_some_and(|r| any_state || r.status.ended())
                && let Some(handle) = recovery::archived(&self.journal, &parsed).await.refused()?
            {
                return Ok(handle);
            }
            owner = row.map(|r| r.owner);
        }
        Err(self.elsewhere(id, &parsed, owner.as_deref()))
    }

    /// A stream's permits for this request's client and connection (see
    /// [`Clients::open_stream`]).
    pub(crate) fn open_stream<T>(
        &self,
        request: &Request<T>,
    ) -> Result<super::limits::StreamPermits, Status> {
        let ip = super::limits::client_of(request);
        let peer = request.remote_addr();
        // A trusted proxy's connection carries many clients: each is counted by address.
        let proxy = peer.is_some_and(|p| super::peer::trusted(p.ip(), &self.config.trusted_proxies));
        let per_connection = (!proxy).then_some(self.config.max_streams_per_connection);
        Ok(self.clients.open_stream(ip, peer, self.config.max_streams_per_client, per_connection)?)
    }

    /// NOT_FOUND for a table not here: the owner's address if another replica owns it.
    /// The owner is the database's (`owner`: a takeover changes it) or, without a row
    /// there, the replica the id names.
    fn elsewhere(&self, id: &str, parsed: &TableId, owner: Option<&str>) -> Status {
        let shown: String = id.chars().take(64).collect();
        let me = self.config.node_id.as_deref();
        let node = match owner.filter(|o| !o.is_empty()) {
            Some(o) => (Some(o) != me).then_some(o),
            None => parsed.foreign_node(me),
        };
        if let Some(node) = node
            && let Some(addr) = self.config.peer_address(node)
        {
            let mut status = Refusal::new(
                Code::NotFound,
                R::TableElsewhere,
                format!("table `{shown}` lives on server {node} at {addr}: connect there"),
            )
            .with("owner", &addr)
            .status();
            if let Ok(v) = addr.parse() {
                status.metadata_mut().insert(OWNER_METADATA, v);
            }
            return status;
        }
        Refusal::new(Code::NotFound, R::TableNotFound, format!("no table `{shown}`")).status()
    }
}
