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

use super::{Db, StoreError};

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

/// Replicas, their epochs and leases, and the takeover of a dead one's tables.
#[derive(Debug, Clone)]
pub struct NodeRepo {
    pub(super) db: Db,
}

impl NodeRepo {
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
        .fetch_one(&self.db.pool)
        .await?;
        Ok(NodeLease { node: node.to_string(), epoch: row.try_get("epoch")? })
    }

    /// Renews `lease` until `until_ms`: `Fenced` when its epoch is over.
    pub async fn renew_lease(&self, lease: &NodeLease, until_ms: i64) -> Result<(), StoreError> {
        let mut conn = self.db.pool.acquire().await?;
        if renew_in(&mut conn, lease, until_ms).await? { Ok(()) } else { Err(fenced(lease)) }
    }

    /// Whether `lease`'s epoch is still the current one (a read: it renews nothing).
    pub async fn holds(&self, lease: &NodeLease) -> Result<bool, StoreError> {
        let row = sqlx::query("SELECT epoch FROM skat_nodes WHERE node = $1")
            .bind(lease.node.as_str())
            .fetch_optional(&self.db.pool)
            .await?;
        Ok(match row {
            Some(row) => row.try_get::<i64, _>("epoch")? == lease.epoch,
            None => false,
        })
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
        .fetch_all(&self.db.pool)
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
        let mut tx = self.db.pool.begin().await?;
        if self.db.backend == super::Backend::Postgres {
            // Waits for a lapsed replica's row locks at most a quarter lease, so that this
            // replica's own renewals go on; the next look tries again (and a frozen
            // replica's transaction is ended after half a lease: `Store::open_replica`).
            let quarter = (until_ms.saturating_sub(now_ms) / 4).max(1);
            sqlx::query("SELECT set_config('lock_timeout', $1, true)")
                .bind(format!("{quarter}ms"))
                .execute(&mut *tx)
                .await?;
        }
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
        // Its hot log under its tables' key: nothing more of it can commit now (every
        // commit of its renews the epoch just ended), and the rebuild reads by key.
        super::log::settle_in(&mut tx, dead).await?;
        tx.commit().await?;
        Ok(ids)
    }
}

/// The refusal of a write by a replica whose lease was taken over.
pub fn fenced(lease: &NodeLease) -> StoreError {
    StoreError::Fenced { node: lease.node.clone(), epoch: lease.epoch }
}

#[cfg(test)]
pub(crate) mod tests {
    use crate::Store;
    use std::time::{Duration, Instant};

    use super::*;
    use crate::tables::unix_ms_now;
    use crate::to_i64;

    /// A fresh database on the test PostgreSQL server (`SKAT_TEST_POSTGRES`); None (the
    /// test is skipped) without one, unless `SKAT_REQUIRE_POSTGRES` says it must run.
    pub async fn database(name: &str) -> Option<String> {
        let Ok(admin) = std::env::var("SKAT_TEST_POSTGRES") else {
            assert!(std::env::var_os("SKAT_REQUIRE_POSTGRES").is_none(), "SKAT_TEST_POSTGRES is not set");
            return None;
        };
        sqlx::any::install_default_drivers();
        let name = format!("{name}_{}", std::process::id());
        let pool = sqlx::AnyPool::connect(&admin).await.unwrap();
        sqlx::query(&format!("DROP DATABASE IF EXISTS {name}")).execute(&pool).await.unwrap();
        sqlx::query(&format!("CREATE DATABASE {name}")).execute(&pool).await.unwrap();
        pool.close().await;
        let (base, _) = admin.rsplit_once('/').unwrap();
        Some(format!("{base}/{name}"))
    }

    /// A replica frozen in the middle of a commit (its lease's row renewed and locked,
    /// the transaction never finished) does not hold the other's takeover up for as long
    /// as it stays frozen: PostgreSQL ends the frozen transaction after half a lease, the
    /// takeover goes through at a later look, and the frozen commit cannot finish.
    #[tokio::test]
    async fn a_replica_frozen_mid_commit_does_not_hold_a_takeover_up() {
        let Some(url) = database("skat_frozen_commit").await else { return };
        let lease = Duration::from_secs(1);
        let ms = lease.as_millis() as i64;
        let a = Store::open_replica(&url, lease).await.unwrap();
        let b = Store::open_replica(&url, lease).await.unwrap();
        let now = to_i64(unix_ms_now());
        let on_a = a.nodes.register_node("a", now, now + ms).await.unwrap();
        let on_b = b.nodes.register_node("b", now, now + ms).await.unwrap();

        let mut frozen = a.db.pool.begin().await.unwrap();
        assert!(renew_in(&mut frozen, &on_a, now + ms).await.unwrap());
        tokio::time::sleep(lease + Duration::from_millis(100)).await;

        // b's looks, a quarter lease apart, as the takeover loop makes them.
        let started = Instant::now();
        let mut refused = Vec::new();
        loop {
            let now = to_i64(unix_ms_now());
            match b.nodes.take_over("a", &on_b, now, now + ms).await {
                Ok(_) => break,
                Err(e @ StoreError::Fenced { .. }) => panic!("b lost its own lease: {e}"),
                Err(e) => refused.push(e.to_string()),
            }
            assert!(started.elapsed() < Duration::from_secs(10), "no takeover in 10 s: {refused:?}");
            tokio::time::sleep(lease / 4).await;
        }
        assert!(!a.nodes.holds(&on_a).await.unwrap(), "a's epoch is over");
        assert!(b.nodes.holds(&on_b).await.unwrap(), "b's is not");
        assert!(frozen.commit().await.is_err(), "a's frozen commit cannot finish");
    }
}
