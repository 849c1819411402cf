//! The table RPCs: CreateTable, ListTables, JoinTable, LeaveTable, GetTable, GetRecords.
//!
//! | rule | why |
//! |---|---|
//! | a table exists once its creation is durable (else it is removed and the call fails) | an OK is a promise |
//! | a table counts against its creator's address until it expires (`--max-tables-per-client`) | one client cannot fill the server |
//! | a seat token is resolved to its seat under the table's lock | the seat cannot change hands between the check and its use |
//! | a JoinTable retried with its `join_key` gets its seat back (table/seats.rs); the key is kept only as a hash | a crash after the server seated a client loses nothing |
//! | GetTable shows only what is durable ([`skat_table::TableHandle::settled`]) | nobody sees a change a crash could take back |
//! | records: only deals whose end is published | the cards of a deal are public only once its end is durable |
//! | a tournament table's spectators and records wait for its list's other rotations (`competition::embargo`) | duplicate deals the same cards at every rotation |
//! | table and player names follow the name policy (`skat_league::names`), refused rather than cleaned | what a table shows is what was asked for |
//! | a table or player name may not pass for a house bot, nor a player's for a bot account (by the names' keys) | a person named `ΗΕΑΤ` would read as the bot `HEAT` |
//! | the admin token passes wherever the create token does, and its tables are in the audit log | the operator makes hand-made tables on a closed server |
//! | `bots` are checked before the table exists and seated in one change after (`competition::people`) | a person's table against bots is complete or not made |

use crate::rpc::refusal::Refused;
use std::time::{Instant, SystemTime};

use skat_engine::MatchConfig;
use skat_engine::matches::Seat;
use skat_league::{NameKind, check_name};
use skat_proto::pb;
use skat_proto::pb::ErrorReason as R;
use tonic::{Code, Request, Status};

use super::access::{Access, bearer, no_token, seat_in};
use super::limits::{Resource, client_of};
use super::projection;
use super::refusal::Refusal;
use super::service::{SkatServer, record_table};
use skat_store::{Cursor, ListFilter};
use skat_table::records::RecordContext;
use skat_table::registry::TableHandle;
use skat_table::secret::{SeatToken, TokenHash, random_u64, same_token};
use skat_table::settings::{self, deals_or_standard};
use skat_table::{Table, TableConfig, TableError, TableId};

/// Most tables in one ListTables page, and the page size when none is asked for.
pub(crate) const MAX_PAGE: usize = 1000;
const DEFAULT_PAGE: usize = 100;

/// CreateTable needs the create token (or the admin token) when the server has one.
fn check_create_token(s: &SkatServer, metadata: &tonic::metadata::MetadataMap) -> Result<(), Status> {
    let Some(required) = &s.config.create_token else { return Ok(()) };
    match bearer(metadata)? {
        Some(t) if same_token(&t, required) => Ok(()),
        Some(t) if s.config.admin_token.as_deref().is_some_and(|a| same_token(&t, a)) => Ok(()),
        Some(_) => Err(Refusal::new(
            Code::PermissionDenied,
            R::WrongServerToken,
            "wrong server token for CreateTable",
        )
        .into()),
        None => Err(Refusal::new(
            Code::Unauthenticated,
            R::TokenRequired,
            "CreateTable needs `authorization: Bearer <server token>`",
        )
        .into()),
    }
}

/// Whether the request carries the create token (the operator's, like the admin token).
fn create_token_given(s: &SkatServer, metadata: &tonic::metadata::MetadataMap) -> bool {
    let given = bearer(metadata).ok().flatten();
    matches!((&s.config.create_token, given), (Some(want), Some(t)) if same_token(&t, want))
}

/// The bots a CreateTable asks for fit the table (one named twice plays two seats).
fn check_bots(bots: &[String], seats: u8) -> Result<(), Status> {
    if bots.len() > usize::from(seats) {
        return Err(Refusal::new(
            Code::InvalidArgument,
            R::InvalidSettings,
            format!("{} bots do not fit at a table of {seats}", bots.len()),
        )
        .into());
    }
    Ok(())
}

/// A new table into the server's tables, within the client's and the server's limits.
fn insert(s: &SkatServer, table: Table, ip: std::net::IpAddr) -> Result<std::sync::Arc<TableHandle>, Status> {
    let limit = s.config.max_tables_per_client;
    let permit = s.clients.acquire(ip, Resource::Tables, limit).ok_or_else(|| {
        Refusal::limit(
            "max-tables-per-client",
            limit,
            format!(
                "your address holds its limit of {limit} tables; they expire {} s after they finish or go idle",
                s.config.table_expiry.as_secs()
            ),
        )
    })?;
    s.tables
        .insert(table, s.config.max_tables, Some(Box::new(permit)), s.metrics.table(), &s.journal)
        .ok_or_else(|| {
            Refusal::limit(
                "max-tables",
                s.config.max_tables,
                format!("the server holds its limit of {} tables", s.config.max_tables),
            )
            .into()
        })
}

/// CreateTable.
pub(crate) async fn create(
    s: &SkatServer,
    request: Request<pb::CreateTableRequest>,
) -> Result<pb::CreateTableResponse, Status> {
    let ip = client_of(&request);
    s.admit(request.metadata(), Access::Play).await?;
    check_create_token(s, request.metadata())?;
    let req = request.get_ref();
    let name = optional_name(NameKind::Table, &req.name)?;
    let is_admin = s.competitions.admin(bearer(request.metadata())?.as_deref(), ip).is_ok();
    s.competitions.accounts.check_table_name("table", &name, is_admin).await.refused()?;
    let seats = settings::seats(req.seats).refused()?;
    let deals = settings::deals(deals_or_standard(seats, req.deals), &s.config.table_limits()).refused()?;
    let seed = match req.seed {
        Some(seed) => seed,
        None => random_u64().refused()?,
    };
    let (action_ms, deal_ms) =
        settings::time_control(req.time_control.map(|t| (t.action_ms, t.deal_ms)), &s.config.table_limits())
            .refused()?;
    let between_deals_ms =
        settings::between_deals(req.time_control.map_or(0, |t| t.between_deals_ms)).refused()?;
    let join_code =
        if req.private || s.config.private_tables { Some(SeatToken::generate().refused()?) } else { None };
    // Bots asked for are checked before the table exists: a refusal leaves nothing behind.
    check_bots(&req.bots, seats)?;
    let by_operator = is_admin || create_token_given(s, request.metadata());
    let bots = if req.bots.is_empty() {
        Vec::new()
    } else {
        s.competitions.seats.bots_for_table(&req.bots, by_operator).await.refused()?
    };
    let config = TableConfig {
        name,
        game: MatchConfig { seats, deals, seed },
        action_ms,
        deal_ms,
        between_deals_ms,
        join_code: join_code.as_ref().map(SeatToken::hash),
        max_joins: s.config.max_joins_per_table,
        tournament: false,
    };
    let id = TableId::new(s.config.node_id.as_deref(), random_u64().refused()?);
    // The service reads the clocks; the table only ever uses the times it is given.
    let table = Table::new(id.clone(), config, Instant::now(), SystemTime::now())
        .map_err(TableError::from)
        .refused()?;
    let handle = insert(s, table, ip)?;
    // The table exists once its creation is durable.
    if let Err(e) = handle.mutate(&s.journal, s.metrics.table(), |_| ()).await {
        s.tables.remove(&id);
        return Err(Refusal::from(e).status());
    }
    s.metrics.tables.set(s.tables.len() as i64);
    tracing::info!(table = %id, seats, deals, private = join_code.is_some(), bots = bots.len(), "table created");
    if !bots.is_empty() {
        let code = join_code.as_ref().map_or("", SeatToken::reveal);
        s.competitions.seats.seat_bots(&handle, &id, code, bots).await.refused()?;
    }
    let view = projection::table_view(&*handle.settled().await, None, Instant::now());
    // A table made with the admin token is an admin action: the audit log has it.
    if let Ok(admin) = s.competitions.admin(bearer(request.metadata())?.as_deref(), ip) {
        let open = if join_code.is_some() { "private (a join code)" } else { "open to everybody" };
        s.competitions
            .audit(&admin, "create-table", &id.to_string(), format!("{seats} seats, {deals} deals, {open}"))
            .await;
    }
    Ok(pb::CreateTableResponse {
        table_id: id.to_string(),
        seed,
        table: Some(view),
        owner_address: s.config.node_id.as_deref().and_then(|n| s.config.peer_address(n)).unwrap_or_default(),
        join_code: join_code.as_ref().map(|c| c.reveal().to_string()).unwrap_or_default(),
    })
}

/// A JoinTable's `join_key` as the table keeps it (its hash), or none when empty: 16 to
/// 128 printable ASCII characters, so that a key is hard to guess and fits a log line's
/// rules (it is never logged).
fn join_key(key: &str) -> Result<Option<TokenHash>, Status> {
    if key.is_empty() {
        return Ok(None);
    }
    if !(16..=128).contains(&key.len()) || !key.bytes().all(|b| b.is_ascii_graphic()) {
        return Err(Refusal::new(
            Code::InvalidArgument,
            R::InvalidJoinKey,
            "a join key has 16 to 128 printable ASCII characters (a random UUID will do)",
        )
        .into());
    }
    Ok(Some(TokenHash::of(key)))
}

/// A name under the name policy (`skat_league::names`), or empty (a table without a
/// name; a player named after its seat).
fn optional_name(kind: NameKind, name: &str) -> Result<String, Status> {
    if name.is_empty() {
        return Ok(String::new());
    }
    check_name(kind, name).map_err(|e| Refusal::from(e).status())
}

/// `created_ms.table_id` of the last table of a page.
fn parse_page_token(token: &str) -> Result<Cursor, Status> {
    let invalid = || {
        Refusal::new(
            Code::InvalidArgument,
            R::InvalidPageToken,
            "page_token must be the next_page_token of an earlier ListTables response",
        )
        .status()
    };
    let (ms, id) = token.split_once('.').ok_or_else(invalid)?;
    let created_ms = ms.parse().map_err(|_| invalid())?;
    let id: TableId = id.parse().map_err(|_| invalid())?;
    Ok(Cursor { created_ms, table_id: id.to_string() })
}

/// ListTables: every replica's tables from the database, newest first.
pub(crate) async fn list(
    s: &SkatServer,
    request: Request<pb::ListTablesRequest>,
) -> Result<pb::ListTablesResponse, Status> {
    s.admit(request.metadata(), Access::Read).await?;
    let req = request.get_ref();
    let filter = match pb::TableFilter::try_from(req.filter) {
        Ok(pb::TableFilter::Live) => ListFilter::Live,
        Ok(pb::TableFilter::Finished) => ListFilter::Finished,
        _ => ListFilter::All,
    };
    let limit = match req.page_size {
        0 => DEFAULT_PAGE,
        n => (n as usize).min(MAX_PAGE),
    };
    let cursor = if req.page_token.is_empty() { None } else { Some(parse_page_token(&req.page_token)?) };
    let rows = s.journal.list(&s.tables, filter, cursor.as_ref(), limit).await.refused()?;
    let next_page_token = match rows.last() {
        Some(last) if rows.len() == limit => format!("{}.{}", last.created_ms, last.table_id),
        _ => String::new(),
    };
    Ok(pb::ListTablesResponse { tables: rows.iter().map(projection::summary).collect(), next_page_token })
}

/// JoinTable: a seat, its token, and the table as that seat sees it.
pub(crate) async fn join(
    s: &SkatServer,
    request: Request<pb::JoinTableRequest>,
) -> Result<pb::JoinTableResponse, Status> {
    s.admit(request.metadata(), Access::Play).await?;
    let req = request.get_ref();
    record_table(&req.table_id);
    let name = optional_name(NameKind::Player, &req.name)?;
    let is_admin = s.competitions.admin(bearer(request.metadata())?.as_deref(), client_of(&request)).is_ok();
    s.competitions.accounts.check_table_name("player", &name, is_admin).await.refused()?;
    let handle = s.table(&req.table_id).await?;
    let seat = match req.seat {
        Some(n) => Some(Seat::try_from(n).map_err(|_| {
            Refusal::new(Code::InvalidArgument, R::InvalidSeat, format!("this table has no seat {n}"))
        })?),
        None => None,
    };
    let key = join_key(&req.join_key)?;
    let token = SeatToken::generate().refused()?;
    let (joined, view) = handle
        .mutate(&s.journal, s.metrics.table(), |t| -> Result<_, TableError> {
            let now = Instant::now();
            let joined = t.join_keyed(&name, seat, &req.join_code, token.hash(), key, now)?;
            Ok((joined, projection::table_view(t, Some(joined.seat), now)))
        })
        .await
        .refused()?
        .refused()?;
    tracing::info!(seat = %joined.seat, rejoined = joined.rejoined, "seat taken");
    Ok(pb::JoinTableResponse {
        seat: u32::from(joined.seat),
        token: token.reveal().to_string(),
        table: Some(view),
        rejoined: joined.rejoined,
    })
}

/// LeaveTable: the seat is free (during a match its deal is forfeited).
pub(crate) async fn leave(
    s: &SkatServer,
    request: Request<pb::LeaveTableRequest>,
) -> Result<pb::LeaveTableResponse, Status> {
    record_table(&request.get_ref().table_id);
    let handle = s.table(&request.get_ref().table_id).await?;
    let token = bearer(request.metadata())?.ok_or_else(no_token)?;
    let (seat, seq) = handle
        .mutate(&s.journal, s.metrics.table(), |t| -> Result<_, Status> {
            let seat = seat_in(t, &token)?;
            Ok((seat, t.leave(seat, Instant::now()).refused()?))
        })
        .await
        .refused()??;
    tracing::info!(seat = %seat, "seat left");
    Ok(pb::LeaveTableResponse { seq })
}

/// GetTable: the table as the caller may see it (a seat with its token, else a spectator).
pub(crate) async fn get(
    s: &SkatServer,
    request: Request<pb::GetTableRequest>,
) -> Result<pb::GetTableResponse, Status> {
    record_table(&request.get_ref().table_id);
    s.admit(request.metadata(), Access::Watch).await?;
    let handle = s.readable(&request.get_ref().table_id, false).await?;
    let token = bearer(request.metadata())?;
    if token.is_none() {
        let marked = handle.lock().config().marked_for_embargo();
        s.competitions.embargo.check_embargo(&request.get_ref().table_id, marked).await.refused()?;
    }
    let is_tournament = handle.lock().config().tournament;
    let tournament = match (is_tournament, s.journal.store()) {
        (true, Some(store)) => {
            store.tournaments.tournament_named_of_table(&request.get_ref().table_id).await.refused()?
        }
        _ => None,
    };
    let t = handle.settled().await;
    let viewer = token.map(|token| seat_in(&t, &token)).transpose()?;
    let mut view = projection::table_view(&t, viewer, Instant::now());
    if let Some((id, name)) = tournament {
        view.tournament_id = id.to_string();
        view.tournament_name = name;
    }
    Ok(pb::GetTableResponse { table: Some(view) })
}

/// GetRecords: the finished deals (published ones) as ISS text or JSON lines.
pub(crate) async fn records(
    s: &SkatServer,
    request: Request<pb::GetRecordsRequest>,
) -> Result<pb::GetRecordsResponse, Status> {
    record_table(&request.get_ref().table_id);
    s.admit(request.metadata(), Access::Read).await?;
    let r = request.get_ref();
    let handle = s.readable(&r.table_id, true).await?;
    let marked = handle.lock().config().marked_for_embargo();
    s.competitions.embargo.check_embargo(&r.table_id, marked).await.refused()?;
    let json = match pb::RecordFormat::try_from(r.format) {
        Ok(pb::RecordFormat::Json) => true,
        Ok(_) => false,
        Err(_) => {
            return Err(Refusal::new(
                Code::InvalidArgument,
                R::InvalidRecordFormat,
                "format must be RECORD_FORMAT_ISS or RECORD_FORMAT_JSON",
            )
            .into());
        }
    };
    // A JSON record names its tournament (one indexed lookup; none without a database).
    let tournament_id = match (json, s.journal.store()) {
        (true, Some(store)) => {
            store.tournaments.tournament_of_table(&r.table_id).await.refused()?.map(|t| t.to_string())
        }
        _ => None,
    };
    let context = RecordContext { server: s.config.server_name.clone(), tournament_id };
    let (past, seq) = {
        let t = handle.lock();
        (t.past(), handle.published())
    };
    // A table keeps no records: they are derived from its inputs, off the lock.
    let records = tokio::task::spawn_blocking(move || past.records_until(seq, json, &context))
        .await
        .map_err(|_| Refusal::new(Code::Internal, R::Internal, "the table's records could not be read"))?;
    Ok(pb::GetRecordsResponse { records })
}
