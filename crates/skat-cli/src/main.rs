//! `skat`: the command-line face of the open Skat server for bots.
//!
//! Each subcommand lives in its own module under `commands/`.

use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// `println!` for the commands' output: when the reader has gone (`skat tournament show
/// ID | head -3`), the command ends quietly with success, as `cat` does, instead of
/// panicking ("failed printing to stdout: Broken pipe"). SIGPIPE itself stays ignored:
/// the commands' sockets must never end the process.
macro_rules! outln {
    ($($arg:tt)*) => {
        $crate::commands::text::print_line(format_args!($($arg)*))
    };
}

/// `print!` with the same care as [`outln!`].
macro_rules! out {
    ($($arg:tt)*) => {
        $crate::commands::text::print_text(format_args!($($arg)*))
    };
}

mod commands;

/// mimalloc, not glibc's allocator: a durable action parks its RPC until the commit, and
/// a commit releases 20-40 of them at once; glibc serves that burst off its slow paths
/// (about a third of what a durable deal cost over an in-memory one), mimalloc from its
/// per-page free lists. Side by side for 25 minutes: a fifth less CPU per durable deal,
/// a sixth more memory, both flat (docs/BENCHMARKS.md, "The allocator"; the sizing rule
/// in docs/deploy.md is mimalloc's). `--no-default-features` builds it on the system's.
#[cfg(feature = "mimalloc")]
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// `skat --version`: the version and the allocator the binary was built with (the sizing
/// rules in docs/deploy.md differ between the two).
const VERSION: &str = if cfg!(feature = "mimalloc") {
    concat!(env!("CARGO_PKG_VERSION"), " (allocator: mimalloc)")
} else {
    concat!(env!("CARGO_PKG_VERSION"), " (allocator: the system's)")
};

/// The open Skat server for bots: a gRPC server, the rules engine's records, self-play and benchmarks.
#[derive(Debug, Parser)]
#[command(name = "skat", version = VERSION, about, long_about = None, propagate_version = true)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Replay game records through the engine and print each result as one JSON line.
    Replay(commands::replay::Args),
    /// Judge every card of finished deals with all cards open and on what its player knew (records, or a server's finished table): per card the loss and a mark, per player the mean loss.
    Analyze(commands::analyze::Args),
    /// Play complete deals between uniformly random legal players and write the records.
    Selfplay(commands::selfplay::Args),
    /// Measure how many complete random deals per second the engine plays on one thread.
    Bench(commands::bench::Args),
    /// Run the gRPC server (tables for bots, health, reflection, metrics).
    Serve(Box<commands::serve::Args>),
    /// Load-test the server over loopback: deals/s, action latency, memory per table.
    Loadbench(commands::loadbench::Args),
    /// How many tables of thinking bots the server holds (ramp), and whether it stays flat for hours (soak)
    Capacity(commands::capacity::Args),
    /// Run a built-in bot at a table on a server; or submit, list and activate hosted
    /// versions of an account's bot and read their sandboxes' output (docs/hosted-bots.md).
    Bot(Box<commands::bot::Args>),
    /// Run a competition between bots (duplicate lists, parallel tables, standings).
    Arena(commands::arena::Args),
    /// Create a table for bots (`skat table create`) or list the server's tables.
    Table(commands::table::Args),
    /// Print a table as it is played (the demo's printer), from its first event.
    Watch(commands::watch::Args),
    /// The operator's commands for bot accounts, with the admin token: register, list,
    /// who is online, rename, remove, disable, enable, rotate a token, set a quota or an
    /// owner contact, and read the audit log.
    Admin(commands::admin::AdminArgs),
    /// Tournaments between bot accounts: create (admin), list, show, records, verify the
    /// committed deals, and pause, resume, reschedule or cancel (admin).
    Tournament(commands::tournament::TournamentArgs),
    /// The bots' ratings, best first.
    Leaderboard(commands::leaderboard::LeaderboardArgs),
    /// Challenge other accounts (house bots, or any that accepts) to a duplicate meeting;
    /// list, accept or decline challenges.
    Challenge(commands::challenge::Args),
    /// Host built-in opponents (house-random, house-heuristic, house-pimc) on a server,
    /// with a CPU budget of their own (`skat serve --house-bots` does it in process).
    HouseBots(commands::house::Args),
    /// Copy a running server's SQLite journal to a new file, consistently, and check it
    /// (tables, tournaments, accounts, ratings).
    Backup(commands::backup::Args),
    /// The runner of hosted bots: follows the server's feed of their seats and plays each
    /// in a sandbox (podman), with equal CPU and memory and no network but the server
    /// (docs/hosted-bots.md). `skat serve --runner podman` runs it in the server's process.
    Runner(commands::runner::Args),
    /// Make a private CA and certificates signed by it (tests, private networks, mutual
    /// TLS); run again on the same folder to rotate the certificates.
    Certs(commands::certs::Args),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let table_command = matches!(cli.command, Command::Table(_));
    let result = match cli.command {
        Command::Replay(args) => commands::replay::run(args),
        Command::Analyze(args) => commands::analyze::run(args),
        Command::Selfplay(args) => commands::selfplay::run(args),
        Command::Bench(args) => commands::bench::run(args),
        Command::Serve(args) => commands::serve::run(*args),
        Command::Loadbench(args) => commands::loadbench::run(args),
        Command::Capacity(args) => commands::capacity::run(args),
        Command::Bot(args) => commands::bot::run(*args),
        Command::Arena(args) => commands::arena::run_cmd(args),
        Command::Table(args) => commands::table::run(args),
        Command::Watch(args) => commands::watch::run(args),
        Command::Admin(args) => commands::admin::admin(args),
        Command::Tournament(args) => commands::tournament::tournament(args),
        Command::Leaderboard(args) => commands::leaderboard::leaderboard(args),
        Command::Challenge(args) => commands::challenge::run(args),
        Command::HouseBots(args) => commands::house::run(args),
        Command::Certs(args) => commands::certs::run(args),
        Command::Runner(args) => commands::runner::run(args),
        Command::Backup(args) => commands::backup::run(args),
    };
    match result {
        Ok(code) => code,
        // A reader that stopped early (`skat replay ... | head`) is not an error.
        Err(e)
            if e.downcast_ref::<std::io::Error>()
                .is_some_and(|e| e.kind() == std::io::ErrorKind::BrokenPipe) =>
        {
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("skat: {e}");
            if let Some(hint) = commands::hint(e.as_ref(), table_command) {
                eprintln!("skat: {hint}");
            }
            ExitCode::from(2)
        }
    }
}
