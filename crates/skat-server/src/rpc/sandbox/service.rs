//! What a sandbox may call through its door: `skat.v1.SkatService` with every RPC either
//! handed to its group, as [`super::super::dispatch`] does, after the door's checks, or
//! refused with SANDBOX_SCOPE. The trait makes the choice explicit for every RPC: one the
//! contract adds does not compile here until it is decided.
//!
//! | calls | on a door |
//! |---|---|
//! | GetServerInfo | with the door's seat token (what the server allows; nothing about other tables) |
//! | GetTable, WatchTable, GetRecords, LeaveTable, Bid, TakeSkat, Discard, Declare, PlayCard, Resign, Claim | with the door's own seat token (`authorization`), at the door's own table, within the door's call rate |
//! | WatchTables | UNIMPLEMENTED: one seat has one stream (the SDKs fall back to WatchTable) |
//! | everything else: tables made, joined or listed, accounts, lobbies, tournaments, ratings, analyses, challenges | refused |

use std::sync::Arc;

use skat_proto::pb;
use skat_proto::pb::ErrorReason as R;
use skat_proto::pb::skat_service_server::SkatService;
use tonic::{Code, Request, Response, Status};

use super::doors::{CALLS_PER_SECOND, Door, Doors};
use crate::rpc::access::{bearer, no_token};
use crate::rpc::refusal::Refusal;
use crate::rpc::service::SkatServer;
use crate::rpc::{actions, server_info, tables, watch as watching};

type Answer<T> = Result<Response<T>, Status>;

/// How a door's connections arrive.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Entry {
    /// A Unix socket of the door's own: the connection's address names the door.
    Socket,
    /// The sandbox port: the call's seat token names the door.
    Port,
}

/// The game service as a sandbox's door serves it.
#[derive(Debug, Clone)]
pub(crate) struct SandboxService {
    inner: SkatServer,
    doors: Arc<Doors>,
    entry: Entry,
}

/// A request that names a table.
trait AtTable {
    fn table_id(&self) -> &str;
}

macro_rules! at_table {
    ($($t:ty),*) => {$(
        impl AtTable for $t {
            fn table_id(&self) -> &str {
                &self.table_id
            }
        }
    )*};
}

at_table!(
    pb::GetTableRequest,
    pb::WatchTableRequest,
    pb::GetRecordsRequest,
    pb::LeaveTableRequest,
    pb::BidRequest,
    pb::TakeSkatRequest,
    pb::DiscardRequest,
    pb::DeclareRequest,
    pb::PlayCardRequest,
    pb::ResignRequest,
    pb::ClaimRequest
);

/// PERMISSION_DENIED: not this door's to ask.
fn scope(what: &str) -> Status {
    Refusal::new(
        Code::PermissionDenied,
        R::SandboxScope,
        format!(
            "a sandbox's door serves its own seat only: {what} is not one of its calls \
             (GetTable, WatchTable, GetRecords and the actions, at its table, with its seat token)"
        ),
    )
    .status()
}

impl SandboxService {
    /// The service behind doors that `entry` admits.
    pub(crate) fn new(inner: SkatServer, doors: Arc<Doors>, entry: Entry) -> SandboxService {
        SandboxService { inner, doors, entry }
    }

    /// A call no door serves (counted).
    fn out_of_scope(&self, what: &str) -> Status {
        self.inner.metrics.hosting.door_refused("scope");
        scope(what)
    }

    /// The door of a call: its token is the door's seat token (on a socket, the door the
    /// connection came through; on the port, the door the token opens), and the door's
    /// bucket holds a call.
    fn door<T>(&self, request: &Request<T>) -> Result<Arc<Door>, Status> {
        let token = bearer(request.metadata())?.ok_or_else(no_token)?;
        let door = match self.entry {
            Entry::Socket => request.remote_addr().and_then(|a| self.doors.by_address(a.ip())),
            Entry::Port => self.doors.by_token(&token),
        };
        let refused = |why: &str| {
            self.inner.metrics.hosting.door_refused("scope");
            Refusal::new(Code::PermissionDenied, R::SandboxScope, why).status()
        };
        let door = match door {
            Some(d) if d.admits(&token) => d,
            Some(_) => return Err(refused("this is not the seat token of this sandbox's seat")),
            None => {
                return Err(refused(
                    "no hosted seat holds this token now (its table is over, or the seat was handed out again)",
                ));
            }
        };
        if !door.take_call() {
            self.inner.metrics.hosting.door_refused("rate");
            return Err(Refusal::limit(
                "sandbox-calls-per-second",
                CALLS_PER_SECOND as usize,
                format!("this sandbox made more than {CALLS_PER_SECOND} calls a second: slow down"),
            )
            .status());
        }
        Ok(door)
    }

    /// [`SandboxService::door`], for a call at the door's own table.
    fn admit<T: AtTable>(&self, request: &Request<T>) -> Result<Arc<Door>, Status> {
        let door = self.door(request)?;
        let pass = door.pass();
        if request.get_ref().table_id() != pass.table_id {
            self.inner.metrics.hosting.door_refused("scope");
            return Err(Refusal::new(
                Code::PermissionDenied,
                R::SandboxScope,
                "a sandbox's door serves its own table only",
            )
            .with("table", &pass.table_id)
            .status());
        }
        Ok(door)
    }
}

#[tonic::async_trait]
impl SkatService for SandboxService {
    async fn create_table(&self, _: Request<pb::CreateTableRequest>) -> Answer<pb::CreateTableResponse> {
        Err(self.out_of_scope("CreateTable"))
    }
    async fn list_tables(&self, _: Request<pb::ListTablesRequest>) -> Answer<pb::ListTablesResponse> {
        Err(self.out_of_scope("ListTables"))
    }
    async fn join_table(&self, _: Request<pb::JoinTableRequest>) -> Answer<pb::JoinTableResponse> {
        Err(self.out_of_scope("JoinTable"))
    }
    async fn leave_table(&self, r: Request<pb::LeaveTableRequest>) -> Answer<pb::LeaveTableResponse> {
        self.admit(&r)?;
        tables::leave(&self.inner, r).await.map(Response::new)
    }
    async fn get_table(&self, r: Request<pb::GetTableRequest>) -> Answer<pb::GetTableResponse> {
        self.admit(&r)?;
        tables::get(&self.inner, r).await.map(Response::new)
    }
    async fn get_records(&self, r: Request<pb::GetRecordsRequest>) -> Answer<pb::GetRecordsResponse> {
        self.admit(&r)?;
        tables::records(&self.inner, r).await.map(Response::new)
    }

    type WatchTableStream = watching::WatchStream;

    async fn watch_table(&self, r: Request<pb::WatchTableRequest>) -> Answer<watching::WatchStream> {
        self.admit(&r)?;
        watching::watch(&self.inner, r).await.map(Response::new)
    }

    type WatchTablesStream = crate::rpc::watches::WatchesStream;

    async fn watch_tables(
        &self,
        _: Request<tonic::Streaming<pb::WatchTablesRequest>>,
    ) -> Answer<Self::WatchTablesStream> {
        Err(Status::unimplemented("a sandbox plays one seat: WatchTable it"))
    }
    async fn bid(&self, r: Request<pb::BidRequest>) -> Answer<pb::BidResponse> {
        self.admit(&r)?;
        actions::bid(&self.inner, r).await.map(Response::new)
    }
    async fn take_skat(&self, r: Request<pb::TakeSkatRequest>) -> Answer<pb::TakeSkatResponse> {
        self.admit(&r)?;
        actions::take_skat(&self.inner, r).await.map(Response::new)
    }
    async fn discard(&self, r: Request<pb::DiscardRequest>) -> Answer<pb::DiscardResponse> {
        self.admit(&r)?;
        actions::discard(&self.inner, r).await.map(Response::new)
    }
    async fn declare(&self, r: Request<pb::DeclareRequest>) -> Answer<pb::DeclareResponse> {
        self.admit(&r)?;
        actions::declare(&self.inner, r).await.map(Response::new)
    }
    async fn play_card(&self, r: Request<pb::PlayCardRequest>) -> Answer<pb::PlayCardResponse> {
        self.admit(&r)?;
        actions::play_card(&self.inner, r).await.map(Response::new)
    }
    async fn resign(&self, r: Request<pb::ResignRequest>) -> Answer<pb::ResignResponse> {
        self.admit(&r)?;
        actions::resign(&self.inner, r).await.map(Response::new)
    }
    async fn claim(&self, r: Request<pb::ClaimRequest>) -> Answer<pb::ClaimResponse> {
        self.admit(&r)?;
        actions::claim(&self.inner, r).await.map(Response::new)
    }
    async fn register_bot(&self, _: Request<pb::RegisterBotRequest>) -> Answer<pb::RegisterBotResponse> {
        Err(self.out_of_scope("RegisterBot"))
    }

    type LobbyStream = crate::rpc::competitions::LobbyStream;

    async fn lobby(&self, _: Request<pb::LobbyRequest>) -> Answer<Self::LobbyStream> {
        Err(self.out_of_scope("Lobby"))
    }
    async fn create_tournament(
        &self,
        _: Request<pb::CreateTournamentRequest>,
    ) -> Answer<pb::CreateTournamentResponse> {
        Err(self.out_of_scope("CreateTournament"))
    }
    async fn update_bot(&self, _: Request<pb::UpdateBotRequest>) -> Answer<pb::UpdateBotResponse> {
        Err(self.out_of_scope("UpdateBot"))
    }
    async fn get_tournament(
        &self,
        _: Request<pb::GetTournamentRequest>,
    ) -> Answer<pb::GetTournamentResponse> {
        Err(self.out_of_scope("GetTournament"))
    }
    async fn get_leaderboard(
        &self,
        _: Request<pb::GetLeaderboardRequest>,
    ) -> Answer<pb::GetLeaderboardResponse> {
        Err(self.out_of_scope("GetLeaderboard"))
    }
    async fn list_tournaments(
        &self,
        _: Request<pb::ListTournamentsRequest>,
    ) -> Answer<pb::ListTournamentsResponse> {
        Err(self.out_of_scope("ListTournaments"))
    }
    async fn get_bot(&self, _: Request<pb::GetBotRequest>) -> Answer<pb::GetBotResponse> {
        Err(self.out_of_scope("GetBot"))
    }
    async fn update_tournament(
        &self,
        _: Request<pb::UpdateTournamentRequest>,
    ) -> Answer<pb::UpdateTournamentResponse> {
        Err(self.out_of_scope("UpdateTournament"))
    }
    async fn list_bots(&self, _: Request<pb::ListBotsRequest>) -> Answer<pb::ListBotsResponse> {
        Err(self.out_of_scope("ListBots"))
    }
    async fn list_audit_log(&self, _: Request<pb::ListAuditLogRequest>) -> Answer<pb::ListAuditLogResponse> {
        Err(self.out_of_scope("ListAuditLog"))
    }
    async fn analyze_table(&self, _: Request<pb::AnalyzeTableRequest>) -> Answer<pb::AnalyzeTableResponse> {
        Err(self.out_of_scope("AnalyzeTable"))
    }
    async fn challenge(&self, _: Request<pb::ChallengeRequest>) -> Answer<pb::ChallengeResponse> {
        Err(self.out_of_scope("Challenge"))
    }
    async fn answer_challenge(
        &self,
        _: Request<pb::AnswerChallengeRequest>,
    ) -> Answer<pb::AnswerChallengeResponse> {
        Err(self.out_of_scope("AnswerChallenge"))
    }
    async fn list_challenges(
        &self,
        _: Request<pb::ListChallengesRequest>,
    ) -> Answer<pb::ListChallengesResponse> {
        Err(self.out_of_scope("ListChallenges"))
    }
    async fn get_server_info(
        &self,
        r: Request<pb::GetServerInfoRequest>,
    ) -> Answer<pb::GetServerInfoResponse> {
        self.door(&r)?;
        Ok(Response::new(server_info::info(&self.inner, &r)))
    }
}
