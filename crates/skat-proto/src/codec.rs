//! The codec every `skat.v1` method is generated with: prost's, with 256-byte buffers.
//!
//! tonic's default codec allocates 8 KiB per RPC to encode its response and 8 KiB to
//! decode its request, and keeps an 8 KiB encoding buffer for the life of every
//! server stream (tonic's own documentation says to lower it when a server has many
//! RPCs at once). Skat's messages are small (an action tens of bytes, an event or a
//! view a few hundred), and a busy server holds three `WatchTable` streams per table:
//! at 1,500 tables the defaults held about 30 MiB of buffers that were almost never
//! filled, 6% of the server's memory (docs/BENCHMARKS.md, "The codec's buffers"). At
//! 1 KiB they were still 3 KiB a table in play (a heap profile of 1,000 tables, issue
//! 50); at 256 bytes an action or most events fit, and a larger message still does: the
//! buffer grows to hold it.

use std::marker::PhantomData;

use tonic::codec::{BufferSettings, Codec};
use tonic_prost::{ProstCodec, ProstDecoder, ProstEncoder};

/// Bytes allocated up front to encode or decode one message.
pub const BUFFER_BYTES: usize = 256;
/// A stream sends what it has ready once this much is encoded (tonic's default).
const YIELD_THRESHOLD: usize = 32 * 1024;

fn settings() -> BufferSettings {
    BufferSettings::new(BUFFER_BYTES, YIELD_THRESHOLD)
}

/// prost's `application/grpc+proto` codec with [`BUFFER_BYTES`] buffers; the generated
/// client and server use it for every method (`build.rs`).
#[derive(Debug)]
pub struct SkatCodec<T, U>(PhantomData<(T, U)>);

impl<T, U> Default for SkatCodec<T, U> {
    fn default() -> Self {
        SkatCodec(PhantomData)
    }
}

impl<T, U> Codec for SkatCodec<T, U>
where
    T: prost::Message + Send + 'static,
    U: prost::Message + Default + Send + 'static,
{
    type Encode = T;
    type Decode = U;
    type Encoder = ProstEncoder<T>;
    type Decoder = ProstDecoder<U>;

    fn encoder(&mut self) -> Self::Encoder {
        ProstCodec::<T, U>::raw_encoder(settings())
    }

    fn decoder(&mut self) -> Self::Decoder {
        ProstCodec::<T, U>::raw_decoder(settings())
    }
}

#[cfg(test)]
mod tests {
    use tonic::codec::{Codec, Decoder, Encoder};

    use super::*;
    use crate::pb;

    /// Both directions start small. That a message many times larger still goes through
    /// whole is `skat-server`'s `full_match` test (36 records in one response).
    #[test]
    fn both_directions_start_at_one_kibibyte() {
        let mut codec = SkatCodec::<pb::PlayCardResponse, pb::PlayCardRequest>::default();
        // `BufferSettings` keeps its fields private; its `Debug` shows them.
        let want = format!("buffer_size: {BUFFER_BYTES},");
        assert!(format!("{:?}", codec.encoder().buffer_settings()).contains(&want));
        assert!(format!("{:?}", codec.decoder().buffer_settings()).contains(&want));
    }
}
