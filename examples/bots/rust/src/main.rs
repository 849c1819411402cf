//! A Skat bot in Rust from the contract alone: stubs made by tonic-prost-build from
//! proto/skat/v1/skat.proto, no SDK (docs/writing-a-bot.md). It joins with a join key (and
//! joins again with it, as a client that lost the answer would: the same seat), acts on its
//! snapshot and on every event that gives it a turn, drops its stream once and resumes with
//! after_seq, reads one refusal's reason, and prints the standings.
//!
//! `skat-example-bot SERVER TABLE NAME [JOIN_KEY]`
//!
//! Hosted (docs/hosted-bots.md): with `SKAT_SEAT_TOKEN` set, it plays that seat at
//! `SKAT_TABLE` on `SKAT_SERVER` (`unix:///run/skat/grpc.sock` in a sandbox) instead.

use pb::skat_service_client::SkatServiceClient;
use pb::watch_table_response::Kind;
use tokio_stream::StreamExt;
use tonic::transport::Channel;
use tonic::{Request, Status};
use tonic_types::StatusExt;

mod pb {
    tonic::include_proto!("skat.v1");
}

/// The ErrorInfo reason of a refusal (`STALE_SEQ`), or "" (not the server's).
fn reason(s: &Status) -> String {
    s.get_error_details().error_info().map(|i| i.reason.clone()).unwrap_or_default()
}

/// Reasons that mean the table moved on while we decided: wait for the next event. Any
/// other refusal of an action is a bug in the bot.
const WAITS: [&str; 6] =
    ["STALE_SEQ", "NOT_YOUR_TURN", "WRONG_PHASE", "DEAL_OVER", "TABLE_FINISHED", "SITTING_OUT"];

fn is_turn(l: &pb::LegalActions) -> bool {
    !l.cards.is_empty()
        || !l.discard_from.is_empty()
        || !l.contracts.is_empty()
        || l.pick_up_skat
        || l.hold
        || l.min_bid > 0
        || l.may_pass
}

struct Bot {
    c: SkatServiceClient<Channel>,
    table: String,
    token: String,
    tested: bool, // one refusal read on purpose
}

impl Bot {
    fn authed<T>(&self, message: T) -> Request<T> {
        let mut r = Request::new(message);
        r.metadata_mut().insert("authorization", format!("Bearer {}", self.token).parse().expect("ascii"));
        r
    }

    /// The first legal choice (bid 18 or 20, then pass) with expected_seq = seq.
    async fn act(&mut self, l: &pb::LegalActions, seq: u64) {
        let mut expected = seq;
        if !self.tested {
            (self.tested, expected) = (true, seq + 1000); // once, on purpose: refused with STALE_SEQ
        }
        let (table_id, expected_seq) = (self.table.clone(), Some(expected));
        let mut c = self.c.clone();
        let result = if let Some(&card) = l.cards.first() {
            let r = pb::PlayCardRequest { table_id, card, expected_seq, ..Default::default() };
            c.play_card(self.authed(r)).await.map(drop)
        } else if l.discard_from.len() >= 2 {
            let r = pb::DiscardRequest {
                table_id,
                cards: l.discard_from[..2].to_vec(),
                expected_seq,
                ..Default::default()
            };
            c.discard(self.authed(r)).await.map(drop)
        } else if let Some(k) = l.contracts.first() {
            let (game, announcement) = (k.game, k.announcement);
            let r = pb::DeclareRequest { table_id, game, announcement, expected_seq, ..Default::default() };
            c.declare(self.authed(r)).await.map(drop)
        } else if l.pick_up_skat {
            let r = pb::TakeSkatRequest { table_id, pick_up: true, expected_seq, ..Default::default() };
            c.take_skat(self.authed(r)).await.map(drop)
        } else {
            let (call, value) = match (l.hold, l.min_bid) {
                (true, _) => (pb::BidCall::Hold, 0),
                (_, 1..=20) => (pb::BidCall::Say, l.min_bid),
                _ => (pb::BidCall::Pass, 0),
            };
            let r = pb::BidRequest { table_id, call: call as i32, value, expected_seq, ..Default::default() };
            c.bid(self.authed(r)).await.map(drop)
        };
        let Err(s) = result else { return };
        let why = reason(&s); // branch on the reason, never on the message
        println!("refused: {why} ({:?})", s.code());
        if expected != seq && why == "STALE_SEQ" {
            Box::pin(self.act(l, seq)).await; // now with the right seq
        } else if !WAITS.contains(&why.as_str()) {
            panic!("a bug in the bot: {s:?}");
        }
    }

    /// Reads the stream from `after` (0: a snapshot first); the match ended (true) or not.
    async fn watch(&mut self, after: u64, last: &mut u64, drop_after: usize) -> bool {
        let request =
            pb::WatchTableRequest { table_id: self.table.clone(), after_seq: (after > 0).then_some(after) };
        let Ok(stream) = self.c.clone().watch_table(self.authed(request)).await else { return false };
        let mut stream = stream.into_inner();
        let mut n = 0;
        while let Some(Ok(msg)) = stream.next().await {
            n += 1;
            match msg.kind {
                Some(Kind::Snapshot(view)) => {
                    *last = view.seq; // act on it: it may be our turn already
                    let over = [pb::TableStatus::Finished as i32, pb::TableStatus::Abandoned as i32];
                    if over.contains(&view.status) {
                        return true; // over before we came: nothing to play
                    }
                    if let Some(l) = view.deal.and_then(|d| d.legal).filter(is_turn) {
                        self.act(&l, view.seq).await;
                    }
                }
                Some(Kind::Event(ev)) => {
                    *last = ev.seq;
                    if let Some(pb::event::Kind::MatchEnded(end)) = &ev.kind {
                        for s in &end.standings {
                            println!("seat {} {:<12} seeger-fabian {:5}", s.seat, s.name, s.seeger_fabian);
                        }
                        return true;
                    }
                    if let Some(l) = ev.legal.as_ref().filter(|l| is_turn(l)) {
                        if ev.deadline_unix_ms > 0 {
                            // The server's clock on both sides: no skew.
                            println!(
                                "turn at seq {}, {} ms to act",
                                ev.seq,
                                ev.deadline_unix_ms - ev.time_unix_ms
                            );
                        }
                        self.act(l, ev.seq).await;
                    }
                    if n == drop_after {
                        println!("dropping the stream at seq {}", ev.seq);
                        return false; // dropping the stream cancels the call
                    }
                }
                None => {}
            }
        }
        false
    }
}

/// A join key: 16 random bytes in hex (keep it to get the seat back after a crash).
fn random_key() -> std::io::Result<String> {
    use std::io::Read as _;
    let mut bytes = [0u8; 16];
    std::fs::File::open("/dev/urandom")?.read_exact(&mut bytes)?;
    Ok(bytes.iter().map(|b| format!("{b:02x}")).collect())
}

/// A client of `server`: `host:port`, or `unix:///path` (a hosted bot's sandbox).
async fn connect(server: &str) -> Result<SkatServiceClient<Channel>, Box<dyn std::error::Error>> {
    let Some(path) = server.strip_prefix("unix://") else {
        let url = if server.contains("://") { server.to_string() } else { format!("http://{server}") };
        return Ok(SkatServiceClient::connect(url).await?); // TLS: https:// with tls features
    };
    let path = path.to_string();
    let channel = tonic::transport::Endpoint::from_static("http://localhost")
        .connect_with_connector(tower::service_fn(move |_: tonic::transport::Uri| {
            let path = path.clone();
            async move {
                Ok::<_, std::io::Error>(hyper_util::rt::TokioIo::new(
                    tokio::net::UnixStream::connect(path).await?,
                ))
            }
        }))
        .await?;
    Ok(SkatServiceClient::new(channel))
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    // Hosted: the runner gave this sandbox a seat; nothing to join.
    if let (Ok(server), Ok(table), Ok(token)) =
        (std::env::var("SKAT_SERVER"), std::env::var("SKAT_TABLE"), std::env::var("SKAT_SEAT_TOKEN"))
    {
        println!("hosted: playing seat {} at {table}", std::env::var("SKAT_SEAT").unwrap_or_default());
        let c = connect(&server).await?;
        let mut bot = Bot { c, table, token, tested: true };
        let mut last = 0;
        while !bot.watch(last, &mut last, 0).await {
            tokio::time::sleep(std::time::Duration::from_millis(100)).await;
        }
        return Ok(());
    }
    let [server, table, name, rest @ ..] = &args[..] else {
        return Err("usage: skat-example-bot SERVER TABLE NAME [JOIN_KEY]".into());
    };
    let key = match rest.first() {
        Some(k) => k.clone(),
        None => random_key()?,
    };
    let mut c = connect(server).await?;
    let mut token = String::new();
    for _ in 0..2 {
        // The second is a retry, as after a lost answer: the same seat.
        let r = pb::JoinTableRequest {
            table_id: table.clone(),
            name: name.clone(),
            join_key: key.clone(),
            ..Default::default()
        };
        let seat = c.join_table(r).await?.into_inner();
        println!("seat {} (rejoined: {})", seat.seat, seat.rejoined);
        token = seat.token;
    }
    let mut bot = Bot { c, table: table.clone(), token, tested: false };
    let mut last = 0;
    let mut drop_after = 5;
    while !bot.watch(last, &mut last, drop_after).await {
        drop_after = 0;
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
        println!("resuming after seq {last}");
        let view = bot
            .c
            .clone()
            .get_table(bot.authed(pb::GetTableRequest { table_id: table.clone() }))
            .await?
            .into_inner()
            .table;
        if let Some(v) = view
            && let Some(l) = v.deal.and_then(|d| d.legal).filter(is_turn)
        {
            bot.act(&l, v.seq).await; // a turn from before the drop
        }
    }
    Ok(())
}
