//! The table's own tests: clocks with a fake clock, deadlines armed per turn, replay
//! from the journal, resume after a restart, expiry.

use std::time::{Duration, Instant, UNIX_EPOCH};

use skat_engine::matches::Seat;
use skat_engine::{Action, MatchConfig};

use super::*;

/// A plain 3-seat table's settings.
pub(super) fn config() -> TableConfig {
    TableConfig {
        name: "t".into(),
        game: MatchConfig::standard(3, 1),
        action_ms: 0,
        deal_ms: 0,
        between_deals_ms: 0,
        join_code: None,
        max_joins: 1000,
        tournament: false,
    }
}

fn table(now: Instant) -> Table {
    Table::new(TableId::new(None, 1), config(), now, UNIX_EPOCH + Duration::from_secs(1_800_000_000)).unwrap()
}

/// A timer is armed for one turn; it may act only if that very turn is still open
/// when it fires (the authority is checked at use, not when the timer was armed).
#[test]
fn a_deadline_fires_only_for_the_turn_it_was_armed_for() {
    let t0 = Instant::now();
    let mut t = table(t0);
    t.config.action_ms = 1000;
    for i in 0..3 {
        t.join("p", None, "", TokenHash::of(&format!("p{i}")), t0).unwrap();
    }
    let (turn, at) = t.next_deadline().expect("a clock runs");
    let seat = t.game.seat_to_move().unwrap();
    let seq = t.seq();
    // The seat acts in time; the old timer then fires and must change nothing.
    t.act(seat, Action::Pass, Some(seq), t0).unwrap();
    let after = t.seq();
    assert_eq!(t.on_deadline(turn, at), None);
    assert_eq!(t.seq(), after);
    // The seat leaves and a newcomer takes it: the old turn's timer still does nothing.
    let (turn2, at2) = t.next_deadline().unwrap();
    let mover = t.game.seat_to_move().unwrap();
    t.leave(mover, t0).unwrap();
    t.join("newcomer", Some(mover), "", TokenHash::of("new"), t0).unwrap();
    let settled = t.seq();
    assert_eq!(t.on_deadline(turn2, at2), None);
    assert_eq!(t.seq(), settled);
}

/// The pause between deals: a turn that begins within it gets its action limit and its
/// deal clock from the pause's end (a person reads the deal's end first); a turn that
/// begins after it, as always.
#[test]
fn no_time_runs_in_the_pause_between_deals() {
    let t0 = Instant::now();
    let at = |ms: u64| t0 + Duration::from_millis(ms);
    let config = TableConfig {
        action_ms: 5_000,
        deal_ms: 60_000,
        between_deals_ms: 30_000,
        game: MatchConfig { seats: 3, deals: 2, seed: 7 },
        ..config()
    };
    let mut t =
        Table::new(TableId::new(None, 1), config, t0, UNIX_EPOCH + Duration::from_secs(1_800_000_000))
            .unwrap();
    for i in 0..3 {
        t.join("p", None, "", TokenHash::of(&format!("p{i}")), t0).unwrap();
    }
    // The first deal: nobody bids, it is passed in at 3 s.
    for ms in [1_000, 2_000, 3_000] {
        let seat = t.game.seat_to_move().unwrap();
        t.act(seat, Action::Pass, None, at(ms)).unwrap();
    }
    assert_eq!(t.game.deal_number(), 1, "the second deal is dealt at once");
    // Its first turn began in the pause: its limit counts from 33 s.
    assert_eq!(t.next_deadline().map(|(_, d)| d), Some(at(38_000)));
    let first = t.game.seat_to_move().unwrap();
    t.act(first, Action::Pass, None, at(20_000)).unwrap();
    assert_eq!(
        t.clock_left(usize::from(first), at(20_000)),
        Duration::from_millis(60_000),
        "nothing charged in the pause"
    );
    // The next turn also began in it; its seat acts 2 s after the pause and is charged 2 s.
    assert_eq!(t.next_deadline().map(|(_, d)| d), Some(at(38_000)));
    let second = t.game.seat_to_move().unwrap();
    t.act(second, Action::Pass, None, at(35_000)).unwrap();
    assert_eq!(t.clock_left(usize::from(second), at(35_000)), Duration::from_millis(58_000));
    // A turn begun after the pause runs at once.
    assert_eq!(t.next_deadline().map(|(_, d)| d), Some(at(40_000)));
}

/// The deal clock with a fake clock: time spent is charged to the seat that spent it,
/// the deadline is the smaller of the action limit and what is left, the log's times
/// are the given ones, and the forfeit comes exactly at the deadline.
#[test]
fn deal_clocks_and_forfeits_with_a_fake_clock() {
    let t0 = Instant::now();
    let at = |ms: u64| t0 + Duration::from_millis(ms);
    let mut t = table(t0);
    t.config.deal_ms = 10_000;
    t.config.action_ms = 8_000;
    t.timing.clocks = vec![Duration::from_millis(10_000); 3];
    for i in 0..3 {
        t.join("p", None, "", TokenHash::of(&format!("p{i}")), t0).unwrap();
    }
    // The first to act may take at most the action limit (8 s < 10 s left).
    let first = t.game.seat_to_move().unwrap();
    assert_eq!(t.next_deadline().map(|(_, d)| d), Some(at(8_000)));
    // It passes after 4 s: 6 s left on its clock.
    t.act(first, Action::Pass, None, at(4_000)).unwrap();
    assert_eq!(t.clock_left(usize::from(first), at(4_000)).as_millis(), 6_000);
    assert_eq!(t.log.last().unwrap().time_ms, unix_ms(t.epoch.1 + Duration::from_millis(4_000)));
    // The next seat's turn: it runs out of time at 4 s + 8 s.
    let second = t.game.seat_to_move().unwrap();
    let (turn, deadline) = t.next_deadline().unwrap();
    assert_eq!(deadline, at(12_000));
    assert_eq!(t.deadline_unix_ms(at(5_000)), unix_ms(t.epoch.1 + Duration::from_millis(12_000)));
    // A second before the deadline nothing happens; at it, the seat forfeits.
    let before = t.seq();
    assert!(t.on_deadline(turn + 1, at(11_000)).is_none(), "another turn's timer does nothing");
    assert_eq!(t.seq(), before);
    assert!(t.on_deadline(turn, at(12_000)).is_some());
    let record = t.game.last_result().expect("the forfeit ended the deal");
    assert!(
        matches!(record.outcome, skat_engine::Outcome::Penalty(p) if t.game.seats_of(0)[p.offender.index()] == second)
    );
    // The next deal starts with full clocks.
    assert!(t.timing.clocks.iter().all(|c| *c == Duration::from_millis(10_000)));
}

/// Plays a table at changing times with joins, a leave, time-outs and random
/// actions; replaying its journal gives the same log (event, time, turn), the same
/// records, the same clocks and the same tokens.
#[test]
fn a_replayed_journal_rebuilds_the_table_event_for_event() {
    for seed in 0..20u64 {
        let t0 = Instant::now();
        let config = TableConfig {
            deal_ms: 60_000,
            action_ms: 5_000,
            // Half the tables pause between deals: the turns' times follow from the
            // journaled times either way.
            between_deals_ms: if seed % 2 == 1 { 3_000 } else { 0 },
            game: MatchConfig { seats: 3, deals: 3, seed },
            ..config()
        };
        let wall = UNIX_EPOCH + Duration::from_secs(1_800_000_000);
        let mut t = Table::new(TableId::new(None, 1), config, t0, wall).unwrap();
        let mut journal = t.take_inputs();
        let mut ms = 0u64;
        let mut player = skat_engine::random::RandomPlayer::new(seed);
        for i in 0..3 {
            ms += 100;
            t.join("p", None, "", TokenHash::of(&format!("p{i}")), t0 + Duration::from_millis(ms)).unwrap();
        }
        let mut step = 0;
        while !t.is_finished() {
            step += 1;
            ms += 7 * step % 900;
            let now = t0 + Duration::from_millis(ms);
            if step % 41 == 0 {
                // A time-out, exactly at the deadline.
                let (turn, at) = t.next_deadline().unwrap();
                ms = at.duration_since(t0).as_millis() as u64;
                t.on_deadline(turn, at).unwrap();
            } else if step == 20 && t.deals_played() < 2 {
                let seat = t.game.seat_to_move().unwrap();
                t.leave(seat, now).unwrap();
                t.join("back", Some(seat), "", TokenHash::of("back"), now).unwrap();
            } else {
                let seat = t.game.seat_to_move().unwrap();
                let position = t.game.position_of(seat).unwrap();
                let action = player.choose(t.game.deal(), position);
                t.act(seat, action, Some(t.seq()), now).unwrap();
            }
            journal.extend(t.take_inputs());
        }
        let (r, applied) = Table::replay(t.id.clone(), journal.clone(), t0).unwrap();
        assert_eq!(applied, journal.len());
        assert_eq!(r.seq(), t.seq());
        let (whole_r, whole_t) = (r.entries_after(0, usize::MAX), t.entries_after(0, usize::MAX));
        assert_eq!(whole_r.len() as u64, t.seq());
        for (a, b) in whole_r.iter().zip(whole_t.iter()) {
            assert_eq!(
                format!("{:?}", (a.time_ms, &a.event, &a.turn)),
                format!("{:?}", (b.time_ms, &b.event, &b.turn))
            );
        }
        assert_eq!(r.records().all(true, "s"), t.records().all(true, "s"));
        assert_eq!(r.records().all(false, "s"), t.records().all(false, "s"));
        assert_eq!(r.timing.clocks, t.timing.clocks);
        assert_eq!(r.seat_of_token("back"), t.seat_of_token("back"));
        assert_eq!(r.finished_ms(), t.finished_ms());
        // A journal cut short, or with an entry that does not apply, replays its prefix.
        let mut bad = journal.clone();
        let cut = journal.len() / 2;
        bad[cut].input =
            Input::Joined { seat: Seat::new(0), name: "x".into(), token: TokenHash::of("x"), key: None };
        let (p, applied) = Table::replay(t.id.clone(), bad, t0).unwrap();
        assert_eq!(applied, cut);
        assert!(p.seq() < t.seq());
    }
}

/// After a restart the seat to move gets its turn afresh, counted from the restart,
/// with what was left on its deal clock before the crash.
#[test]
fn resume_restarts_the_pending_turn_without_charging_the_downtime() {
    let t0 = Instant::now();
    let mut t = table(t0);
    t.config.deal_ms = 10_000;
    t.config.action_ms = 8_000;
    t.timing.clocks = vec![Duration::from_millis(10_000); 3];
    let mut journal = t.take_inputs();
    journal[0].input = Input::Created { config: t.config.clone() };
    for i in 0..3 {
        t.join("p", None, "", TokenHash::of(&format!("p{i}")), t0).unwrap();
    }
    let first = t.game.seat_to_move().unwrap();
    t.act(first, Action::Pass, None, t0 + Duration::from_millis(7_000)).unwrap();
    journal.extend(t.take_inputs());
    // The server is down for an hour.
    let (mut r, _) = Table::replay(t.id.clone(), journal, t0).unwrap();
    let later = Instant::now() + Duration::from_secs(3600);
    r.resume(later, UNIX_EPOCH + Duration::from_secs(1_800_003_600));
    let (_, deadline) = r.next_deadline().unwrap();
    assert_eq!(deadline, later + Duration::from_millis(8_000), "a full action limit from the restart");
    assert_eq!(
        r.timing.clocks[usize::from(first)],
        Duration::from_millis(3_000),
        "time spent before stays spent"
    );
}

#[test]
fn joining_and_leaving_a_waiting_table_does_not_keep_it_alive() {
    let t0 = Instant::now();
    let hour = Duration::from_secs(3600);
    let mut t = table(t0);
    for minute in 1..59 {
        let now = t0 + Duration::from_secs(60 * minute);
        let seat = t.join("x", None, "", TokenHash::of(&format!("token{minute}")), now).unwrap();
        t.leave(seat, now).unwrap();
    }
    assert!(!t.expired(t0 + hour - Duration::from_secs(1), hour));
    assert!(t.expired(t0 + hour, hour), "an hour after creation, whatever the joins");
    // Starting the match is activity.
    let start = t0 + Duration::from_secs(3000);
    for i in 0..3 {
        t.join("p", None, "", TokenHash::of(&format!("p{i}")), start).unwrap();
    }
    assert!(!t.expired(t0 + hour, hour));
    assert!(t.expired(start + hour, hour));
}
