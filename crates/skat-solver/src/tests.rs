//! The solver against a plain minimax on thousands of random endgames of every game
//! type, at trick boundaries and inside tricks.

use rand_chacha::ChaCha8Rng;
use rand_core::{Rng, SeedableRng};
use skat_engine::{Card, CardSet, GameType};

use super::*;

/// A random endgame: `tricks` cards in each hand, a random game and declarer, a random
/// leader and points already won, then `extra` random legal cards played.
fn endgame(rng: &mut ChaCha8Rng, tricks: usize, extra: usize) -> Position {
    let mut deck: Vec<Card> = Card::all().collect();
    for i in (1..deck.len()).rev() {
        let j = (rng.next_u32() as usize) % (i + 1);
        deck.swap(i, j);
    }
    let hands: [CardSet; 3] =
        std::array::from_fn(|p| deck[p * tricks..(p + 1) * tricks].iter().copied().collect());
    let game = GameType::ALL[(rng.next_u32() % 6) as usize];
    let mut p = Position::new(game, (rng.next_u32() % 3) as u8, hands, CardSet::EMPTY);
    p.leader = (rng.next_u32() % 3) as u8;
    if !game.is_null() {
        p.declarer_points = (rng.next_u32() % 40) as u8;
    }
    for _ in 0..extra {
        let legal: Vec<Card> = p.legal().into_iter().collect();
        p = p.play(legal[(rng.next_u32() as usize) % legal.len()]);
    }
    p
}

fn check(seed: u64, count: usize, tricks: usize) {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    for i in 0..count {
        let p = endgame(&mut rng, tricks, i % 3);
        let expected = minimax(&p);
        let mut solver = Solver::new();
        assert_eq!(solver.solve(&p), expected, "position {i}: {p:?}");
        // The null-window probes agree with the exact value on both sides of it.
        if !p.game.is_null() {
            assert!(solver.at_least(&p, expected));
            assert!(expected == u8::MAX || !solver.at_least(&p, expected + 1));
        }
        // Every card's value, and the best of them is the position's.
        let values = solver.card_values(&p);
        for (card, v) in &values {
            assert_eq!(*v, minimax(&p.play(*card)), "position {i}, card {card}");
        }
        let best = if p.to_move() == p.declarer {
            values.iter().map(|x| x.1).max()
        } else {
            values.iter().map(|x| x.1).min()
        };
        assert_eq!(best, Some(expected));
    }
}

#[test]
fn agrees_with_minimax_on_three_thousand_endgames_of_four_tricks() {
    check(1, 3000, 4);
}

#[test]
fn agrees_with_minimax_on_endgames_of_five_and_six_tricks() {
    check(2, 300, 5);
    check(3, 25, 6);
}

#[test]
fn a_whole_deal_is_solved_and_the_table_is_reused() {
    let dealt = skat_engine::Dealt::seeded(7, 0);
    let p = Position::new(GameType::Grand, 0, dealt.hands, dealt.skat);
    let mut solver = Solver::new();
    let v = solver.solve(&p);
    assert!(v <= 120);
    let first = solver.stats.nodes;
    assert_eq!(solver.solve(&p), v, "the same answer again");
    assert!(solver.stats.nodes - first < first / 10, "the second solve is answered from the table");
}

#[test]
fn a_stopped_solver_gives_up_within_its_check_interval() {
    // The first of these deals whose whole solve is long enough to stop in.
    let p = (0..64)
        .map(|seed| {
            let dealt = skat_engine::Dealt::seeded(seed, 0);
            Position::new(GameType::Grand, 1, dealt.hands, dealt.skat)
        })
        .find(|p| {
            let mut whole = Solver::new();
            whole.solve(p);
            whole.stats.nodes > 2 * STOP_CHECK_NODES
        })
        .expect("a deal of more than two check intervals");
    let stop = Arc::new(AtomicBool::new(false));
    let mut solver = Solver::new().stopped_by(Arc::clone(&stop));
    stop.store(true, Ordering::Relaxed);
    solver.solve(&p);
    assert!(solver.aborted, "told to stop, the search gives up");
    // The flag is seen at the first check; unwinding, each sibling still to be tried on
    // the way up and each later probe of `solve`'s binary search counts one node and
    // returns at once (15 here).
    let within = STOP_CHECK_NODES + 1_000;
    assert!(solver.stats.nodes <= within, "within {within} nodes: {}", solver.stats.nodes);
    // Not stopped, the same solver type finishes and agrees with one without a flag.
    let mut free = Solver::new().stopped_by(Arc::new(AtomicBool::new(false)));
    let mut plain = Solver::new();
    assert_eq!(free.solve(&p), plain.solve(&p));
    assert!(!free.aborted);
}

#[test]
fn simple_positions_have_the_obvious_value() {
    // Declarer (forehand) holds the four jacks in grand and leads: takes all four tricks.
    let cards = |s: &str| s.parse::<CardSet>().expect("cards");
    let p = Position::new(
        GameType::Grand,
        0,
        [cards("CJ.SJ.HJ.DJ"), cards("CA.CT.SA.ST"), cards("HA.HT.DA.DT")],
        CardSet::EMPTY,
    );
    assert_eq!(Solver::new().solve(&p), 8 + 42 + 42);
    // Null: a declarer with the 7 of a suit led into by nobody else cannot be forced.
    let p = Position::new(GameType::Null, 1, [cards("CA"), cards("C7"), cards("CK")], CardSet::EMPTY);
    assert_eq!(Solver::new().solve(&p), 1, "the declarer ducks under both");
    let p = Position::new(GameType::Null, 1, [cards("C7"), cards("CA"), cards("C8")], CardSet::EMPTY);
    assert_eq!(Solver::new().solve(&p), 0, "the ace must take the trick");
}

#[test]
fn one_solver_moves_from_deal_to_deal_and_stays_right() {
    // The table is keyed by the cards in play alone, which is only sound within one deal:
    // a solver given positions of many deals and games must notice and start afresh.
    let mut rng = ChaCha8Rng::seed_from_u64(4);
    let mut solver = Solver::new();
    for i in 0..400 {
        let p = endgame(&mut rng, 4 + i % 2, i % 3);
        assert_eq!(solver.solve(&p), minimax(&p), "position {i}: {p:?}");
        // And a later point of the same deal, from the same table.
        if let Some(card) = p.legal().into_iter().next() {
            let q = p.play(card);
            assert_eq!(solver.solve(&q), minimax(&q), "position {i} after {card}");
        }
    }
}
