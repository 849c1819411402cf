//! Tournaments: creating one, and its scheduler, which seats the planned tables as the
//! entrants' quotas allow, plans the next Swiss round when a round is over, and marks
//! the tournament finished when every table is.
//!
//! | rule | why |
//! |---|---|
//! | one scheduler per tournament over every replica: a lease in the database, renewed every quarter of its life | two replicas never seat the same table |
//! | a replica takes over a tournament whose lease ran out (polled every few seconds) | a dead replica's tournaments go on |
//! | only the lease holder seats, so its cached plan's pending tables are exactly those it has not seated | no database read per pass for the plan |
//! | quotas and names are read again every 2 s | an operator's change takes effect within seconds |
//! | the tables that wait least for busy entrants go first | no entrant's quota fills while others idle |
//! | seated tables are marked playing in one transaction, and only then watched | a result is never overwritten |
//! | no table is seated before the start time | a tournament can be announced before it begins |
//! | every pass reads the status and start time again (one row) | a pause, a cancellation or a new start takes effect within a tick, on whichever replica schedules |
//! | a hosted tournament's table is seated only when every seat has a place on the runners ([`super::admission`]), in the order picked; the others wait, and say so | no sandbox is started where it would overcommit a core, and no clock runs for a table that waits |

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime};

use skat_league::plan::{first_plan, rounds_planned, swiss_round, swiss_rounds, tables_in_all};
use skat_league::{
    AccountId, BotName, Format, PlannedTable, TableStatus, TournamentId, TournamentSpec, TournamentStatus,
};
use skat_league::{NameKind, check_name};
use tokio::sync::Notify;

use super::admin::Admin;
use super::control::{check_rounds, check_start, start_words};
use super::error::shown;
use super::places::Size;
use super::{CompetitionError, Ctx, lock};
use super::{admission, casual};
use skat_store::hosting::Pin;
use skat_store::tournaments::Tournament;
use skat_store::{Store, StoreError};
use skat_table::secret::random_u64;
use skat_table::unix_ms;

/// How long a scheduler's lease lasts unless renewed.
const LEASE: Duration = Duration::from_secs(10);
/// How often a scheduler looks at its plan when nothing woke it, and renews its lease.
const SCHEDULER_TICK: Duration = Duration::from_secs(1);
/// How often a replica looks for tournaments whose scheduler lease ran out.
const TAKEOVER_POLL: Duration = Duration::from_secs(3);
/// How often a scheduler reads its entrants' quotas and names again.
const QUOTAS_FRESH_FOR: Duration = Duration::from_secs(2);

/// The schedulers running in this process, and what wakes them.
#[derive(Debug, Default)]
pub struct Running {
    ids: Mutex<HashSet<TournamentId>>,
    /// A table finished here, a lobby opened, an account changed.
    wake: Notify,
    /// Hosted tournaments' tables due and waiting for places, by tournament.
    waiting: Mutex<HashMap<TournamentId, u32>>,
    /// Held while a scheduler seats tables and while the operator pauses or cancels: a
    /// pause answered OK is never followed by a table seated here (the scheduler reads
    /// the status again under it).
    seating: tokio::sync::Mutex<()>,
}

impl Running {
    /// Held by a change that must not cross a seating (a pause, a cancellation).
    pub async fn hold_seating(&self) -> tokio::sync::MutexGuard<'_, ()> {
        self.seating.lock().await
    }

    /// Wakes every scheduler of this process for a pass.
    pub fn wake(&self) {
        self.wake.notify_waiters();
    }

    /// How many of a tournament's tables wait for places (as its scheduler here last saw).
    pub fn waiting(&self, id: &TournamentId) -> u32 {
        lock(&self.waiting).get(id).copied().unwrap_or(0)
    }

    /// Notes a tournament's waiting tables; the sum over tournaments.
    fn set_waiting(&self, id: &TournamentId, n: u32) -> u32 {
        let mut w = lock(&self.waiting);
        if n == 0 {
            w.remove(id);
        } else {
            w.insert(id.clone(), n);
        }
        w.values().sum()
    }
}

/// The entrants' quotas and names as last read.
#[derive(Debug, Default)]
pub(super) struct Entrants {
    read_at: Option<Instant>,
    pub(super) quota: HashMap<AccountId, u32>,
    pub(super) names: Arc<HashMap<AccountId, BotName>>,
}

/// A scheduler's state between passes.
#[derive(Debug, Default)]
struct Pass {
    /// The plan as last read, with what this scheduler seated since.
    cached: Option<(Tournament, Vec<PlannedTable>)>,
    /// A hosted tournament's sandbox size (its pins'): its tables need places.
    hosted: Option<Size>,
    renewed: Option<Instant>,
    entrants: Entrants,
    announced: bool,
}

/// What a pass decided.
enum Next {
    /// Look again (at once, or after waiting for a wake-up).
    Again { wait: bool },
    /// The scheduler is done: the tournament finished, or another replica has it.
    Stop,
}

/// Tournaments: created, scheduled pass by pass, seated (`seating`), and casual meetings matched (`casual`).
#[derive(Debug)]
pub struct Scheduler {
    pub(super) ctx: Ctx,
    pub(super) results: Arc<super::results::Results>,
    pub(super) casual: casual::CasualQueue,
}

impl Scheduler {
    /// Creates a tournament (entrants by account name) and starts its scheduler; `spec`
    /// holds every other setting (its `entrants` are filled in here). Returns its id, how
    /// many tables its first plan has and how many it will have in all.
    pub async fn create_tournament(
        self: &Arc<Self>,
        name: &str,
        entrant_names: &[String],
        mut spec: TournamentSpec,
        admin: &Admin,
        pins: &[Pin],
    ) -> Result<(TournamentId, usize, usize, String), CompetitionError> {
        let store = self.ctx.store()?;
        // No name (an older client): the tournament is called `tournament`.
        let name = check_name(NameKind::Tournament, if name.is_empty() { "tournament" } else { name })?;
        spec.entrants.clear();
        for n in entrant_names {
            let a = store
                .accounts
                .account_by_name(n)
                .await?
                .ok_or_else(|| CompetitionError::UnknownEntrant(shown(n)))?;
            if a.disabled || a.removed_ms > 0 {
                return Err(CompetitionError::EntrantDisabled(a.name.to_string()));
            }
            if !spec.entrants.contains(&a.account_id) {
                spec.entrants.push(a.account_id);
            }
        }
        if spec.entrants.len() < usize::from(spec.seats) {
            return Err(CompetitionError::TooFewEntrants(spec.seats));
        }
        if spec.format == Format::Casual {
            return Err(CompetitionError::CasualNotCreatable);
        }
        check_start(spec.start_ms)?;
        check_rounds(&spec)?;
        spec.lists = spec.lists.max(1);
        spec.rounds = match spec.format {
            Format::Swiss => swiss_rounds(spec.entrants.len(), spec.seats, spec.rounds),
            _ => 0,
        };
        let in_all = tables_in_all(&spec);
        let rounds = if spec.rounds > 0 { format!(" in {} rounds", spec.rounds) } else { String::new() };
        let detail = format!(
            "`{name}`: {}{rounds}, {} entrants at {} seats, {in_all} tables, {}",
            spec.format.words(),
            spec.entrants.len(),
            spec.seats,
            start_words(spec.start_ms)
        );
        let (id, first, commitment) = self.start_tournament(name, spec, pins).await?;
        let hosted =
            if pins.is_empty() { String::new() } else { format!("; hosted, {} versions pinned", pins.len()) };
        let detail = format!("{detail}{hosted}; deals committed: {commitment}");
        self.ctx.audit(admin, "create-tournament", id.as_str(), detail).await;
        Ok((id, first, in_all, commitment))
    }

    /// Stores a tournament with its first plan, takes its lease and starts its scheduler.
    /// Its deals come from `spec.secret` (drawn here when empty); returns the id, the
    /// tables of the first plan and the commitment to the secret.
    /// A hosted tournament's `pins` are kept before its first table is seated.
    pub(super) async fn start_tournament(
        self: &Arc<Self>,
        name: String,
        spec: TournamentSpec,
        pins: &[Pin],
    ) -> Result<(TournamentId, usize, String), CompetitionError> {
        let store = self.ctx.store()?;
        let (t, plan, lease_until_ms) = self.new_tournament(name, spec)?;
        store.tournaments.create_tournament(&t, &plan, lease_until_ms).await?;
        if !pins.is_empty() {
            store.hosting.pin_versions(t.tournament_id.as_str(), pins).await?;
        }
        self.launch(&t, plan.len());
        Ok((t.tournament_id, plan.len(), t.spec.commitment))
    }

    /// A tournament to store, running, with its first plan and the end of the lease its
    /// creator takes: its deals from `spec.secret` (drawn here when empty), committed.
    pub(super) fn new_tournament(
        &self,
        name: String,
        mut spec: TournamentSpec,
    ) -> Result<(Tournament, Vec<PlannedTable>, u64), CompetitionError> {
        if spec.secret.is_empty() {
            let mut bytes = [0u8; 32];
            for chunk in bytes.chunks_mut(8) {
                chunk.copy_from_slice(&random_u64()?.to_le_bytes());
            }
            spec.secret = skat_league::deals::DealSecret::of_bytes(&bytes);
        }
        spec.commitment = skat_league::deals::commitment(spec.secret.reveal());
        let plan = first_plan(&spec);
        let now = unix_ms(SystemTime::now());
        let t = Tournament {
            tournament_id: TournamentId::from_random(random_u64()?),
            owner: self.ctx.journal.owner().to_string(),
            name,
            spec,
            status: TournamentStatus::Running,
            created_ms: now,
            finished_ms: 0,
        };
        Ok((t, plan, now + LEASE.as_millis() as u64))
    }

    /// Starts the scheduler of a tournament just stored (its lease is this replica's).
    pub(super) fn launch(self: &Arc<Self>, t: &Tournament, tables: usize) {
        tracing::info!(tournament = %t.tournament_id, tables, format = ?t.spec.format, "tournament created");
        let me = Arc::clone(self);
        let tid = t.tournament_id.clone();
        self.ctx.tasks.spawn(async move { me.run(tid).await });
    }

    /// From now on, runs the scheduler of every running tournament whose lease is free
    /// (its own from before a restart, or one a dead replica held).
    pub(super) fn follow_leases(self: &Arc<Self>, store: Store) {
        let me = Arc::clone(self);
        self.ctx.tasks.spawn(async move {
            loop {
                let now = unix_ms(SystemTime::now());
                match store.tournaments.takeable_tournaments(me.ctx.journal.owner(), now).await {
                    Ok(ids) => {
                        for id in ids {
                            if !lock(&me.ctx.schedulers.ids).contains(&id) {
                                let me = Arc::clone(&me);
                                me.ctx.tasks.clone().spawn(async move { me.run(id).await });
                            }
                        }
                    }
                    Err(e) => tracing::warn!(error = %e, "could not look for tournaments to schedule"),
                }
                tokio::time::sleep(TAKEOVER_POLL).await;
            }
        });
    }

    /// A tournament's scheduler, while this replica holds its lease.
    async fn run(self: Arc<Self>, id: TournamentId) {
        if !lock(&self.ctx.schedulers.ids).insert(id.clone()) {
            return;
        }
        if let Err(e) = self.schedule(&id).await {
            tracing::error!(tournament = %id, error = %e, "the tournament's scheduler stopped");
        }
        lock(&self.ctx.schedulers.ids).remove(&id);
    }

    /// Passes until the tournament is finished or the lease is lost.
    async fn schedule(self: &Arc<Self>, id: &TournamentId) -> Result<(), StoreError> {
        let Some(store) = self.ctx.journal.store().cloned() else { return Ok(()) };
        let mut pass = Pass::default();
        loop {
            match self.pass(&store, id, &mut pass).await? {
                Next::Stop => return Ok(()),
                Next::Again { wait: false } => {}
                Next::Again { wait: true } => {
                    tokio::select! {
                        _ = self.ctx.schedulers.wake.notified() => {
                            // Let the tables finishing together be counted in one pass.
                            tokio::time::sleep(Duration::from_millis(10)).await;
                        }
                        _ = tokio::time::sleep(SCHEDULER_TICK) => {}
                    }
                }
            }
        }
    }

    /// One look at the plan: renew the lease, wait for the start, plan or finish, seat.
    async fn pass(
        self: &Arc<Self>,
        store: &Store,
        id: &TournamentId,
        pass: &mut Pass,
    ) -> Result<Next, StoreError> {
        let me = self.ctx.journal.owner().to_string();
        if pass.renewed.is_none_or(|r| r.elapsed() >= LEASE / 4) {
            let now = unix_ms(SystemTime::now());
            if !store.tournaments.take_lease(id, &me, now, now + LEASE.as_millis() as u64).await? {
                tracing::info!(tournament = %id, "another replica schedules this tournament");
                return Ok(Next::Stop);
            }
            pass.renewed = Some(Instant::now());
        }
        if pass.cached.is_none() {
            let Some(loaded) = store.tournaments.tournament(id).await? else { return Ok(Next::Stop) };
            pass.cached = Some(loaded);
            pass.hosted = admission::size_of(&store.hosting.pins(id.as_str()).await?);
        }
        let Some((t, plan)) = pass.cached.as_mut() else { return Ok(Next::Again { wait: false }) };
        // What the operator may have changed: cancelled, paused, a new start time.
        match store.tournaments.tournament_state(id).await? {
            None => return Ok(Next::Stop),
            Some((status, _)) if status.is_over() => {
                tracing::info!(tournament = %id, %status, "the tournament is over; its scheduler stops");
                return Ok(Next::Stop);
            }
            Some((status, start_ms)) => {
                t.status = status;
                t.spec.start_ms = start_ms;
            }
        }
        if t.status == TournamentStatus::Paused {
            return Ok(Next::Again { wait: true });
        }
        if !pass.announced {
            pass.announced = true;
            tracing::info!(tournament = %id, replica = %me, "scheduling");
            if t.spec.format == Format::Casual {
                self.casual.playing(&t.spec.entrants);
            }
        }
        let now = unix_ms(SystemTime::now());
        if now < t.spec.start_ms {
            let wait = Duration::from_millis(t.spec.start_ms - now).min(SCHEDULER_TICK * 3);
            tokio::time::sleep(wait).await;
            return Ok(Next::Again { wait: false });
        }
        // Tables at once per account, over every tournament and replica.
        let playing = store.tournaments.playing_tables().await?;
        let mut active: HashMap<AccountId, u32> = HashMap::new();
        let mut mine_playing = 0;
        for p in &playing {
            mine_playing += usize::from(&p.tournament_id == id);
            for a in &p.planned.seating {
                *active.entry(a.clone()).or_default() += 1;
            }
        }
        let pending = plan.iter().filter(|p| p.status == TableStatus::Pending).count();
        if pending + mine_playing == 0 {
            return self.round_over(store, id, &me, pass).await;
        }
        if pass.entrants.read_at.is_none_or(|at| at.elapsed() >= QUOTAS_FRESH_FOR) {
            pass.entrants = self.read_entrants(store, &t.spec).await?;
        }
        let picks = self.pick(plan, &mut active, &pass.entrants);
        let admitted = admission::admit(&self.ctx.places, pass.hosted, t.spec.seats, picks, &self.ctx.config);
        let all_waiting = self.ctx.schedulers.set_waiting(id, admitted.waiting);
        self.ctx.metrics.tables_waiting(all_waiting);
        self.seat_admitted(store, id, t, plan, admitted.tables, &pass.entrants).await?;
        Ok(Next::Again { wait: true })
    }

    /// Seats the admitted tables, marks them playing and watches them.
    async fn seat_admitted(
        self: &Arc<Self>,
        store: &Store,
        id: &TournamentId,
        t: &Tournament,
        plan: &mut [PlannedTable],
        admitted: Vec<(usize, skat_table::TableId)>,
        entrants: &Entrants,
    ) -> Result<(), StoreError> {
        if admitted.is_empty() {
            return Ok(());
        }
        // Under the seating lock, the status once more: a pause or a cancellation that
        // came after the pass read it holds (it waits for a seating already begun).
        let _seating = self.ctx.schedulers.hold_seating().await;
        let held = match store.tournaments.tournament_state(id).await? {
            Some((status, _)) => status == TournamentStatus::Paused || status.is_over(),
            None => true,
        };
        if held {
            // The places a hosted table was admitted with go back.
            for (_, table) in &admitted {
                self.ctx.places.release_table(table);
            }
            return Ok(());
        }
        let seated = self.seat_tables(t, plan, admitted, &entrants.names).await;
        let marks: Vec<(u64, String)> = seated.iter().map(|(i, tid)| (plan[*i].index, tid.clone())).collect();
        store.tournaments.mark_playing(id, &marks).await?;
        for (i, table_id) in seated {
            let p = &mut plan[i];
            p.table_id = table_id;
            p.status = TableStatus::Playing;
            self.results.watch_table(id, p.clone());
        }
        Ok(())
    }

    /// Every table planned so far has finished: the next Swiss round, or the end.
    async fn round_over(
        self: &Arc<Self>,
        store: &Store,
        id: &TournamentId,
        me: &str,
        pass: &mut Pass,
    ) -> Result<Next, StoreError> {
        let Some((t, plan)) = store.tournaments.tournament(id).await? else { return Ok(Next::Stop) };
        if plan.iter().any(|p| p.status != TableStatus::Finished) {
            pass.cached = Some((t, plan));
            return Ok(Next::Again { wait: false });
        }
        if t.spec.format == Format::Swiss && rounds_planned(&t.spec, &plan) < t.spec.rounds {
            let next = swiss_round(&t.spec, &plan);
            if !store.tournaments.add_planned(id, me, &next).await? {
                return Ok(Next::Stop);
            }
            tracing::info!(tournament = %id, round = rounds_planned(&t.spec, &plan) + 1, "Swiss round planned");
            pass.cached = None;
            return Ok(Next::Again { wait: false });
        }
        store.tournaments.finish_tournament(id, unix_ms(SystemTime::now())).await?;
        tracing::info!(tournament = %id, "tournament finished");
        if t.spec.format == Format::Casual {
            self.casual_finished(&t.spec);
        }
        Ok(Next::Stop)
    }

    /// The entrants' quotas and names, from the database. A disabled account is still
    /// seated (its seats forfeit): the plan goes on.
    async fn read_entrants(&self, store: &Store, spec: &TournamentSpec) -> Result<Entrants, StoreError> {
        let accounts = store.accounts.accounts(&spec.entrants).await?;
        let mut quota = HashMap::new();
        let mut names = HashMap::new();
        for a in &spec.entrants {
            match accounts.get(a) {
                Some(acc) => {
                    names.insert(a.clone(), acc.name.clone());
                    quota.insert(a.clone(), acc.max_tables);
                }
                None => {
                    quota.insert(a.clone(), self.ctx.config.account_max_tables);
                }
            }
        }
        Ok(Entrants { read_at: Some(Instant::now()), quota, names: Arc::new(names) })
    }

    /// The pending tables to seat now: in plan order, except that a table whose entrants
    /// play least goes first, each only if every entrant is under its cap.
    fn pick(
        &self,
        plan: &[PlannedTable],
        active: &mut HashMap<AccountId, u32>,
        entrants: &Entrants,
    ) -> Vec<usize> {
        let cap = |a: &AccountId| -> u32 {
            let quota = entrants.quota.get(a).copied().unwrap_or(1);
            let asked = self.ctx.lobbies.cap(a);
            (if asked > 0 { quota.min(asked) } else { quota }).max(1)
        };
        let mut order: Vec<usize> =
            (0..plan.len()).filter(|i| plan[*i].status == TableStatus::Pending).collect();
        order.sort_by_key(|i| plan[*i].seating.iter().map(|a| active.get(a).copied().unwrap_or(0)).max());
        let mut picks = Vec::new();
        for i in order {
            if plan[i].seating.iter().all(|a| active.get(a).copied().unwrap_or(0) < cap(a)) {
                for a in &plan[i].seating {
                    *active.entry(a.clone()).or_default() += 1;
                }
                picks.push(i);
            }
        }
        picks
    }
}

/// Casual meetings: the queue is `casual.rs`'s; matched groups start here.
impl Scheduler {
    /// Queues an account for a casual meeting (once), then matches whoever waits.
    pub fn queue_casual(self: &Arc<Self>, account: &AccountId, seats: u32) {
        if self.casual.queue(account, seats) {
            self.match_casual(seats);
        }
    }

    /// Starts a casual meeting for the first `seats` waiting accounts whose lobbies are
    /// still open.
    fn match_casual(self: &Arc<Self>, seats: u32) {
        let Some(group) = self.casual.take_group(seats, |a| self.ctx.lobbies.wants_casual(a, seats)) else {
            return;
        };
        let me = Arc::clone(self);
        self.ctx.tasks.spawn(async move {
            let spec = casual::meeting(group.clone(), seats, &me.ctx.config);
            if let Err(e) = me.start_tournament("casual".into(), spec, &[]).await {
                tracing::warn!(error = %e, "could not start a casual meeting");
                for a in &group {
                    me.casual.done(a);
                }
            }
        });
    }

    /// After a casual meeting: its entrants whose lobbies still ask for one queue again.
    pub fn casual_finished(self: &Arc<Self>, spec: &TournamentSpec) {
        let seats = u32::from(spec.seats);
        for a in &spec.entrants {
            self.casual.done(a);
            if self.ctx.lobbies.wants_casual(a, seats) {
                self.queue_casual(a, seats);
            }
        }
    }
}
