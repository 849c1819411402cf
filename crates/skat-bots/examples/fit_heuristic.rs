//! Fits the `heuristic` bot's hand model (`skat_bots::hand_model`) to simulated games and
//! writes its weights (`crates/skat-bots/src/hand_model_weights.rs`):
//!
//!     cargo run --release -p skat-bots --example fit_heuristic -- --deals 20000
//!
//! For every deal (seeded, so the same command gives the same weights), every position
//! declares every game in turn: it bids 18 and the others pass (so no game is overbid),
//! it picks up the skat and puts away what the heuristic would for that game, and all
//! three seats then play the cards as the heuristic does. Each game is one sample: the
//! ten cards dealt (and, after the skat, the ten kept with the points put away) against
//! won or lost. A logistic regression (Newton's method, a light ridge) per family and
//! moment gives the weights; the log loss and the win rate in each family are printed.

// Matrix arithmetic reads best with indices.
#![allow(clippy::needless_range_loop)]

use std::fmt::Write as _;
use std::task::{Context, Poll, Waker};

use skat_bot_api::{Bot, Knowledge, decide};
use skat_bots::HeuristicBot;
use skat_bots::hand_model::{FEATURES, Weights, family, features};
use skat_bots::heuristic::discard_for;
use skat_engine::{Action, Bid, Card, Contract, GameType, Match, MatchConfig, Outcome, Position, Seat};

/// A seat that declares `game` from `declarer` and otherwise plays like the heuristic.
struct Forced {
    inner: HeuristicBot,
    declarer: Position,
    game: GameType,
}

impl Forced {
    fn mine(&self, k: &Knowledge) -> bool {
        k.position() == Some(self.declarer)
    }
}

impl Bot for Forced {
    async fn bid(&mut self, k: &Knowledge) -> Option<Bid> {
        if self.mine(k) { k.legal.bid_from } else { None }
    }

    async fn answer(&mut self, k: &Knowledge, _: Bid) -> bool {
        self.mine(k)
    }

    async fn take_skat(&mut self, _: &Knowledge) -> bool {
        true
    }

    async fn discard(&mut self, k: &Knowledge) -> [Card; 2] {
        discard_for(k.hand, self.game)
    }

    async fn declare(&mut self, _: &Knowledge) -> Contract {
        Contract::plain(self.game)
    }

    async fn play(&mut self, k: &Knowledge) -> Card {
        self.inner.play(k).await
    }
}

/// One simulated game: features before and after the skat, and whether it was won.
struct Sample {
    family: usize,
    auction: [f64; FEATURES],
    declaration: [f64; FEATURES],
    won: bool,
}

fn simulate(seed: u64, declarer: Position, game: GameType) -> Option<Sample> {
    let mut m = Match::new(MatchConfig { seats: 3, deals: 1, seed }).ok()?;
    let mut bots: Vec<Forced> =
        (0..3).map(|_| Forced { inner: HeuristicBot::new(), declarer, game }).collect();
    let mut knowledge: Vec<Knowledge> = Seat::all(3).map(|s| Knowledge::new(Some(s))).collect();
    let mut log = vec![m.deal_started_event()];
    let mut seen = [0usize; 3];
    let forehand = declarer == Position::Forehand;
    let (mut auction, mut declaration) = (None, None);
    while let Some(seat) = m.seat_to_move() {
        let s = usize::from(seat);
        let k = &mut knowledge[s];
        k.apply_all(log[seen[s]..].iter().map(|e| e.seen_by(Some(seat))));
        seen[s] = log.len();
        if k.position() == Some(declarer) && auction.is_none() {
            auction = Some(features(k.hand, game, forehand, 0));
        }
        // The heuristic never waits: one poll answers.
        let mut decision = std::pin::pin!(decide(&mut bots[s], k));
        let Poll::Ready(Some(action)) = decision.as_mut().poll(&mut Context::from_waker(Waker::noop()))
        else {
            return None;
        };
        if let Action::Discard { cards } = action {
            let away = if game.is_null() { 0 } else { cards.points() };
            declaration = Some(features(k.hand - cards, game, forehand, away));
        }
        let (ended, _) = m.apply_into(seat, action, &mut log).ok()?;
        if ended {
            break;
        }
    }
    match m.records().first()?.outcome {
        Outcome::Game(r) => {
            Some(Sample { family: family(game), auction: auction?, declaration: declaration?, won: r.won })
        }
        _ => None,
    }
}

/// Logistic regression by Newton's method with a small ridge (features a family does not
/// use are all zero; the ridge keeps their weights at zero and the system solvable).
fn fit(xs: &[[f64; FEATURES]], ys: &[bool]) -> (Weights, f64) {
    let mut w = [0.0; FEATURES];
    let ridge = 1e-3 * xs.len() as f64 / 1000.0;
    for _ in 0..30 {
        let mut grad = [0.0; FEATURES];
        let mut hess = [[0.0; FEATURES]; FEATURES];
        for (x, y) in xs.iter().zip(ys) {
            let z: f64 = w.iter().zip(x).map(|(a, b)| a * b).sum();
            let p = 1.0 / (1.0 + (-z).exp());
            let r = p - if *y { 1.0 } else { 0.0 };
            let s = p * (1.0 - p);
            for i in 0..FEATURES {
                grad[i] += r * x[i];
                for j in 0..FEATURES {
                    hess[i][j] += s * x[i] * x[j];
                }
            }
        }
        for i in 0..FEATURES {
            grad[i] += ridge * w[i];
            hess[i][i] += ridge;
        }
        let step = solve(hess, grad);
        let mut moved = 0.0f64;
        for i in 0..FEATURES {
            w[i] -= step[i];
            moved = moved.max(step[i].abs());
        }
        if moved < 1e-9 {
            break;
        }
    }
    let loss = xs
        .iter()
        .zip(ys)
        .map(|(x, y)| {
            let z: f64 = w.iter().zip(x).map(|(a, b)| a * b).sum();
            let p = (1.0 / (1.0 + (-z).exp())).clamp(1e-12, 1.0 - 1e-12);
            if *y { -p.ln() } else { -(1.0 - p).ln() }
        })
        .sum::<f64>()
        / xs.len() as f64;
    (w, loss)
}

/// Solves `a x = b` by Gaussian elimination with partial pivoting.
fn solve(mut a: [[f64; FEATURES]; FEATURES], mut b: [f64; FEATURES]) -> [f64; FEATURES] {
    for col in 0..FEATURES {
        let pivot =
            (col..FEATURES).max_by(|i, j| a[*i][col].abs().total_cmp(&a[*j][col].abs())).unwrap_or(col);
        a.swap(col, pivot);
        b.swap(col, pivot);
        let d = a[col][col];
        if d.abs() < 1e-12 {
            continue;
        }
        for row in col + 1..FEATURES {
            let f = a[row][col] / d;
            for k in col..FEATURES {
                a[row][k] -= f * a[col][k];
            }
            b[row] -= f * b[col];
        }
    }
    let mut x = [0.0; FEATURES];
    for row in (0..FEATURES).rev() {
        let mut s = b[row];
        for k in row + 1..FEATURES {
            s -= a[row][k] * x[k];
        }
        x[row] = if a[row][row].abs() < 1e-12 { 0.0 } else { s / a[row][row] };
    }
    x
}

fn main() {
    let mut deals = 20_000u64;
    let mut out = String::from("crates/skat-bots/src/hand_model_weights.rs");
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--deals" => deals = args.next().and_then(|v| v.parse().ok()).expect("--deals N"),
            "--out" => out = args.next().expect("--out FILE"),
            _ => panic!("usage: fit_heuristic [--deals N] [--out FILE]"),
        }
    }
    // Two threads (this machine's cores), each a half of the deals.
    let samples: Vec<Sample> = std::thread::scope(|scope| {
        let halves: Vec<_> = (0..2u64)
            .map(|half| {
                scope.spawn(move || {
                    let mut v = Vec::new();
                    for d in (half..deals).step_by(2) {
                        for declarer in [Position::Forehand, Position::Middlehand, Position::Rearhand] {
                            for game in GameType::ALL {
                                v.extend(simulate(0x5EED_0000 + d, declarer, game));
                            }
                        }
                    }
                    v
                })
            })
            .collect();
        halves.into_iter().flat_map(|h| h.join().expect("a simulating thread")).collect()
    });
    let names = ["suit games", "grand", "null"];
    let mut auction = Vec::new();
    let mut declaration = Vec::new();
    for f in 0..3 {
        let mine: Vec<&Sample> = samples.iter().filter(|s| s.family == f).collect();
        let ys: Vec<bool> = mine.iter().map(|s| s.won).collect();
        let won = ys.iter().filter(|y| **y).count() as f64 / ys.len().max(1) as f64;
        let (wa, la) = fit(&mine.iter().map(|s| s.auction).collect::<Vec<_>>(), &ys);
        let (wd, ld) = fit(&mine.iter().map(|s| s.declaration).collect::<Vec<_>>(), &ys);
        println!(
            "{:<10} {:>7} games, declarer won {:5.1}%; log loss before the skat {la:.3}, after {ld:.3} (a coin: 0.693)",
            names[f],
            ys.len(),
            100.0 * won
        );
        auction.push(wa);
        declaration.push(wd);
    }
    let table = |ws: &[Weights]| {
        let mut s = String::from("[\n");
        for w in ws {
            let _ =
                writeln!(s, "    [{}],", w.iter().map(|v| format!("{v:.4}")).collect::<Vec<_>>().join(", "));
        }
        s + "]"
    };
    let code = format!(
        "// Written by `cargo run --release -p skat-bots --example fit_heuristic -- --deals {deals}`.\n\
         // Do not edit by hand: run it again.\n\n\
         /// Before the skat: suit games, grand, null.\n\
         pub const AUCTION: [Weights; 3] = {};\n\n\
         /// After the skat: suit games, grand, null.\n\
         pub const DECLARATION: [Weights; 3] = {};\n",
        table(&auction),
        table(&declaration)
    );
    std::fs::write(&out, code).expect("the weights file");
    println!("wrote {out}");
}
