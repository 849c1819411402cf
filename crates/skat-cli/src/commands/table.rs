//! `skat table create|list|records`: make a table for bots and say how to seat them; list
//! the server's tables; print a table's records.

use std::process::ExitCode;
use std::time::Duration;

use skat_proto::pb;
use skat_sdk::client::with_token;
use skat_sdk::{SdkError, SeatClient};

use super::CmdResult;

#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, clap::Subcommand)]
enum Command {
    /// Create a table; print its id and how to seat bots (or, with --take-seats, a seat
    /// token for each seat to hand to a bot).
    Create(CreateArgs),
    /// List the server's tables, newest first.
    List(ListArgs),
    /// Print a table's records of its finished deals, one per line (ISS or JSON).
    Records(RecordsArgs),
}

#[derive(Debug, clap::Args)]
struct RecordsArgs {
    #[command(flatten)]
    server: super::conn::ServerArgs,
    /// The table.
    id: String,
    /// `iss` or `json`.
    #[arg(long, default_value = "iss", value_parser = ["iss", "json"])]
    format: String,
}

#[derive(Debug, clap::Args)]
struct CreateArgs {
    #[command(flatten)]
    server: super::conn::ServerArgs,
    /// 3 or 4 seats.
    #[arg(long, default_value_t = 3)]
    seats: u32,
    /// Deals in the list (0: the standard 36 at 3 seats, 48 at 4).
    #[arg(long, default_value_t = 0)]
    deals: u32,
    /// Seed of the deals (random when not given; always printed).
    #[arg(long)]
    seed: Option<u64>,
    /// Time per action (`0s`: none; default: the server's).
    #[arg(long, value_parser = humantime::parse_duration)]
    action_timeout: Option<Duration>,
    /// Clock per seat per deal (`0s`: none; default: the server's).
    #[arg(long, value_parser = humantime::parse_duration)]
    deal_clock: Option<Duration>,
    /// A name for people.
    #[arg(long, default_value = "")]
    name: String,
    /// A private table: JoinTable needs the join code printed here.
    #[arg(long)]
    private: bool,
    /// Seat these bot accounts now (comma-separated): house bots (`house-heuristic`) or
    /// accounts whose lobby offers itself to people's tables (`skat bot --open-tables`).
    #[arg(long, value_delimiter = ',')]
    bots: Vec<String>,
    /// Take every seat now and print one seat token per seat (`--token` of `skat bot`,
    /// the Python and TypeScript SDKs' `play_with_token`).
    #[arg(long)]
    take_seats: bool,
    /// The server's page (`https://skat.example.org/`): with --take-seats, each seat's
    /// link for a person to open (the page takes the seat into that browser tab). A link
    /// holds its seat's token: hand it to that person only.
    #[arg(long, requires = "take_seats")]
    page: Option<String>,
    /// The seats' names with --take-seats, comma-separated (default `seat 0`, `seat 1`...).
    #[arg(long, value_delimiter = ',', requires = "take_seats")]
    seat_names: Vec<String>,
    /// The operator's token: `skat serve --create-token`, or the admin token. Needed to
    /// create a table on a server with a create token, and (with --take-seats) to take
    /// seats on one that seats anonymous clients only through lobbies (`--anonymous
    /// spectate|none`).
    #[arg(long, visible_alias = "admin-token", env = "SKAT_CREATE_TOKEN", hide_env_values = true)]
    create_token: Option<String>,
}

#[derive(Debug, clap::Args)]
struct ListArgs {
    #[command(flatten)]
    server: super::conn::ServerArgs,
    /// Which tables: `all`, `live` (waiting or playing) or `finished`.
    #[arg(long, default_value = "all")]
    filter: String,
    /// At most this many.
    #[arg(long, default_value_t = 50)]
    limit: u32,
}

pub fn run(args: Args) -> CmdResult {
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build()?;
    runtime.block_on(async {
        match args.command {
            Command::Create(a) => create(a).await,
            Command::List(a) => list(a).await,
            Command::Records(a) => records(a).await,
        }
    })
}

async fn records(a: RecordsArgs) -> CmdResult {
    let mut client = a.server.connect(None).await?;
    let format = if a.format == "json" { pb::RecordFormat::Json } else { pb::RecordFormat::Iss };
    let request = pb::GetRecordsRequest { table_id: a.id.clone(), format: format as i32 };
    let records = client.get_records(request).await.map_err(SdkError::from)?.into_inner().records;
    for r in records {
        outln!("{r}");
    }
    Ok(ExitCode::SUCCESS)
}

async fn create(a: CreateArgs) -> CmdResult {
    let mut client = a.server.connect(a.create_token.as_ref().map(|_| "create token")).await?;
    let time_control = super::conn::time_control(a.action_timeout, a.deal_clock);
    let request = pb::CreateTableRequest {
        name: a.name.clone(),
        seats: a.seats,
        deals: a.deals,
        seed: a.seed,
        time_control,
        private: a.private,
        bots: a.bots.clone(),
    };
    let request = match &a.create_token {
        Some(t) => with_token(request, t),
        None => tonic::Request::new(request),
    };
    let created = client.create_table(request).await.map_err(SdkError::from)?.into_inner();
    let id = created.table_id;
    let deals = created.table.as_ref().map_or(0, |t| t.deals);
    let address = a.server.address();
    let address = if created.owner_address.is_empty() { address } else { address.at(&created.owner_address) };
    let server = address.url().to_string();
    outln!("table {id}");
    outln!("  {} seats, {deals} deals, seed {}, server {server}", a.seats.max(3), created.seed);
    if !created.join_code.is_empty() {
        outln!("  join code {} (private: JoinTable needs it)", created.join_code);
    }
    if a.take_seats {
        for seat in 0..a.seats.max(3) {
            // The token that made the table seats it too: on a server that seats
            // anonymous clients only through lobbies (--anonymous spectate|none), the
            // operator's token is what lets these joins in.
            let name = a.seat_names.get(seat as usize).cloned().unwrap_or_else(|| format!("seat {seat}"));
            let (sc, _) = SeatClient::join_as(
                &address,
                &id,
                &name,
                Some(seat),
                &created.join_code,
                a.create_token.as_deref(),
            )
            .await?;
            outln!("  seat {seat} token {}", sc.token());
            if let Some(page) = &a.page {
                outln!(
                    "         link  {}#/sit/{id}/{}",
                    page.trim_end_matches('/').to_string() + "/",
                    sc.token()
                );
            }
        }
        outln!(
            "\nPlay a seat with its token: a bot with one of these, a person with the seat's link or on the page's Play view:"
        );
        outln!("  skat bot --server {server} --table {id} --token TOKEN");
        outln!("  python -m skat_bot --server {server} --table {id} --token TOKEN");
    } else {
        outln!("\nSeat bots (each takes the first open seat; --seat N for a given one):");
        outln!("  skat bot --strategy heuristic --server {server} --table {id}");
        outln!("  python -m skat_bot --server {server} --table {id}   # after pip install ./clients/python");
        outln!(
            "  node clients/typescript/dist/src/main.js --server {server} --table {id}   # after (cd clients/typescript && npm ci)"
        );
    }
    outln!("Watch it: skat watch {id} --server {server}");
    Ok(ExitCode::SUCCESS)
}

fn status_name(status: i32) -> &'static str {
    match pb::TableStatus::try_from(status) {
        Ok(pb::TableStatus::Waiting) => "waiting",
        Ok(pb::TableStatus::Playing) => "playing",
        Ok(pb::TableStatus::Finished) => "finished",
        Ok(pb::TableStatus::Abandoned) => "abandoned",
        _ => "?",
    }
}

async fn list(a: ListArgs) -> CmdResult {
    let filter = match a.filter.as_str() {
        "all" => pb::TableFilter::Unspecified,
        "live" => pb::TableFilter::Live,
        "finished" => pb::TableFilter::Finished,
        other => return Err(format!("--filter is all, live or finished, not `{other}`").into()),
    };
    let mut client = a.server.connect(None).await?;
    let mut shown = 0;
    let mut page_token = String::new();
    while shown < a.limit {
        let page = client
            .list_tables(pb::ListTablesRequest {
                filter: filter as i32,
                page_size: (a.limit - shown).min(1000),
                page_token: page_token.clone(),
            })
            .await
            .map_err(SdkError::from)?
            .into_inner();
        if page_token.is_empty() && !page.tables.is_empty() {
            outln!("{:<24} {:<9} {:>5} {:>7} {:<8} players", "table", "status", "seats", "deals", "name");
        }
        for t in &page.tables {
            let players: Vec<&str> = t.players.iter().map(String::as_str).filter(|p| !p.is_empty()).collect();
            outln!(
                "{:<24} {:<9} {:>2}/{:<2} {:>3}/{:<3} {:<8} {}",
                t.table_id,
                status_name(t.status),
                t.occupied,
                t.seats,
                t.deals_played,
                t.deals,
                t.name,
                players.join(", ")
            );
            shown += 1;
        }
        if page.next_page_token.is_empty() {
            break;
        }
        page_token = page.next_page_token;
    }
    if shown == 0 {
        outln!("(no tables)");
    }
    Ok(ExitCode::SUCCESS)
}
