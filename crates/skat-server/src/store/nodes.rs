//! Replicas and their leases (`skat_nodes`): which replica may write which table, and
//! the epoch that fences one that lost its tables. Rows in, rows out.
//!
//! | rule | why |
//! |---|---|
//! | a replica registers on start with a new epoch (`epoch + 1`) | a process that is still running under the same node id with the old epoch is fenced by it |
//! | every journal commit first renews the lease of the epoch it holds, in the same transaction ([`renew_in`]); none renewed: the commit fails | a replica whose tables were taken over cannot write one more entry: the takeover changed the epoch under the same row lock |
//! | a takeover bumps the dead replica's epoch only if its lease ran out, and moves its waiting and playing tables in the same transaction, renewing the taker's own lease there too | exactly one replica takes a table over, and only a live one |
//!
//! Clocks: the lease's end is written by its holder's clock and read by the others'. Skew
//! between replicas can only make a takeover early or late by the skew; it cannot let two
//! replicas write one table, since the epoch, not the clock, fences.

use sqlx::Row as _;

use super::{Store, StoreError};

/// This replica's claim in the database: its node id and the epoch it registered with.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NodeLease {
    /// The node id (`--node-id`).
    pub node: String,
    /// The epoch of this process's registration.
    pub epoch: i64,
}

/// Renews `lease` until `until_ms` inside the caller's transaction; false when the epoch
/// is over (the replica was taken over, or started again elsewhere).
pub(super) async fn renew_in(
    conn: &mut sqlx::AnyConnection,
    lease: &NodeLease,
    until_ms: i64,
) -> Result<bool, sqlx::Error> {
    let done = sqlx::query("UPDATE skat_nodes SET lease_until_ms = $1 WHERE node = $2 AND epoch = $3")
        .bind(until_ms)
        .bind(lease.node.as_str())
        .bind(lease.epoch)
        .execute(conn)
        .await?;
    Ok(done.rows_affected() == 1)
}

impl Store {
    /// Registers `node` with a new epoch and a lease until `until_ms`.
    pub async fn register_node(
        &self,
        node: &str,
        now_ms: i64,
        until_ms: i64,
    ) -> Result<NodeLease, StoreError> {
        let row = sqlx::query(
            "INSERT INTO skat_nodes (node, epoch, lease_until_ms, started_ms) VALUES ($1, 1, $2, $3) \
             ON CONFLICT (node) DO UPDATE SET epoch = skat_nodes.epoch + 1, \
             lease_until_ms = excluded.lease_until_ms, started_ms = excluded.started_ms RETURNING epoch",
        )
        .bind(node)
        .bind(until_ms)
        .bind(now_ms)
        .fetch_one(&self.pool)
        .await?;
        Ok(NodeLease { node: node.to_string(), epoch: row.try_get("epoch")? })
    }

    /// Renews `lease` until `until_ms`: `Fenced` when its epoch is over.
    pub async fn renew_lease(&self, lease: &NodeLease, until_ms: i64) -> Result<(), StoreError> {
        let mut conn = self.pool.acquire().await?;
        if renew_in(&mut conn, lease, until_ms).await? { Ok(()) } else { Err(fenced(lease)) }
    }

    /// Replicas other than `me` whose lease ran out before `now_ms` and that still own
    /// waiting or playing tables.
    pub async fn lapsed_owners(&self, me: &str, now_ms: i64) -> Result<Vec<String>, StoreError> {
        let rows = sqlx::query(
            "SELECT DISTINCT n.node FROM skat_nodes n JOIN skat_tables t ON t.owner = n.node \
             WHERE n.node <> $1 AND n.lease_until_ms < $2 AND t.status IN ('waiting', 'playing') ORDER BY n.node",
        )
        .bind(me)
        .bind(now_ms)
        .fetch_all(&self.pool)
        .await?;
        Ok(rows.iter().map(|r| r.try_get("node")).collect::<Result<_, _>>()?)
    }

    /// Takes the waiting and playing tables of `dead` over for `me`, if `dead`'s lease
    /// ran out before `now_ms` (see the module header); returns their ids (none: another
    /// replica was first, or `dead` came back). `Fenced` if `me` itself lost its lease.
    pub async fn take_over(
        &self,
        dead: &str,
        me: &NodeLease,
        now_ms: i64,
        until_ms: i64,
    ) -> Result<Vec<String>, StoreError> {
        let mut tx = self.pool.begin().await?;
        if !renew_in(&mut tx, me, until_ms).await? {
            return Err(fenced(me));
        }
        let bumped = sqlx::query(
            "UPDATE skat_nodes SET epoch = epoch + 1 WHERE node = $1 AND node <> $2 AND lease_until_ms < $3",
        )
        .bind(dead)
        .bind(me.node.as_str())
        .bind(now_ms)
        .execute(&mut *tx)
        .await?;
        if bumped.rows_affected() != 1 {
            return Ok(Vec::new());
        }
        let rows = sqlx::query(
            "UPDATE skat_tables SET owner = $1 WHERE owner = $2 AND status IN ('waiting', 'playing') \
             RETURNING table_id",
        )
        .bind(me.node.as_str())
        .bind(dead)
        .fetch_all(&mut *tx)
        .await?;
        let ids = rows.iter().map(|r| r.try_get("table_id")).collect::<Result<Vec<String>, _>>()?;
        tx.commit().await?;
        Ok(ids)
    }
}

pub(super) fn fenced(lease: &NodeLease) -> StoreError {
    StoreError::Fenced { node: lease.node.clone(), epoch: lease.epoch }
}
