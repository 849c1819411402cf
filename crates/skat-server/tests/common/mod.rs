//! Helpers for the server's end-to-end tests: a real server on loopback, clients with
//! seat tokens, and a random player that chooses only from the legal actions its view
//! lists.

#![allow(dead_code)]

use std::future::Future;
use std::time::Duration;

use rand_chacha::ChaCha8Rng;
use rand_core::{Rng, SeedableRng};
use skat_engine::random::RandomPlayer;
use skat_engine::{Action, CardSet};
use skat_proto::convert;
use skat_proto::pb::skat_service_client::SkatServiceClient;
use skat_proto::pb::{self};
use skat_server::ServerConfig;
use tonic::transport::Channel;
use tonic::{Request, Status};

pub type Client = SkatServiceClient<Channel>;

/// A server in this process on an ephemeral port, stopped when dropped (the test
/// harness's, `skat-testkit`).
pub use skat_testkit::InProcess as TestServer;

/// A gRPC client of a test server, once it answers.
pub trait Connect {
    /// The client.
    fn client(&self) -> impl Future<Output = Client>;
}

impl Connect for TestServer {
    async fn client(&self) -> Client {
        for _ in 0..50 {
            if let Ok(c) = SkatServiceClient::connect(self.url()).await {
                return c;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        panic!("server did not come up");
    }
}

/// Fast tests: no clocks unless a test asks for them.
pub fn config() -> ServerConfig {
    TestServer::fast()
}

pub fn authed<T>(message: T, token: &str) -> Request<T> {
    let mut r = Request::new(message);
    r.metadata_mut().insert("authorization", format!("Bearer {token}").parse().unwrap());
    r
}

pub async fn create(client: &mut Client, seats: u32, deals: u32, seed: u64) -> String {
    client
        .create_table(pb::CreateTableRequest {
            name: "test".into(),
            seats,
            deals,
            seed: Some(seed),
            time_control: None,
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner()
        .table_id
}

pub async fn join(client: &mut Client, table: &str, name: &str) -> (u32, String) {
    let r = client
        .join_table(pb::JoinTableRequest {
            table_id: table.into(),
            name: name.into(),
            seat: None,
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner();
    (r.seat, r.token)
}

pub async fn view(client: &mut Client, table: &str, token: Option<&str>) -> pb::TableView {
    let req = pb::GetTableRequest { table_id: table.into() };
    let req = match token {
        Some(t) => authed(req, t),
        None => Request::new(req),
    };
    client.get_table(req).await.unwrap().into_inner().table.unwrap()
}

/// Sends `action` for the seat holding `token` (through the SDK's client).
pub async fn send(
    client: &mut Client,
    table: &str,
    token: &str,
    action: Action,
    expected_seq: Option<u64>,
) -> Result<u64, Status> {
    skat_sdk::SeatClient::from_parts(client.clone(), "", table, token, 0).act(action, expected_seq).await
}

/// A random player that reads only its view's legal actions (the engine's
/// `RandomPlayer::choose_from`), now and then resigning or claiming to exercise those.
pub struct RandomClient {
    rng: ChaCha8Rng,
    player: RandomPlayer,
}

impl RandomClient {
    pub fn new(seed: u64) -> Self {
        RandomClient { rng: ChaCha8Rng::seed_from_u64(seed), player: RandomPlayer::new(seed) }
    }

    pub fn below(&mut self, n: usize) -> usize {
        (self.rng.next_u32() as usize) % n.max(1)
    }

    /// A legal action for the seat whose view this is, if it has the turn.
    pub fn choose(&mut self, view: &pb::TableView) -> Option<Action> {
        let deal = view.deal.as_ref()?;
        let legal = convert::legal_from(deal.legal.as_ref()?).ok()?;
        if !legal.has_turn() {
            return None;
        }
        if legal.resign && self.below(200) == 0 {
            return Some(Action::Resign);
        }
        if legal.claim && self.below(200) == 0 {
            return Some(Action::Claim);
        }
        self.player.choose_from(&legal)
    }
}

/// Runs `f` with a time limit, so that a hung test fails instead of hanging CI.
pub async fn within<T>(secs: u64, f: impl Future<Output = T>) -> T {
    tokio::time::timeout(Duration::from_secs(secs), f).await.expect("test timed out")
}

/// Every card code (as proto enum names like CARD_HJ, or ISS codes) in a text.
pub fn cards_named_in(text: &str) -> CardSet {
    let mut set = CardSet::EMPTY;
    for c in skat_engine::Card::all() {
        let code = c.to_string();
        let bytes = text.as_bytes();
        let mut start = 0;
        while let Some(i) = text[start..].find(&code) {
            let at = start + i;
            let before = if at == 0 { b' ' } else { bytes[at - 1] };
            let after = bytes.get(at + 2).copied().unwrap_or(b' ');
            if !before.is_ascii_alphanumeric() && !after.is_ascii_alphanumeric() || before == b'_' {
                set.insert(c);
            }
            start = at + 1;
        }
    }
    set
}

/// The cards a protobuf message names, read from its fields through the debug form.
pub fn cards_in_debug<T: std::fmt::Debug>(message: &T) -> CardSet {
    cards_named_in(&format!("{message:?}"))
}

/// Seats three (or four) players at a new table; returns the table and the tokens by seat.
pub async fn seated(client: &mut Client, seats: u32, deals: u32, seed: u64) -> (String, Vec<String>) {
    let table = create(client, seats, deals, seed).await;
    let mut tokens = vec![String::new(); seats as usize];
    for i in 0..seats {
        let (seat, token) = join(client, &table, &format!("p{i}")).await;
        tokens[seat as usize] = token;
    }
    (table, tokens)
}

/// Plays the table to its end with random legal actions, one driver for every seat.
pub async fn play_to_end(client: &mut Client, table: &str, tokens: &[String], seed: u64) {
    let mut rng = RandomClient::new(seed);
    loop {
        let public = view(client, table, None).await;
        if public.status == pb::TableStatus::Finished as i32 {
            return;
        }
        let Some(seat) = public.deal.as_ref().and_then(|d| d.seat_to_move).map(|s| s as usize) else {
            panic!("a playing table has a deal")
        };
        let own = view(client, table, Some(&tokens[seat])).await;
        if let Some(action) = rng.choose(&own) {
            match send(client, table, &tokens[seat], action, Some(own.seq)).await {
                Ok(_) => {}
                Err(e) if e.code() == tonic::Code::Aborted => {}
                Err(e) => panic!("{action:?} from the legal actions was refused: {e:?}"),
            }
        }
    }
}

/// Reads a stream to its end: the events, and the error it ended with, if any.
pub async fn drain_stream(
    mut stream: tonic::Streaming<pb::WatchTableResponse>,
) -> (Vec<pb::Event>, Option<pb::TableView>, Option<Status>) {
    use tokio_stream::StreamExt;
    let mut events = Vec::new();
    let mut snapshot = None;
    while let Some(msg) = stream.next().await {
        match msg {
            Ok(pb::WatchTableResponse { kind: Some(pb::watch_table_response::Kind::Event(e)) }) => {
                events.push(e)
            }
            Ok(pb::WatchTableResponse { kind: Some(pb::watch_table_response::Kind::Snapshot(v)) }) => {
                snapshot = Some(v)
            }
            Ok(other) => panic!("unexpected stream message {other:?}"),
            Err(status) => return (events, snapshot, Some(status)),
        }
    }
    (events, snapshot, None)
}

/// A gRPC client that sends any bytes as a request body: for malformed requests.
pub struct RawClient {
    channel: tonic::transport::Channel,
}

#[derive(Clone, Copy, Default)]
pub struct RawCodec;

impl tonic::codec::Codec for RawCodec {
    type Encode = Vec<u8>;
    type Decode = Vec<u8>;
    type Encoder = RawCodec;
    type Decoder = RawCodec;
    fn encoder(&mut self) -> RawCodec {
        RawCodec
    }
    fn decoder(&mut self) -> RawCodec {
        RawCodec
    }
}

impl tonic::codec::Encoder for RawCodec {
    type Item = Vec<u8>;
    type Error = Status;
    fn encode(&mut self, item: Vec<u8>, dst: &mut tonic::codec::EncodeBuf<'_>) -> Result<(), Status> {
        bytes::BufMut::put_slice(dst, &item);
        Ok(())
    }
}

impl tonic::codec::Decoder for RawCodec {
    type Item = Vec<u8>;
    type Error = Status;
    fn decode(&mut self, src: &mut tonic::codec::DecodeBuf<'_>) -> Result<Option<Vec<u8>>, Status> {
        use bytes::Buf;
        let mut v = vec![0; src.remaining()];
        src.copy_to_slice(&mut v);
        Ok(Some(v))
    }
}

impl RawClient {
    pub async fn connect(addr: std::net::SocketAddr) -> RawClient {
        let channel = tonic::transport::Endpoint::from_shared(format!("http://{addr}"))
            .unwrap()
            .connect()
            .await
            .unwrap();
        RawClient { channel }
    }

    /// Calls `/skat.v1.SkatService/{method}` with `body`, optionally with a token; for
    /// a streaming method, the first message or the status.
    pub async fn call_as(
        &mut self,
        method: &str,
        body: Vec<u8>,
        token: Option<&str>,
    ) -> Result<Vec<u8>, Status> {
        let mut grpc = tonic::client::Grpc::new(self.channel.clone());
        grpc.ready().await.map_err(|e| Status::unavailable(e.to_string()))?;
        let path: http::uri::PathAndQuery = format!("/skat.v1.SkatService/{method}").parse().unwrap();
        let request = match token {
            Some(t) => authed(body, t),
            None => Request::new(body),
        };
        if method == "WatchTable" {
            let mut stream = grpc.server_streaming(request, path, RawCodec).await?.into_inner();
            stream.message().await.map(|m| m.unwrap_or_default())
        } else {
            grpc.unary(request, path, RawCodec).await.map(|r| r.into_inner())
        }
    }

    pub async fn call(&mut self, method: &str, body: Vec<u8>) -> Result<Vec<u8>, Status> {
        self.call_as(method, body, None).await
    }
}

/// Every card a view shows, in any field.
pub fn view_cards(v: &pb::TableView) -> CardSet {
    let mut ids: Vec<i32> = Vec::new();
    if let Some(d) = &v.deal {
        ids.extend(&d.hand);
        ids.extend(&d.skat);
        ids.extend(&d.discards);
        ids.extend(&d.open_hand);
        if let Some(t) = &d.current_trick {
            ids.extend(&t.cards);
        }
        for t in &d.tricks {
            ids.extend(&t.cards);
        }
        if let Some(l) = &d.legal {
            ids.extend(&l.discard_from);
            ids.extend(&l.cards);
        }
        if let Some(x) = &d.dealt {
            for part in [&x.forehand, &x.middlehand, &x.rearhand, &x.skat, &x.discards] {
                ids.extend(part);
            }
        }
    }
    ids.iter().filter_map(|c| convert::card_from(*c).ok()).collect()
}

/// Every card an event shows, in any field.
pub fn event_cards(e: &pb::Event) -> CardSet {
    let mut ids: Vec<i32> = Vec::new();
    match &e.kind {
        Some(pb::event::Kind::DealStarted(d)) => ids.extend(&d.hand),
        Some(pb::event::Kind::ActionTaken(a)) => {
            if let Some(act) = &a.action {
                ids.extend(&act.cards);
                ids.push(act.card);
            }
            ids.extend(&a.open_hand);
        }
        Some(pb::event::Kind::DealEnded(d)) => {
            if let Some(x) = &d.dealt {
                for part in [&x.forehand, &x.middlehand, &x.rearhand, &x.skat, &x.discards] {
                    ids.extend(part);
                }
            }
        }
        _ => {}
    }
    if let Some(l) = &e.legal {
        ids.extend(&l.discard_from);
        ids.extend(&l.cards);
    }
    ids.iter().filter_map(|c| convert::card_from(*c).ok()).collect()
}

/// A tar holding what `podman save --format oci-archive` writes at its top.
pub fn oci_archive(salt: &str) -> Vec<u8> {
    let mut b = Vec::new();
    for (name, data) in [
        ("oci-layout", r#"{"imageLayoutVersion":"1.0.0"}"#.to_string()),
        ("index.json", format!("{{\"salt\":\"{salt}\"}}")),
    ] {
        let mut h = [0u8; 512];
        h[..name.len()].copy_from_slice(name.as_bytes());
        h[100..107].copy_from_slice(b"0000644");
        let size = format!("{:011o}", data.len());
        h[124..135].copy_from_slice(size.as_bytes());
        h[136..147].copy_from_slice(b"00000000000");
        h[156] = b'0';
        h[257..262].copy_from_slice(b"ustar");
        h[148..156].copy_from_slice(b"        ");
        let sum: u32 = h.iter().map(|&x| u32::from(x)).sum();
        h[148..155].copy_from_slice(format!("{sum:06o}\0").as_bytes());
        b.extend_from_slice(&h);
        b.extend_from_slice(data.as_bytes());
        b.resize(b.len().div_ceil(512) * 512, 0);
    }
    b.resize(b.len() + 1024, 0);
    b
}

/// The `ErrorInfo` reason of a refusal.
pub fn reason(status: &Status) -> Option<pb::ErrorReason> {
    use tonic_types::StatusExt as _;
    let info = status.get_error_details().error_info().cloned()?;
    pb::ErrorReason::from_str_name(&format!("ERROR_REASON_{}", info.reason))
}

/// A client of a test server's hosting service.
pub async fn hosting_client(
    server: &TestServer,
) -> skat_proto::pb::hosting_service_client::HostingServiceClient<Channel> {
    let channel =
        Channel::from_shared(format!("http://{}", server.server.addr)).unwrap().connect().await.unwrap();
    skat_proto::pb::hosting_service_client::HostingServiceClient::new(channel)
}
