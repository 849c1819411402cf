//! `convert` both ways: every event of random matches at 3 and 4 seats, as each seat and
//! a spectator is shown it, and every view, survives protobuf and back unchanged, so a
//! client that folds the stream's events into a `SeatView` holds exactly the engine's
//! view.

use skat_engine::matches::{Match, MatchConfig, Seat};
use skat_engine::random::RandomPlayer;
use skat_engine::{Action, EventView, SeatView};
use skat_proto::convert;

fn names(seats: u8) -> Vec<String> {
    (0..seats).map(|s| format!("p{s}")).collect()
}

fn round_trip(e: &EventView, seats: u8) -> EventView {
    let kind = convert::event(e, &names(seats));
    convert::event_from(&kind).expect("our own event converts back").expect("a match event")
}

#[test]
fn events_survive_protobuf_and_fold_into_the_engines_view() {
    let mut events = 0;
    for seats in [3u8, 4] {
        for seed in 0..60u64 {
            let mut m = Match::new(MatchConfig { seats, deals: 12, seed }).unwrap();
            let mut player = RandomPlayer::new(seed);
            let viewers: Vec<Option<Seat>> = Seat::all(seats).map(Some).chain([None]).collect();
            let mut folds: Vec<SeatView> = viewers.iter().map(|v| SeatView::new(*v)).collect();
            let start = m.deal_started_event();
            for f in &mut folds {
                f.apply(&round_trip(&start.seen_by(f.seat), seats));
            }
            let mut step = 0u32;
            while let Some(seat) = m.seat_to_move() {
                let p = m.position_of(seat).unwrap();
                let legal = m.deal().legal_actions(p);
                let action = if legal.resign && step % 53 == 5 {
                    Action::Resign
                } else if legal.claim && step % 41 == 3 {
                    Action::Claim
                } else {
                    player.choose(m.deal(), p)
                };
                step += 1;
                let applied = m.apply(seat, action).unwrap();
                for f in &mut folds {
                    for e in &applied.events {
                        let shown = e.seen_by(f.seat);
                        let back = round_trip(&shown, seats);
                        assert_eq!(back, shown, "seats {seats} seed {seed}");
                        f.apply(&back);
                        events += 1;
                    }
                    let number = if m.is_over() { m.deal_number() - 1 } else { m.deal_number() };
                    let position = f.seat.and_then(|s| m.seats_of(number).iter().position(|x| *x == s));
                    let engine = m.deal().view(position.and_then(skat_engine::Position::from_index));
                    assert_eq!(f.view, engine);
                    // Views survive protobuf too: a client may start from a snapshot.
                    let frame = skat_engine::seat_view::DealFrame {
                        number,
                        dealer: m.dealer_of(number),
                        seats: m.seats_of(number),
                    };
                    let (back_frame, back) =
                        convert::deal_view_from(&convert::deal_view(&engine, frame, &[])).unwrap();
                    assert_eq!(back, engine, "seats {seats} seed {seed}");
                    assert_eq!(back_frame.seats, m.seats_of(number));
                }
            }
        }
    }
    assert!(events > 50_000, "{events}");
}
