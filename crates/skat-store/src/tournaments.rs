//! The tournaments' SQL: tournaments (`skat_tournaments`) with their scheduler lease,
//! their planned tables (`skat_tournament_tables`), and the one transaction that records
//! a finished table with its ratings. Rows in, rows out: what a tournament plays is
//! decided by `skat-league`, when it is played by the competitions' scheduler.

use skat_league::rating::Rating;
use skat_league::{
    AccountId, Format, PlannedTable, SeatResult, TournamentId, TournamentSpec, TournamentStatus,
};
use sqlx::Row as _;
use sqlx::any::AnyRow;

use super::ratings::{self, NewRating};
use super::{Backend, Db, StoreError, to_i64, to_u64};

/// A tournament row.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Tournament {
    /// Its id.
    pub tournament_id: TournamentId,
    /// The replica that created it.
    pub owner: String,
    /// A name for people.
    pub name: String,
    /// Its settings.
    pub spec: TournamentSpec,
    /// Where it is.
    pub status: TournamentStatus,
    /// Unix milliseconds.
    pub created_ms: u64,
    /// Unix milliseconds (0 while running).
    pub finished_ms: u64,
}

/// A tournament in a list, with its table counts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TournamentRow {
    /// The tournament.
    pub tournament: Tournament,
    /// Tables planned so far.
    pub tables: u64,
    /// Tables finished.
    pub finished: u64,
    /// Tables abandoned (the tournament was cancelled).
    pub abandoned: u64,
}

/// A finished list of an account.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FinishedList {
    /// Its tournament.
    pub tournament_id: TournamentId,
    /// The tournament's name.
    pub tournament_name: String,
    /// Its table.
    pub table_id: String,
    /// The entrant in each seat.
    pub seating: Vec<AccountId>,
    /// Per seat.
    pub result: Vec<SeatResult>,
}

/// A planned table being played, with its tournament.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlayingTable {
    /// Its tournament.
    pub tournament_id: TournamentId,
    /// The table.
    pub planned: PlannedTable,
    /// The replica that owns the table now (`""`: no node ids, or not created yet).
    pub owner: String,
}

/// A seed as the database's signed BIGINT holds it: the same 64 bits (a seed is any
/// u64; clamping it, as a count would be, made every seed at or above 2^63 one seed).
fn seed_to_db(seed: u64) -> i64 {
    i64::from_le_bytes(seed.to_le_bytes())
}

/// A seed read back ([`seed_to_db`]'s inverse).
fn seed_from_db(stored: i64) -> u64 {
    u64::from_le_bytes(stored.to_le_bytes())
}

pub(super) fn decode_err(e: impl std::fmt::Display) -> sqlx::Error {
    sqlx::Error::Decode(e.to_string().into())
}

fn planned_from(r: &AnyRow) -> Result<PlannedTable, sqlx::Error> {
    let seating: String = r.try_get("seating")?;
    let result: String = r.try_get("result")?;
    let status: String = r.try_get("status")?;
    Ok(PlannedTable {
        index: to_u64(r.try_get("n")?),
        seating: serde_json::from_str(&seating).map_err(decode_err)?,
        seed: seed_from_db(r.try_get("seed")?),
        table_id: r.try_get("table_id")?,
        status: status.parse().map_err(decode_err)?,
        result: serde_json::from_str(&result).map_err(decode_err)?,
    })
}

fn tournament_from(r: &AnyRow) -> Result<Tournament, sqlx::Error> {
    let spec: String = r.try_get("spec")?;
    let id: String = r.try_get("tournament_id")?;
    let status: String = r.try_get("status")?;
    Ok(Tournament {
        tournament_id: id.parse().map_err(decode_err)?,
        owner: r.try_get("owner")?,
        name: r.try_get("name")?,
        spec: serde_json::from_str(&spec).map_err(decode_err)?,
        status: status.parse().map_err(decode_err)?,
        created_ms: to_u64(r.try_get("created_ms")?),
        finished_ms: to_u64(r.try_get("finished_ms")?),
    })
}

fn playing_from(r: &AnyRow) -> Result<PlayingTable, sqlx::Error> {
    let id: String = r.try_get("tournament_id")?;
    Ok(PlayingTable {
        tournament_id: id.parse().map_err(decode_err)?,
        planned: planned_from(r)?,
        owner: r.try_get("owner")?,
    })
}

/// Tournaments, their planned tables and their scheduler lease (the operator's changes are in `tournament_control`).
#[derive(Debug, Clone)]
pub struct TournamentRepo {
    pub(super) db: Db,
}

impl TournamentRepo {
    /// Stores a new tournament and its plan.
    pub async fn create_tournament(
        &self,
        t: &Tournament,
        plan: &[PlannedTable],
        lease_until_ms: u64,
    ) -> Result<(), StoreError> {
        let mut tx = self.db.pool.begin().await?;
        TournamentRepo::insert_tournament(&mut tx, t, plan, lease_until_ms).await?;
        tx.commit().await?;
        Ok(())
    }

    /// Inserts a tournament with its first plan, its owner holding its lease, in the
    /// caller's transaction (a challenge's meeting is stored with its acceptance).
    pub(super) async fn insert_tournament(
        tx: &mut sqlx::Transaction<'_, sqlx::Any>,
        t: &Tournament,
        plan: &[PlannedTable],
        lease_until_ms: u64,
    ) -> Result<(), StoreError> {
        sqlx::query(
            "INSERT INTO skat_tournaments (tournament_id, owner, name, spec, status, created_ms, finished_ms, \
             casual, lease_holder, lease_until_ms) VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10)",
        )
        .bind(t.tournament_id.as_str())
        .bind(t.owner.as_str())
        .bind(t.name.as_str())
        .bind(serde_json::to_string(&t.spec).unwrap_or_default())
        .bind(t.status.as_str())
        .bind(to_i64(t.created_ms))
        .bind(to_i64(t.finished_ms))
        .bind(i64::from(matches!(t.spec.format, Format::Casual | Format::Challenge)))
        .bind(t.owner.as_str())
        .bind(to_i64(lease_until_ms))
        .execute(&mut **tx)
        .await?;
        TournamentRepo::insert_planned(tx, &t.tournament_id, plan).await?;
        Ok(())
    }

    /// Adds tables to a tournament's plan (a Swiss round), if `holder` still holds its lease.
    pub async fn add_planned(
        &self,
        tournament_id: &TournamentId,
        holder: &str,
        plan: &[PlannedTable],
    ) -> Result<bool, StoreError> {
        let mut tx = self.db.pool.begin().await?;
        let held = sqlx::query("SELECT lease_holder FROM skat_tournaments WHERE tournament_id = $1")
            .bind(tournament_id.as_str())
            .fetch_optional(&mut *tx)
            .await?
            .map(|r| r.try_get::<String, _>("lease_holder"))
            .transpose()?;
        if held.as_deref() != Some(holder) {
            return Ok(false);
        }
        TournamentRepo::insert_planned(&mut tx, tournament_id, plan).await?;
        tx.commit().await?;
        Ok(true)
    }

    async fn insert_planned(
        tx: &mut sqlx::Transaction<'_, sqlx::Any>,
        tournament_id: &TournamentId,
        plan: &[PlannedTable],
    ) -> Result<(), StoreError> {
        for p in plan {
            sqlx::query(
                "INSERT INTO skat_tournament_tables (tournament_id, n, seating, seed, table_id, status, result) \
                 VALUES ($1,$2,$3,$4,$5,$6,$7)",
            )
            .bind(tournament_id.as_str())
            .bind(to_i64(p.index))
            .bind(serde_json::to_string(&p.seating).unwrap_or_default())
            .bind(seed_to_db(p.seed))
            .bind(p.table_id.as_str())
            .bind(p.status.as_str())
            .bind(serde_json::to_string(&p.result).unwrap_or_default())
            .execute(&mut **tx)
            .await?;
        }
        Ok(())
    }

    /// A tournament and its plan.
    pub async fn tournament(
        &self,
        id: &TournamentId,
    ) -> Result<Option<(Tournament, Vec<PlannedTable>)>, StoreError> {
        let row = sqlx::query(
            "SELECT tournament_id, owner, name, spec, status, created_ms, finished_ms FROM skat_tournaments \
             WHERE tournament_id = $1",
        )
        .bind(id.as_str())
        .fetch_optional(&self.db.pool)
        .await?;
        let Some(row) = row else { return Ok(None) };
        let t = tournament_from(&row)?;
        let rows = sqlx::query(
            "SELECT n, seating, seed, table_id, status, result FROM skat_tournament_tables \
             WHERE tournament_id = $1 ORDER BY n",
        )
        .bind(id.as_str())
        .fetch_all(&self.db.pool)
        .await?;
        let plan = rows.iter().map(planned_from).collect::<Result<_, _>>()?;
        Ok(Some((t, plan)))
    }

    /// The running tournaments whose scheduler lease has run out by `now_ms` or is
    /// `holder`'s: the ones `holder` may take.
    pub async fn takeable_tournaments(
        &self,
        holder: &str,
        now_ms: u64,
    ) -> Result<Vec<TournamentId>, StoreError> {
        let rows = sqlx::query(
            "SELECT tournament_id FROM skat_tournaments WHERE status IN ('running', 'paused') \
             AND (lease_until_ms < $1 OR lease_holder = $2) ORDER BY created_ms",
        )
        .bind(to_i64(now_ms))
        .bind(holder)
        .fetch_all(&self.db.pool)
        .await?;
        rows.iter()
            .map(|r| r.try_get::<String, _>("tournament_id")?.parse().map_err(decode_err))
            .collect::<Result<_, _>>()
            .map_err(StoreError::from)
    }

    /// Takes or renews a running tournament's scheduler lease until `until_ms`: true when
    /// `holder` has it now (it had it, or the last holder's ran out by `now_ms`). One
    /// UPDATE, so two replicas cannot both succeed.
    pub async fn take_lease(
        &self,
        tournament_id: &TournamentId,
        holder: &str,
        now_ms: u64,
        until_ms: u64,
    ) -> Result<bool, StoreError> {
        let done = sqlx::query(
            "UPDATE skat_tournaments SET lease_holder = $1, lease_until_ms = $2 WHERE tournament_id = $3 \
             AND status IN ('running', 'paused') AND (lease_holder = $1 OR lease_until_ms < $4)",
        )
        .bind(holder)
        .bind(to_i64(until_ms))
        .bind(tournament_id.as_str())
        .bind(to_i64(now_ms))
        .execute(&self.db.pool)
        .await?;
        Ok(done.rows_affected() == 1)
    }

    /// A tournament's finished tables: how many, and how long they took on average
    /// (created to finished, in ms), from their listing rows.
    pub async fn finished_table_times(&self, id: &TournamentId) -> Result<(u64, u64), StoreError> {
        let row = sqlx::query(
            "SELECT COUNT(*) AS n, CAST(COALESCE(AVG(t.finished_ms - t.created_ms), 0) AS BIGINT) AS took \
             FROM skat_tournament_tables p JOIN skat_tables t ON t.table_id = p.table_id \
             WHERE p.tournament_id = $1 AND p.status = 'finished' AND t.finished_ms > 0",
        )
        .bind(id.as_str())
        .fetch_one(&self.db.pool)
        .await?;
        Ok((to_u64(row.try_get("n")?), to_u64(row.try_get("took")?)))
    }

    /// Every planned table being played, of every tournament: (tournament id, table).
    pub async fn playing_tables(&self) -> Result<Vec<PlayingTable>, StoreError> {
        let rows = sqlx::query(
            "SELECT p.tournament_id, p.n, p.seating, p.seed, p.table_id, p.status, p.result, \
             COALESCE(t.owner, '') AS owner FROM skat_tournament_tables p \
             LEFT JOIN skat_tables t ON t.table_id = p.table_id WHERE p.status = 'playing'",
        )
        .fetch_all(&self.db.pool)
        .await?;
        Ok(rows.iter().map(playing_from).collect::<Result<_, _>>()?)
    }

    /// Whether a tournament table shares its cards with a table not yet finished (the
    /// other rotations of its list: the same tournament and seed). False for a table of no
    /// tournament.
    pub async fn under_embargo(&self, table_id: &str) -> Result<bool, StoreError> {
        let row = sqlx::query(
            "SELECT COUNT(*) AS open FROM skat_tournament_tables t JOIN skat_tournament_tables s \
             ON s.tournament_id = t.tournament_id AND s.seed = t.seed \
             WHERE t.table_id = $1 AND s.status IN ('pending', 'playing')",
        )
        .bind(table_id)
        .fetch_one(&self.db.pool)
        .await?;
        Ok(row.try_get::<i64, _>("open")? > 0)
    }

    /// The tournament a table was played for, if any.
    pub async fn tournament_of_table(&self, table_id: &str) -> Result<Option<TournamentId>, StoreError> {
        let row = sqlx::query("SELECT tournament_id FROM skat_tournament_tables WHERE table_id = $1")
            .bind(table_id)
            .fetch_optional(&self.db.pool)
            .await?;
        row.map(|r| r.try_get::<String, _>("tournament_id")?.parse().map_err(decode_err))
            .transpose()
            .map_err(StoreError::from)
    }

    /// Tournaments, newest first.
    pub async fn list_tournaments(
        &self,
        offset: u64,
        limit: u64,
        include_casual: bool,
    ) -> Result<Vec<TournamentRow>, StoreError> {
        let rows = sqlx::query(
            "SELECT tournament_id, owner, name, spec, status, created_ms, finished_ms, \
             (SELECT COUNT(*) FROM skat_tournament_tables p WHERE p.tournament_id = t.tournament_id) AS planned, \
             (SELECT COUNT(*) FROM skat_tournament_tables p WHERE p.tournament_id = t.tournament_id \
              AND p.status = 'finished') AS done, \
             (SELECT COUNT(*) FROM skat_tournament_tables p WHERE p.tournament_id = t.tournament_id \
              AND p.status = 'abandoned') AS abandoned \
             FROM skat_tournaments t WHERE casual <= $1 ORDER BY created_ms DESC, tournament_id LIMIT $2 OFFSET $3",
        )
        .bind(i64::from(include_casual))
        .bind(to_i64(limit))
        .bind(to_i64(offset))
        .fetch_all(&self.db.pool)
        .await?;
        rows.iter()
            .map(|r| {
                Ok(TournamentRow {
                    tournament: tournament_from(r)?,
                    tables: to_u64(r.try_get("planned")?),
                    finished: to_u64(r.try_get("done")?),
                    abandoned: to_u64(r.try_get("abandoned")?),
                })
            })
            .collect()
    }

    /// An account's most recent finished lists, newest first.
    pub async fn recent_lists(
        &self,
        account_id: &AccountId,
        limit: u64,
    ) -> Result<Vec<FinishedList>, StoreError> {
        // Account ids are `a` and hex digits: safe inside a LIKE pattern.
        let rows = sqlx::query(
            "SELECT t.tournament_id AS tournament_id, t.n AS n, t.seating AS seating, t.seed AS seed, \
             t.table_id AS table_id, t.status AS status, t.result AS result, u.name AS tournament_name \
             FROM skat_tournament_tables t JOIN skat_tournaments u ON u.tournament_id = t.tournament_id \
             WHERE t.status = 'finished' AND t.seating LIKE $1 ORDER BY t.finished_ms DESC LIMIT $2",
        )
        .bind(format!("%\"{account_id}\"%"))
        .bind(to_i64(limit))
        .fetch_all(&self.db.pool)
        .await?;
        rows.iter()
            .map(|r| {
                let p = planned_from(r)?;
                Ok(FinishedList {
                    tournament_id: r.try_get::<String, _>("tournament_id")?.parse().map_err(decode_err)?,
                    tournament_name: r.try_get("tournament_name")?,
                    table_id: p.table_id,
                    seating: p.seating,
                    result: p.result,
                })
            })
            .collect()
    }

    /// Marks planned tables as being played at these tables, in one transaction.
    pub async fn mark_playing(
        &self,
        tournament_id: &TournamentId,
        tables: &[(u64, String)],
    ) -> Result<(), StoreError> {
        if tables.is_empty() {
            return Ok(());
        }
        let mut tx = self.db.pool.begin().await?;
        for (n, table_id) in tables {
            sqlx::query(
                "UPDATE skat_tournament_tables SET table_id = $1, status = 'playing' \
                 WHERE tournament_id = $2 AND n = $3 AND status = 'pending'",
            )
            .bind(table_id.as_str())
            .bind(tournament_id.as_str())
            .bind(to_i64(*n))
            .execute(&mut *tx)
            .await?;
        }
        tx.commit().await?;
        Ok(())
    }

    /// Marks a tournament finished (unless it was cancelled meanwhile).
    pub async fn finish_tournament(&self, id: &TournamentId, at_ms: u64) -> Result<(), StoreError> {
        sqlx::query(
            "UPDATE skat_tournaments SET status = 'finished', finished_ms = $1 WHERE tournament_id = $2 \
             AND status IN ('running', 'paused')",
        )
        .bind(to_i64(at_ms))
        .bind(id.as_str())
        .execute(&self.db.pool)
        .await?;
        Ok(())
    }

    /// Records a finished tournament table: its result, and the new ratings of its
    /// accounts with their history, in one transaction (a crash leaves the table to be
    /// finished again, never a result without its rating update or the reverse).
    /// `rate` turns the accounts' current ratings (absent: not rated yet) into the new
    /// ones; they are read inside the transaction, after a lock on PostgreSQL, so that
    /// two replicas finishing lists of one account at once cannot lose an update (SQLite
    /// has one writer, and one process whose callers take turns).
    pub async fn finish_table(
        &self,
        (tournament_id, n): (&TournamentId, u64),
        table_id: &str,
        result: &[SeatResult],
        rate: impl FnOnce(&[Option<Rating>]) -> Vec<NewRating>,
        at_ms: u64,
    ) -> Result<(), StoreError> {
        let mut tx = self.db.pool.begin().await?;
        if self.db.backend == Backend::Postgres {
            // Any constant: the key of "rating updates" among this database's advisory locks.
            sqlx::query("SELECT pg_advisory_xact_lock(7413001)").execute(&mut *tx).await?;
        }
        // The write first: SQLite then takes its write lock (waiting its busy timeout)
        // before the reads, instead of failing to upgrade a read snapshot another
        // connection's commit made stale.
        // Only a table still being played: one the tournament's cancellation abandoned
        // keeps that status and rates nobody.
        let updated = sqlx::query(
            "UPDATE skat_tournament_tables SET table_id = $1, status = 'finished', result = $2, finished_ms = $3 \
             WHERE tournament_id = $4 AND n = $5 AND status = 'playing'",
        )
        .bind(table_id)
        .bind(serde_json::to_string(result).unwrap_or_default())
        .bind(to_i64(at_ms))
        .bind(tournament_id.as_str())
        .bind(to_i64(n))
        .execute(&mut *tx)
        .await?;
        if updated.rows_affected() == 0 {
            return Ok(());
        }
        let mut current = Vec::new();
        for r in result {
            current.push(ratings::current(&mut *tx, &r.account_id).await?);
        }
        ratings::record(&mut tx, &rate(&current), table_id, at_ms).await?;
        tx.commit().await?;
        Ok(())
    }
}

#[cfg(test)]
mod seed_tests {
    use super::{seed_from_db, seed_to_db};

    #[test]
    fn every_seed_survives_the_database() {
        for seed in [0, 1, u64::MAX, 1 << 63, (1 << 63) - 1, 0xdead_beef_dead_beef] {
            assert_eq!(seed_from_db(seed_to_db(seed)), seed);
        }
        assert_ne!(seed_to_db(u64::MAX), seed_to_db(1 << 63));
    }
}
