//! Lobby mode: a bot connects once with its account's bot token and plays every seat
//! the server gives it (tournament tables), as many at once as they come, and stays
//! connected between them. When the lobby stream breaks (a restart, a drain) it
//! reconnects; the server then hands out again every seat the account holds, with a new
//! token if it restarted, and the seat's game goes on with that token.

use std::collections::HashMap;
use std::time::Duration;

use skat_proto::pb::{self, lobby_response::Kind};
use tokio::task::JoinHandle;
use tokio_stream::StreamExt;

use crate::bot::Bot;
use crate::client::{SdkError, SeatClient, connect, server_url, with_token};
use crate::play::{Finished, PlayOptions, play};

/// How a lobby session ended.
#[derive(Debug, Default)]
pub struct LobbyResult {
    /// Tables played to the end.
    pub finished: Vec<Finished>,
}

/// Plays every seat the lobby hands out, each with a bot from `make_bot`, until `lists`
/// tables have finished (None: for ever).
pub async fn run<B, F>(
    url: &str,
    bot_token: &str,
    make_bot: F,
    lists: Option<usize>,
) -> Result<LobbyResult, SdkError>
where
    B: Bot + Send + 'static,
    F: Fn() -> B,
{
    let url = server_url(url);
    let mut playing: HashMap<String, (String, JoinHandle<Result<Finished, SdkError>>)> = HashMap::new();
    let mut result = LobbyResult::default();
    let mut failures = 0u32;
    loop {
        let stream = async {
            let mut client = connect(&url).await?;
            Ok::<_, SdkError>(client.lobby(with_token(pb::LobbyRequest {}, bot_token)).await?.into_inner())
        }
        .await;
        let mut stream = match stream {
            Ok(s) => {
                failures = 0;
                s
            }
            // Refused for good (a wrong or disabled bot token): stop.
            Err(e) if !crate::play::retryable(&e) => return Err(e),
            // The server is away (restarting, draining): retry.
            Err(e) => {
                failures += 1;
                if failures > 60 {
                    return Err(e);
                }
                tokio::time::sleep(Duration::from_millis(100 * u64::from(failures.min(20)))).await;
                continue;
            }
        };
        loop {
            // Collect finished tables while waiting for the next seat.
            let next = tokio::time::timeout(Duration::from_millis(200), stream.next()).await;
            let done: Vec<String> =
                playing.iter().filter(|(_, (_, h))| h.is_finished()).map(|(t, _)| t.clone()).collect();
            for table in done {
                if let Some((_, h)) = playing.remove(&table) {
                    match h.await {
                        Ok(Ok(f)) => result.finished.push(f),
                        Ok(Err(e)) => tracing::warn!(table = %table, error = %e, "a lobby seat stopped"),
                        Err(e) => tracing::warn!(table = %table, error = %e, "a lobby seat's task failed"),
                    }
                }
            }
            if lists.is_some_and(|n| result.finished.len() >= n) {
                for (_, (_, h)) in playing.drain() {
                    h.abort();
                }
                return Ok(result);
            }
            let msg = match next {
                Err(_) => continue,
                Ok(None) => break,
                Ok(Some(Err(e))) => {
                    tracing::info!(error = %e, "lobby stream ended; reconnecting");
                    break;
                }
                Ok(Some(Ok(m))) => m,
            };
            let Some(Kind::SeatAssigned(seat)) = msg.kind else { continue };
            // The same seat again (after a restart): play on with the new token.
            if let Some((token, h)) = playing.get(&seat.table_id) {
                if *token == seat.seat_token {
                    continue;
                }
                h.abort();
            }
            let server =
                if seat.owner_address.is_empty() { url.clone() } else { server_url(&seat.owner_address) };
            let client = match connect(&server).await {
                Ok(c) => c,
                Err(e) => {
                    // The lobby hands the seat out again when it reconnects.
                    tracing::warn!(table = %seat.table_id, error = %e, "cannot reach a seat's server; reconnecting");
                    break;
                }
            };
            let sc = SeatClient::from_parts(client, &server, &seat.table_id, &seat.seat_token, seat.seat);
            let mut bot = make_bot();
            let handle = tokio::spawn(async move { play(sc, &mut bot, PlayOptions::default()).await });
            playing.insert(seat.table_id.clone(), (seat.seat_token, handle));
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}
