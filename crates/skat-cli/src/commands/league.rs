//! `skat admin`, `skat tournament`, `skat leaderboard`: competitions from the command line.

use std::process::ExitCode;
use std::time::Duration;

use skat_proto::pb;
use skat_sdk::SdkError;
use skat_sdk::client::{connect, server_url, with_token};

use super::CmdResult;

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

#[derive(Debug, clap::Args)]
struct NameConn {
    /// The account's name.
    #[arg(long)]
    name: String,
    #[command(flatten)]
    conn: Conn,
}

#[derive(Debug, clap::Args)]
struct Conn {
    /// The server.
    #[arg(long, env = "SKAT_SERVER", default_value = "http://127.0.0.1:50051")]
    server: String,
    /// The admin token (`skat serve --admin-token`).
    #[arg(long, env = "SKAT_ADMIN_TOKEN", hide_env_values = true)]
    admin_token: Option<String>,
}

impl Conn {
    fn request<T>(&self, message: T) -> tonic::Request<T> {
        match &self.admin_token {
            Some(t) => with_token(message, t),
            None => tonic::Request::new(message),
        }
    }
}

#[derive(Debug, clap::Args)]
pub struct TournamentArgs {
    #[command(subcommand)]
    command: TournamentCommand,
}

#[derive(Debug, clap::Subcommand)]
enum TournamentCommand {
    /// Create a tournament (needs the admin token): every group of entrants meets in
    /// duplicate lists, each in every seat rotation (round robin), or groups by standing
    /// meet round after round (Swiss).
    Create {
        /// A name.
        #[arg(long, default_value = "tournament")]
        name: String,
        /// The entrants' account names, comma-separated.
        #[arg(long, value_delimiter = ',', required = true)]
        entrants: Vec<String>,
        /// Seats per table.
        #[arg(long, default_value_t = 3)]
        seats: u32,
        /// Deals per list.
        #[arg(long, default_value_t = 36)]
        deals: u32,
        /// Lists per meeting.
        #[arg(long, default_value_t = 1)]
        lists: u32,
        /// Time per action.
        #[arg(long, default_value = "30s", value_parser = humantime::parse_duration)]
        action_timeout: Duration,
        /// Clock per seat per deal (`0s`: none).
        #[arg(long, default_value = "2m", value_parser = humantime::parse_duration)]
        deal_clock: Duration,
        /// Seed of the deals.
        #[arg(long)]
        seed: Option<u64>,
        /// `round-robin` (every group of entrants meets) or `swiss` (rounds of groups by
        /// standing: for many entrants).
        #[arg(long, default_value = "round-robin", value_parser = ["round-robin", "swiss"])]
        format: String,
        /// Swiss rounds (default: enough for everybody to have met everybody, at most 9).
        #[arg(long, default_value_t = 0)]
        rounds: u32,
        /// Seat no table before this much time has passed (entrants get ready).
        #[arg(long, default_value = "0s", value_parser = humantime::parse_duration)]
        start_in: Duration,
        #[command(flatten)]
        conn: Conn,
    },
    /// List tournaments, newest first.
    List {
        /// Include casual meetings.
        #[arg(long)]
        casual: bool,
        /// Most entries.
        #[arg(long, default_value_t = 50)]
        limit: u32,
        #[command(flatten)]
        conn: Conn,
    },
    /// Print every record of a tournament's finished tables (ISS, or JSON lines).
    Records {
        /// The tournament id.
        id: String,
        /// `iss` or `json`.
        #[arg(long, default_value = "iss", value_parser = ["iss", "json"])]
        format: String,
        #[command(flatten)]
        conn: Conn,
    },
    /// Show a tournament's tables and standings.
    Show {
        /// The tournament id.
        id: String,
        #[command(flatten)]
        conn: Conn,
    },
}

#[derive(Debug, clap::Args)]
pub struct LeaderboardArgs {
    /// The server.
    #[arg(long, env = "SKAT_SERVER", default_value = "http://127.0.0.1:50051")]
    server: String,
    /// Most entries.
    #[arg(long, default_value_t = 50)]
    limit: u32,
    /// Show one bot instead: its rating history and recent lists.
    #[arg(long)]
    bot: Option<String>,
}

fn runtime() -> std::io::Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_multi_thread().enable_all().build()
}

pub fn admin(args: AdminArgs) -> CmdResult {
    runtime()?.block_on(async {
        match args.command {
            AdminCommand::RegisterBot { name, owner, conn } => {
                let mut client = connect(&server_url(&conn.server)).await?;
                let r = client
                    .register_bot(conn.request(pb::RegisterBotRequest { name, owner }))
                    .await
                    .map_err(SdkError::from)?
                    .into_inner();
                println!("account {} ({})", r.name, r.account_id);
                println!("bot token {}", r.bot_token);
                println!(
                    "(shown once) play: skat bot --strategy heuristic --server {} --bot-token TOKEN",
                    conn.server
                );
                Ok(ExitCode::SUCCESS)
            }
            AdminCommand::DisableBot(a) => update(a, Some(true), false).await,
            AdminCommand::EnableBot(a) => update(a, Some(false), false).await,
            AdminCommand::RotateToken(a) => update(a, None, true).await,
            AdminCommand::SetQuota { name, max_tables, conn } => {
                let mut client = connect(&server_url(&conn.server)).await?;
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

pub fn tournament(args: TournamentArgs) -> CmdResult {
    runtime()?.block_on(async {
        match args.command {
            TournamentCommand::Create {
                name,
                entrants,
                seats,
                deals,
                lists,
                action_timeout,
                deal_clock,
                seed,
                format,
                rounds,
                start_in,
                conn,
            } => {
                let mut client = connect(&server_url(&conn.server)).await?;
                let start_ms = if start_in.is_zero() {
                    0
                } else {
                    (std::time::SystemTime::now() + start_in)
                        .duration_since(std::time::UNIX_EPOCH)
                        .map_or(0, |d| d.as_millis() as u64)
                };
                let request = pb::CreateTournamentRequest {
                    name,
                    entrants,
                    seats,
                    deals,
                    lists,
                    time_control: Some(pb::TimeControl {
                        action_ms: action_timeout.as_millis() as u64,
                        deal_ms: deal_clock.as_millis() as u64,
                    }),
                    seed,
                    format: if format == "swiss" {
                        pb::TournamentFormat::Swiss
                    } else {
                        pb::TournamentFormat::RoundRobin
                    } as i32,
                    rounds,
                    start_ms,
                };
                let r = client
                    .create_tournament(conn.request(request))
                    .await
                    .map_err(SdkError::from)?
                    .into_inner();
                println!("tournament {} ({} tables planned)", r.tournament_id, r.tables);
                println!("follow it: skat tournament show {} --server {}", r.tournament_id, conn.server);
                Ok(ExitCode::SUCCESS)
            }
            TournamentCommand::Records { id, format, conn } => {
                let (mut client, t) = fetch(&conn, id).await?;
                let format = if format == "json" { pb::RecordFormat::Json } else { pb::RecordFormat::Iss };
                for table in t.tables.iter().filter(|x| x.status == "finished") {
                    let records = client
                        .get_records(pb::GetRecordsRequest {
                            table_id: table.table_id.clone(),
                            format: format as i32,
                        })
                        .await
                        .map_err(SdkError::from)?
                        .into_inner()
                        .records;
                    for r in records {
                        println!("{r}");
                    }
                }
                Ok(ExitCode::SUCCESS)
            }
            TournamentCommand::List { casual, limit, conn } => {
                let mut client = connect(&server_url(&conn.server)).await?;
                let r = client
                    .list_tournaments(conn.request(pb::ListTournamentsRequest {
                        page_size: limit,
                        offset: 0,
                        include_casual: casual,
                    }))
                    .await
                    .map_err(SdkError::from)?
                    .into_inner();
                println!("{:<14} {:<12} {:<24} {:>9} {:<}", "id", "format", "name", "tables", "entrants");
                for t in r.tournaments {
                    println!(
                        "{:<14} {:<12} {:<24} {:>4}/{:<4} {}{}",
                        t.tournament_id,
                        format_name(t.format),
                        t.name,
                        t.finished_tables,
                        t.tables,
                        t.entrants.join(", "),
                        if t.finished { " (complete)" } else { "" }
                    );
                }
                Ok(ExitCode::SUCCESS)
            }
            TournamentCommand::Show { id, conn } => {
                let (_, t) = fetch(&conn, id).await?;
                let done = t.tables.iter().filter(|x| x.status == "finished").count();
                println!(
                    "tournament {} `{}`: {done}/{} tables finished{}",
                    t.tournament_id,
                    t.name,
                    t.tables.len(),
                    if t.finished { " (complete)" } else { "" }
                );
                println!(
                    "{:<20} {:>5} {:>8} {:>9} {:>8} {:>9} {:>9}",
                    "entrant", "lists", "SF total", "SF mean", "±95%", "won/decl", "penalties"
                );
                for s in &t.standings {
                    println!(
                        "{:<20} {:>5} {:>8} {:>9.1} {:>8.1} {:>4}/{:<4} {:>9}",
                        s.name, s.lists, s.seeger_fabian, s.mean, s.ci95, s.won, s.declared, s.penalties
                    );
                }
                if t.rounds > 0 {
                    println!("Swiss: round {} of {}", t.round, t.rounds);
                }
                println!("head-to-head (Seeger-Fabian per meeting):");
                for m in &t.meetings {
                    let who: Vec<String> =
                        m.entrants.iter().zip(&m.seeger_fabian).map(|(n, sf)| format!("{n} {sf}")).collect();
                    let round = if m.round > 0 { format!("round {}: ", m.round) } else { String::new() };
                    println!("  {round}{}  ({}/{} tables)", who.join(" · "), m.finished, m.tables);
                }
                Ok(ExitCode::SUCCESS)
            }
        }
    })
}

pub fn leaderboard(args: LeaderboardArgs) -> CmdResult {
    runtime()?.block_on(async {
        let mut client = connect(&server_url(&args.server)).await?;
        if let Some(name) = args.bot {
            let b = client
                .get_bot(pb::GetBotRequest { name })
                .await
                .map_err(SdkError::from)?
                .into_inner()
                .bot
                .unwrap_or_default();
            let state = if b.disabled {
                "disabled"
            } else if b.online {
                "online"
            } else {
                "offline"
            };
            println!("bot {} ({state}; at most {} tables at once)", b.name, b.max_tables);
            match &b.rating {
                Some(r) => println!("rating {:.2} ± {:.2} after {} lists", r.rating, r.uncertainty, r.lists),
                None => println!("not rated yet"),
            }
            println!("rating history:");
            for p in b.history.iter().rev().take(args.limit as usize) {
                println!("  {} {:>7.2} ± {:<5.2} {}", p.at_ms, p.rating, p.uncertainty, p.table_id);
            }
            println!("recent lists:");
            for l in b.recent.iter().take(args.limit as usize) {
                let who: Vec<String> =
                    l.seating.iter().zip(&l.seeger_fabian).map(|(n, sf)| format!("{n} {sf}")).collect();
                println!("  {} ({}): {}", l.table_id, l.tournament_id, who.join(" · "));
            }
            return Ok(ExitCode::SUCCESS);
        }
        let r = client
            .get_leaderboard(pb::GetLeaderboardRequest { page_size: args.limit, offset: 0 })
            .await
            .map_err(SdkError::from)?
            .into_inner();
        println!("{:<4} {:<20} {:>7} {:>7} {:>6}", "#", "bot", "rating", "±", "lists");
        for (i, e) in r.entries.iter().enumerate() {
            println!("{:<4} {:<20} {:>7.2} {:>7.2} {:>6}", i + 1, e.name, e.rating, e.uncertainty, e.lists);
        }
        Ok(ExitCode::SUCCESS)
    })
}

async fn update(a: NameConn, disabled: Option<bool>, rotate_token: bool) -> CmdResult {
    let mut client = connect(&server_url(&a.conn.server)).await?;
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

fn format_name(f: i32) -> &'static str {
    match pb::TournamentFormat::try_from(f) {
        Ok(pb::TournamentFormat::Swiss) => "swiss",
        Ok(pb::TournamentFormat::Casual) => "casual",
        _ => "round-robin",
    }
}

/// A connection to the server and the tournament `id`.
async fn fetch(
    conn: &Conn,
    id: String,
) -> Result<(pb::skat_service_client::SkatServiceClient<tonic::transport::Channel>, pb::Tournament), SdkError>
{
    let mut client = connect(&server_url(&conn.server)).await?;
    let t = client
        .get_tournament(conn.request(pb::GetTournamentRequest { tournament_id: id }))
        .await?
        .into_inner()
        .tournament
        .unwrap_or_default();
    Ok((client, t))
}
