//! A forfeit before the declaration, written as an ISS record: the record follows the ISS
//! grammar (a discard without its declaration is left out) and carries what the
//! standings charged, so the record alone reproduces them.

use skat_engine::iss::{self, IssRecord, IssResult, RecordMeta};
use skat_engine::matches::{Match, MatchConfig, plain_by_seat, seeger_fabian_by_seat};
use skat_engine::{Action, Bid, ForfeitReason, Outcome, Position};

/// The seat to move and its legal actions.
fn turn(m: &Match) -> (skat_engine::Seat, skat_engine::LegalActions) {
    let seat = m.seat_to_move().expect("someone must act");
    let position = m.position_of(seat).expect("the seat plays this deal");
    (seat, m.deal().legal_actions(position))
}

/// The first bidder says `bid`, everybody else passes; returns the declarer's seat.
fn auction(m: &mut Match, bid: u16) -> skat_engine::Seat {
    let mut said = false;
    loop {
        let (seat, legal) = turn(m);
        if !legal.pass && legal.bid_from.is_none() && !legal.hold {
            return seat;
        }
        let action = if !said && legal.bid_from.is_some() {
            said = true;
            Action::Bid { value: Bid::new(bid).unwrap() }
        } else {
            Action::Pass
        };
        m.apply(seat, action).unwrap();
    }
}

fn meta() -> RecordMeta {
    RecordMeta {
        server: "test".into(),
        id: "t.0".into(),
        date: String::new(),
        players: ["a".into(), "b".into(), "c".into()],
        series: "1".into(),
    }
}

#[test]
fn a_time_out_after_the_discard_is_written_in_the_iss_grammar_with_its_charge() {
    for (seed, reason) in [(1, ForfeitReason::Timeout), (2, ForfeitReason::Left), (3, ForfeitReason::Timeout)]
    {
        let mut m = Match::new(MatchConfig { deals: 1, ..MatchConfig::standard(3, seed) }).unwrap();
        let declarer = auction(&mut m, 23);
        m.apply(declarer, Action::PickUpSkat).unwrap();
        let (_, legal) = turn(&m);
        let two: Vec<_> = legal.discard_from.iter().take(2).collect();
        m.apply(declarer, Action::Discard { cards: [two[0], two[1]].into_iter().collect() }).unwrap();
        m.apply(declarer, Action::Forfeit { reason }).unwrap();
        let record = m.records().last().unwrap().clone();
        let Outcome::Penalty(p) = record.outcome else { panic!("a penalty: {:?}", record.outcome) };
        assert_eq!(p.value, 23);

        let text = iss::write(&record, &meta());
        // No lone discard: after the skat is shown, the next move is the forfeit.
        let mv = text.split("MV[").nth(1).unwrap().split(']').next().unwrap();
        let words: Vec<&str> = mv.split_whitespace().collect();
        let shown = words.iter().rposition(|w| *w == "s").unwrap() + 3;
        assert_eq!(words[shown], "w", "{mv}");
        assert!(words[shown + 1].starts_with("TI.") || words[shown + 1].starts_with("LE."), "{mv}");
        assert_eq!(words.len(), shown + 2, "{mv}");

        // It parses and replays to the same result, which says what was charged.
        let parsed = IssRecord::parse(&text).unwrap();
        let replay = iss::replay(&parsed).unwrap();
        assert_eq!(replay.outcome, record.outcome);
        let r = parsed.result().unwrap();
        assert_eq!(r, IssResult::from_outcome(&record.outcome));
        assert!(r.penalty);
        let offender = p.offender.index();
        assert_eq!(r.declarer, offender as i8);
        assert_eq!(r.value, -46);

        // From d: and v: alone, scored as a lost game: the standings' numbers.
        let mut plain = [0i32; 3];
        plain[offender] = r.value;
        let mut sf = [40i32; 3];
        sf[offender] = r.value - 50;
        let by_position = |by_seat: Vec<i32>| -> Vec<i32> {
            Position::ALL.iter().map(|p| by_seat[usize::from(record.seats[p.index()])]).collect()
        };
        assert_eq!(by_position(plain_by_seat(&record, 3)), plain.to_vec());
        assert_eq!(by_position(seeger_fabian_by_seat(&record, 3)), sf.to_vec());
    }
}
