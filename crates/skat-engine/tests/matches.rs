//! A list of deals: dealer rotation, sitting out at 4 seats, scores adding up.

use skat_engine::matches::MatchError;
use skat_engine::random::RandomPlayer;
use skat_engine::{Match, MatchConfig, Outcome, Position};

fn play_match(config: MatchConfig) -> Match {
    let mut m = Match::new(config).unwrap();
    let mut player = RandomPlayer::new(config.seed);
    while let Some(seat) = m.seat_to_move() {
        let p = m.position_of(seat).unwrap();
        let action = player.choose(m.deal(), p);
        m.apply(seat, action).unwrap();
    }
    m
}

#[test]
fn a_three_seat_list_rotates_the_dealer_and_adds_up() {
    let m = play_match(MatchConfig::standard(3, 11));
    assert!(m.is_over());
    assert_eq!(m.records().len(), 36);
    let mut plain = [0i32; 3];
    let mut sf = [0i32; 3];
    for (k, r) in m.records().iter().enumerate() {
        assert_eq!(usize::from(r.dealer), (k + 2) % 3);
        assert_eq!(r.seats[Position::Rearhand.index()], r.dealer, "the dealer is rearhand at 3 seats");
        assert_eq!(usize::from(r.seats[0]), k % 3, "seat 0 is forehand in deal 0");
        assert_eq!(r.replay().unwrap().outcome(), Some(r.outcome));
        let (s, _) = r.outcome.seeger_fabian(3);
        for p in Position::ALL {
            plain[usize::from(r.seats[p.index()])] += r.outcome.plain_scores()[p.index()];
            sf[usize::from(r.seats[p.index()])] += s[p.index()];
        }
    }
    for st in m.standings() {
        assert_eq!(st.plain, plain[usize::from(st.seat)]);
        assert_eq!(st.seeger_fabian, sf[usize::from(st.seat)]);
    }
    let declared: u32 = m.standings().iter().map(|s| s.declared).sum();
    let games = m.records().iter().filter(|r| matches!(r.outcome, Outcome::Game(_))).count();
    assert_eq!(declared as usize, games);
}

#[test]
fn at_four_seats_the_dealer_sits_out_and_gets_the_bonus() {
    let m = play_match(MatchConfig::standard(4, 5));
    assert_eq!(m.records().len(), 48);
    let mut dealer_bonus = [0i32; 4];
    for r in m.records() {
        assert!(!r.seats.contains(&r.dealer), "the dealer gets no cards");
        if let Outcome::Game(g) = r.outcome
            && !g.won
        {
            dealer_bonus[usize::from(r.dealer)] += 30;
        }
    }
    assert!(dealer_bonus.iter().sum::<i32>() > 0, "some game was lost in 48 random deals");
    // Errors: unknown seat, sitting out, over.
    let mut fresh = Match::new(MatchConfig::standard(4, 5)).unwrap();
    let dealer = fresh.dealer_of(0);
    assert_eq!(fresh.apply(dealer, skat_engine::Action::Pass), Err(MatchError::SittingOut(dealer)));
    assert_eq!(fresh.apply(9.into(), skat_engine::Action::Pass), Err(MatchError::UnknownSeat(9.into())));
    let mut over = m.clone();
    assert_eq!(over.apply(0.into(), skat_engine::Action::Pass), Err(MatchError::MatchOver));
    assert!(Match::new(MatchConfig { seats: 5, deals: 1, seed: 0 }).is_err());
    assert!(Match::new(MatchConfig { seats: 3, deals: 0, seed: 0 }).is_err());
}

#[test]
fn a_match_without_records_plays_the_same_and_keeps_only_the_last_result() {
    for seats in [3, 4] {
        let config = MatchConfig { deals: 12, ..MatchConfig::standard(seats, 29) };
        let mut kept = Match::new(config).unwrap();
        let mut lean = Match::new(config).unwrap().without_records();
        let mut player = RandomPlayer::new(7);
        while let Some(seat) = kept.seat_to_move() {
            let action = player.choose(kept.deal(), kept.position_of(seat).unwrap());
            let (a, b) = (kept.apply(seat, action).unwrap(), lean.apply(seat, action).unwrap());
            assert_eq!(a.events, b.events, "the same events");
            assert_eq!(a.match_over, b.match_over);
            assert!(b.finished_deal.is_none());
            assert_eq!(lean.last_result(), kept.records().last().map(|r| r.result()));
            assert_eq!(lean.deal_number(), kept.deal_number());
            assert_eq!((lean.moves_made(), kept.moves_made()), (kept.moves().len(), kept.moves().len()));
            assert!(lean.moves().is_empty(), "a match without records keeps no moves");
        }
        assert!(lean.is_over() && lean.records().is_empty() && kept.records().len() == 12);
        assert_eq!(lean.standings(), kept.standings());
        let results: Vec<_> = kept.records().iter().map(|r| r.result()).collect();
        assert_eq!(lean.results(), results);
    }
}
