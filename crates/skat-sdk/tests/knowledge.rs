//! The knowledge the SDK folds from the stream (the engine's `SeatView`) equals the
//! seat's view at every decision:
//! random bots (every kind of declaration, hand games, ouvert) play whole lists at 3 and
//! 4 seats with `verify_knowledge` on, which compares the two and fails on a difference.

mod common;

use skat_engine::random::RandomPlayer;
use skat_engine::{Action, Bid, Card, Contract};
use skat_proto::pb;
use skat_sdk::client::connect;
use skat_sdk::play::{PlayOptions, play};
use skat_sdk::{Bot, Knowledge, SeatClient};

struct Random(RandomPlayer);

impl Random {
    fn pick(&mut self, k: &Knowledge) -> Option<Action> {
        self.0.choose_from(&k.legal)
    }
}

impl Bot for Random {
    async fn bid(&mut self, k: &Knowledge) -> Option<Bid> {
        match self.pick(k) {
            Some(Action::Bid { value }) => Some(value),
            _ => None,
        }
    }
    async fn answer(&mut self, k: &Knowledge, _bid: Bid) -> bool {
        self.pick(k) == Some(Action::Hold)
    }
    async fn take_skat(&mut self, k: &Knowledge) -> bool {
        self.pick(k) == Some(Action::PickUpSkat)
    }
    async fn discard(&mut self, k: &Knowledge) -> [Card; 2] {
        match self.pick(k) {
            Some(Action::Discard { cards }) => [cards.nth(0).unwrap(), cards.nth(1).unwrap()],
            other => panic!("{other:?}"),
        }
    }
    async fn declare(&mut self, k: &Knowledge) -> Contract {
        match self.pick(k) {
            Some(Action::Declare { contract }) => contract,
            other => panic!("{other:?}"),
        }
    }
    async fn play(&mut self, k: &Knowledge) -> Card {
        match self.pick(k) {
            Some(Action::Play { card }) => card,
            other => panic!("{other:?}"),
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stream_knowledge_matches_the_view_at_every_decision() {
    let server = common::server().await;
    let url = format!("http://{}", server.addr());
    for (seats, deals, seed) in [(3u32, 36u32, 1u64), (3, 36, 2), (4, 24, 3)] {
        let mut client = connect(&url).await.unwrap();
        let table = client
            .create_table(pb::CreateTableRequest { seats, deals, seed: Some(seed), ..Default::default() })
            .await
            .unwrap()
            .into_inner()
            .table_id;
        let mut tasks = Vec::new();
        for s in 0..seats {
            let (sc, _) = SeatClient::join(&url, &table, &format!("r{s}"), Some(s)).await.unwrap();
            tasks.push(tokio::spawn(async move {
                let mut bot = Random(RandomPlayer::new(seed * 10 + u64::from(s)));
                play(sc, &mut bot, PlayOptions { verify_knowledge: true, ..PlayOptions::default() }).await
            }));
        }
        for t in tasks {
            let finished = t.await.unwrap().unwrap_or_else(|e| panic!("{e}"));
            assert_eq!(finished.standings.len(), seats as usize);
            // Every decision came from the knowledge folded from the stream, checked
            // against the seat's view.
            assert!(finished.decisions > 30, "{finished:?}");
        }
        let view = client
            .get_table(pb::GetTableRequest { table_id: table })
            .await
            .unwrap()
            .into_inner()
            .table
            .unwrap();
        assert_eq!(view.deals_played, deals);
    }
}
