//! A seat at a table, over gRPC: join (or reuse a token), act, look, watch.

use skat_engine::Action;
use skat_proto::convert;
use skat_proto::pb::skat_service_client::SkatServiceClient;
use skat_proto::pb::{self};
use tonic::transport::Channel;

pub use crate::address::ServerAddress;
use crate::connections::{Connections, Lease};
use crate::error::broken_connection;
pub use crate::error::{SdkError, refused};
use crate::watches::{WatchHub, WatchStream};
use tonic::{Request, Status};

/// A fresh join key: 16 random bytes in hex.
fn random_key() -> Result<String, SdkError> {
    let mut bytes = [0u8; 16];
    getrandom::fill(&mut bytes)
        .map_err(|e| SdkError::Protocol(format!("no randomness for a join key: {e}")))?;
    Ok(bytes.iter().map(|b| format!("{b:02x}")).collect())
}

/// A seat number the server sent must be a seat (0 to 3), so that [`SeatClient::seat`]
/// can never stand for another one.
fn check_seat(seat: u32) -> Result<(), SdkError> {
    if seat > 3 {
        return Err(SdkError::Protocol(format!("the server gave seat {seat}; tables have at most 4")));
    }
    Ok(())
}

/// The URL for a server address: `127.0.0.1:50051` and `http://127.0.0.1:50051` both
/// name the same server (the Python and TypeScript clients take the first form, gRPC
/// URLs the second); `https://` is TLS.
pub fn server_url(address: &str) -> String {
    ServerAddress::new(address).url().to_string()
}

/// Connects to a server: `http://127.0.0.1:50051`, just `127.0.0.1:50051`, or
/// `https://...` for TLS (see [`ServerAddress`]).
pub async fn connect(server: impl Into<ServerAddress>) -> Result<SkatServiceClient<Channel>, SdkError> {
    server.into().connect().await
}

/// A request with `authorization: Bearer <token>`.
pub fn with_token<T>(message: T, token: &str) -> Request<T> {
    let mut r = Request::new(message);
    if let Ok(v) = format!("Bearer {token}").parse() {
        r.metadata_mut().insert("authorization", v);
    }
    r
}

pub use crate::error::OWNER_METADATA;

/// The owner's address when `status` is a redirect (NOT_FOUND with `skat-owner`), as
/// the server named it (`host:port`, or a URL).
pub fn redirect(status: &Status) -> Option<String> {
    if status.code() != tonic::Code::NotFound {
        return None;
    }
    Some(status.metadata().get(OWNER_METADATA)?.to_str().ok()?.to_string())
}

/// Runs `call` against `server`, following up to three redirects to the replica that
/// owns the table (with the same TLS settings). Returns the server that answered.
pub async fn follow_redirects<T, F, Fut>(
    server: impl Into<ServerAddress>,
    call: F,
) -> Result<(ServerAddress, T), SdkError>
where
    F: FnMut(SkatServiceClient<Channel>) -> Fut,
    Fut: std::future::Future<Output = Result<T, Status>>,
{
    follow_redirects_in(server.into(), None, call).await
}

/// [`follow_redirects`], on connections from `shared` when given.
async fn follow_redirects_in<T, F, Fut>(
    mut server: ServerAddress,
    shared: Option<&Connections>,
    mut call: F,
) -> Result<(ServerAddress, T), SdkError>
where
    F: FnMut(SkatServiceClient<Channel>) -> Fut,
    Fut: std::future::Future<Output = Result<T, Status>>,
{
    for _ in 0..4 {
        let client = match shared {
            Some(pool) => pool.client(&server).await?.0,
            None => server.connect().await?,
        };
        match call(client).await {
            Ok(v) => return Ok((server, v)),
            Err(status) => match redirect(&status).map(|owner| server.at(&owner)) {
                Some(owner) if owner.url() != server.url() => {
                    tracing::debug!(owner = owner.url(), "table lives on another replica; following");
                    server = owner;
                }
                _ => return Err(status.into()),
            },
        }
    }
    Err(SdkError::Protocol("too many redirects".into()))
}

/// One seat at one table.
#[derive(Debug, Clone)]
pub struct SeatClient {
    client: SkatServiceClient<Channel>,
    server: ServerAddress,
    /// Where the seat was first asked for (before any redirect): with replicas, the
    /// address that finds a table's owner again after a takeover.
    home: ServerAddress,
    table_id: String,
    token: String,
    seat: u32,
    /// The connections this seat shares with others (a lobby's seats), and its place on
    /// one: a reconnection takes a place from them again.
    shared: Option<(Connections, Lease)>,
    /// The stream this seat watches its table on, shared with the other seats on its
    /// connection (a lobby's seats): `None` watches on a WatchTable stream of its own.
    hub: Option<WatchHub>,
}

impl SeatClient {
    /// Takes a seat (`seat`: a particular one, or the first open) at `server` (following
    /// a redirect to the replica that owns the table). Returns the client and the table as
    /// the new seat sees it.
    pub async fn join(
        server: impl Into<ServerAddress>,
        table_id: &str,
        name: &str,
        seat: Option<u32>,
    ) -> Result<(SeatClient, pb::TableView), SdkError> {
        SeatClient::join_with_code(server, table_id, name, seat, "").await
    }

    /// [`SeatClient::join`] for a private table, with the join code its creator was given.
    pub async fn join_with_code(
        server: impl Into<ServerAddress>,
        table_id: &str,
        name: &str,
        seat: Option<u32>,
        join_code: &str,
    ) -> Result<(SeatClient, pb::TableView), SdkError> {
        SeatClient::join_as(server, table_id, name, seat, join_code, None).await
    }

    /// [`SeatClient::join_with_code`] with the operator's create or admin token: a
    /// server that seats anonymous clients only through lobbies (`skat serve --anonymous
    /// spectate|none`) lets its operator take seats at hand-made tables.
    pub async fn join_as(
        server: impl Into<ServerAddress>,
        table_id: &str,
        name: &str,
        seat: Option<u32>,
        join_code: &str,
        operator_token: Option<&str>,
    ) -> Result<(SeatClient, pb::TableView), SdkError> {
        let key = random_key()?;
        SeatClient::join_keyed(server, table_id, name, seat, join_code, operator_token, &key).await
    }

    /// [`SeatClient::join_as`] with a join key the caller keeps (16 to 128 printable
    /// characters): JoinTable with the same key and name gets the same seat back, with a
    /// new token, after a crash. A JoinTable whose answer is lost (the connection broke,
    /// UNAVAILABLE) is retried with the key, so it never takes a second seat.
    pub async fn join_keyed(
        server: impl Into<ServerAddress>,
        table_id: &str,
        name: &str,
        seat: Option<u32>,
        join_code: &str,
        operator_token: Option<&str>,
        join_key: &str,
    ) -> Result<(SeatClient, pb::TableView), SdkError> {
        let server = server.into();
        // The answer carries the seat's token, and every later call sends it.
        server.check_secret("seat token")?;
        let req = pb::JoinTableRequest {
            table_id: table_id.into(),
            name: name.into(),
            seat,
            join_code: join_code.into(),
            join_key: join_key.into(),
        };
        let home = server.clone();
        let mut attempt = 0;
        let (server, r) = loop {
            let answer = follow_redirects(server.clone(), |mut c| {
                let req = match operator_token {
                    Some(t) => with_token(req.clone(), t),
                    None => tonic::Request::new(req.clone()),
                };
                async move { c.join_table(req).await.map(|r| r.into_inner()) }
            })
            .await;
            match answer {
                Err(SdkError::Status(s))
                    if attempt < 2 && (s.code() == tonic::Code::Unavailable || broken_connection(&s)) =>
                {
                    attempt += 1;
                    tokio::time::sleep(std::time::Duration::from_millis(200 * attempt)).await;
                }
                other => break other?,
            }
        };
        let view = r.table.ok_or_else(|| SdkError::Protocol("JoinTable answered without a table".into()))?;
        let client = server.connect().await?;
        check_seat(r.seat)?;
        Ok((
            SeatClient {
                client,
                server,
                home,
                table_id: table_id.into(),
                token: r.token,
                seat: r.seat,
                shared: None,
                hub: None,
            },
            view,
        ))
    }

    /// Acts for a seat whose token was handed out elsewhere (`skat arena` prints them).
    pub async fn with_token(
        server: impl Into<ServerAddress>,
        table_id: &str,
        token: &str,
    ) -> Result<(SeatClient, pb::TableView), SdkError> {
        SeatClient::with_token_in(server.into(), table_id, token, None).await
    }

    /// [`SeatClient::with_token`], on a connection from `shared` when given (and the
    /// seat keeps its place there).
    async fn with_token_in(
        server: ServerAddress,
        table_id: &str,
        token: &str,
        shared: Option<&Connections>,
    ) -> Result<(SeatClient, pb::TableView), SdkError> {
        server.check_secret("seat token")?;
        let home = server.clone();
        let (server, view) = follow_redirects_in(server, shared, |mut c| {
            let req = with_token(pb::GetTableRequest { table_id: table_id.into() }, token);
            async move { c.get_table(req).await.map(|r| r.into_inner()) }
        })
        .await?;
        let view =
            view.table.ok_or_else(|| SdkError::Protocol("GetTable answered without a table".into()))?;
        let seat = view.your_seat.ok_or_else(|| SdkError::Protocol("the token holds no seat".into()))?;
        check_seat(seat)?;
        let (client, shared) = match shared {
            Some(pool) => {
                let (client, lease) = pool.client(&server).await?;
                (client, Some((pool.clone(), lease)))
            }
            None => (server.connect().await?, None),
        };
        let (table_id, token) = (table_id.into(), token.into());
        let hub = shared.as_ref().map(|(_, lease)| lease.hub.clone());
        Ok((SeatClient { client, server, home, table_id, token, seat, shared, hub }, view))
    }

    /// The same seat over a new connection (or, for a seat that shares its connections,
    /// a place on one of them, which dials its server again if it broke): at its server,
    /// else (that server is gone, or it no longer owns the table) at the address the seat
    /// was first asked at, following the redirect to the table's owner now: a replica
    /// that took the table over from a dead one.
    pub async fn reconnect(&self) -> Result<(SeatClient, pb::TableView), SdkError> {
        let shared = self.shared.as_ref().map(|(pool, _)| pool);
        let again = |server: &ServerAddress| {
            SeatClient::with_token_in(server.clone(), &self.table_id, &self.token, shared)
        };
        let (mut seat, view) = match again(&self.server).await {
            Ok(found) => found,
            Err(e) if self.home.url() == self.server.url() => return Err(e),
            Err(e) => {
                tracing::debug!(server = self.server.url(), error = %e, home = self.home.url(), "asking home for the table's owner");
                again(&self.home).await?
            }
        };
        seat.home = self.home.clone();
        Ok((seat, view))
    }

    /// A seat from parts already known (no round trip); `server` is where to reconnect.
    pub fn from_parts(
        client: SkatServiceClient<Channel>,
        server: impl Into<ServerAddress>,
        table_id: &str,
        token: &str,
        seat: u32,
    ) -> SeatClient {
        let server = server.into();
        SeatClient {
            client,
            home: server.clone(),
            server,
            table_id: table_id.into(),
            token: token.into(),
            seat,
            shared: None,
            hub: None,
        }
    }

    /// The same seat, watching its table on `hub`'s stream (shared with the other seats
    /// on the same connection) instead of a WatchTable stream of its own.
    pub fn with_watch_hub(mut self, hub: WatchHub) -> SeatClient {
        self.hub = Some(hub);
        self
    }

    /// A seat from parts already known, on a connection taken from `pool` (a lobby's
    /// seats share their connections: [`crate::connections`]); a reconnection takes a
    /// place from the same pool.
    pub async fn shared(
        pool: &Connections,
        server: ServerAddress,
        table_id: &str,
        token: &str,
        seat: u32,
    ) -> Result<SeatClient, SdkError> {
        let (client, lease) = pool.client(&server).await?;
        let mut seat = SeatClient::from_parts(client, server, table_id, token, seat);
        seat.hub = Some(lease.hub.clone());
        seat.shared = Some((pool.clone(), lease));
        Ok(seat)
    }

    /// The server this seat talks to (the table's owner).
    pub fn url(&self) -> &str {
        self.server.url()
    }

    /// The server this seat talks to, with its TLS settings.
    pub fn server(&self) -> &ServerAddress {
        &self.server
    }

    /// Where the seat was first asked for (before any redirect), which
    /// [`SeatClient::reconnect`] asks when its server is gone.
    pub fn home(&self) -> &ServerAddress {
        &self.home
    }

    /// The same seat with `home` as the address to ask when its server is gone (a seat
    /// handed out by a lobby: the lobby's address).
    pub fn with_home(mut self, home: ServerAddress) -> SeatClient {
        self.home = home;
        self
    }

    /// The seat (the engine's [`skat_engine::matches::Seat`]; the wire's seat numbers
    /// are `u32`, and a server never sends one over 3).
    pub fn seat(&self) -> skat_engine::matches::Seat {
        skat_engine::matches::Seat::try_from(self.seat).unwrap_or_default()
    }

    /// The table id.
    pub fn table_id(&self) -> &str {
        &self.table_id
    }

    /// The secret token (keep it to reconnect).
    pub fn token(&self) -> &str {
        &self.token
    }

    /// The table as this seat sees it.
    pub async fn view(&mut self) -> Result<pb::TableView, SdkError> {
        self.client
            .get_table(with_token(pb::GetTableRequest { table_id: self.table_id.clone() }, &self.token))
            .await?
            .into_inner()
            .table
            .ok_or_else(|| SdkError::Protocol("GetTable answered without a table".into()))
    }

    /// The table's stream for this seat: a snapshot first, or with `after_seq` exactly the
    /// events after it. A seat on a shared connection watches on the connection's one
    /// WatchTables stream ([`crate::watches`]; a refusal then comes as the stream's first
    /// item), any other on a WatchTable stream of its own.
    pub async fn watch(&mut self, after_seq: Option<u64>) -> Result<WatchStream, SdkError> {
        if let Some(hub) = &self.hub
            && let Some(stream) = hub.watch(&self.client, &self.table_id, &self.token, after_seq).await?
        {
            return Ok(stream);
        }
        let stream = self
            .client
            .watch_table(with_token(
                pb::WatchTableRequest { table_id: self.table_id.clone(), after_seq },
                &self.token,
            ))
            .await?
            .into_inner();
        Ok(WatchStream::direct(stream))
    }

    /// Gives the seat up.
    pub async fn leave(&mut self) -> Result<u64, SdkError> {
        Ok(self
            .client
            .leave_table(with_token(pb::LeaveTableRequest { table_id: self.table_id.clone() }, &self.token))
            .await?
            .into_inner()
            .seq)
    }

    /// Sends an action; returns the sequence number of the accepted event. With
    /// `expected_seq`, a stale decision is refused with ABORTED instead of applied.
    pub async fn act(&mut self, action: Action, expected_seq: Option<u64>) -> Result<u64, Status> {
        self.act_commented(action, expected_seq, None).await
    }

    /// [`SeatClient::act`] with a comment on the action (at most 280 characters), which
    /// the server shows to nobody until the deal has ended.
    pub async fn act_commented(
        &mut self,
        action: Action,
        expected_seq: Option<u64>,
        comment: Option<&str>,
    ) -> Result<u64, Status> {
        let comment = comment.unwrap_or_default().to_string();
        let t = self.table_id.clone();
        let token = self.token.clone();
        let c = &mut self.client;
        Ok(match action {
            Action::Bid { value } => {
                let req = pb::BidRequest {
                    table_id: t,
                    call: pb::BidCall::Say as i32,
                    value: value.value().into(),
                    expected_seq,
                    comment,
                };
                c.bid(with_token(req, &token)).await?.into_inner().seq
            }
            Action::Hold | Action::Pass => {
                let call = if action == Action::Hold { pb::BidCall::Hold } else { pb::BidCall::Pass };
                let req = pb::BidRequest { table_id: t, call: call as i32, value: 0, expected_seq, comment };
                c.bid(with_token(req, &token)).await?.into_inner().seq
            }
            Action::PickUpSkat | Action::PlayHand => {
                let pick_up = action == Action::PickUpSkat;
                let req = pb::TakeSkatRequest { table_id: t, pick_up, expected_seq, comment };
                c.take_skat(with_token(req, &token)).await?.into_inner().seq
            }
            Action::Discard { cards } => {
                let req =
                    pb::DiscardRequest { table_id: t, cards: convert::cards(cards), expected_seq, comment };
                c.discard(with_token(req, &token)).await?.into_inner().seq
            }
            Action::Declare { contract } => {
                let p = convert::contract(contract, false);
                let req = pb::DeclareRequest {
                    table_id: t,
                    game: p.game,
                    announcement: p.announcement,
                    expected_seq,
                    comment,
                };
                c.declare(with_token(req, &token)).await?.into_inner().seq
            }
            Action::Play { card } => {
                let req =
                    pb::PlayCardRequest { table_id: t, card: convert::card(card), expected_seq, comment };
                c.play_card(with_token(req, &token)).await?.into_inner().seq
            }
            Action::Claim => {
                c.claim(with_token(pb::ClaimRequest { table_id: t, expected_seq, comment }, &token))
                    .await?
                    .into_inner()
                    .seq
            }
            Action::Resign => {
                c.resign(with_token(pb::ResignRequest { table_id: t, expected_seq, comment }, &token))
                    .await?
                    .into_inner()
                    .seq
            }
            Action::Forfeit { .. } => {
                return Err(Status::invalid_argument("a forfeit is the table's action, not a seat's"));
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_address_forms_name_the_same_server() {
        assert_eq!(server_url("127.0.0.1:50051"), "http://127.0.0.1:50051");
        assert_eq!(server_url("http://127.0.0.1:50051"), "http://127.0.0.1:50051");
        assert_eq!(server_url(" localhost:1 "), "http://localhost:1");
        assert_eq!(server_url("https://skat.example:443"), "https://skat.example:443");
    }
}
