//! Why a hosting call is refused: one enum, mapped to status codes and reasons once, in
//! the rpc room (`rpc/refusal.rs`).

use crate::CompetitionError;
use skat_store::StoreError;

/// A refused hosting call.
#[derive(Debug, thiserror::Error)]
pub enum HostingError {
    /// Hosting keeps its versions in the database.
    #[error("hosted bots need a database: this server runs with --database memory")]
    NoDatabase,
    /// The database failed.
    #[error("the server's database is not answering; retry")]
    Storage(#[from] StoreError),
    /// Authentication or the operator's token, as the competitions decide.
    #[error(transparent)]
    Competition(#[from] CompetitionError),
    /// Not an image archive, or a reference without a digest.
    #[error("{0}")]
    NotAnImage(String),
    /// The archive is larger than the server takes.
    #[error(
        "the archive is larger than this server takes ({0} bytes, --hosting-max-image-bytes): make the image smaller (a static binary FROM scratch is a few MiB)"
    )]
    TooLarge(u64),
    /// Archives need a place to be kept.
    #[error(
        "this server takes no image archives (it has no --data-dir for them): submit a reference to a registry instead"
    )]
    NoArchives,
    /// The upload was not written.
    #[error("the archive could not be stored: {0}")]
    Io(#[from] std::io::Error),
    /// No version with this digest.
    #[error("no version `{0}` of this bot (skat bot versions lists them)")]
    VersionNotFound(String),
    /// An image with versions of several commands, named by its digest.
    #[error(
        "the image {0} has versions with different commands ({1}): name one with its version (skat bot activate --version-id ID)"
    )]
    VersionAmbiguous(String, String),
    /// No such account.
    #[error("no bot account `{0}`")]
    BotNotFound(String),
    /// The runner's token is missing or wrong.
    #[error(
        "this call is the runner's: it needs `authorization: Bearer <runner token>` (skat serve --hosting-runner-token-file)"
    )]
    RunnerTokenInvalid,
    /// A hosted tournament's entrant without an active approved version.
    #[error(
        "`{0}` has no active, approved version: a hosted tournament's entrants play in the server's sandboxes (skat bot submit, then the operator's approval if needed)"
    )]
    NotHosted(String),
    /// No such sandbox for this caller.
    #[error("no sandbox `{0}` of this bot")]
    SandboxNotFound(String),
    /// The account is hosted: its own lobby is refused.
    #[error(
        "this account is hosted: version {0} plays its seats in the server's sandboxes (skat bot activate --none hands them back to lobbies like this one)"
    )]
    Hosted(String),
    /// A setting out of bounds.
    #[error("{0}")]
    Setting(String),
    /// The upload's first message was not its header, or a header came again.
    #[error("{0}")]
    Protocol(&'static str),
}
