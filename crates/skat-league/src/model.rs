//! The nouns of a competition: who plays ([`AccountId`], [`BotName`]), in what
//! ([`TournamentId`], [`TournamentSpec`], [`Format`]), at which tables ([`PlannedTable`]
//! with its [`TableStatus`]) and with what result ([`SeatResult`]).
//!
//! Ids and names are newtypes that can only hold a valid value: an id that parsed is
//! an id, a name that was accepted is a name, so the code that stores, schedules and
//! shows them never checks again. They serialize as plain strings (the database and
//! the stored tournament settings keep the form they always had).

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

use crate::names::{NameError, NameKind, check_name, name_keys, primary_key};

/// Ids are a letter and 12 hex digits (48 random bits).
const ID_DIGITS: usize = 12;

fn valid_id(prefix: &str, s: &str) -> bool {
    s.len() == 1 + ID_DIGITS
        && s.starts_with(prefix)
        && s[1..].bytes().all(|b| b.is_ascii_hexdigit() && !b.is_ascii_uppercase())
}

macro_rules! id_type {
    ($(#[$doc:meta])* $name:ident, $prefix:literal, $what:literal) => {
        $(#[$doc])*
        #[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
        #[serde(try_from = "String", into = "String")]
        pub struct $name(String);

        impl $name {
            /// The id made from 48 random bits (the low bits of `random`).
            pub fn from_random(random: u64) -> $name {
                $name(format!(concat!($prefix, "{:012x}"), random & 0xffff_ffff_ffff))
            }

            /// The id as text.
            pub fn as_str(&self) -> &str {
                &self.0
            }
        }

        impl FromStr for $name {
            type Err = String;

            fn from_str(s: &str) -> Result<$name, String> {
                if valid_id($prefix, s) {
                    Ok($name(s.to_string()))
                } else {
                    let shown: String = s.chars().take(64).collect();
                    Err(format!(concat!("`{}` is not ", $what, " (", $prefix, " and 12 hex digits)"), shown))
                }
            }
        }

        impl TryFrom<String> for $name {
            type Error = String;

            fn try_from(s: String) -> Result<$name, String> {
                s.parse()
            }
        }

        impl From<$name> for String {
            fn from(id: $name) -> String {
                id.0
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(&self.0)
            }
        }

        impl AsRef<str> for $name {
            fn as_ref(&self) -> &str {
                &self.0
            }
        }
    };
}

id_type!(
    /// A bot account's id: `a` and 12 hex digits.
    AccountId,
    "a",
    "an account id"
);
id_type!(
    /// A tournament's id: `u` and 12 hex digits.
    TournamentId,
    "u",
    "a tournament id"
);

id_type!(
    /// A challenge's id: `c` and 12 hex digits.
    ChallengeId,
    "c",
    "a challenge id"
);

/// What a challenge proposes (stored as JSON, so field names are part of the database).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct ChallengeTerms {
    /// 3 or 4 seats: the challenger and its opponents.
    pub seats: u8,
    /// Deals per list (0: the standard 36 or 48).
    pub deals: u32,
    /// Lists, each in every seat rotation.
    pub lists: u32,
    /// Milliseconds per action.
    pub action_ms: u64,
    /// Milliseconds per seat per deal.
    pub deal_ms: u64,
    /// Whether its lists count for the ratings.
    pub rated: bool,
}

impl ChallengeTerms {
    /// The meeting these terms make once accepted: a tournament of format challenge of
    /// `entrants` (the challenger, then its opponents), its deals from a secret drawn
    /// when it starts.
    pub fn meeting(&self, entrants: Vec<AccountId>) -> TournamentSpec {
        TournamentSpec {
            entrants,
            seats: self.seats,
            deals: self.deals,
            lists: self.lists,
            action_ms: self.action_ms,
            deal_ms: self.deal_ms,
            seed: 0,
            parallel: 0,
            format: Format::Challenge,
            rounds: 0,
            start_ms: 0,
            secret: Default::default(),
            commitment: String::new(),
            unrated: !self.rated,
        }
    }
}

/// Where a challenge stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ChallengeState {
    /// Waiting for an answer of every opponent.
    Pending,
    /// Every opponent accepted.
    Accepted,
    /// An opponent declined.
    Declined,
    /// Not answered in time.
    Expired,
}

impl ChallengeState {
    /// As stored (`expired` is never stored: it is read from the expiry time).
    pub fn as_str(self) -> &'static str {
        match self {
            ChallengeState::Pending => "pending",
            ChallengeState::Accepted => "accepted",
            ChallengeState::Declined => "declined",
            ChallengeState::Expired => "expired",
        }
    }

    /// From the stored text, and whether a pending one expired by `now_ms`.
    pub fn stored(text: &str, expires_ms: u64, now_ms: u64) -> ChallengeState {
        match text {
            "accepted" => ChallengeState::Accepted,
            "declined" => ChallengeState::Declined,
            _ if now_ms >= expires_ms => ChallengeState::Expired,
            _ => ChallengeState::Pending,
        }
    }
}

/// A bot account's name: shown at tables, in standings and in records.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct BotName(String);

impl BotName {
    /// The most characters in a name.
    pub const MAX_CHARS: usize = NameKind::Account.max_chars();

    /// A name from what a client sent, under the name policy ([`crate::names`]):
    /// refused when it breaks a rule, never silently changed (but stored in NFC).
    pub fn new(raw: &str) -> Result<BotName, NameError> {
        check_name(NameKind::Account, raw).map(BotName)
    }

    /// The name's primary key ([`crate::names::primary_key`]): case, normalisation and
    /// look-alikes folded. Looking a name up goes by it.
    pub fn key(&self) -> String {
        primary_key(&self.0)
    }

    /// Every key of the name ([`crate::names::name_keys`]): no two accounts' names share
    /// one.
    pub fn keys(&self) -> Vec<String> {
        name_keys(&self.0)
    }

    /// A name read back from the database (it was checked when it was stored).
    pub fn stored(name: String) -> BotName {
        BotName(name)
    }

    /// The name as text.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for BotName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// How a tournament's entrants meet.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Format {
    /// Every group of `seats` entrants.
    #[default]
    RoundRobin,
    /// Rounds of groups by standing.
    Swiss,
    /// One meeting from casual matchmaking.
    Casual,
    /// One meeting from a challenge its opponents accepted.
    Challenge,
}

impl Format {
    /// The format in words, as people read it (`round robin`, `Swiss`).
    pub const fn words(self) -> &'static str {
        match self {
            Format::RoundRobin => "round robin",
            Format::Swiss => "Swiss",
            Format::Casual => "casual meeting",
            Format::Challenge => "challenge",
        }
    }
}

/// A tournament's settings (stored as JSON, so field names are part of the database).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TournamentSpec {
    /// The entrants.
    pub entrants: Vec<AccountId>,
    /// 3 or 4 seats per table.
    pub seats: u8,
    /// Deals per list (0: the standard 36 or 48).
    pub deals: u32,
    /// Lists per meeting (each in every seat rotation).
    pub lists: u32,
    /// Milliseconds per action.
    pub action_ms: u64,
    /// Milliseconds per seat per deal.
    pub deal_ms: u64,
    /// The deals of list `k` of meeting `m` follow from `seed + m * lists + k`.
    pub seed: u64,
    /// Tables at once (0: as many as the entrants' quotas allow).
    pub parallel: u32,
    /// How entrants meet.
    #[serde(default)]
    pub format: Format,
    /// Swiss rounds in all (0 for other formats).
    #[serde(default)]
    pub rounds: u32,
    /// Unix milliseconds before which no table is seated.
    #[serde(default)]
    pub start_ms: u64,
    /// The secret the lists' seeds come from ([`crate::deals`]); empty for a tournament
    /// made before secrets (its seeds are `seed + meeting * lists + list`). Never shown
    /// before the tournament is over.
    #[serde(default)]
    pub secret: crate::deals::DealSecret,
    /// The commitment to `secret` published at creation (kept apart, so that a changed
    /// secret no longer matches it).
    #[serde(default)]
    pub commitment: String,
    /// Its lists leave the ratings alone (a challenge made unrated).
    #[serde(default)]
    pub unrated: bool,
}

impl TournamentSpec {
    /// Lists per meeting, at least one.
    pub fn lists_per_meeting(&self) -> u32 {
        self.lists.max(1)
    }

    /// The seed of list `list` of meeting `meeting`.
    pub fn list_seed(&self, meeting: u64, list: u64) -> u64 {
        if self.secret.is_empty() {
            self.seed.wrapping_add(meeting * u64::from(self.lists_per_meeting()) + list)
        } else {
            crate::deals::list_seed(self.secret.reveal(), meeting, list)
        }
    }

    /// Seats per table, at least one (a guard for arithmetic; specs have 3 or 4).
    pub fn seats_per_table(&self) -> usize {
        usize::from(self.seats.max(1))
    }
}

macro_rules! status_type {
    ($(#[$doc:meta])* $name:ident { $($(#[$vdoc:meta])* $variant:ident = $text:literal,)+ }) => {
        $(#[$doc])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum $name {
            $($(#[$vdoc])* $variant,)+
        }

        impl $name {
            /// The word stored in the database.
            pub fn as_str(self) -> &'static str {
                match self {
                    $($name::$variant => $text,)+
                }
            }
        }

        impl FromStr for $name {
            type Err = String;

            fn from_str(s: &str) -> Result<$name, String> {
                match s {
                    $($text => Ok($name::$variant),)+
                    other => Err(format!(concat!("`{}` is no ", stringify!($name)), other)),
                }
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(self.as_str())
            }
        }
    };
}

status_type!(
    /// Where a planned table is.
    TableStatus {
        /// Not seated yet.
        Pending = "pending",
        /// Seated and being played.
        Playing = "playing",
        /// Played (its result is recorded).
        Finished = "finished",
        /// The tournament was cancelled before it finished: not rated, not in the
        /// standings.
        Abandoned = "abandoned",
    }
);

status_type!(
    /// Where a tournament is.
    TournamentStatus {
        /// Tables are being planned, seated or played.
        Running = "running",
        /// No new table is seated until resumed; tables being played go on.
        Paused = "paused",
        /// Every table has finished.
        Finished = "finished",
        /// Cancelled by the operator: its unfinished tables are abandoned.
        Cancelled = "cancelled",
    }
);

impl TournamentStatus {
    /// Whether it is over (finished or cancelled): nothing more will be played.
    pub fn is_over(self) -> bool {
        matches!(self, TournamentStatus::Finished | TournamentStatus::Cancelled)
    }
}

impl TableStatus {
    /// Whether nothing more happens at it (finished or abandoned).
    pub fn is_done(self) -> bool {
        matches!(self, TableStatus::Finished | TableStatus::Abandoned)
    }
}

/// One seat's result at a finished table.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SeatResult {
    /// The account.
    pub account_id: AccountId,
    /// Seeger-Fabian total.
    pub seeger_fabian: i64,
    /// Plain total.
    pub plain: i64,
    /// Games declared.
    pub declared: u32,
    /// Games won.
    pub won: u32,
    /// Deals it forfeited (time-outs, leaving).
    pub penalties: u32,
}

impl SeatResult {
    /// A result with nothing in it, for `account`.
    pub fn empty(account_id: AccountId) -> SeatResult {
        SeatResult { account_id, seeger_fabian: 0, plain: 0, declared: 0, won: 0, penalties: 0 }
    }
}

/// A planned table of a tournament.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlannedTable {
    /// Its place in the tournament's plan, from 0 (tables are named `#index+1`).
    pub index: u64,
    /// The entrant in each seat.
    pub seating: Vec<AccountId>,
    /// The seed of its deals.
    pub seed: u64,
    /// The table, once created (empty before).
    pub table_id: String,
    /// Where it is.
    pub status: TableStatus,
    /// Per seat, once finished.
    pub result: Vec<SeatResult>,
}

impl PlannedTable {
    /// A table not yet seated.
    pub fn pending(index: u64, seating: Vec<AccountId>, seed: u64) -> PlannedTable {
        PlannedTable {
            index,
            seating,
            seed,
            table_id: String::new(),
            status: TableStatus::Pending,
            result: Vec::new(),
        }
    }

    /// Whether `account` sits at it.
    pub fn seats(&self, account: &AccountId) -> bool {
        self.seating.contains(account)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_parse_only_in_their_form_and_serialize_as_text() {
        let a = AccountId::from_random(0x1234_5678_9abc_def0);
        assert_eq!(a.as_str(), "a56789abcdef0");
        assert_eq!(a.as_str().parse::<AccountId>(), Ok(a.clone()));
        for bad in ["", "a", "u56789abcdef0", "a56789ABCDEF0", "a56789abcdef", "a56789abcdef0x"] {
            assert!(bad.parse::<AccountId>().is_err(), "{bad}");
        }
        assert_eq!(serde_json::to_string(&a).unwrap(), "\"a56789abcdef0\"");
        assert!(serde_json::from_str::<AccountId>("\"nope\"").is_err());
        assert!(TournamentId::from_random(7).as_str().starts_with('u'));
    }

    #[test]
    fn names_are_checked_not_cleaned() {
        assert!(BotName::new("heur [1], ok").is_err());
        assert!(BotName::new("new\nline").is_err());
        assert!(BotName::new(" \t ").is_err());
        assert!(BotName::new(&"x".repeat(33)).is_err());
        assert_eq!(BotName::new(&"x".repeat(32)).unwrap().as_str().len(), 32);
        assert_eq!(BotName::new("HEUR-A").unwrap().key(), BotName::new("heur-a").unwrap().key());
    }

    #[test]
    fn statuses_round_trip_their_stored_words() {
        for s in [TableStatus::Pending, TableStatus::Playing, TableStatus::Finished] {
            assert_eq!(s.as_str().parse::<TableStatus>(), Ok(s));
        }
        assert!("done".parse::<TableStatus>().is_err());
        assert_eq!("running".parse::<TournamentStatus>(), Ok(TournamentStatus::Running));
    }
}
