//! The audit log's SQL (`skat_audit`): one row per thing done with the admin token.
//! Written by the competitions after the change itself succeeded; read newest first.

use sqlx::Row as _;

use super::{Db, StoreError, to_i64, to_u64};

/// One thing done with the admin token.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AuditEntry {
    /// Unix milliseconds.
    pub at_ms: u64,
    /// Who (`admin`).
    pub actor: String,
    /// The client's address.
    pub peer: String,
    /// What (`update-bot`, ...).
    pub action: String,
    /// On what (an account name, a tournament id).
    pub target: String,
    /// The change in words (never a token).
    pub detail: String,
}

/// What was done with the admin token.
#[derive(Debug, Clone)]
pub struct AuditRepo {
    pub(super) db: Db,
}

impl AuditRepo {
    /// Adds an entry under a fresh random id.
    pub async fn audit(&self, entry_id: &str, e: &AuditEntry) -> Result<(), StoreError> {
        sqlx::query(
            "INSERT INTO skat_audit (entry_id, at_ms, actor, peer, action, target, detail) VALUES ($1,$2,$3,$4,$5,$6,$7)",
        )
        .bind(entry_id)
        .bind(to_i64(e.at_ms))
        .bind(e.actor.as_str())
        .bind(e.peer.as_str())
        .bind(e.action.as_str())
        .bind(e.target.as_str())
        .bind(e.detail.as_str())
        .execute(&self.db.pool)
        .await?;
        Ok(())
    }

    /// A page of entries, newest first; only those about `target` when it is not empty.
    pub async fn audit_log(
        &self,
        target: &str,
        offset: u64,
        limit: u64,
    ) -> Result<Vec<AuditEntry>, StoreError> {
        let rows = sqlx::query(
            "SELECT at_ms, actor, peer, action, target, detail FROM skat_audit WHERE ($1 = '' OR target = $1) \
             ORDER BY at_ms DESC, entry_id LIMIT $2 OFFSET $3",
        )
        .bind(target)
        .bind(to_i64(limit))
        .bind(to_i64(offset))
        .fetch_all(&self.db.pool)
        .await?;
        rows.iter()
            .map(|r| {
                Ok(AuditEntry {
                    at_ms: to_u64(r.try_get("at_ms")?),
                    actor: r.try_get("actor")?,
                    peer: r.try_get("peer")?,
                    action: r.try_get("action")?,
                    target: r.try_get("target")?,
                    detail: r.try_get("detail")?,
                })
            })
            .collect::<Result<_, sqlx::Error>>()
            .map_err(StoreError::from)
    }
}
