//! # skat-sdk
//!
//! The client side of the open Skat server: connect, take a seat, follow the table's
//! stream, act. [`client::SeatClient`] sends engine [`Action`](skat_engine::Action)s
//! over gRPC with the seat's token.

#![warn(missing_docs)]

pub mod client;

pub use client::{SdkError, SeatClient};
