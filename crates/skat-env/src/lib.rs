//! # skat-env
//!
//! Skat for learning agents, on the engine's own rules: what the Python package
//! `skat_engine` (crate `skat-engine-py`) exposes, kept here in plain Rust so it is tested
//! and benchmarked without Python.
//!
//! | concern | module |
//! |---|---|
//! | every decision as one id in `0..155`, masks | [`actions`] |
//! | what one seat knows as a vector of numbers | [`observation`] |
//! | one deal or a list stepped by id (the two-step discard) | [`table`] |
//! | many deals in one call | [`batch`] |
//! | (observation, action, outcome) examples from ISS records | [`examples`] |

#![forbid(unsafe_code)]

pub mod actions;
pub mod batch;
pub mod examples;
pub mod observation;
pub mod table;

pub use actions::{MAX_LEGAL, N_ACTIONS};
pub use batch::{Batch, BatchError, Outputs};
pub use observation::{LAYOUT, OBS_LEN};
pub use table::{EnvDeal, EnvError, EnvMatch};
