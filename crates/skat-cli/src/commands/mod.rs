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
pub mod hosted;
pub mod house;
pub mod huge_pages;
pub mod leaderboard;
pub mod loadbench;
pub mod process;
pub mod replay;
pub mod runner;
pub mod selfplay;
pub mod serve;
pub mod table;
pub mod text;
pub mod tournament;
pub mod watch;

/// Errors a command reports before exiting with status 2.
pub type CmdResult = Result<std::process::ExitCode, Box<dyn std::error::Error>>;

/// What to do about a refusal the person at the keyboard can fix with a flag: said once,
/// after the error, naming the flag and its environment variable.
pub fn hint(error: &(dyn std::error::Error + 'static), table_command: bool) -> Option<&'static str> {
    use skat_proto::pb::ErrorReason as R;
    let reason = error.downcast_ref::<skat_sdk::SdkError>()?.reason()?;
    Some(match reason {
        R::AdminRequired => {
            "give the admin token (the one `skat serve --admin-token` was started with) as --admin-token TOKEN, \
             or in the environment as SKAT_ADMIN_TOKEN"
        }
        R::BotTokenInvalid => {
            "give the account's bot token (printed once by `skat admin register-bot`) as --bot-token TOKEN, \
             or in the environment as SKAT_BOT_TOKEN"
        }
        R::WrongServerToken | R::TokenRequired if table_command => {
            "give the server's create token (`skat serve --create-token`) or its admin token as --create-token TOKEN, \
             or in the environment as SKAT_CREATE_TOKEN"
        }
        _ => return None,
    })
}
