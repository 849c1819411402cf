//! The accounts' SQL: bot accounts (`skat_accounts`), their ratings (`skat_ratings`) and
//! rating history (`skat_rating_history`). Rows in, rows out: who may register and how a
//! rating moves is decided by the competitions and `skat-league`.

use std::collections::HashMap;

use skat_league::rating::Rating;
use skat_league::{AccountId, BotName};
use sqlx::Row as _;
use sqlx::any::AnyRow;

use super::{Store, StoreError, to_i64, to_u64};
use crate::secret::TokenHash;

/// A bot account.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Account {
    /// Its id.
    pub(crate) account_id: AccountId,
    /// Its unique name (shown at tables and in standings).
    pub(crate) name: BotName,
    /// Who runs it (a note).
    pub(crate) owner: String,
    /// The hash of its bot token (the token itself is shown once and never stored).
    pub(crate) token_hash: TokenHash,
    /// A disabled account cannot open its lobby.
    pub(crate) disabled: bool,
    /// Most tables at once.
    pub(crate) max_tables: u32,
    /// Unix milliseconds.
    pub(crate) created_ms: u64,
}

/// A leaderboard row: an account's name and rating.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct RatedAccount {
    /// The account's name.
    pub(crate) name: BotName,
    /// Its rating.
    pub(crate) rating: Rating,
}

/// One point of an account's rating history.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct RatingPoint {
    /// Unix milliseconds.
    pub(crate) at_ms: u64,
    /// The list that moved it.
    pub(crate) table_id: String,
    /// The rating after it (`lists` is not kept per point: 0).
    pub(crate) rating: Rating,
}

fn decode<T: std::str::FromStr<Err = String>>(text: String) -> Result<T, sqlx::Error> {
    text.parse().map_err(|e: String| sqlx::Error::Decode(e.into()))
}

fn account_from(r: &AnyRow) -> Result<Account, sqlx::Error> {
    Ok(Account {
        account_id: decode(r.try_get("account_id")?)?,
        name: BotName::stored(r.try_get("name")?),
        owner: r.try_get("owner")?,
        token_hash: decode(r.try_get("token_hash")?)?,
        disabled: r.try_get::<i64, _>("disabled")? != 0,
        max_tables: u32::try_from(r.try_get::<i64, _>("max_tables")?).unwrap_or(1),
        created_ms: to_u64(r.try_get("created_ms")?),
    })
}

pub(super) fn rating_from(r: &AnyRow) -> Result<Rating, sqlx::Error> {
    Ok(Rating {
        rating: r.try_get("rating")?,
        uncertainty: r.try_get("uncertainty")?,
        lists: to_u64(r.try_get("lists")?),
    })
}

const ACCOUNT_COLUMNS: &str = "account_id, name, owner, token_hash, disabled, max_tables, created_ms";

/// Placeholders `$first,...` for `n` values.
pub(super) fn placeholders(first: usize, n: usize) -> String {
    (first..first + n).map(|i| format!("${i}")).collect::<Vec<_>>().join(",")
}

impl Store {
    /// Adds an account; false when the name is taken.
    pub(crate) async fn create_account(&self, a: &Account) -> Result<bool, StoreError> {
        if self.account_by_name(a.name.as_str()).await?.is_some() {
            return Ok(false);
        }
        let done = sqlx::query(&format!(
            "INSERT INTO skat_accounts ({ACCOUNT_COLUMNS}) VALUES ($1,$2,$3,$4,$5,$6,$7) ON CONFLICT (name) DO NOTHING"
        ))
        .bind(a.account_id.as_str())
        .bind(a.name.as_str())
        .bind(a.owner.as_str())
        .bind(a.token_hash.to_string())
        .bind(i64::from(a.disabled))
        .bind(i64::from(a.max_tables))
        .bind(to_i64(a.created_ms))
        .execute(&self.pool)
        .await?;
        Ok(done.rows_affected() == 1)
    }

    /// The account whose bot token has this hash.
    pub(crate) async fn account_by_token(
        &self,
        token_hash: &TokenHash,
    ) -> Result<Option<Account>, StoreError> {
        let sql = format!("SELECT {ACCOUNT_COLUMNS} FROM skat_accounts WHERE token_hash = $1");
        let row = sqlx::query(&sql).bind(token_hash.to_string()).fetch_optional(&self.pool).await?;
        Ok(row.as_ref().map(account_from).transpose()?)
    }

    /// The account with this name.
    pub(crate) async fn account_by_name(&self, name: &str) -> Result<Option<Account>, StoreError> {
        let sql = format!("SELECT {ACCOUNT_COLUMNS} FROM skat_accounts WHERE name = $1");
        let row = sqlx::query(&sql).bind(name).fetch_optional(&self.pool).await?;
        Ok(row.as_ref().map(account_from).transpose()?)
    }

    /// These accounts (those that exist), in one query.
    pub(crate) async fn accounts(
        &self,
        ids: &[AccountId],
    ) -> Result<HashMap<AccountId, Account>, StoreError> {
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
            for row in q.fetch_all(&self.pool).await? {
                let a = account_from(&row)?;
                out.insert(a.account_id.clone(), a);
            }
        }
        Ok(out)
    }

    /// Disables or enables an account, gives it a new token hash or a new quota; false
    /// when no such account.
    pub(crate) async fn update_account(
        &self,
        name: &str,
        disabled: Option<bool>,
        token_hash: Option<&TokenHash>,
        max_tables: Option<u32>,
    ) -> Result<bool, StoreError> {
        let Some(a) = self.account_by_name(name).await? else { return Ok(false) };
        sqlx::query(
            "UPDATE skat_accounts SET disabled = $1, token_hash = $2, max_tables = $3 WHERE account_id = $4",
        )
        .bind(i64::from(disabled.unwrap_or(a.disabled)))
        .bind(token_hash.unwrap_or(&a.token_hash).to_string())
        .bind(i64::from(max_tables.unwrap_or(a.max_tables)))
        .bind(a.account_id.as_str())
        .execute(&self.pool)
        .await?;
        Ok(true)
    }

    /// The current rating of this account (absent: not rated yet).
    pub(crate) async fn rating_of(&self, account: &AccountId) -> Result<Option<Rating>, StoreError> {
        let row = sqlx::query("SELECT rating, uncertainty, lists FROM skat_ratings WHERE account_id = $1")
            .bind(account.as_str())
            .fetch_optional(&self.pool)
            .await?;
        Ok(row.as_ref().map(rating_from).transpose()?)
    }

    /// A page of the leaderboard: by conservative rating (mu - 3 sigma), best first.
    pub(crate) async fn leaderboard(&self, offset: u64, limit: u64) -> Result<Vec<RatedAccount>, StoreError> {
        let rows = sqlx::query(
            "SELECT a.name, r.rating, r.uncertainty, r.lists FROM skat_ratings r \
             JOIN skat_accounts a ON a.account_id = r.account_id \
             ORDER BY (r.rating - 3 * r.uncertainty) DESC, a.name LIMIT $1 OFFSET $2",
        )
        .bind(to_i64(limit))
        .bind(to_i64(offset))
        .fetch_all(&self.pool)
        .await?;
        rows.iter()
            .map(|r| Ok(RatedAccount { name: BotName::stored(r.try_get("name")?), rating: rating_from(r)? }))
            .collect::<Result<_, sqlx::Error>>()
            .map_err(StoreError::from)
    }

    /// An account's rating history, oldest first.
    pub(crate) async fn rating_history(
        &self,
        account_id: &AccountId,
    ) -> Result<Vec<RatingPoint>, StoreError> {
        let rows = sqlx::query(
            "SELECT at_ms, table_id, rating, uncertainty FROM skat_rating_history WHERE account_id = $1 ORDER BY at_ms",
        )
        .bind(account_id.as_str())
        .fetch_all(&self.pool)
        .await?;
        rows.iter()
            .map(|r| {
                Ok(RatingPoint {
                    at_ms: to_u64(r.try_get("at_ms")?),
                    table_id: r.try_get("table_id")?,
                    rating: Rating {
                        rating: r.try_get("rating")?,
                        uncertainty: r.try_get("uncertainty")?,
                        lists: 0,
                    },
                })
            })
            .collect::<Result<_, sqlx::Error>>()
            .map_err(StoreError::from)
    }
}
