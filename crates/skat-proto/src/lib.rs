//! # skat-proto
//!
//! The `skat.v1` gRPC contract (`proto/skat/v1/skat.proto`) as generated Rust code, and
//! [`convert`], the one place that turns protobuf messages into engine types and back:
//! requests to actions, events and views both ways (a client folds the stream into the
//! engine's `SeatView`), results, and refusal reasons. The server, the SDK, the arena
//! and the tests all go through it, so a card or a game type is translated the same way
//! everywhere. [`codec`] is the codec every method is generated with (prost's, with
//! buffers sized for Skat's small messages).

pub mod codec;
pub mod convert;
#[doc(hidden)]
pub mod fuzzing;

/// The generated `skat.v1` messages, client and server.
#[allow(missing_docs, clippy::all)]
pub mod pb {
    tonic::include_proto!("skat.v1");
}

/// The encoded file descriptor set of `skat.v1`, for server reflection.
pub const FILE_DESCRIPTOR_SET: &[u8] = tonic::include_file_descriptor_set!("skat_v1_descriptor");
