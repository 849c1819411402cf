//! `skat bench`: complete random deals per second on one thread.
//!
//! Each deal is dealt from the seed, bid, declared and played to the end by the same
//! random players as `skat selfplay`, then scored; nothing is printed per deal.

use std::hint::black_box;
use std::process::ExitCode;
use std::time::Instant;

use skat_engine::random::RandomPlayer;
use skat_engine::{Deal, Dealt, Outcome};

use super::CmdResult;

#[derive(Debug, clap::Args)]
pub struct Args {
    /// Number of deals to play.
    #[arg(long, default_value_t = 2_000_000)]
    deals: u64,
    /// Seed for the cards and the players.
    #[arg(long, default_value_t = 1)]
    seed: u64,
}

pub fn run(args: Args) -> CmdResult {
    let mut player = RandomPlayer::new(args.seed);
    let (mut games, mut passed, mut cards, mut score) = (0u64, 0u64, 0u64, 0i64);
    let start = Instant::now();
    for number in 0..args.deals {
        let mut deal = Deal::new(Dealt::seeded(args.seed, number));
        while let Some(p) = deal.to_move() {
            let action = player.choose(&deal, p);
            if deal.apply(p, action).is_err() {
                return Err("random player chose an illegal action".into());
            }
            cards += u64::from(matches!(action, skat_engine::Action::Play { .. }));
        }
        match black_box(deal.outcome()) {
            Some(Outcome::Game(g)) => {
                games += 1;
                score += i64::from(g.score());
            }
            _ => passed += 1,
        }
    }
    let secs = start.elapsed().as_secs_f64();
    outln!(
        "deals: {} (games {games}, passed in {passed}), cards played: {cards}, score sum: {score}",
        args.deals
    );
    outln!("elapsed: {secs:.3} s, {:.0} ns/deal", secs * 1e9 / args.deals.max(1) as f64);
    outln!("{:.0} deals/s", args.deals as f64 / secs);
    Ok(ExitCode::SUCCESS)
}
