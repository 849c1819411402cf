//! The competition RPCs: RegisterBot, UpdateBot, Lobby, CreateTournament,
//! GetTournament, ListTournaments, GetLeaderboard, GetBot. Each converts the request,
//! calls the competition room, and shows its answer with [`super::project`].

use std::pin::Pin;

use skat_league::{Format, TournamentSpec};
use skat_proto::pb;
use skat_proto::pb::ErrorReason as R;
use tokio_stream::Stream;
use tonic::{Code, Request, Status};

use super::access::{Access, bearer};
use super::project;
use super::refusal::Refusal;
use super::service::SkatServer;
use crate::secret::random_u64;
use crate::table::settings;

/// The Lobby stream.
pub(crate) type LobbyStream = Pin<Box<dyn Stream<Item = Result<pb::LobbyResponse, Status>> + Send>>;

/// RegisterBot: a new account and its bot token (shown once).
pub(crate) async fn register_bot(
    s: &SkatServer,
    request: Request<pb::RegisterBotRequest>,
) -> Result<pb::RegisterBotResponse, Status> {
    let admin = bearer(request.metadata())?;
    let r = request.get_ref();
    let (account, token) = s.competitions.register(&r.name, &r.owner, admin.as_deref()).await?;
    Ok(pb::RegisterBotResponse {
        account_id: account.account_id.to_string(),
        name: account.name.to_string(),
        bot_token: token.reveal().to_string(),
    })
}

/// UpdateBot (admin): disable or enable, rotate the token, change the quota.
pub(crate) async fn update_bot(
    s: &SkatServer,
    request: Request<pb::UpdateBotRequest>,
) -> Result<pb::UpdateBotResponse, Status> {
    let admin = bearer(request.metadata())?;
    let r = request.get_ref();
    let token =
        s.competitions.update(&r.name, r.disabled, r.rotate_token, r.max_tables, admin.as_deref()).await?;
    Ok(pb::UpdateBotResponse { bot_token: token.map(|t| t.reveal().to_string()).unwrap_or_default() })
}

/// Lobby: the account's seats, now and as they are handed out, until the client goes or
/// the server shuts down. A lobby is a stream like any other: it counts against its
/// address's limit.
pub(crate) async fn lobby(s: &SkatServer, request: Request<pb::LobbyRequest>) -> Result<LobbyStream, Status> {
    let token = bearer(request.metadata())?;
    // A lobby is a stream like any other: it counts against its address's and its
    // connection's limits.
    let permit = s.open_stream(&request)?;
    let account = s.competitions.authenticate(token.as_deref()).await?;
    tracing::info!(account = %account.account_id, "lobby opened");
    let r = request.get_ref();
    let mut seats = s.competitions.open_lobby(&account, r.max_tables, r.casual_seats).await?;
    let (tx, rx) = tokio::sync::mpsc::channel(16);
    let mut shutdown = s.shutdown.clone();
    tokio::spawn(async move {
        let _permit = permit;
        loop {
            tokio::select! {
                seat = seats.recv() => {
                    let Some(seat) = seat else { return };
                    let event = pb::LobbyResponse { kind: Some(pb::lobby_response::Kind::SeatAssigned(project::seat_assigned(seat))) };
                    if tx.send(Ok(event)).await.is_err() {
                        return;
                    }
                }
                _ = tx.closed() => return,
                _ = async { let _ = shutdown.wait_for(|s| *s).await; } => {
                    let end = Refusal::new(Code::Unavailable, R::ShuttingDown, "server is shutting down; reconnect to the lobby");
                    let _ = tx.send(Err(end.status())).await;
                    return;
                }
            }
        }
    });
    Ok(Box::pin(tokio_stream::wrappers::ReceiverStream::new(rx)))
}

/// CreateTournament (admin).
pub(crate) async fn create_tournament(
    s: &SkatServer,
    request: Request<pb::CreateTournamentRequest>,
) -> Result<pb::CreateTournamentResponse, Status> {
    let admin = bearer(request.metadata())?;
    s.competitions.check_admin(admin.as_deref())?;
    let r = request.get_ref();
    let seats = settings::seats(r.seats)?;
    let deals = settings::deals(r.deals, &s.config)?;
    let (action_ms, deal_ms) =
        settings::time_control(r.time_control.map(|t| (t.action_ms, t.deal_ms)), &s.config)?;
    let format = match pb::TournamentFormat::try_from(r.format) {
        Ok(pb::TournamentFormat::Unspecified | pb::TournamentFormat::RoundRobin) => Format::RoundRobin,
        Ok(pb::TournamentFormat::Swiss) => Format::Swiss,
        _ => {
            return Err(Refusal::new(
                Code::InvalidArgument,
                R::InvalidSettings,
                "format is ROUND_ROBIN or SWISS",
            )
            .into());
        }
    };
    let seed = match r.seed {
        Some(seed) => seed,
        None => random_u64()?,
    };
    let spec = TournamentSpec {
        entrants: Vec::new(),
        seats,
        deals,
        lists: r.lists,
        action_ms,
        deal_ms,
        seed,
        parallel: 0,
        format,
        rounds: r.rounds,
        start_ms: r.start_ms,
    };
    let (id, tables) = s.competitions.create_tournament(&r.name, &r.entrants, spec).await?;
    Ok(pb::CreateTournamentResponse { tournament_id: id.to_string(), tables: tables as u32 })
}

/// GetTournament: the plan, standings and meetings.
pub(crate) async fn get_tournament(
    s: &SkatServer,
    request: Request<pb::GetTournamentRequest>,
) -> Result<pb::GetTournamentResponse, Status> {
    s.admit(request.metadata(), Access::Read).await?;
    let details = s.competitions.tournament(&request.get_ref().tournament_id).await?;
    Ok(pb::GetTournamentResponse { tournament: Some(project::tournament(details)) })
}

/// GetLeaderboard: a page of ratings, best first.
pub(crate) async fn get_leaderboard(
    s: &SkatServer,
    request: Request<pb::GetLeaderboardRequest>,
) -> Result<pb::GetLeaderboardResponse, Status> {
    s.admit(request.metadata(), Access::Read).await?;
    let r = request.get_ref();
    let rows = s.competitions.leaderboard(r.offset, r.page_size).await?;
    Ok(pb::GetLeaderboardResponse { entries: rows.into_iter().map(project::leaderboard_entry).collect() })
}

/// ListTournaments: a page, newest first.
pub(crate) async fn list_tournaments(
    s: &SkatServer,
    request: Request<pb::ListTournamentsRequest>,
) -> Result<pb::ListTournamentsResponse, Status> {
    s.admit(request.metadata(), Access::Read).await?;
    let r = request.get_ref();
    let listed = s.competitions.list_tournaments(r.offset, r.page_size, r.include_casual).await?;
    Ok(pb::ListTournamentsResponse {
        tournaments: listed.into_iter().map(project::tournament_summary).collect(),
    })
}

/// GetBot: an account as the public sees it.
pub(crate) async fn get_bot(
    s: &SkatServer,
    request: Request<pb::GetBotRequest>,
) -> Result<pb::GetBotResponse, Status> {
    s.admit(request.metadata(), Access::Read).await?;
    let bot = s.competitions.bot(&request.get_ref().name).await?;
    Ok(pb::GetBotResponse { bot: Some(project::bot(bot)) })
}
