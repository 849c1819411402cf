//! # The competition room
//!
//! Bot accounts, their lobbies, tournaments and ratings.
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
//! | why a call is refused | [`CompetitionError`], mapped to the wire once in the rpc room | [`error`] |
//!
//! Rows live in the database (`store/accounts.rs`, `store/tournaments.rs`); a server
//! without one refuses these calls with NO_DATABASE.

pub(crate) mod accounts;
pub(crate) mod admin;
pub(crate) mod casual;
pub(crate) mod challenges;
pub(crate) mod control;
pub(crate) mod embargo;
pub(crate) mod error;
pub(crate) mod lobby;
pub(crate) mod people;
pub(crate) mod results;
pub(crate) mod scheduler;
pub(crate) mod seating;
pub(crate) mod views;

use std::sync::{Arc, Mutex, MutexGuard};

use skat_engine::matches::Seat;

pub(crate) use error::CompetitionError;
pub(crate) use lobby::SeatOffer;

use crate::config::ServerConfig;
use crate::journal::Journal;
use crate::metrics::Metrics;
use crate::store::tournaments::PlayingTable;
use crate::store::{Store, StoreError};
use crate::table::{TableId, Tables};

/// The competitions of one server.
#[derive(Debug)]
pub(crate) struct Competitions {
    journal: Journal,
    tables: Arc<Tables>,
    config: Arc<ServerConfig>,
    metrics: Metrics,
    /// Open lobby streams and the seats handed to their accounts.
    lobbies: lobby::Lobbies,
    /// Accounts waiting for, or playing, a casual meeting.
    casual: casual::CasualQueue,
    /// Which schedulers run here, and what wakes them.
    schedulers: scheduler::Running,
    /// Which result watchers run here; one rating update at a time.
    results: results::Watchers,
    /// Tournament tables whose spectators no longer wait.
    embargo: embargo::Embargo,
}

/// A seat at a table: the key of a seat handed to an account.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) struct SeatKey {
    /// The table.
    pub(crate) table: TableId,
    /// The seat.
    pub(crate) seat: Seat,
}

/// Locks a std mutex, taking it over when a holder panicked (every critical section here
/// leaves its data whole: single inserts, removals and retains).
fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

impl Competitions {
    /// The competitions of a server.
    pub(crate) fn new(
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
            lobbies: lobby::Lobbies::default(),
            casual: casual::CasualQueue::default(),
            schedulers: scheduler::Running::default(),
            results: results::Watchers::default(),
            embargo: embargo::Embargo::default(),
        })
    }

    fn store(&self) -> Result<&Store, CompetitionError> {
        self.journal.store().ok_or(CompetitionError::NoDatabase)
    }

    /// After a restart: watches this replica's tournament tables again, and from now on
    /// runs the scheduler of every running tournament whose lease is free (its own from
    /// before, or one a dead replica held).
    pub(crate) async fn start(self: &Arc<Self>) -> Result<(), StoreError> {
        let Some(store) = self.journal.store().cloned() else { return Ok(()) };
        for playing in store.tournaments.playing_tables().await? {
            let Ok(id) = playing.planned.table_id.parse::<TableId>() else { continue };
            if self.owner_elsewhere(&playing, &id).is_none() {
                self.resume_table(&id, playing);
            }
        }
        self.follow_leases(store);
        self.follow_account_gauges();
        Ok(())
    }

    /// Tables this replica took over from a dead one: their tournament tables are
    /// watched for results and their seats held for lobbies, as after a restart.
    pub(crate) async fn adopt(self: &Arc<Self>, ids: &[TableId]) {
        let Some(store) = self.journal.store() else { return };
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
                self.offer_taken_over(&id).await;
            }
        }
    }

    /// Watches a tournament table of this replica's and holds its seats for lobbies.
    fn resume_table(self: &Arc<Self>, id: &TableId, playing: PlayingTable) {
        if self.tables.get(id).is_some() {
            self.lobbies.hold_seats(id, Some(&playing.tournament_id), &playing.planned.seating, None);
        }
        self.watch_table(&playing.tournament_id, playing.planned);
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
