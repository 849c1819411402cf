//! Seating a planned table: the table is created private (only the scheduler seats it),
//! every seat is taken for its entrant with a fresh seat token in one change (one
//! commit), and each token is handed to the entrant's lobby.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::{Instant, SystemTime};

use skat_engine::MatchConfig;
use skat_engine::matches::Seat;
use skat_league::{AccountId, BotName, PlannedTable};

use super::scheduler::Scheduler;
use super::{CompetitionError, SeatKey};
use skat_store::tournaments::Tournament;
use skat_table::secret::SeatToken;
use skat_table::settings::deals_or_standard;
use skat_table::{Table, TableConfig, TableError, TableId};

impl Scheduler {
    /// Seats the planned tables `picks` of `plan` together (their commits group); returns
    /// those that were seated, with their table ids. One that fails is tried again on the
    /// scheduler's next pass.
    pub(super) async fn seat_tables(
        self: &Arc<Self>,
        t: &Tournament,
        plan: &[PlannedTable],
        picks: Vec<(usize, TableId)>,
        names: &Arc<HashMap<AccountId, BotName>>,
    ) -> Vec<(usize, String)> {
        let mut seating = tokio::task::JoinSet::new();
        for (i, id) in picks {
            let (me, t, p, names) = (Arc::clone(self), t.clone(), plan[i].clone(), Arc::clone(names));
            seating.spawn(async move {
                let seated = me.seat_table(&t, &p, &names, id.clone()).await;
                if seated.is_err() {
                    // Its places (a hosted tournament's) go back to the queue.
                    me.ctx.places.release_table(&id);
                }
                (i, seated)
            });
        }
        let mut seated = Vec::new();
        while let Some(done) = seating.join_next().await {
            match done {
                Ok((i, Ok(table_id))) => seated.push((i, table_id)),
                Ok((_, Err(e))) => {
                    tracing::warn!(tournament = %t.tournament_id, error = %e, "could not open a tournament table; retrying")
                }
                Err(e) => {
                    tracing::error!(tournament = %t.tournament_id, error = %e, "seating a table failed")
                }
            }
        }
        seated
    }

    /// Creates a planned table `id` (private: only the scheduler seats it), takes every
    /// seat for its entrant and tells their lobbies.
    async fn seat_table(
        &self,
        t: &Tournament,
        p: &PlannedTable,
        names: &HashMap<AccountId, BotName>,
        id: TableId,
    ) -> Result<String, CompetitionError> {
        let code = SeatToken::generate()?;
        let config = TableConfig {
            name: format!("{} #{}", t.name, p.index + 1),
            game: MatchConfig {
                seats: t.spec.seats,
                deals: deals_or_standard(t.spec.seats, t.spec.deals),
                seed: p.seed,
            },
            action_ms: t.spec.action_ms,
            deal_ms: t.spec.deal_ms,
            between_deals_ms: 0,
            join_code: Some(code.hash()),
            max_joins: self.ctx.config.max_joins_per_table,
            tournament: true,
        };
        let table =
            Table::new(id.clone(), config, Instant::now(), SystemTime::now()).map_err(TableError::from)?;
        let handle = self
            .ctx
            .tables
            .insert(table, usize::MAX, None, self.ctx.metrics.tables(), &self.ctx.journal)
            .ok_or(CompetitionError::ServerFull { max: self.ctx.config.max_tables })?;
        let tokens = p.seating.iter().map(|_| SeatToken::generate()).collect::<Result<Vec<_>, _>>()?;
        // The table and its seats in one change: one commit.
        handle
            .mutate(&self.ctx.journal, self.ctx.metrics.tables(), |tb| -> Result<(), TableError> {
                for (seat, (account, token)) in p.seating.iter().zip(&tokens).enumerate() {
                    let name = names.get(account).map_or(account.as_str(), BotName::as_str);
                    tb.join(name, Some(Seat::new(seat as u8)), code.reveal(), token.hash(), Instant::now())?;
                }
                Ok(())
            })
            .await??;
        let tokens: Vec<String> = tokens.iter().map(|t| t.reveal().to_string()).collect();
        self.ctx.lobbies.hold_seats(&id, Some(&t.tournament_id), &p.seating, Some(&tokens));
        for (seat, (account, token)) in p.seating.iter().zip(&tokens).enumerate() {
            let key = SeatKey { table: id.clone(), seat: Seat::new(seat as u8) };
            self.ctx.hand_out(account, &key, token, Some(&t.tournament_id));
        }
        self.ctx.metrics.tables().tables_held(self.ctx.tables.len());
        Ok(id.to_string())
    }
}
