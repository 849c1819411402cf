//! Who may call what: the bearer token of a request, and the operator's `--anonymous`
//! policy.
//!
//! | caller | may |
//! |---|---|
//! | the create or admin token | everything the policy restricts |
//! | `--anonymous play` (the default) | create tables, take seats, watch, read |
//! | `--anonymous spectate` | watch and read; seats only through a bot account's lobby |
//! | `--anonymous none` | read with a bot token, watch with any bearer (the seat token is checked where it is used) |
//!
//! Every token is checked where it is used: a seat token under the table's lock, a bot
//! token against the database, the admin token by the competitions.

use skat_engine::matches::Seat;
use skat_proto::pb::ErrorReason as R;
use tonic::metadata::MetadataMap;
use tonic::{Code, Status};

use super::refusal::Refusal;
use super::service::SkatServer;
use crate::config::Anonymous;
use skat_table::Table;
use skat_table::secret::same_token;

/// What a call asks of the `--anonymous` policy.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Access {
    /// Creating a table or taking a seat.
    Play,
    /// Reading one table (GetTable, WatchTable).
    Watch,
    /// Reading lists, records, tournaments, ratings.
    Read,
}

/// The bearer token of a request, if any. A malformed header is UNAUTHENTICATED.
pub(crate) fn bearer(metadata: &MetadataMap) -> Result<Option<String>, Status> {
    let Some(value) = metadata.get("authorization") else { return Ok(None) };
    let malformed = |m: &str| -> Status { Refusal::new(Code::Unauthenticated, R::TokenMalformed, m).into() };
    let text = value.to_str().map_err(|_| malformed("authorization header is not text"))?;
    match text.strip_prefix("Bearer ").or_else(|| text.strip_prefix("bearer ")) {
        Some(token) if !token.trim().is_empty() => Ok(Some(token.trim().to_string())),
        _ => Err(malformed("authorization must be `Bearer <token>`")),
    }
}

/// UNAUTHENTICATED: a seat's call without its token.
pub(crate) fn no_token() -> Status {
    Refusal::new(
        Code::Unauthenticated,
        R::TokenRequired,
        "this call needs `authorization: Bearer <seat token>` from JoinTable",
    )
    .into()
}

/// The seat `token` holds at `table`, checked under the table's lock by the caller so
/// that the seat cannot change hands between the check and its use.
pub(crate) fn seat_in(table: &Table, token: &str) -> Result<Seat, Status> {
    table.seat_of_token(token).ok_or_else(|| {
        Refusal::new(Code::PermissionDenied, R::NotSeated, "this token holds no seat at this table").into()
    })
}

impl SkatServer {
    /// Whether the operator's `--anonymous` setting lets this caller do `access`. The
    /// create and admin tokens pass everywhere; under `none`, a bot token passes for
    /// reading and any bearer for watching (the seat token is checked where it is used).
    pub(crate) async fn admit(&self, metadata: &MetadataMap, access: Access) -> Result<(), Status> {
        let policy = self.config.anonymous;
        if policy == Anonymous::Play {
            return Ok(());
        }
        let bearer = bearer(metadata)?;
        let operator = bearer.as_deref().is_some_and(|b| {
            [&self.config.create_token, &self.config.admin_token]
                .into_iter()
                .flatten()
                .any(|t| same_token(t, b))
        });
        let refuse = |what: &str| -> Status {
            let code = if bearer.is_some() { Code::PermissionDenied } else { Code::Unauthenticated };
            Refusal::new(code, R::CredentialRequired, format!("this server (--anonymous {policy}) {what}"))
                .with("anonymous", policy)
                .status()
        };
        match access {
            _ if operator => Ok(()),
            Access::Play => Err(refuse(
                "creates tables and seats bots through bot accounts' lobbies only (or with the operator's token)",
            )),
            _ if policy == Anonymous::Spectate => Ok(()),
            Access::Watch if bearer.is_some() => Ok(()),
            Access::Watch => Err(refuse("shows a table only to its seats (a seat token)")),
            Access::Read => match bearer {
                Some(b) if self.competitions.accounts.authenticate(Some(&b)).await.is_ok() => Ok(()),
                _ => Err(refuse("answers this only with a bot token or the operator's token")),
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bearer_parsing() {
        let mut m = MetadataMap::new();
        assert_eq!(bearer(&m).unwrap(), None);
        m.insert("authorization", "Bearer abc".parse().unwrap());
        assert_eq!(bearer(&m).unwrap(), Some("abc".into()));
        m.insert("authorization", "Basic abc".parse().unwrap());
        assert!(bearer(&m).is_err());
    }
}
