//! Why a competition call is refused: one enum for accounts, lobbies, tournaments and
//! their read models, mapped to status codes and reasons once, in the rpc room
//! (`rpc/refusal.rs`).

use skat_league::NameError;

use skat_store::StoreError;
use skat_table::secret::NoRandomness;
use skat_table::settings::SettingsError;
use skat_table::{ChangeError, TableError};

/// A refused competition call.
#[derive(Debug, thiserror::Error)]
pub enum CompetitionError {
    /// The server runs without a database (`--database memory`).
    #[error("accounts, lobbies and tournaments need a database: this server runs with --database memory")]
    NoDatabase,
    /// The database failed (logged where it is mapped; the client is told to retry).
    #[error("the server's database is not answering; retry")]
    Storage(#[from] StoreError),
    /// The operating system gave no random bytes.
    #[error("no randomness")]
    NoRandomness(#[from] NoRandomness),
    /// The call needs the admin token, and it was missing or wrong.
    #[error("this call needs `authorization: Bearer <admin token>` (skat serve --admin-token)")]
    AdminRequired,
    /// The call needs the admin token, and the server has none.
    #[error("this server has no admin token (skat serve --admin-token): nobody may do this")]
    NoAdminToken,
    /// A house bot's name (`house-...`) asked for without the admin token.
    #[error(
        "`{0}`: names beginning with `house-` are the operator's house bots; registering one needs the admin token"
    )]
    HouseName(String),
    /// A name that is not allowed.
    #[error("{0}")]
    Name(#[from] NameError),
    /// A name for a table or a player at one that passes for someone else: a house bot
    /// (`house-...`) or a bot account.
    #[error("{}", match account { Some(a) if a == name => format!("`{name}` is the name of a bot account: an account plays under its name through its lobby; choose another name"), Some(a) => format!("`{name}` looks like `{a}`, the name of a bot account; choose another name"), None => format!("`{name}` passes for one of the operator's house bots (`house-...`); choose another name") })]
    PassesFor {
        /// Which name: `player` or `table`.
        field: &'static str,
        /// The name asked for.
        name: String,
        /// The account it passes for; none: the house.
        account: Option<String>,
    },
    /// The name, or a look-alike of it, is (or was) another account's.
    #[error("{}", if name == existing { format!("an account named `{name}` exists") } else { format!("`{name}` is taken: it looks like `{existing}`, the name of an account (names are unique after case folding and look-alike letters)") })]
    AccountExists {
        /// The name asked for.
        name: String,
        /// The name it is the same as.
        existing: String,
    },
    /// An owner contact that is too long or holds control characters.
    #[error("an owner contact has at most {0} characters and no control characters")]
    Owner(usize),
    /// The tournament's status does not allow this change.
    #[error("{what}: the tournament is {status}")]
    TournamentState {
        /// What was asked.
        what: &'static str,
        /// Its status.
        status: &'static str,
    },
    /// Tournament settings the server cannot honour.
    #[error("{message}")]
    InvalidTournament {
        /// Which setting.
        field: &'static str,
        /// The bound it passed, if one.
        max: Option<u64>,
        /// Why, in words.
        message: String,
    },
    /// A spectator's read of a tournament table whose list is still being played.
    #[error(
        "this tournament table is shown to spectators once every table of its list (the same deals in other seat rotations) has finished"
    )]
    Embargoed,
    /// An entrant whose account is disabled or removed.
    #[error("`{0}` is disabled: enable it first (skat admin enable)")]
    EntrantDisabled(String),
    /// A quota outside 1 to 1000.
    #[error("an account's quota is 1 to 1000 tables at once")]
    Quota,
    /// No account of that name (UpdateBot).
    #[error("no account named `{0}`")]
    NoSuchAccount(String),
    /// The bot token is missing or names no account.
    #[error("this call needs `authorization: Bearer <bot token>` of an account")]
    BotTokenInvalid,
    /// The account is disabled.
    #[error("this account is disabled")]
    AccountDisabled,
    /// Casual tables of a size that does not exist.
    #[error("casual tables have 3 or 4 seats, not {0}")]
    CasualSeats(u32),
    /// The account has as many lobbies open as it may.
    #[error("this account has {0} lobby streams open already")]
    LobbyLimit(usize),
    /// An entrant of a new tournament names no account.
    #[error("no account named `{0}`")]
    UnknownEntrant(String),
    /// Fewer different entrants than seats.
    #[error("a tournament at {0} seats needs at least {0} different entrants")]
    TooFewEntrants(u8),
    /// Casual meetings come from matchmaking only.
    #[error("casual meetings are made by the lobby's matchmaking, not created")]
    CasualNotCreatable,
    /// Table settings that cannot be played.
    #[error("{0}")]
    Settings(#[from] SettingsError),
    /// No such tournament.
    #[error("no tournament `{0}`")]
    TournamentNotFound(String),
    /// No such bot.
    #[error("no bot named `{0}`")]
    BotNotFound(String),
    /// A table of the tournament refused (seating it).
    #[error(transparent)]
    Table(#[from] TableError),
    /// A change could not be made durable.
    #[error(transparent)]
    Change(#[from] ChangeError),
    /// No such challenge, or not one offered to this account.
    #[error("no challenge `{0}` offered to this account")]
    ChallengeNotFound(String),
    /// The challenge cannot be answered any more.
    #[error("the challenge is {0}: it cannot be answered now")]
    ChallengeState(&'static str),
    /// The account made as many challenges this hour as it may.
    #[error("this account made {0} challenges in the last hour, as many as it may")]
    ChallengeQuota(usize),
    /// A bot that cannot be seated at a person's table now.
    #[error("`{0}` does not play people's tables now (no lobby offering it, or at its quota of tables)")]
    BotUnavailable(String),
    /// A bot other than a house bot named twice for one table: one process at two seats
    /// would see two hands.
    #[error(
        "`{0}` is named twice: only a house bot plays two seats of one table (any other bot would see both hands)"
    )]
    Twice(String),
    /// A hosted bot whose sandbox no runner has room for now.
    #[error("no runner has room for `{0}`'s sandbox now (the runners' places are taken): try again later")]
    NoPlace(String),
    /// The server holds its limit of tables.
    #[error("the server is full")]
    ServerFull {
        /// `--max-tables`.
        max: usize,
    },
}

/// Text from a client, cut for an error message (it may be long or odd).
pub fn shown(text: &str) -> String {
    text.chars().take(64).collect()
}
