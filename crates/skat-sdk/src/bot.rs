//! The [`Bot`] trait and how a decision becomes a legal action: `skat-bot-api`'s,
//! re-exported so that bots written against `skat_sdk::bot` keep compiling. The SDK only
//! adds the wire (joining, the stream, reconnecting).

pub use skat_bot_api::{Bot, ask, decide, describe_action, describe_legal, first_legal};
