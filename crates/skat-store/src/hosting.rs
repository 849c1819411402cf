//! Hosted bots' SQL: versions (`skat_bot_versions`), a hosted tournament's pinned
//! versions (`skat_hosted_pins`) and the sandboxes the runner reported
//! (`skat_sandboxes`). Rows in, rows out: who may submit, approve or play is decided by
//! the hosting room.

use skat_league::AccountId;
use sqlx::Row as _;
use sqlx::any::AnyRow;

use super::accounts::{ACCOUNT_COLUMNS, Account, account_from};
use super::{Db, StoreError, to_i64, to_u64};

/// Sandboxes kept per account (older ones, with their output, are deleted).
pub const SANDBOXES_PER_ACCOUNT: i64 = 50;

/// Where a version is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum VersionState {
    /// Waits for the operator.
    Pending,
    /// May play.
    Approved,
    /// Its image could not be pulled or loaded.
    Failed,
}

impl VersionState {
    fn as_str(self) -> &'static str {
        match self {
            VersionState::Pending => "pending",
            VersionState::Approved => "approved",
            VersionState::Failed => "failed",
        }
    }

    fn parse(s: &str) -> Result<VersionState, sqlx::Error> {
        match s {
            "pending" => Ok(VersionState::Pending),
            "approved" => Ok(VersionState::Approved),
            "failed" => Ok(VersionState::Failed),
            other => Err(sqlx::Error::Decode(format!("version state `{other}`").into())),
        }
    }
}

/// A submitted version: an image and a command.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredVersion {
    /// The account.
    pub account_id: AccountId,
    /// Its name within the account (see `hosting::version_id`).
    pub version_id: String,
    /// The image's `sha256:<hex>`.
    pub digest: String,
    /// The pinned reference, or empty for an archive.
    pub image_ref: String,
    /// The archive's size (0 for a reference).
    pub size_bytes: u64,
    /// argv words (empty: the image's entry point).
    pub command: Vec<String>,
    /// The SDK it says it uses.
    pub sdk: String,
    /// Pending, approved or failed.
    pub state: VersionState,
    /// The one that plays.
    pub active: bool,
    /// Why it failed.
    pub failure: String,
    /// When (Unix ms).
    pub submitted_ms: u64,
}

/// A sandbox as the runner reported it (its output apart).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct StoredSandbox {
    /// The runner's id for it.
    pub sandbox_id: String,
    /// The account.
    pub account_id: String,
    /// The version's image.
    pub digest: String,
    /// The version's name.
    pub version_id: String,
    /// The runner that ran it.
    pub runner: String,
    /// Where.
    pub table_id: String,
    /// Which seat.
    pub seat: u32,
    /// The tournament, or empty.
    pub tournament_id: String,
    /// `running`, `exited`, `stopped`, `out-of-memory`, `timed-out`, `failed-to-start`.
    pub outcome: String,
    /// Exit status.
    pub exit_code: i32,
    /// CPU used.
    pub cpu_ms: u64,
    /// Peak memory.
    pub memory_peak: u64,
    /// Started (Unix ms).
    pub started_ms: u64,
    /// Ended (Unix ms; 0: running).
    pub ended_ms: u64,
    /// What happened, in words.
    pub detail: String,
    /// Bytes of output kept.
    pub log_bytes: u64,
    /// Whether older output was dropped.
    pub log_truncated: bool,
}

/// A hosted tournament's pin: the version an entrant plays and its sandbox's size.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pin {
    /// The entrant.
    pub account_id: AccountId,
    /// Its version's name.
    pub version_id: String,
    /// Its version's image.
    pub digest: String,
    /// CPU, in millicores.
    pub cpu_millis: u32,
    /// Memory, in MiB.
    pub memory_mib: u32,
}

const VERSION_COLUMNS: &str = "account_id, version_id, digest, image_ref, size_bytes, command, sdk, state, active, failure, submitted_ms";

fn version_from(r: &AnyRow) -> Result<StoredVersion, sqlx::Error> {
    let command: String = r.try_get("command")?;
    let account: String = r.try_get("account_id")?;
    Ok(StoredVersion {
        account_id: account.parse().map_err(|e: String| sqlx::Error::Decode(e.into()))?,
        version_id: r.try_get("version_id")?,
        digest: r.try_get("digest")?,
        image_ref: r.try_get("image_ref")?,
        size_bytes: to_u64(r.try_get("size_bytes")?),
        command: serde_json::from_str(&command).map_err(|e| sqlx::Error::Decode(e.into()))?,
        sdk: r.try_get("sdk")?,
        state: VersionState::parse(&r.try_get::<String, _>("state")?)?,
        active: r.try_get::<i64, _>("active")? != 0,
        failure: r.try_get("failure")?,
        submitted_ms: to_u64(r.try_get("submitted_ms")?),
    })
}

const SANDBOX_COLUMNS: &str = "sandbox_id, account_id, digest, version_id, runner, table_id, seat, tournament_id, outcome, \
     exit_code, cpu_ms, memory_peak, started_ms, ended_ms, detail, CAST(LENGTH(log) AS BIGINT) AS log_bytes, log_truncated";

fn sandbox_from(r: &AnyRow) -> Result<StoredSandbox, sqlx::Error> {
    Ok(StoredSandbox {
        sandbox_id: r.try_get("sandbox_id")?,
        account_id: r.try_get("account_id")?,
        digest: r.try_get("digest")?,
        version_id: r.try_get("version_id")?,
        runner: r.try_get("runner")?,
        table_id: r.try_get("table_id")?,
        seat: u32::try_from(r.try_get::<i64, _>("seat")?).unwrap_or(0),
        tournament_id: r.try_get("tournament_id")?,
        outcome: r.try_get("outcome")?,
        exit_code: i32::try_from(r.try_get::<i64, _>("exit_code")?).unwrap_or(-1),
        cpu_ms: to_u64(r.try_get("cpu_ms")?),
        memory_peak: to_u64(r.try_get("memory_peak")?),
        started_ms: to_u64(r.try_get("started_ms")?),
        ended_ms: to_u64(r.try_get("ended_ms")?),
        detail: r.try_get("detail")?,
        log_bytes: to_u64(r.try_get::<i64, _>("log_bytes").unwrap_or(0)),
        log_truncated: r.try_get::<i64, _>("log_truncated")? != 0,
    })
}

/// Which sandboxes a listing wants.
#[derive(Debug, Clone, Default)]
pub struct SandboxFilter<'a> {
    /// One account's (None: every account's).
    pub account: Option<&'a AccountId>,
    /// Only running ones.
    pub running_only: bool,
    /// One table's.
    pub table_id: Option<&'a str>,
    /// At most this many.
    pub limit: u32,
}

/// Hosted bots' versions, a hosted tournament's pins and the sandboxes the runners reported.
#[derive(Debug, Clone)]
pub struct HostingRepo {
    pub(super) db: Db,
}

impl HostingRepo {
    /// Keeps a new version; false when the account has it already (it is unchanged).
    pub async fn insert_version(&self, v: &StoredVersion) -> Result<bool, StoreError> {
        let command = serde_json::to_string(&v.command).map_err(|e| StoreError::Corrupt(e.to_string()))?;
        let done = sqlx::query(&format!(
            "INSERT INTO skat_bot_versions ({VERSION_COLUMNS}) VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11) \
             ON CONFLICT (account_id, version_id) DO NOTHING"
        ))
        .bind(v.account_id.to_string())
        .bind(v.version_id.as_str())
        .bind(v.digest.as_str())
        .bind(v.image_ref.as_str())
        .bind(to_i64(v.size_bytes))
        .bind(command)
        .bind(v.sdk.as_str())
        .bind(v.state.as_str())
        .bind(i64::from(v.active))
        .bind(v.failure.as_str())
        .bind(to_i64(v.submitted_ms))
        .execute(&self.db.pool)
        .await?;
        Ok(done.rows_affected() == 1)
    }

    /// An account's versions, newest first.
    pub async fn versions(&self, account: &AccountId) -> Result<Vec<StoredVersion>, StoreError> {
        let rows = sqlx::query(&format!(
            "SELECT {VERSION_COLUMNS} FROM skat_bot_versions WHERE account_id = $1 \
             ORDER BY submitted_ms DESC, version_id"
        ))
        .bind(account.to_string())
        .fetch_all(&self.db.pool)
        .await?;
        Ok(rows.iter().map(version_from).collect::<Result<_, _>>()?)
    }

    /// An account's version by its name.
    pub async fn version(
        &self,
        account: &AccountId,
        version_id: &str,
    ) -> Result<Option<StoredVersion>, StoreError> {
        let row = sqlx::query(&format!(
            "SELECT {VERSION_COLUMNS} FROM skat_bot_versions WHERE account_id = $1 AND version_id = $2"
        ))
        .bind(account.to_string())
        .bind(version_id)
        .fetch_optional(&self.db.pool)
        .await?;
        Ok(row.as_ref().map(version_from).transpose()?)
    }

    /// Makes the version named `version_id` the account's active one (None: none is).
    pub async fn set_active(&self, account: &AccountId, version_id: Option<&str>) -> Result<(), StoreError> {
        let mut tx = self.db.pool.begin().await?;
        sqlx::query("UPDATE skat_bot_versions SET active = 0 WHERE account_id = $1")
            .bind(account.to_string())
            .execute(&mut *tx)
            .await?;
        if let Some(d) = version_id {
            sqlx::query("UPDATE skat_bot_versions SET active = 1 WHERE account_id = $1 AND version_id = $2")
                .bind(account.to_string())
                .bind(d)
                .execute(&mut *tx)
                .await?;
        }
        tx.commit().await?;
        Ok(())
    }

    /// Sets a version's state (and the failure text; empty when not failed).
    pub async fn set_version_state(
        &self,
        account: &AccountId,
        version_id: &str,
        state: VersionState,
        failure: &str,
    ) -> Result<(), StoreError> {
        sqlx::query(
            "UPDATE skat_bot_versions SET state = $3, failure = $4 WHERE account_id = $1 AND version_id = $2",
        )
        .bind(account.to_string())
        .bind(version_id)
        .bind(state.as_str())
        .bind(failure)
        .execute(&self.db.pool)
        .await?;
        Ok(())
    }

    /// Marks every version of an account with this image failed (its image could not be
    /// had: whatever command it runs, it cannot start).
    pub async fn fail_image(
        &self,
        account: &AccountId,
        digest: &str,
        failure: &str,
    ) -> Result<(), StoreError> {
        sqlx::query(
            "UPDATE skat_bot_versions SET state = 'failed', failure = $3 WHERE account_id = $1 AND digest = $2",
        )
        .bind(account.to_string())
        .bind(digest)
        .bind(failure)
        .execute(&self.db.pool)
        .await?;
        Ok(())
    }

    /// Every account that is hosted now (an active, approved version; not disabled or
    /// removed), with that version.
    pub async fn hosted_accounts(&self) -> Result<Vec<(Account, StoredVersion)>, StoreError> {
        let account_columns: String =
            ACCOUNT_COLUMNS.split(", ").map(|c| format!("a.{c}")).collect::<Vec<_>>().join(", ");
        let version_columns: String = VERSION_COLUMNS
            .split(", ")
            .filter(|c| *c != "account_id")
            .map(|c| format!("v.{c}"))
            .collect::<Vec<_>>()
            .join(", ");
        let rows = sqlx::query(&format!(
            "SELECT {account_columns}, {version_columns} FROM skat_accounts a \
             JOIN skat_bot_versions v ON v.account_id = a.account_id \
             WHERE v.active = 1 AND v.state = 'approved' AND a.disabled = 0 AND a.removed_ms = 0"
        ))
        .fetch_all(&self.db.pool)
        .await?;
        let mut out = Vec::with_capacity(rows.len());
        for r in &rows {
            out.push((account_from(r)?, version_from(r)?));
        }
        Ok(out)
    }

    /// The oldest versions of an account beyond the newest `keep`, that are neither
    /// active nor pinned by a tournament: deleted, their image digests returned (the
    /// caller removes archives no other version still names).
    pub async fn prune_versions(&self, account: &AccountId, keep: usize) -> Result<Vec<String>, StoreError> {
        let all = self.versions(account).await?;
        let mut removed = Vec::new();
        for v in all.iter().skip(keep).filter(|v| !v.active) {
            let pinned: i64 = sqlx::query(
                "SELECT COUNT(*) AS n FROM skat_hosted_pins WHERE account_id = $1 AND version_id = $2",
            )
            .bind(account.to_string())
            .bind(v.version_id.as_str())
            .fetch_one(&self.db.pool)
            .await?
            .try_get("n")?;
            if pinned > 0 {
                continue;
            }
            sqlx::query("DELETE FROM skat_bot_versions WHERE account_id = $1 AND version_id = $2")
                .bind(account.to_string())
                .bind(v.version_id.as_str())
                .execute(&self.db.pool)
                .await?;
            removed.push(v.digest.clone());
        }
        Ok(removed)
    }

    /// Whether any account still has a version with this digest.
    pub async fn digest_in_use(&self, digest: &str) -> Result<bool, StoreError> {
        let n: i64 = sqlx::query("SELECT COUNT(*) AS n FROM skat_bot_versions WHERE digest = $1")
            .bind(digest)
            .fetch_one(&self.db.pool)
            .await?
            .try_get("n")?;
        Ok(n > 0)
    }

    /// Pins a hosted tournament's entrants' versions.
    pub async fn pin_versions(&self, tournament_id: &str, pins: &[Pin]) -> Result<(), StoreError> {
        let mut tx = self.db.pool.begin().await?;
        for p in pins {
            sqlx::query(
                "INSERT INTO skat_hosted_pins (tournament_id, account_id, digest, cpu_millis, memory_mib, version_id) \
                 VALUES ($1,$2,$3,$4,$5,$6)",
            )
            .bind(tournament_id)
            .bind(p.account_id.to_string())
            .bind(p.digest.as_str())
            .bind(i64::from(p.cpu_millis))
            .bind(i64::from(p.memory_mib))
            .bind(p.version_id.as_str())
            .execute(&mut *tx)
            .await?;
        }
        tx.commit().await?;
        Ok(())
    }

    /// A tournament's pins (none: it is not hosted).
    pub async fn pins(&self, tournament_id: &str) -> Result<Vec<Pin>, StoreError> {
        let rows = sqlx::query(
            "SELECT account_id, version_id, digest, cpu_millis, memory_mib FROM skat_hosted_pins WHERE tournament_id = $1 \
             ORDER BY account_id",
        )
        .bind(tournament_id)
        .fetch_all(&self.db.pool)
        .await?;
        let mut out = Vec::with_capacity(rows.len());
        for r in &rows {
            let account: String = r.try_get("account_id")?;
            out.push(Pin {
                account_id: account.parse().map_err(|e: String| StoreError::Corrupt(e))?,
                version_id: r.try_get("version_id")?,
                digest: r.try_get("digest")?,
                cpu_millis: u32::try_from(r.try_get::<i64, _>("cpu_millis")?).unwrap_or(1000),
                memory_mib: u32::try_from(r.try_get::<i64, _>("memory_mib")?).unwrap_or(512),
            });
        }
        Ok(out)
    }

    /// Keeps a sandbox's report (`log`: its output, when sent), and deletes the
    /// account's sandboxes beyond the newest [`SANDBOXES_PER_ACCOUNT`].
    pub async fn put_sandbox(&self, s: &StoredSandbox, log: Option<&str>) -> Result<(), StoreError> {
        let mut tx = self.db.pool.begin().await?;
        sqlx::query(
            "INSERT INTO skat_sandboxes (sandbox_id, account_id, digest, table_id, seat, tournament_id, outcome, \
             exit_code, cpu_ms, memory_peak, started_ms, ended_ms, detail, log, log_truncated, version_id, runner) \
             VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11,$12,$13,$14,$15,$17,$18) \
             ON CONFLICT (sandbox_id) DO UPDATE SET outcome = $7, exit_code = $8, cpu_ms = $9, \
             memory_peak = $10, ended_ms = $12, detail = $13, \
             log = CASE WHEN $16 = 1 THEN $14 ELSE skat_sandboxes.log END, \
             log_truncated = CASE WHEN $16 = 1 THEN $15 ELSE skat_sandboxes.log_truncated END",
        )
        .bind(s.sandbox_id.as_str())
        .bind(s.account_id.as_str())
        .bind(s.digest.as_str())
        .bind(s.table_id.as_str())
        .bind(i64::from(s.seat))
        .bind(s.tournament_id.as_str())
        .bind(s.outcome.as_str())
        .bind(i64::from(s.exit_code))
        .bind(to_i64(s.cpu_ms))
        .bind(to_i64(s.memory_peak))
        .bind(to_i64(s.started_ms))
        .bind(to_i64(s.ended_ms))
        .bind(s.detail.as_str())
        .bind(log.unwrap_or(""))
        .bind(i64::from(s.log_truncated))
        .bind(i64::from(log.is_some()))
        .bind(s.version_id.as_str())
        .bind(s.runner.as_str())
        .execute(&mut *tx)
        .await?;
        sqlx::query(
            "DELETE FROM skat_sandboxes WHERE account_id = $1 AND sandbox_id NOT IN \
             (SELECT sandbox_id FROM skat_sandboxes WHERE account_id = $1 ORDER BY started_ms DESC LIMIT $2)",
        )
        .bind(s.account_id.as_str())
        .bind(SANDBOXES_PER_ACCOUNT)
        .execute(&mut *tx)
        .await?;
        tx.commit().await?;
        Ok(())
    }

    /// Sandboxes, newest first.
    pub async fn sandboxes(&self, f: &SandboxFilter<'_>) -> Result<Vec<StoredSandbox>, StoreError> {
        let rows = sqlx::query(&format!(
            "SELECT {SANDBOX_COLUMNS} FROM skat_sandboxes \
             WHERE ($1 = '' OR account_id = $1) AND ($2 = 0 OR outcome = 'running') AND ($3 = '' OR table_id = $3) \
             ORDER BY started_ms DESC, sandbox_id LIMIT $4"
        ))
        .bind(f.account.map(ToString::to_string).unwrap_or_default())
        .bind(i64::from(f.running_only))
        .bind(f.table_id.unwrap_or(""))
        .bind(i64::from(f.limit))
        .fetch_all(&self.db.pool)
        .await?;
        Ok(rows.iter().map(sandbox_from).collect::<Result<_, _>>()?)
    }

    /// One sandbox and its output.
    pub async fn sandbox_log(&self, id: &str) -> Result<Option<(StoredSandbox, String)>, StoreError> {
        let row =
            sqlx::query(&format!("SELECT {SANDBOX_COLUMNS}, log FROM skat_sandboxes WHERE sandbox_id = $1"))
                .bind(id)
                .fetch_optional(&self.db.pool)
                .await?;
        let Some(r) = row else { return Ok(None) };
        Ok(Some((sandbox_from(&r)?, r.try_get("log")?)))
    }
}
