//! `skat admin`: bot accounts from the command line (register, disable, enable, rotate a
//! token, set a quota), with the admin token.

use std::process::ExitCode;

use skat_proto::pb;
use skat_sdk::SdkError;

use super::CmdResult;
use super::conn::{Conn, NameConn, runtime};

#[derive(Debug, clap::Args)]
pub struct AdminArgs {
    #[command(subcommand)]
    command: AdminCommand,
}

#[derive(Debug, clap::Subcommand)]
enum AdminCommand {
    /// Register a bot account and print its bot token (shown once).
    RegisterBot {
        /// The account's name (unique; shown at tables).
        #[arg(long)]
        name: String,
        /// Who runs it.
        #[arg(long, default_value = "")]
        owner: String,
        #[command(flatten)]
        conn: Conn,
    },
    /// Disable an account: its lobby is refused.
    DisableBot(NameConn),
    /// Enable a disabled account.
    EnableBot(NameConn),
    /// Give an account a new bot token (printed once); the old one stops working.
    RotateToken(NameConn),
    /// Set an account's quota of tables at once (new accounts get `skat serve
    /// --account-max-tables`).
    SetQuota {
        /// The account's name.
        #[arg(long)]
        name: String,
        /// Tables at once (1 to 1000).
        #[arg(long)]
        max_tables: u32,
        #[command(flatten)]
        conn: Conn,
    },
}

pub fn admin(args: AdminArgs) -> CmdResult {
    runtime()?.block_on(async {
        match args.command {
            AdminCommand::RegisterBot { name, owner, conn } => {
                let mut client = conn.connect().await?;
                let r = client
                    .register_bot(conn.request(pb::RegisterBotRequest { name, owner }))
                    .await
                    .map_err(SdkError::from)?
                    .into_inner();
                println!("account {} ({})", r.name, r.account_id);
                println!("bot token {}", r.bot_token);
                println!(
                    "(shown once) play: skat bot --strategy heuristic --server {} --bot-token TOKEN",
                    conn.server.server
                );
                Ok(ExitCode::SUCCESS)
            }
            AdminCommand::DisableBot(a) => update(a, Some(true), false).await,
            AdminCommand::EnableBot(a) => update(a, Some(false), false).await,
            AdminCommand::RotateToken(a) => update(a, None, true).await,
            AdminCommand::SetQuota { name, max_tables, conn } => {
                let mut client = conn.connect().await?;
                client
                    .update_bot(conn.request(pb::UpdateBotRequest {
                        name: name.clone(),
                        max_tables: Some(max_tables),
                        ..Default::default()
                    }))
                    .await
                    .map_err(SdkError::from)?;
                println!("account {name} plays at most {max_tables} tables at once");
                Ok(ExitCode::SUCCESS)
            }
        }
    })
}

async fn update(a: NameConn, disabled: Option<bool>, rotate_token: bool) -> CmdResult {
    let mut client = a.conn.connect().await?;
    let r = client
        .update_bot(a.conn.request(pb::UpdateBotRequest {
            name: a.name.clone(),
            disabled,
            rotate_token,
            max_tables: None,
        }))
        .await
        .map_err(SdkError::from)?
        .into_inner();
    if r.bot_token.is_empty() {
        println!("account {} updated", a.name);
    } else {
        println!("account {} has a new bot token", a.name);
        println!("bot token {}", r.bot_token);
    }
    Ok(ExitCode::SUCCESS)
}
