//! Comments on actions: sent with the action, shown to nobody while the deal is in play
//! (not to the other seats, not to spectators, not in any event), to everybody once it has
//! ended (the DealEnded event, the JSON record); too long a comment is refused.

mod common;

use skat_engine::{Action, Bid, Card, Contract};
use skat_proto::pb;
use skat_sdk::client::connect;
use skat_sdk::play::{PlayOptions, play};
use skat_sdk::{Bot, Knowledge, SeatClient};
use tokio_stream::StreamExt;

/// Plays the first legal choices and comments on every card: a short note naming its
/// seat and card, or (`too_long`) one the server refuses.
struct Chatty {
    seat: u32,
    too_long: bool,
}

impl Bot for Chatty {
    async fn bid(&mut self, k: &Knowledge) -> Option<Bid> {
        k.legal.bid_from
    }
    async fn answer(&mut self, _k: &Knowledge, _bid: Bid) -> bool {
        false
    }
    async fn take_skat(&mut self, _k: &Knowledge) -> bool {
        true
    }
    async fn discard(&mut self, k: &Knowledge) -> [Card; 2] {
        let mut it = k.legal.discard_from.iter();
        [it.next().unwrap(), it.next().unwrap()]
    }
    async fn declare(&mut self, k: &Knowledge) -> Contract {
        k.legal.contracts[0]
    }
    async fn play(&mut self, k: &Knowledge) -> Card {
        k.legal.cards.first().unwrap()
    }
    fn comment(&mut self, k: &Knowledge) -> Option<String> {
        if self.too_long {
            return Some("y".repeat(300));
        }
        (!k.legal.cards.is_empty())
            .then(|| format!("secret-note seat {} card {}", self.seat, k.legal.cards.first().unwrap()))
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn comments_are_hidden_during_the_deal_and_shown_after_it() {
    let server = common::server().await;
    let url = format!("http://{}", server.addr());
    let mut c = connect(&url).await.unwrap();
    let table = c
        .create_table(pb::CreateTableRequest { seats: 3, deals: 1, seed: Some(5), ..Default::default() })
        .await
        .unwrap()
        .into_inner()
        .table_id;
    // A spectator follows the whole list from the start.
    let mut spectator = skat_sdk::WatchStream::direct(
        c.watch_table(pb::WatchTableRequest { table_id: table.clone(), after_seq: Some(0) })
            .await
            .unwrap()
            .into_inner(),
    );
    let mut seats = Vec::new();
    for seat in 0..3u32 {
        seats.push(SeatClient::join(&url, &table, &format!("chatty{seat}"), Some(seat)).await.unwrap().0);
    }
    // Too long a comment is refused and changes nothing.
    let mut probe = SeatClient::with_token(&url, &table, seats[1].token()).await.unwrap().0;
    let refused = probe.act_commented(Action::Pass, None, Some(&"x".repeat(281))).await.unwrap_err();
    assert_eq!(skat_proto::convert::status_reason(&refused), Some(pb::ErrorReason::InvalidComment));
    // Seat 0 also watches as a seat while everybody plays.
    let mut own = seats[0].watch(Some(0)).await.unwrap();
    let mut tasks = Vec::new();
    for (i, seat) in seats.into_iter().enumerate() {
        tasks.push(tokio::spawn(async move {
            play(seat, &mut Chatty { seat: i as u32, too_long: false }, PlayOptions::default()).await
        }));
    }
    for t in tasks {
        t.await.unwrap().unwrap();
    }
    for stream in [&mut spectator, &mut own] {
        let mut ended = None;
        while let Some(msg) = stream.next().await {
            let Some(pb::watch_table_response::Kind::Event(e)) = msg.unwrap().kind else { continue };
            match &e.kind {
                Some(pb::event::Kind::DealEnded(d)) => ended = Some(d.clone()),
                Some(pb::event::Kind::MatchEnded(_)) => break,
                other => assert!(
                    !format!("{other:?}").contains("secret-note"),
                    "a comment before the deal ended: {other:?}"
                ),
            }
        }
        let ended = ended.expect("the deal ended");
        assert!(
            ended.comments.len() >= 3,
            "every seat's comments, with the deal's end: {:?}",
            ended.comments
        );
        assert!(ended.comments.windows(2).all(|w| w[0].move_index < w[1].move_index));
        assert!(
            ended.comments.iter().all(|c| c.text
                == format!("secret-note seat {} card {}", c.seat, c.text.rsplit(' ').next().unwrap()))
        );
    }
    let records = c
        .get_records(pb::GetRecordsRequest { table_id: table.clone(), format: pb::RecordFormat::Json as i32 })
        .await
        .unwrap()
        .into_inner()
        .records;
    let record: serde_json::Value = serde_json::from_str(&records[0]).unwrap();
    let comments = record["comments"].as_array().expect("comments in the record");
    assert!(!comments.is_empty());
    // Each comment sits at its move: a card play.
    for c in comments {
        let m = &record["moves"][c["move"].as_u64().unwrap() as usize];
        assert_eq!(m["action"], "play", "{c} at {m}");
        assert!(c["text"].as_str().unwrap().ends_with(m["card"].as_str().unwrap()), "{c} at {m}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_refused_comment_costs_the_comment_not_the_action() {
    let server = common::server().await;
    let url = format!("http://{}", server.addr());
    let mut c = connect(&url).await.unwrap();
    let table = c
        .create_table(pb::CreateTableRequest { seats: 3, deals: 2, seed: Some(5), ..Default::default() })
        .await
        .unwrap()
        .into_inner()
        .table_id;
    let mut tasks = Vec::new();
    for seat in 0..3u32 {
        let sc = SeatClient::join(&url, &table, &format!("verbose{seat}"), Some(seat)).await.unwrap().0;
        tasks.push(tokio::spawn(async move {
            play(sc, &mut Chatty { seat: 0, too_long: true }, PlayOptions::default()).await
        }));
    }
    for t in tasks {
        let finished = t.await.unwrap().expect("the list is played to its end");
        assert!(finished.standings.iter().all(|s| s.penalties == 0), "{:?}", finished.standings);
    }
}
