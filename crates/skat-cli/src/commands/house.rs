//! `skat house-bots`: hosts the house bots (`skat_host::house`) against a server, until
//! stopped; `skat serve --house-bots` starts the same beside the server.

use std::process::ExitCode;

use super::CmdResult;

#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    conn: super::conn::Conn,
    /// The strategies to host, comma-separated: the ladder random, heuristic, pimc-fast,
    /// pimc, pimc-bold, pimc-sim (or pimc-plain). Each plays as the account `house-NAME`; names
    /// only, no settings (the page marks `house-pimc` as the ladder's `pimc`).
    #[arg(long, value_delimiter = ',', required = true)]
    bots: Vec<String>,
    #[command(flatten)]
    budget: Budget,
}

/// What the house bots may use (the flags of `skat_host::house::Budget`).
#[derive(Debug, Clone, Copy, clap::Args)]
pub struct Budget {
    /// Threads each house bot thinks on, on a runtime of its own (its CPU budget).
    #[arg(long = "house-bot-threads", env = "SKAT_HOUSE_BOT_THREADS", default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=64))]
    pub threads: u32,
    /// Tables each house bot plays at once.
    #[arg(long = "house-bot-tables", env = "SKAT_HOUSE_BOT_TABLES", default_value_t = 4, value_parser = clap::value_parser!(u32).range(1..=1000))]
    pub tables: u32,
}

impl From<Budget> for skat_host::house::Budget {
    fn from(b: Budget) -> Self {
        skat_host::house::Budget { threads: b.threads, tables: b.tables }
    }
}

/// `skat house-bots`: hosts the bots against a server, until stopped.
pub fn run(args: Args) -> CmdResult {
    super::process::init_tracing(super::process::LogFormat::Text);
    skat_host::house::check(&args.bots)?;
    let admin = args.conn.admin_token.clone().ok_or("house bots need the admin token (--admin-token)")?;
    for bot in skat_host::house::spawn(args.conn.server.address(), admin, args.bots, args.budget.into())? {
        let _ = bot.join();
    }
    Ok(ExitCode::SUCCESS)
}
