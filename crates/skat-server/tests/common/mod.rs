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
use skat_server::{RunningServer, ServerConfig};
use tokio::sync::oneshot;
use tonic::transport::Channel;
use tonic::{Request, Status};

pub type Client = SkatServiceClient<Channel>;

/// A server on 127.0.0.1 with an ephemeral port; drop the sender to stop it.
pub struct TestServer {
    pub server: RunningServer,
    pub stop: Option<oneshot::Sender<()>>,
}

impl TestServer {
    pub async fn start(mut config: ServerConfig) -> TestServer {
        config.addr = "127.0.0.1:0".parse().unwrap();
        let (tx, rx) = oneshot::channel::<()>();
        let stopped = async move {
            let _ = rx.await;
        };
        let server = skat_server::start(config, stopped).await.unwrap();
        TestServer { server, stop: Some(tx) }
    }

    pub async fn client(&self) -> Client {
        let url = format!("http://{}", self.server.addr);
        for _ in 0..50 {
            if let Ok(c) = SkatServiceClient::connect(url.clone()).await {
                return c;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        panic!("server did not come up");
    }

    pub fn stop(&mut self) {
        if let Some(tx) = self.stop.take() {
            let _ = tx.send(());
        }
    }
}

/// Fast tests: no clocks unless a test asks for them.
pub fn config() -> ServerConfig {
    ServerConfig { default_action_ms: 0, default_deal_ms: 0, ..ServerConfig::default() }
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
        })
        .await
        .unwrap()
        .into_inner()
        .table_id
}

pub async fn join(client: &mut Client, table: &str, name: &str) -> (u32, String) {
    let r = client
        .join_table(pb::JoinTableRequest { table_id: table.into(), name: name.into(), seat: None })
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
