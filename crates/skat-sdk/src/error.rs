//! What can go wrong talking to the server, in words a person can act on: a connection
//! that failed (and why, from the innermost cause), a refusal with its stable reason, a
//! secret that would have travelled in plain text. Its own module because every other one
//! (the address, the seat's client, the lobby) returns it.

use skat_proto::convert;
use tonic::Status;

/// What can go wrong talking to the server.
#[derive(Debug, thiserror::Error)]
pub enum SdkError {
    /// Could not connect (the text names the cause: nothing listening, a certificate not
    /// trusted, TLS against a plain-text server).
    #[error("cannot connect to {url}: {}", connect_cause(.source))]
    Connect {
        /// The server URL.
        url: String,
        /// Why.
        source: tonic::transport::Error,
    },
    /// The server refused a call (shown as its message, code and reason, not tonic's
    /// debug text).
    #[error("{}", refused(.0))]
    Status(#[from] Status),
    /// The server sent something this SDK cannot read.
    #[error("unexpected answer from the server: {0}")]
    Protocol(String),
    /// A secret would have gone in plain text beyond this machine.
    #[error(
        "refusing to send the {what} in plain text to {url}, which is not this machine: use https:// \
         (with --ca-file or SKAT_CA_FILE for a private CA), or allow plain text with --insecure \
         (SKAT_INSECURE=1) on a network you trust"
    )]
    PlainText {
        /// What would have been sent.
        what: String,
        /// Where.
        url: String,
    },
    /// A file for TLS (the CA, a client certificate or key) could not be read.
    #[error("cannot read {}: {source}", path.display())]
    CaFile {
        /// The file.
        path: std::path::PathBuf,
        /// Why.
        source: std::io::Error,
    },
}

/// Why a connection failed, from the innermost cause, with what to do about it.
fn connect_cause(e: &tonic::transport::Error) -> String {
    let mut chain = vec![e.to_string()];
    let mut source = std::error::Error::source(e);
    while let Some(s) = source {
        chain.push(s.to_string());
        source = s.source();
    }
    let all = chain.join(": ");
    let lower = all.to_ascii_lowercase();
    let hint = if lower.contains("connection refused") {
        " (is `skat serve` running there?)"
    } else if lower.contains("certificate") || lower.contains("unknownissuer") {
        " (the server's certificate is not trusted: for a private CA give it with --ca-file or SKAT_CA_FILE)"
    } else if lower.contains("invalidcontenttype") || lower.contains("corrupt message") {
        " (the server does not speak TLS there: use http:// if it is a plain-text server)"
    } else {
        ""
    };
    format!("{}{hint}", chain.last().map_or(all.as_str(), String::as_str))
}

/// Whether a call failed because the connection broke under it (no answer at all).
pub(crate) fn broken_connection(s: &Status) -> bool {
    let message = s.message();
    matches!(s.code(), tonic::Code::Cancelled | tonic::Code::Internal | tonic::Code::Unknown)
        && [
            "h2 protocol error",
            "operation was canceled",
            "transport error",
            "connection reset",
            "broken pipe",
        ]
        .iter()
        .any(|m| message.contains(m))
}

/// A refusal for people: `the server refused: no table `x` (NOT_FOUND, TABLE_NOT_FOUND)`.
pub fn refused(s: &Status) -> String {
    let code = format!("{:?}", s.code());
    let code = code.chars().fold(String::new(), |mut out, c| {
        if c.is_uppercase() && !out.is_empty() {
            out.push('_');
        }
        out.push(c.to_ascii_uppercase());
        out
    });
    match convert::status_reason(s) {
        Some(reason) => {
            format!("the server refused: {} ({code}, {})", s.message(), convert::reason_name(reason))
        }
        None if s.code() == tonic::Code::Unavailable => format!("the server is unavailable: {}", s.message()),
        // A TLS server closes a plain-text connection at once (after a TLS alert that
        // HTTP/2 cannot read): the call fails before anything was answered.
        None if broken_connection(s) => format!(
            "the connection closed before the server answered ({}): if the server uses TLS, use https://",
            s.message()
        ),
        None => format!("the server answered {code}: {}", s.message()),
    }
}

impl SdkError {
    /// Why the server refused the call, as the contract names it (`NotYourTurn`,
    /// `MustFollowSuit`, `StaleSeq`...): branch on this, not on the message.
    pub fn reason(&self) -> Option<skat_proto::pb::ErrorReason> {
        match self {
            SdkError::Status(s) => skat_proto::convert::status_reason(s),
            _ => None,
        }
    }
}

/// The metadata key with which a replica that does not own a table names the one that
/// does (see `docs/deploy.md`).
pub const OWNER_METADATA: &str = "skat-owner";
