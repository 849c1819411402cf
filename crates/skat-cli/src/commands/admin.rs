//! `skat admin`: the operator's commands for bot accounts and the audit log, with the
//! admin token: register, list and search, who is online, rename, remove, disable,
//! enable, rotate a token, set a quota or an owner contact, read the audit log.

use std::process::ExitCode;

use skat_proto::pb;
use skat_sdk::SdkError;

use super::CmdResult;
use super::conn::{Conn, NameConn, runtime};
use super::text::{cell, date, shorten_digests};

#[derive(Debug, clap::Args)]
pub struct AdminArgs {
    #[command(subcommand)]
    command: AdminCommand,
}

#[derive(Debug, clap::Subcommand)]
enum AdminCommand {
    /// Register a bot account and print its bot token (shown once). Names follow the
    /// name policy (docs/names.md) and are unique after case folding and look-alikes.
    RegisterBot {
        /// The account's name (1 to 32 characters; shown at tables).
        #[arg(long)]
        name: String,
        /// Who runs it and how to reach them (seen by the operator only).
        #[arg(long, default_value = "")]
        owner: String,
        #[command(flatten)]
        conn: Conn,
    },
    /// List accounts as the operator sees them: owner, state, lobbies open, tables now,
    /// rating, last seen, former names.
    List {
        /// Only accounts whose name or owner contains this (case-insensitive).
        #[arg(long, default_value = "")]
        search: String,
        /// Include removed accounts.
        #[arg(long)]
        removed: bool,
        /// Most entries.
        #[arg(long, default_value_t = 100)]
        limit: u32,
        #[command(flatten)]
        conn: Conn,
    },
    /// The accounts with a lobby open now (on the replica that answers), with their
    /// lobbies and tables; then the hosted bots' sandboxes running now (bot, table, start).
    Online {
        #[command(flatten)]
        conn: Conn,
    },
    /// Give an account a new name. Tables already played keep the name they were played
    /// under; the old name stays reserved for this account.
    Rename {
        /// The account's name now.
        #[arg(long)]
        name: String,
        /// Its new name.
        #[arg(long)]
        to: String,
        #[command(flatten)]
        conn: Conn,
    },
    /// Remove an account: disabled and hidden from the public (leaderboard, bot pages);
    /// its results and records stay. `enable-bot` brings it back.
    Remove(NameConn),
    /// Disable an account: its lobbies end and new ones are refused; its tournament
    /// seats forfeit on time. Disabled accounts cannot enter new tournaments.
    DisableBot(NameConn),
    /// Enable a disabled (or removed) account.
    EnableBot(NameConn),
    /// Give an account a new bot token (printed once); the old one stops working and its
    /// open lobbies end.
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
    /// Set an account's owner contact (seen by the operator only).
    SetOwner {
        /// The account's name.
        #[arg(long)]
        name: String,
        /// Who runs it and how to reach them (at most 128 characters).
        #[arg(long)]
        owner: String,
        #[command(flatten)]
        conn: Conn,
    },
    /// Approve a hosted bot's version (with `skat serve --hosting-approval`, versions wait
    /// for it), or withdraw the approval (`--withdraw`).
    ApproveVersion {
        /// The account's name.
        #[arg(long)]
        name: String,
        /// The version's image digest (or its first 12 or more hex digits), when the image
        /// has one version.
        #[arg(long, required_unless_present = "version_id")]
        digest: Option<String>,
        /// The version's name (`skat bot versions` shows it): its image and its command.
        #[arg(long)]
        version_id: Option<String>,
        /// Send it back to pending: it no longer plays.
        #[arg(long)]
        withdraw: bool,
        #[command(flatten)]
        conn: Conn,
    },
    /// Hosted bots' sandboxes, newest first: which bot, table, outcome, CPU, memory
    /// (`--running`: only those running now).
    Sandboxes {
        /// Only sandboxes running now.
        #[arg(long)]
        running: bool,
        #[command(flatten)]
        conn: Conn,
    },
    /// The audit log: every admin action (when, from which address, what), newest
    /// first.
    Log {
        /// Only entries about this account name or tournament id.
        #[arg(long, default_value = "")]
        target: String,
        /// Print digests (a tournament's deals commitment) whole, not shortened.
        #[arg(long)]
        full: bool,
        /// Most entries.
        #[arg(long, default_value_t = 100)]
        limit: u32,
        #[command(flatten)]
        conn: Conn,
    },
}

pub fn admin(args: AdminArgs) -> CmdResult {
    runtime()?.block_on(async {
        match args.command {
            AdminCommand::RegisterBot { name, owner, conn } => register(&conn, name, owner).await,
            AdminCommand::List { search, removed, limit, conn } => {
                let request = pb::ListBotsRequest {
                    query: search,
                    include_removed: removed,
                    online_only: false,
                    page_size: limit,
                    offset: 0,
                };
                list(&conn, request).await
            }
            AdminCommand::ApproveVersion { name, digest, version_id, withdraw, conn } => {
                let pick = super::hosted::Pick {
                    digest: digest.unwrap_or_default(),
                    version_id: version_id.unwrap_or_default(),
                };
                super::hosted::approve(&conn, name, pick, !withdraw).await
            }
            AdminCommand::Sandboxes { running, conn } => super::hosted::sandboxes(&conn, running).await,
            AdminCommand::Online { conn } => online(&conn).await,
            AdminCommand::Rename { name, to, conn } => {
                let bot =
                    update(&conn, pb::UpdateBotRequest { name, rename: to, ..Default::default() }).await?;
                done(format!("account {} renamed (formerly {})", bot.name, bot.former_names.join(", ")))
            }
            AdminCommand::Remove(a) => {
                let request = pb::UpdateBotRequest { name: a.name, remove: true, ..Default::default() };
                let bot = update(&a.conn, request).await?;
                done(format!("account {} removed (disabled and hidden; enable-bot brings it back)", bot.name))
            }
            AdminCommand::DisableBot(a) => {
                let request =
                    pb::UpdateBotRequest { name: a.name, disabled: Some(true), ..Default::default() };
                done(format!("account {} disabled", update(&a.conn, request).await?.name))
            }
            AdminCommand::EnableBot(a) => {
                let request =
                    pb::UpdateBotRequest { name: a.name, disabled: Some(false), ..Default::default() };
                done(format!("account {} enabled", update(&a.conn, request).await?.name))
            }
            AdminCommand::RotateToken(a) => rotate(&a.conn, a.name).await,
            AdminCommand::SetQuota { name, max_tables, conn } => {
                let request =
                    pb::UpdateBotRequest { name, max_tables: Some(max_tables), ..Default::default() };
                let bot = update(&conn, request).await?;
                done(format!("account {} plays at most {} tables at once", bot.name, bot.max_tables))
            }
            AdminCommand::SetOwner { name, owner, conn } => {
                let request = pb::UpdateBotRequest { name, owner: Some(owner), ..Default::default() };
                let bot = update(&conn, request).await?;
                done(format!("account {} owner: {}", bot.name, bot.owner))
            }
            AdminCommand::Log { target, limit, full, conn } => audit_log(&conn, target, limit, full).await,
        }
    })
}

/// Prints one line and succeeds.
fn done(line: String) -> CmdResult {
    outln!("{line}");
    Ok(ExitCode::SUCCESS)
}

/// RegisterBot: the new account and its token, shown once.
async fn register(conn: &Conn, name: String, owner: String) -> CmdResult {
    let mut client = conn.connect().await?;
    let r = client
        .register_bot(conn.request(pb::RegisterBotRequest { name, owner }))
        .await
        .map_err(SdkError::from)?
        .into_inner();
    outln!("account {} ({})", r.name, r.account_id);
    outln!("bot token {}", r.bot_token);
    outln!("(shown once: keep it in a file only the bot's owner can read)");
    outln!("play: SKAT_BOT_TOKEN=$(cat FILE) skat bot --strategy heuristic --server {}", conn.server.server);
    Ok(ExitCode::SUCCESS)
}

/// Who is online, then the hosted bots' sandboxes running now (they belong to who is online).
async fn online(conn: &Conn) -> CmdResult {
    list(conn, pb::ListBotsRequest { online_only: true, page_size: 1000, ..Default::default() }).await?;
    super::hosted::runners(conn).await?;
    outln!("hosted bots' sandboxes running:");
    super::hosted::sandboxes(conn, true).await
}

/// A new bot token for an account (the old one stops working), shown once.
async fn rotate(conn: &Conn, name: String) -> CmdResult {
    let mut client = conn.connect().await?;
    let request = pb::UpdateBotRequest { name: name.clone(), rotate_token: true, ..Default::default() };
    let r = client.update_bot(conn.request(request)).await.map_err(SdkError::from)?.into_inner();
    outln!("account {name} has a new bot token");
    outln!("bot token {}", r.bot_token);
    Ok(ExitCode::SUCCESS)
}

/// The audit log as a table (digests shortened unless `full`).
async fn audit_log(conn: &Conn, target: String, limit: u32, full: bool) -> CmdResult {
    let mut client = conn.connect().await?;
    let request = pb::ListAuditLogRequest { page_size: limit, offset: 0, target };
    let r = client.list_audit_log(conn.request(request)).await.map_err(SdkError::from)?.into_inner();
    outln!("{} {} {} {} detail", cell("when", 20), cell("from", 16), cell("action", 18), cell("target", 20));
    for e in r.entries {
        outln!(
            "{} {} {} {} {}",
            cell(&date(e.at_ms), 20),
            cell(&e.peer, 16),
            cell(&e.action, 18),
            cell(&e.target, 20),
            if full { e.detail } else { shorten_digests(&e.detail) }
        );
    }
    Ok(ExitCode::SUCCESS)
}

/// UpdateBot, and the account after the change.
async fn update(conn: &Conn, request: pb::UpdateBotRequest) -> Result<pb::BotAccount, SdkError> {
    let mut client = conn.connect().await?;
    let r = client.update_bot(conn.request(request)).await?.into_inner();
    r.bot.ok_or_else(|| SdkError::Protocol("UpdateBot answered without the account".into()))
}

/// ListBots as a table.
async fn list(conn: &Conn, request: pb::ListBotsRequest) -> CmdResult {
    let mut client = conn.connect().await?;
    let r = client.list_bots(conn.request(request)).await.map_err(SdkError::from)?.into_inner();
    outln!(
        "{} {} {} {:>7} {:>6} {:>7} {} {} former",
        cell("bot", 24),
        cell("owner", 24),
        cell("state", 8),
        "lobbies",
        "tables",
        "rating",
        cell("last seen", 20),
        cell("created", 20),
    );
    for b in r.bots {
        let state = if b.removed {
            "removed"
        } else if b.disabled {
            "disabled"
        } else if b.lobbies > 0 {
            "online"
        } else {
            "offline"
        };
        let rating = b.rating.map_or_else(|| "-".to_string(), |r| format!("{:.2}", r.rating));
        outln!(
            "{} {} {} {:>7} {:>6} {:>7} {} {} {}",
            cell(&b.name, 24),
            cell(&b.owner, 24),
            cell(state, 8),
            b.lobbies,
            b.tables_now,
            rating,
            cell(&date(b.last_seen_ms), 20),
            cell(&date(b.created_ms), 20),
            b.former_names.join(", ")
        );
    }
    Ok(ExitCode::SUCCESS)
}
