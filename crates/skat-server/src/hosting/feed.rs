//! The runner's feed: every seat a hosted account is to play.
//!
//! For each hosted account the feed opens a lobby on the account's behalf (open to the
//! people's tables `--hosting-people-tables` names, no casual play) and passes its seats
//! on with the version to run: the version a hosted tournament pinned for its tables,
//! else the account's active one. A seat is passed on when its table is about to play
//! (every seat taken): a sandbox never idles at a table waiting for players. It
//! looks at the hosted accounts again every [`LOOK_EVERY`] and whenever a version is
//! activated, approved or fails; an account no longer hosted has its lobby closed. Seats
//! at tables on other replicas (no token here) are left to those replicas' runners.

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Duration;

use skat_league::AccountId;
use tokio::sync::mpsc;
use tokio::task::JoinHandle;

use super::Hosting;
use crate::competition::SeatOffer;
use crate::competition::lobby::{LobbyNote, LobbyWish};
use crate::config::PeopleTables;
use crate::store::accounts::Account;
use crate::store::hosting::{StoredVersion, VersionState};
use crate::table::{Status, TableId};

/// A hosted account's lobby: no limit of its own, no casual queue, no challenges (the
/// operator's tournaments seat it), open to the people's tables `--hosting-people-tables`
/// names.
fn hosted_lobby(people: PeopleTables) -> LobbyWish {
    LobbyWish { max_tables: 0, casual_seats: 0, challenges: false, open_tables: people }
}

/// How often the feed looks for accounts that became hosted (or stopped being).
const LOOK_EVERY: Duration = Duration::from_secs(2);

/// Seats waiting for the runner to read them.
const FEED_ROOM: usize = 1024;

/// A seat for the runner.
#[derive(Debug, Clone)]
pub(crate) struct HostedSeat {
    /// The account's name.
    pub(crate) bot_name: String,
    /// The version to run.
    pub(crate) version: StoredVersion,
    /// Where and which seat, with its token.
    pub(crate) offer: SeatOffer,
    /// CPU, in millicores.
    pub(crate) cpu_millis: u32,
    /// Memory, in MiB.
    pub(crate) memory_mib: u32,
}

/// One account followed by the feed: its lobby's forwarder.
struct Followed {
    task: JoinHandle<()>,
}

impl Drop for Followed {
    fn drop(&mut self) {
        // Dropping the forwarder drops the lobby's receiver: the lobby closes.
        self.task.abort();
    }
}

impl Hosting {
    /// Opens the feed for a runner; an older feed ends (its stream sees the channel
    /// close). The feed lives while its receiver does.
    pub(crate) fn feed(self: &Arc<Self>, runner: &str) -> mpsc::Receiver<HostedSeat> {
        let generation = self.feed_generation.fetch_add(1, Ordering::SeqCst) + 1;
        let (tx, rx) = mpsc::channel(FEED_ROOM);
        let me = Arc::clone(self);
        let runner: String = runner.chars().filter(|c| !c.is_control()).take(64).collect();
        tracing::info!(%runner, generation, "runner feed opened");
        tokio::spawn(async move {
            let mut followed: HashMap<AccountId, Followed> = HashMap::new();
            loop {
                if me.feed_generation.load(Ordering::SeqCst) != generation || tx.is_closed() {
                    break;
                }
                me.follow_hosted(&mut followed, &tx).await;
                me.metrics.hosting.accounts.set(followed.len() as i64);
                tokio::select! {
                    _ = tokio::time::sleep(LOOK_EVERY) => {}
                    _ = me.changed.notified() => {}
                    _ = tx.closed() => break,
                }
            }
            tracing::info!(%runner, generation, "runner feed closed");
        });
        rx
    }

    /// Opens lobbies for accounts that became hosted, closes those of accounts no
    /// longer hosted.
    async fn follow_hosted(
        self: &Arc<Self>,
        followed: &mut HashMap<AccountId, Followed>,
        tx: &mpsc::Sender<HostedSeat>,
    ) {
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
                .open_lobby(&account, hosted_lobby(self.config.hosting.people_tables))
                .await
            {
                Ok(lobby) => {
                    let task = tokio::spawn(Arc::clone(self).forward(account.clone(), lobby, tx.clone()));
                    followed.insert(account.account_id.clone(), Followed { task });
                }
                Err(e) => {
                    tracing::warn!(account = %account.name, error = %e, "runner feed: cannot open the account's lobby")
                }
            }
        }
    }

    /// Passes an account's seats on to the runner, each with its version, each once its
    /// table is about to play.
    async fn forward(
        self: Arc<Self>,
        account: Account,
        mut lobby: mpsc::Receiver<LobbyNote>,
        tx: mpsc::Sender<HostedSeat>,
    ) {
        let mut waiting = tokio::task::JoinSet::new();
        loop {
            let note = tokio::select! {
                note = lobby.recv() => note,
                _ = tx.closed() => return,
            };
            let Some(note) = note else { return };
            let LobbyNote::Seat(offer) = note else { continue };
            if offer.seat_token.is_empty() {
                continue;
            }
            // Finished waiters are gathered as new seats come (the set holds the waiting).
            while waiting.try_join_next().is_some() {}
            let me = Arc::clone(&self);
            let (account, tx) = (account.clone(), tx.clone());
            waiting.spawn(async move {
                if !me.until_playing(&offer.table_id).await {
                    return;
                }
                match me.seat_for(&account, offer).await {
                    Some(seat) => {
                        let _ = tx.send(seat).await;
                    }
                    None => {
                        tracing::warn!(account = %account.name, "runner feed: a seat without a version that may play; it forfeits on time")
                    }
                }
            });
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
