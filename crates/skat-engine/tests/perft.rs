//! Counting proofs, in the manner of chess move-generator "perft" files: the number of
//! legal-action sequences from fixed seeded positions to fixed depths, at 3 and 4 seats,
//! through the match (so the seat mapping and the dealer sitting out are counted too).
//! Every legal action counts: each bid value on the ladder, hold, pass, pick-up, hand,
//! every pair of discards, every contract, every card, claim and resign (whoever may).
//!
//! The golden counts are in `tests/data/perft.txt`; move generation cannot change without
//! one of them changing. After a deliberate rule change, regenerate them with
//! `PERFT_BLESS=1 cargo test -p skat-engine --test perft` and review the diff.

use skat_engine::bid::LADDER;
use skat_engine::matches::{Match, MatchConfig, Seat};
use skat_engine::{Action, Bid, LegalActions};

const GOLDEN: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/perft.txt");

/// Every action `legal` allows, one by one.
fn actions(legal: &LegalActions) -> Vec<Action> {
    let mut out = Vec::new();
    if let Some(min) = legal.bid_from {
        out.extend(
            LADDER
                .iter()
                .filter(|v| **v >= min.value())
                .filter_map(|v| Bid::new(*v))
                .map(|value| Action::Bid { value }),
        );
    }
    if legal.hold {
        out.push(Action::Hold);
    }
    if legal.pass {
        out.push(Action::Pass);
    }
    if legal.pick_up_skat {
        out.push(Action::PickUpSkat);
    }
    if legal.play_hand {
        out.push(Action::PlayHand);
    }
    let from: Vec<_> = legal.discard_from.iter().collect();
    for (i, a) in from.iter().enumerate() {
        for b in &from[i + 1..] {
            out.push(Action::Discard { cards: [*a, *b].into_iter().collect() });
        }
    }
    out.extend(legal.contracts.iter().map(|c| Action::Declare { contract: *c }));
    out.extend(legal.cards.iter().map(|card| Action::Play { card }));
    if legal.claim {
        out.push(Action::Claim);
    }
    if legal.resign {
        out.push(Action::Resign);
    }
    out
}

/// Every (seat, action) the match allows now.
fn moves(m: &Match, seats: u8) -> Vec<(Seat, Action)> {
    if m.is_over() {
        return Vec::new();
    }
    let mut out = Vec::new();
    for seat in skat_engine::Seat::all(seats) {
        if let Some(p) = m.position_of(seat) {
            out.extend(actions(&m.deal().legal_actions(p)).into_iter().map(|a| (seat, a)));
        }
    }
    out
}

fn perft(m: &Match, seats: u8, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    let moves = moves(m, seats);
    if depth == 1 {
        return moves.len() as u64;
    }
    moves
        .into_iter()
        .map(|(seat, action)| {
            let mut next = m.clone();
            next.apply(seat, action)
                .unwrap_or_else(|e| panic!("{action:?} by {seat} was listed as legal: {e}"));
            perft(&next, seats, depth - 1)
        })
        .sum()
}

/// Plays the first listed action of the seat to move until `stop` holds.
fn walk(mut m: Match, seats: u8, stop: impl Fn(&Match) -> bool) -> Match {
    while !stop(&m) {
        let seat = m.seat_to_move().expect("someone is to move");
        let p = m.position_of(seat).expect("the seat plays");
        let legal = m.deal().legal_actions(p);
        // Say 18 once, then pass; pick up; the first discard and contract; the first card.
        let action = if legal.bid_from.is_some_and(|b| b.value() == 18) && m.deal().bid().is_none() {
            Action::Bid { value: Bid::new(18).unwrap() }
        } else if legal.hold {
            Action::Hold
        } else if legal.pass {
            Action::Pass
        } else {
            actions(&legal).into_iter().find(|a| !matches!(a, Action::Resign | Action::Claim)).unwrap()
        };
        m.apply(seat, action).unwrap();
        let _ = seats;
    }
    m
}

/// The positions counted: (name, seats, seed, depths).
fn positions() -> Vec<(&'static str, u8, u64, Vec<u32>)> {
    let mut out = Vec::new();
    for seats in [3u8, 4] {
        for seed in [1u64, 2] {
            let deep = seed == 1 && seats == 3;
            out.push(("deal", seats, seed, if deep { vec![1, 2, 3, 4] } else { vec![1, 2, 3] }));
            out.push(("skat", seats, seed, vec![1, 2, 3, 4]));
            out.push(("play", seats, seed, if deep { vec![1, 2, 3, 4, 5, 6] } else { vec![1, 2, 3, 4, 5] }));
        }
    }
    out
}

fn start(name: &str, seats: u8, seed: u64) -> Match {
    let m = Match::new(MatchConfig { seats, deals: 2, seed }).unwrap();
    match name {
        "deal" => m,
        "skat" => walk(m, seats, |m| m.deal().phase() == skat_engine::Phase::SkatDecision),
        "play" => walk(m, seats, |m| m.deal().phase() == skat_engine::Phase::Playing),
        _ => unreachable!(),
    }
}

#[test]
fn legal_action_counts_match_the_golden_file() {
    let mut lines = Vec::new();
    for (name, seats, seed, depths) in positions() {
        let m = start(name, seats, seed);
        for depth in depths {
            lines.push(format!("{name} seats={seats} seed={seed} depth={depth} {}", perft(&m, seats, depth)));
        }
    }
    let text = lines.join("\n") + "\n";
    if std::env::var_os("PERFT_BLESS").is_some() {
        std::fs::write(GOLDEN, &text).unwrap();
        return;
    }
    let golden = std::fs::read_to_string(GOLDEN).expect("tests/data/perft.txt (PERFT_BLESS=1 writes it)");
    for (ours, theirs) in text.lines().zip(golden.lines()) {
        assert_eq!(ours, theirs, "a legal-action count changed");
    }
    assert_eq!(text.lines().count(), golden.lines().count());
}

#[test]
fn counts_that_can_be_checked_by_hand() {
    // Deal start at 3 seats: middlehand says any of the 63 ladder values or passes.
    let m = start("deal", 3, 1);
    assert_eq!(perft(&m, 3, 1), 64);
    // Then forehand holds or passes each value (2 x 63), or, after middlehand's pass,
    // rearhand says any value or passes (64): 190.
    assert_eq!(perft(&m, 3, 2), 2 * 63 + 64);
    // At the skat decision: pick up or hand.
    let s = start("skat", 3, 1);
    assert_eq!(perft(&s, 3, 1), 2);
    // After the pick-up, any 2 of 12 cards: 66.
    let mut picked = s.clone();
    let seat = picked.seat_to_move().unwrap();
    picked.apply(seat, Action::PickUpSkat).unwrap();
    assert_eq!(perft(&picked, 3, 1), 66);
    // At the first trick: forehand's 10 cards, both defenders' and the declarer's
    // resignations, and the declarer's claim.
    let p = start("play", 3, 1);
    let legal_moves = moves(&p, 3);
    let cards = legal_moves.iter().filter(|(_, a)| matches!(a, Action::Play { .. })).count();
    assert_eq!(cards, 10);
    assert_eq!(legal_moves.len(), 10 + 3 + 1);
}
