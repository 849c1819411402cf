//! Finished tables' analyses (`skat_analyses`): AnalyzeTable's cache, one row per table
//! and settings, written once by an analysis worker and deleted with its table.

use sqlx::Row as _;

use super::{Db, StoreError, to_i64, to_u64};

/// A table's analysis as stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredAnalysis {
    /// One JSON object per deal.
    pub deals: Vec<String>,
    /// JSON: the players' accuracy.
    pub summary: String,
    /// Worlds per card.
    pub worlds: u32,
    /// When it was computed (Unix milliseconds).
    pub computed_ms: u64,
    /// How long it took (milliseconds).
    pub took_ms: u64,
}

/// Finished tables' analyses, AnalyzeTable's cache.
#[derive(Debug, Clone)]
pub struct AnalysisRepo {
    pub(super) db: Db,
}

impl AnalysisRepo {
    /// The analysis of `table_id` made with `settings`, if any.
    pub async fn analysis(
        &self,
        table_id: &str,
        settings: &str,
    ) -> Result<Option<StoredAnalysis>, StoreError> {
        let row = sqlx::query(
            "SELECT deals, summary, worlds, computed_ms, took_ms FROM skat_analyses WHERE table_id = $1 AND settings = $2",
        )
        .bind(table_id)
        .bind(settings)
        .fetch_optional(&self.db.pool)
        .await?;
        let Some(r) = row else { return Ok(None) };
        let deals: String = r.try_get("deals")?;
        Ok(Some(StoredAnalysis {
            // Written by `put_analysis` below: an array of strings.
            deals: serde_json::from_str(&deals).map_err(|e| StoreError::Corrupt(e.to_string()))?,
            summary: r.try_get("summary")?,
            worlds: u32::try_from(to_u64(r.try_get("worlds")?)).unwrap_or(0),
            computed_ms: to_u64(r.try_get("computed_ms")?),
            took_ms: to_u64(r.try_get("took_ms")?),
        }))
    }

    /// Keeps an analysis (another replica's for the same table and settings wins: both
    /// are the same figures).
    pub async fn put_analysis(
        &self,
        table_id: &str,
        settings: &str,
        a: &StoredAnalysis,
    ) -> Result<(), StoreError> {
        let deals = serde_json::to_string(&a.deals).map_err(|e| StoreError::Corrupt(e.to_string()))?;
        sqlx::query(
            "INSERT INTO skat_analyses (table_id, settings, deals, summary, worlds, computed_ms, took_ms) \
             VALUES ($1,$2,$3,$4,$5,$6,$7) ON CONFLICT (table_id, settings) DO NOTHING",
        )
        .bind(table_id)
        .bind(settings)
        .bind(deals)
        .bind(a.summary.as_str())
        .bind(i64::from(a.worlds))
        .bind(to_i64(a.computed_ms))
        .bind(to_i64(a.took_ms))
        .execute(&self.db.pool)
        .await?;
        Ok(())
    }
}
