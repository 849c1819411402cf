//! Competitions: bot accounts, their lobbies, tournaments and ratings.
//!
//! | concern | how |
//! |---|---|
//! | identity | an account has a bot token (shown once; its SHA-256 is stored) |
//! | being seated | the tournament's scheduler creates each table, takes every seat for its entrant with a fresh seat token, and hands the token to the entrant's lobby stream (now, or when it connects) |
//! | absence | a seat whose bot never comes forfeits on time like any seat: the list goes on |
//! | tokens after a restart | the server keeps no seat token: a seat handed out again gets a new one (a journaled `Rekeyed` input), and the old one stops working |
//! | fairness | each meeting of entrants plays the same deals in every seat rotation (duplicate) |
//! | ratings | after every finished list, Weng-Lin (the `skillratings` crate) over the list's placements by Seeger-Fabian |
//!
//! Rows live in the database ([`crate::league`]); a server without one refuses these
//! calls with NO_DATABASE.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Instant, SystemTime};

use skat_engine::MatchConfig;
use skat_engine::matches::Seat;
use skat_proto::pb::{self, ErrorReason as R};
use tokio::sync::mpsc;
use tonic::Code;

use crate::auth::{SeatToken, TokenHash, random_u64};
use crate::config::ServerConfig;
use crate::error::Refusal;
use crate::journal::Journal;
use crate::league::{Account, PlannedTable, SeatResult, Tournament, TournamentSpec};
use crate::metrics::Metrics;
use crate::store::{Store, StoreError};
use crate::table::{Table, TableConfig, unix_ms};
use crate::table_id::TableId;
use crate::tables::Tables;

/// What CreateTournament asks for (entrants by account name).
#[derive(Debug, Clone)]
pub struct NewTournament {
    /// A name for people.
    pub name: String,
    /// Account names.
    pub entrants: Vec<String>,
    /// 3 or 4.
    pub seats: u8,
    /// Deals per list (0: standard).
    pub deals: u32,
    /// Lists per meeting.
    pub lists: u32,
    /// Milliseconds per action.
    pub action_ms: u64,
    /// Milliseconds per seat per deal.
    pub deal_ms: u64,
    /// The seed of the deals.
    pub seed: u64,
}

/// Lobby streams one account may hold open at once.
pub const MAX_LOBBIES_PER_ACCOUNT: usize = 4;

/// Tables at once per account unless the operator says otherwise.
pub const DEFAULT_MAX_TABLES: u32 = 8;

/// A seat handed to an account: where, and its token while this process has it.
#[derive(Debug, Clone)]
struct Assignment {
    account_id: String,
    tournament_id: String,
    token: Option<String>,
}

/// The competitions of one server.
#[derive(Debug)]
pub struct Competitions {
    journal: Journal,
    tables: Arc<Tables>,
    config: Arc<ServerConfig>,
    metrics: Metrics,
    /// Open lobby streams by account.
    lobbies: Mutex<HashMap<String, Vec<mpsc::Sender<pb::SeatAssigned>>>>,
    /// Seats at unfinished tournament tables, by (table id, seat).
    seats: Mutex<HashMap<(String, u32), Assignment>>,
    /// Rating updates read and write an account's rating: one at a time, or two lists
    /// finishing together would lose one.
    rating: tokio::sync::Mutex<()>,
}

fn store_error(e: StoreError) -> Refusal {
    tracing::error!(error = %e, "the database failed");
    Refusal::new(Code::Unavailable, R::StorageUnavailable, "the server's database is not answering; retry")
}

fn no_database() -> Refusal {
    Refusal::new(
        Code::FailedPrecondition,
        R::NoDatabase,
        "accounts, lobbies and tournaments need a database: this server runs with --database memory",
    )
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

/// Every group of `k` out of `n`, in order.
fn combinations(n: usize, k: usize) -> Vec<Vec<usize>> {
    let mut out = Vec::new();
    let mut pick = (0..k).collect::<Vec<_>>();
    if k == 0 || k > n {
        return out;
    }
    loop {
        out.push(pick.clone());
        let mut i = k;
        while i > 0 && pick[i - 1] == n - k + i - 1 {
            i -= 1;
        }
        if i == 0 {
            return out;
        }
        pick[i - 1] += 1;
        for j in i..k {
            pick[j] = pick[j - 1] + 1;
        }
    }
}

/// The tables of a tournament: every group of `seats` entrants, `lists` lists each, every
/// list in every seat rotation on the same deals.
pub fn plan(spec: &TournamentSpec) -> Vec<PlannedTable> {
    let seats = usize::from(spec.seats);
    let mut out = Vec::new();
    for (meeting, group) in combinations(spec.entrants.len(), seats).into_iter().enumerate() {
        for list in 0..spec.lists {
            let seed = spec.seed.wrapping_add(meeting as u64 * u64::from(spec.lists) + u64::from(list));
            for rotation in 0..seats {
                let seating =
                    (0..seats).map(|s| spec.entrants[group[(s + rotation) % seats]].clone()).collect();
                out.push(PlannedTable {
                    n: out.len() as u64,
                    seating,
                    seed,
                    table_id: String::new(),
                    status: "pending".into(),
                    result: Vec::new(),
                });
            }
        }
    }
    out
}

impl Competitions {
    /// The competitions of a server.
    pub fn new(
        journal: Journal,
        tables: Arc<Tables>,
        config: Arc<ServerConfig>,
        metrics: Metrics,
    ) -> Arc<Self> {
        Arc::new(Competitions {
            journal,
            tables,
            config,
            metrics,
            lobbies: Mutex::default(),
            seats: Mutex::default(),
            rating: tokio::sync::Mutex::new(()),
        })
    }

    fn store(&self) -> Result<&Store, Refusal> {
        self.journal.store().ok_or_else(no_database)
    }

    /// Whether `presented` is the admin token (or none is needed because none is set
    /// and `open` is true).
    pub fn check_admin(&self, presented: Option<&str>) -> Result<(), Refusal> {
        match (&self.config.admin_token, presented) {
            (Some(admin), Some(p)) if crate::auth::same_token(admin, p) => Ok(()),
            (Some(_), _) => Err(Refusal::new(
                Code::PermissionDenied,
                R::AdminRequired,
                "this call needs `authorization: Bearer <admin token>` (skat serve --admin-token)",
            )),
            (None, _) => Err(Refusal::new(
                Code::PermissionDenied,
                R::AdminRequired,
                "this server has no admin token (skat serve --admin-token): nobody may do this",
            )),
        }
    }

    /// Registers an account; returns it and its bot token.
    pub async fn register(
        &self,
        name: &str,
        owner: &str,
        admin: Option<&str>,
    ) -> Result<(Account, String), Refusal> {
        let store = self.store()?;
        if !self.config.open_registration {
            self.check_admin(admin)?;
        }
        let name: String =
            name.chars().filter(|c| !c.is_control() && !matches!(c, '[' | ']' | ',')).collect();
        let name = name.trim().to_string();
        if name.is_empty() || name.chars().count() > 32 {
            return Err(Refusal::new(
                Code::InvalidArgument,
                R::InvalidSettings,
                "a name has 1 to 32 printable characters",
            ));
        }
        let token =
            SeatToken::generate().map_err(|_| Refusal::new(Code::Internal, R::Internal, "no randomness"))?;
        let id = random_u64().map_err(|_| Refusal::new(Code::Internal, R::Internal, "no randomness"))?;
        let account = Account {
            account_id: format!("a{:012x}", id & 0xffff_ffff_ffff),
            name: name.clone(),
            owner: owner.chars().filter(|c| !c.is_control()).take(128).collect(),
            token_hash: token.hash().to_string(),
            disabled: false,
            max_tables: DEFAULT_MAX_TABLES,
            created_ms: unix_ms(SystemTime::now()),
        };
        if !store.create_account(&account).await.map_err(store_error)? {
            return Err(Refusal::new(
                Code::AlreadyExists,
                R::AccountExists,
                format!("an account named `{name}` exists"),
            ));
        }
        tracing::info!(account = %account.account_id, name = %account.name, "bot account registered");
        Ok((account, token.reveal().to_string()))
    }

    /// Disables or enables an account, or gives it a new token (admin only).
    pub async fn update(
        &self,
        name: &str,
        disabled: Option<bool>,
        rotate: bool,
        admin: Option<&str>,
    ) -> Result<Option<String>, Refusal> {
        let store = self.store()?;
        self.check_admin(admin)?;
        let token = if rotate {
            Some(
                SeatToken::generate()
                    .map_err(|_| Refusal::new(Code::Internal, R::Internal, "no randomness"))?,
            )
        } else {
            None
        };
        let hash = token.as_ref().map(|t| t.hash().to_string());
        let account = store.account_by_name(name).await.map_err(store_error)?;
        if !store.update_account(name, disabled, hash.as_deref()).await.map_err(store_error)? {
            return Err(Refusal::new(
                Code::NotFound,
                R::UnknownEntrant,
                format!("no account named `{name}`"),
            )
            .with("entrant", name));
        }
        // The open lobbies were opened with the old token or before the account was
        // disabled: they end now (their bots reconnect, and are checked again).
        if let Some(a) = account
            && (rotate || disabled == Some(true))
        {
            lock(&self.lobbies).remove(&a.account_id);
        }
        tracing::info!(name, ?disabled, rotated = rotate, "bot account updated");
        Ok(token.map(|t| t.reveal().to_string()))
    }

    /// The account of a bot token.
    pub async fn authenticate(&self, token: Option<&str>) -> Result<Account, Refusal> {
        let store = self.store()?;
        let invalid = || {
            Refusal::new(
                Code::Unauthenticated,
                R::BotTokenInvalid,
                "this call needs `authorization: Bearer <bot token>` of an account",
            )
        };
        let token = token.ok_or_else(invalid)?;
        let account = store
            .account_by_token(&TokenHash::of(token).to_string())
            .await
            .map_err(store_error)?
            .ok_or_else(invalid)?;
        if account.disabled {
            return Err(Refusal::new(Code::PermissionDenied, R::AccountDisabled, "this account is disabled"));
        }
        Ok(account)
    }

    /// Opens an account's lobby: the seats it holds now, then every new one.
    pub async fn open_lobby(&self, account: &Account) -> Result<mpsc::Receiver<pb::SeatAssigned>, Refusal> {
        {
            let mut lobbies = lock(&self.lobbies);
            let open = lobbies.entry(account.account_id.clone()).or_default();
            open.retain(|tx| !tx.is_closed());
            if open.len() >= MAX_LOBBIES_PER_ACCOUNT {
                return Err(Refusal::limit(
                    "lobbies-per-account",
                    MAX_LOBBIES_PER_ACCOUNT,
                    format!("this account has {MAX_LOBBIES_PER_ACCOUNT} lobby streams open already"),
                ));
            }
        }
        let held: Vec<((String, u32), Assignment)> = lock(&self.seats)
            .iter()
            .filter(|(_, a)| a.account_id == account.account_id)
            .map(|(k, a)| (k.clone(), a.clone()))
            .collect();
        // Room for every seat held now and the next ones: none is dropped.
        let (tx, rx) = mpsc::channel(held.len() + 64);
        for ((table_id, seat), a) in held {
            let token = match a.token {
                Some(t) => t,
                None => match self.rekey(&table_id, seat).await {
                    Some(t) => t,
                    None => continue,
                },
            };
            let _ = tx.try_send(self.assigned(&table_id, seat, &token, &a.tournament_id));
        }
        lock(&self.lobbies).entry(account.account_id.clone()).or_default().push(tx);
        Ok(rx)
    }

    fn assigned(&self, table_id: &str, seat: u32, token: &str, tournament_id: &str) -> pb::SeatAssigned {
        let owner_address =
            self.config.node_id.as_deref().and_then(|n| self.config.peer_address(n)).unwrap_or_default();
        pb::SeatAssigned {
            table_id: table_id.to_string(),
            seat,
            seat_token: token.to_string(),
            owner_address,
            tournament_id: tournament_id.to_string(),
        }
    }

    /// A new token for a seat whose token this process no longer has.
    async fn rekey(&self, table_id: &str, seat: u32) -> Option<String> {
        let handle = self.tables.get(&table_id.parse().ok()?)?;
        let token = SeatToken::generate().ok()?;
        let hash = token.hash();
        let s = Seat::try_from(seat).ok()?;
        handle.mutate(&self.journal, &self.metrics, |t| t.rekey(s, hash, Instant::now())).await.ok()?.ok()?;
        if let Some(a) = lock(&self.seats).get_mut(&(table_id.to_string(), seat)) {
            a.token = Some(token.reveal().to_string());
        }
        Some(token.reveal().to_string())
    }

    fn notify(&self, account_id: &str, event: pb::SeatAssigned) {
        let mut lobbies = lock(&self.lobbies);
        if let Some(streams) = lobbies.get_mut(account_id) {
            streams.retain(|tx| !tx.is_closed());
            for tx in streams.iter() {
                let _ = tx.try_send(event.clone());
            }
        }
    }

    /// Creates a tournament and starts its scheduler.
    pub async fn create_tournament(self: &Arc<Self>, new: NewTournament) -> Result<(String, usize), Refusal> {
        let NewTournament { name, entrants: entrant_names, seats, deals, lists, action_ms, deal_ms, seed } =
            new;
        let store = self.store()?;
        let mut entrants = Vec::new();
        for n in &entrant_names {
            let a = store.account_by_name(n).await.map_err(store_error)?.ok_or_else(|| {
                Refusal::new(Code::InvalidArgument, R::UnknownEntrant, format!("no account named `{n}`"))
                    .with("entrant", n)
            })?;
            if !entrants.contains(&a.account_id) {
                entrants.push(a.account_id);
            }
        }
        if entrants.len() < usize::from(seats) {
            return Err(Refusal::new(
                Code::InvalidArgument,
                R::InvalidSettings,
                format!("a tournament at {seats} seats needs at least {seats} different entrants"),
            ));
        }
        let spec = TournamentSpec {
            entrants,
            seats,
            deals,
            lists: lists.max(1),
            action_ms,
            deal_ms,
            seed,
            parallel: 0,
        };
        let plan = plan(&spec);
        let id = format!(
            "u{:012x}",
            random_u64().map_err(|_| Refusal::new(Code::Internal, R::Internal, "no randomness"))?
                & 0xffff_ffff_ffff
        );
        let t = Tournament {
            tournament_id: id.clone(),
            owner: self.journal.owner().to_string(),
            name: name.chars().take(128).collect(),
            spec,
            status: "running".into(),
            created_ms: unix_ms(SystemTime::now()),
            finished_ms: 0,
        };
        store.create_tournament(&t, &plan).await.map_err(store_error)?;
        tracing::info!(tournament = %id, tables = plan.len(), "tournament created");
        let me = Arc::clone(self);
        let tid = id.clone();
        tokio::spawn(async move { me.run(tid).await });
        Ok((id, plan.len()))
    }

    /// Starts the schedulers of the running tournaments this replica owns (after a restart).
    pub async fn resume(self: &Arc<Self>) -> Result<(), StoreError> {
        let Some(store) = self.journal.store() else { return Ok(()) };
        for id in store.running_tournaments(self.journal.owner()).await? {
            let me = Arc::clone(self);
            tokio::spawn(async move { me.run(id).await });
        }
        Ok(())
    }

    /// A tournament's scheduler: seats planned tables as quotas allow, waits for them,
    /// records results and ratings, until every table has finished.
    async fn run(self: Arc<Self>, id: String) {
        if let Err(e) = self.schedule(&id).await {
            tracing::error!(tournament = %id, error = %e, "the tournament's scheduler stopped");
        }
    }

    async fn schedule(self: &Arc<Self>, id: &str) -> Result<(), StoreError> {
        let Some(store) = self.journal.store().cloned() else { return Ok(()) };
        let Some((t, plan)) = store.tournament(id).await? else { return Ok(()) };
        let mut waiting = Vec::new();
        let (done_tx, mut done_rx) = mpsc::unbounded_channel::<u64>();
        let mut active: HashMap<String, u32> = HashMap::new();
        for p in &plan {
            match p.status.as_str() {
                "pending" => waiting.push(p.clone()),
                "playing" => {
                    // Recovered with the journal: its seats are handed out again on demand.
                    for (seat, account) in p.seating.iter().enumerate() {
                        lock(&self.seats).insert(
                            (p.table_id.clone(), seat as u32),
                            Assignment {
                                account_id: account.clone(),
                                tournament_id: id.to_string(),
                                token: None,
                            },
                        );
                        *active.entry(account.clone()).or_default() += 1;
                    }
                    self.watch_table(id, p.clone(), done_tx.clone());
                }
                _ => {}
            }
        }
        let mut remaining = plan.iter().filter(|p| p.status != "finished").count();
        let max_tables = |a: &str| -> u32 { if a.is_empty() { 0 } else { DEFAULT_MAX_TABLES } };
        while remaining > 0 {
            // Seat every waiting table whose entrants all have room.
            let mut i = 0;
            while i < waiting.len() {
                let fits =
                    waiting[i].seating.iter().all(|a| active.get(a).copied().unwrap_or(0) < max_tables(a));
                if !fits {
                    i += 1;
                    continue;
                }
                let p = waiting.remove(i);
                match self.seat_table(&t, &p).await {
                    Ok(table_id) => {
                        store.update_planned(id, p.n, &table_id, "playing", &[]).await?;
                        for a in &p.seating {
                            *active.entry(a.clone()).or_default() += 1;
                        }
                        self.watch_table(id, PlannedTable { table_id, ..p }, done_tx.clone());
                    }
                    Err(e) => {
                        tracing::warn!(tournament = %id, error = %e.message, "could not open a tournament table; retrying");
                        waiting.insert(i, p);
                        tokio::time::sleep(std::time::Duration::from_secs(1)).await;
                    }
                }
            }
            let Some(n) = done_rx.recv().await else { break };
            remaining -= 1;
            if let Some(p) = plan.iter().find(|p| p.n == n) {
                for a in &p.seating {
                    if let Some(c) = active.get_mut(a) {
                        *c = c.saturating_sub(1);
                    }
                }
            }
        }
        store.finish_tournament(id, unix_ms(SystemTime::now())).await?;
        tracing::info!(tournament = %id, "tournament finished");
        Ok(())
    }

    /// Creates a planned table (private: only the scheduler seats it), takes every seat
    /// for its entrant and tells their lobbies.
    async fn seat_table(&self, t: &Tournament, p: &PlannedTable) -> Result<String, Refusal> {
        let store = self.store()?;
        let code =
            SeatToken::generate().map_err(|_| Refusal::new(Code::Internal, R::Internal, "no randomness"))?;
        let config = TableConfig {
            name: format!("{} #{}", t.name, p.n + 1),
            game: MatchConfig {
                seats: t.spec.seats,
                deals: if t.spec.deals == 0 {
                    MatchConfig::standard(t.spec.seats, 0).deals
                } else {
                    t.spec.deals
                },
                seed: p.seed,
            },
            action_ms: t.spec.action_ms,
            deal_ms: t.spec.deal_ms,
            join_code: Some(code.hash()),
            max_joins: self.config.max_joins_per_table,
        };
        let id = TableId::new(
            self.config.node_id.as_deref(),
            random_u64().map_err(|_| Refusal::new(Code::Internal, R::Internal, "no randomness"))?,
        );
        let table = Table::new(id.clone(), config, Instant::now(), SystemTime::now())
            .map_err(crate::table::TableError::from)?;
        let handle = self
            .tables
            .insert(table, usize::MAX, None, &self.metrics, &self.journal)
            .ok_or_else(|| Refusal::limit("max-tables", self.config.max_tables, "the server is full"))?;
        let mut tokens = Vec::new();
        for (seat, account) in p.seating.iter().enumerate() {
            let name = store
                .account(account)
                .await
                .map_err(store_error)?
                .map_or_else(|| account.clone(), |a| a.name);
            let token = SeatToken::generate()
                .map_err(|_| Refusal::new(Code::Internal, R::Internal, "no randomness"))?;
            let s = Seat::new(seat as u8);
            let hash = token.hash();
            handle
                .mutate(&self.journal, &self.metrics, |tb| {
                    tb.join(&name, Some(s), code.reveal(), hash, Instant::now())
                })
                .await??;
            tokens.push(token.reveal().to_string());
        }
        let table_id = id.to_string();
        for (seat, (account, token)) in p.seating.iter().zip(tokens).enumerate() {
            lock(&self.seats).insert(
                (table_id.clone(), seat as u32),
                Assignment {
                    account_id: account.clone(),
                    tournament_id: t.tournament_id.clone(),
                    token: Some(token.clone()),
                },
            );
            self.notify(account, self.assigned(&table_id, seat as u32, &token, &t.tournament_id));
        }
        self.metrics.tables.set(self.tables.len() as i64);
        Ok(table_id)
    }

    /// Waits for a tournament table to finish, then records its result and the ratings.
    fn watch_table(self: &Arc<Self>, tournament_id: &str, p: PlannedTable, done: mpsc::UnboundedSender<u64>) {
        let me = Arc::clone(self);
        let tid = tournament_id.to_string();
        tokio::spawn(async move {
            let Some(handle) = p.table_id.parse().ok().and_then(|id: TableId| me.tables.get(&id)) else {
                let _ = done.send(p.n);
                return;
            };
            let mut wake = handle.subscribe();
            loop {
                {
                    let t = handle.lock();
                    if t.is_finished() && handle.published() >= t.seq() {
                        break;
                    }
                }
                if wake.changed().await.is_err() || handle.is_closed() {
                    break;
                }
            }
            let result = {
                let t = handle.lock();
                let standings = t.view(None, Instant::now()).standings;
                p.seating
                    .iter()
                    .enumerate()
                    .map(|(seat, account)| {
                        let s = standings.iter().find(|s| s.seat == seat as u32).cloned().unwrap_or_default();
                        SeatResult {
                            account_id: account.clone(),
                            seeger_fabian: i64::from(s.seeger_fabian),
                            plain: i64::from(s.plain),
                            declared: s.declared,
                            won: s.won,
                            penalties: s.penalties,
                        }
                    })
                    .collect::<Vec<_>>()
            };
            for seat in 0..p.seating.len() {
                lock(&me.seats).remove(&(p.table_id.clone(), seat as u32));
            }
            if let Some(store) = me.journal.store() {
                let _one_at_a_time = me.rating.lock().await;
                if let Err(e) = rate(store, (&tid, p.n), &p.table_id, &result).await {
                    tracing::error!(error = %e, "could not record a tournament table's result and ratings");
                }
            }
            let _ = done.send(p.n);
        });
    }

    /// A tournament as the wire shows it.
    pub async fn tournament(&self, id: &str) -> Result<pb::Tournament, Refusal> {
        let store = self.store()?;
        let (t, plan) = store.tournament(id).await.map_err(store_error)?.ok_or_else(|| {
            Refusal::new(
                Code::NotFound,
                R::TournamentNotFound,
                format!("no tournament `{}`", id.chars().take(64).collect::<String>()),
            )
        })?;
        let mut names = HashMap::new();
        for a in &t.spec.entrants {
            let name = store.account(a).await.map_err(store_error)?.map_or_else(|| a.clone(), |a| a.name);
            names.insert(a.clone(), name);
        }
        let name = |a: &String| names.get(a).cloned().unwrap_or_else(|| a.clone());
        let mut by: HashMap<String, (Vec<i64>, u32, u32, u32)> = HashMap::new();
        for p in plan.iter().filter(|p| p.status == "finished") {
            for r in &p.result {
                let e = by.entry(r.account_id.clone()).or_default();
                e.0.push(r.seeger_fabian);
                e.1 += r.declared;
                e.2 += r.won;
                e.3 += r.penalties;
            }
        }
        let mut standings: Vec<pb::TournamentStanding> = t
            .spec
            .entrants
            .iter()
            .map(|a| {
                let (sf, declared, won, penalties) = by.remove(a).unwrap_or_default();
                let (mean, ci95) = mean_ci(&sf);
                pb::TournamentStanding {
                    name: name(a),
                    lists: sf.len() as u32,
                    seeger_fabian: sf.iter().sum(),
                    mean,
                    ci95,
                    declared,
                    won,
                    penalties,
                }
            })
            .collect();
        standings.sort_by(|a, b| b.mean.total_cmp(&a.mean).then_with(|| a.name.cmp(&b.name)));
        Ok(pb::Tournament {
            tournament_id: t.tournament_id,
            name: t.name,
            finished: t.status == "finished",
            tables: plan
                .iter()
                .map(|p| pb::TournamentTable {
                    table_id: p.table_id.clone(),
                    seating: p.seating.iter().map(name).collect(),
                    status: p.status.clone(),
                })
                .collect(),
            standings,
        })
    }

    /// A page of the leaderboard.
    pub async fn leaderboard(&self, offset: u32, limit: u32) -> Result<Vec<pb::LeaderboardEntry>, Refusal> {
        let store = self.store()?;
        let limit = if limit == 0 { 100 } else { limit.min(1000) };
        let rows = store.leaderboard(u64::from(offset), u64::from(limit)).await.map_err(store_error)?;
        Ok(rows
            .into_iter()
            .map(|r| pb::LeaderboardEntry {
                name: r.name,
                rating: r.rating,
                uncertainty: r.uncertainty,
                lists: r.lists as u32,
            })
            .collect())
    }
}

/// The mean and the half-width of its 95% interval (Student's t).
pub fn mean_ci(values: &[i64]) -> (f64, f64) {
    let n = values.len();
    if n == 0 {
        return (0.0, 0.0);
    }
    let mean = values.iter().sum::<i64>() as f64 / n as f64;
    if n < 2 {
        return (mean, 0.0);
    }
    let var = values.iter().map(|v| (*v as f64 - mean).powi(2)).sum::<f64>() / (n - 1) as f64;
    // Two-sided 97.5% quantiles of Student's t for 1..30 degrees of freedom, then 1.96.
    const T: [f64; 30] = [
        12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160, 2.145,
        2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048,
        2.045, 2.042,
    ];
    let t = T.get(n - 2).copied().unwrap_or(1.96);
    (mean, t * (var / n as f64).sqrt())
}

/// Records a finished list: its result, and its accounts' new ratings from its
/// placements (Seeger-Fabian, ties share a place) with Weng-Lin, in one transaction.
async fn rate(
    store: &Store,
    planned: (&str, u64),
    table_id: &str,
    result: &[SeatResult],
) -> Result<(), StoreError> {
    use skillratings::MultiTeamOutcome;
    use skillratings::weng_lin::{WengLinConfig, WengLinRating, weng_lin_multi_team};
    let accounts: Vec<String> = result.iter().map(|r| r.account_id.clone()).collect();
    let current = store.ratings_of(&accounts).await?;
    let ratings: Vec<[WengLinRating; 1]> = current
        .iter()
        .map(|c| {
            [c.map_or_else(WengLinRating::new, |(rating, uncertainty, _)| WengLinRating {
                rating,
                uncertainty,
            })]
        })
        .collect();
    let ranks: Vec<usize> = result
        .iter()
        .map(|r| 1 + result.iter().filter(|o| o.seeger_fabian > r.seeger_fabian).count())
        .collect();
    let teams: Vec<(&[WengLinRating], MultiTeamOutcome)> =
        ratings.iter().zip(&ranks).map(|(r, rank)| (&r[..], MultiTeamOutcome::new(*rank))).collect();
    let new = weng_lin_multi_team(&teams, &WengLinConfig::new());
    let updates: Vec<(String, f64, f64, u64)> = accounts
        .iter()
        .zip(&new)
        .zip(&current)
        .map(|((a, n), c)| {
            let r = n.first().copied().unwrap_or_default();
            (a.clone(), r.rating, r.uncertainty, c.map_or(0, |c| c.2) + 1)
        })
        .collect();
    store.finish_table(planned, table_id, result, &updates, unix_ms(SystemTime::now())).await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_group_meets_in_every_rotation() {
        let spec = TournamentSpec {
            entrants: ["a", "b", "c", "d"].map(String::from).to_vec(),
            seats: 3,
            deals: 6,
            lists: 2,
            action_ms: 0,
            deal_ms: 0,
            seed: 10,
            parallel: 0,
        };
        let p = plan(&spec);
        assert_eq!(p.len(), 4 * 2 * 3, "4 triples x 2 lists x 3 rotations");
        // The rotations of a list share its deals and put each entrant in every seat.
        for chunk in p.chunks(3) {
            assert!(chunk.iter().all(|t| t.seed == chunk[0].seed));
            for seat in 0..3 {
                let mut who: Vec<&String> = chunk.iter().map(|t| &t.seating[seat]).collect();
                who.sort();
                who.dedup();
                assert_eq!(who.len(), 3);
            }
        }
        assert_eq!(combinations(5, 3).len(), 10);
        assert_eq!(mean_ci(&[10, 20]).0, 15.0);
        assert!(mean_ci(&[10, 20]).1 > 0.0);
    }
}
