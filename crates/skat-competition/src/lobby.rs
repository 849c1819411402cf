//! Lobbies: an account's open streams, through which it is handed its seats.
//!
//! | rule | why |
//! |---|---|
//! | a lobby first gets every seat its account holds now, then every new one | a bot that reconnects finds its tables again |
//! | a seat whose token this process no longer has is re-keyed (a journaled `Rekeyed` input) | the server keeps no token, only its hash: after a restart the old token is unknown, and stops working |
//! | a lobby's channel has room for every seat held plus 64 | no seat handed out is dropped |
//! | with replicas, a lobby also hears of its seats on other replicas (without a token; the bot asks there) | the owner hands out the token |
//! | at most `--account-max-lobbies` open per account | one account cannot hold the server's streams |
//! | challenges only to lobbies that ask for them (`LobbyRequest.challenges`) | an older bot sees no message it does not know |

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use skat_engine::matches::Seat;
use skat_league::{AccountId, TournamentId};
use tokio::sync::mpsc;

use super::places::Size;
use super::{CompetitionError, Ctx, SeatKey, lock};
use crate::PeopleTables;
use skat_store::accounts::Account;
use skat_table::TableId;
use skat_table::secret::SeatToken;

/// How often a lobby looks for its account's seats at tables on other replicas.
const REMOTE_SEATS_POLL: Duration = Duration::from_secs(2);

/// A seat handed to an account's lobby.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SeatOffer {
    /// The table.
    pub table_id: String,
    /// The seat.
    pub seat: u32,
    /// Its token (empty for a seat on another replica: ask there).
    pub seat_token: String,
    /// The replica that owns the table, when replicas run.
    pub owner_address: String,
    /// The tournament (none: a person's table that invited the bot).
    pub tournament_id: Option<TournamentId>,
}

/// What a lobby stream carries.
#[derive(Debug, Clone)]
pub enum LobbyNote {
    /// A seat to play.
    Seat(SeatOffer),
    /// A challenge offered to the account (to lobbies that asked for them).
    Challenge(Box<super::challenges::ChallengeView>),
}

/// What a lobby asks for (`LobbyRequest`).
#[derive(Debug, Clone, Copy)]
pub struct LobbyWish {
    /// Most tables it asks for (0: no limit of its own).
    pub max_tables: u32,
    /// A casual table size to queue for (0: none).
    pub casual_seats: u32,
    /// Whether it is shown challenges.
    pub challenges: bool,
    /// Who may seat this bot at their tables (`Anyone` for a bot's own lobby that asks
    /// for it; a hosted account's, as the operator set it).
    pub open_tables: PeopleTables,
    /// A hosted account's lobby (the runners' feed opened it): its seats' sandbox size,
    /// each needing a place on the runners.
    pub hosted: Option<Size>,
}

/// An open lobby stream.
#[derive(Debug)]
struct Lobby {
    tx: mpsc::Sender<LobbyNote>,
    /// Most tables it asked for (0: no limit of its own).
    max_tables: u32,
    /// Casual seats it asked for (0: none).
    casual_seats: u32,
    /// Whether it is shown challenges.
    challenges: bool,
    /// Who may seat its account at their tables.
    open_tables: PeopleTables,
    /// Its seats' sandbox size, when the account is hosted.
    hosted: Option<Size>,
}

/// A seat handed to an account: where, and its token while this process has it.
#[derive(Debug, Clone)]
struct Assignment {
    account_id: AccountId,
    tournament_id: Option<TournamentId>,
    token: Option<String>,
}

/// The open lobbies of every account, and the seats handed to accounts at unfinished
/// tournament tables of this replica.
#[derive(Debug, Default)]
pub struct Lobbies {
    open: Mutex<HashMap<AccountId, Vec<Lobby>>>,
    seats: Mutex<HashMap<SeatKey, Assignment>>,
}

impl Lobbies {
    /// Notes the seats of a table as its entrants' (`tokens`: their seat tokens, in
    /// seat order; `None` after a restart: the tokens are gone).
    pub fn hold_seats(
        &self,
        table: &TableId,
        tournament_id: Option<&TournamentId>,
        seating: &[AccountId],
        tokens: Option<&[String]>,
    ) {
        let mut seats = lock(&self.seats);
        for (seat, account) in seating.iter().enumerate() {
            seats.insert(
                SeatKey { table: table.clone(), seat: Seat::new(seat as u8) },
                Assignment {
                    account_id: account.clone(),
                    tournament_id: tournament_id.cloned(),
                    token: tokens.and_then(|t| t.get(seat).cloned()),
                },
            );
        }
    }

    /// Notes one seat of a person's table as an account's (with its token).
    pub fn hold_seat(&self, key: &SeatKey, account: &AccountId, token: &str) {
        lock(&self.seats).insert(
            key.clone(),
            Assignment { account_id: account.clone(), tournament_id: None, token: Some(token.to_string()) },
        );
    }

    /// Forgets one seat.
    pub fn release_seat(&self, key: &SeatKey) {
        lock(&self.seats).remove(key);
    }

    /// Forgets the seats of a finished table.
    pub fn release_seats(&self, table: &TableId, seats: usize) {
        let mut held = lock(&self.seats);
        for seat in 0..seats {
            held.remove(&SeatKey { table: table.clone(), seat: Seat::new(seat as u8) });
        }
    }

    /// Ends every open lobby of an account (its bots reconnect and are checked again).
    pub fn close_all(&self, account: &AccountId) {
        lock(&self.open).remove(account);
    }

    /// The lowest `max_tables` an account's open lobbies asked for (0: none asked).
    pub fn cap(&self, account: &AccountId) -> u32 {
        let mut open = lock(&self.open);
        let Some(streams) = open.get_mut(account) else { return 0 };
        streams.retain(|l| !l.tx.is_closed());
        streams.iter().map(|l| l.max_tables).filter(|m| *m > 0).min().unwrap_or(0)
    }

    /// Whether an account has an open lobby that asked for casual tables of `seats`.
    pub fn wants_casual(&self, account: &AccountId, seats: u32) -> bool {
        lock(&self.open)
            .get(account)
            .is_some_and(|open| open.iter().any(|l| !l.tx.is_closed() && l.casual_seats == seats))
    }

    /// Whether an account has an open lobby that offered it to people's tables.
    pub fn open_for_tables(&self, account: &AccountId, by_operator: bool) -> bool {
        let admits = |to: PeopleTables| match to {
            PeopleTables::Anyone => true,
            PeopleTables::Operator => by_operator,
            PeopleTables::None => false,
        };
        lock(&self.open)
            .get(account)
            .is_some_and(|open| open.iter().any(|l| !l.tx.is_closed() && admits(l.open_tables)))
    }

    /// The sandbox size of an account's seats, when a hosted lobby (the runners' feed's)
    /// is open for it.
    pub fn hosted_size(&self, account: &AccountId) -> Option<Size> {
        lock(&self.open).get(account)?.iter().filter(|l| !l.tx.is_closed()).find_map(|l| l.hosted)
    }

    /// How many lobbies an account has open now.
    pub fn count(&self, account: &AccountId) -> usize {
        lock(&self.open).get(account).map_or(0, |open| open.iter().filter(|l| !l.tx.is_closed()).count())
    }

    /// Open lobbies per account.
    pub fn open_counts(&self) -> HashMap<AccountId, usize> {
        lock(&self.open)
            .iter()
            .map(|(a, open)| (a.clone(), open.iter().filter(|l| !l.tx.is_closed()).count()))
            .filter(|(_, n)| *n > 0)
            .collect()
    }

    /// Tables at which each account holds a seat on this replica.
    pub fn seat_counts(&self) -> HashMap<AccountId, usize> {
        let mut tables: HashMap<AccountId, HashSet<TableId>> = HashMap::new();
        for (key, a) in lock(&self.seats).iter() {
            tables.entry(a.account_id.clone()).or_default().insert(key.table.clone());
        }
        tables.into_iter().map(|(a, t)| (a, t.len())).collect()
    }

    /// Whether an account has a lobby open now.
    pub fn is_open(&self, account: &AccountId) -> bool {
        lock(&self.open).get(account).is_some_and(|open| open.iter().any(|l| !l.tx.is_closed()))
    }

    /// Tells every open lobby of `account` of a seat.
    fn notify(&self, account: &AccountId, offer: SeatOffer) {
        let mut open = lock(&self.open);
        if let Some(streams) = open.get_mut(account) {
            streams.retain(|l| !l.tx.is_closed());
            for l in streams.iter() {
                let _ = l.tx.try_send(LobbyNote::Seat(offer.clone()));
            }
        }
    }

    /// Tells the lobbies of `account` that asked for challenges of one offered to it (a
    /// full channel drops it: the bot finds it with ListChallenges).
    pub fn offer_challenge(&self, account: &AccountId, challenge: &super::challenges::ChallengeView) {
        let mut open = lock(&self.open);
        if let Some(streams) = open.get_mut(account) {
            streams.retain(|l| !l.tx.is_closed());
            for l in streams.iter().filter(|l| l.challenges) {
                let _ = l.tx.try_send(LobbyNote::Challenge(Box::new(challenge.clone())));
            }
        }
    }

    /// The seats an account holds now.
    /// The seats of `table` held without a token (after a restart or a takeover).
    fn without_token(&self, table: &TableId) -> Vec<(SeatKey, Assignment)> {
        lock(&self.seats)
            .iter()
            .filter(|(k, a)| &k.table == table && a.token.is_none())
            .map(|(k, a)| (k.clone(), a.clone()))
            .collect()
    }

    fn held_by(&self, account: &AccountId) -> Vec<(SeatKey, Assignment)> {
        lock(&self.seats)
            .iter()
            .filter(|(_, a)| &a.account_id == account)
            .map(|(k, a)| (k.clone(), a.clone()))
            .collect()
    }
}

/// An account's lobbies and the seats handed to them: opening a lobby, handing out the
/// seats of a table taken over, a seat whose token was lost re-keyed, bots seated at
/// people's tables (`people`).
#[derive(Debug)]
pub struct Seats {
    pub(super) ctx: Ctx,
}

/// Handing a seat out: what the scheduler, the lobbies and people's tables share.
impl Ctx {
    fn offer(&self, key: &SeatKey, token: &str, tournament_id: Option<&TournamentId>) -> SeatOffer {
        let owner_address =
            self.config.node_id.as_deref().and_then(|n| self.config.peer_address(n)).unwrap_or_default();
        SeatOffer {
            table_id: key.table.to_string(),
            seat: u32::from(key.seat),
            seat_token: token.to_string(),
            owner_address,
            tournament_id: tournament_id.cloned(),
        }
    }

    /// Hands a seat to its account's open lobbies.
    pub fn hand_out(
        &self,
        account: &AccountId,
        key: &SeatKey,
        token: &str,
        tournament_id: Option<&TournamentId>,
    ) {
        self.lobbies.notify(account, self.offer(key, token, tournament_id));
    }
}

impl Seats {
    /// Whether `account` may open one more lobby (at most `--account-max-lobbies`, and
    /// a casual table size of 3 or 4 seats or none).
    pub fn check_open(&self, account: &Account, casual_seats: u32) -> Result<(), CompetitionError> {
        if !matches!(casual_seats, 0 | 3 | 4) {
            return Err(CompetitionError::CasualSeats(casual_seats));
        }
        let most = self.ctx.config.account_max_lobbies;
        let mut open = lock(&self.ctx.lobbies.open);
        let streams = open.entry(account.account_id.clone()).or_default();
        streams.retain(|l| !l.tx.is_closed());
        if streams.len() >= most {
            return Err(CompetitionError::LobbyLimit(most));
        }
        Ok(())
    }

    /// Opens an account's lobby: the challenges `offered` to it, the seats it holds now,
    /// then every new one (see [`Competitions::open_lobby`](super::Competitions::open_lobby),
    /// which checks first and queues for casual play after).
    pub async fn open_lobby(
        self: &Arc<Self>,
        account: &Account,
        wish: LobbyWish,
        offered: Vec<super::challenges::ChallengeView>,
    ) -> mpsc::Receiver<LobbyNote> {
        let held = self.ctx.lobbies.held_by(&account.account_id);
        // Room for every seat held and challenge waiting now, and the next ones.
        let (tx, rx) = mpsc::channel(held.len() + offered.len() + 64);
        for c in offered {
            let _ = tx.try_send(LobbyNote::Challenge(Box::new(c)));
        }
        for (key, a) in held {
            let token = match a.token {
                Some(t) => t,
                None => match self.rekey(&key).await {
                    Some(t) => t,
                    None => continue,
                },
            };
            let _ = tx.try_send(LobbyNote::Seat(self.ctx.offer(&key, &token, a.tournament_id.as_ref())));
        }
        if self.ctx.config.node_id.is_some() {
            self.follow_remote_seats(&account.account_id, tx.clone());
        }
        let LobbyWish { max_tables, casual_seats, challenges, open_tables, hosted } = wish;
        lock(&self.ctx.lobbies.open).entry(account.account_id.clone()).or_default().push(Lobby {
            tx,
            max_tables,
            casual_seats,
            challenges,
            open_tables,
            hosted,
        });
        rx
    }

    /// Ends every open lobby of an account (it became hosted: its seats go to the
    /// runner's feed, which opens a lobby of its own).
    pub fn close_lobbies(&self, account: &AccountId) {
        self.ctx.lobbies.close_all(account);
    }

    /// With replicas: tells a lobby of its account's seats at tables on other replicas
    /// (no token: this replica has none; the bot opens a lobby at the owner's address,
    /// which hands the seat out with its token).
    fn follow_remote_seats(self: &Arc<Self>, account_id: &AccountId, tx: mpsc::Sender<LobbyNote>) {
        let me = Arc::clone(self);
        let account_id = account_id.clone();
        self.ctx.tasks.spawn(async move {
            let mut told = HashSet::new();
            while !tx.is_closed() {
                if let Some(store) = me.ctx.journal.store()
                    && let Ok(playing) = store.tournaments.playing_tables().await
                {
                    for p in playing {
                        let Ok(id) = p.planned.table_id.parse::<TableId>() else { continue };
                        let Some(node) = me.ctx.owner_elsewhere(&p, &id) else { continue };
                        for (seat, a) in p.planned.seating.iter().enumerate() {
                            // Told again when the owner changes (a takeover).
                            if *a == account_id
                                && told.insert((p.planned.table_id.clone(), seat, node.to_string()))
                            {
                                let _ = tx.try_send(LobbyNote::Seat(SeatOffer {
                                    table_id: p.planned.table_id.clone(),
                                    seat: seat as u32,
                                    seat_token: String::new(),
                                    owner_address: me.ctx.config.peer_address(node).unwrap_or_default(),
                                    tournament_id: Some(p.tournament_id.clone()),
                                }));
                            }
                        }
                    }
                }
                tokio::select! {
                    _ = tokio::time::sleep(REMOTE_SEATS_POLL) => {}
                    _ = tx.closed() => return,
                }
            }
        });
    }

    /// Hands the seats of a table this replica took over to their accounts' lobbies that
    /// are open here already (with new tokens: this replica never had the old ones, and
    /// a bot that had one may never have received it). A lobby opened later is handed
    /// them as after a restart.
    pub async fn offer_taken_over(&self, table: &TableId) {
        let open = self.ctx.lobbies.open_counts();
        for (key, a) in self.ctx.lobbies.without_token(table) {
            if !open.contains_key(&a.account_id) {
                continue;
            }
            if let Some(token) = self.rekey(&key).await {
                self.ctx.hand_out(&a.account_id, &key, &token, a.tournament_id.as_ref());
            }
        }
    }

    /// A new token for a seat whose token this process no longer has.
    async fn rekey(&self, key: &SeatKey) -> Option<String> {
        let handle = self.ctx.tables.get(&key.table)?;
        let token = SeatToken::generate().ok()?;
        let hash = token.hash();
        handle
            .mutate(&self.ctx.journal, self.ctx.metrics.tables(), |t| t.rekey(key.seat, hash, Instant::now()))
            .await
            .ok()?
            .ok()?;
        if let Some(a) = lock(&self.ctx.lobbies.seats).get_mut(key) {
            a.token = Some(token.reveal().to_string());
        }
        Some(token.reveal().to_string())
    }
}
