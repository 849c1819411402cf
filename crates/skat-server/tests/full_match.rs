//! Whole lists of deals over real gRPC on loopback, by clients that choose only from the
//! legal actions in their views; every stream must agree with the final records, and no
//! seat may ever learn a card it may not see.

mod common;

use std::collections::HashMap;
use std::time::Duration;

use common::*;
use skat_engine::{Action, CardSet, Deal, DealRecord, Phase, Position};
use skat_proto::convert;
use skat_proto::pb::{self, event::Kind, watch_table_response::Kind as WatchKind};
use tokio_stream::StreamExt;

/// Something a seat received, with the table's seq at that time.
#[derive(Debug, Clone)]
struct Seen {
    seq: u64,
    cards: CardSet,
    what: String,
}

/// The state of the match at each seq: (deal, moves applied in it, deal over).
fn timeline(events: &[pb::Event]) -> HashMap<u64, (u32, usize, bool)> {
    let mut map = HashMap::new();
    let mut at: Option<(u32, usize, bool)> = None;
    for e in events {
        match &e.kind {
            Some(Kind::DealStarted(d)) => at = Some((d.number, 0, false)),
            Some(Kind::ActionTaken(_)) => {
                if let Some((n, k, _)) = at {
                    at = Some((n, k + 1, false));
                }
            }
            Some(Kind::DealEnded(d)) => at = Some((d.deal, at.map_or(0, |a| a.1), true)),
            _ => {}
        }
        if let Some(a) = at {
            map.insert(e.seq, a);
        }
    }
    map
}

/// What `seat` may know after `k` moves of `record`'s deal, from the rules, computed
/// independently of the server.
fn allowed(record: &DealRecord, seat: u8, k: usize, over: bool) -> CardSet {
    if over {
        return CardSet::DECK;
    }
    let mut deal = Deal::new(record.dealt);
    for m in record.moves.iter().take(k) {
        deal.apply(m.position, m.action).unwrap();
    }
    let mut ok = deal.current_trick().card_set();
    for t in deal.tricks() {
        ok |= t.card_set();
    }
    if let Some(p) = record.seats.iter().position(|s| s.number() == seat).and_then(Position::from_index) {
        ok |= deal.hand(p);
        if deal.declarer() == Some(p) && deal.skat_picked_up() {
            ok |= record.dealt.skat | deal.discards();
        }
    }
    if let Some(d) = deal.declarer()
        && (deal.claimed() || deal.contract().is_some_and(|c| c.ouvert()))
    {
        ok |= deal.hand(d);
    }
    ok
}

async fn seat_client(
    server_addr: String,
    table: String,
    name: String,
    seed: u64,
) -> (u32, Vec<Seen>, Vec<pb::Event>) {
    let mut client = common::Client::connect(server_addr).await.unwrap();
    let (seat, token) = join(&mut client, &table, &name).await;
    let mut stream = client
        .watch_table(authed(pb::WatchTableRequest { table_id: table.clone(), after_seq: None }, &token))
        .await
        .unwrap()
        .into_inner();
    let mut seen = Vec::new();
    let mut events = Vec::new();
    let mut rng = RandomClient::new(seed);
    match stream.next().await {
        Some(Ok(pb::WatchTableResponse { kind: Some(WatchKind::Snapshot(v)) })) => {
            seen.push(Seen { seq: v.seq, cards: view_cards(&v), what: "snapshot".into() })
        }
        other => panic!("first message must be a snapshot: {other:?}"),
    }
    loop {
        let v = view(&mut client, &table, Some(&token)).await;
        seen.push(Seen { seq: v.seq, cards: view_cards(&v), what: "view".into() });
        if v.status == pb::TableStatus::Finished as i32 {
            break;
        }
        if let Some(action) = rng.choose(&v) {
            // Now and then, first try something the rules refuse: a card out of turn or
            // not held, a bid too low. The table must not move, and the message must not
            // name a hidden card.
            if rng.below(8) == 0 {
                let bad = Action::Play { card: skat_engine::Card::from_index(rng.below(32) as u8).unwrap() };
                let legal = convert::legal_from(v.deal.as_ref().unwrap().legal.as_ref().unwrap()).unwrap();
                if !legal.allows(bad) {
                    let err = send(&mut client, &table, &token, bad, Some(v.seq)).await.unwrap_err();
                    assert!(
                        matches!(err.code(), tonic::Code::FailedPrecondition | tonic::Code::Aborted),
                        "{err:?}"
                    );
                    // The card the client named itself is no news to it.
                    let Action::Play { card } = bad else { unreachable!() };
                    let named = cards_named_in(err.message()).without(card);
                    seen.push(Seen { seq: v.seq, cards: named, what: format!("error {}", err.message()) });
                }
            }
            match send(&mut client, &table, &token, action, Some(v.seq)).await {
                Ok(_) => {}
                Err(e) if e.code() == tonic::Code::Aborted => {}
                Err(e) => panic!("{action:?} from the legal actions was refused: {e:?}"),
            }
        } else {
            // Not our turn: wait for something to happen.
            match tokio::time::timeout(Duration::from_secs(10), stream.next()).await {
                Ok(Some(Ok(pb::WatchTableResponse { kind: Some(WatchKind::Event(e)) }))) => {
                    seen.push(Seen {
                        seq: e.seq,
                        cards: event_cards(&e),
                        what: format!("event {:?}", e.kind),
                    });
                    events.push(e);
                }
                Ok(None) => {}
                other => panic!("stream: {other:?}"),
            }
        }
    }
    // The stream ends cleanly once the match is over.
    while let Some(msg) = stream.next().await {
        match msg {
            Ok(pb::WatchTableResponse { kind: Some(WatchKind::Event(e)) }) => {
                seen.push(Seen { seq: e.seq, cards: event_cards(&e), what: format!("event {:?}", e.kind) });
                events.push(e);
            }
            other => panic!("unexpected stream message: {other:?}"),
        }
    }
    (seat, seen, events)
}

async fn spectator(server_addr: String, table: String) -> Vec<pb::Event> {
    let mut client = common::Client::connect(server_addr).await.unwrap();
    let mut stream = client
        .watch_table(pb::WatchTableRequest { table_id: table, after_seq: Some(0) })
        .await
        .unwrap()
        .into_inner();
    let mut events = Vec::new();
    while let Some(msg) = stream.next().await {
        match msg.unwrap().kind {
            Some(WatchKind::Event(e)) => events.push(e),
            other => panic!("a resumed stream sends no snapshot: {other:?}"),
        }
    }
    events
}

fn contiguous(events: &[pb::Event], from: u64) {
    for (i, e) in events.iter().enumerate() {
        assert_eq!(e.seq, from + i as u64, "events must be contiguous and never repeated");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn random_clients_play_216_deals_streams_agree_and_nothing_leaks() {
    let server = TestServer::start(config()).await;
    let addr = format!("http://{}", server.server.addr);
    let mut client = server.client().await;
    let tables = 6;
    let mut jobs = Vec::new();
    for t in 0..tables {
        let table = create(&mut client, 3, 36, 1000 + t).await;
        let spectate = tokio::spawn(spectator(addr.clone(), table.clone()));
        let seats: Vec<_> = (0..3)
            .map(|s| tokio::spawn(seat_client(addr.clone(), table.clone(), format!("bot{s}"), t * 10 + s)))
            .collect();
        jobs.push((table, spectate, seats));
    }
    let mut deals_checked = 0;
    for (table, spectate, seats) in jobs {
        let spectator_events = within(240, spectate).await.unwrap();
        contiguous(&spectator_events, 1);
        let response = client
            .get_records(pb::GetRecordsRequest {
                table_id: table.clone(),
                format: pb::RecordFormat::Json as i32,
            })
            .await
            .unwrap()
            .into_inner();
        // Far beyond the codec's first buffer at both ends: they grew to carry it.
        assert!(prost::Message::encoded_len(&response) > 16 * skat_proto::codec::BUFFER_BYTES);
        let records: Vec<DealRecord> =
            response.records.iter().map(|r| serde_json::from_str(r).unwrap()).collect();
        assert_eq!(records.len(), 36);
        deals_checked += records.len();
        let iss = client
            .get_records(pb::GetRecordsRequest {
                table_id: table.clone(),
                format: pb::RecordFormat::Iss as i32,
            })
            .await
            .unwrap()
            .into_inner()
            .records;
        for (text, record) in iss.iter().zip(&records) {
            let replay =
                skat_engine::iss::replay(&skat_engine::iss::IssRecord::parse(text).unwrap()).unwrap();
            assert_eq!(replay.outcome, record.outcome);
        }
        let times = timeline(&spectator_events);
        let ended: Vec<&pb::DealEnded> = spectator_events
            .iter()
            .filter_map(|e| if let Some(Kind::DealEnded(d)) = &e.kind { Some(d) } else { None })
            .collect();
        assert_eq!(ended.len(), 36);
        for (d, r) in ended.iter().zip(&records) {
            let result = d.result.as_ref().unwrap();
            let expected = convert::deal_result(&r.outcome, r.seats, &result.seeger_fabian);
            assert_eq!(result, &expected, "deal {}", r.number);
            assert_eq!(r.replay().unwrap().phase(), Phase::Finished);
        }
        for job in seats {
            let (seat, seen, events) = within(240, job).await.unwrap();
            // Each seat's stream: contiguous after its snapshot, and the same events as the
            // spectator's in number and order; results identical.
            contiguous(&events, events.first().map_or(1, |e| e.seq));
            let last = events.last().unwrap();
            assert_eq!(last.seq, spectator_events.len() as u64);
            assert!(matches!(last.kind, Some(Kind::MatchEnded(_))));
            for e in &events {
                let twin = &spectator_events[(e.seq - 1) as usize];
                assert_eq!(std::mem::discriminant(&e.kind), std::mem::discriminant(&twin.kind));
                if let (Some(Kind::DealEnded(a)), Some(Kind::DealEnded(b))) = (&e.kind, &twin.kind) {
                    assert_eq!(a, b, "every watcher sees the same result");
                }
            }
            // Hidden information: nothing this seat received names a card it may not see.
            for s in &seen {
                let Some(&(deal, k, over)) = times.get(&s.seq) else { continue };
                let ok = allowed(&records[deal as usize], seat as u8, k, over);
                assert!(
                    ok.contains_all(s.cards),
                    "seat {seat} learned {} at seq {} through {}",
                    s.cards - ok,
                    s.seq,
                    s.what
                );
            }
        }
        // Final standings agree with the records.
        let final_view = view(&mut client, &table, None).await;
        for st in &final_view.standings {
            let plain: i32 = records
                .iter()
                .map(|r| {
                    let scores = r.outcome.plain_scores();
                    r.seats
                        .iter()
                        .zip(scores)
                        .filter(|(s, _)| u32::from(**s) == st.seat)
                        .map(|(_, v)| v)
                        .sum::<i32>()
                })
                .sum();
            assert_eq!(st.plain, plain);
        }
    }
    assert!(deals_checked >= 200);
}
