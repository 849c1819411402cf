//! Solve times and nodes (docs/BENCHMARKS.md):
//!
//!     cargo bench -p skat-solver --bench solver
//!
//! Whole deals (10 tricks left) of seeded random cards, as grand, clubs and null with
//! the declarer at each position: the exact value ([`Solver::solve`]) and the one
//! question a bot asks most ("does the declarer reach 61?", [`Solver::at_least`]); then
//! positions with fewer tricks left (reached by random legal play). A fresh solver (an
//! empty table) for every position.

use std::time::{Duration, Instant};

use skat_engine::{Dealt, GameType};
use skat_solver::{Position, Solver};

fn percentile(sorted: &[Duration], q: f64) -> Duration {
    sorted[((sorted.len() - 1) as f64 * q).round() as usize]
}

fn report(what: &str, mut times: Vec<Duration>, nodes: u64) {
    times.sort();
    let total: Duration = times.iter().sum();
    println!(
        "{what:<44} {:>4} positions: mean {:>8.2} ms, p50 {:>8.2} ms, p99 {:>8.2} ms, {:>10.0} nodes/position, {:>5.1} M nodes/s",
        times.len(),
        total.as_secs_f64() * 1e3 / times.len() as f64,
        percentile(&times, 0.5).as_secs_f64() * 1e3,
        percentile(&times, 0.99).as_secs_f64() * 1e3,
        nodes as f64 / times.len() as f64,
        nodes as f64 / total.as_secs_f64() / 1e6,
    );
}

/// With `SKAT_SOLVER_EXPORT=DIR`: the whole-deal positions as skatsearch's JSON context
/// files (`value-calc --context`), with this solver's value and time in `DIR/ours.csv`,
/// and the win question alone (`"mode": "Win"`, `at_least`) in `DIR/win.csv`, for
/// `scripts/bench_vs_skatsearch.py`.
fn export(dir: &str, deals: u64) {
    use std::fmt::Write as _;
    std::fs::create_dir_all(dir).expect("the export directory");
    let mut csv = String::from("file,game,value,ms,nodes,skat\n");
    let mut win = csv.clone();
    let cards =
        |set: skat_engine::CardSet| set.into_iter().map(|c| c.to_string()).collect::<Vec<_>>().join(" ");
    for (name, game) in [("Grand", GameType::Grand), ("Suit", GameType::Clubs), ("Null", GameType::Null)] {
        for d in 0..deals {
            let dealt = Dealt::seeded(2026, d);
            let declarer = (d % 3) as usize;
            let p = Position::new(game, declarer as u8, dealt.hands, dealt.skat);
            let mut s = Solver::new();
            let t = Instant::now();
            let value = s.solve(&p);
            let ms = t.elapsed().as_secs_f64() * 1e3;
            // skatsearch names hands from the declarer: left plays after the declarer.
            let start = ["Declarer", "Left", "Right"][(3 - declarer) % 3];
            let file = format!("{name}-{d}.json");
            let json = format!(
                "{{\"declarer_cards\": \"{}\", \"left_cards\": \"{}\", \"right_cards\": \"{}\", \"game_type\": \"{name}\", \"start_player\": \"{start}\", \"mode\": null, \"trick_cards\": null, \"trick_suit\": null, \"declarer_start_points\": null, \"samples\": null, \"god_players\": null}}",
                cards(dealt.hands[declarer]),
                cards(dealt.hands[(declarer + 1) % 3]),
                cards(dealt.hands[(declarer + 2) % 3]),
            );
            std::fs::write(format!("{dir}/{file}"), &json).expect("a context file");
            let _ = writeln!(csv, "{file},{name},{value},{ms:.3},{},{}", s.stats.nodes, dealt.skat.points());
            if !game.is_null() {
                // The win question alone: skatsearch's "mode": "Win", our `at_least`. It
                // counts the skat twice here too, so it answers "61 less the skat's
                // points", and so is ours asked (the same question, for the same work).
                let target = 61u8.saturating_sub(dealt.skat.points() as u8);
                let mut s = Solver::new();
                let t = Instant::now();
                let won = s.at_least(&p, target);
                let ms = t.elapsed().as_secs_f64() * 1e3;
                let file = format!("{name}-{d}-win.json");
                std::fs::write(format!("{dir}/{file}"), json.replace("\"mode\": null", "\"mode\": \"Win\""))
                    .expect("a context file");
                let _ = writeln!(
                    win,
                    "{file},{name},{},{ms:.3},{},{}",
                    u8::from(won),
                    s.stats.nodes,
                    dealt.skat.points()
                );
            }
        }
    }
    std::fs::write(format!("{dir}/ours.csv"), csv).expect("the csv");
    std::fs::write(format!("{dir}/win.csv"), win).expect("the csv");
}

fn main() {
    let deals = 40u64;
    if let Ok(dir) = std::env::var("SKAT_SOLVER_EXPORT") {
        export(&dir, deals);
        return;
    }
    for (name, game) in [("grand", GameType::Grand), ("clubs", GameType::Clubs), ("null", GameType::Null)] {
        let (mut exact, mut probe) = (Vec::new(), Vec::new());
        let (mut exact_nodes, mut probe_nodes) = (0, 0);
        for d in 0..deals {
            let dealt = Dealt::seeded(2026, d);
            let p = Position::new(game, (d % 3) as u8, dealt.hands, dealt.skat);
            let mut s = Solver::new();
            let t = Instant::now();
            std::hint::black_box(s.solve(&p));
            exact.push(t.elapsed());
            exact_nodes += s.stats.nodes;
            let mut s = Solver::new();
            let t = Instant::now();
            std::hint::black_box(s.at_least(&p, if game.is_null() { 1 } else { 61 }));
            probe.push(t.elapsed());
            probe_nodes += s.stats.nodes;
        }
        report(&format!("{name}, 10 tricks, exact value"), exact, exact_nodes);
        report(&format!("{name}, 10 tricks, declarer reaches 61 / wins?"), probe, probe_nodes);
    }
    for left in [8u32, 6, 4] {
        let (mut times, mut nodes) = (Vec::new(), 0);
        for d in 0..deals {
            let dealt = Dealt::seeded(77, d);
            let mut p = Position::new(GameType::Spades, (d % 3) as u8, dealt.hands, dealt.skat);
            let mut k = d as usize;
            while p.hands[0].len() > left || p.trick[0].is_some() {
                let legal: Vec<_> = p.legal().into_iter().collect();
                k = k.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                p = p.play(legal[(k >> 33) % legal.len()]);
            }
            let mut s = Solver::new();
            let t = Instant::now();
            std::hint::black_box(s.solve(&p));
            times.push(t.elapsed());
            nodes += s.stats.nodes;
        }
        report(&format!("spades, {left} tricks left, exact value"), times, nodes);
    }
}
