//! Playing a whole list at a table: follow the stream, answer on the seat's turn,
//! reconnect and resume after a dropped connection, return the final standings.

use std::time::Duration;

use skat_proto::pb::{self, event::Kind, watch_table_response::Kind as WatchKind};
use tokio_stream::StreamExt;
use tonic::Code;

use crate::Knowledge;
use crate::bot::{Bot, decide};
use crate::client::{SdkError, SeatClient};

/// How a seat finished.
#[derive(Debug, Clone, PartialEq)]
pub struct Finished {
    /// The seat played.
    pub seat: skat_engine::matches::Seat,
    /// The final standings of every seat.
    pub standings: Vec<pb::Standing>,
    /// How many times the connection was re-established.
    pub reconnects: u32,
    /// Decisions made (each from the knowledge folded from the stream).
    pub decisions: u32,
}

/// Options for [`play`].
#[derive(Debug, Clone)]
pub struct PlayOptions {
    /// Give up after this many reconnection attempts in a row.
    pub max_reconnect_attempts: u32,
    /// First wait between attempts (doubles up to 2 s).
    pub reconnect_delay: Duration,
    /// Also read the view at every decision and check that the knowledge kept from the
    /// stream matches it exactly (for tests; costs one GetTable per decision).
    pub verify_knowledge: bool,
}

impl Default for PlayOptions {
    fn default() -> Self {
        PlayOptions {
            max_reconnect_attempts: 50,
            reconnect_delay: Duration::from_millis(50),
            verify_knowledge: false,
        }
    }
}

/// Joins `table_id` at `server` as `name` and plays with `bot` until the list is over.
pub async fn join_and_play<B: Bot>(
    server: impl Into<crate::ServerAddress>,
    table_id: &str,
    name: &str,
    seat: Option<u32>,
    bot: &mut B,
) -> Result<Finished, SdkError> {
    let (seat, _) = SeatClient::join(server, table_id, name, seat).await?;
    play(seat, bot, PlayOptions::default()).await
}

/// Plays with a seat token handed out elsewhere (`skat arena` prints them).
pub async fn play_with_token<B: Bot>(
    server: impl Into<crate::ServerAddress>,
    table_id: &str,
    token: &str,
    bot: &mut B,
) -> Result<Finished, SdkError> {
    let (seat, _) = SeatClient::with_token(server, table_id, token).await?;
    play(seat, bot, PlayOptions::default()).await
}

/// Plays a seat until the match ends. The stream is followed from the seat's last seen
/// `seq`; when it breaks (network, server restart of the stream), the SDK reconnects to
/// the table's server with growing delays and resumes with `after_seq`, so no event is
/// missed or repeated.
pub async fn play<B: Bot>(
    mut seat: SeatClient,
    bot: &mut B,
    options: PlayOptions,
) -> Result<Finished, SdkError> {
    let mut last_seq: Option<u64> = None;
    let mut reconnects = 0;
    let mut decisions = 0;
    let mut knowledge = Knowledge::new(Some(seat.seat()));
    let mut failures = 0;
    loop {
        match follow(&mut seat, bot, &mut last_seq, &mut knowledge, options.verify_knowledge, &mut decisions)
            .await
        {
            Ok(Some(standings)) => {
                return Ok(Finished { seat: seat.seat(), standings, reconnects, decisions });
            }
            Ok(None) => {}
            Err(e) if retryable(&e) => {
                tracing::info!(error = %e, "connection lost; reconnecting");
            }
            Err(e) => return Err(e),
        }
        // Reconnect with backoff.
        loop {
            failures += 1;
            if failures > options.max_reconnect_attempts {
                return Err(SdkError::Protocol(format!(
                    "gave up after {} reconnection attempts",
                    options.max_reconnect_attempts
                )));
            }
            let delay = options.reconnect_delay * 2u32.saturating_pow(failures.min(6)).min(40);
            tokio::time::sleep(delay.min(Duration::from_secs(2))).await;
            if let Ok((s, _)) = SeatClient::with_token(seat.server(), seat.table_id(), seat.token()).await {
                seat = s;
                reconnects += 1;
                break;
            }
        }
        failures = 0;
    }
}

/// Whether an error means "the server is away for now" (reconnect) rather than a refusal.
pub(crate) fn retryable(e: &SdkError) -> bool {
    match e {
        SdkError::Connect { .. } => true,
        SdkError::Status(s) => {
            matches!(s.code(), Code::Unavailable | Code::Unknown | Code::Cancelled | Code::Internal)
                // The server ended a stream that fell behind: resuming loses nothing.
                || skat_proto::convert::status_reason(s) == Some(skat_proto::pb::ErrorReason::StreamBehind)
        }
        SdkError::Protocol(_) | SdkError::PlainText { .. } | SdkError::CaFile { .. } => false,
    }
}

/// Follows the stream until the match ends (`Some(standings)`) or the stream ends
/// without the match ending (`None`: reconnect). The seat's knowledge is folded from the
/// stream's events ([`skat_engine::SeatView`]): the first connection reads the table's
/// log from its start, a reconnection resumes after the last event folded, so the
/// knowledge is always whole and no decision needs a `GetTable`.
async fn follow<B: Bot>(
    seat: &mut SeatClient,
    bot: &mut B,
    last_seq: &mut Option<u64>,
    knowledge: &mut Knowledge,
    verify: bool,
    decisions: &mut u32,
) -> Result<Option<Vec<pb::Standing>>, SdkError> {
    let (after, act_from) = match *last_seq {
        // Resuming: the knowledge has everything up to `s`; a turn may have been pending
        // when the connection dropped.
        Some(s) => {
            if knowledge.legal.has_turn() {
                *decisions += u32::from(act_on(seat, bot, knowledge, s).await?);
            }
            (s, s + 1)
        }
        // Starting: fold the table's log from the beginning, but act only on what
        // happens from now on.
        None => (0, seat.view().await?.seq),
    };
    let mut stream = seat.watch(Some(after)).await?;
    while let Some(msg) = stream.next().await {
        let Some(WatchKind::Event(event)) = msg?.kind else { continue };
        crate::knowledge::fold(knowledge, &event)?;
        *last_seq = Some(event.seq);
        if let Some(Kind::MatchEnded(m)) = &event.kind {
            return Ok(Some(m.standings.clone()));
        }
        if event.seq < act_from || !knowledge.legal.has_turn() {
            continue;
        }
        if verify {
            let view = seat.view().await?;
            let from_view = crate::knowledge::from_view(&view)?;
            if view.seq == event.seq && from_view.view != knowledge.view {
                return Err(SdkError::Protocol(format!(
                    "knowledge folded from the stream differs from the view at seq {}:\n{:?}\n{:?}",
                    event.seq, knowledge.view, from_view.view
                )));
            }
        }
        *decisions += u32::from(act_on(seat, bot, knowledge, event.seq).await?);
    }
    Ok(None)
}

/// Asks the bot and sends its action, decided on `seq`; whether a decision was made.
async fn act_on<B: Bot>(
    seat: &mut SeatClient,
    bot: &mut B,
    k: &Knowledge,
    seq: u64,
) -> Result<bool, SdkError> {
    let Some(action) = decide(bot, k).await else { return Ok(false) };
    match seat.act(action, Some(seq)).await {
        Ok(_) => Ok(true),
        // The table moved on while we thought (a time-out, a resignation): not an error.
        Err(s) if matches!(s.code(), Code::Aborted | Code::FailedPrecondition) => {
            tracing::debug!(code = ?s.code(), message = s.message(), "action not taken");
            Ok(true)
        }
        Err(s) => Err(s.into()),
    }
}
