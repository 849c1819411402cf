//! Bot accounts: registration, the operator's changes, and who a bot token belongs to.
//!
//! | rule | why |
//! |---|---|
//! | the bot token is shown once; only its SHA-256 is stored | a copy of the database acts for nobody |
//! | registration is open, or needs the admin token (`--registration admin`) | the operator decides who competes |
//! | rotating a token or disabling an account ends its open lobbies | a leaked token stops working at once; the bot reconnects and is checked again |
//! | a disabled account cannot open a lobby; its tournament seats still forfeit on time | the plan goes on |

use std::time::SystemTime;

use skat_league::{AccountId, BotName};

use super::{CompetitionError, Competitions};
use crate::secret::{SeatToken, TokenHash, random_u64, same_token};
use crate::store::accounts::Account;
use crate::table::unix_ms;

/// The most tables at once an account's quota may allow.
pub(crate) const MAX_QUOTA: u32 = 1000;

impl Competitions {
    /// Whether `presented` is the admin token.
    pub(crate) fn check_admin(&self, presented: Option<&str>) -> Result<(), CompetitionError> {
        match (&self.config.admin_token, presented) {
            (Some(admin), Some(p)) if same_token(admin, p) => Ok(()),
            (Some(_), _) => Err(CompetitionError::AdminRequired),
            (None, _) => Err(CompetitionError::NoAdminToken),
        }
    }

    /// Registers an account; returns it and its bot token.
    pub(crate) async fn register(
        &self,
        name: &str,
        owner: &str,
        admin: Option<&str>,
    ) -> Result<(Account, SeatToken), CompetitionError> {
        let store = self.store()?;
        if !self.config.open_registration {
            self.check_admin(admin)?;
        }
        let name = BotName::clean(name)?;
        let token = SeatToken::generate()?;
        let account = Account {
            account_id: AccountId::from_random(random_u64()?),
            name,
            owner: owner.chars().filter(|c| !c.is_control()).take(128).collect(),
            token_hash: token.hash(),
            disabled: false,
            max_tables: self.config.account_max_tables,
            created_ms: unix_ms(SystemTime::now()),
        };
        if !store.create_account(&account).await? {
            return Err(CompetitionError::AccountExists(account.name.to_string()));
        }
        tracing::info!(account = %account.account_id, name = %account.name, "bot account registered");
        Ok((account, token))
    }

    /// Disables or enables an account, gives it a new token or a new quota (admin only);
    /// returns the new token when one was made.
    pub(crate) async fn update(
        &self,
        name: &str,
        disabled: Option<bool>,
        rotate: bool,
        max_tables: Option<u32>,
        admin: Option<&str>,
    ) -> Result<Option<SeatToken>, CompetitionError> {
        let store = self.store()?;
        self.check_admin(admin)?;
        if max_tables.is_some_and(|m| !(1..=MAX_QUOTA).contains(&m)) {
            return Err(CompetitionError::Quota);
        }
        let token = if rotate { Some(SeatToken::generate()?) } else { None };
        let hash = token.as_ref().map(SeatToken::hash);
        let account = store.account_by_name(name).await?;
        if !store.update_account(name, disabled, hash.as_ref(), max_tables).await? {
            return Err(CompetitionError::NoSuchAccount(name.to_string()));
        }
        // The open lobbies were opened with the old token or before the account was
        // disabled: they end now (their bots reconnect, and are checked again).
        if let Some(a) = account
            && (rotate || disabled == Some(true))
        {
            self.lobbies.close_all(&a.account_id);
        }
        self.schedulers.wake();
        tracing::info!(name, ?disabled, rotated = rotate, ?max_tables, "bot account updated");
        Ok(token)
    }

    /// The account of a bot token.
    pub(crate) async fn authenticate(&self, token: Option<&str>) -> Result<Account, CompetitionError> {
        let store = self.store()?;
        let token = token.ok_or(CompetitionError::BotTokenInvalid)?;
        let account =
            store.account_by_token(&TokenHash::of(token)).await?.ok_or(CompetitionError::BotTokenInvalid)?;
        if account.disabled {
            return Err(CompetitionError::AccountDisabled);
        }
        Ok(account)
    }
}
