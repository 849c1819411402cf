//! The hot log's SQL (`skat_log`): where every input is written first, and how it moves
//! on into `skat_entries`. Rows in, rows out; when to move what is the journal writer's
//! business (the `skat-journal` crate's hot log).
//!
//! | rule | why |
//! |---|---|
//! | an input is appended to the log in the commit that makes it durable | a commit writes at the end of one b-tree, whatever tables it carries: a page or two, not one leaf of `skat_entries` per table |
//! | the writer moves a stretch of the log into `skat_entries` sorted by table, then forgets it (`seq <= upto`) | each table's leaf is written once per stretch, not once per action |
//! | moving is idempotent (`ON CONFLICT DO NOTHING`), and readers take the union of both, one copy per number | between a move and its forgetting a row is in both; a crash there loses and doubles nothing |
//! | a move skips the rows of a table that has no listing row any more | the retention may purge a table whose last inputs are still in the log; moved, they would be rows of no table, never purged |
//! | on start, and when taking a dead replica over, what its log still holds is moved at once ([`settle_in`]), up to the last `seq` seen | recovery then reads by key; a row appended meanwhile (none is expected) stays in the log |

use super::{Backend, Db, StoreError, StoredEntry, to_i64, to_u64};

/// A log row whose table still has its listing row. Every table's first commit writes
/// that row with its first inputs, so only a table the retention purged meanwhile has
/// none: its last inputs can still be in the log (a stretch is forgotten up to half a
/// minute after it was written), and moved they would outlive their table for good.
const LISTED: &str = "EXISTS (SELECT 1 FROM skat_tables t WHERE t.table_id = skat_log.table_id)";

/// Rows per INSERT statement (7 parameters each; well under both databases' limits).
pub(super) const ROWS_PER_STATEMENT: usize = 100;
/// Log rows per move statement (one parameter each).
const SEQS_PER_STATEMENT: usize = 1000;

/// `(?,?,..),(?,..)` on SQLite, `($first,..),(..)` on PostgreSQL, for `rows` rows of
/// `cols` parameters. Not `$N` on SQLite: the driver looks every numbered parameter's
/// name up, and SQLite finds a name by a walk through all of them, so binding a statement
/// of 500 numbered parameters took time quadratic in them (5% of a busy server's CPU,
/// docs/BENCHMARKS.md); anonymous parameters have no name to look up.
pub(super) fn placeholders(backend: Backend, first: usize, rows: usize, cols: usize) -> String {
    let mut sql = String::with_capacity(rows * cols * 5);
    for r in 0..rows {
        sql.push_str(if r == 0 { "(" } else { ",(" });
        for c in 0..cols {
            if c > 0 {
                sql.push(',');
            }
            match backend {
                Backend::Sqlite => sql.push('?'),
                Backend::Postgres => {
                    sql.push('$');
                    sql.push_str(&(first + r * cols + c).to_string());
                }
            }
        }
        sql.push(')');
    }
    sql
}

type Query<'q> = sqlx::query::Query<'q, sqlx::Any, sqlx::any::AnyArguments<'q>>;

/// Binds an entry's columns, in the order both tables name them: `table_id, n, at_ms,
/// body, checksum`.
fn bind_entry<'q>(q: Query<'q>, e: &'q StoredEntry) -> Query<'q> {
    q.bind(e.table_id.as_str())
        .bind(to_i64(e.n))
        .bind(to_i64(e.at_ms))
        .bind(e.body.as_str())
        .bind(e.checksum.as_str())
}

/// Appends `entries` to the log as `owner`'s, numbered from `first_seq` on.
pub(super) async fn append(
    conn: &mut sqlx::AnyConnection,
    backend: Backend,
    owner: &str,
    first_seq: u64,
    entries: &[StoredEntry],
) -> Result<(), sqlx::Error> {
    for (i, chunk) in entries.chunks(ROWS_PER_STATEMENT).enumerate() {
        let sql = format!(
            "INSERT INTO skat_log (seq, owner, table_id, n, at_ms, body, checksum) VALUES {}",
            placeholders(backend, 1, chunk.len(), 7)
        );
        let mut q = sqlx::query(&sql);
        let base = first_seq + (i * ROWS_PER_STATEMENT) as u64;
        for (j, e) in chunk.iter().enumerate() {
            q = bind_entry(q.bind(to_i64(base + j as u64)).bind(owner), e);
        }
        q.execute(&mut *conn).await?;
    }
    Ok(())
}

/// Writes `entries` under their key in `skat_entries` (those already there stay as
/// they are: a move repeated after a crash changes nothing).
pub(super) async fn archive(
    conn: &mut sqlx::AnyConnection,
    backend: Backend,
    entries: &[StoredEntry],
) -> Result<(), sqlx::Error> {
    for chunk in entries.chunks(ROWS_PER_STATEMENT) {
        let sql = format!(
            "INSERT INTO skat_entries (table_id, n, at_ms, body, checksum) VALUES {} \
             ON CONFLICT (table_id, n) DO NOTHING",
            placeholders(backend, 1, chunk.len(), 5)
        );
        let mut q = sqlx::query(&sql);
        for e in chunk {
            q = bind_entry(q, e);
        }
        q.execute(&mut *conn).await?;
    }
    Ok(())
}

/// Moves `owner`'s log rows numbered `seqs` into `skat_entries`, row to row in the
/// database (by table and number, so that each table's leaf is written once); those
/// already there stay as they are.
pub(super) async fn move_rows(
    conn: &mut sqlx::AnyConnection,
    backend: Backend,
    owner: &str,
    seqs: &[u64],
) -> Result<(), sqlx::Error> {
    for chunk in seqs.chunks(SEQS_PER_STATEMENT) {
        let owner_param = placeholders(backend, 1, 1, 1);
        let list = placeholders(backend, 2, 1, chunk.len());
        let sql = format!(
            "INSERT INTO skat_entries (table_id, n, at_ms, body, checksum) \
             SELECT table_id, n, at_ms, body, checksum FROM skat_log WHERE owner = {owner_param} AND seq IN {list} \
             AND {LISTED} ORDER BY table_id, n ON CONFLICT (table_id, n) DO NOTHING"
        );
        let mut q = sqlx::query(&sql).bind(owner);
        for seq in chunk {
            q = q.bind(to_i64(*seq));
        }
        q.execute(&mut *conn).await?;
    }
    Ok(())
}

/// Forgets `owner`'s log up to and including `upto` (moved already).
pub(super) async fn forget(
    conn: &mut sqlx::AnyConnection,
    owner: &str,
    upto: u64,
) -> Result<(), sqlx::Error> {
    sqlx::query("DELETE FROM skat_log WHERE owner = $1 AND seq <= $2")
        .bind(owner)
        .bind(to_i64(upto))
        .execute(conn)
        .await?;
    Ok(())
}

/// Moves what `owner`'s log holds into `skat_entries` and forgets it, inside the caller's
/// transaction; returns how many rows the log held. Bounded by the last `seq` read first,
/// so that a row committed between the statements is neither lost nor forgotten.
pub(super) async fn settle_in(conn: &mut sqlx::AnyConnection, owner: &str) -> Result<u64, sqlx::Error> {
    let upto: Option<i64> = sqlx::query_scalar("SELECT MAX(seq) FROM skat_log WHERE owner = $1")
        .bind(owner)
        .fetch_one(&mut *conn)
        .await?;
    let Some(upto) = upto else { return Ok(0) };
    sqlx::query(&format!(
        "INSERT INTO skat_entries (table_id, n, at_ms, body, checksum) \
         SELECT table_id, n, at_ms, body, checksum FROM skat_log WHERE owner = $1 AND seq <= $2 AND {LISTED} \
         ON CONFLICT (table_id, n) DO NOTHING"
    ))
    .bind(owner)
    .bind(upto)
    .execute(&mut *conn)
    .await?;
    let done = sqlx::query("DELETE FROM skat_log WHERE owner = $1 AND seq <= $2")
        .bind(owner)
        .bind(upto)
        .execute(&mut *conn)
        .await?;
    Ok(done.rows_affected())
}

/// The hot log's housekeeping: its length, its next sequence number, settling a replica's part.
#[derive(Debug, Clone)]
pub struct LogRepo {
    pub(super) db: Db,
}

impl LogRepo {
    /// Moves what `owner`'s log still holds into `skat_entries` (on start, before the
    /// tables are read back); returns how many rows that was.
    pub async fn settle_log(&self, owner: &str) -> Result<u64, StoreError> {
        let mut tx = self.db.pool.begin().await?;
        let moved = settle_in(&mut tx, owner).await?;
        tx.commit().await?;
        Ok(moved)
    }

    /// The first `seq` a new writer may use: past every row in the log.
    pub async fn log_next_seq(&self) -> Result<u64, StoreError> {
        let max: Option<i64> =
            sqlx::query_scalar("SELECT MAX(seq) FROM skat_log").fetch_one(&self.db.pool).await?;
        Ok(max.map_or(1, |m| to_u64(m) + 1))
    }

    /// Rows in the log (every replica's).
    #[cfg(test)]
    pub async fn log_len(&self) -> Result<u64, StoreError> {
        let n: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM skat_log").fetch_one(&self.db.pool).await?;
        Ok(to_u64(n))
    }
}

/// What one commit of the journal's writer carries.
#[derive(Debug, Clone, Copy, Default)]
pub struct Batch<'a> {
    /// New inputs, for the log.
    pub log: &'a [StoredEntry],
    /// The `seq` of the first of them (the rest follow one by one).
    pub first_seq: u64,
    /// The `seq`s of log rows to move into `skat_entries`.
    pub moves: &'a [u64],
    /// Forget the writer's log up to this `seq` (moved already).
    pub forget_upto: Option<u64>,
    /// Listing rows.
    pub rows: &'a [super::TableRow],
}

impl Batch<'_> {
    /// Nothing to write.
    pub fn is_empty(&self) -> bool {
        self.log.is_empty() && self.moves.is_empty() && self.forget_upto.is_none() && self.rows.is_empty()
    }

    /// Only new inputs, few enough for one statement.
    pub(super) fn one_statement(&self) -> bool {
        self.moves.is_empty()
            && self.forget_upto.is_none()
            && self.rows.is_empty()
            && self.log.len() <= ROWS_PER_STATEMENT
    }
}

/// The log's part of one batch (appends, moves, forgetting), inside the caller's
/// transaction.
pub(super) async fn write_parts(
    conn: &mut sqlx::AnyConnection,
    backend: Backend,
    owner: &str,
    batch: &Batch<'_>,
) -> Result<(), sqlx::Error> {
    append(conn, backend, owner, batch.first_seq, batch.log).await?;
    move_rows(conn, backend, owner, batch.moves).await?;
    if let Some(upto) = batch.forget_upto {
        forget(conn, owner, upto).await?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Store;
    use crate::nodes::tests::database;

    fn entry(table: &str, n: u64) -> StoredEntry {
        StoredEntry::new(table.into(), n, 1_000 + n, format!("{{\"input\":{n}}}"))
    }

    async fn in_entries(store: &Store) -> i64 {
        sqlx::query_scalar("SELECT COUNT(*) FROM skat_entries").fetch_one(&store.db.pool).await.unwrap()
    }

    fn listed(table: &str) -> super::super::TableRow {
        super::super::TableRow {
            table_id: table.into(),
            owner: String::new(),
            name: table.into(),
            seats: 3,
            deals: 1,
            private: false,
            status: super::super::RowStatus::Playing,
            occupied: 3,
            deals_played: 0,
            players: vec![],
            scores: vec![],
            created_ms: 1,
            finished_ms: 0,
        }
    }

    /// Inputs are readable by table while in the log, while in both (moved, not yet
    /// forgotten: once each), and after; a forgotten stretch leaves the log; a start's
    /// settling moves what a stopped writer left; a damaged tail is dropped from both; the
    /// inputs of a table purged meanwhile (no listing row) are forgotten, not moved.
    async fn the_log_moves_under_the_key_and_reads_stay_whole(store: Store) {
        let mut writer = store.writer(None).await.unwrap();
        let first = store.log.log_next_seq().await.unwrap();
        let rows = [listed("a"), listed("b"), listed("c")];
        writer.write(&Batch { rows: &rows, first_seq: first, ..Batch::default() }).await.unwrap();
        let new = [entry("a", 0), entry("b", 0), entry("a", 1), entry("b", 1)];
        writer.write(&Batch { log: &new, first_seq: first, ..Batch::default() }).await.unwrap();
        assert_eq!(store.log.log_len().await.unwrap(), 4);
        assert_eq!(in_entries(&store).await, 0);
        assert_eq!(store.tables.entries("a").await.unwrap(), vec![entry("a", 0), entry("a", 1)]);

        // a's inputs move (seq first and first + 2); the log keeps them until forgotten.
        writer
            .write(&Batch { moves: &[first, first + 2], first_seq: first + 4, ..Batch::default() })
            .await
            .unwrap();
        assert_eq!(in_entries(&store).await, 2);
        assert_eq!(store.log.log_len().await.unwrap(), 4);
        assert_eq!(store.tables.entries("a").await.unwrap(), vec![entry("a", 0), entry("a", 1)], "once each");

        // b's move comes with the forgetting; a move repeated changes nothing.
        let moves = [first + 1, first + 3, first];
        let batch =
            Batch { moves: &moves, forget_upto: Some(first + 3), first_seq: first + 4, ..Batch::default() };
        writer.write(&batch).await.unwrap();
        assert_eq!(store.log.log_len().await.unwrap(), 0);
        assert_eq!(in_entries(&store).await, 4);
        assert_eq!(store.tables.entries("b").await.unwrap(), vec![entry("b", 0), entry("b", 1)]);

        // What a stopped writer left in the log is moved on start.
        let more = [entry("a", 2), entry("c", 0)];
        writer.write(&Batch { log: &more, first_seq: first + 4, ..Batch::default() }).await.unwrap();
        assert_eq!(store.log.log_next_seq().await.unwrap(), first + 6);
        assert_eq!(store.log.settle_log("").await.unwrap(), 2);
        assert_eq!(store.log.log_len().await.unwrap(), 0);
        assert_eq!(
            store.tables.entries("a").await.unwrap(),
            vec![entry("a", 0), entry("a", 1), entry("a", 2)]
        );

        // A damaged tail goes from wherever it is.
        let tail = [entry("a", 3)];
        writer.write(&Batch { log: &tail, first_seq: first + 6, ..Batch::default() }).await.unwrap();
        assert_eq!(store.tables.drop_entries_from("a", 2).await.unwrap(), 2);
        assert_eq!(store.tables.entries("a").await.unwrap(), vec![entry("a", 0), entry("a", 1)]);

        // A table without its listing row (purged): moved by the writer or on start, its
        // inputs are not copied, and forgetting takes them from the log.
        let gone = [entry("gone", 0), entry("gone", 1)];
        writer.write(&Batch { log: &gone, first_seq: first + 7, ..Batch::default() }).await.unwrap();
        let moves = [first + 7];
        let batch =
            Batch { moves: &moves, forget_upto: Some(first + 7), first_seq: first + 9, ..Batch::default() };
        writer.write(&batch).await.unwrap();
        assert_eq!(
            store.tables.entries("gone").await.unwrap(),
            vec![entry("gone", 1)],
            "only the one not forgotten"
        );
        assert_eq!(store.log.settle_log("").await.unwrap(), 1);
        assert_eq!(store.tables.entries("gone").await.unwrap(), vec![]);
        assert_eq!(in_entries(&store).await, 5, "a's two and b's two, c's one");
    }

    /// A commit's listing rows: those of many tables all land, and a table with two rows
    /// in one commit (two of its changes gathered) keeps the newer.
    async fn a_commit_writes_every_tables_newest_listing(store: Store) {
        let mut writer = store.writer(None).await.unwrap();
        let first = store.log.log_next_seq().await.unwrap();
        let mut rows: Vec<_> = (0..70).map(|i| listed(&format!("r{i:02}"))).collect();
        let mut newer = listed("r05");
        newer.deals_played = 1;
        newer.status = super::super::RowStatus::Finished;
        newer.finished_ms = 9;
        rows.push(newer.clone());
        writer.write(&Batch { rows: &rows, first_seq: first, ..Batch::default() }).await.unwrap();
        for i in 0..70 {
            let id = format!("r{i:02}");
            let row = store.tables.row(&id).await.unwrap().unwrap_or_else(|| panic!("{id} listed"));
            assert_eq!(row, if i == 5 { newer.clone() } else { listed(&id) }, "{id}");
        }
        // An update of rows already there: the columns a listing changes, nothing else.
        let mut later = listed("r06");
        later.deals_played = 1;
        later.name = "not renamed".into();
        writer.write(&Batch { rows: &[later], first_seq: first, ..Batch::default() }).await.unwrap();
        let row = store.tables.row("r06").await.unwrap().unwrap();
        assert_eq!((row.deals_played, row.name.as_str()), (1, "r06"));
    }

    #[tokio::test]
    async fn listing_rows_on_sqlite() {
        let dir = std::env::temp_dir().join(format!("skat-rows-test-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        a_commit_writes_every_tables_newest_listing(Store::open_dir(&dir).await.unwrap()).await;
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[tokio::test]
    async fn listing_rows_on_postgres() {
        let Some(url) = database("skat_listing_rows").await else { return };
        a_commit_writes_every_tables_newest_listing(Store::open(&url).await.unwrap()).await;
    }

    #[tokio::test]
    async fn the_log_on_sqlite() {
        let dir = std::env::temp_dir().join(format!("skat-log-test-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        the_log_moves_under_the_key_and_reads_stay_whole(Store::open_dir(&dir).await.unwrap()).await;
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[tokio::test]
    async fn the_log_on_postgres() {
        let Some(url) = database("skat_hot_log").await else { return };
        the_log_moves_under_the_key_and_reads_stay_whole(Store::open(&url).await.unwrap()).await;
    }
}
