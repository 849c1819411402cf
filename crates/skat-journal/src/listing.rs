//! Table listings, newest first: from the database (every replica's tables) when there
//! is one, else from this server's memory, with the same filter, order and pages.

use std::sync::Arc;

use super::{Journal, table_row};
use skat_store::{Cursor, ListFilter, RowStatus, StoreError, TableRow};
use skat_table::Tables;

impl Journal {
    /// A page of at most `limit` tables after `cursor`, newest first.
    pub async fn list(
        &self,
        tables: &Arc<Tables>,
        filter: ListFilter,
        cursor: Option<&Cursor>,
        limit: usize,
    ) -> Result<Vec<TableRow>, StoreError> {
        if let Some(store) = self.store() {
            return store.tables.list(filter, cursor, limit).await;
        }
        let mut rows: Vec<TableRow> = tables
            .all()
            .iter()
            .map(|h| table_row(&h.lock(), self.owner()))
            .filter(|r| match filter {
                ListFilter::All => true,
                ListFilter::Live => !r.status.ended(),
                ListFilter::Finished => r.status == RowStatus::Finished,
            })
            .filter(|r| cursor.is_none_or(|c| (r.created_ms, &r.table_id) < (c.created_ms, &c.table_id)))
            .collect();
        rows.sort_by(|a, b| (b.created_ms, &b.table_id).cmp(&(a.created_ms, &a.table_id)));
        rows.truncate(limit);
        Ok(rows)
    }
}
