//! What a new table (or a tournament's tables) may be set up with, checked once for
//! CreateTable and CreateTournament alike.
//!
//! | setting | rule |
//! |---|---|
//! | seats | 3 or 4 (0 means 3) |
//! | deals | at most `--max-deals` (0 means the standard 36 at 3 seats, 48 at 4) |
//! | time control | each limit at most one day; 0 means none; absent means the server's defaults |
//! | the pause between deals | at most five minutes (a person reading a deal's end; no clock is held longer) |

use skat_engine::MatchConfig;

use crate::TableLimits;

/// The longest time limit, in milliseconds (a day).
pub const MAX_LIMIT_MS: u64 = 24 * 3600 * 1000;

/// Settings that cannot be played.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SettingsError {
    /// Not 3 or 4 seats.
    #[error("a table has 3 or 4 seats, not {0}")]
    Seats(u32),
    /// More deals than the server allows.
    #[error("at most {max} deals per table on this server (asked for {asked})")]
    Deals {
        /// `--max-deals`.
        max: u32,
        /// What was asked for.
        asked: u32,
    },
    /// A time limit over a day.
    #[error("time limits are at most one day (86400000 ms); 0 means none")]
    TimeLimit,
    /// A pause between deals over five minutes.
    #[error("the pause between deals is at most five minutes (300000 ms); 0 means none")]
    BetweenDeals,
}

/// Seats: 3 or 4 (0 means 3).
pub fn seats(asked: u32) -> Result<u8, SettingsError> {
    match asked {
        0 | 3 => Ok(3),
        4 => Ok(4),
        n => Err(SettingsError::Seats(n)),
    }
}

/// Deals per list: at most the server's limit; 0 stays 0 here (the standard list, which
/// [`deals_or_standard`] fills in).
pub fn deals(asked: u32, config: &TableLimits) -> Result<u32, SettingsError> {
    if asked > config.max_deals {
        return Err(SettingsError::Deals { max: config.max_deals, asked });
    }
    Ok(asked)
}

/// Deals per list, with 0 meaning the standard list for `seats`.
pub fn deals_or_standard(seats: u8, deals: u32) -> u32 {
    if deals == 0 { MatchConfig::standard(seats, 0).deals } else { deals }
}

/// The longest pause between deals, in milliseconds (five minutes).
pub const MAX_BETWEEN_DEALS_MS: u64 = 5 * 60 * 1000;

/// The pause between deals: at most [`MAX_BETWEEN_DEALS_MS`].
pub fn between_deals(asked: u64) -> Result<u64, SettingsError> {
    if asked > MAX_BETWEEN_DEALS_MS {
        return Err(SettingsError::BetweenDeals);
    }
    Ok(asked)
}

/// The time control: the server's defaults when none is given; each limit at most a day.
pub fn time_control(asked: Option<(u64, u64)>, config: &TableLimits) -> Result<(u64, u64), SettingsError> {
    let (action_ms, deal_ms) = asked.unwrap_or((config.default_action_ms, config.default_deal_ms));
    if action_ms > MAX_LIMIT_MS || deal_ms > MAX_LIMIT_MS {
        return Err(SettingsError::TimeLimit);
    }
    Ok((action_ms, deal_ms))
}
