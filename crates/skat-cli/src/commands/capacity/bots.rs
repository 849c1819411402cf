//! The load: tables of bots that think. Each table runner creates a table, seats three
//! bots and, when its list ends, starts the next one, so the number of tables in play
//! stays what the driver asks for. A bot answers each decision after a think time drawn
//! from a distribution; some drop their stream now and then, at any event of a deal, and
//! resume (as a bot on a bad network does), some vanish for a whole deal (the server's
//! time control forfeits them). Latency is timed around each action call: what the bot
//! sees.
//!
//! A bot that comes back resumes its stream after the last event it saw, as the SDKs do
//! (`--resume-from last`): the events it missed come first, and those older than the
//! table's window of recent events are derived from its inputs, the path a table pays for
//! in CPU instead of memory. `--resume-from now` asks for the table as it is instead
//! (GetTable, then events after it), which never derives: the two side by side show
//! what resuming costs.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use rand_chacha::ChaCha8Rng;
use rand_core::{Rng, SeedableRng};
use skat_engine::random::RandomPlayer;
use skat_proto::convert;
use skat_proto::pb::skat_service_client::SkatServiceClient;
use skat_proto::pb::{self, event::Kind, watch_table_response::Kind as WatchKind};
use skat_sdk::{SeatClient, ServerAddress, WatchHub};
use tokio::sync::watch;
use tokio_stream::StreamExt;
use tonic::transport::Channel;

/// How long a bot thinks before each decision.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Think {
    /// Always this long.
    Fixed(Duration),
    /// Exponential with this mean.
    Exponential(Duration),
    /// Pareto with this mean and shape (a heavy tail: a few decisions take many times the mean).
    Pareto(Duration, f64),
}

impl std::str::FromStr for Think {
    type Err = String;

    fn from_str(s: &str) -> Result<Think, String> {
        let mut parts = s.split(':');
        let kind = parts.next().unwrap_or_default();
        let mean = parts
            .next()
            .ok_or_else(|| format!("`{s}`: say the mean, e.g. exp:500ms"))
            .and_then(|m| humantime::parse_duration(m).map_err(|e| format!("`{m}`: {e}")))?;
        let think = match kind {
            "fixed" => Think::Fixed(mean),
            "exp" => Think::Exponential(mean),
            "pareto" => {
                let shape: f64 = parts
                    .next()
                    .unwrap_or("1.5")
                    .parse()
                    .map_err(|_| format!("`{s}`: the shape is a number"))?;
                if shape <= 1.0 {
                    return Err(format!("`{s}`: a Pareto shape above 1 has a mean"));
                }
                Think::Pareto(mean, shape)
            }
            _ => return Err(format!("`{s}`: fixed:DURATION, exp:DURATION or pareto:DURATION[:SHAPE]")),
        };
        if parts.next().is_some() {
            return Err(format!("`{s}`: too many parts"));
        }
        Ok(think)
    }
}

fn uniform(rng: &mut ChaCha8Rng) -> f64 {
    // 53 random bits in [0, 1).
    (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64
}

impl Think {
    /// One think time.
    pub fn sample(self, rng: &mut ChaCha8Rng) -> Duration {
        let u = 1.0 - uniform(rng); // (0, 1]
        let secs = match self {
            Think::Fixed(d) => return d,
            Think::Exponential(mean) => -mean.as_secs_f64() * u.ln(),
            Think::Pareto(mean, shape) => {
                let scale = mean.as_secs_f64() * (shape - 1.0) / shape;
                scale / u.powf(1.0 / shape)
            }
        };
        // A bound so that one draw cannot outlive any run (the tail above it is 0 for
        // any shape and mean used here in practice).
        Duration::from_secs_f64(secs.min(600.0))
    }
}

/// Where a bot's stream resumes after a drop.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ResumeFrom {
    /// After the last event the bot saw: the missed events first (as the SDKs do).
    Last,
    /// After the table's current `seq` (GetTable): nothing missed is sent.
    Now,
}

/// How the bots behave.
#[derive(Debug, Clone)]
pub struct Behaviour {
    pub think: Think,
    /// Per seat and deal: the chance that the seat drops its stream once in the deal.
    pub disconnect: f64,
    /// Per seat and deal: the chance that the seat does not answer in the deal at all.
    pub vanish: f64,
    /// How long a dropped bot stays away.
    pub away: Duration,
    pub resume_from: ResumeFrom,
    pub deals: u32,
    /// The tables' time per decision (what a vanished seat loses to).
    pub action_ms: u64,
}

/// What the bots saw, shared by all of them.
#[derive(Default)]
pub struct Stats {
    /// Action latencies since the driver last took them.
    pub latencies: Mutex<Vec<Duration>>,
    pub deals: AtomicU64,
    pub actions: AtomicU64,
    pub stale: AtomicU64,
    pub errors: AtomicU64,
    pub disconnects: AtomicU64,
    /// Streams the server ended, resumed.
    pub resumes: AtomicU64,
    /// Events the bots missed while away, over all their returns.
    pub missed: AtomicU64,
    pub vanished: AtomicU64,
    pub tables_started: AtomicU64,
}

impl Stats {
    /// The latencies since the last call, sorted.
    pub fn take(&self) -> Vec<Duration> {
        let mut v = std::mem::take(&mut *self.latencies.lock().unwrap_or_else(|e| e.into_inner()));
        v.sort_unstable();
        v
    }
}

/// How the seats watch their tables.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Streams {
    /// One WatchTables stream per connection, for all its seats (the SDKs' lobbies).
    Shared,
    /// A WatchTable stream per seat.
    Seat,
}

/// Connections shared by tables: `per` tables each (the server limits streams per
/// connection; one per seat would need tens of thousands of sockets), each with its
/// watch stream when the seats share one.
pub struct Pool {
    server: ServerAddress,
    per: usize,
    streams: Streams,
    clients: tokio::sync::Mutex<Vec<(SkatServiceClient<Channel>, WatchHub)>>,
}

impl Pool {
    pub fn new(server: ServerAddress, per: usize, streams: Streams) -> Pool {
        Pool { server, per: per.max(1), streams, clients: tokio::sync::Mutex::new(Vec::new()) }
    }

    async fn client(
        &self,
        table: usize,
    ) -> Result<(SkatServiceClient<Channel>, WatchHub), skat_sdk::SdkError> {
        let i = table / self.per;
        let mut clients = self.clients.lock().await;
        while clients.len() <= i {
            clients.push((self.server.connect().await?, WatchHub::new()));
        }
        Ok(clients[i].clone())
    }
}

/// Runs tables one after the other in slot `index` until `stop`.
pub async fn table_runner(
    index: usize,
    pool: Arc<Pool>,
    how: Arc<Behaviour>,
    stats: Arc<Stats>,
    stop: watch::Receiver<bool>,
) {
    let mut round = 0u64;
    while !*stop.borrow() {
        if let Err(e) = one_table(index, round, &pool, &how, &stats, &stop).await {
            stats.errors.fetch_add(1, Ordering::Relaxed);
            tracing::warn!(error = %e, "load table failed");
            tokio::time::sleep(Duration::from_secs(1)).await;
        }
        round += 1;
    }
}

async fn one_table(
    index: usize,
    round: u64,
    pool: &Pool,
    how: &Arc<Behaviour>,
    stats: &Arc<Stats>,
    stop: &watch::Receiver<bool>,
) -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
    let (mut client, hub) = pool.client(index).await?;
    let seed = (index as u64) << 20 | round;
    let table = client
        .create_table(pb::CreateTableRequest {
            name: format!("capacity{index}"),
            seats: 3,
            deals: how.deals,
            seed: Some(seed),
            time_control: Some(pb::TimeControl { action_ms: how.action_ms, deal_ms: 0, between_deals_ms: 0 }),
            ..Default::default()
        })
        .await?
        .into_inner()
        .table_id;
    stats.tables_started.fetch_add(1, Ordering::Relaxed);
    let mut bots = Vec::new();
    for s in 0..3u32 {
        let joined = client
            .join_table(pb::JoinTableRequest {
                table_id: table.clone(),
                name: format!("think{s}"),
                seat: Some(s),
                ..Default::default()
            })
            .await?
            .into_inner();
        let mut seat =
            SeatClient::from_parts(client.clone(), pool.server.clone(), &table, &joined.token, joined.seat);
        if pool.streams == Streams::Shared {
            seat = seat.with_watch_hub(hub.clone());
        }
        let (how, stats, stop) = (Arc::clone(how), Arc::clone(stats), stop.clone());
        bots.push(tokio::spawn(async move {
            thinking_bot(seat, seed * 3 + u64::from(s), how, stats, stop).await
        }));
    }
    for b in bots {
        b.await??;
    }
    Ok(())
}

/// What a bot does in the current deal, drawn when the deal starts.
#[derive(Default)]
struct Plan {
    deal: u32,
    /// Does not answer in this deal at all.
    vanish: bool,
    /// Drops its stream at this event of the deal (counted from its start), whoever's
    /// turn it is: the other seats may play on while it is away.
    drop_at: Option<u32>,
    seen: u32,
}

/// What the bot does after an event.
enum Next {
    Go,
    Drop,
    Ended,
}

impl Plan {
    fn on_event(
        &mut self,
        event: &pb::Event,
        how: &Behaviour,
        rng: &mut ChaCha8Rng,
        stats: &Stats,
        counts: bool,
    ) -> Next {
        match &event.kind {
            Some(Kind::DealStarted(d)) => {
                let drop_at = 1 + (uniform(rng) * 24.0) as u32;
                *self = Plan {
                    deal: d.number,
                    vanish: uniform(rng) < how.vanish,
                    drop_at: (uniform(rng) < how.disconnect).then_some(drop_at),
                    seen: 0,
                };
            }
            Some(Kind::DealEnded(_)) if counts => {
                stats.deals.fetch_add(1, Ordering::Relaxed);
            }
            Some(Kind::MatchEnded(_)) => return Next::Ended,
            _ => {}
        }
        self.seen += 1;
        if self.drop_at.take_if(|at| *at <= self.seen).is_some() {
            stats.disconnects.fetch_add(1, Ordering::Relaxed);
            return Next::Drop;
        }
        Next::Go
    }

    /// Whether the bot keeps silent at this turn (it vanished for the rest of the deal).
    fn silent(&mut self, stats: &Stats) -> bool {
        if std::mem::take(&mut self.vanish) {
            stats.vanished.fetch_add(1, Ordering::Relaxed);
            self.deal = u32::MAX;
        }
        self.deal == u32::MAX
    }
}

/// One bot: answers from its stream after thinking, until the list ends or `stop`.
async fn thinking_bot(
    mut seat: SeatClient,
    seed: u64,
    how: Arc<Behaviour>,
    stats: Arc<Stats>,
    mut stop: watch::Receiver<bool>,
) -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut player = RandomPlayer::new(seed);
    let counts = seat.seat().number() == 0;
    let (mut after, mut plan) = (0u64, Plan::default());
    // Events up to here were missed while away: read, not answered (the view's turn is).
    let mut missed_up_to = 0u64;
    'connect: loop {
        // After a drop: the table as it is now (a turn to answer), and its events after
        // the last one seen or after now.
        let mut pending = None;
        if after > 0 {
            let view = seat.view().await?;
            // The list ended while the bot was away: nothing after it to wait for.
            if how.resume_from == ResumeFrom::Now && view.status == pb::TableStatus::Finished as i32 {
                return Ok(());
            }
            missed_up_to = view.seq;
            stats.missed.fetch_add(view.seq.saturating_sub(after), Ordering::Relaxed);
            if how.resume_from == ResumeFrom::Now {
                after = view.seq;
            }
            pending = view.deal.and_then(|d| d.legal).map(|l| (view.seq, l));
        }
        let mut stream = seat.watch(Some(after)).await?;
        loop {
            let (seq, legal) = match pending.take() {
                Some(p) => p,
                None => {
                    let msg = tokio::select! {
                        m = stream.next() => m,
                        _ = stop.wait_for(|s| *s) => return Ok(()),
                    };
                    // A stream the server ended (it restarted, or found this reader
                    // stalled) is resumed, as a bot should.
                    let Some(Ok(msg)) = msg else {
                        stats.resumes.fetch_add(1, Ordering::Relaxed);
                        after = after.max(1);
                        continue 'connect;
                    };
                    let Some(WatchKind::Event(event)) = msg.kind else { continue };
                    after = event.seq;
                    match plan.on_event(&event, &how, &mut rng, &stats, counts) {
                        Next::Go => {}
                        Next::Ended => return Ok(()),
                        Next::Drop => {
                            drop(stream);
                            tokio::time::sleep(how.away).await;
                            continue 'connect;
                        }
                    }
                    let Some(legal) = event.legal.filter(|_| event.seq > missed_up_to) else { continue };
                    (event.seq, legal)
                }
            };
            if plan.silent(&stats) {
                continue;
            }
            let think = how.think.sample(&mut rng);
            tokio::select! {
                _ = tokio::time::sleep(think) => {}
                _ = stop.wait_for(|s| *s) => return Ok(()),
            }
            answer(&mut seat, &mut player, &legal, seq, &stats).await?;
        }
    }
}

/// A random legal action for `legal`, sent and timed: a stale one (the table moved on
/// while the bot thought: a time-out) is counted, not an error.
async fn answer(
    seat: &mut SeatClient,
    player: &mut RandomPlayer,
    legal: &pb::LegalActions,
    seq: u64,
    stats: &Stats,
) -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
    let legal = convert::legal_from(legal).map_err(|e| e.message)?;
    let Some(action) = player.choose_from(&legal) else { return Ok(()) };
    let t = Instant::now();
    match seat.act(action, Some(seq)).await {
        Ok(_) => {
            stats.actions.fetch_add(1, Ordering::Relaxed);
            stats.latencies.lock().unwrap_or_else(|e| e.into_inner()).push(t.elapsed());
        }
        Err(s) if matches!(s.code(), tonic::Code::Aborted | tonic::Code::FailedPrecondition) => {
            stats.stale.fetch_add(1, Ordering::Relaxed);
        }
        Err(s) => return Err(Box::new(s)),
    }
    Ok(())
}
