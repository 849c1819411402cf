//! Golden digests of everything that reads a table's past, over many seeded lists: the
//! events from seq 0 as each viewer (a spectator, every seat) is sent them, and the
//! records as ISS and as JSON. The digests in `tests/unit/log_golden.txt` were written
//! by the server that kept its whole log in memory; a table that keeps less and derives
//! the rest from its inputs must give the same bytes. Every list has a clock (deadlines
//! and deal clocks on the events), comments on some actions, a seat that times out, and
//! one that leaves and is taken again, and a restart (rebuilt from the journal and resumed
//! later). And wherever a stream resumes (every `seq`), the
//! next events it reads are those of the whole stream from there.
//!
//! `SKAT_WRITE_GOLDEN=1 cargo test -p skat-server log_golden` writes the digests again
//! (only when the bytes are meant to change).

use std::time::{Duration, Instant, UNIX_EPOCH};

use prost::Message as _;
use sha2::Digest as _;
use skat_engine::random::RandomPlayer;
use skat_engine::{MatchConfig, Seat};

use super::projection;
use skat_table::records::RecordContext;
use skat_table::secret::TokenHash;
use skat_table::{Table, TableConfig, TableId};

const GOLDEN: &str = "tests/unit/log_golden.txt";

/// A list played by random seats on a fake clock: 1.5 s per action, every 50th turn
/// timed out, a comment on every 20th action, and once per list a seat leaves and a
/// newcomer takes it.
fn played(seats: u8, deals: u32, seed: u64) -> Table {
    let t0 = Instant::now();
    let config = TableConfig {
        name: format!("golden {seats}x{deals} seed {seed}"),
        game: MatchConfig { deals, ..MatchConfig::standard(seats, seed) },
        action_ms: 5_000,
        deal_ms: 60_000,
        between_deals_ms: 0,
        join_code: None,
        max_joins: 64,
        tournament: false,
    };
    let wall = UNIX_EPOCH + Duration::from_millis(1_800_000_000_000 + seed);
    let mut t = Table::new(TableId::new(None, seed), config, t0, wall).expect("a table");
    // The fake clock: milliseconds since t0.
    let mut ms = 0u64;
    let at = |ms: &mut u64, step: u64| {
        *ms += step;
        t0 + Duration::from_millis(*ms)
    };
    for i in 0..seats {
        t.join(&format!("seat {i}"), None, "", TokenHash::of(&format!("{seed}-{i}")), at(&mut ms, 10))
            .expect("a seat");
    }
    let mut player = RandomPlayer::new(seed);
    let mut turns = 0u32;
    while !t.is_finished() {
        turns += 1;
        let seat = t.seat_to_move().expect("a seat to move");
        if turns.is_multiple_of(50) {
            let (turn, deadline) = t.next_deadline().expect("a clock runs");
            t.on_deadline(turn, deadline).expect("the turn times out");
            ms = deadline.duration_since(t0).as_millis() as u64;
            continue;
        }
        if turns == 301 {
            // A restart: the table rebuilt from its journal, resumed 30 s later.
            let (mut again, _) =
                Table::replay(TableId::new(None, seed), t.take_inputs(), t0).expect("replays");
            let now = at(&mut ms, 30_000);
            again.resume(now, wall + Duration::from_millis(ms));
            t = again;
            continue;
        }
        if turns == 77 {
            t.leave(seat, at(&mut ms, 100)).expect("leaves");
            t.join("newcomer", Some(seat), "", TokenHash::of(&format!("{seed}-new")), at(&mut ms, 100))
                .expect("rejoins");
        }
        // (The seat to move again: the rejoin may have changed it.)
        let Some(seat) = t.seat_to_move() else { continue };
        let legal = t.legal_actions(seat);
        let action = player.choose_from(&legal).expect("a legal action");
        let comment = turns.is_multiple_of(20).then(|| format!("turn {turns}"));
        t.act_commented(seat, action, comment, None, at(&mut ms, 1_500)).expect("legal");
    }
    t
}

/// The digest of what every viewer reads of `t` from seq 0, and of its records.
fn digest(t: &Table) -> String {
    let mut h = sha2::Sha256::new();
    let viewers = std::iter::once(None).chain((0..t.seat_count()).map(|s| Some(Seat::new(s as u8))));
    for viewer in viewers {
        for e in projection::events_after(t, 0, t.seq(), viewer, usize::MAX) {
            h.update(e.encode_to_vec());
        }
    }
    let context = RecordContext { server: "golden".into(), tournament_id: None };
    for json in [false, true] {
        for r in t.records().until(t.seq(), json, &context) {
            h.update(r.as_bytes());
        }
    }
    h.finalize().iter().map(|b| format!("{b:02x}")).collect()
}

/// The lists: 3 and 4 seats, 36 deals, several seeds.
fn lists() -> Vec<(u8, u32, u64)> {
    let mut v = Vec::new();
    for seats in [3u8, 4] {
        for seed in 1..=6u64 {
            v.push((seats, 36, seed * 7 + u64::from(seats)));
        }
    }
    v
}

#[test]
fn every_reader_of_a_tables_past_gives_the_golden_bytes() {
    let lines: Vec<String> = lists()
        .into_iter()
        .map(|(seats, deals, seed)| format!("{seats} {deals} {seed} {}", digest(&played(seats, deals, seed))))
        .collect();
    let text = lines.join("\n") + "\n";
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(GOLDEN);
    if std::env::var_os("SKAT_WRITE_GOLDEN").is_some() {
        std::fs::write(&path, &text).expect("write the golden digests");
    }
    let golden = std::fs::read_to_string(&path).expect("the golden digests");
    assert_eq!(text, golden, "a reader of the past gives other bytes than the golden ones");
}

/// A stream that resumes after any `seq` reads what the whole stream has from there:
/// for a 3- and a 4-seat list, every seq, a spectator and one seat.
#[test]
fn a_stream_resumed_at_any_seq_reads_the_rest_of_the_whole_stream() {
    for (seats, seed) in [(3u8, 5u64), (4, 6)] {
        let t = played(seats, 36, seed);
        for viewer in [None, Some(Seat::new(1))] {
            let whole: Vec<_> = projection::events_after(&t, 0, t.seq(), viewer, usize::MAX);
            assert_eq!(whole.len() as u64, t.seq());
            for after in 0..=t.seq() {
                let next = projection::events_after(&t, after, t.seq(), viewer, 3);
                let from = after as usize;
                assert_eq!(next, whole[from..(from + 3).min(whole.len())], "after seq {after}");
            }
        }
    }
}
