//! Refusals, typed to the edge and mapped to the wire in one place.
//!
//! Every refusal is a [`Refusal`]: a status code, a stable [`pb::ErrorReason`] and a
//! message for people, plus public facts a client may branch on. [`Refusal::status`]
//! turns it into a `tonic::Status` with a `google.rpc.ErrorInfo` detail (domain
//! `skat.v1`, reason without the `ERROR_REASON_` prefix), so clients branch on the
//! reason and never parse messages. Every domain error (the table's, the competitions',
//! the journal's, the database's, a setting's) becomes a refusal through `From`, so a
//! handler writes `?` and the mapping from domain to wire lives here alone.

use std::collections::HashMap;

use skat_proto::convert::{self, ConvertError};
use skat_proto::pb::{self, ErrorReason as R};
use tonic::{Code, Status};
use tonic_types::{ErrorDetails, StatusExt};

use skat_league::NameError;

use skat_competition::CompetitionError;
use skat_competition::hosting::HostingError;
use skat_store::StoreError;
use skat_table::secret::NoRandomness;
use skat_table::settings::SettingsError;
use skat_table::slots::SlotError;
use skat_table::{ChangeError, TableError};

/// The trailer that carries a refusal's reason as plain text (beside `ErrorInfo`).
pub(crate) const REASON_TRAILER: &str = "skat-error-reason";

/// `ErrorInfo.domain` of every refusal.
pub(crate) const DOMAIN: &str = convert::ERROR_DOMAIN;

/// A refused request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Refusal {
    /// The gRPC status code.
    pub code: Code,
    /// Why, as the contract names it.
    pub reason: pb::ErrorReason,
    /// What happened, for people (may change between versions).
    pub message: String,
    /// Public facts for clients (`ErrorInfo.metadata`).
    pub metadata: Vec<(&'static str, String)>,
}

impl Refusal {
    /// A refusal with no metadata.
    pub fn new(code: Code, reason: pb::ErrorReason, message: impl Into<String>) -> Refusal {
        Refusal { code, reason, message: message.into(), metadata: Vec::new() }
    }

    /// Adds a metadata entry.
    pub fn with(mut self, key: &'static str, value: impl ToString) -> Refusal {
        self.metadata.push((key, value.to_string()));
        self
    }

    /// A server limit was reached: RESOURCE_EXHAUSTED, reason LIMIT, with the limit's
    /// flag name and value.
    pub fn limit(flag: &'static str, max: usize, message: impl Into<String>) -> Refusal {
        Refusal::new(Code::ResourceExhausted, R::Limit, message).with("limit", flag).with("max", max)
    }

    /// The status with its `ErrorInfo` detail, and the reason again as plain text in the
    /// `skat-error-reason` trailer: a tool that prints trailers but cannot decode the
    /// detail (`buf curl -v`, which decodes only the detail types linked into it; curl;
    /// a proxy's log) still shows why.
    pub fn status(self) -> Status {
        let metadata: HashMap<String, String> =
            self.metadata.into_iter().map(|(k, v)| (k.to_string(), v)).collect();
        let reason = convert::reason_name(self.reason);
        let mut status = Status::with_error_details(
            self.code,
            self.message,
            ErrorDetails::with_error_info(reason, DOMAIN, metadata),
        );
        if let Ok(value) = reason.parse() {
            status.metadata_mut().insert(REASON_TRAILER, value);
        }
        status
    }
}

impl From<Refusal> for Status {
    fn from(r: Refusal) -> Status {
        r.status()
    }
}

impl From<ConvertError> for Refusal {
    fn from(e: ConvertError) -> Refusal {
        Refusal::new(Code::InvalidArgument, e.reason, e.message)
    }
}

impl From<TableError> for Refusal {
    fn from(e: TableError) -> Refusal {
        let message = e.to_string();
        match e {
            TableError::Stale { expected, current } => Refusal::new(Code::Aborted, R::StaleSeq, message)
                .with("expected_seq", expected)
                .with("current_seq", current),
            TableError::Waiting => Refusal::new(Code::FailedPrecondition, R::TableWaiting, message),
            TableError::Full => Refusal::new(Code::ResourceExhausted, R::TableFull, message),
            TableError::SeatTaken(_) => Refusal::new(Code::ResourceExhausted, R::SeatTaken, message),
            TableError::NoSuchSeat(_) => Refusal::new(Code::InvalidArgument, R::InvalidSeat, message),
            TableError::Finished { played, deals } => {
                Refusal::new(Code::FailedPrecondition, R::TableFinished, message)
                    .with("deals_played", played)
                    .with("deals", deals)
            }
            TableError::JoinLimit(max) => Refusal::limit("max-joins", max, message),
            TableError::JoinCode => Refusal::new(Code::PermissionDenied, R::JoinCode, message),
            TableError::JoinKeyTaken(_) => Refusal::new(Code::PermissionDenied, R::JoinKeyTaken, message),
            TableError::Replay(_) => Refusal::new(Code::Internal, R::Internal, message),
            TableError::Rule(e) => {
                let (reason, metadata) = convert::match_reason(&e);
                let code = match reason {
                    R::InvalidSettings | R::InvalidSeat | R::InvalidDiscard => Code::InvalidArgument,
                    _ => Code::FailedPrecondition,
                };
                Refusal { code, reason, message, metadata }
            }
        }
    }
}

impl From<ChangeError> for Refusal {
    fn from(e: ChangeError) -> Refusal {
        let message = e.to_string();
        match e {
            ChangeError::ReadOnly => Refusal::new(Code::FailedPrecondition, R::TableFinished, message),
            ChangeError::NotDurable => Refusal::new(Code::Unavailable, R::StorageUnavailable, message),
        }
    }
}

impl From<SettingsError> for Refusal {
    fn from(e: SettingsError) -> Refusal {
        let refusal = Refusal::new(Code::InvalidArgument, R::InvalidSettings, e.to_string());
        match e {
            SettingsError::Deals { max, .. } => refusal.with("max_deals", max),
            SettingsError::Seats(_) | SettingsError::TimeLimit | SettingsError::BetweenDeals => refusal,
        }
    }
}

impl From<SlotError> for Refusal {
    fn from(e: SlotError) -> Refusal {
        let message = e.to_string();
        match e {
            SlotError::NoSuchSeat(_) => Refusal::new(Code::InvalidArgument, R::InvalidSeat, message),
            SlotError::Full { flag, limit, .. } => Refusal::limit(flag, limit, message),
        }
    }
}

impl From<NameError> for Refusal {
    fn from(e: NameError) -> Refusal {
        Refusal::new(Code::InvalidArgument, R::InvalidName, e.to_string())
            .with("field", e.kind.field())
            .with("rule", e.rule.as_str())
    }
}

impl From<NoRandomness> for Refusal {
    fn from(_: NoRandomness) -> Refusal {
        Refusal::new(Code::Internal, R::Internal, "no randomness available")
    }
}

impl From<StoreError> for Refusal {
    fn from(e: StoreError) -> Refusal {
        tracing::error!(error = %e, "the database failed");
        Refusal::new(
            Code::Unavailable,
            R::StorageUnavailable,
            "the server's database is not answering; retry",
        )
    }
}

impl From<CompetitionError> for Refusal {
    fn from(e: CompetitionError) -> Refusal {
        use CompetitionError as E;
        let message = e.to_string();
        match e {
            E::NoDatabase => Refusal::new(Code::FailedPrecondition, R::NoDatabase, message),
            E::Storage(e) => e.into(),
            E::NoRandomness(_) => Refusal::new(Code::Internal, R::Internal, message),
            E::AdminRequired | E::NoAdminToken | E::HouseName(_) => {
                Refusal::new(Code::PermissionDenied, R::AdminRequired, message)
            }
            E::Name(e) => e.into(),
            E::PassesFor { field, account, .. } => {
                Refusal::new(Code::InvalidArgument, R::InvalidName, message)
                    .with("field", field)
                    .with("rule", if account.is_some() { "account" } else { "house" })
            }
            E::Owner(max) => Refusal::new(Code::InvalidArgument, R::InvalidName, message)
                .with("field", "owner")
                .with("rule", "length")
                .with("max", max),
            E::Quota | E::CasualSeats(_) | E::CasualNotCreatable | E::Twice(_) => {
                Refusal::new(Code::InvalidArgument, R::InvalidSettings, message)
            }
            E::TooFewEntrants(seats) => Refusal::new(Code::InvalidArgument, R::InvalidTournament, message)
                .with("field", "entrants")
                .with("min", seats),
            E::AccountExists { existing, .. } => {
                Refusal::new(Code::AlreadyExists, R::AccountExists, message).with("existing", existing)
            }
            E::TournamentState { status, .. } => {
                Refusal::new(Code::FailedPrecondition, R::TournamentState, message).with("status", status)
            }
            E::InvalidTournament { field, max, .. } => {
                let r =
                    Refusal::new(Code::InvalidArgument, R::InvalidTournament, message).with("field", field);
                match max {
                    Some(max) => r.with("max", max),
                    None => r,
                }
            }
            E::Embargoed => Refusal::new(Code::FailedPrecondition, R::Embargoed, message),
            E::EntrantDisabled(name) => {
                Refusal::new(Code::FailedPrecondition, R::EntrantDisabled, message).with("entrant", name)
            }
            E::NoSuchAccount(name) => {
                Refusal::new(Code::NotFound, R::UnknownEntrant, message).with("entrant", name)
            }
            E::BotTokenInvalid => Refusal::new(Code::Unauthenticated, R::BotTokenInvalid, message),
            E::AccountDisabled => Refusal::new(Code::PermissionDenied, R::AccountDisabled, message),
            E::LobbyLimit(most) => Refusal::limit("account-max-lobbies", most, message),
            E::UnknownEntrant(name) => {
                Refusal::new(Code::InvalidArgument, R::UnknownEntrant, message).with("entrant", name)
            }
            E::Settings(e) => e.into(),
            E::TournamentNotFound(_) => Refusal::new(Code::NotFound, R::TournamentNotFound, message),
            E::BotNotFound(_) => Refusal::new(Code::NotFound, R::BotNotFound, message),
            E::Table(e) => e.into(),
            E::Change(e) => e.into(),
            E::ServerFull { max } => Refusal::limit("max-tables", max, message),
            E::ChallengeNotFound(_) => Refusal::new(Code::NotFound, R::ChallengeNotFound, message),
            E::ChallengeState(state) => {
                Refusal::new(Code::FailedPrecondition, R::ChallengeState, message).with("state", state)
            }
            E::ChallengeQuota(most) => Refusal::limit("challenges-per-hour", most, message),
            E::BotUnavailable(name) | E::NoPlace(name) => {
                Refusal::new(Code::FailedPrecondition, R::BotUnavailable, message).with("bot", name)
            }
        }
    }
}

impl From<HostingError> for Refusal {
    fn from(e: HostingError) -> Refusal {
        use HostingError as E;
        let message = e.to_string();
        match e {
            E::NoDatabase => Refusal::new(Code::FailedPrecondition, R::NoDatabase, message),
            E::Storage(e) => e.into(),
            E::Competition(e) => e.into(),
            E::NotAnImage(_) => Refusal::new(Code::InvalidArgument, R::NotAnImage, message),
            E::TooLarge(max) => {
                Refusal::new(Code::ResourceExhausted, R::ImageTooLarge, message).with("max", max)
            }
            E::NoArchives => Refusal::new(Code::FailedPrecondition, R::HostingUnavailable, message)
                .with("state", "no-archives"),
            E::Io(e) => {
                tracing::error!(error = %e, "an image archive could not be stored");
                Refusal::new(
                    Code::Unavailable,
                    R::StorageUnavailable,
                    "the archive could not be stored; retry",
                )
            }
            E::VersionNotFound(_) => Refusal::new(Code::NotFound, R::VersionNotFound, message),
            E::VersionAmbiguous(..) => Refusal::new(Code::NotFound, R::VersionNotFound, message),
            E::BotNotFound(_) => Refusal::new(Code::NotFound, R::BotNotFound, message),
            E::RunnerTokenInvalid => Refusal::new(Code::Unauthenticated, R::RunnerTokenInvalid, message),
            E::NotHosted(name) => {
                Refusal::new(Code::FailedPrecondition, R::NotHosted, message).with("bot", name)
            }
            E::SandboxNotFound(_) => Refusal::new(Code::NotFound, R::SandboxNotFound, message),
            E::Hosted(digest) => {
                Refusal::new(Code::FailedPrecondition, R::AccountHosted, message).with("digest", digest)
            }
            E::Setting(_) | E::Protocol(_) => {
                Refusal::new(Code::InvalidArgument, R::InvalidSettings, message)
            }
        }
    }
}

/// A domain result on the wire: `.refused()?` turns its error into a status through its
/// refusal. The domain errors are the lower crates' types, which cannot be converted
/// into tonic's `Status` by `?` alone (neither type is this crate's).
pub(crate) trait Refused<T> {
    /// The result, its error a status.
    fn refused(self) -> Result<T, Status>;
}

/// A domain error as a status, through its refusal.
pub(crate) fn refuse<E>(e: E) -> Status
where
    Refusal: From<E>,
{
    Refusal::from(e).status()
}

impl<T, E> Refused<T> for Result<T, E>
where
    Refusal: From<E>,
{
    fn refused(self) -> Result<T, Status> {
        self.map_err(|e| Refusal::from(e).status())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_refusal_travels_as_error_info() {
        let status = Refusal::new(Code::Aborted, R::StaleSeq, "stale").with("current_seq", 7).status();
        assert_eq!(status.code(), Code::Aborted);
        assert_eq!(convert::status_reason(&status), Some(R::StaleSeq));
        let info = status.get_error_details().error_info().unwrap().clone();
        assert_eq!(info.reason, "STALE_SEQ");
        assert_eq!(info.domain, "skat.v1");
        assert_eq!(info.metadata.get("current_seq").map(String::as_str), Some("7"));
    }
}
