//! The competition RPCs: RegisterBot, UpdateBot, Lobby, CreateTournament,
//! GetTournament, ListTournaments, GetLeaderboard, GetBot, and the operator's
//! UpdateTournament, ListBots and ListAuditLog (admin token, checked by [`admin_of`]). Each converts the request,
//! calls the competition room, and shows its answer with [`super::projection`].

use crate::rpc::refusal::Refused;
use std::pin::Pin;

use skat_league::{Format, TournamentSpec};
use skat_proto::pb;
use skat_proto::pb::ErrorReason as R;
use tokio_stream::Stream;
use tonic::{Code, Request, Status};

use super::access::{Access, bearer};
use super::limits::client_of;
use super::projection;
use super::refusal::Refusal;
use super::service::SkatServer;
use skat_competition::PeopleTables;
use skat_competition::accounts::BotChange;
use skat_competition::admin::Admin;
use skat_competition::control::TournamentAction;
use skat_competition::lobby::{LobbyNote, LobbyWish};
use skat_table::secret::random_u64;
use skat_table::settings;

/// The Lobby stream.
pub(crate) type LobbyStream = Pin<Box<dyn Stream<Item = Result<pb::LobbyResponse, Status>> + Send>>;

/// RegisterBot: a new account and its bot token (shown once).
pub(crate) async fn register_bot(
    s: &SkatServer,
    request: Request<pb::RegisterBotRequest>,
) -> Result<pb::RegisterBotResponse, Status> {
    let token = bearer(request.metadata())?;
    let r = request.get_ref();
    let (account, token) = s
        .competitions
        .accounts
        .register(&r.name, &r.owner, token.as_deref(), client_of(&request))
        .await
        .refused()?;
    Ok(pb::RegisterBotResponse {
        account_id: account.account_id.to_string(),
        name: account.name.to_string(),
        bot_token: token.reveal().to_string(),
    })
}

/// The admin of a request: its bearer token checked against the admin token, with the
/// client's address for the audit log.
fn admin_of<T>(s: &SkatServer, request: &Request<T>) -> Result<Admin, Status> {
    let token = bearer(request.metadata())?;
    s.competitions.admin(token.as_deref(), client_of(request)).refused()
}

/// UpdateBot (admin): disable or enable, remove, rename, rotate the token, change the
/// quota or the owner contact.
pub(crate) async fn update_bot(
    s: &SkatServer,
    request: Request<pb::UpdateBotRequest>,
) -> Result<pb::UpdateBotResponse, Status> {
    let admin = admin_of(s, &request)?;
    let r = request.into_inner();
    let change = BotChange {
        disabled: r.disabled,
        rotate: r.rotate_token,
        max_tables: r.max_tables,
        rename: Some(r.rename).filter(|n| !n.is_empty()),
        remove: r.remove,
        owner: r.owner,
    };
    let (account, token) = s.competitions.accounts.update(&r.name, change, &admin).await.refused()?;
    let view = s.competitions.operators.operator_view(account).await.refused()?;
    Ok(pb::UpdateBotResponse {
        bot_token: token.map(|t| t.reveal().to_string()).unwrap_or_default(),
        bot: Some(projection::bot_account(view)),
    })
}

/// ListBots (admin): accounts as the operator sees them.
pub(crate) async fn list_bots(
    s: &SkatServer,
    request: Request<pb::ListBotsRequest>,
) -> Result<pb::ListBotsResponse, Status> {
    let admin = admin_of(s, &request)?;
    let r = request.get_ref();
    let bots = s
        .competitions
        .operators
        .list_bots(&admin, &r.query, r.include_removed, r.online_only, (r.offset, r.page_size))
        .await
        .refused()?;
    Ok(pb::ListBotsResponse { bots: bots.into_iter().map(projection::bot_account).collect() })
}

/// ListAuditLog (admin): what was done with the admin token, newest first.
pub(crate) async fn list_audit_log(
    s: &SkatServer,
    request: Request<pb::ListAuditLogRequest>,
) -> Result<pb::ListAuditLogResponse, Status> {
    let admin = admin_of(s, &request)?;
    let r = request.get_ref();
    let entries =
        s.competitions.operators.audit_log(&admin, &r.target, r.offset, r.page_size).await.refused()?;
    Ok(pb::ListAuditLogResponse { entries: entries.into_iter().map(projection::audit_entry).collect() })
}

/// UpdateTournament (admin): cancel, pause, resume, move the start.
pub(crate) async fn update_tournament(
    s: &SkatServer,
    request: Request<pb::UpdateTournamentRequest>,
) -> Result<pb::UpdateTournamentResponse, Status> {
    let admin = admin_of(s, &request)?;
    let r = request.get_ref();
    let action = match pb::TournamentAction::try_from(r.action) {
        Ok(pb::TournamentAction::Unspecified) => None,
        Ok(pb::TournamentAction::Cancel) => Some(TournamentAction::Cancel),
        Ok(pb::TournamentAction::Pause) => Some(TournamentAction::Pause),
        Ok(pb::TournamentAction::Resume) => Some(TournamentAction::Resume),
        Err(_) => {
            return Err(Refusal::new(
                Code::InvalidArgument,
                R::InvalidTournament,
                "action is CANCEL, PAUSE or RESUME",
            )
            .with("field", "action")
            .into());
        }
    };
    let row = s
        .competitions
        .operators
        .update_tournament(&r.tournament_id, action, r.start_ms, &admin)
        .await
        .refused()?;
    let listing = s.competitions.views.listing_of(row).await.refused()?;
    Ok(pb::UpdateTournamentResponse { tournament: Some(projection::tournament_summary(listing)) })
}

/// Lobby: the account's seats, now and as they are handed out, until the client goes or
/// the server shuts down. A lobby is a stream like any other: it counts against its
/// address's limit.
pub(crate) async fn lobby(s: &SkatServer, request: Request<pb::LobbyRequest>) -> Result<LobbyStream, Status> {
    let token = bearer(request.metadata())?;
    // A lobby is a stream like any other: it counts against its address's and its
    // connection's limits.
    let permit = s.open_stream(&request)?;
    let account = s.competitions.accounts.authenticate(token.as_deref()).await.refused()?;
    // A hosted account's seats go to the runner: a lobby of its own would race it.
    if let Some(v) = s.hosting.hosted_version(&account.account_id).await.refused()? {
        return Err(crate::rpc::refusal::refuse(skat_competition::hosting::HostingError::Hosted(v.digest)));
    }
    let r = request.get_ref();
    let mut seats = s
        .competitions
        .open_lobby(
            &account,
            LobbyWish {
                max_tables: r.max_tables,
                casual_seats: r.casual_seats,
                challenges: r.challenges,
                open_tables: if r.open_tables { PeopleTables::Anyone } else { PeopleTables::None },
                hosted: None,
            },
        )
        .await
        .refused()?;
    tracing::info!(account = %account.name, id = %account.account_id, "lobby opened");
    let (tx, rx) = tokio::sync::mpsc::channel(16);
    let mut shutdown = s.shutdown.clone();
    let seen = s.competitions.operators.seen(&account);
    s.tasks.spawn(async move {
        let _permit = permit;
        // Notes when the lobby closed (last seen), however the task ends.
        let _seen = seen;
        loop {
            tokio::select! {
                note = seats.recv() => {
                    let Some(note) = note else { return };
                    let kind = match note {
                        LobbyNote::Seat(seat) => pb::lobby_response::Kind::SeatAssigned(projection::seat_assigned(seat)),
                        LobbyNote::Challenge(c) => pb::lobby_response::Kind::ChallengeOffered(projection::challenge_info(&c)),
                    };
                    let event = pb::LobbyResponse { kind: Some(kind) };
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
    let admin = admin_of(s, &request)?;
    let r = request.get_ref();
    let seats = settings::seats(r.seats).refused()?;
    let deals = settings::deals(r.deals, &s.config.table_limits()).refused()?;
    let (action_ms, deal_ms) =
        settings::time_control(r.time_control.map(|t| (t.action_ms, t.deal_ms)), &s.config.table_limits())
            .refused()?;
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
    // An operator's seed makes the deals reproducible (and known to the operator); else
    // they come from a secret nobody knows until the end.
    let (seed, secret) = match r.seed {
        Some(seed) => (seed, skat_league::deals::DealSecret::of_seed(seed)),
        None => (random_u64().refused()?, Default::default()),
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
        secret,
        commitment: String::new(),
        unrated: false,
    };
    // A hosted tournament pins every entrant's version now (NOT_HOSTED names one without).
    let pins = if r.hosted { s.hosting.pins_for(&r.entrants).await.refused()? } else { Vec::new() };
    let (id, tables, in_all, commitment) = s
        .competitions
        .scheduler
        .create_tournament(&r.name, &r.entrants, spec, &admin, &pins)
        .await
        .refused()?;
    Ok(pb::CreateTournamentResponse {
        tournament_id: id.to_string(),
        tables: tables as u32,
        tables_in_all: in_all as u32,
        deals_commitment: commitment,
    })
}

/// GetTournament: the plan, standings and meetings.
pub(crate) async fn get_tournament(
    s: &SkatServer,
    request: Request<pb::GetTournamentRequest>,
) -> Result<pb::GetTournamentResponse, Status> {
    s.admit(request.metadata(), Access::Read).await?;
    let details = s.competitions.views.tournament(&request.get_ref().tournament_id).await.refused()?;
    let mut tournament = projection::tournament(details);
    let pinned = s.hosting.pinned(&tournament.tournament_id).await.refused()?;
    tournament.hosted = !pinned.is_empty();
    tournament.versions = pinned
        .into_iter()
        .map(|p| pb::EntrantVersion {
            name: p.name,
            digest: p.digest,
            command: p.command,
            version_id: p.version_id,
        })
        .collect();
    Ok(pb::GetTournamentResponse { tournament: Some(tournament) })
}

/// GetLeaderboard: a page of ratings, best first.
pub(crate) async fn get_leaderboard(
    s: &SkatServer,
    request: Request<pb::GetLeaderboardRequest>,
) -> Result<pb::GetLeaderboardResponse, Status> {
    s.admit(request.metadata(), Access::Read).await?;
    let r = request.get_ref();
    let rows = s.competitions.views.leaderboard(r.offset, r.page_size).await.refused()?;
    Ok(pb::GetLeaderboardResponse { entries: rows.into_iter().map(projection::leaderboard_entry).collect() })
}

/// ListTournaments: a page, newest first.
pub(crate) async fn list_tournaments(
    s: &SkatServer,
    request: Request<pb::ListTournamentsRequest>,
) -> Result<pb::ListTournamentsResponse, Status> {
    s.admit(request.metadata(), Access::Read).await?;
    let r = request.get_ref();
    let listed =
        s.competitions.views.list_tournaments(r.offset, r.page_size, r.include_casual).await.refused()?;
    Ok(pb::ListTournamentsResponse {
        tournaments: listed.into_iter().map(projection::tournament_summary).collect(),
    })
}

/// GetBot: an account as the public sees it.
pub(crate) async fn get_bot(
    s: &SkatServer,
    request: Request<pb::GetBotRequest>,
) -> Result<pb::GetBotResponse, Status> {
    s.admit(request.metadata(), Access::Read).await?;
    let bot = s.competitions.views.bot(&request.get_ref().name).await.refused()?;
    Ok(pb::GetBotResponse { bot: Some(projection::bot(bot)) })
}
