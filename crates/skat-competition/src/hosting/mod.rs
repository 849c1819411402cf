//! # The hosting room
//!
//! Hosted bots (docs/hosted-bots.md): an account submits versions of its bot as container
//! images, and the runner plays the account's seats with the active one, in sandboxes.
//!
//! | rule | why | where |
//! |---|---|---|
//! | a version is its image and its command, named by both ([`version_id`]), and never changes | a finished tournament says exactly which code played, and how it was started | [`upload`], `store/hosting.rs` |
//! | an archive is stored content-addressed, size-capped while it arrives, and checked to be an image archive before it is kept | a bad upload stores nothing | [`upload`] |
//! | a reference must pin a digest (`name@sha256:...`) | a tag can be moved under a running tournament | [`Hosting::submit_reference`] |
//! | an account is hosted when it has an active version the operator allows (approved) | one switch for the author; the operator may review first | [`Hosting::activate`], [`Hosting::approve`] |
//! | a hosted account's seats go to the runner's feed (a lobby opened on its behalf), never to a lobby of its own | two players for one seat would race | [`feed`] |
//! | the feed carries a seat token, never the account's bot token | a sandbox acts for one seat at one table and nothing else | [`feed`] |
//! | a seat is handed to the runner when its table is about to play (every seat taken), not while it waits for players | no sandbox idles at a table that may never fill |
//! | people's tables seat a hosted account only as `--hosting-people-tables` allows (the operator's tables by default) | each seat starts a sandbox on the operator's machine |
//! | a hosted tournament pins each entrant's version at creation | the version that played is the one that was entered | [`Hosting::pins_for`] |
//! | several runners follow the feed, each with its name and capacity; a seat goes to the runner its place is on; a feed opened again under a name takes that runner over | one replica's hosted capacity is as many machines as follow it; a restarted runner is not locked out by its own dead stream | [`feed`], [`runners`] |
//! | sandboxes and their output are bounded per account (50, 1 MiB each) | the database does not grow with a chatty bot | `store/hosting.rs` |
//!
//! Only `rpc` knows protobuf: this room speaks in [`StoredVersion`], [`StoredSandbox`]
//! and [`feed::HostedSeat`].

pub mod error;
pub mod feed;
pub mod runners;
pub mod upload;

use std::path::PathBuf;
use std::sync::Arc;

use skat_league::AccountId;
use tokio::sync::Notify;

pub use error::HostingError;

use crate::CompetitionConfig;
use crate::Competitions;
use crate::Metrics;
use crate::admin::Admin;
use skat_journal::Journal;
use skat_store::Store;
use skat_store::accounts::Account;
use skat_store::hosting::{Pin, SandboxFilter, StoredSandbox, StoredVersion, VersionState};
use skat_store::tables::unix_ms_now;
use skat_table::secret::same_token;
use skat_table::{Tables, Tasks};

/// Output kept per sandbox, in bytes (the oldest is dropped).
pub const MAX_LOG_BYTES: usize = 1024 * 1024;

/// The hosting of one server.
#[derive(Debug)]
pub struct Hosting {
    journal: Journal,
    config: Arc<CompetitionConfig>,
    competitions: Arc<Competitions>,
    /// The tables, to hand a seat out when its table is about to play.
    tables: Arc<Tables>,
    metrics: Metrics,
    /// The server's tasks: the feed's, each runner's, each lobby forwarded.
    tasks: Tasks,
    /// The runners following the feed, and the seats handed to them.
    runners: runners::Runners,
    /// Versions changed: the feed looks at the hosted accounts again at once.
    changed: Notify,
}

impl Hosting {
    /// The hosting of the server whose competitions are `competitions`.
    pub fn new(
        journal: Journal,
        config: Arc<CompetitionConfig>,
        competitions: Arc<Competitions>,
        tables: Arc<Tables>,
        metrics: Metrics,
        tasks: Tasks,
    ) -> Arc<Hosting> {
        Arc::new(Hosting {
            journal,
            config,
            competitions,
            tables,
            metrics,
            tasks,
            runners: runners::Runners::default(),
            changed: Notify::new(),
        })
    }

    fn store(&self) -> Result<&Store, HostingError> {
        self.journal.store().ok_or(HostingError::NoDatabase)
    }

    /// The account a bot token names.
    pub async fn author(&self, token: Option<&str>) -> Result<Account, HostingError> {
        Ok(self.competitions.accounts.authenticate(token).await?)
    }

    /// The operator.
    pub fn admin(&self, token: Option<&str>, peer: std::net::IpAddr) -> Result<Admin, HostingError> {
        Ok(self.competitions.admin(token, peer)?)
    }

    /// Checks the runner token.
    pub fn runner(&self, token: Option<&str>) -> Result<(), HostingError> {
        match (&self.config.hosting.runner_token, token) {
            (Some(want), Some(got)) if same_token(got, want) => Ok(()),
            _ => Err(HostingError::RunnerTokenInvalid),
        }
    }

    /// Where an archive with this digest is kept.
    pub fn archive_path(&self, digest: &str) -> Option<PathBuf> {
        let hex = digest.strip_prefix("sha256:")?;
        if hex.len() != 64 || !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
            return None;
        }
        Some(self.config.hosting.images_dir.as_ref()?.join(format!("sha256-{hex}.tar")))
    }

    /// A version pulled from a registry: its reference must pin a digest.
    pub async fn submit_reference(
        &self,
        account: &Account,
        image_ref: &str,
        header: &VersionHeader,
    ) -> Result<StoredVersion, HostingError> {
        let digest = pinned_digest(image_ref)?;
        self.keep(account, digest, image_ref.to_string(), 0, header).await
    }

    /// Keeps a version (as it stands when the account had it already: the same image
    /// with the same command), activates it when asked, and prunes the account's oldest
    /// versions beyond the limit.
    pub async fn keep(
        &self,
        account: &Account,
        digest: String,
        image_ref: String,
        size_bytes: u64,
        header: &VersionHeader,
    ) -> Result<StoredVersion, HostingError> {
        let store = self.store()?;
        header.check()?;
        let known = store.hosting.versions(&account.account_id).await?;
        let same = known.into_iter().find(|v| v.digest == digest && v.command == header.command);
        let id = match same {
            Some(v) => v.version_id,
            None => {
                let state =
                    if self.config.hosting.approval { VersionState::Pending } else { VersionState::Approved };
                let v = StoredVersion {
                    account_id: account.account_id.clone(),
                    version_id: version_id(&digest, &header.command),
                    digest: digest.clone(),
                    image_ref,
                    size_bytes,
                    command: header.command.clone(),
                    sdk: header.sdk.clone(),
                    state,
                    active: false,
                    failure: String::new(),
                    submitted_ms: unix_ms_now(),
                };
                if store.hosting.insert_version(&v).await? {
                    tracing::info!(account = %account.name, %digest, version = %v.version_id, size_bytes, "bot version submitted");
                    let keep = self.config.hosting.versions_per_account;
                    for gone in store.hosting.prune_versions(&account.account_id, keep).await? {
                        self.forget_archive(&gone).await;
                    }
                }
                v.version_id
            }
        };
        if header.activate
            && let Some(v) = self.activate(account, &VersionPick { version_id: &id, digest: "" }).await?
        {
            return Ok(v);
        }
        self.version(&account.account_id, &id).await
    }

    async fn forget_archive(&self, digest: &str) {
        let Ok(store) = self.store() else { return };
        if matches!(store.hosting.digest_in_use(digest).await, Ok(false))
            && let Some(path) = self.archive_path(digest)
        {
            let _ = tokio::fs::remove_file(path).await;
        }
    }

    async fn version(&self, account: &AccountId, id: &str) -> Result<StoredVersion, HostingError> {
        self.store()?
            .hosting
            .version(account, id)
            .await?
            .ok_or_else(|| HostingError::VersionNotFound(id.into()))
    }

    /// The version of `account` that `pick` names: by its name, or by its image's digest
    /// or a prefix of it (at least 12 digits) when the image has one version.
    async fn find(&self, account: &AccountId, pick: &VersionPick<'_>) -> Result<StoredVersion, HostingError> {
        let all = self.store()?.hosting.versions(account).await?;
        let named = pick.version_id.trim();
        if !named.is_empty() {
            return all
                .into_iter()
                .find(|v| v.version_id == named)
                .ok_or_else(|| HostingError::VersionNotFound(named.chars().take(80).collect()));
        }
        let want = pick.digest.trim();
        let hex = want.strip_prefix("sha256:").unwrap_or(want);
        if hex.len() < 12 || !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
            return Err(HostingError::VersionNotFound(want.chars().take(80).collect()));
        }
        let found: Vec<StoredVersion> =
            all.into_iter().filter(|v| v.digest["sha256:".len()..].starts_with(hex)).collect();
        match found.as_slice() {
            [v] => Ok(v.clone()),
            [] => Err(HostingError::VersionNotFound(want.chars().take(80).collect())),
            several if several.iter().all(|v| v.digest == several[0].digest) => {
                let ids: Vec<&str> = several.iter().map(|v| v.version_id.as_str()).collect();
                Err(HostingError::VersionAmbiguous(several[0].digest.clone(), ids.join(", ")))
            }
            _ => Err(HostingError::VersionNotFound(want.chars().take(80).collect())),
        }
    }

    /// The account's versions, newest first.
    pub async fn versions(&self, account: &Account) -> Result<Vec<StoredVersion>, HostingError> {
        Ok(self.store()?.hosting.versions(&account.account_id).await?)
    }

    /// Makes a version the one that plays (an empty digest: none plays; the account's
    /// own lobbies may open again).
    pub async fn activate(
        &self,
        account: &Account,
        pick: &VersionPick<'_>,
    ) -> Result<Option<StoredVersion>, HostingError> {
        let store = self.store()?;
        if pick.is_none() {
            store.hosting.set_active(&account.account_id, None).await?;
            self.changed.notify_waiters();
            tracing::info!(account = %account.name, "hosting ended: no version is active");
            return Ok(None);
        }
        let v = self.find(&account.account_id, pick).await?;
        store.hosting.set_active(&account.account_id, Some(&v.version_id)).await?;
        // Its own lobbies end: its seats go to the runner from now on.
        self.competitions.seats.close_lobbies(&account.account_id);
        self.changed.notify_waiters();
        tracing::info!(account = %account.name, version = %v.version_id, digest = %v.digest, "bot version activated");
        self.version(&account.account_id, &v.version_id).await.map(Some)
    }

    /// The operator approves a version (or sends it back to pending).
    pub async fn approve(
        &self,
        admin: &Admin,
        bot_name: &str,
        pick: &VersionPick<'_>,
        approve: bool,
    ) -> Result<StoredVersion, HostingError> {
        let store = self.store()?;
        let account = store
            .accounts
            .account_by_name(bot_name)
            .await?
            .ok_or_else(|| HostingError::BotNotFound(bot_name.into()))?;
        let v = self.find(&account.account_id, pick).await?;
        let state = if approve { VersionState::Approved } else { VersionState::Pending };
        store.hosting.set_version_state(&account.account_id, &v.version_id, state, "").await?;
        let what = if approve { "approve-version" } else { "withdraw-approval" };
        self.competitions
            .audit(admin, what, account.name.as_str(), format!("{} ({})", v.version_id, v.digest))
            .await;
        self.changed.notify_waiters();
        self.version(&account.account_id, &v.version_id).await
    }

    /// The version that plays an account's seats, when it is hosted now (an active,
    /// approved version): its own lobbies are refused.
    pub async fn hosted_version(&self, account: &AccountId) -> Result<Option<StoredVersion>, HostingError> {
        let Some(store) = self.journal.store() else { return Ok(None) };
        Ok(store
            .hosting
            .versions(account)
            .await?
            .into_iter()
            .find(|v| v.active && v.state == VersionState::Approved))
    }

    /// A hosted tournament's pins: every entrant's active, approved version, with the
    /// server's sandbox size. NOT_HOSTED names the first entrant without one.
    pub async fn pins_for(&self, names: &[String]) -> Result<Vec<Pin>, HostingError> {
        let store = self.store()?;
        let mut pins = Vec::with_capacity(names.len());
        for name in names {
            let account = store
                .accounts
                .account_by_name(name)
                .await?
                .ok_or_else(|| HostingError::BotNotFound(name.clone()))?;
            let v = store.hosting.versions(&account.account_id).await?.into_iter().find(|v| v.active);
            match v {
                Some(v) if v.state == VersionState::Approved => pins.push(Pin {
                    account_id: account.account_id,
                    version_id: v.version_id,
                    digest: v.digest,
                    cpu_millis: self.config.hosting.cpu_millis,
                    memory_mib: self.config.hosting.memory_mib,
                }),
                _ => return Err(HostingError::NotHosted(account.name.to_string())),
            }
        }
        Ok(pins)
    }

    /// A tournament's entrants and their pinned versions, by name.
    pub async fn pinned(&self, tournament_id: &str) -> Result<Vec<PinnedEntrant>, HostingError> {
        let Some(store) = self.journal.store() else { return Ok(Vec::new()) };
        let pins = store.hosting.pins(tournament_id).await?;
        let ids: Vec<AccountId> = pins.iter().map(|p| p.account_id.clone()).collect();
        let accounts = store.accounts.accounts(&ids).await?;
        let mut out = Vec::with_capacity(pins.len());
        for p in pins {
            let name =
                accounts.get(&p.account_id).map_or_else(|| p.account_id.to_string(), |a| a.name.to_string());
            // A pruned version is never pinned; an account removed since keeps its row.
            let command = store.hosting.version(&p.account_id, &p.version_id).await?.map(|v| v.command);
            out.push(PinnedEntrant {
                name,
                digest: p.digest,
                version_id: p.version_id,
                command: command.unwrap_or_default(),
            });
        }
        Ok(out)
    }

    /// The runner's report of a sandbox.
    pub async fn report(
        &self,
        mut sandbox: StoredSandbox,
        log: Option<&[u8]>,
        version_failure: &str,
    ) -> Result<(), HostingError> {
        let store = self.store()?;
        let account: AccountId =
            sandbox.account_id.parse().map_err(|_| HostingError::BotNotFound(sandbox.account_id.clone()))?;
        if !version_failure.is_empty() {
            let failure: String = version_failure.chars().filter(|c| !c.is_control()).take(500).collect();
            store.hosting.fail_image(&account, &sandbox.digest, &failure).await?;
            self.changed.notify_waiters();
        }
        let log = log.map(|bytes| {
            let start = bytes.len().saturating_sub(MAX_LOG_BYTES);
            sandbox.log_truncated |= start > 0;
            String::from_utf8_lossy(&bytes[start..]).into_owned()
        });
        sandbox.detail = sandbox.detail.chars().filter(|c| !c.is_control()).take(500).collect();
        // Its place comes back (when it is still on the runner that reports it).
        if sandbox.outcome != "running"
            && let (Ok(table), Ok(seat)) = (sandbox.table_id.parse(), u8::try_from(sandbox.seat))
        {
            let key = crate::SeatKey { table, seat: skat_engine::matches::Seat::new(seat) };
            self.competitions.places().release_from(&key, &sandbox.runner);
        }
        if sandbox.outcome == "running" {
            self.metrics.sandbox_started();
        } else {
            self.metrics.sandbox_ended(&sandbox.outcome, sandbox.outcome != "failed-to-start");
        }
        store.hosting.put_sandbox(&sandbox, log.as_deref()).await?;
        Ok(())
    }

    /// Sandboxes, newest first.
    pub async fn sandboxes(&self, filter: &SandboxFilter<'_>) -> Result<Vec<StoredSandbox>, HostingError> {
        Ok(self.store()?.hosting.sandboxes(filter).await?)
    }

    /// A sandbox's output, for its account (or the operator: `account` None).
    pub async fn sandbox_log(
        &self,
        id: &str,
        account: Option<&AccountId>,
    ) -> Result<(StoredSandbox, String), HostingError> {
        let found = self.store()?.hosting.sandbox_log(id).await?;
        match found {
            Some((s, log)) if account.is_none_or(|a| a.to_string() == s.account_id) => Ok((s, log)),
            _ => Err(HostingError::SandboxNotFound(id.chars().take(64).collect())),
        }
    }
}

/// A version named by the author or the operator: by its name, or by its image.
#[derive(Debug, Clone, Copy, Default)]
pub struct VersionPick<'a> {
    /// The version's name (`version_id`); wins over `digest`.
    pub version_id: &'a str,
    /// The image's digest, or a prefix of at least 12 hex digits.
    pub digest: &'a str,
}

impl VersionPick<'_> {
    /// Names nothing: no version is to play.
    fn is_none(&self) -> bool {
        self.version_id.trim().is_empty() && self.digest.trim().is_empty()
    }
}

/// A hosted tournament's entrant and what it plays.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PinnedEntrant {
    /// The account's name.
    pub name: String,
    /// The image.
    pub digest: String,
    /// The version's name.
    pub version_id: String,
    /// The command it runs (empty: the image's entry point).
    pub command: Vec<String>,
}

/// A version's name: the image digest's first 12 hex digits, and `-` with the first 8
/// of the SHA-256 of the command's JSON array when the version runs a command of its own.
pub fn version_id(digest: &str, command: &[String]) -> String {
    use sha2::Digest as _;
    let hex = digest.strip_prefix("sha256:").unwrap_or(digest);
    let image: String = hex.chars().take(12).collect();
    if command.is_empty() {
        return image;
    }
    let json = serde_json::to_string(command).unwrap_or_default();
    let hash = sha2::Sha256::digest(json.as_bytes());
    let short: String = hash.iter().take(4).map(|b| format!("{b:02x}")).collect();
    format!("{image}-{short}")
}

/// What the author says of a version.
#[derive(Debug, Clone, Default)]
pub struct VersionHeader {
    /// argv words.
    pub command: Vec<String>,
    /// The SDK.
    pub sdk: String,
    /// Activate at once.
    pub activate: bool,
}

impl VersionHeader {
    /// At most 32 argv words of 4 KiB (line breaks and tabs allowed: `python3 -c` takes
    /// a program), an SDK name of 32 printable characters.
    fn check(&self) -> Result<(), HostingError> {
        let printable = |s: &str| s.chars().all(|c| !c.is_control());
        let word = |s: &str| s.len() <= 4096 && s.chars().all(|c| !c.is_control() || c == '\n' || c == '\t');
        if self.command.len() > 32 || !self.command.iter().all(|w| word(w)) {
            return Err(HostingError::Setting(
                "a command has at most 32 words of 4 KiB, without control characters but line breaks and tabs".into(),
            ));
        }
        if self.sdk.chars().count() > 32 || !printable(&self.sdk) {
            return Err(HostingError::Setting("an SDK name has at most 32 printable characters".into()));
        }
        Ok(())
    }
}

/// The digest a reference pins: `name@sha256:<64 hex>`.
pub fn pinned_digest(image_ref: &str) -> Result<String, HostingError> {
    let bad = || {
        HostingError::NotAnImage(format!(
            "`{}` is not pinned by digest: give `NAME@sha256:<64 hex digits>` (a tag can change under a tournament)",
            image_ref.chars().take(200).collect::<String>()
        ))
    };
    if image_ref.len() > 512 || image_ref.chars().any(|c| c.is_control() || c.is_whitespace()) {
        return Err(bad());
    }
    let (name, digest) = image_ref.rsplit_once('@').ok_or_else(bad)?;
    let hex = digest.strip_prefix("sha256:").ok_or_else(bad)?;
    if name.is_empty() || hex.len() != 64 || !hex.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f')) {
        return Err(bad());
    }
    Ok(digest.to_string())
}

#[cfg(test)]
mod tests {
    use super::{pinned_digest, version_id};

    #[test]
    fn a_version_is_named_by_its_image_and_its_command() {
        let d = "sha256:".to_string() + &"3f".repeat(32);
        assert_eq!(version_id(&d, &[]), "3f3f3f3f3f3f");
        let a = version_id(&d, &["/bot".into()]);
        let b = version_id(&d, &["/bot".into(), "--fast".into()]);
        assert!(a.starts_with("3f3f3f3f3f3f-") && a.len() == 21, "{a}");
        assert_ne!(a, b, "another command, another version");
        assert_eq!(a, version_id(&d, &["/bot".into()]), "the same command, the same name");
    }

    #[test]
    fn a_reference_must_pin_a_digest() {
        let d = "sha256:".to_string() + &"ab".repeat(32);
        assert_eq!(pinned_digest(&format!("registry.example.org/me/bot@{d}")).ok(), Some(d.clone()));
        for bad in ["me/bot:1", "me/bot@sha256:abc", "@".to_string().as_str(), "me/bot@md5:00", "me bot@x"] {
            assert!(pinned_digest(bad).is_err(), "{bad}");
        }
        assert!(pinned_digest(&format!("me/bot@{}", d.to_uppercase())).is_err());
    }
}
