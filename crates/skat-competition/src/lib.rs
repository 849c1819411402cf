//! # skat-competition
//!
//! Bot accounts, their lobbies, tournaments and ratings; and hosted bots ([`hosting`]):
//! their versions, the runner's feed, places on the runners. This crate knows no wire:
//! the server's rpc room calls these services and turns their answers and
//! [`CompetitionError`]s into protobuf. Its settings are a [`CompetitionConfig`] and what
//! it counts goes to a [`CompetitionMetrics`], both given by the server.
//!
//! | concern | how | where |
//! |---|---|---|
//! | identity | an account has a bot token (shown once; its SHA-256 is stored) | [`accounts`] |
//! | being seated | the tournament's scheduler creates each table, takes every seat for its entrant with a fresh seat token, and hands the token to the entrant's lobby stream (now, or when it connects) | [`lobby`], [`scheduler`] |
//! | quotas | tables at once per account (its `max_tables`, lowered by what its lobby asks for), lobbies per account; counted over every tournament and replica from the database | [`scheduler`], [`lobby`] |
//! | one scheduler | a lease in the database (`take_lease`), renewed while it runs; a replica takes over a lease that ran out | [`scheduler`] |
//! | results | recorded by the replica that hosts the table (its result watcher), so a scheduler on another replica only reads the plan | [`results`] |
//! | formats | round robin (every group of entrants), Swiss (rounds of groups by standing), casual (one meeting of bots matched as they arrive), challenge (one meeting its opponents accepted) | `skat-league`, [`casual`], [`challenges`] |
//! | absence | a seat whose bot never comes forfeits on time like any seat: the list goes on | the table's clock |
//! | tokens after a restart | the server keeps no seat token: a seat handed out again gets a new one (a journaled `Rekeyed` input), and the old one stops working | [`lobby`] |
//! | fairness | each meeting of entrants plays the same deals in every seat rotation (duplicate) | `skat-league` |
//! | duplicate's secrets | spectators of a tournament table wait until every rotation of its list has finished | [`embargo`] |
//! | ratings | after every finished list, Weng-Lin over the list's placements by Seeger-Fabian | [`results`], `skat-league` |
//! | what callers read | tournaments, standings, bots, the leaderboard as plain structs (the rpc room turns them into protobuf) | [`views`] |
//! | the operator | the admin token checked once per call ([`admin::Admin`]), every admin action in the audit log, accounts with owner, lobbies and tables now | [`admin`] |
//! | a tournament's life | cancel, pause, resume, a new start time; settings that cannot be honoured are refused | [`control`], [`scheduler`] |
//! | a person's table: bots seated on request | [`people`] |
//! | hosted seats' places on the runners: a hosted table waits until every hosted seat has one | [`places`], [`scheduler`] |
//! | why a call is refused | [`CompetitionError`], mapped to the wire once in the rpc room | [`error`] |
//!
//! Rows live in the database (`store.accounts`, `store.tournaments`, ...); a server
//! without one refuses these calls with NO_DATABASE.
//!
//! Each concern is a service that owns its state and its store calls: [`Accounts`](accounts::Accounts),
//! [`Seats`](lobby::Seats) (lobbies, people's tables), [`Scheduler`](scheduler::Scheduler)
//! (tournaments, seating, casual matching), [`Results`](results::Results),
//! [`Challenges`](challenges::Challenges), [`Operators`](admin::Operators) (audit, the
//! operator's lists, a tournament's life), [`Views`](views::Views) and
//! [`Embargo`](embargo::Embargo). They share a [`Ctx`]: the journal, the tables, the
//! settings, the metrics, and the two pieces of state more than one of them touches (the
//! lobbies' streams and seats; the schedulers' wake-up). [`Competitions`] composes
//! them and holds the few steps that span several (a lobby opening, a restart, a
//! takeover).

pub mod accounts;
pub mod admin;
pub mod admission;
pub mod casual;
pub mod challenges;
mod config;
pub mod control;
pub mod embargo;
pub mod error;
pub mod hosting;
pub mod lobby;
mod metrics;
pub mod people;
pub mod places;
pub mod results;
pub mod scheduler;
pub mod seating;
pub mod views;

use std::sync::{Arc, Mutex, MutexGuard};

use skat_engine::matches::Seat;

pub use config::{CompetitionConfig, HostingConfig, PeopleTables};
pub use error::CompetitionError;
pub use lobby::SeatOffer;
pub use metrics::{CompetitionMetrics, Metrics};

use lobby::{LobbyNote, LobbyWish};
use skat_journal::Journal;
use skat_store::accounts::Account;
use skat_store::tournaments::PlayingTable;
use skat_store::{Store, StoreError};
use skat_table::{TableId, Tables, Tasks};
use tokio::sync::mpsc;

/// What every competition service reaches: the journal (and its store), the tables,
/// the settings and the metrics, and the state several services share.
#[derive(Debug, Clone)]
pub struct Ctx {
    journal: Journal,
    tables: Arc<Tables>,
    config: Arc<CompetitionConfig>,
    metrics: Metrics,
    /// The server's tasks: every task a service spawns is one of them.
    tasks: Tasks,
    /// Open lobby streams and the seats handed to their accounts.
    lobbies: Arc<lobby::Lobbies>,
    /// Which schedulers run here, and what wakes them.
    schedulers: Arc<scheduler::Running>,
    /// Places for hosted seats on the runners (a hosted table is admitted by them).
    places: Arc<places::Places>,
}

impl Ctx {
    fn store(&self) -> Result<&Store, CompetitionError> {
        self.journal.store().ok_or(CompetitionError::NoDatabase)
    }

    /// The replica that owns a tournament table when it is not this one: the owner in
    /// the database (a takeover changes it), else the node its id names.
    fn owner_elsewhere<'a>(&self, playing: &'a PlayingTable, id: &'a TableId) -> Option<&'a str> {
        let me = self.config.node_id.as_deref();
        if playing.owner.is_empty() {
            id.foreign_node(me)
        } else {
            (Some(playing.owner.as_str()) != me).then_some(playing.owner.as_str())
        }
    }
}

/// The competitions of one server: its services, composed.
#[derive(Debug)]
pub struct Competitions {
    ctx: Ctx,
    /// Accounts: registration, tokens, names.
    pub accounts: accounts::Accounts,
    /// Lobbies and the seats handed to them; people's tables with bots.
    pub seats: Arc<lobby::Seats>,
    /// Tournaments' schedulers, seating, casual matching.
    pub scheduler: Arc<scheduler::Scheduler>,
    /// Challenges between accounts.
    pub challenges: challenges::Challenges,
    /// The operator's calls (checked once per call) and the audit log.
    pub operators: Arc<admin::Operators>,
    /// What callers read: tournaments, standings, bots, the leaderboard.
    pub views: views::Views,
    /// Tournament tables' spectators held back until every rotation finished.
    pub embargo: embargo::Embargo,
}

/// A seat at a table: the key of a seat handed to an account.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct SeatKey {
    /// The table.
    pub table: TableId,
    /// The seat.
    pub seat: Seat,
}

/// Locks a std mutex, taking it over when a holder panicked (every critical section here
/// leaves its data whole: single inserts, removals and retains).
fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

impl Competitions {
    /// The competitions of a server.
    pub fn new(
        journal: Journal,
        tables: Arc<Tables>,
        config: Arc<CompetitionConfig>,
        metrics: Metrics,
        tasks: Tasks,
    ) -> Arc<Self> {
        let ctx = Ctx {
            journal,
            tables,
            config,
            metrics,
            tasks,
            lobbies: Arc::default(),
            schedulers: Arc::default(),
            places: Arc::default(),
        };
        let results = Arc::new(results::Results { ctx: ctx.clone(), watchers: Default::default() });
        let scheduler =
            Arc::new(scheduler::Scheduler { ctx: ctx.clone(), results, casual: Default::default() });
        Arc::new(Competitions {
            accounts: accounts::Accounts { ctx: ctx.clone() },
            seats: Arc::new(lobby::Seats { ctx: ctx.clone() }),
            challenges: challenges::Challenges { ctx: ctx.clone(), scheduler: Arc::clone(&scheduler) },
            scheduler,
            operators: Arc::new(admin::Operators { ctx: ctx.clone() }),
            views: views::Views { ctx: ctx.clone() },
            embargo: embargo::Embargo::new(ctx.clone()),
            ctx,
        })
    }

    /// After a restart: watches this replica's tournament tables again, and from now on
    /// runs the scheduler of every running tournament whose lease is free (its own from
    /// before, or one a dead replica held).
    pub async fn start(self: &Arc<Self>) -> Result<(), StoreError> {
        let Some(store) = self.ctx.journal.store().cloned() else { return Ok(()) };
        for playing in store.tournaments.playing_tables().await? {
            let Ok(id) = playing.planned.table_id.parse::<TableId>() else { continue };
            if self.ctx.owner_elsewhere(&playing, &id).is_none() {
                self.resume_table(&id, playing);
            }
        }
        self.scheduler.follow_leases(store);
        self.operators.follow_account_gauges();
        Ok(())
    }

    /// Tables this replica took over from a dead one: their tournament tables are
    /// watched for results and their seats held for lobbies, as after a restart.
    pub async fn adopt(self: &Arc<Self>, ids: &[TableId]) {
        let Some(store) = self.ctx.journal.store() else { return };
        let playing = match store.tournaments.playing_tables().await {
            Ok(p) => p,
            Err(e) => {
                tracing::error!(error = %e, "could not read the tournament tables taken over");
                return;
            }
        };
        for p in playing {
            if let Ok(id) = p.planned.table_id.parse::<TableId>()
                && ids.contains(&id)
            {
                self.resume_table(&id, p);
                self.seats.offer_taken_over(&id).await;
            }
        }
    }

    /// Watches a tournament table of this replica's and holds its seats for lobbies.
    fn resume_table(&self, id: &TableId, playing: PlayingTable) {
        if self.ctx.tables.get(id).is_some() {
            self.ctx.lobbies.hold_seats(id, Some(&playing.tournament_id), &playing.planned.seating, None);
        }
        self.scheduler.results.watch_table(&playing.tournament_id, playing.planned);
    }

    /// The places for hosted seats on the runners.
    pub fn places(&self) -> &Arc<places::Places> {
        &self.ctx.places
    }

    /// The admin, if `presented` is the admin token (checked where a call arrives).
    pub fn admin(
        &self,
        presented: Option<&str>,
        peer: std::net::IpAddr,
    ) -> Result<admin::Admin, CompetitionError> {
        self.ctx.admin(presented, peer)
    }

    /// Journals an admin action (a failure is logged, not returned: the change stands).
    pub async fn audit(&self, admin: &admin::Admin, action: &str, target: &str, detail: String) {
        self.ctx.audit(admin, action, target, detail).await;
    }

    /// Opens an account's lobby: the challenges offered to it (when it asks for them),
    /// the seats it holds now, then every new one; with `casual_seats` the account also
    /// queues for casual meetings.
    pub async fn open_lobby(
        &self,
        account: &Account,
        wish: LobbyWish,
    ) -> Result<mpsc::Receiver<LobbyNote>, CompetitionError> {
        self.seats.check_open(account, wish.casual_seats)?;
        let offered = if wish.challenges { self.challenges.offered_to(account).await? } else { Vec::new() };
        let rx = self.seats.open_lobby(account, wish, offered).await;
        if wish.casual_seats > 0 {
            self.scheduler.queue_casual(&account.account_id, wish.casual_seats);
        }
        self.ctx.schedulers.wake();
        Ok(rx)
    }
}
