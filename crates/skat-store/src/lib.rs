//! # skat-store
//!
//! The server's database: SQLite (embedded, the default) or PostgreSQL (shared by
//! replicas), both through sqlx's `Any` driver so that one code path and one schema
//! serve both. Rows in, rows out: this crate knows no protobuf and no Skat rule.
//!
//! [`Store`] is one repository per aggregate over one pool (`store.accounts`,
//! `store.tournaments`, `store.tables`, ...): each file below owns its tables' SQL.
//!
//! | table | what | written | SQL |
//! |---|---|---|---|
//! | `skat_log` | every input a table accepted, in commit order, with a checksum: the hot log | by its owner, before the call is answered | [`log`] |
//! | `skat_entries` | the same inputs by table (moved from the log a few seconds later) | by its owner's journal writer; by a takeover or a start, for what the log still holds | [`tables`], [`log`] |
//! | `skat_tables` | one summary per table (status, seats, names, deals) for listings | at creation, joins, leaves, deal ends, the end | [`tables`] |
//! | `skat_account_names`, `skat_account_name_keys` | every name an account has had, and every key of each (no two accounts share a key) | by the competitions; old names keyed at start | [`names`] |
//! | `skat_accounts` | bot accounts | by the competitions | [`accounts`] |
//! | `skat_tournaments`, `skat_tournament_tables` | tournaments and their plans | by the competitions | [`tournaments`], [`tournament_control`] |
//! | `skat_ratings`, `skat_rating_history` | ratings and their history | with the finished list that moved them | [`ratings`] |
//! | `skat_audit` | what was done with the admin token | by the competitions, with the change | [`audit`] |
//! | `skat_challenges`, `skat_challenge_opponents` | challenges and each opponent's answer | by the competitions | [`challenges`] |
//! | `skat_nodes` | replicas, their epochs and leases (who may write which table) | on start, with every commit, by a replica taking a dead one's tables over | [`nodes`] |
//! | `skat_bot_versions`, `skat_hosted_pins`, `skat_sandboxes` | hosted bots' versions, the versions a hosted tournament pinned, the sandboxes the runner reported | by the hosting service | [`hosting`] |
//! | `skat_analyses` | finished tables' analyses (AnalyzeTable's cache) | by the analysis workers; deleted with their table | [`analyses`] |
//!
//! The schema is created and upgraded by sqlx's migrator when the server starts (on
//! PostgreSQL under its advisory lock, so replicas starting together do not race).

pub mod accounts;
pub mod analyses;
pub mod audit;
pub mod backup;
pub mod challenges;
pub mod hosting;
pub mod log;
pub mod names;
pub mod nodes;
pub mod ratings;
pub mod tables;
pub mod tournament_control;
pub mod tournaments;

use std::borrow::Cow;
use std::path::Path;
use std::time::Duration;

use sqlx::any::AnyPoolOptions;
use sqlx::migrate::{Migration, MigrationSource, MigrationType, Migrator};
use sqlx::{AnyPool, Executor as _};

pub use accounts::AccountRepo;
pub use analyses::AnalysisRepo;
pub use audit::AuditRepo;
pub use challenges::ChallengeRepo;
pub use hosting::HostingRepo;
pub use log::Batch;
pub use log::LogRepo;
pub use names::NameRepo;
pub use nodes::NodeLease;
pub use nodes::NodeRepo;
pub use ratings::RatingRepo;
pub use tables::TableRepo;
pub use tables::{Cursor, ListFilter, RowStatus, StoredEntry, TableRow, Writer};
pub use tournaments::TournamentRepo;

/// Which database.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Backend {
    /// An embedded SQLite file.
    Sqlite,
    /// A PostgreSQL server.
    Postgres,
}

/// What went wrong with the database.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// The database refused or failed.
    #[error("database: {0}")]
    Db(#[from] sqlx::Error),
    /// The schema could not be brought up to date.
    #[error("schema migration: {0}")]
    Migrate(#[from] sqlx::migrate::MigrateError),
    /// The `--database` setting names no database this server can use.
    #[error("{0}")]
    Setting(String),
    /// A stored value is not what the server writes there.
    #[error("a stored value is not what was written: {0}")]
    Corrupt(String),
    /// This replica's lease is gone: another replica took its tables over, and this one
    /// must write nothing more.
    #[error("replica {node} lost its lease (epoch {epoch} is over): another replica took its tables over")]
    Fenced {
        /// This replica.
        node: String,
        /// The epoch it held.
        epoch: i64,
    },
}

/// The embedded schema, for sqlx's migrator. Migrations are portable SQL, except where
/// a database's own layout is the point (the hot log's key: SQLite's rowid, a composite
/// key per replica on PostgreSQL); a database only ever sees its own text.
#[derive(Debug)]
struct Schema(Backend);

impl<'s> MigrationSource<'s> for Schema {
    fn resolve(
        self,
    ) -> std::pin::Pin<
        Box<dyn std::future::Future<Output = Result<Vec<Migration>, sqlx::error::BoxDynError>> + Send + 's>,
    > {
        let log = match self.0 {
            Backend::Sqlite => include_str!("../migrations/0009_log.sqlite.sql"),
            Backend::Postgres => include_str!("../migrations/0009_log.postgres.sql"),
        };
        // (version, description, SQL): the same for both databases but the hot log.
        let steps: [(i64, &'static str, &'static str); 12] = [
            (1, "journal", include_str!("../migrations/0001_journal.sql")),
            (2, "competitions", include_str!("../migrations/0002_competitions.sql")),
            (3, "leases", include_str!("../migrations/0003_leases.sql")),
            (4, "table scores", include_str!("../migrations/0004_table_scores.sql")),
            (5, "operator", include_str!("../migrations/0005_operator.sql")),
            (6, "analyses", include_str!("../migrations/0006_analyses.sql")),
            (7, "challenges", include_str!("../migrations/0007_challenges.sql")),
            (8, "nodes", include_str!("../migrations/0008_nodes.sql")),
            (9, "hot log", log),
            (10, "name keys", include_str!("../migrations/0010_name_keys.sql")),
            (11, "hosting", include_str!("../migrations/0011_hosting.sql")),
            (12, "versions", include_str!("../migrations/0012_versions.sql")),
        ];
        Box::pin(async move {
            Ok(steps
                .into_iter()
                .map(|(version, what, sql)| {
                    Migration::new(
                        version,
                        Cow::Borrowed(what),
                        MigrationType::Simple,
                        Cow::Borrowed(sql),
                        false,
                    )
                })
                .collect())
        })
    }
}

/// Placeholders `$first,...` for `n` values.
pub(crate) fn placeholders(first: usize, n: usize) -> String {
    (first..first + n).map(|i| format!("${i}")).collect::<Vec<_>>().join(",")
}

/// A count or time as SQL's integer (saturating: SQL has no unsigned 64 bits).
pub fn to_i64(v: u64) -> i64 {
    i64::try_from(v).unwrap_or(i64::MAX)
}

/// An SQL integer as a count or time (0 for a negative one).
pub fn to_u64(v: i64) -> u64 {
    u64::try_from(v).unwrap_or(0)
}

/// The pool and which database it is: what each repository holds (clones share the
/// pool).
#[derive(Debug, Clone)]
pub struct Db {
    /// The connections.
    pub pool: AnyPool,
    /// Which database the pool reaches (the few statements that differ).
    pub backend: Backend,
}

/// The database, as one repository per aggregate over one pool: each repository owns
/// the SQL of its tables, and a transaction never spans two of them except where one
/// change must be atomic across both (a finished list and its ratings, an accepted
/// challenge and its meeting), which the owning repository writes with the other's
/// statements.
#[derive(Debug, Clone)]
pub struct Store {
    /// The pool every repository shares.
    pub db: Db,
    /// Tables' inputs and listing rows.
    pub tables: TableRepo,
    /// The hot log's housekeeping.
    pub log: LogRepo,
    /// Replicas and their leases.
    pub nodes: NodeRepo,
    /// Bot accounts.
    pub accounts: AccountRepo,
    /// Every name each account has had, and their keys.
    pub names: NameRepo,
    /// Ratings and their history.
    pub ratings: RatingRepo,
    /// Tournaments, their plans and the operator's changes.
    pub tournaments: TournamentRepo,
    /// Challenges.
    pub challenges: ChallengeRepo,
    /// Hosted bots' versions, pins and sandboxes.
    pub hosting: HostingRepo,
    /// The admin audit log.
    pub audit: AuditRepo,
    /// Cached analyses.
    pub analyses: AnalysisRepo,
}

impl Store {
    /// The SQLite database in `dir` (created if missing).
    pub async fn open_dir(dir: &Path) -> Result<Store, StoreError> {
        std::fs::create_dir_all(dir).map_err(|e| {
            StoreError::Setting(format!("cannot create the data directory {}: {e}", dir.display()))
        })?;
        let file = dir.join("skat.db");
        Store::open(&format!("sqlite://{}?mode=rwc", file.display())).await
    }

    /// Opens `url` (`sqlite://FILE?mode=rwc` or `postgres://...`) and brings its schema
    /// up to date.
    pub async fn open(url: &str) -> Result<Store, StoreError> {
        Store::connect(url, None).await
    }

    /// Opens `url` for a replica whose lease lasts `lease`. On PostgreSQL the server ends
    /// any transaction of this replica left idle for half the lease: a process frozen in
    /// the middle of a commit (a pause, a partition) would otherwise keep the row locks of
    /// its lease and its tables, and every other replica's takeover would wait on them for
    /// as long as it stays frozen. No transaction of ours waits on anything but the
    /// database between its statements, so only a stalled process meets this bound.
    pub async fn open_replica(url: &str, lease: Duration) -> Result<Store, StoreError> {
        Store::connect(url, Some((lease / 2).max(Duration::from_millis(1)))).await
    }

    async fn connect(url: &str, idle_in_transaction: Option<Duration>) -> Result<Store, StoreError> {
        sqlx::any::install_default_drivers();
        let backend = if url.starts_with("sqlite:") {
            Backend::Sqlite
        } else if url.starts_with("postgres://") || url.starts_with("postgresql://") {
            Backend::Postgres
        } else {
            return Err(StoreError::Setting(format!(
                "--database must be `sqlite`, `memory` or a postgres:// URL, not `{url}`"
            )));
        };
        let pool = AnyPoolOptions::new()
            .max_connections(if backend == Backend::Sqlite { 4 } else { 8 })
            .acquire_timeout(Duration::from_secs(10))
            .after_connect(move |conn, _| {
                Box::pin(async move {
                    if backend == Backend::Sqlite {
                        // Every commit is on disk before it returns (the OK is a promise);
                        // WAL lets listings read while the journal writes.
                        conn.execute("PRAGMA journal_mode = WAL").await?;
                        conn.execute("PRAGMA synchronous = FULL").await?;
                        conn.execute("PRAGMA busy_timeout = 10000").await?;
                    } else if let Some(idle) = idle_in_transaction {
                        let ms = idle.as_millis();
                        conn.execute(&*format!("SET idle_in_transaction_session_timeout = {ms}")).await?;
                    }
                    Ok(())
                })
            })
            .connect(url)
            .await?;
        Migrator::new(Schema(backend)).await?.run(&pool).await?;
        let store = Store::over(Db { pool, backend });
        store.names.reserve_names().await?;
        Ok(store)
    }

    fn over(db: Db) -> Store {
        Store {
            tables: TableRepo { db: db.clone() },
            log: LogRepo { db: db.clone() },
            nodes: NodeRepo { db: db.clone() },
            accounts: AccountRepo { db: db.clone() },
            names: NameRepo { db: db.clone() },
            ratings: RatingRepo { db: db.clone() },
            tournaments: TournamentRepo { db: db.clone() },
            challenges: ChallengeRepo { db: db.clone() },
            hosting: HostingRepo { db: db.clone() },
            audit: AuditRepo { db: db.clone() },
            analyses: AnalysisRepo { db: db.clone() },
            db,
        }
    }

    /// Which database this is.
    pub fn backend(&self) -> Backend {
        self.db.backend
    }

    /// The database's size in bytes: SQLite's pages in use (free pages are reused, so this
    /// levels off under a steady load), PostgreSQL's `pg_database_size`.
    pub async fn size_bytes(&self) -> Result<u64, StoreError> {
        let sql = match self.db.backend {
            Backend::Sqlite => {
                "SELECT (page_count - freelist_count) * page_size FROM pragma_page_count(), pragma_freelist_count(), pragma_page_size()"
            }
            Backend::Postgres => "SELECT pg_database_size(current_database())",
        };
        let (bytes,): (i64,) = sqlx::query_as(sql).fetch_one(&self.db.pool).await?;
        Ok(to_u64(bytes))
    }

    /// A connection of its own for the journal's writer (kept for the server's life, so
    /// that a commit does not wait for the pool); with `fence`, every commit renews that
    /// lease for the given length first.
    pub async fn writer(&self, fence: Option<(NodeLease, Duration)>) -> Result<Writer, StoreError> {
        let owner = fence.as_ref().map(|(l, _)| l.node.clone()).unwrap_or_default();
        Ok(Writer { conn: self.db.pool.acquire().await?, backend: self.db.backend, owner, fence })
    }
}
