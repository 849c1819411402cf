//! A seat's actions: Bid, TakeSkat, Discard, Declare, PlayCard, Resign, Claim.
//!
//! Every action takes one path ([`act`]): the table, the bearer token, then in one
//! critical section the token's seat, the action checked by the rules and applied, and
//! what the response needs; the answer waits until the action is durable. An action
//! sent with `expected_seq` is refused as stale when the table has moved on.

use crate::rpc::refusal::Refused;
use std::time::Instant;

use skat_engine::Action;
use skat_engine::matches::Seat;
use skat_proto::convert;
use skat_proto::pb;
use skat_proto::pb::ErrorReason as R;
use tonic::metadata::MetadataMap;
use tonic::{Code, Request, Status};

use super::access::{bearer, no_token, seat_in};
use super::refusal::Refusal;
use super::service::{SkatServer, record_table};
use skat_table::Table;

/// Applies a seat's action: the common path of every action RPC. `then` reads what the
/// response needs in the same critical section.
async fn act<T>(
    s: &SkatServer,
    table_id: &str,
    metadata: &MetadataMap,
    action: Result<Action, convert::ConvertError>,
    (expected_seq, comment): (Option<u64>, &str),
    then: impl FnOnce(&Table, Seat) -> T,
) -> Result<(u64, T), Status> {
    record_table(table_id);
    let comment = check_comment(comment)?;
    let handle = s.table(table_id).await?;
    let token = bearer(metadata)?.ok_or_else(no_token)?;
    let (seat, action, seq, extra) = handle
        .mutate(&s.journal, s.metrics.table(), |t| -> Result<_, Status> {
            let seat = seat_in(t, &token)?;
            let action = action.map_err(Refusal::from)?;
            let seq = t.act_commented(seat, action, comment, expected_seq, Instant::now()).refused()?;
            Ok((seat, action, seq, then(t, seat)))
        })
        .await
        .refused()??;
    // Only the action's name: a discard's cards are secret, and logs are not the place.
    tracing::debug!(seat = %seat, action = action.name(), seq, "accepted");
    Ok((seq, extra))
}

/// The most characters of an action's comment.
pub(crate) const MAX_COMMENT_CHARS: usize = 280;

/// An action's comment: none when empty; refused when too long or holding control or
/// bidi characters (it is shown to people, after the deal).
fn check_comment(text: &str) -> Result<Option<String>, Status> {
    if text.is_empty() {
        return Ok(None);
    }
    let bad = text.chars().any(|c| c.is_control() || skat_league::is_bidi_control(c));
    if bad || text.chars().count() > MAX_COMMENT_CHARS {
        return Err(Refusal::new(
            Code::InvalidArgument,
            R::InvalidComment,
            format!("a comment has at most {MAX_COMMENT_CHARS} characters and no control or bidi characters"),
        )
        .with("max", MAX_COMMENT_CHARS)
        .status());
    }
    Ok(Some(text.to_string()))
}

/// Bid: say a value, hold, or pass.
pub(crate) async fn bid(s: &SkatServer, request: Request<pb::BidRequest>) -> Result<pb::BidResponse, Status> {
    let r = request.get_ref();
    let action = convert::bid_action(r.call, r.value);
    let (seq, ()) =
        act(s, &r.table_id, request.metadata(), action, (r.expected_seq, &r.comment), |_, _| ()).await?;
    Ok(pb::BidResponse { seq })
}

/// TakeSkat: pick up the skat (answered with it) or play hand.
pub(crate) async fn take_skat(
    s: &SkatServer,
    request: Request<pb::TakeSkatRequest>,
) -> Result<pb::TakeSkatResponse, Status> {
    let r = request.get_ref();
    let action = Ok(if r.pick_up { Action::PickUpSkat } else { Action::PlayHand });
    // The skat the declarer just picked up, read in the same critical section.
    let (seq, skat) =
        act(s, &r.table_id, request.metadata(), action, (r.expected_seq, &r.comment), |t, seat| {
            if r.pick_up { convert::cards(t.skat_picked_up_by(seat)) } else { Vec::new() }
        })
        .await?;
    Ok(pb::TakeSkatResponse { seq, skat })
}

/// Discard: two cards into the skat.
pub(crate) async fn discard(
    s: &SkatServer,
    request: Request<pb::DiscardRequest>,
) -> Result<pb::DiscardResponse, Status> {
    let r = request.get_ref();
    let action = convert::discard_action(&r.cards);
    let (seq, ()) =
        act(s, &r.table_id, request.metadata(), action, (r.expected_seq, &r.comment), |_, _| ()).await?;
    Ok(pb::DiscardResponse { seq })
}

/// Declare: the game and its announcements.
pub(crate) async fn declare(
    s: &SkatServer,
    request: Request<pb::DeclareRequest>,
) -> Result<pb::DeclareResponse, Status> {
    let r = request.get_ref();
    let action = convert::declare_action(r.game, r.announcement);
    let (seq, ()) =
        act(s, &r.table_id, request.metadata(), action, (r.expected_seq, &r.comment), |_, _| ()).await?;
    Ok(pb::DeclareResponse { seq })
}

/// PlayCard.
pub(crate) async fn play_card(
    s: &SkatServer,
    request: Request<pb::PlayCardRequest>,
) -> Result<pb::PlayCardResponse, Status> {
    let r = request.get_ref();
    let action = convert::play_action(r.card);
    let (seq, ()) =
        act(s, &r.table_id, request.metadata(), action, (r.expected_seq, &r.comment), |_, _| ()).await?;
    Ok(pb::PlayCardResponse { seq })
}

/// Resign (during play, any seat, once).
pub(crate) async fn resign(
    s: &SkatServer,
    request: Request<pb::ResignRequest>,
) -> Result<pb::ResignResponse, Status> {
    let r = request.get_ref();
    let (seq, ()) =
        act(s, &r.table_id, request.metadata(), Ok(Action::Resign), (r.expected_seq, &r.comment), |_, _| ())
            .await?;
    Ok(pb::ResignResponse { seq })
}

/// Claim the remaining tricks (the declarer, during play).
pub(crate) async fn claim(
    s: &SkatServer,
    request: Request<pb::ClaimRequest>,
) -> Result<pb::ClaimResponse, Status> {
    let r = request.get_ref();
    let (seq, ()) =
        act(s, &r.table_id, request.metadata(), Ok(Action::Claim), (r.expected_seq, &r.comment), |_, _| ())
            .await?;
    Ok(pb::ClaimResponse { seq })
}
