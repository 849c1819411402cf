//! A table as the database keeps it: its inputs as [`StoredEntry`] rows (JSON with a
//! checksum) and its listing as a [`TableRow`]. The store knows rows, not tables; the
//! table knows nothing of rows: this is where one becomes the other.

use skat_store::{RowStatus, StoredEntry, TableRow};
use skat_table::{JournalEntry, Status, Table};

/// An input as a database row.
pub fn stored(table_id: &str, entry: JournalEntry) -> StoredEntry {
    let body = serde_json::to_string(&entry.input).unwrap_or_default();
    StoredEntry::new(table_id.to_string(), entry.n, entry.at_ms, body)
}

/// A table's listing row as it is now.
pub fn table_row(table: &Table, owner: &str) -> TableRow {
    let listing = table.listing();
    TableRow {
        table_id: table.id().to_string(),
        owner: owner.to_string(),
        name: table.config().name.clone(),
        seats: table.config().game.seats,
        deals: table.config().game.deals,
        private: table.config().join_code.is_some(),
        status: match listing.status {
            Status::Waiting => RowStatus::Waiting,
            Status::Playing => RowStatus::Playing,
            Status::Finished => RowStatus::Finished,
        },
        occupied: listing.occupied,
        deals_played: listing.deals_played,
        players: listing.players,
        scores: listing.scores,
        created_ms: table.created_ms(),
        finished_ms: listing.finished_ms,
    }
}
