//! One module per subcommand.

pub mod admin;
pub mod analyze;
pub mod arena;
pub mod backup;
pub mod bench;
pub mod bot;
pub mod capacity;
pub mod certs;
pub mod challenge;
pub mod conn;
pub mod demo;
pub mod house;
pub mod leaderboard;
pub mod loadbench;
pub mod replay;
pub mod selfplay;
pub mod serve;
pub mod table;
pub mod text;
pub mod tournament;
pub mod watch;

/// Errors a command reports before exiting with status 2.
pub type CmdResult = Result<std::process::ExitCode, Box<dyn std::error::Error>>;
