//! PIMC decision time (docs/BENCHMARKS.md):
//!
//!     cargo bench -p skat-bots --bench pimc
//!
//! Seeded deals driven by the engine: forehand is `pimc` (default settings, then without
//! the auction's evidence, as `pimc-plain`, then the ladder's `pimc-fast`, `pimc-bold` and
//! `pimc-sim`), the others `heuristic`; every decision of the PIMC seat is timed, on one
//! core. Names after `--` run only those (`cargo bench -p skat-bots --bench pimc -- pimc-sim`).

use std::time::{Duration, Instant};

use skat_bot_api::decide;
use skat_bots::{HeuristicBot, PimcBot, PimcConfig};
use skat_engine::seat_view::DealFrame;
use skat_engine::{Deal, Dealt, Position, Seat, SeatView};

fn main() {
    let all = ["pimc", "pimc-plain", "pimc-fast", "pimc-bold", "pimc-sim"];
    let asked: Vec<String> = std::env::args().skip(1).filter(|a| all.contains(&a.as_str())).collect();
    for name in all.into_iter().filter(|n| asked.is_empty() || asked.iter().any(|a| a == n)) {
        let config = skat_bots::pimc_config(name).expect("a built-in PIMC strategy");
        run(name, config);
    }
}

fn run(name: &str, config: PimcConfig) {
    let runtime = tokio::runtime::Builder::new_current_thread().build().expect("a runtime");
    let deals = 60u64;
    let mut times: Vec<Duration> = Vec::new();
    let mut other: Vec<Duration> = Vec::new();
    let mut pimc = PimcBot::new(1, config);
    let mut others = [HeuristicBot::new(), HeuristicBot::new()];
    for d in 0..deals {
        let mut deal = Deal::new(Dealt::seeded(99, d));
        let frame = DealFrame {
            number: d as u32,
            dealer: Seat::new(2),
            seats: [Seat::new(0), Seat::new(1), Seat::new(2)],
        };
        while let Some(p) = deal.to_move() {
            let k = SeatView::from_view(Some(Seat::new(p.index() as u8)), frame, deal.view(Some(p)));
            let card_decision = !k.legal.cards.is_empty();
            let started = Instant::now();
            let action = runtime.block_on(async {
                match p {
                    Position::Forehand => decide(&mut pimc, &k).await,
                    Position::Middlehand => decide(&mut others[0], &k).await,
                    Position::Rearhand => decide(&mut others[1], &k).await,
                }
            });
            if p == Position::Forehand && card_decision && k.legal.cards.len() > 1 {
                times.push(started.elapsed());
            } else if p == Position::Forehand && !card_decision {
                other.push(started.elapsed());
            }
            let Some(action) = action else { break };
            if deal.apply(p, action).is_err() {
                break;
            }
        }
    }
    for (what, mut times) in [
        ("card decisions (more than one legal card)", times),
        ("bidding, skat and declaration decisions", other),
    ] {
        times.sort();
        let q = |f: f64| times[((times.len() - 1) as f64 * f).round() as usize].as_secs_f64() * 1e3;
        println!(
            "{name} {what}, {} over {deals} deals: p50 {:.1} ms, p90 {:.1} ms, p99 {:.1} ms, max {:.1} ms",
            times.len(),
            q(0.5),
            q(0.9),
            q(0.99),
            q(1.0)
        );
    }
}
