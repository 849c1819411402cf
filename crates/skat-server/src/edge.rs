//! The HTTP edge: what tonic answers before a request reaches the service, corrected
//! where the code blames the server for the client's fault.
//!
//! tonic decodes a request body before any handler runs; when the bytes are not a valid
//! protobuf message (or a valid gRPC frame) it answers INTERNAL, and a message over the
//! size limit OUT_OF_RANGE. The contract promises INVALID_ARGUMENT for a malformed
//! request and RESOURCE_EXHAUSTED at a limit, so this layer rewrites exactly those
//! trailers-only answers. It matches tonic's own wording (pinned by the tests in
//! `tests/hostile.rs`, so an upgrade that changes it fails loudly) and leaves every
//! other response untouched.

use skat_proto::pb::ErrorReason as R;
use tonic::{Code, Status};

use crate::error::Refusal;

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
            crate::error::reason_of(&status),
            Some(R::MalformedRequest),
            "the detail survives the headers"
        );
    }
}
