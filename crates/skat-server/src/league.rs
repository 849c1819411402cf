//! The competition's rows: bot accounts, tournaments and their planned tables, ratings
//! and their history. SQL only (the same text on SQLite and PostgreSQL), no rule: what a
//! tournament plays and how ratings move is decided in [`crate::competition`].

use serde::{Deserialize, Serialize};
use sqlx::Row as _;

use crate::store::{Store, StoreError, to_i64, to_u64};

/// A bot account.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Account {
    /// Its id (`a` + 12 hex digits).
    pub account_id: String,
    /// Its unique name (shown at tables and in standings).
    pub name: String,
    /// Who runs it (a note).
    pub owner: String,
    /// SHA-256 of its bot token.
    pub token_hash: String,
    /// A disabled account cannot open its lobby.
    pub disabled: bool,
    /// Most tables at once.
    pub max_tables: u32,
    /// Unix milliseconds.
    pub created_ms: u64,
}

/// A tournament's settings (stored as JSON).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TournamentSpec {
    /// Account ids of the entrants.
    pub entrants: Vec<String>,
    /// 3 or 4 seats per table.
    pub seats: u8,
    /// Deals per list.
    pub deals: u32,
    /// Lists per meeting (each in every seat rotation).
    pub lists: u32,
    /// Milliseconds per action.
    pub action_ms: u64,
    /// Milliseconds per seat per deal.
    pub deal_ms: u64,
    /// The deals of list `k` of meeting `m` follow from `seed + m * lists + k`.
    pub seed: u64,
    /// Tables at once (0: as many as the entrants' quotas allow).
    pub parallel: u32,
    /// How entrants meet.
    #[serde(default)]
    pub format: Format,
    /// Swiss rounds in all (0 for other formats).
    #[serde(default)]
    pub rounds: u32,
    /// Unix milliseconds before which no table is seated.
    #[serde(default)]
    pub start_ms: u64,
}

/// How a tournament's entrants meet.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Format {
    /// Every group of `seats` entrants.
    #[default]
    RoundRobin,
    /// Rounds of groups by standing.
    Swiss,
    /// One meeting from casual matchmaking.
    Casual,
}

/// A tournament row.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Tournament {
    /// Its id.
    pub tournament_id: String,
    /// The replica that runs it.
    pub owner: String,
    /// A name for people.
    pub name: String,
    /// Its settings.
    pub spec: TournamentSpec,
    /// `running` or `finished`.
    pub status: String,
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
}

/// A finished list of an account.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FinishedList {
    /// Its tournament.
    pub tournament_id: String,
    /// Its table.
    pub table_id: String,
    /// Account ids by seat.
    pub seating: Vec<String>,
    /// Per seat.
    pub result: Vec<SeatResult>,
}

/// One seat's result at a finished table.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SeatResult {
    /// The account.
    pub account_id: String,
    /// Seeger-Fabian total.
    pub seeger_fabian: i64,
    /// Plain total.
    pub plain: i64,
    /// Games declared.
    pub declared: u32,
    /// Games won.
    pub won: u32,
    /// Deals it forfeited (time-outs, leaving).
    pub penalties: u32,
}

/// A planned table of a tournament.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlannedTable {
    /// Its place in the plan.
    pub n: u64,
    /// Account ids by seat.
    pub seating: Vec<String>,
    /// The seed of its deals.
    pub seed: u64,
    /// The table, once created.
    pub table_id: String,
    /// `pending`, `playing` or `finished`.
    pub status: String,
    /// Per seat, once finished.
    pub result: Vec<SeatResult>,
}

/// An account's rating.
#[derive(Debug, Clone, PartialEq)]
pub struct Rating {
    /// The account.
    pub account_id: String,
    /// Its name.
    pub name: String,
    /// Weng-Lin mu.
    pub rating: f64,
    /// Weng-Lin sigma.
    pub uncertainty: f64,
    /// Rated lists.
    pub lists: u64,
}

fn account_from(r: &sqlx::any::AnyRow) -> Result<Account, sqlx::Error> {
    Ok(Account {
        account_id: r.try_get("account_id")?,
        name: r.try_get("name")?,
        owner: r.try_get("owner")?,
        token_hash: r.try_get("token_hash")?,
        disabled: r.try_get::<i64, _>("disabled")? != 0,
        max_tables: u32::try_from(r.try_get::<i64, _>("max_tables")?).unwrap_or(1),
        created_ms: to_u64(r.try_get("created_ms")?),
    })
}

fn planned_from(r: &sqlx::any::AnyRow) -> Result<PlannedTable, sqlx::Error> {
    let seating: String = r.try_get("seating")?;
    let result: String = r.try_get("result")?;
    Ok(PlannedTable {
        n: to_u64(r.try_get("n")?),
        seating: serde_json::from_str(&seating).unwrap_or_default(),
        seed: to_u64(r.try_get("seed")?),
        table_id: r.try_get("table_id")?,
        status: r.try_get("status")?,
        result: serde_json::from_str(&result).unwrap_or_default(),
    })
}

const ACCOUNT_COLUMNS: &str = "account_id, name, owner, token_hash, disabled, max_tables, created_ms";

impl Store {
    /// Adds an account; false when the name is taken.
    pub async fn create_account(&self, a: &Account) -> Result<bool, StoreError> {
        if self.account_by_name(&a.name).await?.is_some() {
            return Ok(false);
        }
        let done = sqlx::query(&format!(
            "INSERT INTO skat_accounts ({ACCOUNT_COLUMNS}) VALUES ($1,$2,$3,$4,$5,$6,$7) ON CONFLICT (name) DO NOTHING"
        ))
        .bind(a.account_id.as_str())
        .bind(a.name.as_str())
        .bind(a.owner.as_str())
        .bind(a.token_hash.as_str())
        .bind(i64::from(a.disabled))
        .bind(i64::from(a.max_tables))
        .bind(to_i64(a.created_ms))
        .execute(&self.pool)
        .await?;
        Ok(done.rows_affected() == 1)
    }

    /// The account whose bot token has this hash.
    pub async fn account_by_token(&self, token_hash: &str) -> Result<Option<Account>, StoreError> {
        let sql = format!("SELECT {ACCOUNT_COLUMNS} FROM skat_accounts WHERE token_hash = $1");
        let row = sqlx::query(&sql).bind(token_hash).fetch_optional(&self.pool).await?;
        Ok(row.as_ref().map(account_from).transpose()?)
    }

    /// The account with this name.
    pub async fn account_by_name(&self, name: &str) -> Result<Option<Account>, StoreError> {
        let sql = format!("SELECT {ACCOUNT_COLUMNS} FROM skat_accounts WHERE name = $1");
        let row = sqlx::query(&sql).bind(name).fetch_optional(&self.pool).await?;
        Ok(row.as_ref().map(account_from).transpose()?)
    }

    /// The account with this id.
    pub async fn account(&self, account_id: &str) -> Result<Option<Account>, StoreError> {
        let sql = format!("SELECT {ACCOUNT_COLUMNS} FROM skat_accounts WHERE account_id = $1");
        let row = sqlx::query(&sql).bind(account_id).fetch_optional(&self.pool).await?;
        Ok(row.as_ref().map(account_from).transpose()?)
    }

    /// Disables or enables an account, gives it a new token hash or a new quota; false
    /// when no such account.
    pub async fn update_account(
        &self,
        name: &str,
        disabled: Option<bool>,
        token_hash: Option<&str>,
        max_tables: Option<u32>,
    ) -> Result<bool, StoreError> {
        let Some(a) = self.account_by_name(name).await? else { return Ok(false) };
        sqlx::query(
            "UPDATE skat_accounts SET disabled = $1, token_hash = $2, max_tables = $3 WHERE account_id = $4",
        )
        .bind(i64::from(disabled.unwrap_or(a.disabled)))
        .bind(token_hash.unwrap_or(&a.token_hash))
        .bind(i64::from(max_tables.unwrap_or(a.max_tables)))
        .bind(a.account_id.as_str())
        .execute(&self.pool)
        .await?;
        Ok(true)
    }

    /// Stores a new tournament and its plan.
    pub async fn create_tournament(
        &self,
        t: &Tournament,
        plan: &[PlannedTable],
        lease_until_ms: u64,
    ) -> Result<(), StoreError> {
        let mut tx = self.pool.begin().await?;
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
        .bind(i64::from(t.spec.format == Format::Casual))
        .bind(t.owner.as_str())
        .bind(to_i64(lease_until_ms))
        .execute(&mut *tx)
        .await?;
        Store::insert_planned(&mut tx, &t.tournament_id, plan).await?;
        tx.commit().await?;
        Ok(())
    }

    /// Adds tables to a tournament's plan (a Swiss round), if `holder` still holds its lease.
    pub async fn add_planned(
        &self,
        tournament_id: &str,
        holder: &str,
        plan: &[PlannedTable],
    ) -> Result<bool, StoreError> {
        let mut tx = self.pool.begin().await?;
        let held = sqlx::query("SELECT lease_holder FROM skat_tournaments WHERE tournament_id = $1")
            .bind(tournament_id)
            .fetch_optional(&mut *tx)
            .await?
            .map(|r| r.try_get::<String, _>("lease_holder"))
            .transpose()?;
        if held.as_deref() != Some(holder) {
            return Ok(false);
        }
        Store::insert_planned(&mut tx, tournament_id, plan).await?;
        tx.commit().await?;
        Ok(true)
    }

    async fn insert_planned(
        tx: &mut sqlx::Transaction<'_, sqlx::Any>,
        tournament_id: &str,
        plan: &[PlannedTable],
    ) -> Result<(), StoreError> {
        for p in plan {
            sqlx::query(
                "INSERT INTO skat_tournament_tables (tournament_id, n, seating, seed, table_id, status, result) \
                 VALUES ($1,$2,$3,$4,$5,$6,$7)",
            )
            .bind(tournament_id)
            .bind(to_i64(p.n))
            .bind(serde_json::to_string(&p.seating).unwrap_or_default())
            .bind(to_i64(p.seed))
            .bind(p.table_id.as_str())
            .bind(p.status.as_str())
            .bind(serde_json::to_string(&p.result).unwrap_or_default())
            .execute(&mut **tx)
            .await?;
        }
        Ok(())
    }

    fn tournament_from(r: &sqlx::any::AnyRow) -> Result<Tournament, sqlx::Error> {
        let spec: String = r.try_get("spec")?;
        Ok(Tournament {
            tournament_id: r.try_get("tournament_id")?,
            owner: r.try_get("owner")?,
            name: r.try_get("name")?,
            spec: serde_json::from_str(&spec).map_err(|e| sqlx::Error::Decode(Box::new(e)))?,
            status: r.try_get("status")?,
            created_ms: to_u64(r.try_get("created_ms")?),
            finished_ms: to_u64(r.try_get("finished_ms")?),
        })
    }

    /// A tournament and its plan.
    pub async fn tournament(&self, id: &str) -> Result<Option<(Tournament, Vec<PlannedTable>)>, StoreError> {
        let row = sqlx::query(
            "SELECT tournament_id, owner, name, spec, status, created_ms, finished_ms FROM skat_tournaments \
             WHERE tournament_id = $1",
        )
        .bind(id)
        .fetch_optional(&self.pool)
        .await?;
        let Some(row) = row else { return Ok(None) };
        let t = Store::tournament_from(&row)?;
        let rows = sqlx::query(
            "SELECT n, seating, seed, table_id, status, result FROM skat_tournament_tables \
             WHERE tournament_id = $1 ORDER BY n",
        )
        .bind(id)
        .fetch_all(&self.pool)
        .await?;
        let plan = rows.iter().map(planned_from).collect::<Result<_, _>>()?;
        Ok(Some((t, plan)))
    }

    /// The running tournaments whose scheduler lease has run out by `now_ms` or is
    /// `holder`'s: the ones `holder` may take.
    pub async fn takeable_tournaments(&self, holder: &str, now_ms: u64) -> Result<Vec<String>, StoreError> {
        let rows = sqlx::query(
            "SELECT tournament_id FROM skat_tournaments WHERE status = 'running' \
             AND (lease_until_ms < $1 OR lease_holder = $2) ORDER BY created_ms",
        )
        .bind(to_i64(now_ms))
        .bind(holder)
        .fetch_all(&self.pool)
        .await?;
        Ok(rows.iter().map(|r| r.try_get("tournament_id")).collect::<Result<_, _>>()?)
    }

    /// Takes or renews a running tournament's scheduler lease until `until_ms`: true when
    /// `holder` has it now (it had it, or the last holder's ran out by `now_ms`). One
    /// UPDATE, so two replicas cannot both succeed.
    pub async fn take_lease(
        &self,
        tournament_id: &str,
        holder: &str,
        now_ms: u64,
        until_ms: u64,
    ) -> Result<bool, StoreError> {
        let done = sqlx::query(
            "UPDATE skat_tournaments SET lease_holder = $1, lease_until_ms = $2 WHERE tournament_id = $3 \
             AND status = 'running' AND (lease_holder = $1 OR lease_until_ms < $4)",
        )
        .bind(holder)
        .bind(to_i64(until_ms))
        .bind(tournament_id)
        .bind(to_i64(now_ms))
        .execute(&self.pool)
        .await?;
        Ok(done.rows_affected() == 1)
    }

    /// Every planned table being played, of every tournament: (tournament id, table).
    pub async fn playing_tables(&self) -> Result<Vec<(String, PlannedTable)>, StoreError> {
        let rows = sqlx::query(
            "SELECT tournament_id, n, seating, seed, table_id, status, result FROM skat_tournament_tables \
             WHERE status = 'playing'",
        )
        .fetch_all(&self.pool)
        .await?;
        rows.iter().map(|r| Ok((r.try_get("tournament_id")?, planned_from(r)?))).collect()
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
              AND p.status = 'finished') AS done \
             FROM skat_tournaments t WHERE casual <= $1 ORDER BY created_ms DESC, tournament_id LIMIT $2 OFFSET $3",
        )
        .bind(i64::from(include_casual))
        .bind(to_i64(limit))
        .bind(to_i64(offset))
        .fetch_all(&self.pool)
        .await?;
        rows.iter()
            .map(|r| {
                Ok(TournamentRow {
                    tournament: Store::tournament_from(r)?,
                    tables: to_u64(r.try_get("planned")?),
                    finished: to_u64(r.try_get("done")?),
                })
            })
            .collect()
    }

    /// An account's most recent finished lists, newest first.
    pub async fn recent_lists(&self, account_id: &str, limit: u64) -> Result<Vec<FinishedList>, StoreError> {
        // Account ids are `a` and hex digits: safe inside a LIKE pattern.
        let rows = sqlx::query(
            "SELECT tournament_id, n, seating, seed, table_id, status, result FROM skat_tournament_tables \
             WHERE status = 'finished' AND seating LIKE $1 ORDER BY finished_ms DESC LIMIT $2",
        )
        .bind(format!("%\"{account_id}\"%"))
        .bind(to_i64(limit))
        .fetch_all(&self.pool)
        .await?;
        rows.iter()
            .map(|r| {
                let p = planned_from(r)?;
                Ok(FinishedList {
                    tournament_id: r.try_get("tournament_id")?,
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
        tournament_id: &str,
        tables: &[(u64, String)],
    ) -> Result<(), StoreError> {
        if tables.is_empty() {
            return Ok(());
        }
        let mut tx = self.pool.begin().await?;
        for (n, table_id) in tables {
            sqlx::query(
                "UPDATE skat_tournament_tables SET table_id = $1, status = 'playing' \
                 WHERE tournament_id = $2 AND n = $3 AND status = 'pending'",
            )
            .bind(table_id.as_str())
            .bind(tournament_id)
            .bind(to_i64(*n))
            .execute(&mut *tx)
            .await?;
        }
        tx.commit().await?;
        Ok(())
    }

    /// Marks a tournament finished.
    pub async fn finish_tournament(&self, id: &str, at_ms: u64) -> Result<(), StoreError> {
        sqlx::query(
            "UPDATE skat_tournaments SET status = 'finished', finished_ms = $1 WHERE tournament_id = $2",
        )
        .bind(to_i64(at_ms))
        .bind(id)
        .execute(&self.pool)
        .await?;
        Ok(())
    }

    /// The current ratings of these accounts (absent: not rated yet).
    pub async fn ratings_of(&self, accounts: &[String]) -> Result<Vec<Option<(f64, f64, u64)>>, StoreError> {
        let mut out = Vec::new();
        for a in accounts {
            let row =
                sqlx::query("SELECT rating, uncertainty, lists FROM skat_ratings WHERE account_id = $1")
                    .bind(a.as_str())
                    .fetch_optional(&self.pool)
                    .await?;
            out.push(match row {
                Some(r) => {
                    Some((r.try_get("rating")?, r.try_get("uncertainty")?, to_u64(r.try_get("lists")?)))
                }
                None => None,
            });
        }
        Ok(out)
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
        (tournament_id, n): (&str, u64),
        table_id: &str,
        result: &[SeatResult],
        rate: impl FnOnce(&[Option<(f64, f64, u64)>]) -> Vec<(String, f64, f64, u64)>,
        at_ms: u64,
    ) -> Result<(), StoreError> {
        let mut tx = self.pool.begin().await?;
        if self.backend() == crate::store::Backend::Postgres {
            // Any constant: the key of "rating updates" among this database's advisory locks.
            sqlx::query("SELECT pg_advisory_xact_lock(7413001)").execute(&mut *tx).await?;
        }
        // The write first: SQLite then takes its write lock (waiting its busy timeout)
        // before the reads, instead of failing to upgrade a read snapshot another
        // connection's commit made stale.
        sqlx::query(
            "UPDATE skat_tournament_tables SET table_id = $1, status = 'finished', result = $2, finished_ms = $3 \
             WHERE tournament_id = $4 AND n = $5",
        )
        .bind(table_id)
        .bind(serde_json::to_string(result).unwrap_or_default())
        .bind(to_i64(at_ms))
        .bind(tournament_id)
        .bind(to_i64(n))
        .execute(&mut *tx)
        .await?;
        let mut current = Vec::new();
        for r in result {
            let row =
                sqlx::query("SELECT rating, uncertainty, lists FROM skat_ratings WHERE account_id = $1")
                    .bind(r.account_id.as_str())
                    .fetch_optional(&mut *tx)
                    .await?;
            current.push(match row {
                Some(r) => {
                    Some((r.try_get("rating")?, r.try_get("uncertainty")?, to_u64(r.try_get("lists")?)))
                }
                None => None,
            });
        }
        let updates = rate(&current);
        for (account, rating, uncertainty, lists) in &updates {
            sqlx::query(
                "INSERT INTO skat_ratings (account_id, rating, uncertainty, lists, updated_ms) VALUES ($1,$2,$3,$4,$5) \
                 ON CONFLICT (account_id) DO UPDATE SET rating = excluded.rating, uncertainty = excluded.uncertainty, \
                 lists = excluded.lists, updated_ms = excluded.updated_ms",
            )
            .bind(account.as_str())
            .bind(*rating)
            .bind(*uncertainty)
            .bind(to_i64(*lists))
            .bind(to_i64(at_ms))
            .execute(&mut *tx)
            .await?;
            sqlx::query(
                "INSERT INTO skat_rating_history (account_id, at_ms, table_id, rating, uncertainty) VALUES ($1,$2,$3,$4,$5)",
            )
            .bind(account.as_str())
            .bind(to_i64(at_ms))
            .bind(table_id)
            .bind(*rating)
            .bind(*uncertainty)
            .execute(&mut *tx)
            .await?;
        }
        tx.commit().await?;
        Ok(())
    }

    /// A page of the leaderboard: by conservative rating (mu - 3 sigma), best first.
    pub async fn leaderboard(&self, offset: u64, limit: u64) -> Result<Vec<Rating>, StoreError> {
        let rows = sqlx::query(
            "SELECT r.account_id, a.name, r.rating, r.uncertainty, r.lists FROM skat_ratings r \
             JOIN skat_accounts a ON a.account_id = r.account_id \
             ORDER BY (r.rating - 3 * r.uncertainty) DESC, a.name LIMIT $1 OFFSET $2",
        )
        .bind(to_i64(limit))
        .bind(to_i64(offset))
        .fetch_all(&self.pool)
        .await?;
        rows.iter()
            .map(|r| {
                Ok(Rating {
                    account_id: r.try_get("account_id")?,
                    name: r.try_get("name")?,
                    rating: r.try_get("rating")?,
                    uncertainty: r.try_get("uncertainty")?,
                    lists: to_u64(r.try_get("lists")?),
                })
            })
            .collect::<Result<_, sqlx::Error>>()
            .map_err(StoreError::from)
    }

    /// An account's rating history, oldest first: (at_ms, table_id, rating, uncertainty).
    pub async fn rating_history(&self, account_id: &str) -> Result<Vec<(u64, String, f64, f64)>, StoreError> {
        let rows = sqlx::query(
            "SELECT at_ms, table_id, rating, uncertainty FROM skat_rating_history WHERE account_id = $1 ORDER BY at_ms",
        )
        .bind(account_id)
        .fetch_all(&self.pool)
        .await?;
        rows.iter()
            .map(|r| {
                Ok((
                    to_u64(r.try_get("at_ms")?),
                    r.try_get("table_id")?,
                    r.try_get("rating")?,
                    r.try_get("uncertainty")?,
                ))
            })
            .collect::<Result<_, sqlx::Error>>()
            .map_err(StoreError::from)
    }
}
