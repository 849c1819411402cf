//! The operator's changes to a tournament (pause, resume, cancel, a new start time) and
//! the small reads about one tournament that the results and the page make: part of
//! the tournaments' repository (`tournaments` holds its rows and its scheduler).

use skat_league::{TournamentId, TournamentSpec, TournamentStatus};
use sqlx::Row as _;

use super::tournaments::{TournamentRepo, decode_err};
use super::{StoreError, to_i64};

/// The operator's changes: pause, resume, cancel, a new start time.
impl TournamentRepo {
    /// Pauses or resumes a tournament that is not over; false when it is over (or gone).
    pub async fn set_paused(&self, id: &TournamentId, paused: bool) -> Result<bool, StoreError> {
        let status = if paused { TournamentStatus::Paused } else { TournamentStatus::Running };
        let done = sqlx::query(
            "UPDATE skat_tournaments SET status = $1 WHERE tournament_id = $2 AND status IN ('running', 'paused')",
        )
        .bind(status.as_str())
        .bind(id.as_str())
        .execute(&self.db.pool)
        .await?;
        Ok(done.rows_affected() == 1)
    }

    /// Cancels a tournament that is not over, and abandons its unfinished tables, in one
    /// transaction; false when it is over (or gone).
    pub async fn cancel_tournament(&self, id: &TournamentId, at_ms: u64) -> Result<bool, StoreError> {
        let mut tx = self.db.pool.begin().await?;
        let done = sqlx::query(
            "UPDATE skat_tournaments SET status = 'cancelled', finished_ms = $1 WHERE tournament_id = $2 \
             AND status IN ('running', 'paused')",
        )
        .bind(to_i64(at_ms))
        .bind(id.as_str())
        .execute(&mut *tx)
        .await?;
        if done.rows_affected() != 1 {
            return Ok(false);
        }
        sqlx::query(
            "UPDATE skat_tournament_tables SET status = 'abandoned', finished_ms = $1 WHERE tournament_id = $2 \
             AND status IN ('pending', 'playing')",
        )
        .bind(to_i64(at_ms))
        .bind(id.as_str())
        .execute(&mut *tx)
        .await?;
        tx.commit().await?;
        Ok(true)
    }

    /// Stores a tournament's settings again (a new start time); false when it is over.
    pub async fn update_spec(&self, id: &TournamentId, spec: &TournamentSpec) -> Result<bool, StoreError> {
        let done = sqlx::query(
            "UPDATE skat_tournaments SET spec = $1 WHERE tournament_id = $2 AND status IN ('running', 'paused')",
        )
        .bind(serde_json::to_string(spec).unwrap_or_default())
        .bind(id.as_str())
        .execute(&self.db.pool)
        .await?;
        Ok(done.rows_affected() == 1)
    }

    /// A tournament's status and start time now (absent: no such tournament): what the
    /// operator may change while its scheduler runs.
    pub async fn tournament_state(
        &self,
        id: &TournamentId,
    ) -> Result<Option<(TournamentStatus, u64)>, StoreError> {
        let row = sqlx::query("SELECT status, spec FROM skat_tournaments WHERE tournament_id = $1")
            .bind(id.as_str())
            .fetch_optional(&self.db.pool)
            .await?;
        let Some(r) = row else { return Ok(None) };
        let status: TournamentStatus = r.try_get::<String, _>("status")?.parse().map_err(decode_err)?;
        let spec: TournamentSpec =
            serde_json::from_str(&r.try_get::<String, _>("spec")?).map_err(decode_err)?;
        Ok(Some((status, spec.start_ms)))
    }

    /// Whether a tournament's lists count for the ratings (a challenge's may not).
    pub async fn tournament_rated(&self, tournament: &TournamentId) -> Result<bool, StoreError> {
        let row = sqlx::query("SELECT spec FROM skat_tournaments WHERE tournament_id = $1")
            .bind(tournament.as_str())
            .fetch_optional(&self.db.pool)
            .await?;
        let Some(row) = row else { return Ok(true) };
        let spec: String = row.try_get("spec")?;
        let spec: skat_league::TournamentSpec =
            serde_json::from_str(&spec).map_err(|e| StoreError::Corrupt(e.to_string()))?;
        Ok(!spec.unrated)
    }

    /// The tournament of a table with its name, if the table is a tournament's.
    pub async fn tournament_named_of_table(
        &self,
        table_id: &str,
    ) -> Result<Option<(skat_league::TournamentId, String)>, StoreError> {
        let row = sqlx::query(
            "SELECT t.tournament_id AS tournament_id, u.name AS name FROM skat_tournament_tables t \
             JOIN skat_tournaments u ON u.tournament_id = t.tournament_id WHERE t.table_id = $1",
        )
        .bind(table_id)
        .fetch_optional(&self.db.pool)
        .await?;
        row.map(|r| {
            let id = r
                .try_get::<String, _>("tournament_id")?
                .parse()
                .map_err(|e: String| sqlx::Error::Decode(e.into()))?;
            Ok::<_, sqlx::Error>((id, r.try_get::<String, _>("name")?))
        })
        .transpose()
        .map_err(StoreError::from)
    }
}
