//! The ratings' SQL, all of it: current ratings (`skat_ratings`) and their history
//! (`skat_rating_history`). Rows in, rows out: how a rating moves is decided by
//! `skat-league` (the competitions' results call it); the update of a finished list is
//! written inside the tournaments' transaction that records the list ([`record`]).

use skat_league::rating::Rating;
use skat_league::{AccountId, BotName};
use sqlx::Row as _;
use sqlx::any::AnyRow;

use super::{Db, StoreError, to_i64, to_u64};

/// A leaderboard row: an account's name and rating.
#[derive(Debug, Clone, PartialEq)]
pub struct RatedAccount {
    /// The account's name.
    pub name: BotName,
    /// Its rating.
    pub rating: Rating,
}

/// One point of an account's rating history.
#[derive(Debug, Clone, PartialEq)]
pub struct RatingPoint {
    /// Unix milliseconds.
    pub at_ms: u64,
    /// The list that moved it.
    pub table_id: String,
    /// The rating after it (`lists` is not kept per point: 0).
    pub rating: Rating,
}

/// A new rating, for `finish_table`.
#[derive(Debug, Clone, PartialEq)]
pub struct NewRating {
    /// Whose.
    pub account_id: AccountId,
    /// The rating after the list.
    pub rating: Rating,
}

pub(super) fn rating_from(r: &AnyRow) -> Result<Rating, sqlx::Error> {
    Ok(Rating {
        rating: r.try_get("rating")?,
        uncertainty: r.try_get("uncertainty")?,
        lists: to_u64(r.try_get("lists")?),
    })
}

/// An account's current rating (absent: not rated yet), read by `ex`: the pool, or the
/// transaction that is about to change it.
pub(super) async fn current<'e, E>(ex: E, account: &AccountId) -> Result<Option<Rating>, sqlx::Error>
where
    E: sqlx::Executor<'e, Database = sqlx::Any>,
{
    let row = sqlx::query("SELECT rating, uncertainty, lists FROM skat_ratings WHERE account_id = $1")
        .bind(account.as_str())
        .fetch_optional(ex)
        .await?;
    row.as_ref().map(rating_from).transpose()
}

/// Writes the ratings a finished list moved, with a point of history each, inside the
/// transaction that records the list.
pub(super) async fn record(
    conn: &mut sqlx::AnyConnection,
    updates: &[NewRating],
    table_id: &str,
    at_ms: u64,
) -> Result<(), sqlx::Error> {
    for NewRating { account_id: account, rating } in updates {
        sqlx::query(
            "INSERT INTO skat_ratings (account_id, rating, uncertainty, lists, updated_ms) VALUES ($1,$2,$3,$4,$5) \
             ON CONFLICT (account_id) DO UPDATE SET rating = excluded.rating, uncertainty = excluded.uncertainty, \
             lists = excluded.lists, updated_ms = excluded.updated_ms",
        )
        .bind(account.as_str())
        .bind(rating.rating)
        .bind(rating.uncertainty)
        .bind(to_i64(rating.lists))
        .bind(to_i64(at_ms))
        .execute(&mut *conn)
        .await?;
        sqlx::query(
            "INSERT INTO skat_rating_history (account_id, at_ms, table_id, rating, uncertainty) VALUES ($1,$2,$3,$4,$5)",
        )
        .bind(account.as_str())
        .bind(to_i64(at_ms))
        .bind(table_id)
        .bind(rating.rating)
        .bind(rating.uncertainty)
        .execute(&mut *conn)
        .await?;
    }
    Ok(())
}

/// The ratings: what the leaderboard, an account's page and the operator's list read.
#[derive(Debug, Clone)]
pub struct RatingRepo {
    pub(super) db: Db,
}

impl RatingRepo {
    /// The current rating of this account (absent: not rated yet).
    pub async fn rating_of(&self, account: &AccountId) -> Result<Option<Rating>, StoreError> {
        Ok(current(&self.db.pool, account).await?)
    }

    /// A page of the leaderboard: by conservative rating (mu - 3 sigma), best first.
    pub async fn leaderboard(&self, offset: u64, limit: u64) -> Result<Vec<RatedAccount>, StoreError> {
        let rows = sqlx::query(
            "SELECT a.name, r.rating, r.uncertainty, r.lists FROM skat_ratings r \
             JOIN skat_accounts a ON a.account_id = r.account_id WHERE a.removed_ms = 0 \
             ORDER BY (r.rating - 3 * r.uncertainty) DESC, a.name LIMIT $1 OFFSET $2",
        )
        .bind(to_i64(limit))
        .bind(to_i64(offset))
        .fetch_all(&self.db.pool)
        .await?;
        rows.iter()
            .map(|r| Ok(RatedAccount { name: BotName::stored(r.try_get("name")?), rating: rating_from(r)? }))
            .collect::<Result<_, sqlx::Error>>()
            .map_err(StoreError::from)
    }

    /// An account's rating history, oldest first.
    pub async fn rating_history(&self, account_id: &AccountId) -> Result<Vec<RatingPoint>, StoreError> {
        let rows = sqlx::query(
            "SELECT at_ms, table_id, rating, uncertainty FROM skat_rating_history WHERE account_id = $1 ORDER BY at_ms",
        )
        .bind(account_id.as_str())
        .fetch_all(&self.db.pool)
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
