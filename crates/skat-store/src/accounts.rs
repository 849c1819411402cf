//! The accounts' SQL: bot accounts (`skat_accounts`) and their names (with `names`).
//! Rows in, rows out: who may register is decided by the competitions and
//! `skat-league`; ratings are `ratings`'.

use std::collections::HashMap;

use skat_league::rating::Rating;
use skat_league::{AccountId, BotName};
use sqlx::Row as _;
use sqlx::any::AnyRow;

use super::names::{self, NameClaim};
use super::{Db, StoreError, placeholders, to_i64, to_u64};
use skat_table::secret::TokenHash;

/// A bot account.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Account {
    /// Its id.
    pub account_id: AccountId,
    /// Its unique name (shown at tables and in standings).
    pub name: BotName,
    /// Who runs it (a note).
    pub owner: String,
    /// The hash of its bot token (the token itself is shown once and never stored).
    pub token_hash: TokenHash,
    /// A disabled account cannot open its lobby.
    pub disabled: bool,
    /// Most tables at once.
    pub max_tables: u32,
    /// Unix milliseconds.
    pub created_ms: u64,
    /// Unix milliseconds it was removed (hidden from the public); 0: not removed.
    pub removed_ms: u64,
    /// Unix milliseconds a lobby of it last opened or closed; 0: never.
    pub last_seen_ms: u64,
}

/// What the operator changes of an account (absent: unchanged).
#[derive(Debug, Clone, Default)]
pub struct AccountChange<'a> {
    /// Disabled or enabled (enabling also brings a removed account back).
    pub disabled: Option<bool>,
    /// A new bot token's hash.
    pub token_hash: Option<&'a TokenHash>,
    /// A new quota.
    pub max_tables: Option<u32>,
    /// Removed now (disabled and hidden), at this time.
    pub removed_ms: Option<u64>,
    /// A new owner contact.
    pub owner: Option<&'a str>,
}

/// An account as the operator lists it.
#[derive(Debug, Clone)]
pub struct ListedAccount {
    /// The account.
    pub account: Account,
    /// Its rating, once rated.
    pub rating: Option<Rating>,
    /// Its former names, oldest first.
    pub former_names: Vec<String>,
}

fn decode<T: std::str::FromStr<Err = String>>(text: String) -> Result<T, sqlx::Error> {
    text.parse().map_err(|e: String| sqlx::Error::Decode(e.into()))
}

pub(super) fn account_from(r: &AnyRow) -> Result<Account, sqlx::Error> {
    Ok(Account {
        account_id: decode(r.try_get("account_id")?)?,
        name: BotName::stored(r.try_get("name")?),
        owner: r.try_get("owner")?,
        token_hash: decode(r.try_get("token_hash")?)?,
        disabled: r.try_get::<i64, _>("disabled")? != 0,
        max_tables: u32::try_from(r.try_get::<i64, _>("max_tables")?).unwrap_or(1),
        created_ms: to_u64(r.try_get("created_ms")?),
        removed_ms: to_u64(r.try_get("removed_ms")?),
        last_seen_ms: to_u64(r.try_get("last_seen_ms")?),
    })
}

pub(super) const ACCOUNT_COLUMNS: &str =
    "account_id, name, owner, token_hash, disabled, max_tables, created_ms, removed_ms, last_seen_ms";

/// Bot accounts (every name each has had: [`NameRepo`](super::names::NameRepo)).
#[derive(Debug, Clone)]
pub struct AccountRepo {
    pub(super) db: Db,
}

impl AccountRepo {
    /// Adds an account with its name's keys, in one transaction; `Taken` when an account
    /// has or had this name or one that is one with it (`skat_league::names`). Each
    /// transaction here writes first: SQLite then takes its write lock (waiting its busy timeout) before it reads, instead of
    /// failing to upgrade a read snapshot another connection's commit made stale.
    pub async fn create_account(&self, a: &Account) -> Result<NameClaim, StoreError> {
        let mut tx = self.db.pool.begin().await?;
        if let taken @ NameClaim::Taken(_) = names::claim_keys(&mut tx, &a.account_id, &a.name).await? {
            return Ok(taken);
        }
        if let Some((_, stored)) = names::name_holder(&mut tx, &a.name.key()).await? {
            return Ok(NameClaim::Taken(stored));
        }
        names::insert_name(&mut tx, &a.account_id, &a.name, a.created_ms).await?;
        // An account from before names had keys may hold the very name.
        let taken = sqlx::query("SELECT name FROM skat_accounts WHERE name = $1")
            .bind(a.name.as_str())
            .fetch_optional(&mut *tx)
            .await?;
        if let Some(row) = taken {
            return Ok(NameClaim::Taken(row.try_get("name")?));
        }
        sqlx::query(&format!(
            "INSERT INTO skat_accounts ({ACCOUNT_COLUMNS}) VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9)"
        ))
        .bind(a.account_id.as_str())
        .bind(a.name.as_str())
        .bind(a.owner.as_str())
        .bind(a.token_hash.to_string())
        .bind(i64::from(a.disabled))
        .bind(i64::from(a.max_tables))
        .bind(to_i64(a.created_ms))
        .bind(to_i64(a.removed_ms))
        .bind(to_i64(a.last_seen_ms))
        .execute(&mut *tx)
        .await?;
        tx.commit().await?;
        Ok(NameClaim::Claimed)
    }

    /// Marks that these accounts were seen now (a lobby open, a seat played): one
    /// statement for all of them, at most 500.
    pub async fn touch_accounts(&self, accounts: &[AccountId], at_ms: u64) -> Result<(), StoreError> {
        let accounts = &accounts[..accounts.len().min(500)];
        if accounts.is_empty() {
            return Ok(());
        }
        let sql = format!(
            "UPDATE skat_accounts SET last_seen_ms = $1 WHERE account_id IN ({})",
            placeholders(2, accounts.len())
        );
        let mut q = sqlx::query(&sql).bind(to_i64(at_ms));
        for a in accounts {
            q = q.bind(a.as_str());
        }
        q.execute(&self.db.pool).await?;
        Ok(())
    }

    /// Marks that a lobby of this account opened or closed now.
    pub async fn touch_account(&self, account: &AccountId, at_ms: u64) -> Result<(), StoreError> {
        sqlx::query("UPDATE skat_accounts SET last_seen_ms = $1 WHERE account_id = $2")
            .bind(to_i64(at_ms))
            .bind(account.as_str())
            .execute(&self.db.pool)
            .await?;
        Ok(())
    }

    /// Accounts whose name or owner contains `query` (case-insensitive), by name.
    /// With `only`, just those accounts (the online ones, one after a change): at most
    /// 500 of them are looked at.
    pub async fn list_accounts(
        &self,
        query: &str,
        include_removed: bool,
        only: Option<&[AccountId]>,
        (offset, limit): (u64, u64),
    ) -> Result<Vec<ListedAccount>, StoreError> {
        // LIKE's wildcards in the query are matched as themselves.
        let escaped: String = query
            .to_lowercase()
            .chars()
            .flat_map(|c| if matches!(c, '%' | '_' | '\\') { vec!['\\', c] } else { vec![c] })
            .collect();
        let pattern = format!("%{escaped}%");
        let only = only.map(|ids| &ids[..ids.len().min(500)]);
        let restrict = only.map_or(String::new(), |ids| {
            if ids.is_empty() {
                " AND 1 = 0".to_string()
            } else {
                format!(" AND account_id IN ({})", placeholders(5, ids.len()))
            }
        });
        let sql = format!(
            "SELECT {ACCOUNT_COLUMNS} FROM skat_accounts WHERE (LOWER(name) LIKE $1 ESCAPE '\\' OR LOWER(owner) LIKE $1 ESCAPE '\\') \
             AND (removed_ms = 0 OR $2 = 1){restrict} ORDER BY name LIMIT $3 OFFSET $4"
        );
        let mut q = sqlx::query(&sql)
            .bind(pattern)
            .bind(i64::from(include_removed))
            .bind(to_i64(limit))
            .bind(to_i64(offset));
        for id in only.unwrap_or_default() {
            q = q.bind(id.as_str());
        }
        let rows = q.fetch_all(&self.db.pool).await?;
        let mut out = Vec::new();
        for row in &rows {
            let account = account_from(row)?;
            let former = sqlx::query(
                "SELECT name FROM skat_account_names WHERE account_id = $1 AND until_ms > 0 ORDER BY since_ms",
            )
            .bind(account.account_id.as_str())
            .fetch_all(&self.db.pool)
            .await?
            .iter()
            .map(|r| r.try_get::<String, _>("name"))
            .collect::<Result<_, _>>()?;
            let rating = super::ratings::current(&self.db.pool, &account.account_id).await?;
            out.push(ListedAccount { account, rating, former_names: former });
        }
        Ok(out)
    }

    /// The account whose bot token has this hash.
    pub async fn account_by_token(&self, token_hash: &TokenHash) -> Result<Option<Account>, StoreError> {
        let sql = format!("SELECT {ACCOUNT_COLUMNS} FROM skat_accounts WHERE token_hash = $1");
        let row = sqlx::query(&sql).bind(token_hash.to_string()).fetch_optional(&self.db.pool).await?;
        Ok(row.as_ref().map(account_from).transpose()?)
    }

    /// The account with this name: as stored, else the one whose current name is the
    /// same by key (`heur-a` finds `HEUR-A`).
    pub async fn account_by_name(&self, name: &str) -> Result<Option<Account>, StoreError> {
        let sql = format!("SELECT {ACCOUNT_COLUMNS} FROM skat_accounts WHERE name = $1");
        if let Some(row) = sqlx::query(&sql).bind(name).fetch_optional(&self.db.pool).await? {
            return Ok(Some(account_from(&row)?));
        }
        let sql = format!(
            "SELECT {ACCOUNT_COLUMNS} FROM skat_accounts WHERE account_id = \
             (SELECT account_id FROM skat_account_names WHERE name_key = $1 AND until_ms = 0)"
        );
        let row =
            sqlx::query(&sql).bind(skat_league::primary_key(name)).fetch_optional(&self.db.pool).await?;
        Ok(row.as_ref().map(account_from).transpose()?)
    }

    /// These accounts (those that exist), in one query.
    pub async fn accounts(&self, ids: &[AccountId]) -> Result<HashMap<AccountId, Account>, StoreError> {
        let mut out = HashMap::new();
        let mut unique: Vec<&AccountId> = ids.iter().collect();
        unique.sort();
        unique.dedup();
        // Well under both databases' parameter limits per statement.
        for chunk in unique.chunks(500) {
            let sql = format!(
                "SELECT {ACCOUNT_COLUMNS} FROM skat_accounts WHERE account_id IN ({})",
                placeholders(1, chunk.len())
            );
            let mut q = sqlx::query(&sql);
            for id in chunk {
                q = q.bind(id.as_str());
            }
            for row in q.fetch_all(&self.db.pool).await? {
                let a = account_from(&row)?;
                out.insert(a.account_id.clone(), a);
            }
        }
        Ok(out)
    }

    /// Changes an account as the operator asked (see [`AccountChange`]).
    pub async fn update_account(&self, a: &Account, change: &AccountChange<'_>) -> Result<(), StoreError> {
        let disabled = change.removed_ms.is_some() || change.disabled.unwrap_or(a.disabled);
        let removed_ms = match (change.removed_ms, change.disabled) {
            (Some(at), _) => at,
            (None, Some(false)) => 0,
            (None, _) => a.removed_ms,
        };
        sqlx::query(
            "UPDATE skat_accounts SET disabled = $1, token_hash = $2, max_tables = $3, removed_ms = $4, owner = $5 \
             WHERE account_id = $6",
        )
        .bind(i64::from(disabled))
        .bind(change.token_hash.unwrap_or(&a.token_hash).to_string())
        .bind(i64::from(change.max_tables.unwrap_or(a.max_tables)))
        .bind(to_i64(removed_ms))
        .bind(change.owner.unwrap_or(&a.owner))
        .bind(a.account_id.as_str())
        .execute(&self.db.pool)
        .await?;
        Ok(())
    }
}
