//! The SDKs' knowledge corpus, `conformance/knowledge.jsonl`: streams exactly as this
//! server sends them to a seat (or a spectator), with the knowledge the seat must hold
//! after every message, which the Rust, Python and TypeScript SDKs all replay.
//!
//! Each line is one case: `name`, `seats`, `seat` (null: a spectator), `messages` (each
//! `{"event": base64}` of a `skat.v1.Event`, or `{"snapshot": base64}` of the
//! `skat.v1.TableView` a client gets when it starts watching mid-deal) and `expected`:
//! after each message, the knowledge in the SDKs' shared JSON form
//! (`skat_sdk::knowledge::to_json`). The expected knowledge is the engine's own: its
//! `SeatView` folded from the engine's redacted events (which `skat-engine`'s property
//! tests prove equal to the deal's view at every step), not any SDK's fold of the wire.
//!
//! One field is the wire's: `legal`, what the seat may do now, is what the server attached
//! to the event. A request that causes several events (the last card of a deal: the card,
//! the deal's end, the next deal) is answered by the table only in its final state, so only
//! the last of them carries legal actions; the states in between are never the table's.
//! The generator checks that wherever the table rests, the wire's legal actions are the
//! engine's.
//!
//! The cases cover every game kind (suit, grand, null, null ouvert, hand games, announced
//! schneider), a list passed in, 3 and 4 seats (the dealer sitting out), a spectator,
//! resuming mid-deal from a snapshot, resigning, claiming, time-outs and a seat left and
//! taken again. The test fails when the file differs from what the server sends now;
//! `SKAT_WRITE_CORPUS=1 cargo test -p skat-server knowledge_corpus` writes it again.

use std::time::{Duration, Instant, UNIX_EPOCH};

use prost::Message as _;
use skat_engine::random::RandomPlayer;
use skat_engine::{Action, Announcement, GameType, LegalActions, MatchConfig, Seat, SeatView};
use skat_proto::{convert, pb};

use super::projection;
use skat_table::secret::TokenHash;
use skat_table::{Table, TableConfig, TableEvent, TableId};

/// What the driver does for the seat to move (or instead of it).
enum Step {
    Act(Action),
    /// Another seat acts out of turn (resign, claim).
    Other(Seat, Action),
    /// The seat to move runs out of time.
    TimeOut,
    /// The seat to move leaves, and `name` takes the seat.
    LeaveAndRejoin(&'static str),
}

/// Chooses for the seat to move: the deal's number, the seat, its legal actions, the
/// table (to look at the deal), and a random player for everything not scripted.
type Policy = Box<dyn FnMut(u32, Seat, &LegalActions, &Table, &mut RandomPlayer) -> Step>;

struct Case {
    name: &'static str,
    seats: u8,
    deals: u32,
    seed: u64,
    /// Who watches (None: a spectator), and the seq to start from with a snapshot.
    watchers: Vec<(Option<Seat>, Option<u64>)>,
    policy: Policy,
}

/// The auction of every scripted deal: the first bidder says 18, everybody else passes,
/// so that a declarer comes quickly; then the skat is picked up.
#[derive(Default)]
struct Auctioneer {
    deal: Option<u32>,
    said: bool,
}

impl Auctioneer {
    /// The call for an auction decision (`None` for any other decision).
    fn call(&mut self, deal: u32, legal: &LegalActions) -> Option<Action> {
        if self.deal != Some(deal) {
            self.deal = Some(deal);
            self.said = false;
        }
        if legal.hold {
            return Some(Action::Pass);
        }
        if let Some(b) = legal.bid_from {
            if self.said {
                return Some(Action::Pass);
            }
            self.said = true;
            return Some(Action::Bid { value: b });
        }
        (legal.pass && legal.contracts.is_empty() && legal.cards.is_empty()).then_some(Action::Pass)
    }

    /// A plain game: the skat picked up, a suit game or grand without announcements.
    fn plain(legal: &LegalActions) -> Option<Action> {
        if legal.pick_up_skat {
            return Some(Action::PickUpSkat);
        }
        legal
            .contracts
            .iter()
            .find(|c| c.game != GameType::Null && c.announcement == Announcement::None)
            .map(|c| Action::Declare { contract: *c })
    }
}

/// The declaration wanted for deal `n` of the mixed case, if legal.
fn wanted(n: u32, legal: &LegalActions) -> Option<Action> {
    let pick = |game: GameType, announcement: Announcement| {
        legal.contracts.iter().find(|c| c.game == game && c.announcement == announcement).copied()
    };
    let c = match n % 6 {
        0 => pick(GameType::Grand, Announcement::None),
        1 => pick(GameType::Null, Announcement::None),
        2 => pick(GameType::Clubs, Announcement::Schneider)
            .or_else(|| pick(GameType::Hearts, Announcement::Schneider)),
        3 => pick(GameType::Null, Announcement::Ouvert),
        5 => pick(GameType::Spades, Announcement::None)
            .or_else(|| pick(GameType::Diamonds, Announcement::None)),
        _ => None,
    };
    c.map(|contract| Action::Declare { contract })
}

/// Every game kind: hand games on deals 2 and 3, deal 4 passed in.
fn mixed_policy() -> Policy {
    let mut auction = Auctioneer::default();
    Box::new(move |deal, _, legal, _, rng| {
        if let Some(call) = auction.call(deal, legal) {
            // Deal 4 is passed in.
            return Step::Act(if deal % 6 == 4 { Action::Pass } else { call });
        }
        if legal.pick_up_skat && legal.play_hand {
            // Deals 2 and 3: hand games (schneider announced; null ouvert hand).
            return Step::Act(if matches!(deal % 6, 2 | 3) { Action::PlayHand } else { Action::PickUpSkat });
        }
        if !legal.contracts.is_empty()
            && let Some(a) = wanted(deal, legal)
        {
            return Step::Act(a);
        }
        Step::Act(rng.choose_from(legal).unwrap_or(Action::Pass))
    })
}

/// Any legal action.
fn random_policy() -> Policy {
    Box::new(|_, _, legal, _, rng| Step::Act(rng.choose_from(legal).unwrap_or(Action::Pass)))
}

/// The declarer resigns (deal 0), then both defenders (deal 1).
fn resign_policy() -> Policy {
    let mut played = 0u32;
    let mut auction = Auctioneer::default();
    Box::new(move |deal, seat, legal, t, rng| {
        if let Some(call) = auction.call(deal, legal).or_else(|| Auctioneer::plain(legal)) {
            return Step::Act(call);
        }
        if !legal.cards.is_empty() {
            played += 1;
            let declarer =
                t.game().deal().declarer().and_then(|p| t.game().seats_of(deal).get(p.index()).copied());
            // Deal 0: the declarer resigns when it is to play after five cards; deal 1:
            // both defenders resign after the fourth card (one after the other).
            if deal == 0 && played >= 5 && Some(seat) == declarer {
                return Step::Act(Action::Resign);
            }
            if deal == 1 && legal.resign && played > 3 {
                let seats = t.game().seats_of(deal);
                if let Some(d) = declarer
                    && let Some(other) = seats.iter().copied().find(|s| *s != d && t.legal_actions(*s).resign)
                {
                    return Step::Other(other, Action::Resign);
                }
            }
        }
        Step::Act(rng.choose_from(legal).unwrap_or(Action::Pass))
    })
}

/// The declarer claims after six cards; the defenders give in.
fn claim_policy() -> Policy {
    let mut cards_seen = 0u32;
    let mut auction = Auctioneer::default();
    Box::new(move |deal, _, legal, t, rng| {
        if let Some(call) = auction.call(deal, legal).or_else(|| Auctioneer::plain(legal)) {
            return Step::Act(call);
        }
        if !legal.cards.is_empty() {
            cards_seen += 1;
            let seats = t.game().seats_of(deal);
            let declarer = t.game().deal().declarer().map(|p| seats[p.index()]);
            if let Some(d) = declarer {
                if t.legal_actions(d).claim && cards_seen > 6 {
                    return Step::Other(d, Action::Claim);
                }
                if t.game().deal().claimed()
                    && let Some(other) = seats.iter().copied().find(|s| *s != d && t.legal_actions(*s).resign)
                {
                    return Step::Other(other, Action::Resign);
                }
            }
        }
        Step::Act(rng.choose_from(legal).unwrap_or(Action::Pass))
    })
}

/// Time-outs in the auction and in play, and a seat left and taken again.
fn timeout_policy() -> Policy {
    let mut steps = 0u32;
    let mut left = false;
    Box::new(move |deal, _, legal, _, rng| {
        steps += 1;
        // Deal 0: a time-out in the auction (a penalty); deal 1: one during play (the
        // declarer's side forfeits the game); deal 2: a seat leaves mid-play and
        // another takes it.
        if deal == 0 && steps == 2 {
            return Step::TimeOut;
        }
        if deal == 1 && !legal.cards.is_empty() && steps.is_multiple_of(7) {
            return Step::TimeOut;
        }
        if deal == 2 && !legal.cards.is_empty() && !left {
            left = true;
            return Step::LeaveAndRejoin("newcomer");
        }
        Step::Act(rng.choose_from(legal).unwrap_or(Action::Pass))
    })
}

fn cases() -> Vec<Case> {
    let (mixed, random, resign, claim, timeout) =
        (mixed_policy(), random_policy, resign_policy(), claim_policy(), timeout_policy());
    vec![
        Case {
            name: "three_seats_every_game_kind",
            seats: 3,
            deals: 6,
            seed: 11,
            watchers: vec![(Some(Seat::new(0)), None), (Some(Seat::new(1)), None), (None, None)],
            policy: mixed,
        },
        Case {
            name: "four_seats_the_dealer_sits_out",
            seats: 4,
            deals: 4,
            seed: 12,
            watchers: vec![(Some(Seat::new(0)), None), (Some(Seat::new(3)), None)],
            policy: random(),
        },
        Case {
            name: "resume_mid_deal_from_a_snapshot",
            seats: 3,
            deals: 2,
            seed: 13,
            watchers: vec![(Some(Seat::new(1)), Some(14)), (None, Some(20))],
            policy: random(),
        },
        Case {
            name: "resign",
            seats: 3,
            deals: 2,
            seed: 14,
            watchers: vec![(Some(Seat::new(0)), None), (Some(Seat::new(2)), None)],
            policy: resign,
        },
        Case {
            name: "claim",
            seats: 3,
            deals: 1,
            seed: 15,
            watchers: vec![
                (Some(Seat::new(0)), None),
                (Some(Seat::new(1)), None),
                (Some(Seat::new(2)), None),
            ],
            policy: claim,
        },
        Case {
            name: "time_outs_and_a_seat_taken_again",
            seats: 3,
            deals: 4,
            seed: 16,
            watchers: vec![
                (Some(Seat::new(0)), None),
                (Some(Seat::new(1)), None),
                (Some(Seat::new(2)), None),
            ],
            policy: timeout,
        },
    ]
}

/// A played case: the finished table, per watcher that starts from a snapshot the
/// snapshot taken when the log reached its seq, and every seq at which the table rested
/// (after a join or a step).
struct Played {
    table: Table,
    snapshots: Vec<Option<pb::TableView>>,
    rests: std::collections::BTreeSet<u64>,
}

/// Plays a case.
fn play(case: &mut Case) -> Played {
    let t0 = Instant::now();
    let mut ms = 0u64;
    let mut now = || {
        ms += 250;
        t0 + Duration::from_millis(ms)
    };
    let config = TableConfig {
        name: case.name.to_string(),
        game: MatchConfig { seats: case.seats, deals: case.deals, seed: case.seed },
        action_ms: 60_000,
        deal_ms: 0,
        between_deals_ms: 0,
        join_code: None,
        max_joins: 64,
        tournament: false,
    };
    let wall = UNIX_EPOCH + Duration::from_secs(1_800_000_000);
    let mut t = Table::new(TableId::new(None, case.seed), config, t0, wall).expect("a table");
    let mut rests = std::collections::BTreeSet::new();
    for s in 0..case.seats {
        let at = now();
        t.join(
            &format!("player {s}"),
            Some(Seat::new(s)),
            "",
            TokenHash::of(&format!("{}-{s}", case.name)),
            at,
        )
        .expect("a seat");
        rests.insert(t.seq());
    }
    let mut snapshots = vec![None; case.watchers.len()];
    let mut rng = RandomPlayer::new(case.seed);
    let mut guard = 0;
    while !t.is_finished() {
        guard += 1;
        assert!(guard < 10_000, "{}: the driver does not end the list", case.name);
        for (i, (watcher, from)) in case.watchers.iter().enumerate() {
            if snapshots[i].is_none() && *from == Some(t.seq()) {
                snapshots[i] = Some(projection::table_view(&t, *watcher, t0));
            }
        }
        let seat = t.seat_to_move().expect("somebody moves");
        let legal = t.legal_actions(seat);
        let deal = t.game().deal_number();
        let at = now();
        match (case.policy)(deal, seat, &legal, &t, &mut rng) {
            Step::Act(action) => {
                t.act(seat, action, Some(t.seq()), at)
                    .unwrap_or_else(|e| panic!("{}: {action:?}: {e}", case.name));
            }
            Step::Other(other, action) => {
                t.act(other, action, Some(t.seq()), at)
                    .unwrap_or_else(|e| panic!("{}: {action:?}: {e}", case.name));
            }
            Step::TimeOut => {
                let (turn, deadline) = t.next_deadline().expect("a clock runs");
                t.on_deadline(turn, deadline).expect("the turn times out");
            }
            Step::LeaveAndRejoin(name) => {
                t.leave(seat, at).expect("leave");
                rests.insert(t.seq());
                t.join(name, Some(seat), "", TokenHash::of(name), at).expect("rejoin");
            }
        }
        rests.insert(t.seq());
    }
    for (i, (_, from)) in case.watchers.iter().enumerate() {
        assert!(
            from.is_none() || snapshots[i].is_some(),
            "{}: the log never stood at seq {from:?}",
            case.name
        );
    }
    Played { table: t, snapshots, rests }
}

fn b64(bytes: &[u8]) -> String {
    use base64::Engine as _;
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

/// One watcher's stream and the knowledge after each message.
fn stream(
    case: &Case,
    played: &Played,
    watcher: Option<Seat>,
    snapshot: Option<pb::TableView>,
) -> serde_json::Value {
    let t = &played.table;
    let mut messages = Vec::new();
    let mut expected = Vec::new();
    let mut truth = SeatView::new(watcher);
    let start = snapshot.as_ref().map_or(0, |s| s.seq);
    let events = projection::events_after(t, 0, t.seq(), watcher, usize::MAX);
    let entries = t.entries_after(0, usize::MAX);
    for (i, (entry, event)) in entries.iter().zip(&events).enumerate() {
        if let TableEvent::Game(g) = &entry.event {
            truth.apply(&g.seen_by(watcher));
        }
        let seq = i as u64 + 1;
        // The contract: where the table rests, an event's `legal` is what the seat may do.
        let sent = event
            .legal
            .as_ref()
            .map(|l| convert::legal_from(l).expect("valid legal actions"))
            .unwrap_or_default();
        if played.rests.contains(&seq) {
            assert_eq!(sent, truth.legal, "{}: legal after seq {seq} for {watcher:?}", case.name);
        }
        if seq < start {
            continue;
        }
        if seq == start {
            let s = snapshot.clone().expect("a snapshot");
            messages.push(serde_json::json!({ "snapshot": b64(&s.encode_to_vec()) }));
        } else {
            messages.push(serde_json::json!({ "event": b64(&event.encode_to_vec()) }));
        }
        let mut knows = truth.clone();
        knows.view.legal = sent;
        expected.push(skat_sdk::knowledge::to_json(&knows));
    }
    serde_json::json!({
        "name": format!("{}/{}", case.name, watcher.map_or("spectator".to_string(), |s| format!("seat {s}"))),
        "seats": case.seats,
        "seat": watcher.map(u32::from),
        "messages": messages,
        "expected": expected,
    })
}

/// The corpus as this server makes it now.
fn corpus() -> String {
    let mut out = String::new();
    for mut case in cases() {
        let played = play(&mut case);
        for ((watcher, _), snapshot) in case.watchers.iter().zip(played.snapshots.clone()) {
            out.push_str(&stream(&case, &played, *watcher, snapshot).to_string());
            out.push('\n');
        }
    }
    out
}

#[test]
fn the_committed_knowledge_corpus_is_what_the_server_sends() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../conformance/knowledge.jsonl");
    let made = corpus();
    // Coverage: every kind of game and ending the corpus promises is in it.
    for needle in [
        "\"game\":\"grand\"",
        "\"game\":\"null\"",
        "\"announcement\":\"ouvert\"",
        "\"announcement\":\"schneider\"",
        "\"hand\":true",
        "\"kind\":\"passed_in\"",
        "\"kind\":\"penalty\"",
        "\"end\":\"declarer_resigned\"",
        "\"end\":\"defenders_resigned\"",
        "\"claimed\":true",
        "\"end\":\"forfeit\"",
        "\"snapshot\"",
        "\"final_standings\":[{",
    ] {
        assert!(made.contains(needle), "the corpus has no {needle}");
    }
    if std::env::var_os("SKAT_WRITE_CORPUS").is_some() {
        std::fs::write(&path, &made).expect("write the corpus");
        return;
    }
    let committed = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        committed == made,
        "conformance/knowledge.jsonl differs from what the server sends now ({} vs {} bytes): if the change \
         is meant, write it again with `SKAT_WRITE_CORPUS=1 cargo test -p skat-server knowledge_corpus`, and \
         the three SDKs' tests check it",
        committed.len(),
        made.len()
    );
}
