//! `skat backup`: a consistent copy of a SQLite journal, taken while the server runs
//! (`skat_server::backup`, with the store that knows its tables: SQLite's `VACUUM INTO`, a
//! snapshot of one read transaction, checked and counted; the journal is in WAL mode, so
//! the server keeps writing meanwhile).
//!
//! PostgreSQL has its own tools, which know its transactions and its storage:
//! `pg_dump --format=custom` and `pg_restore` (or the managed service's snapshots); this
//! command says so instead of doing it worse. The restore drill for both is in
//! docs/deploy.md and tested in crates/skat-cli/tests/backup.rs.

use std::path::PathBuf;
use std::process::ExitCode;

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
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
    let counts: Vec<String> = runtime
        .block_on(skat_server::backup::sqlite(&source, &args.out))?
        .into_iter()
        .map(|(n, what)| format!("{n} {what}"))
        .collect();
    outln!("backup {} of {}: {} (integrity ok)", args.out.display(), source.display(), counts.join(", "));
    outln!(
        "restore: stop the server, copy it to DATA_DIR/skat.db (removing skat.db-wal and skat.db-shm there), start it"
    );
    Ok(ExitCode::SUCCESS)
}
