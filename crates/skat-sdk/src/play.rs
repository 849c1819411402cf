//! Playing a whole list at a table: follow the stream, answer on the seat's turn,
//! reconnect and resume after a dropped connection, return the final standings.

use std::time::Duration;

use skat_proto::pb::{self, event::Kind, watch_table_response::Kind as WatchKind};
use tokio_stream::StreamExt;
use tonic::Code;

use skat_engine::Action;

use crate::Knowledge;
use crate::bot::{Bot, ask, describe_action, describe_legal, first_legal};
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

/// What the SDK does when the bot's action is illegal (it checks before sending) or the
/// server refuses it as illegal. Every case logs a warning first: `illegal action
/// refused` with the decision, the legal set and the reason.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum OnIllegal {
    /// Play the first legal action instead ([`crate::bot::first_legal`]: pass, the
    /// lowest card, the first contract...). The default: the seat keeps playing.
    #[default]
    Fallback,
    /// Give the deal up: resign when resigning is allowed, pass while bidding; otherwise
    /// the fallback.
    Resign,
    /// Stop playing this seat and return the error (the seat then forfeits on time).
    Stop,
}

impl std::fmt::Display for OnIllegal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            OnIllegal::Fallback => "fallback",
            OnIllegal::Resign => "resign",
            OnIllegal::Stop => "stop",
        })
    }
}

impl std::str::FromStr for OnIllegal {
    type Err = String;

    fn from_str(s: &str) -> Result<OnIllegal, String> {
        match s {
            "fallback" => Ok(OnIllegal::Fallback),
            "resign" => Ok(OnIllegal::Resign),
            "stop" => Ok(OnIllegal::Stop),
            other => Err(format!("on-illegal is fallback, resign or stop, not `{other}`")),
        }
    }
}

/// Options for [`play`].
#[derive(Debug, Clone)]
pub struct PlayOptions {
    /// What to do when the bot's action is illegal.
    pub on_illegal: OnIllegal,
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
            on_illegal: OnIllegal::Fallback,
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
/// the table's server with growing delays (or, when that server is gone for good, finds
/// the table's new owner through the address the seat was first asked at:
/// [`SeatClient::reconnect`]) and resumes with `after_seq`, so no event is missed or
/// repeated.
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
        match follow(&mut seat, bot, &mut last_seq, &mut knowledge, &options, &mut decisions).await {
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
            if let Ok((s, _)) = seat.reconnect().await {
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
    options: &PlayOptions,
    decisions: &mut u32,
) -> Result<Option<Vec<pb::Standing>>, SdkError> {
    let verify = options.verify_knowledge;
    let (after, act_from) = match *last_seq {
        // Resuming: the knowledge has everything up to `s`; a turn may have been pending
        // when the connection dropped.
        Some(s) => {
            if knowledge.legal.has_turn() {
                *decisions += u32::from(act_on(seat, bot, knowledge, s, options.on_illegal).await?);
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
        *decisions += u32::from(act_on(seat, bot, knowledge, event.seq, options.on_illegal).await?);
    }
    Ok(None)
}

/// Asks the bot and sends its action, decided on `seq`; whether a decision was made. An
/// illegal action (checked here, or refused by the server) is logged and handled as
/// `on_illegal` says.
async fn act_on<B: Bot>(
    seat: &mut SeatClient,
    bot: &mut B,
    k: &Knowledge,
    seq: u64,
    on_illegal: OnIllegal,
) -> Result<bool, SdkError> {
    let Some(wanted) = ask(bot, k).await else { return Ok(false) };
    let action = if k.legal.allows(wanted) { wanted } else { instead(k, wanted, "NOT_LEGAL", on_illegal)? };
    let comment = bot.comment(k).filter(|c| !c.is_empty());
    let refused = match seat.act_commented(action, Some(seq), comment.as_deref()).await {
        Ok(_) => return Ok(true),
        Err(s) if moved_on(&s) => {
            tracing::debug!(code = ?s.code(), message = s.message(), "action not taken: the table moved on");
            return Ok(true);
        }
        Err(s) if illegal(&s) => s,
        Err(s) => return Err(s.into()),
    };
    // The comment, not the action, was refused (too long, control characters): the
    // action goes again without it.
    if skat_proto::convert::status_reason(&refused) == Some(skat_proto::pb::ErrorReason::InvalidComment) {
        tracing::warn!(message = refused.message(), "comment refused; sending the action without it");
        return match seat.act(action, Some(seq)).await {
            Ok(_) => Ok(true),
            Err(s) if moved_on(&s) => Ok(true),
            Err(s) => Err(s.into()),
        };
    }
    let reason = skat_proto::convert::status_reason(&refused).map_or_else(
        || format!("{:?}", refused.code()),
        |r| r.as_str_name().trim_start_matches("ERROR_REASON_").to_string(),
    );
    let other = instead(k, action, &reason, on_illegal)?;
    if other == action {
        // The SDK's own fallback was refused: what it knows of the table is wrong.
        return Err(SdkError::Protocol(format!(
            "the server refused the fallback {} ({reason})",
            describe_action(other)
        )));
    }
    match seat.act(other, Some(seq)).await {
        Ok(_) => Ok(true),
        Err(s) if moved_on(&s) => Ok(true),
        Err(s) => Err(s.into()),
    }
}

/// The action to send instead of an illegal one, after the warning; an error for
/// [`OnIllegal::Stop`] (or when nothing is legal).
fn instead(k: &Knowledge, refused: Action, reason: &str, on_illegal: OnIllegal) -> Result<Action, SdkError> {
    let legal = &k.legal;
    let replacement = match on_illegal {
        OnIllegal::Stop => None,
        OnIllegal::Resign if legal.resign => Some(Action::Resign),
        OnIllegal::Resign if legal.pass => Some(Action::Pass),
        OnIllegal::Resign | OnIllegal::Fallback => first_legal(k),
    };
    let then = match replacement {
        Some(a) => format!("playing {} ({on_illegal})", describe_action(a)),
        None => "stopping this seat".to_string(),
    };
    tracing::warn!(
        decision = %describe_action(refused),
        legal = %describe_legal(legal),
        reason = %reason,
        then = %then,
        "illegal action refused"
    );
    replacement.ok_or_else(|| {
        SdkError::Protocol(format!(
            "illegal action {} refused ({reason}); stopped (on-illegal: stop)",
            describe_action(refused)
        ))
    })
}

/// Whether a refusal says the table moved on while the bot thought (a stale `seq`, the
/// deal or match over): nothing to repair.
fn moved_on(s: &tonic::Status) -> bool {
    use skat_proto::pb::ErrorReason as R;
    s.code() == Code::Aborted
        || matches!(
            skat_proto::convert::status_reason(s),
            Some(R::DealOver | R::TableFinished | R::SittingOut | R::NotYourTurn)
        )
}

/// Whether a refusal says the action itself was illegal.
fn illegal(s: &tonic::Status) -> bool {
    matches!(s.code(), Code::InvalidArgument | Code::FailedPrecondition)
}
