//! `skat bot`: run a built-in strategy against a server.

use std::process::ExitCode;

use skat_bots::Strategy;
use skat_sdk::play::{OnIllegal, PlayOptions, play};
use skat_sdk::{SdkError, SeatClient};

use super::CmdResult;

#[derive(Debug, clap::Args)]
#[command(args_conflicts_with_subcommands = true, subcommand_negates_reqs = true)]
pub struct Args {
    /// Hosted versions of an account's bot (docs/hosted-bots.md); without one, run a
    /// built-in strategy.
    #[command(subcommand)]
    action: Option<super::hosted::BotAction>,
    /// The strategy: `random`, `heuristic`, `pimc-fast`, `pimc`, `pimc-bold`, `pimc-sim`
    /// (the ladder of levels, weakest first; docs/bots.md) or `pimc-plain`; pimc's settings
    /// after colons, e.g. `pimc:samples=48:nodes=800000:evidence=off:bold=50`.
    #[arg(long, default_value = "heuristic")]
    strategy: String,
    #[command(flatten)]
    server: super::conn::ServerArgs,
    /// The table to join (takes the first open seat unless --seat). Without it, and with
    /// --bot-token, the bot enters its account's lobby and plays every seat it is given.
    #[arg(long, env = "SKAT_TABLE", required_unless_present = "bot_token")]
    table: Option<String>,
    /// An account's bot token (RegisterBot, `skat admin register-bot`): lobby mode.
    #[arg(long, env = "SKAT_BOT_TOKEN", hide_env_values = true)]
    bot_token: Option<String>,
    /// In lobby mode, stop after this many finished tables (default: run until stopped).
    #[arg(long)]
    lists: Option<usize>,
    /// In lobby mode, play at most this many tables at once (default: the account's quota).
    #[arg(long, default_value_t = 0)]
    max_tables: u32,
    /// In lobby mode, also ask for casual play at tables of 3 or 4 seats: matched with
    /// other bots as they arrive, one duplicate list in every rotation, rated.
    #[arg(long, value_parser = clap::value_parser!(u32).range(3..=4))]
    casual: Option<u32>,
    /// In lobby mode, accept challenges from these accounts (comma-separated; `*`:
    /// anybody) and decline the others. Without it the bot is not shown challenges.
    #[arg(long, value_delimiter = ',')]
    accept_challenges: Vec<String>,
    /// In lobby mode, offer the account to people's tables: a table created with
    /// `bots` naming it seats it (within its quota).
    #[arg(long)]
    open_tables: bool,
    /// A seat token handed out by `skat arena`, a lobby, or the runner of hosted bots
    /// (plays that seat instead of joining).
    #[arg(long, env = "SKAT_SEAT_TOKEN", hide_env_values = true)]
    token: Option<String>,
    /// The seat to take when joining.
    #[arg(long)]
    seat: Option<u32>,
    /// The name shown to others.
    #[arg(long)]
    name: Option<String>,
    /// The operator's create or admin token, for joining a hand-made table on a server
    /// that seats anonymous clients only through lobbies (`--anonymous spectate|none`).
    #[arg(long, visible_alias = "admin-token", env = "SKAT_CREATE_TOKEN", hide_env_values = true)]
    create_token: Option<String>,
    /// The join code of a private table.
    #[arg(long, default_value = "")]
    join_code: String,
    /// A join key to keep (16 to 128 printable characters, e.g. a UUID): run the bot
    /// again with the same key and name after a crash and it gets its seat back instead
    /// of a new one. Default: a random key (a lost JoinTable answer is still retried).
    #[arg(long, env = "SKAT_JOIN_KEY", hide_env_values = true)]
    join_key: Option<String>,
    /// When the server refuses the bot's action as illegal (or the SDK finds it so):
    /// `fallback` plays the first legal action, `resign` gives the deal up, `stop` leaves
    /// the seat. Each case is logged first (`illegal action refused`).
    #[arg(long, default_value = "fallback", value_parser = ["fallback", "resign", "stop"])]
    on_illegal: String,
    /// Seed for strategies that use randomness.
    #[arg(long, default_value_t = 1)]
    seed: u64,
}

pub fn run(mut args: Args) -> CmdResult {
    if let Some(action) = args.action.take() {
        return super::hosted::run(action);
    }
    // Checks the strategy's name before anything connects.
    Strategy::parse(&args.strategy, args.seed)?;
    super::process::init_tracing(super::process::LogFormat::Text);
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build()?;
    let on_illegal: OnIllegal = args.on_illegal.parse()?;
    let Some(table) = args.table.clone() else {
        return runtime.block_on(lobby(&args, on_illegal));
    };
    let mut bot = Strategy::by_name(&args.strategy, args.seed).ok_or("unknown strategy")?;
    let options = PlayOptions { on_illegal, ..PlayOptions::default() };
    let finished = runtime.block_on(async {
        let seat = seat(&args, &table).await?;
        play(seat, &mut bot, options).await
    })?;
    outln!("seat {} finished ({} reconnects)", finished.seat, finished.reconnects);
    for s in &finished.standings {
        outln!(
            "seat {} {:<16} plain {:>6}  Seeger-Fabian {:>6}  declared {} won {}",
            s.seat,
            s.name,
            s.plain,
            s.seeger_fabian,
            s.declared,
            s.won
        );
    }
    Ok(ExitCode::SUCCESS)
}

/// The account's lobby: tables as the server seats the bot, until `--lists` are played.
async fn lobby(args: &Args, on_illegal: OnIllegal) -> CmdResult {
    let bot_token = args.bot_token.clone().unwrap_or_default();
    let (strategy, seed) = (args.strategy.clone(), args.seed);
    let options = skat_sdk::lobby::LobbyOptions {
        on_illegal,
        lists: args.lists,
        max_tables: args.max_tables,
        casual_seats: args.casual.unwrap_or(0),
        accept_challenges: args.accept_challenges.clone(),
        open_tables: args.open_tables,
    };
    let new_bot = move || {
        Strategy::by_name(&strategy, seed)
            .unwrap_or_else(|| Strategy::by_name("random", seed).expect("built in"))
    };
    let result = skat_sdk::lobby::run(&args.server.address(), &bot_token, new_bot, options).await?;
    outln!("lobby: {} tables played, {} stopped", result.finished.len(), result.failed.len());
    Ok(ExitCode::SUCCESS)
}

/// The seat: from a token handed out elsewhere, or joined (with a join key, the same seat
/// again after a crash).
async fn seat(args: &Args, table: &str) -> Result<SeatClient, SdkError> {
    let address = args.server.address();
    if let Some(token) = &args.token {
        return Ok(SeatClient::with_token(&address, table, token).await?.0);
    }
    let name = args.name.clone().unwrap_or_else(|| args.strategy.clone());
    let create = args.create_token.as_deref();
    let (seat, _) = match &args.join_key {
        Some(key) => {
            SeatClient::join_keyed(&address, table, &name, args.seat, &args.join_code, create, key).await?
        }
        None => SeatClient::join_as(&address, table, &name, args.seat, &args.join_code, create).await?,
    };
    Ok(seat)
}
