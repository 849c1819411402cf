//! The `skat.v1.SkatService` implementation: the state every handler shares, finding a
//! table (or the replica that owns it), and the trait impl that hands each RPC to its
//! group: [`super::tables`], [`super::actions`], [`super::watch`],
//! [`super::competitions`], [`super::analysis`], [`super::challenges`]. Handlers authenticate, convert with
//! [`skat_proto::convert`], call the domain, and map its errors with `?`
//! ([`super::refusal`]). No Skat rule lives in this room.

use std::sync::Arc;

use skat_proto::pb;
use skat_proto::pb::ErrorReason as R;
use skat_proto::pb::skat_service_server::SkatService;
use tokio::sync::watch;
use tonic::{Code, Request, Response, Status};

use super::limits::Clients;
use super::refusal::Refusal;
use super::{actions, analysis, challenges, competitions, server_info, tables, watch as watching};
use crate::analysis::Analyst;
use crate::competition::Competitions;
use crate::config::ServerConfig;
use crate::hosting::Hosting;
use crate::journal::{Journal, recovery};
use crate::metrics::Metrics;
use crate::table::{TableHandle, TableId, Tables};

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
        tables: Arc<Tables>,
        config: Arc<ServerConfig>,
        metrics: Metrics,
        shutdown: watch::Receiver<bool>,
        journal: Journal,
        competitions: Arc<Competitions>,
        hosting: Arc<Hosting>,
    ) -> Self {
        let analyst = Analyst::start(config.analysis, journal.store().cloned(), shutdown.clone());
        SkatServer {
            tables,
            clients: Arc::new(Clients::default()),
            analyst,
            config,
            metrics,
            shutdown,
            journal,
            competitions,
            hosting,
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
            Some(store) => store.row(id).await.map_err(Status::from)?.map(|r| r.owner),
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
            let row = store.row(id).await.map_err(Status::from)?;
            if row.as_ref().is_some_and(|r| any_state || r.status.ended())
                && let Some(handle) =
                    recovery::archived(&self.journal, &parsed).await.map_err(Status::from)?
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

type Answer<T> = Result<Response<T>, Status>;

/// Every RPC, handed to its group.
#[tonic::async_trait]
impl SkatService for SkatServer {
    async fn create_table(&self, r: Request<pb::CreateTableRequest>) -> Answer<pb::CreateTableResponse> {
        tables::create(self, r).await.map(Response::new)
    }
    async fn list_tables(&self, r: Request<pb::ListTablesRequest>) -> Answer<pb::ListTablesResponse> {
        tables::list(self, r).await.map(Response::new)
    }
    async fn join_table(&self, r: Request<pb::JoinTableRequest>) -> Answer<pb::JoinTableResponse> {
        tables::join(self, r).await.map(Response::new)
    }
    async fn leave_table(&self, r: Request<pb::LeaveTableRequest>) -> Answer<pb::LeaveTableResponse> {
        tables::leave(self, r).await.map(Response::new)
    }
    async fn get_table(&self, r: Request<pb::GetTableRequest>) -> Answer<pb::GetTableResponse> {
        tables::get(self, r).await.map(Response::new)
    }
    async fn get_records(&self, r: Request<pb::GetRecordsRequest>) -> Answer<pb::GetRecordsResponse> {
        tables::records(self, r).await.map(Response::new)
    }

    type WatchTableStream = watching::WatchStream;

    async fn watch_table(&self, r: Request<pb::WatchTableRequest>) -> Answer<watching::WatchStream> {
        watching::watch(self, r).await.map(Response::new)
    }
    async fn bid(&self, r: Request<pb::BidRequest>) -> Answer<pb::BidResponse> {
        actions::bid(self, r).await.map(Response::new)
    }
    async fn take_skat(&self, r: Request<pb::TakeSkatRequest>) -> Answer<pb::TakeSkatResponse> {
        actions::take_skat(self, r).await.map(Response::new)
    }
    async fn discard(&self, r: Request<pb::DiscardRequest>) -> Answer<pb::DiscardResponse> {
        actions::discard(self, r).await.map(Response::new)
    }
    async fn declare(&self, r: Request<pb::DeclareRequest>) -> Answer<pb::DeclareResponse> {
        actions::declare(self, r).await.map(Response::new)
    }
    async fn play_card(&self, r: Request<pb::PlayCardRequest>) -> Answer<pb::PlayCardResponse> {
        actions::play_card(self, r).await.map(Response::new)
    }
    async fn resign(&self, r: Request<pb::ResignRequest>) -> Answer<pb::ResignResponse> {
        actions::resign(self, r).await.map(Response::new)
    }
    async fn claim(&self, r: Request<pb::ClaimRequest>) -> Answer<pb::ClaimResponse> {
        actions::claim(self, r).await.map(Response::new)
    }
    async fn register_bot(&self, r: Request<pb::RegisterBotRequest>) -> Answer<pb::RegisterBotResponse> {
        competitions::register_bot(self, r).await.map(Response::new)
    }

    type LobbyStream = competitions::LobbyStream;

    async fn lobby(&self, r: Request<pb::LobbyRequest>) -> Answer<competitions::LobbyStream> {
        competitions::lobby(self, r).await.map(Response::new)
    }
    async fn create_tournament(
        &self,
        r: Request<pb::CreateTournamentRequest>,
    ) -> Answer<pb::CreateTournamentResponse> {
        competitions::create_tournament(self, r).await.map(Response::new)
    }
    async fn update_bot(&self, r: Request<pb::UpdateBotRequest>) -> Answer<pb::UpdateBotResponse> {
        competitions::update_bot(self, r).await.map(Response::new)
    }
    async fn get_tournament(
        &self,
        r: Request<pb::GetTournamentRequest>,
    ) -> Answer<pb::GetTournamentResponse> {
        competitions::get_tournament(self, r).await.map(Response::new)
    }
    async fn get_leaderboard(
        &self,
        r: Request<pb::GetLeaderboardRequest>,
    ) -> Answer<pb::GetLeaderboardResponse> {
        competitions::get_leaderboard(self, r).await.map(Response::new)
    }
    async fn list_tournaments(
        &self,
        r: Request<pb::ListTournamentsRequest>,
    ) -> Answer<pb::ListTournamentsResponse> {
        competitions::list_tournaments(self, r).await.map(Response::new)
    }
    async fn get_bot(&self, r: Request<pb::GetBotRequest>) -> Answer<pb::GetBotResponse> {
        competitions::get_bot(self, r).await.map(Response::new)
    }
    async fn update_tournament(
        &self,
        r: Request<pb::UpdateTournamentRequest>,
    ) -> Answer<pb::UpdateTournamentResponse> {
        competitions::update_tournament(self, r).await.map(Response::new)
    }
    async fn list_bots(&self, r: Request<pb::ListBotsRequest>) -> Answer<pb::ListBotsResponse> {
        competitions::list_bots(self, r).await.map(Response::new)
    }
    async fn list_audit_log(&self, r: Request<pb::ListAuditLogRequest>) -> Answer<pb::ListAuditLogResponse> {
        competitions::list_audit_log(self, r).await.map(Response::new)
    }
    async fn analyze_table(&self, r: Request<pb::AnalyzeTableRequest>) -> Answer<pb::AnalyzeTableResponse> {
        analysis::analyze(self, r).await.map(Response::new)
    }
    async fn challenge(&self, r: Request<pb::ChallengeRequest>) -> Answer<pb::ChallengeResponse> {
        challenges::challenge(self, r).await.map(Response::new)
    }
    async fn answer_challenge(
        &self,
        r: Request<pb::AnswerChallengeRequest>,
    ) -> Answer<pb::AnswerChallengeResponse> {
        challenges::answer(self, r).await.map(Response::new)
    }
    async fn list_challenges(
        &self,
        r: Request<pb::ListChallengesRequest>,
    ) -> Answer<pb::ListChallengesResponse> {
        challenges::list(self, r).await.map(Response::new)
    }
    async fn get_server_info(
        &self,
        r: Request<pb::GetServerInfoRequest>,
    ) -> Answer<pb::GetServerInfoResponse> {
        Ok(Response::new(server_info::info(self, &r)))
    }
}
