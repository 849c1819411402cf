//! `skat tournament`: create, list and show tournaments, fetch their records, and (with
//! the admin token) cancel, pause, resume or move the start of one.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use skat_proto::pb;
use skat_sdk::SdkError;

use super::CmdResult;
use super::conn::{Conn, runtime};
use super::text::{cell, date};

#[derive(Debug, clap::Args)]
pub struct TournamentArgs {
    #[command(subcommand)]
    command: TournamentCommand,
}

#[derive(Debug, clap::Args)]
struct IdConn {
    /// The tournament id.
    id: String,
    #[command(flatten)]
    conn: Conn,
}

/// `skat tournament create`'s settings.
#[derive(Debug, clap::Args)]
struct CreateArgs {
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
    /// Seat no table before this much time has passed (entrants get ready; at most
    /// 366 days).
    #[arg(long, default_value = "0s", value_parser = humantime::parse_duration)]
    start_in: Duration,
    /// Hosted: every entrant plays its active version in the server's sandboxes, pinned
    /// now (`skat tournament show` lists the digests); an entrant without one is refused.
    #[arg(long)]
    hosted: bool,
    #[command(flatten)]
    conn: Conn,
}

#[derive(Debug, clap::Subcommand)]
enum TournamentCommand {
    /// Create a tournament (needs the admin token): every group of entrants meets in
    /// duplicate lists, each in every seat rotation (round robin), or groups by standing
    /// meet round after round (Swiss).
    Create(CreateArgs),
    /// Cancel a tournament (admin): unfinished tables are abandoned (not rated, not in
    /// the standings; a table being played plays on, and does not count); the standings
    /// so far stay.
    Cancel(IdConn),
    /// Pause a tournament (admin): no new table is seated; tables being played go on.
    Pause(IdConn),
    /// Resume a paused tournament (admin).
    Resume(IdConn),
    /// Move the start of a tournament that has not started (admin).
    Reschedule {
        /// The tournament id.
        id: String,
        /// The new start, from now (`0s`: now; at most 366 days).
        #[arg(long, value_parser = humantime::parse_duration, required_unless_present = "start_at")]
        start_in: Option<Duration>,
        /// The new start as a UTC date and time (`2026-12-24T18:00:00Z`).
        #[arg(long, value_parser = humantime::parse_rfc3339_weak, conflicts_with = "start_in")]
        start_at: Option<std::time::SystemTime>,
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
    /// Print every record of a tournament's finished tables (ISS, or JSON lines that
    /// name their table, tournament, players and time), or write one file per table.
    Records {
        /// The tournament id.
        id: String,
        /// `iss` or `json`.
        #[arg(long, default_value = "iss", value_parser = ["iss", "json"])]
        format: String,
        /// Write one file per finished table into this folder (`<n>-<table id>.iss` or
        /// `.jsonl`, `n` its place in the plan) instead of printing.
        #[arg(long)]
        out: Option<PathBuf>,
        #[command(flatten)]
        conn: Conn,
    },
    /// Check, once a tournament is over, that every deal it played came from the secret
    /// it committed to when it was created: the secret matches the commitment (and the
    /// one you kept, with --commitment), and each record's seed and cards follow from it.
    Verify {
        /// The tournament id.
        id: String,
        /// The commitment `create` printed (or the page showed) when the tournament was
        /// announced: what the server says now is checked against it.
        #[arg(long)]
        commitment: Option<String>,
        #[command(flatten)]
        conn: Conn,
    },
    /// Show a tournament: status, start, tables planned and played, standings, meetings.
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
            TournamentCommand::Create(a) => create(a).await,
            TournamentCommand::Records { id, format, out, conn } => records(&conn, id, &format, out).await,
            TournamentCommand::Verify { id, commitment, conn } => verify(&conn, id, commitment).await,
            TournamentCommand::Cancel(a) => control(a, pb::TournamentAction::Cancel, None).await,
            TournamentCommand::Pause(a) => control(a, pb::TournamentAction::Pause, None).await,
            TournamentCommand::Resume(a) => control(a, pb::TournamentAction::Resume, None).await,
            TournamentCommand::Reschedule { id, start_in, start_at, conn } => {
                let at = match (start_in, start_at) {
                    (Some(d), _) if d.is_zero() => 0,
                    (Some(d), _) => unix_ms(SystemTime::now() + d),
                    (None, Some(t)) => unix_ms(t),
                    (None, None) => 0,
                };
                control(IdConn { id, conn }, pb::TournamentAction::Unspecified, Some(at)).await
            }
            TournamentCommand::List { casual, limit, conn } => list(&conn, casual, limit).await,
            TournamentCommand::Show { id, conn } => show(&conn, id).await,
        }
    })
}

impl CreateArgs {
    fn request(&self) -> pb::CreateTournamentRequest {
        let start_ms = if self.start_in.is_zero() { 0 } else { unix_ms(SystemTime::now() + self.start_in) };
        pb::CreateTournamentRequest {
            name: self.name.clone(),
            entrants: self.entrants.clone(),
            seats: self.seats,
            deals: self.deals,
            lists: self.lists,
            time_control: Some(pb::TimeControl {
                action_ms: self.action_timeout.as_millis() as u64,
                deal_ms: self.deal_clock.as_millis() as u64,
                between_deals_ms: 0,
            }),
            seed: self.seed,
            format: if self.format == "swiss" {
                pb::TournamentFormat::Swiss
            } else {
                pb::TournamentFormat::RoundRobin
            } as i32,
            rounds: self.rounds,
            start_ms,
            hosted: self.hosted,
        }
    }
}

/// `skat tournament create`: the tournament, its tables, and the commitment to its deals
/// (keep it: `verify --commitment` checks the deals against it when it is over).
async fn create(a: CreateArgs) -> CmdResult {
    let mut client = a.conn.connect().await?;
    let r = client.create_tournament(a.conn.request(a.request())).await.map_err(SdkError::from)?.into_inner();
    if r.tables_in_all > r.tables {
        outln!(
            "tournament {} ({} tables in all; {} in its first round)",
            r.tournament_id,
            r.tables_in_all,
            r.tables
        );
    } else {
        outln!("tournament {} ({} tables)", r.tournament_id, r.tables_in_all.max(r.tables));
    }
    if !r.deals_commitment.is_empty() {
        outln!("deals committed: {}", r.deals_commitment);
        outln!(
            "  (keep it; when the tournament is over: skat tournament verify {} --commitment {})",
            r.tournament_id,
            r.deals_commitment
        );
    }
    outln!("follow it: skat tournament show {} --server {}", r.tournament_id, a.conn.server.server);
    Ok(ExitCode::SUCCESS)
}

/// `skat tournament records`: printed, or one file per finished table.
async fn records(conn: &Conn, id: String, format: &str, out: Option<PathBuf>) -> CmdResult {
    let (mut client, t) = fetch(conn, id).await?;
    let json = format == "json";
    let format = if json { pb::RecordFormat::Json } else { pb::RecordFormat::Iss };
    if let Some(dir) = &out {
        std::fs::create_dir_all(dir)?;
    }
    let mut files = 0;
    for (n, table) in t.tables.iter().enumerate().filter(|(_, x)| x.status == "finished") {
        let records =
            client
                .get_records(conn.request(pb::GetRecordsRequest {
                    table_id: table.table_id.clone(),
                    format: format as i32,
                }))
                .await
                .map_err(SdkError::from)?
                .into_inner()
                .records;
        match &out {
            Some(dir) => {
                let name = format!("{:04}-{}.{}", n + 1, table.table_id, if json { "jsonl" } else { "iss" });
                let mut text = records.join("\n");
                text.push('\n');
                std::fs::write(dir.join(name), text)?;
                files += 1;
            }
            None => {
                for r in records {
                    outln!("{r}");
                }
            }
        }
    }
    if let Some(dir) = &out {
        outln!("{files} tables written to {}", dir.display());
    }
    Ok(ExitCode::SUCCESS)
}

/// `skat tournament list`.
async fn list(conn: &Conn, casual: bool, limit: u32) -> CmdResult {
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
    outln!(
        "{} {} {} {} {} {:>13} entrants",
        cell("id", 13),
        cell("format", 11),
        cell("status", 9),
        cell("name", 24),
        cell("start", 20),
        "played/in all"
    );
    for t in r.tournaments {
        outln!(
            "{} {} {} {} {} {:>13} {}",
            cell(&t.tournament_id, 13),
            cell(format_name(t.format), 11),
            cell(status_name(t.status), 9),
            cell(&t.name, 24),
            cell(&date(t.start_ms), 20),
            played(t.finished_tables, t.tables_in_all.max(t.tables), t.tables_abandoned),
            t.entrants.join(", "),
        );
    }
    Ok(ExitCode::SUCCESS)
}

/// `skat tournament show`: the head, the standings and the meetings.
async fn show(conn: &Conn, id: String) -> CmdResult {
    let (_, t) = fetch(conn, id).await?;
    let done = t.tables.iter().filter(|x| x.status == "finished").count() as u32;
    let in_all = t.tables_in_all.max(t.tables.len() as u32);
    outln!("tournament {} `{}` ({}, {} seats)", t.tournament_id, t.name, format_name(t.format), t.seats);
    outln!("status   {}", status_name(t.status));
    outln!("start    {}", date(t.start_ms));
    if t.finished_ms > 0 {
        outln!("ended    {}", date(t.finished_ms));
    }
    let abandoned =
        if t.tables_abandoned > 0 { format!(", {} abandoned", t.tables_abandoned) } else { String::new() };
    outln!("tables   {done}/{in_all} played{abandoned}, {} playing now", t.tables_playing);
    if t.tables_waiting > 0 {
        outln!("         {} waiting for places on the runners (their clocks do not run)", t.tables_waiting);
    }
    if t.estimated_finish_ms > 0 {
        outln!("estimate over by {} (from its finished tables' times)", date(t.estimated_finish_ms));
    }
    if t.rounds > 0 {
        outln!("Swiss    round {} of {}", t.round, t.rounds);
    }
    for v in &t.versions {
        let runs = if v.command.is_empty() {
            "its entry point".to_string()
        } else {
            serde_json::to_string(&v.command).unwrap_or_default()
        };
        let version =
            if v.version_id.is_empty() { String::new() } else { format!("version {}, ", v.version_id) };
        outln!("hosted   {} plays {} ({version}runs {runs})", v.name, v.digest);
    }
    if !t.deals_commitment.is_empty() {
        outln!("deals    committed: {}", t.deals_commitment);
        if !t.deals_secret.is_empty() {
            outln!(
                "         secret revealed: {} (skat tournament verify {})",
                t.deals_secret,
                t.tournament_id
            );
        }
    }
    standings(&t);
    Ok(ExitCode::SUCCESS)
}

/// A tournament's standings and head-to-head, as `show` prints them.
fn standings(t: &pb::Tournament) {
    outln!(
        "{} {:>5} {:>8} {:>9} {:>8} {:>9} {:>9}",
        cell("entrant", 24),
        "lists",
        "SF total",
        "SF mean",
        "±95%",
        "won/decl",
        "penalties"
    );
    for s in &t.standings {
        outln!(
            "{} {:>5} {:>8} {:>9.1} {:>8.1} {:>4}/{:<4} {:>9}",
            cell(&s.name, 24),
            s.lists,
            s.seeger_fabian,
            s.mean,
            s.ci95,
            s.won,
            s.declared,
            s.penalties
        );
    }
    outln!("head-to-head (Seeger-Fabian per meeting):");
    for m in &t.meetings {
        let who: Vec<String> =
            m.entrants.iter().zip(&m.seeger_fabian).map(|(n, sf)| format!("{n} {sf}")).collect();
        let round = if m.round > 0 { format!("round {}: ", m.round) } else { String::new() };
        outln!("  {round}{}  ({}/{} tables)", who.join(" · "), m.finished, m.tables);
    }
}

/// `played/in all`, with the abandoned ones when there are.
fn played(finished: u32, in_all: u32, abandoned: u32) -> String {
    if abandoned > 0 {
        format!("{finished}/{in_all} ({abandoned} abandoned)")
    } else {
        format!("{finished}/{in_all}")
    }
}

fn status_name(s: i32) -> &'static str {
    match pb::TournamentStatus::try_from(s) {
        Ok(pb::TournamentStatus::Scheduled) => "scheduled",
        Ok(pb::TournamentStatus::Running) => "running",
        Ok(pb::TournamentStatus::Paused) => "paused",
        Ok(pb::TournamentStatus::Finished) => "finished",
        Ok(pb::TournamentStatus::Cancelled) => "cancelled",
        _ => "unknown",
    }
}

fn unix_ms(t: SystemTime) -> u64 {
    t.duration_since(UNIX_EPOCH).map_or(0, |d| d.as_millis() as u64)
}

/// `skat tournament verify` (see its help).
async fn verify(conn: &Conn, id: String, kept: Option<String>) -> CmdResult {
    let (mut client, t) = fetch(conn, id).await?;
    let lists = t.meetings.first().map_or(1, |m| (m.tables / t.seats.max(1)).max(1));
    let verifier = skat_league::deals::Verifier::new(
        &t.deals_secret,
        &t.deals_commitment,
        kept.as_deref(),
        t.meetings.len() as u64,
        u64::from(lists),
    )?;
    let (mut tables, mut deals) = (0, 0);
    for table in t.tables.iter().filter(|x| x.status == "finished") {
        let records = client
            .get_records(conn.request(pb::GetRecordsRequest {
                table_id: table.table_id.clone(),
                format: pb::RecordFormat::Json as i32,
            }))
            .await
            .map_err(SdkError::from)?
            .into_inner()
            .records;
        for line in records {
            let r: skat_engine::DealRecord = serde_json::from_str(&line)?;
            let seed =
                r.seed.ok_or_else(|| format!("table {}: a record without its seed", table.table_id))?;
            verifier
                .check_seed(seed)
                .map_err(|e| format!("table {} deal {}: {e}", table.table_id, r.number))?;
            if r.dealt != skat_engine::Dealt::seeded(seed, u64::from(r.number)) {
                return Err(format!(
                    "table {} deal {}: the cards are not the seed's",
                    table.table_id, r.number
                )
                .into());
            }
            deals += 1;
        }
        tables += 1;
    }
    outln!(
        "verified: {tables} tables, {deals} deals dealt from the secret committed as {}",
        t.deals_commitment
    );
    Ok(ExitCode::SUCCESS)
}

/// UpdateTournament, and what the tournament is after it.
async fn control(a: IdConn, action: pb::TournamentAction, start_ms: Option<u64>) -> CmdResult {
    let mut client = a.conn.connect().await?;
    let r = client
        .update_tournament(a.conn.request(pb::UpdateTournamentRequest {
            tournament_id: a.id,
            action: action as i32,
            start_ms,
        }))
        .await
        .map_err(SdkError::from)?
        .into_inner();
    let t = r.tournament.unwrap_or_default();
    outln!(
        "tournament {} `{}`: {}, start {}, {} tables played",
        t.tournament_id,
        t.name,
        status_name(t.status),
        date(t.start_ms),
        played(t.finished_tables, t.tables_in_all.max(t.tables), t.tables_abandoned)
    );
    Ok(ExitCode::SUCCESS)
}

fn format_name(f: i32) -> &'static str {
    match pb::TournamentFormat::try_from(f) {
        Ok(pb::TournamentFormat::Swiss) => "swiss",
        Ok(pb::TournamentFormat::Casual) => "casual",
        Ok(pb::TournamentFormat::Challenge) => "challenge",
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
