//! `skat leaderboard`: the ratings, or one bot's rating history and recent lists.

use std::process::ExitCode;

use skat_proto::pb;
use skat_sdk::SdkError;

use super::CmdResult;
use super::conn::{ServerArgs, runtime};
use super::text::{cell, date};

#[derive(Debug, clap::Args)]
pub struct LeaderboardArgs {
    #[command(flatten)]
    server: ServerArgs,
    /// Most entries.
    #[arg(long, default_value_t = 50)]
    limit: u32,
    /// Show one bot instead: its rating history and recent lists.
    #[arg(long)]
    bot: Option<String>,
}

pub fn leaderboard(args: LeaderboardArgs) -> CmdResult {
    runtime()?.block_on(async {
        let mut client = args.server.connect(None).await?;
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
            outln!(
                "bot {} ({state}; at most {} tables at once; since {})",
                b.name,
                b.max_tables,
                date(b.created_ms)
            );
            match &b.rating {
                Some(r) => outln!("rating {:.2} ± {:.2} after {} lists", r.rating, r.uncertainty, r.lists),
                None => outln!("not rated yet"),
            }
            outln!("rating history:");
            for p in b.history.iter().rev().take(args.limit as usize) {
                outln!("  {} {:>7.2} ± {:<5.2} {}", date(p.at_ms), p.rating, p.uncertainty, p.table_id);
            }
            outln!("recent lists:");
            for l in b.recent.iter().take(args.limit as usize) {
                let who: Vec<String> =
                    l.seating.iter().zip(&l.seeger_fabian).map(|(n, sf)| format!("{n} {sf}")).collect();
                outln!("  {} ({}): {}", l.table_id, l.tournament_id, who.join(" · "));
            }
            return Ok(ExitCode::SUCCESS);
        }
        let r = client
            .get_leaderboard(pb::GetLeaderboardRequest { page_size: args.limit, offset: 0 })
            .await
            .map_err(SdkError::from)?
            .into_inner();
        outln!("{:<4} {} {:>7} {:>7} {:>6}", "#", cell("bot", 24), "rating", "±", "lists");
        for (i, e) in r.entries.iter().enumerate() {
            outln!(
                "{:<4} {} {:>7.2} {:>7.2} {:>6}",
                i + 1,
                cell(&e.name, 24),
                e.rating,
                e.uncertainty,
                e.lists
            );
        }
        Ok(ExitCode::SUCCESS)
    })
}
