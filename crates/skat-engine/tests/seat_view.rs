//! The one model of a seat's knowledge, proven by folding: for every prefix of more than
//! 10,000 random deals at 3 and 4 seats, folding the events a seat is shown into a
//! [`SeatView`] gives exactly the view the engine computes for that seat, and likewise for
//! a spectator and for the dealer sitting out at 4 seats.

use skat_engine::matches::{Match, MatchConfig, Seat};
use skat_engine::random::RandomPlayer;
use skat_engine::seat_view::DealFrame;
use skat_engine::{Action, SeatView};

/// Plays `matches` random matches of `deals` deals at `seats` seats; after every action,
/// every seat's and a spectator's fold must equal the engine's view. Returns the deals.
fn check(seats: u8, matches: u64, deals: u32) -> u64 {
    let mut played = 0;
    for seed in 0..matches {
        let mut m = Match::new(MatchConfig { seats, deals, seed: 1000 + seed }).unwrap();
        let mut player = RandomPlayer::new(seed);
        let viewers: Vec<Option<Seat>> = Seat::all(seats).map(Some).chain([None]).collect();
        let mut folds: Vec<SeatView> = viewers.iter().map(|v| SeatView::new(*v)).collect();
        let start = m.deal_started_event();
        for f in &mut folds {
            f.apply(&start.seen_by(f.seat));
        }
        // The same knowledge folded straight from the unredacted events (`apply_seen`).
        let mut direct = folds.clone();
        let mut step = 0;
        while !m.is_over() {
            let seat = m.seat_to_move().expect("someone is to move");
            let position = m.position_of(seat).expect("the seat to move plays");
            // Now and then a resignation or a claim, which random players never choose.
            let legal = m.deal().legal_actions(position);
            let action = if legal.resign && step % 97 == 13 {
                Action::Resign
            } else if legal.claim && step % 89 == 7 {
                Action::Claim
            } else {
                player.choose(m.deal(), position)
            };
            step += 1;
            let applied = m.apply(seat, action).expect("legal");
            for f in &mut folds {
                for e in &applied.events {
                    f.apply(&e.seen_by(f.seat));
                }
            }
            for (d, f) in direct.iter_mut().zip(&folds) {
                d.apply_seen(&applied.events);
                assert_eq!(d, f, "seats {seats}, seed {seed}, step {step}: apply_seen differs from seen_by");
            }
            let number = if m.is_over() { m.deal_number() - 1 } else { m.deal_number() };
            for f in &folds {
                let position = f.seat.and_then(|s| m.seats_of(number).iter().position(|x| *x == s));
                let position = position.and_then(skat_engine::Position::from_index);
                let engine = m.deal().view(position);
                assert_eq!(
                    f.view, engine,
                    "seats {seats}, seed {seed}, deal {number}, step {step}, viewer {:?}: the fold differs",
                    f.seat
                );
                assert_eq!(
                    f.frame,
                    Some(DealFrame { number, dealer: m.dealer_of(number), seats: m.seats_of(number) }),
                );
            }
        }
        for f in &folds {
            assert_eq!(f.final_standings.as_deref(), Some(m.standings()));
        }
        played += u64::from(deals);
    }
    played
}

#[test]
fn folding_a_seats_events_gives_the_engines_view_at_three_seats() {
    assert!(check(3, 150, 36) >= 5_400);
}

#[test]
fn folding_a_seats_events_gives_the_engines_view_at_four_seats() {
    assert!(check(4, 100, 48) >= 4_800);
}

#[test]
fn a_seat_that_starts_mid_deal_from_a_view_folds_on_exactly() {
    for seed in 0..200 {
        let mut m = Match::new(MatchConfig { seats: 3, deals: 3, seed }).unwrap();
        let mut player = RandomPlayer::new(seed);
        // Play a few actions, then take over from the engine's view.
        for _ in 0..(seed % 17) {
            let Some(seat) = m.seat_to_move() else { break };
            let p = m.position_of(seat).unwrap();
            let action = player.choose(m.deal(), p);
            m.apply(seat, action).unwrap();
        }
        if m.is_over() {
            continue;
        }
        let number = m.deal_number();
        let frame = DealFrame { number, dealer: m.dealer_of(number), seats: m.seats_of(number) };
        let mut folds: Vec<SeatView> = Seat::all(3)
            .map(|s| {
                let p = m.position_of(s);
                SeatView::from_view(Some(s), frame, m.deal().view(p))
            })
            .collect();
        while !m.is_over() {
            let seat = m.seat_to_move().unwrap();
            let p = m.position_of(seat).unwrap();
            let action = player.choose(m.deal(), p);
            let applied = m.apply(seat, action).unwrap();
            for f in &mut folds {
                for e in &applied.events {
                    f.apply(&e.seen_by(f.seat));
                }
                let number = if m.is_over() { m.deal_number() - 1 } else { m.deal_number() };
                let position = f.seat.and_then(|s| m.seats_of(number).iter().position(|x| *x == s));
                assert_eq!(f.view, m.deal().view(position.and_then(skat_engine::Position::from_index)));
            }
        }
    }
}
