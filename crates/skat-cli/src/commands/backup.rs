//! `skat backup`: a consistent copy of a SQLite journal, taken while the server runs.
//!
//! SQLite's `VACUUM INTO` writes a snapshot of one read transaction to a new file: every
//! table, tournament, account and rating as they stood at one moment, never half of a
//! commit, without stopping the server (the journal is in WAL mode, so the server keeps
//! writing meanwhile). The copy is then opened and checked (`PRAGMA integrity_check`)
//! and what it holds is counted, so a backup that cannot be restored is known at once.
//!
//! PostgreSQL has its own tools, which know its transactions and its storage:
//! `pg_dump --format=custom` and `pg_restore` (or the managed service's snapshots); this
//! command says so instead of doing it worse. The restore drill for both is in
//! docs/deploy.md and tested in crates/skat-cli/tests/backup.rs.

use std::path::PathBuf;
use std::process::ExitCode;

use sqlx::Connection;
use sqlx::sqlite::{SqliteConnectOptions, SqliteConnection};

use super::CmdResult;

#[derive(Debug, clap::Args)]
pub struct Args {
    /// The new file (refused if it exists).
    #[arg(long)]
    out: PathBuf,
    /// The server's data directory (its journal is `skat.db` there).
    #[arg(long, env = "SKAT_DATA_DIR", default_value = "skat-data")]
    data_dir: PathBuf,
    /// The server's `--database` when it is not SQLite (a PostgreSQL URL gets the
    /// commands to use instead).
    #[arg(long, env = "SKAT_DATABASE", default_value = "sqlite")]
    database: String,
}

/// What a backup holds, by table of the journal.
const COUNTED: [(&str, &str); 5] = [
    ("skat_tables", "tables"),
    ("skat_tournaments", "tournaments"),
    ("skat_accounts", "accounts"),
    ("skat_ratings", "ratings"),
    ("skat_rating_history", "rating changes"),
];

pub fn run(args: Args) -> CmdResult {
    if args.database.starts_with("postgres") {
        return Err("a PostgreSQL journal is backed up with PostgreSQL's tools, while the server runs:\n  \
             pg_dump --format=custom --file=skat.dump \"$DATABASE_URL\"\n\
             and restored into an empty database before the server starts:\n  \
             pg_restore --no-owner --dbname=\"$NEW_DATABASE_URL\" skat.dump\n\
             (or the managed service's snapshots; docs/deploy.md, \"Backups and the restore drill\")"
            .into());
    }
    if args.database != "sqlite" {
        return Err(format!(
            "--database `{}`: skat backup copies the SQLite journal (`sqlite`)",
            args.database
        )
        .into());
    }
    let source = args.data_dir.join("skat.db");
    if !source.exists() {
        return Err(format!(
            "no journal at {} (--data-dir is the server's data directory)",
            source.display()
        )
        .into());
    }
    if args.out.exists() {
        return Err(format!("{} exists: a backup never overwrites a file", args.out.display()).into());
    }
    let out = args.out.to_str().ok_or("--out must be a UTF-8 path")?.to_string();
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
    let counts = runtime.block_on(async {
        let mut db = SqliteConnection::connect_with(
            &SqliteConnectOptions::new()
                .filename(&source)
                .read_only(true)
                .busy_timeout(std::time::Duration::from_secs(10)),
        )
        .await?;
        sqlx::query("VACUUM INTO ?").bind(&out).execute(&mut db).await?;
        db.close().await?;
        let mut copy =
            SqliteConnection::connect_with(&SqliteConnectOptions::new().filename(&args.out).read_only(true))
                .await?;
        let (integrity,): (String,) = sqlx::query_as("PRAGMA integrity_check").fetch_one(&mut copy).await?;
        if integrity != "ok" {
            return Err::<_, Box<dyn std::error::Error>>(
                format!("the copy fails its integrity check: {integrity}").into(),
            );
        }
        let mut counts = Vec::new();
        for (table, what) in COUNTED {
            let (n,): (i64,) =
                sqlx::query_as(&format!("SELECT count(*) FROM {table}")).fetch_one(&mut copy).await?;
            counts.push(format!("{n} {what}"));
        }
        copy.close().await?;
        Ok(counts)
    })?;
    outln!("backup {} of {}: {} (integrity ok)", args.out.display(), source.display(), counts.join(", "));
    outln!(
        "restore: stop the server, copy it to DATA_DIR/skat.db (removing skat.db-wal and skat.db-shm there), start it"
    );
    Ok(ExitCode::SUCCESS)
}
