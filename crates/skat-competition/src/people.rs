//! People's tables: a table created with `bots` seats those bot accounts at once, through
//! their lobbies, so that a person (the page, any client) plays a list against them.
//!
//! | rule | why |
//! |---|---|
//! | only accounts whose lobby offers itself to people's tables (`open_tables`), under their quota (a house bot named twice plays two seats, each counted, the second named `NAME (2)`; any other bot once) | a bot plays strangers' tables only when its author says so, and never more tables than it may; a person may play two house bots of one level, but no stranger's bot sees two hands |
//! | a hosted account only at the tables `--hosting-people-tables` allows (the operator's, by default), and only when the runners have a place for each of its seats, which the table then holds | each of its seats starts a sandbox on the operator's machine, and no sandbox overcommits a core |
//! | every bot's seat taken in one change, with a fresh seat token each, handed to its lobby | as a tournament seats its entrants: one commit, tokens never stored |
//! | the seats are released when the table ends | the account's count of tables at once stays true |
//! | not a tournament: not rated, no standings beyond the table's | a person's game is play, not a competition result |

use std::sync::Arc;
use std::time::Instant;

use skat_engine::matches::Seat;
use skat_league::AccountId;

use super::error::shown;
use super::lobby::Seats;
use super::places::Size;
use super::{CompetitionError, SeatKey};
use skat_table::secret::SeatToken;
use skat_table::{TableError, TableHandle, TableId};

/// A bot account that can be seated at a person's table now.
#[derive(Debug, Clone)]
pub struct Invited {
    account: AccountId,
    name: String,
    /// A hosted account's sandbox size: its seat holds a place on the runners.
    hosted: Option<Size>,
}

impl Seats {
    /// Checks that every named account exists and offers itself to people's tables now
    /// (to this caller: `by_operator` with the operator's token), under its quota (before
    /// the table is made).
    pub async fn bots_for_table(
        &self,
        names: &[String],
        by_operator: bool,
    ) -> Result<Vec<Invited>, CompetitionError> {
        // A house bot named twice plays two seats (the server's own code, each seat on its
        // own); any other bot would see two hands.
        let key = |n: &String| skat_league::primary_key(n);
        let twice = names.iter().enumerate().find(|(i, n)| names[..*i].iter().any(|m| key(m) == key(n)));
        if let Some((_, n)) = twice.filter(|(_, n)| !super::accounts::reserved(n)) {
            return Err(CompetitionError::Twice(shown(n)));
        }
        let store = self.ctx.store()?;
        let playing = self.ctx.lobbies.seat_counts();
        let mut out: Vec<Invited> = Vec::new();
        let mut sandboxes: Vec<Size> = Vec::new();
        for n in names {
            let a = store
                .accounts
                .account_by_name(n)
                .await?
                .ok_or_else(|| CompetitionError::UnknownEntrant(shown(n)))?;
            // Its seats here so far count too: a house bot named twice plays two seats.
            let here = out.iter().filter(|i| i.account == a.account_id).count();
            let at = playing.get(&a.account_id).copied().unwrap_or(0) + here;
            let cap = match self.ctx.lobbies.cap(&a.account_id) {
                0 => a.max_tables,
                c => c.min(a.max_tables),
            } as usize;
            if a.disabled || !self.ctx.lobbies.open_for_tables(&a.account_id, by_operator) || at >= cap {
                return Err(CompetitionError::BotUnavailable(a.name.to_string()));
            }
            let hosted = self.ctx.lobbies.hosted_size(&a.account_id);
            sandboxes.extend(hosted);
            if hosted.is_some_and(|size| !self.ctx.places.would_fit(sandboxes.len(), size)) {
                return Err(CompetitionError::NoPlace(a.name.to_string()));
            }
            let name = if here == 0 { a.name.to_string() } else { format!("{} ({})", a.name, here + 1) };
            out.push(Invited { account: a.account_id, name, hosted });
        }
        Ok(out)
    }

    /// Seats the invited bots at the lowest free seats of a new table, in one change, and
    /// hands each seat to its account's lobby; releases the seats when the table ends.
    pub async fn seat_bots(
        self: &Arc<Self>,
        handle: &Arc<TableHandle>,
        id: &TableId,
        join_code: &str,
        bots: Vec<Invited>,
    ) -> Result<(), CompetitionError> {
        let tokens = bots.iter().map(|_| SeatToken::generate()).collect::<Result<Vec<_>, _>>()?;
        let seats = handle
            .mutate(&self.ctx.journal, self.ctx.metrics.tables(), |t| -> Result<Vec<Seat>, TableError> {
                let mut seats = Vec::new();
                for (bot, token) in bots.iter().zip(&tokens) {
                    seats.push(t.join(&bot.name, None, join_code, token.hash(), Instant::now())?);
                }
                Ok(seats)
            })
            .await??;
        let mut seating: Vec<AccountId> = Vec::new();
        for (bot, seat) in bots.iter().zip(&seats) {
            // Its place, held from now (taken by another table meanwhile: it waits for one).
            if let Some(size) = bot.hosted {
                self.ctx.places.admit(&[SeatKey { table: id.clone(), seat: *seat }], size);
            }
        }
        for (bot, (seat, token)) in bots.iter().zip(seats.iter().zip(&tokens)) {
            let key = SeatKey { table: id.clone(), seat: *seat };
            // Held one seat at a time: the seat numbers are the table's, not 0, 1, 2.
            self.ctx.lobbies.hold_seat(&key, &bot.account, token.reveal());
            self.ctx.hand_out(&bot.account, &key, token.reveal(), None);
            seating.push(bot.account.clone());
            tracing::info!(table = %id, seat = %seat, bot = %bot.name, "bot seated at a person's table");
        }
        let me = Arc::clone(self);
        let (handle, id) = (Arc::clone(handle), id.clone());
        self.ctx.tasks.spawn(async move {
            loop {
                let published = handle.published();
                if handle.lock().is_finished() || handle.is_closed() {
                    break;
                }
                handle.changed(published).await;
            }
            for seat in &seats {
                me.ctx.lobbies.release_seat(&SeatKey { table: id.clone(), seat: *seat });
            }
            me.ctx.places.release_table(&id);
        });
        Ok(())
    }
}
