//! The challenge RPCs: Challenge, AnswerChallenge, ListChallenges, each with a bot token
//! (the domain is `competition::challenges`).

use crate::rpc::refusal::Refused;
use skat_league::ChallengeTerms;
use skat_proto::pb;
use tonic::{Request, Status};

use super::access::bearer;
use super::projection;
use super::service::SkatServer;
use skat_table::settings;

/// Challenge: the challenger's bot token; the terms checked like a tournament's.
pub(crate) async fn challenge(
    s: &SkatServer,
    request: Request<pb::ChallengeRequest>,
) -> Result<pb::ChallengeResponse, Status> {
    let token = bearer(request.metadata())?;
    let account = s.competitions.accounts.authenticate(token.as_deref()).await.refused()?;
    let r = request.get_ref();
    // The table's size follows from the opponents (checked with them).
    let seats = if r.opponents.len() == 3 { 4 } else { 3 };
    let deals = settings::deals(r.deals, &s.config.table_limits()).refused()?;
    let (action_ms, deal_ms) =
        settings::time_control(r.time_control.map(|t| (t.action_ms, t.deal_ms)), &s.config.table_limits())
            .refused()?;
    let terms = ChallengeTerms { seats, deals, lists: r.lists, action_ms, deal_ms, rated: r.rated };
    let c = s.competitions.challenges.challenge(&account, &r.opponents, terms).await.refused()?;
    Ok(pb::ChallengeResponse { challenge: Some(projection::challenge_info(&c)) })
}

/// AnswerChallenge: an opponent's bot token.
pub(crate) async fn answer(
    s: &SkatServer,
    request: Request<pb::AnswerChallengeRequest>,
) -> Result<pb::AnswerChallengeResponse, Status> {
    let token = bearer(request.metadata())?;
    let account = s.competitions.accounts.authenticate(token.as_deref()).await.refused()?;
    let r = request.get_ref();
    let c =
        s.competitions.challenges.answer_challenge(&account, &r.challenge_id, r.accept).await.refused()?;
    Ok(pb::AnswerChallengeResponse { challenge: Some(projection::challenge_info(&c)) })
}

/// ListChallenges: the account's, newest first.
pub(crate) async fn list(
    s: &SkatServer,
    request: Request<pb::ListChallengesRequest>,
) -> Result<pb::ListChallengesResponse, Status> {
    let token = bearer(request.metadata())?;
    let account = s.competitions.accounts.authenticate(token.as_deref()).await.refused()?;
    let all =
        s.competitions.challenges.challenges_of(&account, request.get_ref().pending_only).await.refused()?;
    Ok(pb::ListChallengesResponse { challenges: all.iter().map(projection::challenge_info).collect() })
}
