//! The runners' feed: every seat a hosted account is to play, to the runner its place
//! is on.
//!
//! While the server has a runner token, one task follows the hosted accounts: for each
//! it opens a lobby on the account's behalf (open to the people's tables
//! `--hosting-people-tables` names, no casual play) and passes its seats on with the
//! version to run: the version a hosted tournament pinned for its tables, else the
//! account's active one. A seat is passed on when its table is about to play (every
//! seat taken): a sandbox never idles at a table waiting for players; then it goes to
//! the runner its place is on (a tournament's tables were admitted with their places;
//! a seat without one waits for one). The task looks at the hosted accounts again every
//! [`LOOK_EVERY`] and whenever a version is activated, approved or fails; an account no
//! longer hosted has its lobby closed. Seats at tables on other replicas (no token here)
//! are left to those replicas' runners. It ends with the server.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use skat_engine::matches::Seat;
use skat_league::AccountId;
use tokio::sync::{mpsc, watch};
use tokio::task::JoinHandle;

use super::Hosting;
use crate::PeopleTables;
use crate::lobby::{LobbyNote, LobbyWish};
use crate::places::Size;
use crate::{SeatKey, SeatOffer};
use skat_store::accounts::Account;
use skat_store::hosting::{StoredVersion, VersionState};
use skat_table::{Status, TableId};

/// A hosted account's lobby: no limit of its own, no casual queue, no challenges (the
/// operator's tournaments seat it), open to the people's tables `--hosting-people-tables`
/// names.
fn hosted_lobby(people: PeopleTables, size: Size) -> LobbyWish {
    LobbyWish { max_tables: 0, casual_seats: 0, challenges: false, open_tables: people, hosted: Some(size) }
}

/// How often the feed looks for accounts that became hosted (or stopped being), runners
/// gone, and tables over.
const LOOK_EVERY: Duration = Duration::from_secs(2);

/// A seat for a runner.
#[derive(Debug, Clone)]
pub struct HostedSeat {
    /// The account's name.
    pub bot_name: String,
    /// The version to run.
    pub version: StoredVersion,
    /// Where and which seat, with its token.
    pub offer: SeatOffer,
    /// CPU, in millicores.
    pub cpu_millis: u32,
    /// Memory, in MiB.
    pub memory_mib: u32,
}

impl HostedSeat {
    fn size(&self) -> Size {
        Size { millis: u64::from(self.cpu_millis), mib: u64::from(self.memory_mib) }
    }
}

/// One account followed by the feed: its lobby's forwarder.
struct Followed {
    task: JoinHandle<Option<()>>,
}

impl Drop for Followed {
    fn drop(&mut self) {
        // Dropping the forwarder drops the lobby's receiver: the lobby closes.
        self.task.abort();
    }
}

/// The key of a seat offered to a lobby.
fn key_of(offer: &SeatOffer) -> Option<SeatKey> {
    let seat = u8::try_from(offer.seat).ok()?;
    Some(SeatKey { table: offer.table_id.parse().ok()?, seat: Seat::new(seat) })
}

impl Hosting {
    /// Opens the feed of runner `runner`, which can hold `capacity` (an older feed of that
    /// name ends: its stream sees the channel close). The seats already placed on it come
    /// first. The feed lives while its receiver does; then the runner is away.
    pub fn feed(self: &Arc<Self>, runner: &str, capacity: Size) -> mpsc::Receiver<HostedSeat> {
        let name: String = runner.chars().filter(|c| !c.is_control()).take(64).collect();
        let places = self.competitions.places();
        places.runner_came(&name, capacity);
        let (rx, watch) = self.runners.open(&name, |k| places.runner_of(k).as_deref() == Some(name.as_str()));
        tracing::info!(runner = %name, cpu_millis = capacity.millis, memory_mib = capacity.mib, "runner feed opened");
        let me = Arc::clone(self);
        self.tasks.spawn(async move {
            watch.closed().await;
            if me.runners.closed(&name) {
                me.competitions.places().runner_left(&name);
                tracing::info!(runner = %name, "runner feed closed: its seats keep their places for a while");
            }
        });
        rx
    }

    /// Follows the hosted accounts and hands their seats out until `stopped` turns true.
    pub fn start(self: &Arc<Self>, mut stopped: watch::Receiver<bool>) -> Option<JoinHandle<Option<()>>> {
        self.config.hosting.runner_token.as_ref()?;
        let me = Arc::clone(self);
        Some(self.tasks.spawn(async move {
            let mut followed: HashMap<AccountId, Followed> = HashMap::new();
            loop {
                me.follow_hosted(&mut followed).await;
                me.metrics.hosted_accounts(followed.len());
                me.tidy().await;
                tokio::select! {
                    _ = tokio::time::sleep(LOOK_EVERY) => {}
                    _ = me.changed.notified() => {}
                    _ = stopped.wait_for(|s| *s) => break,
                }
            }
            tracing::info!("hosting's feed stopped");
        }))
    }

    /// The server's sandbox size (`--hosting-cpu-millis`, `--hosting-memory-mib`): a
    /// person's table's hosted seats take this much room.
    fn sandbox_size(&self) -> Size {
        let h = &self.config.hosting;
        Size { millis: u64::from(h.cpu_millis), mib: u64::from(h.memory_mib) }
    }

    /// Whether a table is over (finished, or gone from this replica).
    fn table_over(&self, table: &TableId) -> bool {
        self.tables.get(table).is_none_or(|t| t.lock().is_finished())
    }

    /// The places of tables that are over come back; the seats of runners gone move.
    async fn tidy(&self) {
        let places = self.competitions.places();
        self.runners.forget(|k| self.table_over(&k.table));
        places.release_where(|t| self.table_over(t));
        for (key, runner) in places.move_from_gone(Instant::now()) {
            tracing::warn!(table = %key.table, seat = %key.seat, %runner, "a runner went away: its seat moves to another");
            self.runners.hand_again(&key, &runner).await;
        }
        let waiting = places.runners();
        let (cap, used) = waiting.iter().fold((0, 0), |(c, u), r| (c + r.capacity.millis, u + r.used.millis));
        self.metrics.runner_places(cap, used);
    }

    /// Opens lobbies for accounts that became hosted, closes those of accounts no
    /// longer hosted.
    async fn follow_hosted(self: &Arc<Self>, followed: &mut HashMap<AccountId, Followed>) {
        let Ok(store) = self.store() else { return };
        let hosted = match store.hosting.hosted_accounts().await {
            Ok(h) => h,
            Err(e) => {
                tracing::warn!(error = %e, "runner feed: cannot read the hosted accounts; trying again");
                return;
            }
        };
        followed.retain(|id, f| !f.task.is_finished() && hosted.iter().any(|(a, _)| &a.account_id == id));
        for (account, _) in hosted {
            if followed.contains_key(&account.account_id) {
                continue;
            }
            match self
                .competitions
                .open_lobby(&account, hosted_lobby(self.config.hosting.people_tables, self.sandbox_size()))
                .await
            {
                Ok(lobby) => {
                    let task = self.tasks.spawn(Arc::clone(self).forward(account.clone(), lobby));
                    followed.insert(account.account_id.clone(), Followed { task });
                }
                Err(e) => {
                    tracing::warn!(account = %account.name, error = %e, "runner feed: cannot open the account's lobby")
                }
            }
        }
    }

    /// Passes an account's seats on to the runners, each with its version, each once its
    /// table is about to play and the seat has a place.
    async fn forward(self: Arc<Self>, account: Account, mut lobby: mpsc::Receiver<LobbyNote>) {
        let mut waiting = tokio::task::JoinSet::new();
        while let Some(note) = lobby.recv().await {
            let LobbyNote::Seat(offer) = note else { continue };
            if offer.seat_token.is_empty() {
                continue;
            }
            let Some(key) = key_of(&offer) else { continue };
            // Finished waiters are gathered as new seats come (the set holds the waiting).
            while waiting.try_join_next().is_some() {}
            let (me, account) = (Arc::clone(&self), account.clone());
            waiting.spawn(async move {
                if !me.until_playing(&offer.table_id).await {
                    return;
                }
                let Some(seat) = me.seat_for(&account, offer).await else {
                    tracing::warn!(account = %account.name, "runner feed: a seat without a version that may play; it forfeits on time");
                    return;
                };
                if let Some(runner) = me.place(&key, seat.size()).await {
                    me.runners.hand(key, &runner, seat).await;
                }
            });
        }
    }

    /// The runner `key`'s place is on: its table's admission's, else one found now, else
    /// the first that frees room (`None`: its table ended first).
    async fn place(&self, key: &SeatKey, size: Size) -> Option<String> {
        let places = self.competitions.places();
        let mut told = false;
        loop {
            if let Some(runner) = places.runner_of(key) {
                return Some(runner);
            }
            if let Some(mut on) = places.admit(std::slice::from_ref(key), size) {
                return on.pop();
            }
            if self.table_over(&key.table) {
                return None;
            }
            if !told {
                told = true;
                tracing::warn!(table = %key.table, seat = %key.seat, "a hosted seat waits for a place on the runners");
            }
            tokio::select! {
                _ = places.freed() => {}
                _ = tokio::time::sleep(Duration::from_secs(1)) => {}
            }
        }
    }

    /// Waits until a table is about to play (every seat taken): true then, false when it
    /// ended or is gone first. A table this process does not hold is handed out at once.
    async fn until_playing(&self, table_id: &str) -> bool {
        let Ok(id) = table_id.parse::<TableId>() else { return true };
        let Some(handle) = self.tables.get(&id) else { return true };
        loop {
            let published = handle.published();
            {
                let table = handle.lock();
                if table.is_finished() {
                    return false;
                }
                if table.status() != Status::Waiting {
                    return true;
                }
            }
            if handle.is_closed() {
                return false;
            }
            handle.changed(published).await;
        }
    }

    /// The version and sandbox size for a seat: a hosted tournament's pin, else the
    /// account's active version.
    async fn seat_for(&self, account: &Account, offer: SeatOffer) -> Option<HostedSeat> {
        let store = self.store().ok()?;
        let pin = match &offer.tournament_id {
            Some(t) => store
                .hosting
                .pins(t.as_str())
                .await
                .ok()?
                .into_iter()
                .find(|p| p.account_id == account.account_id),
            None => None,
        };
        let (version, cpu_millis, memory_mib) = match pin {
            Some(p) => (
                store.hosting.version(&account.account_id, &p.version_id).await.ok()??,
                p.cpu_millis,
                p.memory_mib,
            ),
            None => {
                let active =
                    store.hosting.versions(&account.account_id).await.ok()?.into_iter().find(|v| v.active)?;
                (active, self.config.hosting.cpu_millis, self.config.hosting.memory_mib)
            }
        };
        if version.state != VersionState::Approved {
            return None;
        }
        Some(HostedSeat { bot_name: account.name.to_string(), version, offer, cpu_millis, memory_mib })
    }
}
