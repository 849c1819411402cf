//! The HTTP edge: what every request goes through, once, as a tower layer
//! ([`EdgeLayer`]) instead of code repeated in each handler:
//!
//! | concern | how |
//! |---|---|
//! | a tracing span per call | `rpc{method, client, table}`; handlers record the table id into it |
//! | who the client is | the peer's address, or behind a trusted proxy the one it names ([`super::peer`]), in the request's extensions |
//! | latency and count per method and code | Prometheus, with the method from a fixed list (a client inventing paths cannot grow the label set) |
//! | refusals in the log | by code only: a message may name a card the caller sent |
//! | client faults tonic reports as server faults | corrected, below |
//!
//! tonic decodes a request body before any handler runs; when the bytes are not a valid
//! protobuf message (or a valid gRPC frame) it answers INTERNAL, and a message over the
//! size limit OUT_OF_RANGE. The contract promises INVALID_ARGUMENT for a malformed
//! request and RESOURCE_EXHAUSTED at a limit, so this layer rewrites exactly those
//! trailers-only answers. It matches tonic's own wording (pinned by the tests in
//! `tests/hostile.rs`, so an upgrade that changes it fails loudly) and leaves every
//! other response untouched.

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Instant;

use std::sync::Arc;

use ipnet::IpNet;

use crate::config::ForwardedHeader;
use skat_proto::pb::ErrorReason as R;
use tonic::transport::server::TcpConnectInfo;
use tonic::{Code, Status};
use tracing::Instrument;

use super::peer::ClientAddr;

use super::refusal::Refusal;
use crate::metrics::Metrics;

/// The methods of `skat.v1.SkatService` (metrics are kept for these; anything else
/// counts as `other`).
pub const METHODS: [&str; 31] = [
    "CreateTable",
    "ListTables",
    "JoinTable",
    "LeaveTable",
    "GetTable",
    "WatchTable",
    "WatchTables",
    "Bid",
    "TakeSkat",
    "Discard",
    "Declare",
    "PlayCard",
    "Resign",
    "Claim",
    "GetRecords",
    "RegisterBot",
    "Lobby",
    "CreateTournament",
    "GetTournament",
    "GetLeaderboard",
    "UpdateBot",
    "ListTournaments",
    "GetBot",
    "UpdateTournament",
    "ListBots",
    "ListAuditLog",
    "AnalyzeTable",
    "Challenge",
    "AnswerChallenge",
    "ListChallenges",
    "GetServerInfo",
];

/// The methods of `skat.v1.HostingService`, likewise.
pub const HOSTING_METHODS: [&str; 9] = [
    "SubmitBotVersion",
    "ListBotVersions",
    "ActivateBotVersion",
    "ApproveBotVersion",
    "ListSandboxes",
    "GetSandboxLog",
    "RunnerFeed",
    "FetchBotImage",
    "ReportSandbox",
];

fn method_of(path: &str) -> &'static str {
    if let Some(m) = path.strip_prefix("/skat.v1.HostingService/") {
        return HOSTING_METHODS.iter().find(|x| **x == m).copied().unwrap_or("other");
    }
    match path.strip_prefix("/skat.v1.SkatService/") {
        Some(m) => METHODS.iter().find(|x| **x == m).copied().unwrap_or("other"),
        None if path.starts_with("/grpc.health.") => "Health",
        None if path.starts_with("/grpc.reflection.") => "Reflection",
        None => "other",
    }
}

/// The status code of a response: in its headers when it is trailers-only (every
/// refusal); otherwise OK so far (a stream's own end is its business).
fn code_of<B>(response: &http::Response<B>) -> Code {
    match response
        .headers()
        .get("grpc-status")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<i32>().ok())
    {
        Some(n) => Code::from_i32(n),
        None => Code::Ok,
    }
}

/// The edge as a tower layer: spans, metrics, refusal logging, client-fault codes, and
/// who the client is ([`super::peer`]).
#[derive(Debug, Clone)]
pub struct EdgeLayer {
    metrics: Metrics,
    proxies: Arc<Vec<IpNet>>,
    header: ForwardedHeader,
}

impl EdgeLayer {
    /// The layer, recording into `metrics`, trusting `proxies` to name their clients.
    pub fn new(metrics: Metrics, proxies: &[IpNet], header: ForwardedHeader) -> EdgeLayer {
        EdgeLayer { metrics, proxies: Arc::new(proxies.to_vec()), header }
    }
}

impl<S> tower::Layer<S> for EdgeLayer {
    type Service = Edge<S>;

    fn layer(&self, inner: S) -> Edge<S> {
        Edge { inner, metrics: self.metrics.clone(), proxies: Arc::clone(&self.proxies), header: self.header }
    }
}

/// The service [`EdgeLayer`] wraps around the server.
#[derive(Debug, Clone)]
pub struct Edge<S> {
    inner: S,
    metrics: Metrics,
    proxies: Arc<Vec<IpNet>>,
    header: ForwardedHeader,
}

impl<S, B, RB> tower::Service<http::Request<B>> for Edge<S>
where
    S: tower::Service<http::Request<B>, Response = http::Response<RB>>,
    S::Future: Send + 'static,
    S::Error: Send + 'static,
    RB: Send + 'static,
{
    type Response = http::Response<RB>;
    type Error = S::Error;
    type Future = Pin<Box<dyn Future<Output = Result<http::Response<RB>, S::Error>> + Send>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), S::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, mut request: http::Request<B>) -> Self::Future {
        let method = method_of(request.uri().path());
        let peer = request.extensions().get::<TcpConnectInfo>().and_then(TcpConnectInfo::remote_addr);
        let client = super::peer::client(peer, request.headers(), &self.proxies, self.header);
        request.extensions_mut().insert(ClientAddr(client));
        let span = tracing::info_span!("rpc", method, %client, table = tracing::field::Empty);
        let start = Instant::now();
        let metrics = self.metrics.clone();
        let response = self.inner.call(request).instrument(span.clone());
        Box::pin(
            async move {
                let response = response.await.map(client_faults);
                let code = response.as_ref().map_or(Code::Unavailable, code_of);
                metrics.observe(method, start, &format!("{code:?}"));
                if code != Code::Ok {
                    // The code only: a refusal message may name a card the caller sent.
                    tracing::debug!(?code, "refused");
                }
                response
            }
            .instrument(span),
        )
    }
}

/// Messages tonic gives to a request it could not decode.
const DECODE_FAILURES: [&str; 3] = [
    "failed to decode Protobuf message",
    "Unexpected EOF decoding stream",
    "protocol error: received message",
];
/// The message tonic gives to a request over the size limit.
const TOO_LARGE: &str = "Error, decoded message length too large";

/// The corrected status for a status tonic produced, if it needs one.
pub fn corrected(status: &Status) -> Option<Status> {
    let message = status.message();
    let (code, reason) = match status.code() {
        Code::Internal if DECODE_FAILURES.iter().any(|m| message.starts_with(m)) => {
            (Code::InvalidArgument, R::MalformedRequest)
        }
        Code::OutOfRange if message.starts_with(TOO_LARGE) => (Code::ResourceExhausted, R::MessageTooLarge),
        _ => return None,
    };
    Some(Refusal::new(code, reason, format!("malformed request: {message}")).status())
}

/// Rewrites a trailers-only error response whose status [`corrected`] corrects.
pub fn client_faults<B>(mut response: http::Response<B>) -> http::Response<B> {
    let headers = response.headers_mut();
    let Some(fixed) = Status::from_header_map(headers).as_ref().and_then(corrected) else {
        return response;
    };
    headers.remove("grpc-status");
    headers.remove("grpc-message");
    headers.remove("grpc-status-details-bin");
    let _ = fixed.add_header(headers);
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn metric_labels_come_from_a_fixed_list() {
        assert_eq!(method_of("/skat.v1.SkatService/PlayCard"), "PlayCard");
        assert_eq!(method_of("/skat.v1.SkatService/MadeUp"), "other");
        assert_eq!(method_of("/anything/at/all"), "other");
        assert_eq!(method_of("/grpc.health.v1.Health/Check"), "Health");
    }

    #[test]
    fn only_tonic_decode_and_size_failures_are_rewritten() {
        let decode = Status::internal("failed to decode Protobuf message: invalid wire type");
        assert_eq!(corrected(&decode).map(|s| s.code()), Some(Code::InvalidArgument));
        let size = Status::out_of_range(
            "Error, decoded message length too large: found 9 bytes, the limit is: 4 bytes",
        );
        assert_eq!(corrected(&size).map(|s| s.code()), Some(Code::ResourceExhausted));
        // Our own OUT_OF_RANGE (after_seq ahead) and other internals stay.
        assert!(corrected(&Status::out_of_range("after_seq 9 is ahead of the table (seq 3)")).is_none());
        assert!(corrected(&Status::internal("no randomness available")).is_none());

        let mut response = http::Response::new(());
        decode.add_header(response.headers_mut()).unwrap();
        let response = client_faults(response);
        let status = Status::from_header_map(response.headers()).unwrap();
        assert_eq!(status.code(), Code::InvalidArgument);
        assert!(status.message().contains("invalid wire type"));
        assert_eq!(
            skat_proto::convert::status_reason(&status),
            Some(R::MalformedRequest),
            "the detail survives the headers"
        );
    }
}
