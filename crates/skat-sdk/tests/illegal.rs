//! A bot that makes illegal bids keeps its seat: the SDK logs `illegal action refused`
//! with the decision, the legal set and the reason, and plays the fallback (or resigns,
//! or stops, as `OnIllegal` says).

mod common;

use skat_engine::{Bid, Card, Contract};
use skat_proto::pb;
use skat_sdk::client::connect;
use skat_sdk::play::{OnIllegal, PlayOptions, play};
use skat_sdk::{Bot, Knowledge, SeatClient};

/// Always says 18, even when the bid is already higher (an illegal bid), then plays
/// the first legal choices.
struct EighteenForever;

impl Bot for EighteenForever {
    async fn bid(&mut self, _k: &Knowledge) -> Option<Bid> {
        Some(Bid::MIN)
    }
    async fn answer(&mut self, _k: &Knowledge, _bid: Bid) -> bool {
        true
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
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn illegal_bids_are_logged_and_replaced_and_the_seat_plays_on() {
    let captured = skat_testkit::CapturedLog::default();
    let subscriber = tracing_subscriber::fmt().with_ansi(false).with_writer(captured.writer()).finish();
    // Global: the seats play on the runtime's other threads (the only subscriber set in
    // this test binary).
    tracing::subscriber::set_global_default(subscriber).unwrap();

    let server = common::server().await;
    let url = format!("http://{}", server.addr());
    let table = six_deals(&url).await;
    let mut tasks = Vec::new();
    for seat in 0..3u32 {
        let (sc, _) = SeatClient::join(&url, &table, &format!("eighteen{seat}"), Some(seat)).await.unwrap();
        tasks.push(tokio::spawn(async move { play(sc, &mut EighteenForever, PlayOptions::default()).await }));
    }
    for t in tasks {
        let finished = t.await.unwrap().expect("the seat plays its list to the end");
        assert!(
            finished.standings.iter().all(|s| s.penalties == 0),
            "no seat timed out: {:?}",
            finished.standings
        );
    }
    let log = captured.text();
    // (The other test of this binary logs its stops here too.)
    let line = log
        .lines()
        .find(|l| l.contains("illegal action refused") && l.contains("(fallback)"))
        .expect("a warning");
    assert!(line.contains("WARN"), "{line}");
    assert!(line.contains("decision=bid 18") && line.contains("legal=bid 20..264 | pass"), "{line}");
    assert!(line.contains("reason=NOT_LEGAL") && line.contains("then=playing pass (fallback)"), "{line}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn on_illegal_stop_gives_the_seat_up_with_an_error() {
    let server = common::server().await;
    let url = format!("http://{}", server.addr());
    let table = six_deals(&url).await;
    let mut tasks = Vec::new();
    for seat in 0..3u32 {
        let (sc, _) = SeatClient::join(&url, &table, &format!("stop{seat}"), Some(seat)).await.unwrap();
        let options = PlayOptions { on_illegal: OnIllegal::Stop, ..PlayOptions::default() };
        tasks.push(tokio::spawn(async move { play(sc, &mut EighteenForever, options).await }));
    }
    // The first seat to bid illegally stops with the error (the table then waits for it:
    // this server has no clocks, so the other seats are ended here).
    let (first, _, rest) = futures_select_all(tasks).await;
    let e = first.unwrap().expect_err("the seat stopped");
    assert!(e.to_string().contains("illegal action bid 18 refused"), "{e}");
    for t in rest {
        t.abort();
    }
    assert_eq!("resign".parse::<OnIllegal>(), Ok(OnIllegal::Resign));
    assert!("ignore".parse::<OnIllegal>().is_err());
}

/// A table of three seats and six deals on the server at `url`.
async fn six_deals(url: &str) -> String {
    let mut c = connect(url).await.unwrap();
    let request = pb::CreateTableRequest { seats: 3, deals: 6, seed: Some(3), ..Default::default() };
    c.create_table(request).await.unwrap().into_inner().table_id
}

/// The first of `tasks` to end, its index, and the others.
async fn futures_select_all<T: Send + 'static>(
    mut tasks: Vec<tokio::task::JoinHandle<T>>,
) -> (Result<T, tokio::task::JoinError>, usize, Vec<tokio::task::JoinHandle<T>>) {
    loop {
        if let Some(i) = tasks.iter().position(|t| t.is_finished()) {
            let done = tasks.remove(i);
            return (done.await, i, tasks);
        }
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
    }
}
