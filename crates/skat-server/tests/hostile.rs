//! A hostile client against every RPC, bounded in count and time, on loopback: while a
//! table is played with legal moves, before every move a seeded burst of bad requests
//! (malformed bytes, out of turn, another seat's cards, another table's token, replays,
//! oversized, unknown tables and tokens, bad enums). Each must get its status code, change
//! nothing (every seat's and a spectator's view are compared before and after), name no
//! card the caller did not name itself, and panic nothing.

mod common;

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use common::*;
use skat_engine::{Action, Bid, Card, CardSet};
use skat_proto::convert;
use skat_proto::pb;
use skat_server::ServerConfig;
use tonic::{Code, Status};

const MAX_MESSAGE: usize = 4096;
const STEPS: usize = 250;

/// The cards an error message names beyond those the caller sent.
fn leaked(status: &Status, named: CardSet) -> CardSet {
    cards_named_in(status.message()).without_all(named)
}

trait Without {
    fn without_all(self, other: CardSet) -> CardSet;
}

impl Without for CardSet {
    fn without_all(self, other: CardSet) -> CardSet {
        self.iter().filter(|c| !other.contains(*c)).collect()
    }
}

struct Hostile {
    client: Client,
    raw: RawClient,
    rng: RandomClient,
    table: String,
    tokens: Vec<String>,
    foreign_token: String,
    refusals: usize,
}

impl Hostile {
    async fn views(&mut self) -> Vec<pb::TableView> {
        let mut all = vec![view(&mut self.client, &self.table, None).await];
        for t in self.tokens.clone() {
            all.push(view(&mut self.client, &self.table, Some(&t)).await);
        }
        all
    }

    fn expect(&mut self, what: &str, result: Result<u64, Status>, codes: &[Code], named: CardSet) {
        let status = match result {
            Ok(seq) => panic!("{what}: accepted (seq {seq}) but must be refused"),
            Err(s) => s,
        };
        assert!(codes.contains(&status.code()), "{what}: {status:?}, expected one of {codes:?}");
        let extra = leaked(&status, named);
        assert!(
            extra.is_empty(),
            "{what}: the error names cards the caller did not: {extra:?} in {}",
            status.message()
        );
        self.refusals += 1;
    }

    /// One burst of bad requests against the table as it stands.
    async fn burst(&mut self, mover: usize, own: &pb::TableView, last_ok: Option<(Action, u64)>) {
        let (t, seq) = (self.table.clone(), own.seq);
        let legal =
            own.deal.as_ref().and_then(|d| d.legal.as_ref()).and_then(|l| convert::legal_from(l).ok());
        let other = (mover + 1 + self.rng.below(2)) % self.tokens.len();
        let random_card = Card::from_index(self.rng.below(32) as u8).unwrap();
        let one = |c: Card| -> CardSet { [c].into_iter().collect() };

        // Out of turn: the mover's own legal action, sent by another seat.
        if let Some(a) = legal.as_ref().and_then(|l| self.rng.player_choose(l))
            && !matches!(a, Action::Resign | Action::Claim)
        {
            let named = match a {
                Action::Play { card } => one(card),
                Action::Discard { cards } => cards,
                _ => CardSet::EMPTY,
            };
            let r = send(&mut self.client, &t, &self.tokens[other].clone(), a, Some(seq)).await;
            self.expect("out of turn", r, &[Code::FailedPrecondition], named);
        }
        // Another seat's card (or any card not legal now), by the mover.
        if let Some(l) = &legal
            && !l.cards.is_empty()
            && !l.cards.contains(random_card)
        {
            let r = send(
                &mut self.client,
                &t,
                &self.tokens[mover].clone(),
                Action::Play { card: random_card },
                Some(seq),
            )
            .await;
            self.expect("a card not held or not allowed", r, &[Code::FailedPrecondition], one(random_card));
        }
        // A bid below the ladder's next value, or in the wrong phase.
        if legal.as_ref().is_none_or(|l| l.bid_from.is_none_or(|b| b.value() > 18)) {
            let r = send(
                &mut self.client,
                &t,
                &self.tokens[mover].clone(),
                Action::Bid { value: Bid::new(18).unwrap() },
                Some(seq),
            )
            .await;
            self.expect("a bid that cannot be said", r, &[Code::FailedPrecondition], CardSet::EMPTY);
        }
        // Replayed: the last accepted request again, with its expected_seq.
        if let Some((a, at)) = last_ok {
            let r = send(&mut self.client, &t, &self.tokens[mover].clone(), a, Some(at)).await;
            self.expect("a replay", r, &[Code::Aborted], CardSet::EMPTY);
        }
        // A stale expected_seq with a legal action.
        if let Some(a) = legal.as_ref().and_then(|l| self.rng.player_choose(l)) {
            let r = send(
                &mut self.client,
                &t,
                &self.tokens[mover].clone(),
                a,
                Some(seq.saturating_sub(1 + self.rng.below(5) as u64)),
            )
            .await;
            self.expect("stale expected_seq", r, &[Code::Aborted], CardSet::EMPTY);
        }
        // Another table's token, a made-up token, no token.
        let foreign = self.foreign_token.clone();
        let r = send(&mut self.client, &t, &foreign, Action::Pass, None).await;
        self.expect("another table's token", r, &[Code::PermissionDenied], CardSet::EMPTY);
        let e = self
            .client
            .get_table(authed(pb::GetTableRequest { table_id: t.clone() }, &foreign))
            .await
            .unwrap_err();
        self.expect("GetTable with another table's token", Err(e), &[Code::PermissionDenied], CardSet::EMPTY);
        let e = self
            .client
            .watch_table(authed(
                pb::WatchTableRequest { table_id: t.clone(), after_seq: Some(0) },
                "deadbeef",
            ))
            .await
            .unwrap_err();
        self.expect("WatchTable with a made-up token", Err(e), &[Code::PermissionDenied], CardSet::EMPTY);
        let e = self.client.leave_table(pb::LeaveTableRequest { table_id: t.clone() }).await.unwrap_err();
        self.expect("LeaveTable without a token", Err(e), &[Code::Unauthenticated], CardSet::EMPTY);
        let e = self
            .client
            .claim(authed(
                pb::ClaimRequest {
                    table_id: "t000000000000".into(),
                    expected_seq: None,
                    comment: String::new(),
                },
                &self.tokens[mover].clone(),
            ))
            .await
            .unwrap_err();
        self.expect("an unknown table", Err(e), &[Code::NotFound], CardSet::EMPTY);
        // Bad enum values and malformed fields.
        let bad = self.rng.below(1000) as i32 + 33;
        let e = self
            .client
            .play_card(authed(
                pb::PlayCardRequest {
                    table_id: t.clone(),
                    card: bad,
                    expected_seq: Some(seq),
                    comment: String::new(),
                },
                &self.tokens[mover].clone(),
            ))
            .await
            .unwrap_err();
        self.expect("not a card", Err(e), &[Code::InvalidArgument], CardSet::EMPTY);
        let e = self
            .client
            .discard(authed(
                pb::DiscardRequest {
                    table_id: t.clone(),
                    cards: vec![1, 1],
                    expected_seq: Some(seq),
                    comment: String::new(),
                },
                &self.tokens[mover].clone(),
            ))
            .await
            .unwrap_err();
        self.expect("a card twice", Err(e), &[Code::InvalidArgument], convert::cards_from(&[1]).unwrap());
        let e = self
            .client
            .declare(authed(
                pb::DeclareRequest {
                    table_id: t.clone(),
                    game: 0,
                    announcement: bad,
                    expected_seq: Some(seq),
                    comment: String::new(),
                },
                &self.tokens[mover].clone(),
            ))
            .await
            .unwrap_err();
        self.expect("not a game", Err(e), &[Code::InvalidArgument], CardSet::EMPTY);
        let e = self
            .client
            .get_records(pb::GetRecordsRequest { table_id: t.clone(), format: bad })
            .await
            .unwrap_err();
        self.expect("not a record format", Err(e), &[Code::InvalidArgument], CardSet::EMPTY);
        let e = self
            .client
            .watch_table(pb::WatchTableRequest { table_id: t.clone(), after_seq: Some(seq + 1 + bad as u64) })
            .await
            .unwrap_err();
        self.expect("after_seq ahead", Err(e), &[Code::OutOfRange], CardSet::EMPTY);
        let e = self
            .client
            .join_table(pb::JoinTableRequest {
                table_id: t.clone(),
                seat: Some(other as u32),
                ..Default::default()
            })
            .await
            .unwrap_err();
        self.expect("a taken seat", Err(e), &[Code::ResourceExhausted], CardSet::EMPTY);
        // Malformed bytes to a random RPC, with a real token.
        const METHODS: [&str; skat_server::METHODS.len()] = skat_server::METHODS;
        let method = METHODS[self.rng.below(METHODS.len())];
        let garbage: Vec<u8> = (0..1 + self.rng.below(24)).map(|_| self.rng.below(256) as u8).collect();
        let mut body = vec![0x0a, 0x40]; // a string field that claims 64 bytes...
        body.extend(&garbage[..garbage.len().min(8)]); // ...and has fewer
        let e = self.raw.call_as(method, body, Some(&self.tokens[mover].clone())).await.unwrap_err();
        self.expect("malformed bytes", Err(e), &[Code::InvalidArgument], CardSet::EMPTY);
        // Oversized: a request over the message limit.
        let huge = "x".repeat(MAX_MESSAGE + self.rng.below(4096));
        let e = self
            .client
            .resign(authed(
                pb::ResignRequest { table_id: huge, expected_seq: None, comment: String::new() },
                &self.tokens[mover].clone(),
            ))
            .await
            .unwrap_err();
        self.expect("oversized", Err(e), &[Code::ResourceExhausted], CardSet::EMPTY);
    }
}

impl RandomClient {
    fn player_choose(&mut self, legal: &skat_engine::LegalActions) -> Option<Action> {
        let view = pb::TableView {
            deal: Some(pb::DealView { legal: Some(convert::legal(legal, false)), ..Default::default() }),
            ..Default::default()
        };
        self.choose(&view)
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hostile_requests_change_nothing_and_leak_nothing() {
    let panics = Arc::new(AtomicUsize::new(0));
    let counter = Arc::clone(&panics);
    let default_hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        counter.fetch_add(1, Ordering::SeqCst);
        default_hook(info);
    }));

    let server = TestServer::start(ServerConfig { max_message_bytes: MAX_MESSAGE, ..config() }).await;
    let mut client = server.client().await;
    let (table, tokens) = seated(&mut client, 3, 36, 2024).await;
    let (_, foreign) = seated(&mut client, 3, 36, 2025).await;
    let mut h = Hostile {
        client: client.clone(),
        raw: RawClient::connect(server.server.addr).await,
        rng: RandomClient::new(99),
        table: table.clone(),
        tokens: tokens.clone(),
        foreign_token: foreign[0].clone(),
        refusals: 0,
    };
    let mut player = RandomClient::new(7);
    let mut last_ok = None;
    let started = std::time::Instant::now();
    for _ in 0..STEPS {
        let before = h.views().await;
        if before[0].status == pb::TableStatus::Finished as i32 {
            break;
        }
        let mover = before[0].deal.as_ref().unwrap().seat_to_move.expect("a seat to move") as usize;
        let own = before[1 + mover].clone();
        within(30, h.burst(mover, &own, last_ok)).await;
        let after = h.views().await;
        assert_eq!(before, after, "refused requests changed a view");
        // A spectator never sees a hand or the skat during a deal.
        let d = after[0].deal.as_ref().unwrap();
        let nothing_to_do = d
            .legal
            .as_ref()
            .is_none_or(|l| convert::legal_from(l).is_ok_and(|l| !l.has_turn() && !l.resign && !l.claim));
        assert!(d.hand.is_empty() && d.skat.is_empty() && nothing_to_do, "spectator view: {d:?}");

        let Some(action) = player.choose(&own) else { continue };
        send(&mut client, &table, &tokens[mover], action, Some(own.seq)).await.unwrap();
        last_ok = Some((action, own.seq));
    }
    let _ = std::panic::take_hook();
    assert!(h.refusals > STEPS * 10, "{} refusals", h.refusals);
    assert_eq!(panics.load(Ordering::SeqCst), 0, "nothing may panic");
    eprintln!("{} hostile requests refused correctly in {:?}", h.refusals, started.elapsed());
}
