//! Competitions: bot accounts, their lobbies, tournaments and ratings.
//!
//! | concern | how |
//! |---|---|
//! | identity | an account has a bot token (shown once; its SHA-256 is stored) |
//! | quotas | tables at once per account (its `max_tables`, lowered by what its lobby asks for), lobbies per account; counted over every tournament and replica from the database |
//! | being seated | the tournament's scheduler creates each table, takes every seat for its entrant with a fresh seat token, and hands the token to the entrant's lobby stream (now, or when it connects) |
//! | one scheduler | a lease in the database (`take_lease`), renewed while it runs; a replica takes over a lease that ran out |
//! | results | recorded by the replica that hosts the table (its result watcher), so a scheduler on another replica only reads the plan |
//! | formats | round robin (every group of entrants), Swiss (rounds of groups by standing), casual (one meeting of bots matched as they arrive) |
//! | absence | a seat whose bot never comes forfeits on time like any seat: the list goes on |
//! | tokens after a restart | the server keeps no seat token: a seat handed out again gets a new one (a journaled `Rekeyed` input), and the old one stops working |
//! | fairness | each meeting of entrants plays the same deals in every seat rotation (duplicate) |
//! | ratings | after every finished list, Weng-Lin (the `skillratings` crate) over the list's placements by Seeger-Fabian |
//!
//! Rows live in the database ([`crate::league`]); a server without one refuses these
//! calls with NO_DATABASE.

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime};

use skat_engine::MatchConfig;
use skat_engine::matches::Seat;
use skat_proto::pb::{self, ErrorReason as R};
use tokio::sync::mpsc;
use tonic::Code;

use crate::auth::{SeatToken, TokenHash, random_u64};
use crate::config::ServerConfig;
use crate::error::Refusal;
use crate::journal::Journal;
use crate::league::{Account, Format, PlannedTable, SeatResult, Tournament, TournamentSpec};
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
    /// How entrants meet (round robin or Swiss).
    pub format: Format,
    /// Swiss rounds (0: enough for everybody to meet everybody, at most 9).
    pub rounds: u32,
    /// Unix milliseconds before which no table is seated.
    pub start_ms: u64,
}

/// How long a scheduler's lease lasts unless renewed.
const LEASE: Duration = Duration::from_secs(10);
/// How often a scheduler looks at its plan when nothing woke it, and renews its lease.
const SCHEDULER_TICK: Duration = Duration::from_secs(1);
/// How often a replica looks for tournaments whose scheduler lease ran out.
const TAKEOVER_POLL: Duration = Duration::from_secs(3);
/// How often a lobby looks for its account's seats at tables on other replicas.
const REMOTE_SEATS_POLL: Duration = Duration::from_secs(2);
/// Most Swiss rounds.
const MAX_ROUNDS: u32 = 9;

/// An open lobby stream.
#[derive(Debug)]
struct Lobby {
    tx: mpsc::Sender<pb::SeatAssigned>,
    /// Most tables it asked for (0: no limit of its own).
    max_tables: u32,
    /// Casual seats it asked for (0: none).
    casual_seats: u32,
}

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
    lobbies: Mutex<HashMap<String, Vec<Lobby>>>,
    /// Seats at unfinished tournament tables, by (table id, seat).
    seats: Mutex<HashMap<(String, u32), Assignment>>,
    /// Rating updates read and write an account's rating: one at a time, or two lists
    /// finishing together would lose one.
    rating: tokio::sync::Mutex<()>,
    /// Tournaments whose scheduler runs in this process.
    running: Mutex<HashSet<String>>,
    /// Tables whose result watcher runs in this process.
    watched: Mutex<HashSet<String>>,
    /// Accounts waiting for a casual meeting, first come first served: (account, seats).
    casual_queue: Mutex<Vec<(String, u32)>>,
    /// Accounts queued for or playing a casual meeting (one at a time each).
    in_casual: Mutex<HashSet<String>>,
    /// Wakes the schedulers: a table finished here, a lobby opened.
    wake: tokio::sync::Notify,
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
            running: Mutex::default(),
            watched: Mutex::default(),
            casual_queue: Mutex::default(),
            in_casual: Mutex::default(),
            wake: tokio::sync::Notify::new(),
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
            max_tables: self.config.account_max_tables,
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

    /// Disables or enables an account, gives it a new token or a new quota (admin only).
    pub async fn update(
        &self,
        name: &str,
        disabled: Option<bool>,
        rotate: bool,
        max_tables: Option<u32>,
        admin: Option<&str>,
    ) -> Result<Option<String>, Refusal> {
        let store = self.store()?;
        self.check_admin(admin)?;
        if max_tables.is_some_and(|m| !(1..=1000).contains(&m)) {
            return Err(Refusal::new(
                Code::InvalidArgument,
                R::InvalidSettings,
                "an account's quota is 1 to 1000 tables at once",
            ));
        }
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
        if !store.update_account(name, disabled, hash.as_deref(), max_tables).await.map_err(store_error)? {
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
        self.wake.notify_waiters();
        tracing::info!(name, ?disabled, rotated = rotate, ?max_tables, "bot account updated");
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

    /// Opens an account's lobby: the seats it holds now, then every new one. With
    /// `casual_seats` the account also queues for casual meetings.
    pub async fn open_lobby(
        self: &Arc<Self>,
        account: &Account,
        max_tables: u32,
        casual_seats: u32,
    ) -> Result<mpsc::Receiver<pb::SeatAssigned>, Refusal> {
        if !matches!(casual_seats, 0 | 3 | 4) {
            return Err(Refusal::new(
                Code::InvalidArgument,
                R::InvalidSettings,
                format!("casual tables have 3 or 4 seats, not {casual_seats}"),
            ));
        }
        let most = self.config.account_max_lobbies;
        {
            let mut lobbies = lock(&self.lobbies);
            let open = lobbies.entry(account.account_id.clone()).or_default();
            open.retain(|l| !l.tx.is_closed());
            if open.len() >= most {
                return Err(Refusal::limit(
                    "account-max-lobbies",
                    most,
                    format!("this account has {most} lobby streams open already"),
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
        if self.config.node_id.is_some() {
            self.follow_remote_seats(&account.account_id, tx.clone());
        }
        lock(&self.lobbies).entry(account.account_id.clone()).or_default().push(Lobby {
            tx,
            max_tables,
            casual_seats,
        });
        if casual_seats > 0 {
            self.queue_casual(&account.account_id, casual_seats);
        }
        self.wake.notify_waiters();
        Ok(rx)
    }

    /// With replicas: tells a lobby of its account's seats at tables on other replicas
    /// (no token: this replica has none; the bot opens a lobby at the owner's address,
    /// which hands the seat out with its token).
    fn follow_remote_seats(self: &Arc<Self>, account_id: &str, tx: mpsc::Sender<pb::SeatAssigned>) {
        let me = Arc::clone(self);
        let account_id = account_id.to_string();
        tokio::spawn(async move {
            let mut told = HashSet::new();
            while !tx.is_closed() {
                if let Some(store) = me.journal.store()
                    && let Ok(playing) = store.playing_tables().await
                {
                    for (tournament_id, p) in playing {
                        let Ok(id) = p.table_id.parse::<TableId>() else { continue };
                        let Some(node) = me.config.foreign_owner(&id) else { continue };
                        for (seat, a) in p.seating.iter().enumerate() {
                            if *a == account_id && told.insert((p.table_id.clone(), seat)) {
                                let _ = tx.try_send(pb::SeatAssigned {
                                    table_id: p.table_id.clone(),
                                    seat: seat as u32,
                                    seat_token: String::new(),
                                    owner_address: me.config.peer_address(node).unwrap_or_default(),
                                    tournament_id: tournament_id.clone(),
                                });
                            }
                        }
                    }
                }
                tokio::select! {
                    _ = tokio::time::sleep(REMOTE_SEATS_POLL) => {}
                    _ = tx.closed() => return,
                }
            }
        });
    }

    /// The lowest `max_tables` an account's open lobbies asked for (0: none asked).
    fn lobby_cap(&self, account_id: &str) -> u32 {
        let mut lobbies = lock(&self.lobbies);
        let Some(open) = lobbies.get_mut(account_id) else { return 0 };
        open.retain(|l| !l.tx.is_closed());
        open.iter().map(|l| l.max_tables).filter(|m| *m > 0).min().unwrap_or(0)
    }

    /// Whether an account has an open lobby that asked for casual tables of `seats`.
    fn wants_casual(&self, account_id: &str, seats: u32) -> bool {
        lock(&self.lobbies)
            .get(account_id)
            .is_some_and(|open| open.iter().any(|l| !l.tx.is_closed() && l.casual_seats == seats))
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
            streams.retain(|l| !l.tx.is_closed());
            for l in streams.iter() {
                let _ = l.tx.try_send(event.clone());
            }
        }
    }

    /// Queues an account for a casual meeting (once), then matches whoever waits.
    fn queue_casual(self: &Arc<Self>, account_id: &str, seats: u32) {
        if !lock(&self.in_casual).insert(account_id.to_string()) {
            return;
        }
        lock(&self.casual_queue).push((account_id.to_string(), seats));
        self.match_casual(seats);
    }

    /// Seats the first `seats` waiting accounts whose lobbies are still open at a casual
    /// meeting; those whose lobbies closed leave the queue.
    fn match_casual(self: &Arc<Self>, seats: u32) {
        let group: Vec<String> = {
            let mut queue = lock(&self.casual_queue);
            let mut gone = Vec::new();
            queue.retain(|(a, s)| {
                let keep = *s != seats || self.wants_casual(a, seats);
                if !keep {
                    gone.push(a.clone());
                }
                keep
            });
            for a in gone {
                lock(&self.in_casual).remove(&a);
            }
            let waiting: Vec<usize> =
                queue.iter().enumerate().filter(|(_, (_, s))| *s == seats).map(|(i, _)| i).collect();
            if waiting.len() < seats as usize {
                return;
            }
            let take: Vec<usize> = waiting.into_iter().take(seats as usize).collect();
            let group = take.iter().map(|i| queue[*i].0.clone()).collect();
            for i in take.into_iter().rev() {
                queue.remove(i);
            }
            group
        };
        let me = Arc::clone(self);
        tokio::spawn(async move {
            let seed = random_u64().unwrap_or(0);
            let spec = TournamentSpec {
                entrants: group.clone(),
                seats: seats as u8,
                deals: me.config.casual_deals,
                lists: 1,
                action_ms: me.config.default_action_ms,
                deal_ms: me.config.default_deal_ms,
                seed,
                parallel: 0,
                format: Format::Casual,
                rounds: 0,
                start_ms: 0,
            };
            if let Err(e) = me.start_tournament("casual".into(), spec).await {
                tracing::warn!(error = %e.message, "could not start a casual meeting");
                for a in group {
                    lock(&me.in_casual).remove(&a);
                }
            }
        });
    }

    /// After a casual meeting: its entrants whose lobbies still ask for one queue again.
    fn casual_finished(self: &Arc<Self>, spec: &TournamentSpec) {
        let seats = u32::from(spec.seats);
        for a in &spec.entrants {
            lock(&self.in_casual).remove(a);
            if self.wants_casual(a, seats) {
                self.queue_casual(a, seats);
            }
        }
    }

    /// Creates a tournament (entrants by account name) and starts its scheduler.
    pub async fn create_tournament(self: &Arc<Self>, new: NewTournament) -> Result<(String, usize), Refusal> {
        let NewTournament {
            name,
            entrants: entrant_names,
            seats,
            deals,
            lists,
            action_ms,
            deal_ms,
            seed,
            format,
            rounds,
            start_ms,
        } = new;
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
        if format == Format::Casual {
            return Err(Refusal::new(
                Code::InvalidArgument,
                R::InvalidSettings,
                "casual meetings are made by the lobby's matchmaking, not created",
            ));
        }
        let rounds = match format {
            Format::Swiss if rounds == 0 => {
                let others = entrants.len() as u32 - 1;
                others.div_ceil(u32::from(seats) - 1).clamp(1, MAX_ROUNDS)
            }
            Format::Swiss => rounds.min(MAX_ROUNDS),
            _ => 0,
        };
        let spec = TournamentSpec {
            entrants,
            seats,
            deals,
            lists: lists.max(1),
            action_ms,
            deal_ms,
            seed,
            parallel: 0,
            format,
            rounds,
            start_ms,
        };
        self.start_tournament(name, spec).await
    }

    /// Stores a tournament with its first plan, takes its lease and starts its scheduler.
    async fn start_tournament(
        self: &Arc<Self>,
        name: String,
        spec: TournamentSpec,
    ) -> Result<(String, usize), Refusal> {
        let store = self.store()?;
        let plan = match spec.format {
            Format::Swiss => swiss_round(&spec, &[]),
            _ => plan(&spec),
        };
        let id = format!(
            "u{:012x}",
            random_u64().map_err(|_| Refusal::new(Code::Internal, R::Internal, "no randomness"))?
                & 0xffff_ffff_ffff
        );
        let now = unix_ms(SystemTime::now());
        let t = Tournament {
            tournament_id: id.clone(),
            owner: self.journal.owner().to_string(),
            name: name.chars().take(128).collect(),
            spec,
            status: "running".into(),
            created_ms: now,
            finished_ms: 0,
        };
        store.create_tournament(&t, &plan, now + LEASE.as_millis() as u64).await.map_err(store_error)?;
        tracing::info!(tournament = %id, tables = plan.len(), format = ?t.spec.format, "tournament created");
        let me = Arc::clone(self);
        let tid = id.clone();
        tokio::spawn(async move { me.run(tid).await });
        Ok((id, plan.len()))
    }

    /// After a restart: watches this replica's tournament tables again, and from now on
    /// runs the scheduler of every running tournament whose lease is free (its own from
    /// before, or one a dead replica held).
    pub async fn start(self: &Arc<Self>) -> Result<(), StoreError> {
        let Some(store) = self.journal.store().cloned() else { return Ok(()) };
        for (tournament_id, p) in store.playing_tables().await? {
            let Ok(id) = p.table_id.parse::<TableId>() else { continue };
            if self.config.foreign_owner(&id).is_some() {
                continue;
            }
            if self.tables.get(&id).is_some() {
                for (seat, account) in p.seating.iter().enumerate() {
                    lock(&self.seats).insert(
                        (p.table_id.clone(), seat as u32),
                        Assignment {
                            account_id: account.clone(),
                            tournament_id: tournament_id.clone(),
                            token: None,
                        },
                    );
                }
            }
            self.watch_table(&tournament_id, p);
        }
        let me = Arc::clone(self);
        tokio::spawn(async move {
            loop {
                let now = unix_ms(SystemTime::now());
                match store.takeable_tournaments(me.journal.owner(), now).await {
                    Ok(ids) => {
                        for id in ids {
                            if !lock(&me.running).contains(&id) {
                                let me = Arc::clone(&me);
                                tokio::spawn(async move { me.run(id).await });
                            }
                        }
                    }
                    Err(e) => tracing::warn!(error = %e, "could not look for tournaments to schedule"),
                }
                tokio::time::sleep(TAKEOVER_POLL).await;
            }
        });
        Ok(())
    }

    /// A tournament's scheduler, while this replica holds its lease.
    async fn run(self: Arc<Self>, id: String) {
        if !lock(&self.running).insert(id.clone()) {
            return;
        }
        match self.schedule(&id).await {
            Ok(()) => {}
            Err(e) => tracing::error!(tournament = %id, error = %e, "the tournament's scheduler stopped"),
        }
        lock(&self.running).remove(&id);
    }

    /// Seats planned tables as quotas allow, plans Swiss rounds, and marks the tournament
    /// finished when every table has; returns when it has, or when the lease is lost.
    async fn schedule(self: &Arc<Self>, id: &str) -> Result<(), StoreError> {
        let Some(store) = self.journal.store().cloned() else { return Ok(()) };
        let me = self.journal.owner().to_string();
        let mut announced = false;
        // The plan as last read, with what this scheduler seated since; only the lease
        // holder seats, so its pending tables are exactly what it has not seated.
        let mut cached: Option<(Tournament, Vec<PlannedTable>)> = None;
        let mut renewed: Option<Instant> = None;
        // Quotas and names of the entrants, read again every few seconds.
        let mut caps: (Option<Instant>, HashMap<String, u32>) = (None, HashMap::new());
        let mut names: Arc<HashMap<String, String>> = Arc::default();
        loop {
            if renewed.is_none_or(|r| r.elapsed() >= LEASE / 4) {
                let now = unix_ms(SystemTime::now());
                if !store.take_lease(id, &me, now, now + LEASE.as_millis() as u64).await? {
                    tracing::info!(tournament = %id, "another replica schedules this tournament");
                    return Ok(());
                }
                renewed = Some(Instant::now());
            }
            if cached.is_none() {
                let Some(loaded) = store.tournament(id).await? else { return Ok(()) };
                cached = Some(loaded);
            }
            let Some((t, plan)) = cached.as_mut() else { continue };
            if !announced {
                announced = true;
                tracing::info!(tournament = %id, replica = %me, "scheduling");
                if t.spec.format == Format::Casual {
                    lock(&self.in_casual).extend(t.spec.entrants.iter().cloned());
                }
            }
            let now = unix_ms(SystemTime::now());
            if now < t.spec.start_ms {
                let wait = Duration::from_millis(t.spec.start_ms - now).min(SCHEDULER_TICK * 3);
                tokio::time::sleep(wait).await;
                continue;
            }
            // Tables at once per account, over every tournament and replica.
            let playing = store.playing_tables().await?;
            let mut active: HashMap<String, u32> = HashMap::new();
            let mut mine_playing = 0;
            for (tid, p) in &playing {
                mine_playing += usize::from(tid == id);
                for a in &p.seating {
                    *active.entry(a.clone()).or_default() += 1;
                }
            }
            let pending = plan.iter().filter(|p| p.status == "pending").count();
            if pending + mine_playing == 0 {
                // Every table has finished: the next Swiss round, or the end.
                let Some((t, plan)) = store.tournament(id).await? else { return Ok(()) };
                if plan.iter().any(|p| p.status != "finished") {
                    cached = Some((t, plan));
                    continue;
                }
                if t.spec.format == Format::Swiss && rounds_planned(&t.spec, &plan) < t.spec.rounds {
                    let next = swiss_round(&t.spec, &plan);
                    if !store.add_planned(id, &me, &next).await? {
                        return Ok(());
                    }
                    tracing::info!(tournament = %id, round = rounds_planned(&t.spec, &plan) + 1, "Swiss round planned");
                    cached = None;
                    continue;
                }
                store.finish_tournament(id, unix_ms(SystemTime::now())).await?;
                tracing::info!(tournament = %id, "tournament finished");
                if t.spec.format == Format::Casual {
                    self.casual_finished(&t.spec);
                }
                return Ok(());
            }
            // Quotas, read again every few seconds (an operator may change one).
            if caps.0.is_none_or(|at| at.elapsed() >= Duration::from_secs(2)) {
                let mut fresh = HashMap::new();
                let mut fresh_names = HashMap::new();
                for a in &t.spec.entrants {
                    let quota = match store.account(a).await? {
                        // A disabled account is still seated (its seats forfeit): the plan goes on.
                        Some(acc) => {
                            fresh_names.insert(a.clone(), acc.name);
                            acc.max_tables
                        }
                        None => self.config.account_max_tables,
                    };
                    fresh.insert(a.clone(), quota);
                }
                caps = (Some(Instant::now()), fresh);
                names = Arc::new(fresh_names);
            }
            let cap = |a: &str| -> u32 {
                let quota = caps.1.get(a).copied().unwrap_or(1);
                let asked = self.lobby_cap(a);
                (if asked > 0 { quota.min(asked) } else { quota }).max(1)
            };
            // Pending tables in plan order, except that a table whose entrants play
            // least goes first: no entrant's quota fills while others idle.
            let mut order: Vec<usize> = (0..plan.len()).filter(|i| plan[*i].status == "pending").collect();
            order.sort_by_key(|i| plan[*i].seating.iter().map(|a| active.get(a).copied().unwrap_or(0)).max());
            let mut picks = Vec::new();
            for i in order {
                if plan[i].seating.iter().all(|a| active.get(a).copied().unwrap_or(0) < cap(a)) {
                    for a in &plan[i].seating {
                        *active.entry(a.clone()).or_default() += 1;
                    }
                    picks.push(i);
                }
            }
            // Seated together (their commits group), then marked playing in one
            // transaction, and only then watched: a result is never overwritten.
            let mut seating = tokio::task::JoinSet::new();
            for i in picks {
                let (me, t, p, names) = (Arc::clone(self), t.clone(), plan[i].clone(), Arc::clone(&names));
                seating.spawn(async move { (i, me.seat_table(&t, &p, &names).await) });
            }
            let mut seated = Vec::new();
            while let Some(done) = seating.join_next().await {
                match done {
                    Ok((i, Ok(table_id))) => seated.push((i, table_id)),
                    Ok((_, Err(e))) => {
                        tracing::warn!(tournament = %id, error = %e.message, "could not open a tournament table; retrying")
                    }
                    Err(e) => tracing::error!(tournament = %id, error = %e, "seating a table failed"),
                }
            }
            let marks: Vec<(u64, String)> = seated.iter().map(|(i, tid)| (plan[*i].n, tid.clone())).collect();
            store.mark_playing(id, &marks).await?;
            for (i, table_id) in seated {
                let p = &mut plan[i];
                p.table_id = table_id;
                p.status = "playing".into();
                self.watch_table(id, p.clone());
            }
            tokio::select! {
                _ = self.wake.notified() => {
                    // Let the tables finishing together be counted in one pass.
                    tokio::time::sleep(Duration::from_millis(10)).await;
                }
                _ = tokio::time::sleep(SCHEDULER_TICK) => {}
            }
        }
    }

    /// Creates a planned table (private: only the scheduler seats it), takes every seat
    /// for its entrant and tells their lobbies.
    async fn seat_table(
        &self,
        t: &Tournament,
        p: &PlannedTable,
        names: &HashMap<String, String>,
    ) -> Result<String, Refusal> {
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
        for _ in &p.seating {
            tokens.push(
                SeatToken::generate()
                    .map_err(|_| Refusal::new(Code::Internal, R::Internal, "no randomness"))?,
            );
        }
        // The table and its seats in one change: one commit.
        handle
            .mutate(&self.journal, &self.metrics, |tb| -> Result<(), Refusal> {
                for (seat, (account, token)) in p.seating.iter().zip(&tokens).enumerate() {
                    let name = names.get(account).unwrap_or(account);
                    tb.join(name, Some(Seat::new(seat as u8)), code.reveal(), token.hash(), Instant::now())?;
                }
                Ok(())
            })
            .await??;
        let tokens: Vec<String> = tokens.iter().map(|t| t.reveal().to_string()).collect();
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

    /// Waits for a tournament table of this replica to finish, then records its result
    /// and the ratings, and wakes the schedulers. A table the journal no longer has (its
    /// tail was damaged) is recorded with no result, so that its tournament can end.
    fn watch_table(self: &Arc<Self>, tournament_id: &str, p: PlannedTable) {
        if !lock(&self.watched).insert(p.table_id.clone()) {
            return;
        }
        let me = Arc::clone(self);
        let tid = tournament_id.to_string();
        tokio::spawn(async move {
            let handle = match p.table_id.parse::<TableId>() {
                Ok(id) => match me.tables.get(&id) {
                    Some(h) => Some(h),
                    None => crate::recovery::archived(&me.journal, &id).await.ok().flatten(),
                },
                Err(_) => None,
            };
            let result = match handle {
                Some(handle) => {
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
                    let t = handle.lock();
                    let standings = t.view(None, Instant::now()).standings;
                    p.seating
                        .iter()
                        .enumerate()
                        .map(|(seat, account)| {
                            let s =
                                standings.iter().find(|s| s.seat == seat as u32).cloned().unwrap_or_default();
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
                }
                None => {
                    tracing::error!(table = %p.table_id, "a tournament table is lost; recorded without a result");
                    Vec::new()
                }
            };
            for seat in 0..p.seating.len() {
                lock(&me.seats).remove(&(p.table_id.clone(), seat as u32));
            }
            if let Some(store) = me.journal.store() {
                // Until it is recorded: the tournament waits for this table.
                let mut attempt = 0u32;
                loop {
                    let recorded = {
                        let _one_at_a_time = me.rating.lock().await;
                        rate(store, (&tid, p.n), &p.table_id, &result).await
                    };
                    match recorded {
                        Ok(()) => break,
                        Err(e) => {
                            attempt += 1;
                            tracing::warn!(error = %e, attempt, table = %p.table_id, "could not record a tournament table's result and ratings; retrying");
                            tokio::time::sleep(Duration::from_millis(200 * u64::from(attempt.min(25)))).await;
                        }
                    }
                }
            }
            lock(&me.watched).remove(&p.table_id);
            me.wake.notify_waiters();
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
        let swiss = t.spec.format == Format::Swiss;
        let meetings = plan
            .chunks(meeting_size(&t.spec))
            .enumerate()
            .map(|(i, tables)| {
                let entrants: Vec<String> = tables.first().map(|p| p.seating.clone()).unwrap_or_default();
                let finished: Vec<&PlannedTable> = tables.iter().filter(|p| p.status == "finished").collect();
                let sf = |a: &String| -> i64 {
                    finished
                        .iter()
                        .flat_map(|p| p.result.iter())
                        .filter(|r| &r.account_id == a)
                        .map(|r| r.seeger_fabian)
                        .sum()
                };
                pb::TournamentMeeting {
                    seeger_fabian: entrants.iter().map(sf).collect(),
                    entrants: entrants.iter().map(name).collect(),
                    finished: finished.len() as u32,
                    tables: tables.len() as u32,
                    round: if swiss { (i / groups_per_round(&t.spec)) as u32 + 1 } else { 0 },
                }
            })
            .collect();
        Ok(pb::Tournament {
            format: format_to_pb(t.spec.format) as i32,
            round: if swiss { rounds_planned(&t.spec, &plan) } else { 0 },
            rounds: t.spec.rounds,
            meetings,
            seats: u32::from(t.spec.seats),
            created_ms: t.created_ms,
            start_ms: t.spec.start_ms.max(t.created_ms),
            finished_ms: t.finished_ms,
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

    /// A page of tournaments, newest first.
    pub async fn list_tournaments(
        &self,
        offset: u32,
        limit: u32,
        include_casual: bool,
    ) -> Result<Vec<pb::TournamentSummary>, Refusal> {
        let store = self.store()?;
        let limit = if limit == 0 { 50 } else { limit.min(500) };
        let rows = store
            .list_tournaments(u64::from(offset), u64::from(limit), include_casual)
            .await
            .map_err(store_error)?;
        let mut names: HashMap<String, String> = HashMap::new();
        let mut out = Vec::new();
        for r in rows {
            let mut entrants = Vec::new();
            for a in &r.tournament.spec.entrants {
                if !names.contains_key(a) {
                    let n =
                        store.account(a).await.map_err(store_error)?.map_or_else(|| a.clone(), |x| x.name);
                    names.insert(a.clone(), n);
                }
                entrants.push(names.get(a).cloned().unwrap_or_default());
            }
            out.push(pb::TournamentSummary {
                tournament_id: r.tournament.tournament_id,
                name: r.tournament.name,
                format: format_to_pb(r.tournament.spec.format) as i32,
                finished: r.tournament.status == "finished",
                entrants,
                tables: r.tables as u32,
                finished_tables: r.finished as u32,
                created_ms: r.tournament.created_ms,
            });
        }
        Ok(out)
    }

    /// A bot account as the public sees it.
    pub async fn bot(&self, name: &str) -> Result<pb::Bot, Refusal> {
        let store = self.store()?;
        let account = store.account_by_name(name).await.map_err(store_error)?.ok_or_else(|| {
            Refusal::new(
                Code::NotFound,
                R::BotNotFound,
                format!("no bot named `{}`", name.chars().take(64).collect::<String>()),
            )
        })?;
        let rating =
            store.ratings_of(std::slice::from_ref(&account.account_id)).await.map_err(store_error)?;
        let mut history = store.rating_history(&account.account_id).await.map_err(store_error)?;
        if history.len() > 500 {
            history.drain(..history.len() - 500);
        }
        let recent = store.recent_lists(&account.account_id, 50).await.map_err(store_error)?;
        let mut names: HashMap<String, String> = HashMap::new();
        let mut lists = Vec::new();
        for l in recent {
            let mut seating = Vec::new();
            for a in &l.seating {
                if !names.contains_key(a) {
                    let n =
                        store.account(a).await.map_err(store_error)?.map_or_else(|| a.clone(), |x| x.name);
                    names.insert(a.clone(), n);
                }
                seating.push(names.get(a).cloned().unwrap_or_default());
            }
            lists.push(pb::BotList {
                seat: l.seating.iter().position(|a| *a == account.account_id).unwrap_or(0) as u32,
                seeger_fabian: l
                    .seating
                    .iter()
                    .map(|a| l.result.iter().find(|r| &r.account_id == a).map_or(0, |r| r.seeger_fabian))
                    .collect(),
                table_id: l.table_id,
                tournament_id: l.tournament_id,
                seating,
            });
        }
        Ok(pb::Bot {
            online: self.lobby_open(&account.account_id),
            rating: rating.first().copied().flatten().map(|(rating, uncertainty, lists)| {
                pb::LeaderboardEntry { name: account.name.clone(), rating, uncertainty, lists: lists as u32 }
            }),
            history: history
                .into_iter()
                .map(|(at_ms, table_id, rating, uncertainty)| pb::RatingPoint {
                    at_ms,
                    table_id,
                    rating,
                    uncertainty,
                })
                .collect(),
            recent: lists,
            name: account.name,
            disabled: account.disabled,
            created_ms: account.created_ms,
            max_tables: account.max_tables,
        })
    }

    fn lobby_open(&self, account_id: &str) -> bool {
        lock(&self.lobbies).get(account_id).is_some_and(|open| open.iter().any(|l| !l.tx.is_closed()))
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

/// A format as the wire names it.
pub fn format_to_pb(f: Format) -> pb::TournamentFormat {
    match f {
        Format::RoundRobin => pb::TournamentFormat::RoundRobin,
        Format::Swiss => pb::TournamentFormat::Swiss,
        Format::Casual => pb::TournamentFormat::Casual,
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
    let new_ratings = |current: &[Option<(f64, f64, u64)>]| {
        if result.len() < 2 {
            return Vec::new();
        }
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
        result
            .iter()
            .zip(&new)
            .zip(current)
            .map(|((r, n), c)| {
                let w = n.first().copied().unwrap_or_default();
                (r.account_id.clone(), w.rating, w.uncertainty, c.map_or(0, |c| c.2) + 1)
            })
            .collect()
    };
    store.finish_table(planned, table_id, result, &new_ratings, unix_ms(SystemTime::now())).await
}

/// Tables per meeting: every list in every seat rotation.
fn meeting_size(spec: &TournamentSpec) -> usize {
    (spec.lists.max(1) as usize) * usize::from(spec.seats.max(1))
}

/// Meetings per Swiss round: as many groups as the entrants fill.
fn groups_per_round(spec: &TournamentSpec) -> usize {
    (spec.entrants.len() / usize::from(spec.seats.max(1))).max(1)
}

/// Swiss rounds planned so far.
fn rounds_planned(spec: &TournamentSpec, plan: &[PlannedTable]) -> u32 {
    (plan.len() / (meeting_size(spec) * groups_per_round(spec))) as u32
}

/// The next Swiss round's tables after `plan`. Entrants are ranked by their mean
/// Seeger-Fabian so far (the entrants' order breaks ties, so round one follows it); when
/// they do not divide into groups, the lowest ranked of those who sat out least sit out;
/// the rest are grouped best with best, each group filled with the highest ranked who
/// has met nobody in it yet when there is one. Each group meets like a round-robin
/// meeting: `lists` lists, each in every seat rotation on the same deals.
pub fn swiss_round(spec: &TournamentSpec, plan: &[PlannedTable]) -> Vec<PlannedTable> {
    let seats = usize::from(spec.seats.max(1));
    let size = meeting_size(spec);
    let mut score: HashMap<&str, (i64, u32)> = HashMap::new();
    let mut met: HashSet<(&str, &str)> = HashSet::new();
    let mut played: HashMap<&str, u32> = HashMap::new();
    for p in plan {
        for r in &p.result {
            let e = score.entry(r.account_id.as_str()).or_default();
            e.0 += r.seeger_fabian;
            e.1 += 1;
        }
        for a in &p.seating {
            for b in &p.seating {
                met.insert((a.as_str(), b.as_str()));
            }
        }
    }
    for meeting in plan.chunks(size) {
        if let Some(first) = meeting.first() {
            for a in &first.seating {
                *played.entry(a.as_str()).or_default() += 1;
            }
        }
    }
    let rounds_so_far = rounds_planned(spec, plan);
    let mean = |a: &str| score.get(a).map_or(0.0, |(sum, n)| *sum as f64 / f64::from((*n).max(1)));
    let mut ranked: Vec<(usize, &str)> = spec.entrants.iter().map(|a| a.as_str()).enumerate().collect();
    ranked.sort_by(|(i, a), (j, b)| mean(b).total_cmp(&mean(a)).then(i.cmp(j)));
    let mut order: Vec<&str> = ranked.into_iter().map(|(_, a)| a).collect();
    // Sit-outs: of those who sat out least so far, the lowest ranked.
    let byes_of = |a: &str| rounds_so_far.saturating_sub(played.get(a).copied().unwrap_or(0));
    for _ in 0..order.len() % seats {
        let fewest = order.iter().map(|a| byes_of(a)).min().unwrap_or(0);
        if let Some(j) = order.iter().rposition(|a| byes_of(a) == fewest) {
            order.remove(j);
        }
    }
    let mut groups: Vec<Vec<&str>> = Vec::new();
    while !order.is_empty() {
        let mut group = vec![order.remove(0)];
        while group.len() < seats && !order.is_empty() {
            let fresh = order.iter().position(|c| group.iter().all(|g| !met.contains(&(*g, *c))));
            group.push(order.remove(fresh.unwrap_or(0)));
        }
        groups.push(group);
    }
    let meetings_before = (plan.len() / size) as u64;
    let mut out = Vec::new();
    for (g, group) in groups.iter().enumerate() {
        let meeting = meetings_before + g as u64;
        for list in 0..spec.lists.max(1) {
            let seed = spec.seed.wrapping_add(meeting * u64::from(spec.lists.max(1)) + u64::from(list));
            for rotation in 0..seats {
                out.push(PlannedTable {
                    n: (plan.len() + out.len()) as u64,
                    seating: (0..seats).map(|s| group[(s + rotation) % seats].to_string()).collect(),
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
            format: Format::RoundRobin,
            rounds: 0,
            start_ms: 0,
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

    fn finish(plan: &mut [PlannedTable], score: impl Fn(&str) -> i64) {
        for p in plan.iter_mut() {
            p.status = "finished".into();
            p.result = p
                .seating
                .iter()
                .map(|a| SeatResult {
                    account_id: a.clone(),
                    seeger_fabian: score(a),
                    ..SeatResult::default()
                })
                .collect();
        }
    }

    #[test]
    fn swiss_groups_by_standing_avoids_rematches_and_rotates_sit_outs() {
        let spec = TournamentSpec {
            entrants: (0..7).map(|i| format!("e{i}")).collect(),
            seats: 3,
            deals: 6,
            lists: 1,
            action_ms: 0,
            deal_ms: 0,
            seed: 1,
            parallel: 0,
            format: Format::Swiss,
            rounds: 3,
            start_ms: 0,
        };
        // Round one follows the entrants' order; the last sits out (7 = 2 x 3 + 1).
        let mut plan = swiss_round(&spec, &[]);
        assert_eq!(plan.len(), 2 * 3, "two meetings, three rotations each");
        assert_eq!(plan[0].seating, ["e0", "e1", "e2"]);
        assert_eq!(plan[3].seating, ["e3", "e4", "e5"]);
        assert_eq!(rounds_planned(&spec, &plan), 1);
        assert!(plan.iter().all(|p| !p.seating.contains(&"e6".to_string())));
        // Rotations share their deals; meetings do not.
        assert_eq!(plan[0].seed, plan[2].seed);
        assert_ne!(plan[0].seed, plan[3].seed);
        // The higher the number, the better the score.
        finish(&mut plan, |a| a[1..].parse::<i64>().unwrap_or(0) * 10);
        let round2 = swiss_round(&spec, &plan);
        assert_eq!(round2.len(), 6);
        assert_eq!(round2[0].n, 6, "numbered after the plan so far");
        let seated: Vec<&String> = round2.iter().step_by(3).flat_map(|p| p.seating.iter()).collect();
        // e6 sat out and is not ranked lowest among those who played: it plays now, and
        // the lowest ranked of those who played (e0) sits out.
        assert!(seated.contains(&&"e6".to_string()));
        assert!(!seated.contains(&&"e0".to_string()));
        // Best with best, but not with anybody they met: e5 (best who played) meets
        // e6 and the best who did not meet e5 yet.
        assert_eq!(round2[0].seating[0], "e5");
        // (Here only one group can avoid every rematch: e1..e5 came from two groups.)
        let g = &round2[0].seating;
        let met_before = plan.iter().any(|p| g.iter().filter(|a| p.seating.contains(a)).count() >= 2);
        assert!(!met_before, "{g:?} holds a pair that met in round one");
        assert_eq!(g, &["e5", "e2", "e6"]);
        let mut all = plan.clone();
        all.extend(round2);
        assert_eq!(rounds_planned(&spec, &all), 2);
    }
}
