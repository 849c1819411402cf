//! Entry points for fuzzers: outside input in, no panic out. The cargo-fuzz targets in
//! `fuzz/` run them for as long as one likes; `tests/fuzz_iss.rs` runs a bounded number
//! of cases in the test command. Each also checks what must hold for input it accepts.

use crate::iss::{self, IssRecord, RecordMeta};
use crate::matches::Seat;
use crate::record::DealRecord;

/// An ISS record from anywhere: parsed, its result read, replayed; when it replays, it is
/// written again by our writer, and that record must replay to the same outcome.
pub fn iss_record(text: &str) {
    let Ok(record) = IssRecord::parse(text) else { return };
    let _ = record.result();
    let Ok(replay) = iss::replay(&record) else { return };
    let ours = DealRecord {
        number: 0,
        seed: None,
        seats: [Seat::new(0), Seat::new(1), Seat::new(2)],
        dealer: Seat::new(2),
        dealt: *replay.deal.dealt(),
        moves: replay.moves.clone(),
        outcome: replay.outcome,
    };
    let meta = RecordMeta {
        server: "fuzz".into(),
        id: record.id().into(),
        date: String::new(),
        players: ["a".into(), "b".into(), "c".into()],
        series: String::new(),
    };
    let written = iss::write(&ours, &meta);
    let again =
        IssRecord::parse(&written).unwrap_or_else(|e| panic!("our own record must parse: {e}: {written}"));
    let replayed =
        iss::replay(&again).unwrap_or_else(|e| panic!("our own record must replay: {e}: {written}"));
    assert_eq!(replayed.outcome, replay.outcome, "{written}");
    assert_eq!(again.result(), Some(iss::IssResult::from_outcome(&replay.outcome)), "{written}");
}
