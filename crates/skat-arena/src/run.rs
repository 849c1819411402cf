//! Playing the planned tables, in parallel, in one of the three modes.

use std::sync::Arc;
use std::time::SystemTime;

use skat_bots::Strategy;
use skat_engine::iss::{self, RecordMeta};
use skat_engine::{Action, DealRecord, Match, MatchConfig, Outcome};
use skat_proto::pb::{self, event::Kind, watch_table_response::Kind as WatchKind};
use skat_sdk::play::{PlayOptions, play};
use skat_sdk::{Bot, Knowledge, SdkError, SeatClient, ServerAddress, decide};
use tokio::sync::Semaphore;
use tokio_stream::StreamExt;

use crate::classes::Family;
use crate::standings::{self, Standings};
use crate::{ArenaConfig, Entry, Mode, TableOutcome, TablePlan};

/// Why a competition could not be run.
#[derive(Debug, thiserror::Error)]
pub enum ArenaError {
    /// The configuration does not describe a competition.
    #[error("{0}")]
    Config(String),
    /// Talking to the server failed.
    #[error(transparent)]
    Sdk(#[from] SdkError),
    /// Writing records failed.
    #[error("records: {0}")]
    Io(#[from] std::io::Error),
    /// The engine refused a bot's action (a bug: bots answer from legal actions).
    #[error("engine: {0}")]
    Engine(String),
}

/// A seat kept open for an external bot.
#[derive(Debug, Clone)]
pub struct OpenSeat {
    /// The server that holds the table (`http://host:port`), the arena's own embedded
    /// one or the one it was pointed at.
    pub server: String,
    /// The table.
    pub table_id: String,
    /// The seat.
    pub seat: u32,
    /// Its token: hand it to the external bot.
    pub token: String,
    /// Which list and rotation.
    pub list: u32,
    /// Which rotation.
    pub rotation: u32,
}

/// Checks a configuration.
pub fn validate(config: &ArenaConfig) -> Result<(), ArenaError> {
    if !(3..=4).contains(&config.entries.len()) {
        return Err(ArenaError::Config(format!(
            "a table has 3 or 4 seats: give 3 or 4 bots, not {}",
            config.entries.len()
        )));
    }
    if config.deals == 0 || config.lists == 0 {
        return Err(ArenaError::Config("deals and lists must be at least 1".into()));
    }
    if config.mode == Mode::InProcess && config.entries.iter().any(|e| matches!(e, Entry::Open(_))) {
        return Err(ArenaError::Config("open seats need a server: drop --in-process".into()));
    }
    if config.census.is_some() && config.mode != Mode::InProcess {
        return Err(ArenaError::Config("a census is played in process: add --in-process".into()));
    }
    Ok(())
}

fn bot_seed(plan: &TablePlan, seat: usize) -> u64 {
    plan.seed.wrapping_mul(1_000_003).wrapping_add(u64::from(plan.rotation) * 16 + seat as u64)
}

fn strategy(config: &ArenaConfig, entry: usize, seed: u64) -> Result<Strategy, ArenaError> {
    match &config.entries[entry] {
        Entry::Builtin(name) => {
            Strategy::by_name(name, seed).ok_or_else(|| ArenaError::Config(format!("unknown bot {name}")))
        }
        Entry::Open(_) => Err(ArenaError::Config("an open seat has no built-in strategy".into())),
    }
}

fn iss_records(config: &ArenaConfig, plan: &TablePlan, records: &[DealRecord], server: &str) -> Vec<String> {
    let date = humantime::format_rfc3339_seconds(SystemTime::now()).to_string();
    let date = date.trim_end_matches('Z').replacen('T', "/", 1) + "/UTC";
    records
        .iter()
        .map(|r| {
            let meta = RecordMeta {
                server: server.to_string(),
                id: format!("{}.{}.{}", plan.list, plan.rotation, r.number),
                date: date.clone(),
                players: r.seats.map(|s| config.label(plan.seating[usize::from(s)])),
                series: plan.seed.to_string(),
            };
            iss::write(r, &meta)
        })
        .collect()
}

/// A played table: its results, kept to the end of the run for the standings, and its
/// records with their ISS text only when the arena keeps records (our own ISS writer, so
/// that players are named by entry in every mode). Without, the records are dropped here,
/// before the next table, which reuses their memory: kept to the end, every table's
/// records were fresh memory, and faulting it in was a sixth of an in-process run with
/// random bots (profiled).
fn outcome(config: &ArenaConfig, plan: &TablePlan, records: Vec<DealRecord>, server: &str) -> TableOutcome {
    // Collected from a slice: exactly as long as the records, no spare slots.
    let results = records.iter().map(DealRecord::result).collect();
    let (records, iss) = match config.records_dir {
        Some(_) => {
            let iss = iss_records(config, plan, &records, server);
            (records, iss)
        }
        None => (Vec::new(), Vec::new()),
    };
    TableOutcome { plan: plan.clone(), results, records, iss }
}

/// Plays one table straight on the engine.
pub fn play_in_process(config: &ArenaConfig, plan: &TablePlan) -> Result<TableOutcome, ArenaError> {
    let runtime = tokio::runtime::Builder::new_current_thread().build()?;
    play_in_process_on(&runtime, config, plan)
}

/// [`play_in_process`] on a runtime the caller keeps (for bots that do wait).
fn play_in_process_on(
    runtime: &tokio::runtime::Runtime,
    config: &ArenaConfig,
    plan: &TablePlan,
) -> Result<TableOutcome, ArenaError> {
    let seats = config.entries.len() as u8;
    let mut m = Match::new(MatchConfig { seats, deals: config.deals, seed: plan.seed })
        .map_err(|e| ArenaError::Config(e.to_string()))?;
    let mut bots = (0..usize::from(seats))
        .map(|s| strategy(config, plan.seating[s], bot_seed(plan, s)))
        .collect::<Result<Vec<_>, _>>()?;
    // Each seat's knowledge is folded from the events it is shown, as a client does from
    // its stream: engine types all the way, no protobuf. A seat catches up on the events
    // since its last decision when it must decide again.
    let mut knowledge: Vec<Knowledge> =
        skat_engine::Seat::all(seats).map(|s| Knowledge::new(Some(s))).collect();
    let mut log = vec![m.deal_started_event()];
    let mut seen = vec![0usize; usize::from(seats)];
    // A census: after a declaration outside its family, the deal is finished by a
    // stand-in that asks no bot (its cards count nowhere).
    let mut stand_in = skat_bots::RandomBot::new(plan.seed);
    let mut standing_in = false;
    while let Some(seat) = m.seat_to_move() {
        let s = usize::from(seat);
        let k = &mut knowledge[s];
        k.apply_seen(&log[seen[s]..]);
        seen[s] = log.len();
        let action = if standing_in {
            decide_now(runtime, &mut stand_in, k)
        } else {
            decide_now(runtime, &mut bots[s], k)
        };
        let action = action.ok_or_else(|| ArenaError::Engine("a seat to move had no decision".into()))?;
        if let (Some(family), Action::Declare { contract }) = (config.census, action) {
            standing_in = Family::of(contract.game) != family;
        }
        let (deal_ended, _) =
            m.apply_into(seat, action, &mut log).map_err(|e| ArenaError::Engine(e.to_string()))?;
        if deal_ended {
            // A new deal (or the list's end) starts the log again: what a seat was shown
            // of the deal that ended no decision reads (the next deal's start replaces
            // its view), so each seat starts from the last event.
            let last = log.len().saturating_sub(1);
            log.drain(..last);
            seen.fill(0);
            standing_in = false;
        }
    }
    let mut records = m.into_records();
    if let Some(family) = config.census {
        records.retain(|r| matches!(&r.outcome, Outcome::Game(g) if Family::of(g.contract.game) == family));
    }
    Ok(outcome(config, plan, records, "skat-arena in-process"))
}

/// Asks a bot in process. Bots are async so that they may think, but most answer at
/// once: one poll settles those without the runtime's scheduling (a third of the time of
/// an in-process deal); a bot that does wait is driven by the runtime.
fn decide_now<B: Bot>(runtime: &tokio::runtime::Runtime, bot: &mut B, k: &Knowledge) -> Option<Action> {
    let mut decision = std::pin::pin!(decide(bot, k));
    let mut cx = std::task::Context::from_waker(std::task::Waker::noop());
    match decision.as_mut().poll(&mut cx) {
        std::task::Poll::Ready(action) => action,
        std::task::Poll::Pending => runtime.block_on(decision),
    }
}

/// Waits until the table's list is complete.
async fn wait_for_end(
    client: &mut pb::skat_service_client::SkatServiceClient<tonic::transport::Channel>,
    table_id: &str,
) -> Result<(), ArenaError> {
    let request = pb::WatchTableRequest { table_id: table_id.to_string(), after_seq: Some(0) };
    let mut stream = client.watch_table(request).await.map_err(SdkError::from)?.into_inner();
    while let Some(msg) = stream.next().await {
        if let Some(WatchKind::Event(pb::Event { kind: Some(Kind::MatchEnded(_)), .. })) =
            msg.map_err(SdkError::from)?.kind
        {
            break;
        }
    }
    Ok(())
}

/// A finished table's records, from its JSON records.
async fn records_of(
    client: &mut pb::skat_service_client::SkatServiceClient<tonic::transport::Channel>,
    table_id: &str,
) -> Result<Vec<DealRecord>, ArenaError> {
    let request =
        pb::GetRecordsRequest { table_id: table_id.to_string(), format: pb::RecordFormat::Json as i32 };
    let json = client.get_records(request).await.map_err(SdkError::from)?.into_inner().records;
    Ok(json
        .iter()
        .map(|r| serde_json::from_str::<DealRecord>(r).map_err(|e| SdkError::Protocol(e.to_string())))
        .collect::<Result<Vec<_>, _>>()?)
}

/// Plays one table on a server.
pub async fn play_remote(
    config: &ArenaConfig,
    server: &ServerAddress,
    plan: &TablePlan,
    on_open: &(dyn Fn(&OpenSeat) + Send + Sync),
) -> Result<TableOutcome, ArenaError> {
    // The arena receives every seat's token: they must not cross a network in plain text.
    server.check_secret("seat token")?;
    let mut client = server.connect().await?;
    let n = config.entries.len();
    let created = client
        .create_table(pb::CreateTableRequest {
            name: format!("arena list {} rotation {}", plan.list, plan.rotation),
            seats: n as u32,
            deals: config.deals,
            seed: Some(plan.seed),
            time_control: Some(pb::TimeControl {
                action_ms: config.action_ms,
                deal_ms: 0,
                between_deals_ms: 0,
            }),
            ..Default::default()
        })
        .await
        .map_err(SdkError::from)?
        .into_inner();
    let table_id = created.table_id;
    // With several replicas, everything about the table goes to the one that owns it.
    let owner = (!created.owner_address.is_empty()).then(|| server.at(&created.owner_address));
    let url: &ServerAddress = owner.as_ref().unwrap_or(server);
    if owner.is_some() {
        client = url.connect().await?;
    }
    let mut seats = Vec::new();
    for seat in 0..n {
        let (sc, _) =
            SeatClient::join(url, &table_id, &config.label(plan.seating[seat]), Some(seat as u32)).await?;
        seats.push(sc);
    }
    let mut tasks = Vec::new();
    let mut open = false;
    for (seat, sc) in seats.into_iter().enumerate() {
        if matches!(config.entries[plan.seating[seat]], Entry::Open(_)) {
            open = true;
            on_open(&OpenSeat {
                server: url.url().to_string(),
                table_id: table_id.clone(),
                seat: seat as u32,
                token: sc.token().to_string(),
                list: plan.list,
                rotation: plan.rotation,
            });
            continue;
        }
        let mut bot = strategy(config, plan.seating[seat], bot_seed(plan, seat))?;
        tasks.push(tokio::spawn(async move { play(sc, &mut bot, PlayOptions::default()).await }));
    }
    for t in tasks {
        t.await.map_err(|e| ArenaError::Engine(e.to_string()))??;
    }
    if open {
        // Wait for the external bots to finish the list.
        wait_for_end(&mut client, &table_id).await?;
    }
    let records = records_of(&mut client, &table_id).await?;
    Ok(outcome(config, plan, records, "skat-arena"))
}

/// Files a played table's records: its ISS file when the arena keeps records.
fn file_records(config: &ArenaConfig, outcome: &TableOutcome) -> Result<(), ArenaError> {
    let Some(dir) = &config.records_dir else {
        return Ok(());
    };
    std::fs::create_dir_all(dir)?;
    let path = dir.join(format!("list{:03}-rotation{}.sgf", outcome.plan.list, outcome.plan.rotation));
    let mut text = outcome.iss.join("\n");
    text.push('\n');
    std::fs::write(path, text)?;
    Ok(())
}

/// Runs the competition and computes its standings. `on_open` is told each open seat's
/// token as soon as its table exists.
pub async fn run(
    config: &ArenaConfig,
    on_open: Arc<dyn Fn(&OpenSeat) + Send + Sync>,
) -> Result<(Vec<TableOutcome>, Standings), ArenaError> {
    validate(config)?;
    let plans = config.plan();
    let bar = progress(config, plans.len());
    let url = match &config.mode {
        Mode::InProcess => None,
        Mode::Remote(u) => Some(u.clone()),
    };
    let config = Arc::new(config.clone());
    let outcomes = match url {
        None => in_process(&config, plans, &bar).await?,
        Some(url) => on_server(&config, plans, url, on_open, &bar).await?,
    };
    bar.finish_and_clear();
    let standings = standings::compute(&config, &outcomes);
    Ok((outcomes, standings))
}

/// The progress bar (hidden unless asked for): deals played of all.
fn progress(config: &ArenaConfig, tables: usize) -> indicatif::ProgressBar {
    let bar = if config.progress {
        indicatif::ProgressBar::new(tables as u64 * u64::from(config.deals))
    } else {
        indicatif::ProgressBar::hidden()
    };
    bar.set_style(
        indicatif::ProgressStyle::with_template(
            "{spinner} [{elapsed_precise}] {bar:40} {pos}/{len} deals ({per_sec}, eta {eta})",
        )
        .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
    );
    bar
}

/// In process: one thread per worker, each playing its share of the tables in a row (a
/// table of 36 deals takes about 100 µs; a hand-off per table would cost as much as the
/// table). Outcomes in the plans' order.
async fn in_process(
    config: &Arc<ArenaConfig>,
    plans: Vec<TablePlan>,
    bar: &indicatif::ProgressBar,
) -> Result<Vec<TableOutcome>, ArenaError> {
    let workers = config.parallel.max(1).min(plans.len().max(1));
    let mut shares: Vec<Vec<(usize, TablePlan)>> = vec![Vec::new(); workers];
    for (i, plan) in plans.into_iter().enumerate() {
        shares[i % workers].push((i, plan));
    }
    let mut tasks = Vec::new();
    for share in shares {
        let (config, bar) = (Arc::clone(config), bar.clone());
        tasks.push(tokio::task::spawn_blocking(move || {
            let runtime = tokio::runtime::Builder::new_current_thread().build()?;
            let mut done = Vec::with_capacity(share.len());
            for (i, plan) in share {
                let outcome = play_in_process_on(&runtime, &config, &plan)?;
                file_records(&config, &outcome)?;
                bar.inc(u64::from(config.deals));
                done.push((i, outcome));
            }
            Ok::<_, ArenaError>(done)
        }));
    }
    let mut outcomes = Vec::new();
    for t in tasks {
        outcomes.extend(t.await.map_err(|e| ArenaError::Engine(e.to_string()))??);
    }
    outcomes.sort_by_key(|(i, _)| *i);
    Ok(outcomes.into_iter().map(|(_, o)| o).collect())
}

/// On a server: at most `parallel` tables at once, each a task.
async fn on_server(
    config: &Arc<ArenaConfig>,
    plans: Vec<TablePlan>,
    url: ServerAddress,
    on_open: Arc<dyn Fn(&OpenSeat) + Send + Sync>,
    bar: &indicatif::ProgressBar,
) -> Result<Vec<TableOutcome>, ArenaError> {
    let limit = Arc::new(Semaphore::new(config.parallel.max(1)));
    let mut tasks = Vec::new();
    for plan in plans {
        let (config, limit, url, on_open, bar) =
            (Arc::clone(config), Arc::clone(&limit), url.clone(), Arc::clone(&on_open), bar.clone());
        tasks.push(tokio::spawn(async move {
            let _permit = limit.acquire_owned().await.map_err(|e| ArenaError::Engine(e.to_string()))?;
            let outcome = play_remote(&config, &url, &plan, on_open.as_ref()).await?;
            file_records(&config, &outcome)?;
            bar.inc(u64::from(config.deals));
            Ok::<_, ArenaError>(outcome)
        }));
    }
    let mut outcomes = Vec::new();
    for t in tasks {
        outcomes.push(t.await.map_err(|e| ArenaError::Engine(e.to_string()))??);
    }
    Ok(outcomes)
}
