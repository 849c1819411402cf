//! The account names' SQL: every name an account has had (`skat_account_names`, keyed by
//! the name's primary key, with since and until) and every key of each
//! (`skat_account_name_keys`). Which names are one name is `skat_league::names`'s
//! decision; here a claim is one transaction that writes every key of the new name or
//! none, so two accounts racing for look-alike names cannot both win.

use skat_league::{AccountId, BotName};
use sqlx::Row as _;

use super::{Db, StoreError, placeholders, to_i64};

/// What creating an account or renaming one found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NameClaim {
    /// The name is the account's now.
    Claimed,
    /// An account has (or had) this name or a look-alike of it: here it is as stored.
    Taken(String),
}

/// Every name each account has had, and every key of each.
#[derive(Debug, Clone)]
pub struct NameRepo {
    pub(crate) db: Db,
}

type Tx<'c> = sqlx::Transaction<'c, sqlx::Any>;

/// Writes every key of `name` for `account`; the holder's name as stored when another
/// account holds one of them (the caller then drops the transaction: nothing is
/// written). A key the account itself holds (its own name in another case, a former
/// name) is its already. The first statement writes, so SQLite takes its write lock
/// before anything is read (see [`crate::AccountRepo::create_account`]).
pub(super) async fn claim_keys(
    tx: &mut Tx<'_>,
    account: &AccountId,
    name: &BotName,
) -> Result<NameClaim, StoreError> {
    for key in name.keys() {
        let written = sqlx::query(
            "INSERT INTO skat_account_name_keys (name_key, account_id, name) VALUES ($1,$2,$3) \
             ON CONFLICT (name_key) DO NOTHING",
        )
        .bind(&key)
        .bind(account.as_str())
        .bind(name.as_str())
        .execute(&mut **tx)
        .await?;
        if written.rows_affected() == 1 {
            continue;
        }
        if let Some((holder, stored)) = key_holder(tx, &key).await?
            && holder != account.as_str()
        {
            return Ok(NameClaim::Taken(stored));
        }
    }
    Ok(NameClaim::Claimed)
}

/// Who holds a key: (account id, the name it was made from).
async fn key_holder(tx: &mut Tx<'_>, key: &str) -> Result<Option<(String, String)>, StoreError> {
    let row = sqlx::query("SELECT account_id, name FROM skat_account_name_keys WHERE name_key = $1")
        .bind(key)
        .fetch_optional(&mut **tx)
        .await?;
    Ok(row.map(|r| Ok::<_, sqlx::Error>((r.try_get("account_id")?, r.try_get("name")?))).transpose()?)
}

/// Who holds a name's primary key in the history: (account id, the name as stored).
pub(super) async fn name_holder(tx: &mut Tx<'_>, key: &str) -> Result<Option<(String, String)>, StoreError> {
    let row = sqlx::query("SELECT account_id, name FROM skat_account_names WHERE name_key = $1")
        .bind(key)
        .fetch_optional(&mut **tx)
        .await?;
    Ok(row.map(|r| Ok::<_, sqlx::Error>((r.try_get("account_id")?, r.try_get("name")?))).transpose()?)
}

/// Adds `name` to the account's history as its current name.
pub(super) async fn insert_name(
    tx: &mut Tx<'_>,
    account: &AccountId,
    name: &BotName,
    since_ms: u64,
) -> Result<(), StoreError> {
    sqlx::query(
        "INSERT INTO skat_account_names (name_key, account_id, name, since_ms, until_ms) VALUES ($1,$2,$3,$4,0) \
         ON CONFLICT (name_key) DO NOTHING",
    )
    .bind(name.key())
    .bind(account.as_str())
    .bind(name.as_str())
    .bind(to_i64(since_ms))
    .execute(&mut **tx)
    .await?;
    Ok(())
}

impl NameRepo {
    /// The name an account has or had that holds one of `keys`, if any.
    pub async fn name_with_keys(&self, keys: &[String]) -> Result<Option<String>, StoreError> {
        if keys.is_empty() {
            return Ok(None);
        }
        let sql = format!(
            "SELECT name FROM skat_account_name_keys WHERE name_key IN ({}) LIMIT 1",
            placeholders(1, keys.len())
        );
        let mut q = sqlx::query(&sql);
        for key in keys {
            q = q.bind(key);
        }
        let row = q.fetch_optional(&self.db.pool).await?;
        Ok(row.map(|r| r.try_get("name")).transpose()?)
    }

    /// Gives an account a new name, keeping the old one reserved for it (a former name);
    /// `Taken` when another account has or had a name that is one with the new one.
    pub async fn rename_account(
        &self,
        account: &AccountId,
        name: &BotName,
        at_ms: u64,
    ) -> Result<NameClaim, StoreError> {
        let mut tx = self.db.pool.begin().await?;
        if let taken @ NameClaim::Taken(_) = claim_keys(&mut tx, account, name).await? {
            return Ok(taken);
        }
        // The current name becomes a former one.
        sqlx::query("UPDATE skat_account_names SET until_ms = $1 WHERE account_id = $2 AND until_ms = 0")
            .bind(to_i64(at_ms))
            .bind(account.as_str())
            .execute(&mut *tx)
            .await?;
        match name_holder(&mut tx, &name.key()).await? {
            Some((holder, stored)) if holder != account.as_str() => return Ok(NameClaim::Taken(stored)),
            Some(_) => {
                // Its own name or a former one (a change of case, or back to an old name).
                sqlx::query("UPDATE skat_account_names SET name = $1, until_ms = 0 WHERE name_key = $2")
                    .bind(name.as_str())
                    .bind(name.key())
                    .execute(&mut *tx)
                    .await?;
            }
            None => insert_name(&mut tx, account, name, at_ms).await?,
        }
        sqlx::query("UPDATE skat_accounts SET name = $1 WHERE account_id = $2")
            .bind(name.as_str())
            .bind(account.as_str())
            .execute(&mut *tx)
            .await?;
        tx.commit().await?;
        Ok(NameClaim::Claimed)
    }

    /// Keys the names written before their keys were: accounts made before names had a
    /// history get their current name's row, then every name in the history without
    /// keys gets them. Two old names that are one name both stay as they are: the
    /// server logs both (at every start, until the operator renames one).
    pub(super) async fn reserve_names(&self) -> Result<(), StoreError> {
        let rows = sqlx::query(
            "SELECT account_id, name, created_ms FROM skat_accounts a WHERE NOT EXISTS \
             (SELECT 1 FROM skat_account_names n WHERE n.account_id = a.account_id) ORDER BY created_ms",
        )
        .fetch_all(&self.db.pool)
        .await?;
        for row in &rows {
            let account: AccountId =
                row.try_get::<String, _>("account_id")?.parse().map_err(StoreError::Corrupt)?;
            let name = BotName::stored(row.try_get("name")?);
            let created_ms = super::to_u64(row.try_get("created_ms")?);
            let mut tx = self.db.pool.begin().await?;
            // ON CONFLICT inside: replicas starting together may both write the row.
            insert_name(&mut tx, &account, &name, created_ms).await?;
            tx.commit().await?;
        }
        let unkeyed = sqlx::query(
            "SELECT account_id, name FROM skat_account_names n WHERE NOT EXISTS \
             (SELECT 1 FROM skat_account_name_keys k WHERE k.account_id = n.account_id AND k.name = n.name) \
             ORDER BY until_ms = 0, since_ms",
        )
        .fetch_all(&self.db.pool)
        .await?;
        for row in &unkeyed {
            let account: AccountId =
                row.try_get::<String, _>("account_id")?.parse().map_err(StoreError::Corrupt)?;
            let name = BotName::stored(row.try_get("name")?);
            let mut tx = self.db.pool.begin().await?;
            let mut like = None;
            for key in name.keys() {
                let written = sqlx::query(
                    "INSERT INTO skat_account_name_keys (name_key, account_id, name) VALUES ($1,$2,$3) \
                     ON CONFLICT (name_key) DO NOTHING",
                )
                .bind(&key)
                .bind(account.as_str())
                .bind(name.as_str())
                .execute(&mut *tx)
                .await?;
                if written.rows_affected() == 0
                    && let Some((holder, stored)) = key_holder(&mut tx, &key).await?
                    && holder != account.as_str()
                {
                    like = Some(stored);
                }
            }
            tx.commit().await?;
            if let Some(like) = like {
                tracing::warn!(account = %account, name = %name, like = %like,
                    "an older account's name looks like another's; rename one (skat admin rename)");
            }
        }
        Ok(())
    }
}
