//! Solves positions read from stdin, one per line: `GAME LEADER DECLARER H0 H1 H2`, hands
//! as dot-separated ISS cards (`CJ.SA.HT`), GAME one of D H S C G N, positions 0..3;
//! prints the declarer's points from the tricks still to play (null: 1 won, 0 lost).
//!
//!     echo "G 0 0 CJ.SJ CA.CT HA.HT" | cargo run -q --release -p skat-solver --example solve

use std::io::BufRead;

use skat_engine::{CardSet, GameType};
use skat_solver::{Position, Solver};

fn main() {
    for line in std::io::stdin().lock().lines().map_while(Result::ok) {
        let f: Vec<&str> = line.split_whitespace().collect();
        if f.len() != 6 {
            println!("? expected GAME LEADER DECLARER H0 H1 H2");
            continue;
        }
        let game = f[0].chars().next().and_then(GameType::from_letter);
        let hands: Vec<Option<CardSet>> = f[3..6].iter().map(|h| h.parse().ok()).collect();
        match (game, f[1].parse::<u8>(), f[2].parse::<u8>(), &hands[..]) {
            (Some(game), Ok(leader), Ok(declarer), [Some(a), Some(b), Some(c)])
                if leader < 3 && declarer < 3 =>
            {
                let mut p = Position::new(game, declarer, [*a, *b, *c], CardSet::EMPTY);
                p.leader = leader;
                println!("{}", Solver::new().solve(&p));
            }
            _ => println!("? cannot read `{line}`"),
        }
    }
}
