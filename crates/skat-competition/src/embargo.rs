//! Duplicate's hidden information: a tournament list is played in every seat rotation on
//! the same deals, so the cards one table shows (a trick, a finished deal's hands, its
//! record) are the cards another table's seats still hold. Spectators of a tournament
//! table wait until every table of its list has finished.
//!
//! | rule | why |
//! |---|---|
//! | GetTable and WatchTable without a seat token, and GetRecords, of a tournament table are refused (`EMBARGOED`) while a table of the same tournament and seed is pending or playing | a bot (or its author watching) could read its own deals at a table that played them first |
//! | the seats of a table see it as always | their own cards are theirs |
//! | once lifted, a table stays open (cached here, at most [`MAX_LIFTED`] ids, then the cache starts again) | a finished list never closes again; the cache only saves a query |
//! | a cancelled tournament's tables are abandoned, which lifts the embargo | nothing of them counts any more |
//! | private hand-made tables are checked too (one indexed query); public ones never | a table made before tables carried the tournament mark is still covered |
//!
//! Not embargoed: the listing's seat names and Seeger-Fabian totals per table and the
//! tournament's standings, which sum whole lists (see docs/competitions.md).

use std::collections::HashSet;
use std::sync::Mutex;

use super::{CompetitionError, Ctx, lock};

/// The most table ids remembered as lifted.
pub const MAX_LIFTED: usize = 100_000;

/// The tables whose embargo has been lifted.
#[derive(Debug)]
pub struct Embargo {
    pub(super) ctx: Ctx,
    lifted: Mutex<HashSet<String>>,
}

impl Embargo {
    pub(super) fn new(ctx: Ctx) -> Embargo {
        Embargo { ctx, lifted: Mutex::default() }
    }

    /// Refuses a spectator's read of `table_id` while its list is still being played
    /// elsewhere; `marked` says the table carries the tournament mark or is private.
    pub async fn check_embargo(&self, table_id: &str, marked: bool) -> Result<(), CompetitionError> {
        if !marked {
            return Ok(());
        }
        let Ok(store) = self.ctx.store() else { return Ok(()) };
        if lock(&self.lifted).contains(table_id) {
            return Ok(());
        }
        if store.tournaments.under_embargo(table_id).await? {
            return Err(CompetitionError::Embargoed);
        }
        let mut lifted = lock(&self.lifted);
        if lifted.len() >= MAX_LIFTED {
            lifted.clear();
        }
        lifted.insert(table_id.to_string());
        Ok(())
    }
}
