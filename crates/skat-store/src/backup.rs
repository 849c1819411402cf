//! A consistent copy of a SQLite journal, taken while the server runs: SQLite's `VACUUM
//! INTO` writes a snapshot of one read transaction to a new file (every table, tournament,
//! account and rating as they stood at one moment, never half of a commit); the copy is
//! then opened, checked (`PRAGMA integrity_check`) and counted, so a backup that cannot be
//! restored is known at once. It lives with the store because it names the store's tables;
//! `skat backup` is its command. PostgreSQL is backed up with its own tools (docs/deploy.md).

use std::path::Path;

use sqlx::Connection;
use sqlx::sqlite::{SqliteConnectOptions, SqliteConnection};

use super::StoreError;

/// What a backup holds, by table of the journal: (table, what a person calls its rows).
const COUNTED: [(&str, &str); 5] = [
    ("skat_tables", "tables"),
    ("skat_tournaments", "tournaments"),
    ("skat_accounts", "accounts"),
    ("skat_ratings", "ratings"),
    ("skat_rating_history", "rating changes"),
];

/// Copies the journal at `source` to the new file `out` (which must not exist) and checks
/// the copy: what it holds, as (count, what) pairs.
pub async fn sqlite(source: &Path, out: &Path) -> Result<Vec<(i64, &'static str)>, StoreError> {
    let target = out.to_str().ok_or_else(|| StoreError::Setting("the backup's path must be UTF-8".into()))?;
    let options = SqliteConnectOptions::new()
        .filename(source)
        .read_only(true)
        .busy_timeout(std::time::Duration::from_secs(10));
    let mut db = SqliteConnection::connect_with(&options).await?;
    sqlx::query("VACUUM INTO ?").bind(target).execute(&mut db).await?;
    db.close().await?;
    let mut copy =
        SqliteConnection::connect_with(&SqliteConnectOptions::new().filename(out).read_only(true)).await?;
    let (integrity,): (String,) = sqlx::query_as("PRAGMA integrity_check").fetch_one(&mut copy).await?;
    if integrity != "ok" {
        return Err(StoreError::Corrupt(format!("the copy fails its integrity check: {integrity}")));
    }
    let mut counts = Vec::new();
    for (table, what) in COUNTED {
        let (n,): (i64,) =
            sqlx::query_as(&format!("SELECT count(*) FROM {table}")).fetch_one(&mut copy).await?;
        counts.push((n, what));
    }
    copy.close().await?;
    Ok(counts)
}
