//! Playing a whole list at a table: follow the stream, answer on the seat's turn,
//! reconnect and resume after a dropped connection, return the final standings.

use std::time::Duration;

use skat_proto::pb::{self, event::Kind, watch_table_response::Kind as WatchKind};
use tokio_stream::StreamExt;
use tonic::Code;

use crate::bot::{Bot, decide};
use crate::client::{SdkError, SeatClient};
use crate::knowledge::Knowledge;
use crate::tracker::Tracker;

/// How a seat finished.
#[derive(Debug, Clone, PartialEq)]
pub struct Finished {
    /// The seat played.
    pub seat: u32,
    /// The final standings of every seat.
    pub standings: Vec<pb::Standing>,
    /// How many times the connection was re-established.
    pub reconnects: u32,
    /// Decisions made from the knowledge kept from the stream.
    pub decisions_from_stream: u32,
    /// Decisions that needed the seat's view (joined or resumed mid-deal, or sitting out
    /// at the deal's start).
    pub decisions_from_view: u32,
}

#[derive(Default)]
struct Counts {
    stream: u32,
    view: u32,
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

/// Joins `table_id` at `url` as `name` and plays with `bot` until the list is over.
pub async fn join_and_play<B: Bot>(
    url: &str,
    table_id: &str,
    name: &str,
    seat: Option<u32>,
    bot: &mut B,
) -> Result<Finished, SdkError> {
    let (seat, _) = SeatClient::join(url, table_id, name, seat).await?;
    play(seat, bot, PlayOptions::default()).await
}

/// Plays with a seat token handed out elsewhere (`skat arena` prints them).
pub async fn play_with_token<B: Bot>(
    url: &str,
    table_id: &str,
    token: &str,
    bot: &mut B,
) -> Result<Finished, SdkError> {
    let (seat, _) = SeatClient::with_token(url, table_id, token).await?;
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
    let mut counts = Counts::default();
    let mut tracker = Tracker::new(seat.seat());
    let mut failures = 0;
    loop {
        match follow(&mut seat, bot, &mut last_seq, &mut tracker, options.verify_knowledge, &mut counts).await
        {
            Ok(Some(standings)) => {
                return Ok(Finished {
                    seat: seat.seat(),
                    standings,
                    reconnects,
                    decisions_from_stream: counts.stream,
                    decisions_from_view: counts.view,
                });
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
            if let Ok((s, _)) = SeatClient::with_token(seat.url(), seat.table_id(), seat.token()).await {
                seat = s;
                reconnects += 1;
                break;
            }
        }
        failures = 0;
    }
}

fn retryable(e: &SdkError) -> bool {
    match e {
        SdkError::Connect { .. } => true,
        SdkError::Status(s) => {
            matches!(s.code(), Code::Unavailable | Code::Unknown | Code::Cancelled | Code::Internal)
                // The server ended a stream that fell behind: resuming loses nothing.
                || skat_proto::convert::status_reason(s) == Some(skat_proto::pb::ErrorReason::StreamBehind)
        }
        SdkError::Protocol(_) => false,
    }
}

/// Follows the stream until the match ends (`Some(standings)`) or the stream ends
/// without the match ending (`None`: reconnect). Decisions use the knowledge kept from
/// the stream ([`Tracker`]); where the tracker has not seen the deal from its start, the
/// seat's view is read instead.
async fn follow<B: Bot>(
    seat: &mut SeatClient,
    bot: &mut B,
    last_seq: &mut Option<u64>,
    tracker: &mut Tracker,
    verify: bool,
    counts: &mut Counts,
) -> Result<Option<Vec<pb::Standing>>, SdkError> {
    let (after, act_from) = match *last_seq {
        // Resuming: the tracker has everything up to `s`; a turn may have been pending
        // when the connection dropped.
        Some(s) => {
            counts.view += u32::from(act_if_turn(seat, bot, None).await?);
            (s, s + 1)
        }
        // Starting: read the table's log from the beginning so the tracker knows the
        // current deal, but act only on what happens from now on.
        None => (0, seat.view().await?.seq),
    };
    let mut stream = seat.watch(Some(after)).await?;
    while let Some(msg) = stream.next().await {
        let Some(WatchKind::Event(event)) = msg?.kind else { continue };
        *last_seq = Some(event.seq);
        tracker.apply(&event);
        if let Some(Kind::MatchEnded(m)) = &event.kind {
            return Ok(Some(m.standings.clone()));
        }
        // Events carry `legal` for out-of-turn options too (resign, claim); the Bot trait
        // decides turns only.
        let has_turn = event
            .legal
            .as_ref()
            .and_then(|l| skat_proto::convert::legal_from(l).ok())
            .is_some_and(|l| l.has_turn());
        if !has_turn || event.seq < act_from {
            continue;
        }
        match tracker.knowledge(&event) {
            Some(k) => {
                if verify {
                    let view = seat.view().await?;
                    if view.seq == event.seq && Knowledge::from_view(&view)? != k {
                        return Err(SdkError::Protocol(format!(
                            "knowledge kept from the stream differs from the view at seq {}:\n{k:?}\n{:?}",
                            event.seq,
                            Knowledge::from_view(&view)?
                        )));
                    }
                }
                counts.stream += u32::from(act_on(seat, bot, &k, event.seq).await?);
            }
            None => counts.view += u32::from(act_if_turn(seat, bot, Some(event.seq)).await?),
        }
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

/// Looks at the table and, if it is this seat's turn, asks the bot and acts.
async fn act_if_turn<B: Bot>(seat: &mut SeatClient, bot: &mut B, seq: Option<u64>) -> Result<bool, SdkError> {
    let view = seat.view().await?;
    if view.status != pb::TableStatus::Playing as i32 {
        return Ok(false);
    }
    if seq.is_some_and(|s| s != view.seq) {
        // Something happened since that event; a later event will bring the turn.
        return Ok(false);
    }
    let Ok(k) = Knowledge::from_view(&view) else { return Ok(false) };
    act_on(seat, bot, &k, view.seq).await
}
