//! The tables' SQL: the journal's entries (`skat_entries`) and the listing rows
//! (`skat_tables`). Rows in, rows out: no table, no rule.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use sqlx::Row as _;
use sqlx::any::AnyRow;

use super::log::Batch;
use super::nodes::{NodeLease, fenced, renew_in};
use super::{Db, StoreError, to_i64, to_u64};

const TABLE_COLUMNS: &str = "table_id, owner, name, seats, deals, private, status, occupied, deals_played, players, created_ms, finished_ms, scores";

/// Where a table is in its life, as listings show it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RowStatus {
    /// Seats are open.
    Waiting,
    /// Playing its list.
    Playing,
    /// Every deal played.
    Finished,
    /// Dropped unfinished (nobody acted for the expiry time).
    Abandoned,
}

impl RowStatus {
    fn as_str(self) -> &'static str {
        match self {
            RowStatus::Waiting => "waiting",
            RowStatus::Playing => "playing",
            RowStatus::Finished => "finished",
            RowStatus::Abandoned => "abandoned",
        }
    }

    /// Finished or abandoned: the table changes no more.
    pub fn ended(self) -> bool {
        matches!(self, RowStatus::Finished | RowStatus::Abandoned)
    }

    fn parse(s: &str) -> RowStatus {
        match s {
            "waiting" => RowStatus::Waiting,
            "playing" => RowStatus::Playing,
            "finished" => RowStatus::Finished,
            _ => RowStatus::Abandoned,
        }
    }
}

/// One table's summary row.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TableRow {
    /// The table id.
    pub table_id: String,
    /// The replica that owns it (`""` without a node id).
    pub owner: String,
    /// Its name.
    pub name: String,
    /// 3 or 4.
    pub seats: u8,
    /// Deals in the list.
    pub deals: u32,
    /// Whether JoinTable needs a join code.
    pub private: bool,
    /// Where it is in its life.
    pub status: RowStatus,
    /// Seats taken.
    pub occupied: u32,
    /// Deals finished.
    pub deals_played: u32,
    /// Names by seat (empty for an open seat).
    pub players: Vec<String>,
    /// Seeger-Fabian totals by seat.
    pub scores: Vec<i32>,
    /// Unix milliseconds.
    pub created_ms: u64,
    /// Unix milliseconds when it finished or was abandoned; 0 before.
    pub finished_ms: u64,
}

/// One stored input.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredEntry {
    /// The table.
    pub table_id: String,
    /// Its number in the table's journal (0: created).
    pub n: u64,
    /// Unix milliseconds.
    pub at_ms: u64,
    /// The input as JSON.
    pub body: String,
    /// [`checksum`] of the above.
    pub checksum: String,
}

impl StoredEntry {
    /// An entry with its checksum.
    pub fn new(table_id: String, n: u64, at_ms: u64, body: String) -> StoredEntry {
        let checksum = checksum(&table_id, n, at_ms, &body);
        StoredEntry { table_id, n, at_ms, body, checksum }
    }

    /// Whether the entry is as it was written (a torn or altered row is not).
    pub fn intact(&self) -> bool {
        self.checksum == checksum(&self.table_id, self.n, self.at_ms, &self.body)
    }
}

/// SHA-256 over an entry's fields (hex): detects a row that was torn or altered.
pub fn checksum(table_id: &str, n: u64, at_ms: u64, body: &str) -> String {
    use sha2::Digest as _;
    let mut h = sha2::Sha256::new();
    h.update(table_id.as_bytes());
    h.update([0]);
    h.update(n.to_le_bytes());
    h.update(at_ms.to_le_bytes());
    h.update(body.as_bytes());
    // Written digit by digit into one string: this runs for every input a busy server
    // journals, and a `format!` per byte was 33 allocations each.
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let mut hex = String::with_capacity(64);
    for b in h.finalize() {
        hex.push(char::from(HEX[usize::from(b >> 4)]));
        hex.push(char::from(HEX[usize::from(b & 15)]));
    }
    hex
}

/// Which tables a listing wants.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ListFilter {
    /// Every table.
    #[default]
    All,
    /// Waiting or playing.
    Live,
    /// Finished.
    Finished,
}

impl ListFilter {
    fn sql(self) -> &'static str {
        match self {
            ListFilter::All => "1 = 1",
            ListFilter::Live => "status IN ('waiting', 'playing')",
            ListFilter::Finished => "status = 'finished'",
        }
    }
}

/// A listing's position: the last row of the previous page (newest first).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cursor {
    /// Its creation time.
    pub created_ms: u64,
    /// Its id.
    pub table_id: String,
}

/// The journal writer's connection, the owner it writes the log as, and with replicas
/// the lease every commit renews (the fence: see [`super::nodes`]).
#[derive(Debug)]
pub struct Writer {
    pub(super) conn: sqlx::pool::PoolConnection<sqlx::Any>,
    pub(super) backend: super::Backend,
    pub(super) owner: String,
    pub(super) fence: Option<(NodeLease, Duration)>,
}

impl Writer {
    /// Writes a batch atomically: one statement on its own when it can (new inputs only,
    /// no BEGIN and COMMIT round trips), else one transaction. Either way one commit,
    /// one fsync. With a fence, always a transaction that first renews the lease:
    /// `Fenced` (and nothing written) when the replica's epoch is over.
    pub async fn write(&mut self, batch: &Batch<'_>) -> Result<(), StoreError> {
        if self.fence.is_none() && batch.one_statement() {
            super::log::append(&mut self.conn, self.backend, &self.owner, batch.first_seq, batch.log).await?;
            return Ok(());
        }
        let mut tx = sqlx::Connection::begin(&mut *self.conn).await?;
        if let Some((lease, length)) = &self.fence {
            let until = to_i64(unix_ms_now().saturating_add(length.as_millis() as u64));
            if !renew_in(&mut tx, lease, until).await? {
                return Err(fenced(lease));
            }
        }
        super::log::write_parts(&mut tx, self.backend, &self.owner, batch).await?;
        for row in batch.rows {
            upsert_row(&mut tx, row).await?;
        }
        tx.commit().await?;
        Ok(())
    }
}

/// Now, in Unix milliseconds.
pub fn unix_ms_now() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_millis() as u64)
}

async fn upsert_row(conn: &mut sqlx::AnyConnection, row: &TableRow) -> Result<(), sqlx::Error> {
    let sql = format!(
        "INSERT INTO skat_tables ({TABLE_COLUMNS}) VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11,$12,$13) \
         ON CONFLICT (table_id) DO UPDATE SET status = excluded.status, occupied = excluded.occupied, \
         deals_played = excluded.deals_played, players = excluded.players, finished_ms = excluded.finished_ms, \
         scores = excluded.scores"
    );
    sqlx::query(&sql)
        .bind(row.table_id.as_str())
        .bind(row.owner.as_str())
        .bind(row.name.as_str())
        .bind(i64::from(row.seats))
        .bind(i64::from(row.deals))
        .bind(i64::from(row.private))
        .bind(row.status.as_str())
        .bind(i64::from(row.occupied))
        .bind(i64::from(row.deals_played))
        .bind(serde_json::to_string(&row.players).unwrap_or_else(|_| "[]".into()))
        .bind(to_i64(row.created_ms))
        .bind(to_i64(row.finished_ms))
        .bind(serde_json::to_string(&row.scores).unwrap_or_else(|_| "[]".into()))
        .execute(conn)
        .await?;
    Ok(())
}

/// Tables: their inputs (`skat_entries`) and their listing rows (`skat_tables`).
#[derive(Debug, Clone)]
pub struct TableRepo {
    pub(super) db: Db,
}

impl TableRepo {
    /// Writes entries under their key and table rows in one transaction (outside the
    /// journal's writer: tests, benches, tools).
    pub async fn write(&self, entries: &[StoredEntry], rows: &[TableRow]) -> Result<(), StoreError> {
        let mut tx = self.db.pool.begin().await?;
        super::log::archive(&mut tx, self.db.backend, entries).await?;
        for row in rows {
            upsert_row(&mut tx, row).await?;
        }
        tx.commit().await?;
        Ok(())
    }

    fn row_from(r: &AnyRow) -> Result<TableRow, sqlx::Error> {
        let players: String = r.try_get("players")?;
        Ok(TableRow {
            table_id: r.try_get("table_id")?,
            owner: r.try_get("owner")?,
            name: r.try_get("name")?,
            seats: u8::try_from(r.try_get::<i64, _>("seats")?).unwrap_or(3),
            deals: u32::try_from(r.try_get::<i64, _>("deals")?).unwrap_or(0),
            private: r.try_get::<i64, _>("private")? != 0,
            status: RowStatus::parse(&r.try_get::<String, _>("status")?),
            occupied: u32::try_from(r.try_get::<i64, _>("occupied")?).unwrap_or(0),
            deals_played: u32::try_from(r.try_get::<i64, _>("deals_played")?).unwrap_or(0),
            players: serde_json::from_str(&players).unwrap_or_default(),
            scores: serde_json::from_str(&r.try_get::<String, _>("scores")?).unwrap_or_default(),
            created_ms: to_u64(r.try_get("created_ms")?),
            finished_ms: to_u64(r.try_get("finished_ms")?),
        })
    }

    /// The tables `owner` must bring back on start: every one waiting or playing, and
    /// those finished at or after `finished_since_ms` (still within their expiry).
    pub async fn tables_to_recover(
        &self,
        owner: &str,
        finished_since_ms: u64,
    ) -> Result<Vec<TableRow>, StoreError> {
        let sql = format!(
            "SELECT {TABLE_COLUMNS} FROM skat_tables WHERE owner = $1 AND \
             (status IN ('waiting', 'playing') OR (status = 'finished' AND finished_ms >= $2)) ORDER BY created_ms"
        );
        let rows =
            sqlx::query(&sql).bind(owner).bind(to_i64(finished_since_ms)).fetch_all(&self.db.pool).await?;
        Ok(rows.iter().map(TableRepo::row_from).collect::<Result<_, _>>()?)
    }

    /// One table's row.
    pub async fn row(&self, table_id: &str) -> Result<Option<TableRow>, StoreError> {
        let sql = format!("SELECT {TABLE_COLUMNS} FROM skat_tables WHERE table_id = $1");
        let row = sqlx::query(&sql).bind(table_id).fetch_optional(&self.db.pool).await?;
        Ok(row.as_ref().map(TableRepo::row_from).transpose()?)
    }

    /// One table's entries in order, from `skat_entries` and the hot log together (one
    /// statement: one snapshot). A number found in both (moved, not yet forgotten) is
    /// taken once, preferring an intact copy.
    pub async fn entries(&self, table_id: &str) -> Result<Vec<StoredEntry>, StoreError> {
        let rows = sqlx::query(
            "SELECT table_id, n, at_ms, body, checksum FROM skat_entries WHERE table_id = $1 \
             UNION ALL SELECT table_id, n, at_ms, body, checksum FROM skat_log WHERE table_id = $1 ORDER BY n",
        )
        .bind(table_id)
        .fetch_all(&self.db.pool)
        .await?;
        let mut out: Vec<StoredEntry> = Vec::with_capacity(rows.len());
        for r in &rows {
            let e = StoredEntry {
                table_id: r.try_get("table_id")?,
                n: to_u64(r.try_get("n")?),
                at_ms: to_u64(r.try_get("at_ms")?),
                body: r.try_get("body")?,
                checksum: r.try_get("checksum")?,
            };
            match out.last_mut() {
                Some(last) if last.n == e.n => {
                    if !last.intact() {
                        *last = e;
                    }
                }
                _ => out.push(e),
            }
        }
        Ok(out)
    }

    /// Removes a table's entries from number `n` on (a damaged tail), wherever they are;
    /// returns how many rows that was.
    pub async fn drop_entries_from(&self, table_id: &str, n: u64) -> Result<u64, StoreError> {
        let mut tx = self.db.pool.begin().await?;
        let mut dropped = 0;
        for target in ["skat_entries", "skat_log"] {
            let done = sqlx::query(&format!("DELETE FROM {target} WHERE table_id = $1 AND n >= $2"))
                .bind(table_id)
                .bind(to_i64(n))
                .execute(&mut *tx)
                .await?;
            dropped += done.rows_affected();
        }
        tx.commit().await?;
        Ok(dropped)
    }

    /// A page of tables, newest first, after `cursor`.
    pub async fn list(
        &self,
        filter: ListFilter,
        cursor: Option<&Cursor>,
        limit: usize,
    ) -> Result<Vec<TableRow>, StoreError> {
        let (c_ms, c_id) = match cursor {
            Some(c) => (to_i64(c.created_ms), c.table_id.as_str()),
            None => (i64::MAX, ""),
        };
        let sql = format!(
            "SELECT {TABLE_COLUMNS} FROM skat_tables WHERE {} AND \
             (created_ms < $1 OR (created_ms = $1 AND table_id < $2) OR $3 = 0) \
             ORDER BY created_ms DESC, table_id DESC LIMIT $4",
            filter.sql()
        );
        let rows = sqlx::query(&sql)
            .bind(c_ms)
            .bind(c_id)
            .bind(i64::from(cursor.is_some()))
            .bind(i64::try_from(limit).unwrap_or(1000))
            .fetch_all(&self.db.pool)
            .await?;
        Ok(rows.iter().map(TableRepo::row_from).collect::<Result<_, _>>()?)
    }

    /// Deletes finished and abandoned tables (rows, entries, analyses) that ended before
    /// `before_ms`, and challenges made before it that are no longer pending; returns how
    /// many tables. A few tables per transaction, with a pause between them, so that no
    /// single transaction holds SQLite's only write lock for the whole purge while the
    /// journal waits. The purge still costs: soaks show the action p99 rise in the
    /// minutes it runs (docs/BENCHMARKS.md).
    pub async fn purge_ended_before(&self, before_ms: u64) -> Result<u64, StoreError> {
        /// Tables per transaction: about 10,000 entries of 12-deal lists.
        const CHUNK: i64 = 20;
        // The oldest first, in a fixed order, so that every statement of a transaction
        // deletes from the same tables (nothing else deletes them, and a table that
        // finishes now has not ended before `before_ms`).
        let chunk = "SELECT table_id FROM skat_tables WHERE status IN ('finished', 'abandoned') \
             AND finished_ms < $1 ORDER BY finished_ms, table_id LIMIT $2";
        let mut deleted = 0;
        loop {
            let mut tx = self.db.pool.begin().await?;
            // Not `skat_log` (no index by table on SQLite): the writer forgets its log
            // within half a minute, and no move copies the rows of a table purged here
            // (`log::LISTED`), so none outlives its table.
            for target in ["skat_entries", "skat_analyses"] {
                sqlx::query(&format!("DELETE FROM {target} WHERE table_id IN ({chunk})"))
                    .bind(to_i64(before_ms))
                    .bind(CHUNK)
                    .execute(&mut *tx)
                    .await?;
            }
            let done = sqlx::query(&format!("DELETE FROM skat_tables WHERE table_id IN ({chunk})"))
                .bind(to_i64(before_ms))
                .bind(CHUNK)
                .execute(&mut *tx)
                .await?;
            tx.commit().await?;
            deleted += done.rows_affected();
            if done.rows_affected() < CHUNK as u64 {
                break;
            }
            // The journal's writer takes the lock in between.
            tokio::time::sleep(std::time::Duration::from_millis(10)).await;
        }
        // Challenges answered or expired that long ago go with the tables of their time.
        let mut tx = self.db.pool.begin().await?;
        let old_challenges = "SELECT challenge_id FROM skat_challenges WHERE created_ms < $1 \
             AND (state <> 'pending' OR expires_ms < $1)";
        sqlx::query(&format!(
            "DELETE FROM skat_challenge_opponents WHERE challenge_id IN ({old_challenges})"
        ))
        .bind(to_i64(before_ms))
        .execute(&mut *tx)
        .await?;
        sqlx::query(&format!("DELETE FROM skat_challenges WHERE challenge_id IN ({old_challenges})"))
            .bind(to_i64(before_ms))
            .execute(&mut *tx)
            .await?;
        tx.commit().await?;
        Ok(deleted)
    }
}

#[cfg(test)]
mod checksum_tests {
    /// The digest in hex, as every stored entry has it since the first journal: the
    /// faster writing must not change one character (old rows would read as damaged).
    #[test]
    fn the_checksum_is_the_sha256_in_lowercase_hex() {
        use sha2::Digest as _;
        let mut h = sha2::Sha256::new();
        h.update(b"t1\0");
        h.update(7u64.to_le_bytes());
        h.update(99u64.to_le_bytes());
        h.update(b"{\"x\":1}");
        let expected: String = h.finalize().iter().map(|b| format!("{b:02x}")).collect();
        assert_eq!(super::checksum("t1", 7, 99, "{\"x\":1}"), expected);
        assert_eq!(expected.len(), 64);
    }
}

#[cfg(test)]
mod purge_tests {
    use super::{RowStatus, StoredEntry, TableRow};
    use crate::Store;

    fn row(i: u32, status: RowStatus, finished_ms: u64) -> TableRow {
        TableRow {
            table_id: format!("t{i:03}"),
            owner: String::new(),
            name: "purge".into(),
            seats: 3,
            deals: 1,
            private: false,
            status,
            occupied: 3,
            deals_played: 1,
            players: vec!["a".into(), "b".into(), "c".into()],
            scores: vec![0, 0, 0],
            created_ms: 1,
            finished_ms,
        }
    }

    /// More tables than one transaction takes: every one that ended before the time goes
    /// (rows and entries), in several transactions; later ones and unfinished ones stay.
    #[tokio::test]
    async fn purges_in_chunks_exactly_the_tables_that_ended_before() {
        let dir = std::env::temp_dir().join(format!("skat-purge-test-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let store = Store::open_dir(&dir).await.expect("a database");
        let mut rows: Vec<TableRow> =
            (0..45).map(|i| row(i, RowStatus::Finished, 1_000 + u64::from(i))).collect();
        rows.extend((45..48).map(|i| row(i, RowStatus::Finished, 10_000)));
        rows.extend((48..50).map(|i| row(i, RowStatus::Playing, 0)));
        rows.push(row(50, RowStatus::Abandoned, 2_000));
        let entries: Vec<StoredEntry> = rows
            .iter()
            .flat_map(|r| (0..3).map(|n| StoredEntry::new(r.table_id.clone(), n, 1, "{}".into())))
            .collect();
        store.tables.write(&entries, &rows).await.expect("written");
        assert_eq!(store.tables.purge_ended_before(5_000).await.expect("purged"), 46);
        for r in &rows {
            let kept = store.tables.row(&r.table_id).await.expect("read").is_some();
            let entries = store.tables.entries(&r.table_id).await.expect("read").len();
            let ended_before = r.status.ended() && r.finished_ms < 5_000;
            assert_eq!(kept, !ended_before, "{}", r.table_id);
            assert_eq!(entries, if ended_before { 0 } else { 3 }, "{}", r.table_id);
        }
        assert_eq!(store.tables.purge_ended_before(5_000).await.expect("purged"), 0);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
