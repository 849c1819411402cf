//! `skat tournament`: create, list and show tournaments, and fetch their records.

use std::process::ExitCode;
use std::time::Duration;

use skat_proto::pb;
use skat_sdk::SdkError;

use super::CmdResult;
use super::conn::{Conn, runtime};

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
                let mut client = conn.connect().await?;
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
                println!(
                    "follow it: skat tournament show {} --server {}",
                    r.tournament_id, conn.server.server
                );
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
                let mut client = conn.connect().await?;
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
    let mut client = conn.connect().await?;
    let t = client
        .get_tournament(conn.request(pb::GetTournamentRequest { tournament_id: id }))
        .await?
        .into_inner()
        .tournament
        .unwrap_or_default();
    Ok((client, t))
}
