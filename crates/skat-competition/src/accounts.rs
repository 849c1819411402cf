//! Bot accounts: registration, the operator's changes, and who a bot token belongs to.
//!
//! | rule | why |
//! |---|---|
//! | the bot token is shown once; only its SHA-256 is stored | a copy of the database acts for nobody |
//! | registration is open, or needs the admin token (`--registration admin`) | the operator decides who competes |
//! | rotating a token or disabling an account ends its open lobbies | a leaked token stops working at once; the bot reconnects and is checked again |
//! | a disabled account cannot open a lobby; its tournament seats still forfeit on time | the plan goes on |
//! | names beginning with `house-` are registered only with the admin token | they are the operator's house bots, the ladder of levels the page marks (docs/bots.md): a stranger may not squat one before the house bots start, nor pose as a level |

use std::net::IpAddr;
use std::time::SystemTime;

use skat_league::{AccountId, BotName};

use super::admin::Admin;
use super::error::shown;
use super::{CompetitionError, Ctx};
use skat_store::accounts::{Account, AccountChange};
use skat_store::names::NameClaim;
use skat_table::secret::{SeatToken, TokenHash, random_u64};
use skat_table::unix_ms;

/// The most tables at once an account's quota may allow.
pub const MAX_QUOTA: u32 = 1000;
/// The most characters of an owner contact.
pub const MAX_OWNER_CHARS: usize = 128;

/// What the operator changes of an account (UpdateBot).
#[derive(Debug, Clone, Default)]
pub struct BotChange {
    /// Disable (true) or enable (false; also brings a removed account back).
    pub disabled: Option<bool>,
    /// Give it a new bot token.
    pub rotate: bool,
    /// A new quota.
    pub max_tables: Option<u32>,
    /// A new name.
    pub rename: Option<String>,
    /// Remove it (disable and hide).
    pub remove: bool,
    /// A new owner contact.
    pub owner: Option<String>,
}

impl BotChange {
    /// The change in words, for the audit log (never the token).
    fn describe(&self, before: &Account, new_name: Option<&BotName>) -> String {
        let mut parts = Vec::new();
        if let Some(n) = new_name.filter(|n| *n != &before.name) {
            parts.push(format!("renamed `{}` to `{n}`", before.name));
        }
        match self.disabled {
            Some(true) => parts.push("disabled".to_string()),
            Some(false) => parts.push("enabled".to_string()),
            None => {}
        }
        if self.remove {
            parts.push("removed".to_string());
        }
        if self.rotate {
            parts.push("new bot token".to_string());
        }
        if let Some(m) = self.max_tables {
            parts.push(format!("quota {} -> {m}", before.max_tables));
        }
        if let Some(o) = &self.owner {
            parts.push(format!("owner `{}` -> `{o}`", before.owner));
        }
        if parts.is_empty() { "nothing".to_string() } else { parts.join(", ") }
    }
}

/// The prefix of the house bots' accounts (`skat serve --house-bots`), the operator's.
pub const HOUSE_PREFIX: &str = "house-";

/// Whether `name` is one only the operator may register (a house bot's): compared by
/// the names' keys, so a look-alike of `house-` (any case, confusable letters, marks) is
/// too.
pub fn reserved(name: &str) -> bool {
    let house = skat_league::primary_key(HOUSE_PREFIX);
    skat_league::name_keys(name).iter().any(|k| k.starts_with(&house))
}

/// An owner contact: at most [`MAX_OWNER_CHARS`] characters, no control or bidi
/// characters (it is shown to the operator, in a terminal and the page).
fn check_owner(owner: &str) -> Result<String, CompetitionError> {
    let bad = owner.chars().find(|c| c.is_control() || skat_league::is_bidi_control(*c));
    if owner.chars().count() > MAX_OWNER_CHARS || bad.is_some() {
        return Err(CompetitionError::Owner(MAX_OWNER_CHARS));
    }
    Ok(owner.trim().to_string())
}

/// Bot accounts: registering, changing, authenticating, and the names of people's tables.
#[derive(Debug)]
pub struct Accounts {
    pub(super) ctx: Ctx,
}

impl Accounts {
    /// Checks a name given to a hand-made table or to a player at one (`field`: `table`
    /// or `player`): it may not pass for a house bot (unless the operator gives it) nor,
    /// for a player, for a bot account, current or former name, by the names' keys. A
    /// person named `ΗΕΑΤ` at a table would otherwise read as the bot `HEAT`.
    pub async fn check_table_name(
        &self,
        field: &'static str,
        name: &str,
        admin: bool,
    ) -> Result<(), CompetitionError> {
        if name.is_empty() {
            return Ok(());
        }
        if !admin && reserved(name) {
            return Err(CompetitionError::PassesFor { field, name: name.to_string(), account: None });
        }
        let Some(store) = self.ctx.journal.store() else { return Ok(()) };
        if field == "player"
            && let Some(account) = store.names.name_with_keys(&skat_league::name_keys(name)).await?
        {
            return Err(CompetitionError::PassesFor {
                field,
                name: name.to_string(),
                account: Some(account),
            });
        }
        Ok(())
    }

    /// Registers an account; returns it and its bot token. With the admin token (needed
    /// under `--registration admin`) the audit log has who registered it, from `peer`.
    pub async fn register(
        &self,
        name: &str,
        owner: &str,
        token: Option<&str>,
        peer: IpAddr,
    ) -> Result<(Account, SeatToken), CompetitionError> {
        let store = self.ctx.store()?;
        let admin = match self.ctx.admin(token, peer) {
            Ok(admin) => Some(admin),
            Err(e) if !self.ctx.config.open_registration => return Err(e),
            Err(_) => None,
        };
        let name = BotName::new(name)?;
        if admin.is_none() && reserved(name.as_str()) {
            return Err(CompetitionError::HouseName(name.to_string()));
        }
        let owner = check_owner(owner)?;
        let token = SeatToken::generate()?;
        let now = unix_ms(SystemTime::now());
        let account = Account {
            account_id: AccountId::from_random(random_u64()?),
            name,
            owner,
            token_hash: token.hash(),
            disabled: false,
            max_tables: self.ctx.config.account_max_tables,
            created_ms: now,
            removed_ms: 0,
            last_seen_ms: 0,
        };
        if let NameClaim::Taken(existing) = store.accounts.create_account(&account).await? {
            return Err(CompetitionError::AccountExists { name: account.name.to_string(), existing });
        }
        tracing::info!(account = %account.name, id = %account.account_id, "bot account registered");
        if let Some(admin) = &admin {
            self.ctx
                .audit(admin, "register-bot", account.name.as_str(), format!("owner: {}", account.owner))
                .await;
        }
        Ok((account, token))
    }

    /// Changes an account as the operator asked (admin only); returns the account after
    /// the change and its new token when one was made.
    pub async fn update(
        &self,
        name: &str,
        change: BotChange,
        admin: &Admin,
    ) -> Result<(Account, Option<SeatToken>), CompetitionError> {
        let store = self.ctx.store()?;
        if change.max_tables.is_some_and(|m| !(1..=MAX_QUOTA).contains(&m)) {
            return Err(CompetitionError::Quota);
        }
        let owner = change.owner.as_deref().map(check_owner).transpose()?;
        let new_name = match change.rename.as_deref() {
            Some(n) if !n.is_empty() => Some(BotName::new(n)?),
            _ => None,
        };
        let account = store
            .accounts
            .account_by_name(name)
            .await?
            .ok_or_else(|| CompetitionError::NoSuchAccount(shown(name)))?;
        let token = if change.rotate { Some(SeatToken::generate()?) } else { None };
        let hash = token.as_ref().map(SeatToken::hash);
        let now = unix_ms(SystemTime::now());
        if let Some(new_name) = &new_name
            && new_name != &account.name
            && let NameClaim::Taken(existing) =
                store.names.rename_account(&account.account_id, new_name, now).await?
        {
            return Err(CompetitionError::AccountExists { name: new_name.to_string(), existing });
        }
        let applied = AccountChange {
            disabled: change.disabled,
            token_hash: hash.as_ref(),
            max_tables: change.max_tables,
            removed_ms: change.remove.then_some(now),
            owner: owner.as_deref(),
        };
        store.accounts.update_account(&account, &applied).await?;
        // The open lobbies were opened with the old token or before the account was
        // disabled: they end now (their bots reconnect, and are checked again).
        if change.rotate || change.disabled == Some(true) || change.remove {
            self.ctx.lobbies.close_all(&account.account_id);
        }
        self.ctx.schedulers.wake();
        let after = store
            .accounts
            .account_by_name(new_name.as_ref().map_or(account.name.as_str(), BotName::as_str))
            .await?
            .ok_or_else(|| CompetitionError::NoSuchAccount(shown(name)))?;
        let detail = change.describe(&account, new_name.as_ref());
        tracing::info!(account = %after.name, id = %after.account_id, change = %detail, "bot account updated");
        self.ctx.audit(admin, "update-bot", account.name.as_str(), detail).await;
        Ok((after, token))
    }

    /// The account of a bot token.
    pub async fn authenticate(&self, token: Option<&str>) -> Result<Account, CompetitionError> {
        let store = self.ctx.store()?;
        let token = token.ok_or(CompetitionError::BotTokenInvalid)?;
        let account = store
            .accounts
            .account_by_token(&TokenHash::of(token))
            .await?
            .ok_or(CompetitionError::BotTokenInvalid)?;
        if account.disabled {
            return Err(CompetitionError::AccountDisabled);
        }
        Ok(account)
    }
}
