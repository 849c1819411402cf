//! Every RPC of `skat.v1.SkatService`, handed to its group: [`super::tables`],
//! [`super::actions`], [`super::watch`] and [`super::watches`], [`super::competitions`], [`super::analysis`],
//! [`super::challenges`], [`super::server_info`]. The list of the service in one place; the
//! work is the groups'.

use skat_proto::pb;
use skat_proto::pb::skat_service_server::SkatService;
use tonic::{Request, Response, Status};

use super::service::SkatServer;
use super::{actions, analysis, challenges, competitions, server_info, tables, watch as watching, watches};

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

    type WatchTablesStream = watches::WatchesStream;

    async fn watch_tables(
        &self,
        r: Request<tonic::Streaming<pb::WatchTablesRequest>>,
    ) -> Answer<watches::WatchesStream> {
        watches::watch_tables(self, r).await.map(Response::new)
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
