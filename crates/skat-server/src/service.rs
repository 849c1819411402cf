//! The `skat.v1.SkatService` implementation: a thin layer that authenticates, converts
//! requests with [`skat_proto::convert`], hands them to a [`Table`](crate::table::Table)
//! and maps refusals to gRPC status codes. No Skat rule lives here.

use std::pin::Pin;
use std::sync::Arc;
use std::time::Instant;

use skat_engine::matches::Seat;
use skat_engine::{Action, MatchConfig};
use skat_proto::convert;
use skat_proto::pb::ErrorReason as R;
use skat_proto::pb::skat_service_server::SkatService;
use skat_proto::pb::{self, watch_table_response::Kind as WatchKind};
use tokio::sync::watch;
use tokio_stream::Stream;
use tonic::metadata::MetadataMap;
use tonic::{Code, Request, Response, Status};

use crate::auth;
use crate::clients::{Clients, Resource, client_ip};
use crate::config::{Anonymous, ServerConfig};
use crate::error::Refusal;
use crate::journal::Journal;
use crate::metrics::Metrics;
use crate::store::{Cursor, ListFilter, TableRow};
use crate::stream::{Feed, Watcher};
use crate::table::{Table, TableConfig, TableError};
use crate::table_id::TableId;
use crate::tables::{StreamSlot, TableHandle, Tables};

/// The service state shared by all requests.
#[derive(Debug, Clone)]
pub struct SkatServer {
    tables: Arc<Tables>,
    clients: Arc<Clients>,
    config: Arc<ServerConfig>,
    metrics: Metrics,
    shutdown: watch::Receiver<bool>,
    journal: Journal,
    competitions: Arc<crate::competition::Competitions>,
}

/// The Lobby stream.
pub type LobbyStream = Pin<Box<dyn Stream<Item = Result<pb::LobbyResponse, Status>> + Send>>;

/// The trailer that carries the address of the replica owning a table.
pub const OWNER_METADATA: &str = "skat-owner";

/// The WatchTable stream.
pub type WatchStream = Pin<Box<dyn Stream<Item = Result<pb::WatchTableResponse, Status>> + Send>>;

/// Records the table id (cut to 64 characters: it comes from the client) into the
/// call's span, which the edge layer opened.
/// What a call asks of the `--anonymous` policy.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Access {
    /// Creating a table or taking a seat.
    Play,
    /// Reading one table (GetTable, WatchTable).
    Watch,
    /// Reading lists, records, tournaments, ratings.
    Read,
}

fn record_table(id: &str) {
    // Printable characters only: a client must not be able to forge log lines.
    let shown: String = id.chars().filter(|c| !c.is_control()).take(64).collect();
    tracing::Span::current().record("table", shown.as_str());
}

fn no_token() -> Status {
    Refusal::new(
        Code::Unauthenticated,
        R::TokenRequired,
        "this call needs `authorization: Bearer <seat token>` from JoinTable",
    )
    .into()
}

/// The seat `token` holds at `table`, checked under the table's lock by the caller so
/// that the seat cannot change hands between the check and its use.
fn seat_in(table: &Table, token: &str) -> Result<Seat, Status> {
    table.seat_of_token(token).ok_or_else(|| {
        Refusal::new(Code::PermissionDenied, R::NotSeated, "this token holds no seat at this table").into()
    })
}

/// A text that is no table id names no table: the same answer as an unknown one.
fn parse_id(id: &str) -> Result<TableId, Status> {
    let shown: String = id.chars().take(64).collect();
    id.parse().map_err(|_| {
        let message =
            if id.is_empty() { "no table id given".to_string() } else { format!("no table `{shown}`") };
        Refusal::new(Code::NotFound, R::TableNotFound, message).status()
    })
}

fn storage_error(e: crate::store::StoreError) -> Status {
    tracing::error!(error = %e, "the database failed a read");
    Refusal::new(Code::Unavailable, R::StorageUnavailable, "the server's database is not answering; retry")
        .status()
}

/// Most tables in one ListTables page, and the page size when none is asked for.
pub const MAX_PAGE: usize = 1000;
const DEFAULT_PAGE: usize = 100;

fn invalid_settings(message: impl Into<String>) -> Status {
    Refusal::new(Code::InvalidArgument, R::InvalidSettings, message).into()
}

impl SkatServer {
    /// A service over `tables`.
    pub fn new(
        tables: Arc<Tables>,
        config: Arc<ServerConfig>,
        metrics: Metrics,
        shutdown: watch::Receiver<bool>,
        journal: Journal,
        competitions: Arc<crate::competition::Competitions>,
    ) -> Self {
        SkatServer {
            tables,
            clients: Arc::new(Clients::default()),
            config,
            metrics,
            shutdown,
            journal,
            competitions,
        }
    }

    /// What each client address holds (shared with the connection limit).
    pub fn clients(&self) -> Arc<Clients> {
        Arc::clone(&self.clients)
    }

    /// The table, or NOT_FOUND; for a table another replica owns, NOT_FOUND names the
    /// owner and carries its address in the `skat-owner` trailer (the redirect).
    fn table(&self, id: &str) -> Result<Arc<TableHandle>, Status> {
        let parsed = parse_id(id)?;
        if let Some(t) = self.tables.get(&parsed) {
            return Ok(t);
        }
        Err(self.elsewhere(id, &parsed))
    }

    /// For reading: a table in memory, or else one read back from the journal when it
    /// has ended (finished or abandoned, on any replica), or any table for its records
    /// (`any_state`). Otherwise as [`SkatServer::table`].
    async fn readable(&self, id: &str, any_state: bool) -> Result<Arc<TableHandle>, Status> {
        let parsed = parse_id(id)?;
        if let Some(t) = self.tables.get(&parsed) {
            return Ok(t);
        }
        if let Some(store) = self.journal.store() {
            let row = store.row(id).await.map_err(storage_error)?;
            if row.is_some_and(|r| any_state || r.status.ended())
                && let Some(handle) =
                    crate::recovery::archived(&self.journal, &parsed).await.map_err(storage_error)?
            {
                return Ok(handle);
            }
        }
        Err(self.elsewhere(id, &parsed))
    }

    /// NOT_FOUND for a table not here: the owner's address if another replica owns it.
    fn elsewhere(&self, id: &str, parsed: &TableId) -> Status {
        let shown: String = id.chars().take(64).collect();
        let not_found =
            || Refusal::new(Code::NotFound, R::TableNotFound, format!("no table `{shown}`")).status();
        if let Some(node) = self.config.foreign_owner(parsed)
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
        not_found()
    }

    /// Whether the operator's `--anonymous` setting lets this caller do `access`. The
    /// create and admin tokens pass everywhere; under `none`, a bot token passes for
    /// reading and any bearer for watching (the seat token is checked where it is used).
    async fn admit(&self, metadata: &MetadataMap, access: Access) -> Result<(), Status> {
        let policy = self.config.anonymous;
        if policy == Anonymous::Play {
            return Ok(());
        }
        let bearer = auth::bearer(metadata)?;
        let operator = bearer.as_deref().is_some_and(|b| {
            [&self.config.create_token, &self.config.admin_token]
                .into_iter()
                .flatten()
                .any(|t| auth::same_token(t, b))
        });
        let refuse = |what: &str| -> Status {
            let code = if bearer.is_some() { Code::PermissionDenied } else { Code::Unauthenticated };
            Refusal::new(code, R::CredentialRequired, format!("this server (--anonymous {policy}) {what}"))
                .with("anonymous", policy)
                .status()
        };
        match access {
            _ if operator => Ok(()),
            Access::Play => Err(refuse(
                "creates tables and seats bots through bot accounts' lobbies only (or with the operator's token)",
            )),
            _ if policy == Anonymous::Spectate => Ok(()),
            Access::Watch if bearer.is_some() => Ok(()),
            Access::Watch => Err(refuse("shows a table only to its seats (a seat token)")),
            Access::Read => match bearer {
                Some(b) if self.competitions.authenticate(Some(&b)).await.is_ok() => Ok(()),
                _ => Err(refuse("answers this only with a bot token or the operator's token")),
            },
        }
    }

    /// Applies a seat's action: the common path of every action RPC. The token is
    /// resolved to its seat and the action applied in one critical section; `then` reads
    /// what the response needs in the same one.
    async fn act<R>(
        &self,
        table_id: &str,
        metadata: &MetadataMap,
        action: Result<Action, convert::ConvertError>,
        expected_seq: Option<u64>,
        then: impl FnOnce(&Table, Seat) -> R,
    ) -> Result<(u64, R), Status> {
        record_table(table_id);
        let handle = self.table(table_id)?;
        let token = auth::bearer(metadata)?.ok_or_else(no_token)?;
        // One critical section: the token's seat, the action, the response's extra;
        // then the answer waits until the action is durable.
        let (seat, action, seq, extra) = handle
            .mutate(&self.journal, &self.metrics, |t| -> Result<_, Status> {
                let seat = seat_in(t, &token)?;
                let action = action.map_err(Refusal::from)?;
                let seq = t.act(seat, action, expected_seq, Instant::now())?;
                Ok((seat, action, seq, then(t, seat)))
            })
            .await??;
        // Only the action's name: a discard's cards are secret, and logs are not the place.
        tracing::debug!(seat = %seat, action = action.name(), seq, "accepted");
        Ok((seq, extra))
    }
}

#[tonic::async_trait]
impl SkatService for SkatServer {
    async fn create_table(
        &self,
        request: Request<pb::CreateTableRequest>,
    ) -> Result<Response<pb::CreateTableResponse>, Status> {
        let ip = client_ip(request.remote_addr());
        self.admit(request.metadata(), Access::Play).await?;
        let result = (|| {
            if let Some(required) = &self.config.create_token {
                match auth::bearer(request.metadata())? {
                    Some(t) if auth::same_token(&t, required) => {}
                    Some(_) => {
                        return Err(Refusal::new(
                            Code::PermissionDenied,
                            R::WrongServerToken,
                            "wrong server token for CreateTable",
                        )
                        .into());
                    }
                    None => {
                        return Err(Refusal::new(
                            Code::Unauthenticated,
                            R::TokenRequired,
                            "CreateTable needs `authorization: Bearer <server token>`",
                        )
                        .into());
                    }
                }
            }
            let req = request.get_ref();
            let seats = match req.seats {
                0 | 3 => 3,
                4 => 4,
                n => return Err(invalid_settings(format!("a table has 3 or 4 seats, not {n}"))),
            };
            let mut game = MatchConfig::standard(seats, 0);
            if req.deals > 0 {
                game.deals = req.deals;
            }
            if game.deals > self.config.max_deals {
                return Err(Refusal::new(
                    Code::InvalidArgument,
                    R::InvalidSettings,
                    format!(
                        "at most {} deals per table on this server (asked for {})",
                        self.config.max_deals, game.deals
                    ),
                )
                .with("max_deals", self.config.max_deals)
                .into());
            }
            game.seed = match req.seed {
                Some(s) => s,
                None => auth::random_u64()?,
            };
            let tc = req.time_control.unwrap_or(pb::TimeControl {
                action_ms: self.config.default_action_ms,
                deal_ms: self.config.default_deal_ms,
            });
            const DAY_MS: u64 = 24 * 3600 * 1000;
            if tc.action_ms > DAY_MS || tc.deal_ms > DAY_MS {
                return Err(invalid_settings("time limits are at most one day (86400000 ms); 0 means none"));
            }
            let join_code = if req.private || self.config.private_tables {
                Some(auth::SeatToken::generate()?)
            } else {
                None
            };
            let config = TableConfig {
                name: req.name.chars().take(128).collect(),
                game,
                action_ms: tc.action_ms,
                deal_ms: tc.deal_ms,
                join_code: join_code.as_ref().map(auth::SeatToken::hash),
                max_joins: self.config.max_joins_per_table,
            };
            let id = TableId::new(self.config.node_id.as_deref(), auth::random_u64()?);
            // The service reads the clocks; the table only ever uses the times it is given.
            let table = Table::new(id.clone(), config, Instant::now(), std::time::SystemTime::now())
                .map_err(TableError::from)?;
            let view = table.view(None, Instant::now());
            let permit =
                self.clients.acquire(ip, Resource::Tables, self.config.max_tables_per_client).ok_or_else(|| {
                    Refusal::limit(
                        "max-tables-per-client",
                        self.config.max_tables_per_client,
                        format!(
                            "your address holds its limit of {} tables; they expire {} s after they finish or go idle",
                            self.config.max_tables_per_client,
                            self.config.table_expiry.as_secs()
                        ),
                    )
                })?;
            let handle = self
                .tables
                .insert(table, self.config.max_tables, Some(permit), &self.metrics, &self.journal)
                .ok_or_else(|| {
                    Refusal::limit(
                        "max-tables",
                        self.config.max_tables,
                        format!("the server holds its limit of {} tables", self.config.max_tables),
                    )
                })?;
            let owner_address =
                self.config.node_id.as_deref().and_then(|n| self.config.peer_address(n)).unwrap_or_default();
            let response = pb::CreateTableResponse {
                table_id: id.to_string(),
                seed: game.seed,
                table: Some(view),
                owner_address,
                join_code: join_code.as_ref().map(|c| c.reveal().to_string()).unwrap_or_default(),
            };
            Ok((handle, id, response, seats, game.deals, join_code.is_some()))
        })();
        let (handle, id, response, seats, deals, private) = result?;
        // The table exists once its creation is durable.
        if let Err(refusal) = handle.mutate(&self.journal, &self.metrics, |_| ()).await {
            self.tables.remove(&id);
            return Err(refusal.into());
        }
        self.metrics.tables.set(self.tables.len() as i64);
        tracing::info!(table = %id, seats, deals, private, "table created");
        Ok(Response::new(response))
    }

    async fn list_tables(
        &self,
        request: Request<pb::ListTablesRequest>,
    ) -> Result<Response<pb::ListTablesResponse>, Status> {
        self.admit(request.metadata(), Access::Read).await?;
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
        let rows: Vec<TableRow> = match self.journal.store() {
            // Every replica's tables, from the shared database.
            Some(store) => store.list(filter, cursor.as_ref(), limit).await.map_err(storage_error)?,
            None => {
                let mut rows: Vec<TableRow> = self
                    .tables
                    .all()
                    .iter()
                    .map(|h| crate::journal::table_row(&h.lock(), self.journal.owner()))
                    .filter(|r| match filter {
                        ListFilter::All => true,
                        ListFilter::Live => !r.status.ended(),
                        ListFilter::Finished => r.status == crate::store::RowStatus::Finished,
                    })
                    .filter(|r| {
                        cursor
                            .as_ref()
                            .is_none_or(|c| (r.created_ms, &r.table_id) < (c.created_ms, &c.table_id))
                    })
                    .collect();
                rows.sort_by(|a, b| (b.created_ms, &b.table_id).cmp(&(a.created_ms, &a.table_id)));
                rows.truncate(limit);
                rows
            }
        };
        let next_page_token = match rows.last() {
            Some(last) if rows.len() == limit => format!("{}.{}", last.created_ms, last.table_id),
            _ => String::new(),
        };
        let tables = rows.iter().map(crate::project::summary_of).collect();
        Ok(Response::new(pb::ListTablesResponse { tables, next_page_token }))
    }

    async fn join_table(
        &self,
        request: Request<pb::JoinTableRequest>,
    ) -> Result<Response<pb::JoinTableResponse>, Status> {
        self.admit(request.metadata(), Access::Play).await?;
        let req = request.get_ref();
        record_table(&req.table_id);
        let handle = self.table(&req.table_id)?;
        let seat = match req.seat {
            Some(s) => Some(Seat::try_from(s).map_err(|_| {
                Refusal::new(Code::InvalidArgument, R::InvalidSeat, format!("this table has no seat {s}"))
            })?),
            None => None,
        };
        let token = auth::SeatToken::generate()?;
        let (seat, view) = handle
            .mutate(&self.journal, &self.metrics, |t| -> Result<_, Status> {
                let now = Instant::now();
                let seat = t.join(&req.name, seat, &req.join_code, token.hash(), now)?;
                Ok((seat, t.view(Some(seat), now)))
            })
            .await??;
        tracing::info!(seat = %seat, "seat taken");
        Ok(Response::new(pb::JoinTableResponse {
            seat: u32::from(seat),
            token: token.reveal().to_string(),
            table: Some(view),
        }))
    }

    async fn leave_table(
        &self,
        request: Request<pb::LeaveTableRequest>,
    ) -> Result<Response<pb::LeaveTableResponse>, Status> {
        record_table(&request.get_ref().table_id);
        let handle = self.table(&request.get_ref().table_id)?;
        let token = auth::bearer(request.metadata())?.ok_or_else(no_token)?;
        let (seat, seq) = handle
            .mutate(&self.journal, &self.metrics, |t| -> Result<_, Status> {
                let seat = seat_in(t, &token)?;
                Ok((seat, t.leave(seat, Instant::now())?))
            })
            .await??;
        tracing::info!(seat = %seat, "seat left");
        Ok(Response::new(pb::LeaveTableResponse { seq }))
    }

    async fn get_table(
        &self,
        request: Request<pb::GetTableRequest>,
    ) -> Result<Response<pb::GetTableResponse>, Status> {
        record_table(&request.get_ref().table_id);
        self.admit(request.metadata(), Access::Watch).await?;
        let handle = self.readable(&request.get_ref().table_id, false).await?;
        let token = auth::bearer(request.metadata())?;
        let t = handle.settled().await;
        let viewer = token.map(|token| seat_in(&t, &token)).transpose()?;
        let view = t.view(viewer, Instant::now());
        Ok(Response::new(pb::GetTableResponse { table: Some(view) }))
    }

    type WatchTableStream = WatchStream;

    async fn watch_table(
        &self,
        request: Request<pb::WatchTableRequest>,
    ) -> Result<Response<WatchStream>, Status> {
        let ip = client_ip(request.remote_addr());
        self.admit(request.metadata(), Access::Watch).await?;
        let handle = self.readable(&request.get_ref().table_id, false).await?;
        let settled = handle.settled().await;
        let result = (|| {
            let token = auth::bearer(request.metadata())?;
            let client = self
                .clients
                .acquire(ip, Resource::Streams, self.config.max_streams_per_client)
                .ok_or_else(|| {
                    Refusal::limit(
                        "max-streams-per-client",
                        self.config.max_streams_per_client,
                        format!(
                            "your address holds its limit of {} open streams",
                            self.config.max_streams_per_client
                        ),
                    )
                })?;
            let t = settled;
            let watcher = match token {
                None => Watcher::Spectator,
                Some(token) => {
                    Watcher::Seat { seat: seat_in(&t, &token)?, token: auth::TokenHash::of(&token) }
                }
            };
            let slot = StreamSlot::open(&handle, watcher.seat(), &self.config, &self.metrics)?;
            let (first, cursor) = match request.get_ref().after_seq {
                None => {
                    let snapshot = t.view(watcher.seat(), Instant::now());
                    let seq = snapshot.seq;
                    (Some(pb::WatchTableResponse { kind: Some(WatchKind::Snapshot(snapshot)) }), seq)
                }
                Some(after) if after > t.seq() => {
                    return Err(Refusal::new(
                        Code::OutOfRange,
                        R::AfterSeqAhead,
                        format!("after_seq {after} is ahead of the table (seq {})", t.seq()),
                    )
                    .with("current_seq", t.seq())
                    .into());
                }
                Some(after) => (None, after),
            };
            drop(t);
            Ok((
                Feed {
                    handle: Arc::clone(&handle),
                    watcher,
                    cursor,
                    first,
                    shutdown: self.shutdown.clone(),
                    stall_timeout: self.config.stream_stall_timeout,
                },
                (slot, client),
            ))
        })();
        let (feed, guards) = match result {
            Ok(parts) => parts,
            Err(e) => return Err(e),
        };
        record_table(&request.get_ref().table_id);
        let span =
            tracing::info_span!(parent: tracing::Span::current(), "stream", seat = ?feed.watcher.seat());
        let stream: WatchStream = Box::pin(feed.spawn(guards, span));
        Ok(Response::new(stream))
    }

    async fn bid(&self, request: Request<pb::BidRequest>) -> Result<Response<pb::BidResponse>, Status> {
        let r = request.get_ref();
        let result = self
            .act(
                &r.table_id,
                request.metadata(),
                convert::bid_action(r.call, r.value),
                r.expected_seq,
                |_, _| (),
            )
            .await
            .map(|(seq, _)| pb::BidResponse { seq });
        result.map(Response::new)
    }

    async fn take_skat(
        &self,
        request: Request<pb::TakeSkatRequest>,
    ) -> Result<Response<pb::TakeSkatResponse>, Status> {
        let r = request.get_ref();
        let action = Ok(if r.pick_up { Action::PickUpSkat } else { Action::PlayHand });
        // The skat the declarer just picked up, read in the same critical section.
        let result = self
            .act(&r.table_id, request.metadata(), action, r.expected_seq, |t, seat| {
                if r.pick_up { convert::cards(t.skat_picked_up_by(seat)) } else { Vec::new() }
            })
            .await
            .map(|(seq, skat)| pb::TakeSkatResponse { seq, skat });
        result.map(Response::new)
    }

    async fn discard(
        &self,
        request: Request<pb::DiscardRequest>,
    ) -> Result<Response<pb::DiscardResponse>, Status> {
        let r = request.get_ref();
        let result = self
            .act(
                &r.table_id,
                request.metadata(),
                convert::discard_action(&r.cards),
                r.expected_seq,
                |_, _| (),
            )
            .await
            .map(|(seq, _)| pb::DiscardResponse { seq });
        result.map(Response::new)
    }

    async fn declare(
        &self,
        request: Request<pb::DeclareRequest>,
    ) -> Result<Response<pb::DeclareResponse>, Status> {
        let r = request.get_ref();
        let result = self
            .act(
                &r.table_id,
                request.metadata(),
                convert::declare_action(r.game, r.announcement),
                r.expected_seq,
                |_, _| (),
            )
            .await
            .map(|(seq, _)| pb::DeclareResponse { seq });
        result.map(Response::new)
    }

    async fn play_card(
        &self,
        request: Request<pb::PlayCardRequest>,
    ) -> Result<Response<pb::PlayCardResponse>, Status> {
        let r = request.get_ref();
        let result = self
            .act(&r.table_id, request.metadata(), convert::play_action(r.card), r.expected_seq, |_, _| ())
            .await
            .map(|(seq, _)| pb::PlayCardResponse { seq });
        result.map(Response::new)
    }

    async fn resign(
        &self,
        request: Request<pb::ResignRequest>,
    ) -> Result<Response<pb::ResignResponse>, Status> {
        let r = request.get_ref();
        let result = self
            .act(&r.table_id, request.metadata(), Ok(Action::Resign), r.expected_seq, |_, _| ())
            .await
            .map(|(seq, _)| pb::ResignResponse { seq });
        result.map(Response::new)
    }

    async fn claim(&self, request: Request<pb::ClaimRequest>) -> Result<Response<pb::ClaimResponse>, Status> {
        let r = request.get_ref();
        let result = self
            .act(&r.table_id, request.metadata(), Ok(Action::Claim), r.expected_seq, |_, _| ())
            .await
            .map(|(seq, _)| pb::ClaimResponse { seq });
        result.map(Response::new)
    }

    async fn register_bot(
        &self,
        request: Request<pb::RegisterBotRequest>,
    ) -> Result<Response<pb::RegisterBotResponse>, Status> {
        let admin = auth::bearer(request.metadata())?;
        let r = request.get_ref();
        let (account, bot_token) = self.competitions.register(&r.name, &r.owner, admin.as_deref()).await?;
        Ok(Response::new(pb::RegisterBotResponse {
            account_id: account.account_id,
            name: account.name,
            bot_token,
        }))
    }

    type LobbyStream = LobbyStream;

    async fn lobby(&self, request: Request<pb::LobbyRequest>) -> Result<Response<LobbyStream>, Status> {
        let ip = client_ip(request.remote_addr());
        let token = auth::bearer(request.metadata())?;
        // A lobby is a stream like any other: it counts against its address's limit.
        let permit = self
            .clients
            .acquire(ip, Resource::Streams, self.config.max_streams_per_client)
            .ok_or_else(|| {
                Refusal::limit(
                    "max-streams-per-client",
                    self.config.max_streams_per_client,
                    format!(
                        "your address holds its limit of {} open streams",
                        self.config.max_streams_per_client
                    ),
                )
            })?;
        let account = self.competitions.authenticate(token.as_deref()).await?;
        tracing::info!(account = %account.account_id, "lobby opened");
        let r = request.get_ref();
        let mut seats = self.competitions.open_lobby(&account, r.max_tables, r.casual_seats).await?;
        let (tx, rx) = tokio::sync::mpsc::channel(16);
        let mut shutdown = self.shutdown.clone();
        tokio::spawn(async move {
            let _permit = permit;
            loop {
                tokio::select! {
                    seat = seats.recv() => {
                        let Some(seat) = seat else { return };
                        let event = pb::LobbyResponse { kind: Some(pb::lobby_response::Kind::SeatAssigned(seat)) };
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
        Ok(Response::new(Box::pin(tokio_stream::wrappers::ReceiverStream::new(rx))))
    }

    async fn create_tournament(
        &self,
        request: Request<pb::CreateTournamentRequest>,
    ) -> Result<Response<pb::CreateTournamentResponse>, Status> {
        let admin = auth::bearer(request.metadata())?;
        self.competitions.check_admin(admin.as_deref())?;
        let r = request.get_ref();
        let seats = match r.seats {
            0 | 3 => 3,
            4 => 4,
            n => return Err(invalid_settings(format!("a table has 3 or 4 seats, not {n}"))),
        };
        if r.deals > self.config.max_deals {
            return Err(invalid_settings(format!(
                "at most {} deals per table on this server",
                self.config.max_deals
            )));
        }
        let tc = r.time_control.unwrap_or(pb::TimeControl {
            action_ms: self.config.default_action_ms,
            deal_ms: self.config.default_deal_ms,
        });
        let seed = match r.seed {
            Some(s) => s,
            None => auth::random_u64()?,
        };
        let (tournament_id, tables) = self
            .competitions
            .create_tournament(crate::competition::NewTournament {
                name: r.name.clone(),
                entrants: r.entrants.clone(),
                seats,
                deals: r.deals,
                lists: r.lists,
                action_ms: tc.action_ms,
                deal_ms: tc.deal_ms,
                seed,
                format: match pb::TournamentFormat::try_from(r.format) {
                    Ok(pb::TournamentFormat::Unspecified | pb::TournamentFormat::RoundRobin) => {
                        crate::league::Format::RoundRobin
                    }
                    Ok(pb::TournamentFormat::Swiss) => crate::league::Format::Swiss,
                    _ => return Err(invalid_settings("format is ROUND_ROBIN or SWISS")),
                },
                rounds: r.rounds,
                start_ms: r.start_ms,
            })
            .await?;
        Ok(Response::new(pb::CreateTournamentResponse { tournament_id, tables: tables as u32 }))
    }

    async fn update_bot(
        &self,
        request: Request<pb::UpdateBotRequest>,
    ) -> Result<Response<pb::UpdateBotResponse>, Status> {
        let admin = auth::bearer(request.metadata())?;
        let r = request.get_ref();
        let token = self
            .competitions
            .update(&r.name, r.disabled, r.rotate_token, r.max_tables, admin.as_deref())
            .await?;
        Ok(Response::new(pb::UpdateBotResponse { bot_token: token.unwrap_or_default() }))
    }

    async fn get_tournament(
        &self,
        request: Request<pb::GetTournamentRequest>,
    ) -> Result<Response<pb::GetTournamentResponse>, Status> {
        self.admit(request.metadata(), Access::Read).await?;
        let tournament = self.competitions.tournament(&request.get_ref().tournament_id).await?;
        Ok(Response::new(pb::GetTournamentResponse { tournament: Some(tournament) }))
    }

    async fn get_leaderboard(
        &self,
        request: Request<pb::GetLeaderboardRequest>,
    ) -> Result<Response<pb::GetLeaderboardResponse>, Status> {
        self.admit(request.metadata(), Access::Read).await?;
        let r = request.get_ref();
        let entries = self.competitions.leaderboard(r.offset, r.page_size).await?;
        Ok(Response::new(pb::GetLeaderboardResponse { entries }))
    }

    async fn list_tournaments(
        &self,
        request: Request<pb::ListTournamentsRequest>,
    ) -> Result<Response<pb::ListTournamentsResponse>, Status> {
        self.admit(request.metadata(), Access::Read).await?;
        let r = request.get_ref();
        let tournaments = self.competitions.list_tournaments(r.offset, r.page_size, r.include_casual).await?;
        Ok(Response::new(pb::ListTournamentsResponse { tournaments }))
    }

    async fn get_bot(
        &self,
        request: Request<pb::GetBotRequest>,
    ) -> Result<Response<pb::GetBotResponse>, Status> {
        self.admit(request.metadata(), Access::Read).await?;
        let bot = self.competitions.bot(&request.get_ref().name).await?;
        Ok(Response::new(pb::GetBotResponse { bot: Some(bot) }))
    }

    async fn get_records(
        &self,
        request: Request<pb::GetRecordsRequest>,
    ) -> Result<Response<pb::GetRecordsResponse>, Status> {
        record_table(&request.get_ref().table_id);
        self.admit(request.metadata(), Access::Read).await?;
        let r = request.get_ref();
        let handle = self.readable(&r.table_id, true).await?;
        let result = (|| {
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
            let records = handle.lock().records_until(handle.published(), json, &self.config.server_name);
            Ok(pb::GetRecordsResponse { records })
        })();
        result.map(Response::new)
    }
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
