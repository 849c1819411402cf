//! GetServerInfo: what this server allows a client without a token, and the settings a
//! client plans by. Answered to everyone (it holds no secret): the page asks it before
//! offering a form the server would refuse, and a bot before it picks a time budget.

use skat_proto::pb;
use tonic::Request;

use super::service::SkatServer;
use crate::config::{Anonymous, Database};

/// GetServerInfo.
pub(crate) fn info(
    s: &SkatServer,
    _request: &Request<pb::GetServerInfoRequest>,
) -> pb::GetServerInfoResponse {
    let c = &s.config;
    pb::GetServerInfoResponse {
        server_name: c.server_name.clone(),
        version: env!("CARGO_PKG_VERSION").to_string(),
        anonymous: match c.anonymous {
            Anonymous::Play => pb::AnonymousAccess::Play,
            Anonymous::Spectate => pb::AnonymousAccess::Spectate,
            Anonymous::Nothing => pb::AnonymousAccess::None,
        } as i32,
        open_registration: c.open_registration,
        accounts: !matches!(c.database, Database::Memory),
        create_token_required: c.create_token.is_some(),
        default_time_control: Some(pb::TimeControl {
            action_ms: c.default_action_ms,
            deal_ms: c.default_deal_ms,
            between_deals_ms: 0,
        }),
        max_deals: c.max_deals,
    }
}
