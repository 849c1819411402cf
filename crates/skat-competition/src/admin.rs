//! The operator's view: who acts with the admin token (and the audit log of what they
//! did), the accounts as the operator sees them, and the per-account gauges.
//!
//! | rule | why |
//! |---|---|
//! | every accepted admin action is journaled with its time, the client's address and the change in words | a season's disputes are settled from the log, not from memory |
//! | the audit entry is written after the change succeeded; if the database then fails, the change stands and the log line (`audit` target) still has it | an OK is never taken back |
//! | no token is ever written to the log | the log is read by more people than the token |
//! | the operator's list shows owner contacts and former names; the public's (GetBot, the leaderboard) never | bot authors' contacts stay private |
//! | an account's last seen time is noted when a lobby opens and closes, and every minute while it has a lobby open or a seat here | "last seen" moves while an account plays, at one write per minute for all of them |
//! | per-account gauges are recomputed every few seconds from the lobbies and seats held here, labelled by the account's name | renames and restarts leave no stale series; one series per account, bounded by the accounts |

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::Arc;
use std::time::{Duration, SystemTime};

use skat_league::AccountId;

use super::{CompetitionError, Ctx};
use skat_store::Store;
use skat_store::accounts::{Account, ListedAccount};
use skat_store::audit::AuditEntry;
use skat_table::secret::{random_u64, same_token};
use skat_table::unix_ms;

/// How often the per-account gauges are recomputed.
const GAUGES_EVERY: Duration = Duration::from_secs(5);

/// How often the accounts playing here have their last seen time moved.
const SEEN_EVERY: Duration = Duration::from_secs(60);

/// Who acts with the admin token: checked once where the call arrives, carried to
/// every change it makes (and its audit entry).
#[derive(Debug, Clone)]
pub struct Admin {
    /// The client's address (after `--trusted-proxies`).
    peer: IpAddr,
}

/// An account as the operator lists it.
#[derive(Debug, Clone)]
pub struct OperatorView {
    /// The account, its rating and former names.
    pub listed: ListedAccount,
    /// Lobby streams open on this replica.
    pub lobbies: u32,
    /// Tournament tables it is seated at (every replica).
    pub tables_now: u32,
}

/// The admin token and the audit log: what every service that acts for the operator
/// checks and writes.
impl Ctx {
    /// The admin, if `presented` is the admin token.
    pub fn admin(&self, presented: Option<&str>, peer: IpAddr) -> Result<Admin, CompetitionError> {
        match (&self.config.admin_token, presented) {
            (Some(admin), Some(p)) if same_token(admin, p) => Ok(Admin { peer }),
            (Some(_), _) => Err(CompetitionError::AdminRequired),
            (None, _) => Err(CompetitionError::NoAdminToken),
        }
    }

    /// Journals an admin action (see the module header: a failure is logged, not
    /// returned; the change has been made).
    pub async fn audit(&self, admin: &Admin, action: &str, target: &str, detail: String) {
        let entry = AuditEntry {
            at_ms: unix_ms(SystemTime::now()),
            actor: "admin".to_string(),
            peer: admin.peer.to_string(),
            action: action.to_string(),
            target: target.to_string(),
            detail,
        };
        tracing::info!(target: "audit", peer = %entry.peer, action, what = target, detail = %entry.detail, "admin action");
        let Ok(store) = self.store() else { return };
        let id = match random_u64() {
            Ok(r) => format!("{:016x}{r:016x}", entry.at_ms),
            Err(_) => format!("{:016x}{:016x}", entry.at_ms, std::process::id()),
        };
        if let Err(e) = store.audit.audit(&id, &entry).await {
            tracing::error!(error = %e, action, "could not journal an admin action in the audit log");
        }
    }
}

/// The operator's side: the audit log, the accounts as the operator sees them, a
/// tournament's life (`control`), and the per-account gauges.
#[derive(Debug)]
pub struct Operators {
    pub(super) ctx: Ctx,
}

impl Operators {
    /// A page of the audit log, newest first.
    pub async fn audit_log(
        &self,
        _admin: &Admin,
        target: &str,
        offset: u32,
        limit: u32,
    ) -> Result<Vec<AuditEntry>, CompetitionError> {
        let limit = if limit == 0 { 100 } else { limit.min(1000) };
        Ok(self.ctx.store()?.audit.audit_log(target, u64::from(offset), u64::from(limit)).await?)
    }

    /// Accounts as the operator sees them, by name.
    pub async fn list_bots(
        &self,
        _admin: &Admin,
        query: &str,
        include_removed: bool,
        online_only: bool,
        (offset, limit): (u32, u32),
    ) -> Result<Vec<OperatorView>, CompetitionError> {
        let store = self.ctx.store()?;
        let limit = if limit == 0 { 100 } else { limit.min(1000) };
        let query: String = query.chars().take(64).collect();
        // Online: the accounts with a lobby open here, known without the database.
        let online: Option<Vec<AccountId>> =
            online_only.then(|| self.ctx.lobbies.open_counts().into_keys().collect());
        let page = (u64::from(offset), u64::from(limit));
        let listed = store.accounts.list_accounts(&query, include_removed, online.as_deref(), page).await?;
        let seated = self.seated_counts().await?;
        Ok(listed
            .into_iter()
            .map(|listed| {
                let id = &listed.account.account_id;
                OperatorView {
                    lobbies: self.ctx.lobbies.count(id) as u32,
                    tables_now: seated.get(id).copied().unwrap_or(0),
                    listed,
                }
            })
            .collect())
    }

    /// One account as the operator sees it (after a change).
    pub async fn operator_view(&self, account: Account) -> Result<OperatorView, CompetitionError> {
        let store = self.ctx.store()?;
        let id = [account.account_id.clone()];
        let listed = store
            .accounts
            .list_accounts("", true, Some(&id), (0, 1))
            .await?
            .pop()
            .unwrap_or(ListedAccount { account, rating: None, former_names: Vec::new() });
        let seated = self.seated_counts().await?;
        let id = &listed.account.account_id;
        Ok(OperatorView {
            lobbies: self.ctx.lobbies.count(id) as u32,
            tables_now: seated.get(id).copied().unwrap_or(0),
            listed,
        })
    }

    /// Notes that a lobby of `account` opened now, and returns a guard that notes when
    /// it closed (its last seen time) and logs it.
    pub fn seen(&self, account: &Account) -> Seen {
        let seen = Seen { store: self.ctx.store().ok().cloned(), account: account.clone() };
        seen.touch();
        seen
    }

    /// Tournament tables being played per account, over every replica.
    async fn seated_counts(&self) -> Result<HashMap<AccountId, u32>, CompetitionError> {
        let mut seated: HashMap<AccountId, u32> = HashMap::new();
        for p in self.ctx.store()?.tournaments.playing_tables().await? {
            for a in p.planned.seating {
                *seated.entry(a).or_default() += 1;
            }
        }
        Ok(seated)
    }

    /// From now on, sets the per-account gauges every few seconds (see the module header).
    pub(super) fn follow_account_gauges(self: &Arc<Self>) {
        let me = Arc::clone(self);
        self.ctx.tasks.spawn(async move {
            let mut seen_at = tokio::time::Instant::now();
            loop {
                tokio::time::sleep(GAUGES_EVERY).await;
                let lobbies = me.ctx.lobbies.open_counts();
                let seats = me.ctx.lobbies.seat_counts();
                let ids: Vec<AccountId> = lobbies.keys().chain(seats.keys()).cloned().collect();
                let Ok(store) = me.ctx.store() else { return };
                if seen_at.elapsed() >= SEEN_EVERY {
                    seen_at = tokio::time::Instant::now();
                    if let Err(e) = store.accounts.touch_accounts(&ids, unix_ms(SystemTime::now())).await {
                        tracing::warn!(error = %e, "could not note when the accounts playing were last seen");
                    }
                }
                let Ok(accounts) = store.accounts.accounts(&ids).await else { continue };
                let name =
                    |id: &AccountId| accounts.get(id).map_or_else(|| id.to_string(), |a| a.name.to_string());
                let named = |counts: &std::collections::HashMap<AccountId, usize>| -> Vec<(String, usize)> {
                    counts.iter().map(|(id, n)| (name(id), *n)).collect()
                };
                me.ctx.metrics.per_account(&named(&lobbies), &named(&seats));
            }
        });
    }
}

/// A lobby being open: notes the account's last seen time when made and when dropped.
#[derive(Debug)]
pub struct Seen {
    store: Option<Store>,
    account: Account,
}

impl Seen {
    fn touch(&self) {
        let Some(store) = self.store.clone() else { return };
        // Dropped while the runtime shuts down: nothing is spawned any more.
        let Ok(runtime) = tokio::runtime::Handle::try_current() else { return };
        let id = self.account.account_id.clone();
        runtime.spawn(async move {
            if let Err(e) = store.accounts.touch_account(&id, unix_ms(SystemTime::now())).await {
                tracing::warn!(error = %e, "could not note when an account was last seen");
            }
        });
    }
}

impl Drop for Seen {
    fn drop(&mut self) {
        tracing::info!(account = %self.account.name, id = %self.account.account_id, "lobby closed");
        self.touch();
    }
}
