//! House bots: built-in opponents that are always there, as bot accounts named
//! `house-STRATEGY`, played through their lobbies like any bot, accepting every challenge
//! and every person's table that asks for them (`CreateTable.bots`).
//!
//! | rule | why |
//! |---|---|
//! | each is an account the operator's token makes (RegisterBot) or takes back at every start (UpdateBot: enabled, a new token, its quota) | the token lives only in this process; a restart needs none stored |
//! | each runs on a runtime of its own (`--house-bot-threads` each, default 1) | its thinking is bounded to that many cores and never takes a worker that serves play or another house bot's |
//! | each plays at most `--house-bot-tables` tables at once | the account's quota, held by the server |
//! | PIMC thinks within its node budget per decision (400,000 nodes, about 30 ms) | a house bot answers in time under any time control the server allows |
//! | in `skat serve --house-bots` they reach the server over loopback in plain text; with TLS, run `skat house-bots --server https://...` beside it | the same code; tokens never cross a network in plain text |
//!
//! Their strength is measured in docs/BENCHMARKS.md (the arena's standings): they are the
//! ladder of levels (docs/bots.md), `random` the floor, `heuristic` a club player's rules,
//! `pimc-fast` and `pimc` search, `pimc-bold` bolder, `pimc-sim` the strongest built-in
//! (its games chosen by simulation). Names beginning with
//! `house-` are registered only with the admin token, so the page can mark them as levels.

use std::time::Duration;

use skat_bots::Strategy;
use skat_proto::pb;
use skat_sdk::client::with_token;
use skat_sdk::lobby::LobbyOptions;
use skat_sdk::{SdkError, ServerAddress};

/// What the house bots may use.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Budget {
    /// Threads each house bot thinks on, on a runtime of its own (its CPU budget).
    pub threads: u32,
    /// Tables each house bot plays at once.
    pub tables: u32,
}

/// The account name of a strategy (one [`check`] let through: a built-in name).
pub fn account_name(strategy: &str) -> String {
    format!("house-{strategy}")
}

/// Checks the strategies' names before anything connects: built-in names only. A house
/// bot plays as `house-NAME`, which the page marks as that level of the ladder; a pimc
/// with settings would play at another strength under a level's name.
pub fn check(bots: &[String]) -> Result<(), String> {
    if bots.is_empty() {
        return Err("no house bots named".into());
    }
    for b in bots {
        Strategy::parse(b, 0)?;
        if b.contains(':') {
            return Err(format!(
                "`{b}`: house bots are built-in names without settings (their accounts, house-NAME, are the ladder's levels); run a tuned bot as an account of its own (skat bot --bot-token)"
            ));
        }
    }
    Ok(())
}

/// A house bot's own runtime: `threads` workers.
fn runtime(name: &str, budget: Budget) -> std::io::Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(budget.threads as usize)
        .thread_name(name)
        .enable_all()
        .build()
}

/// Starts every house bot on a thread and runtime of its own (its CPU budget); the
/// threads end when their bot stops (disabled, or given a new token, by the operator).
pub fn spawn(
    address: ServerAddress,
    admin: String,
    bots: Vec<String>,
    budget: Budget,
) -> std::io::Result<Vec<std::thread::JoinHandle<()>>> {
    let mut threads = Vec::new();
    for (i, strategy) in bots.into_iter().enumerate() {
        let name = account_name(&strategy);
        let runtime = runtime(&name, budget)?;
        let (address, admin) = (address.clone(), admin.clone());
        threads.push(std::thread::Builder::new().name(name.clone()).spawn(move || {
            if let Err(e) = runtime.block_on(host(address, &admin, &strategy, i as u64, budget)) {
                tracing::error!(bot = %name, error = %e, "house bot stopped");
            }
        })?);
    }
    Ok(threads)
}

/// Makes (or takes back) a house account and plays it through its lobby until the
/// operator disables it or gives it a new token: a lobby that ends otherwise (the server
/// restarting for long) starts again after a pause.
async fn host(
    address: ServerAddress,
    admin: &str,
    strategy: &str,
    i: u64,
    budget: Budget,
) -> Result<(), SdkError> {
    let name = account_name(strategy);
    let token = account(&address, admin, &name, strategy, budget.tables).await?;
    tracing::info!(bot = %name, tables = budget.tables, threads = budget.threads, "house bot ready");
    loop {
        let strategy = strategy.to_string();
        let seed = 0x4853_u64 ^ i;
        let options = LobbyOptions {
            max_tables: budget.tables,
            accept_challenges: vec!["*".into()],
            open_tables: true,
            ..LobbyOptions::default()
        };
        let make = move || {
            Strategy::by_name(&strategy, seed)
                .unwrap_or_else(|| Strategy::by_name("random", seed).expect("built in"))
        };
        match skat_sdk::lobby::run(&address, &token, make, options).await {
            Ok(_) => {}
            // Disabled or given a new token by the operator: this one is done.
            Err(e)
                if matches!(
                    e.reason(),
                    Some(pb::ErrorReason::AccountDisabled | pb::ErrorReason::BotTokenInvalid)
                ) =>
            {
                tracing::warn!(bot = %name, error = %e, "house bot stopped");
                return Ok(());
            }
            Err(e) => tracing::warn!(bot = %name, error = %e, "house bot's lobby ended; again in 5 s"),
        }
        tokio::time::sleep(Duration::from_secs(5)).await;
    }
}

/// The house account `name`: registered now, or (when it exists) enabled again with a
/// new token and its quota. Returns its bot token.
async fn account(
    address: &ServerAddress,
    admin: &str,
    name: &str,
    strategy: &str,
    tables: u32,
) -> Result<String, SdkError> {
    address.check_secret("admin token")?;
    // The server may still be starting (skat serve --house-bots): a few tries.
    let mut tries = 0;
    let mut client = loop {
        match address.connect().await {
            Ok(c) => break c,
            Err(e) if tries < 50 => {
                tries += 1;
                tracing::debug!(error = %e, "waiting for the server");
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
            Err(e) => return Err(e),
        }
    };
    let owner = format!("house bot ({strategy}), hosted by the server's operator");
    let register = pb::RegisterBotRequest { name: name.to_string(), owner };
    match client.register_bot(with_token(register, admin)).await {
        Ok(r) => {
            let token = r.into_inner().bot_token;
            let quota = pb::UpdateBotRequest {
                name: name.to_string(),
                max_tables: Some(tables),
                ..Default::default()
            };
            client.update_bot(with_token(quota, admin)).await?;
            Ok(token)
        }
        Err(status) if SdkError::from(status.clone()).reason() == Some(pb::ErrorReason::AccountExists) => {
            let again = pb::UpdateBotRequest {
                name: name.to_string(),
                disabled: Some(false),
                rotate_token: true,
                max_tables: Some(tables),
                ..Default::default()
            };
            Ok(client.update_bot(with_token(again, admin)).await?.into_inner().bot_token)
        }
        Err(status) => Err(status.into()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn house_bots_are_built_in_names_without_settings() {
        let names = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert!(check(&names(&["random", "heuristic", "pimc-fast", "pimc", "pimc-bold"])).is_ok());
        let tuned = check(&names(&["pimc:samples=6"])).unwrap_err();
        assert!(tuned.contains("without settings"), "{tuned}");
        assert!(check(&names(&["pimc-turbo"])).unwrap_err().contains("unknown strategy"));
        assert!(check(&[]).is_err());
        assert_eq!(account_name("pimc-bold"), "house-pimc-bold");
    }
}
