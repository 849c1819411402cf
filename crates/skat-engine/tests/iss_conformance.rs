//! Every scoreable record from the International Skat Server re-scores exactly as the
//! server did: declarer, value, matadors, card points, tricks, schneider, schwarz,
//! overbid. The records are copied from the project's shared conformance set.

use skat_engine::iss::{self, IssRecord, IssResult};

const RECORDS: &str = include_str!("data/records.sgf");

#[test]
fn all_records_rescore_as_the_server_did() {
    let mut scored = 0;
    let mut penalties = 0;
    let mut passed = 0;
    for line in RECORDS.lines().filter(|l| !l.trim().is_empty()) {
        let record = IssRecord::parse(line).expect("record parses");
        let expected = record.result().expect("record has a readable R[...]");
        let replay = iss::replay(&record).unwrap_or_else(|e| panic!("record {}: {e}", record.id()));
        let ours = IssResult::from_outcome(&replay.outcome);
        if expected.penalty {
            assert!(ours.penalty, "record {} is a penalty: {ours:?}", record.id());
            assert_eq!(ours.left, expected.left, "record {}", record.id());
            penalties += 1;
            continue;
        }
        if expected.passed {
            passed += 1;
        }
        let id = record.id();
        assert_eq!(ours.passed, expected.passed, "record {id}: passed");
        assert_eq!(ours.declarer, expected.declarer, "record {id}: declarer");
        assert_eq!(ours.won, expected.won, "record {id}: won");
        assert_eq!(ours.value, expected.value, "record {id}: value");
        assert_eq!(ours.matadors, expected.matadors, "record {id}: matadors");
        assert_eq!(ours.overbid, expected.overbid, "record {id}: overbid");
        assert_eq!(ours.points, expected.points, "record {id}: points");
        assert_eq!(ours.tricks, expected.tricks, "record {id}: tricks");
        assert_eq!(ours.schneider, expected.schneider, "record {id}: schneider");
        assert_eq!(ours.schwarz, expected.schwarz, "record {id}: schwarz");
        assert_eq!(ours.left, expected.left, "record {id}: left");
        assert_eq!(ours.timeout, expected.timeout, "record {id}: timeout");
        scored += 1;
    }
    assert_eq!(scored, 36, "36 scoreable records (3 of them passed in)");
    assert_eq!(passed, 3);
    assert_eq!(penalties, 1);
}

#[test]
fn an_illegal_move_is_reported_with_its_index() {
    // The first record with its first card changed to one forehand does not hold.
    let line = RECORDS.lines().next().unwrap();
    let broken = line.replacen(" 0 CA 1 CK", " 0 CJ 1 CK", 1);
    let record = IssRecord::parse(&broken).unwrap();
    match iss::replay(&record) {
        Err(iss::IssError::Illegal { index, text, .. }) => {
            assert_eq!(text, "0 CJ");
            assert_eq!(index, 8, "pairs: deal, 4 bids, pickup, skat, declaration, then the card");
        }
        other => panic!("expected an illegal move, got {other:?}"),
    }
}
