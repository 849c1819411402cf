//! How much memory one table holds, counted by a counting allocator (live heap bytes,
//! exact and repeatable, unlike RSS): seated and waiting for the first bid, a 12-deal
//! list half-way (issue 50's case), played out to the end with random legal moves, every
//! deal forfeited by the clock, and churned by join/leave to the join limit. The inputs go
//! where the journal takes them after every change. These are the figures behind the
//! memory bound in docs/server.md. Last, what deriving a played-out list's records costs
//! (a table keeps none: GetRecords derives them).
//!
//!     cargo bench -p skat-server --bench table_memory

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use skat_engine::MatchConfig;
use skat_engine::random::RandomPlayer;
use skat_server::bench::{Table, TableConfig, TableId, TokenHash};

struct Counting;

static LIVE: AtomicUsize = AtomicUsize::new(0);

// SAFETY: forwards to the system allocator and only counts.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        LIVE.fetch_add(layout.size(), Ordering::Relaxed);
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        LIVE.fetch_add(new_size, Ordering::Relaxed);
        LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

fn table(deals: u32, seed: u64, action_ms: u64, max_joins: usize, now: Instant) -> Table {
    let config = TableConfig {
        name: "a table name of a typical length".into(),
        game: MatchConfig { deals, ..MatchConfig::standard(3, seed) },
        action_ms,
        deal_ms: 0,
        between_deals_ms: 0,
        join_code: None,
        max_joins,
        tournament: false,
    };
    Table::new(TableId::new(None, seed), config, now, std::time::SystemTime::now()).expect("valid config")
}

fn seat_all(t: &mut Table, now: Instant) {
    for i in 0..3 {
        t.join(&format!("player number {i}"), None, "", TokenHash::of(&format!("{i:032x}")), now)
            .expect("a seat");
    }
}

/// Plays random legal moves to the end.
fn play_out(t: &mut Table, seed: u64, now: Instant) {
    play_deals(t, seed, now, u32::MAX);
}

/// Plays random legal moves until `deals` deals are played or the list ends. The inputs
/// go where the server's journal takes them after every change (written away).
fn play_deals(t: &mut Table, seed: u64, now: Instant, deals: u32) {
    let mut player = RandomPlayer::new(seed);
    while !t.is_finished() && t.deals_played() < deals as usize {
        let seat = t.seat_to_move().expect("a seat to move");
        let legal = t.legal_actions(seat);
        let action = player.choose_from(&legal).expect("the seat to move has a move");
        t.act(seat, action, None, now).expect("legal");
        drop(t.take_inputs());
    }
}

/// Lets every turn time out.
fn forfeit_out(t: &mut Table, mut now: Instant) {
    while let Some((turn, at)) = t.next_deadline() {
        now = now.max(at);
        t.on_deadline(turn, now);
        drop(t.take_inputs());
    }
}

fn measure(what: &str, build: impl FnOnce() -> Table) -> usize {
    let before = LIVE.load(Ordering::Relaxed);
    let t = build();
    let bytes = LIVE.load(Ordering::Relaxed) - before;
    println!("{what}: {:.1} KiB held, {} events in the log", bytes as f64 / 1024.0, t.seq());
    drop(t);
    bytes
}

fn main() {
    let now = Instant::now();
    measure("seated, waiting for the first bid", || {
        let mut t = table(36, 1, 0, 64, now);
        seat_all(&mut t, now);
        drop(t.take_inputs());
        t
    });
    // Issue 50's case: a 12-deal list half-way, with a clock (a deadline on every event).
    let mut worst = 0;
    for seed in 1..=5 {
        worst = worst.max(measure(&format!("12-deal list half-way, 6 deals played (seed {seed})"), || {
            let mut t = table(12, seed, 5_000, 64, now);
            seat_all(&mut t, now);
            play_deals(&mut t, seed, now, 6);
            t
        }));
    }
    println!("  => half-way: at most {:.1} KiB", worst as f64 / 1024.0);
    for deals in [36, 144] {
        let mut worst = 0;
        for seed in 1..=5 {
            worst = worst.max(measure(&format!("{deals} deals played out (seed {seed})"), || {
                let mut t = table(deals, seed, 0, 64, now);
                seat_all(&mut t, now);
                play_out(&mut t, seed, now);
                t
            }));
        }
        println!("  => {deals} deals: at most {:.1} KiB", worst as f64 / 1024.0);
    }
    measure("144 deals, every turn timed out (clock 1 ms, nobody acts)", || {
        let mut t = table(144, 9, 1, 64, now);
        seat_all(&mut t, now);
        forfeit_out(&mut t, now + Duration::from_millis(1));
        t
    });
    measure("waiting table churned by join/leave to the limit of 64 joins", || {
        let mut t = table(36, 10, 0, 64, now);
        for i in 0..64 {
            let seat =
                t.join(&"x".repeat(64), None, "", TokenHash::of(&format!("{i:032x}")), now).expect("a seat");
            t.leave(seat, now).expect("leave");
        }
        t
    });
    records_cost(now);
}

/// A table keeps no records: GetRecords derives them from its inputs. What that costs for
/// a played-out 36-deal list, ISS and JSON (the mean of 50).
fn records_cost(now: Instant) {
    let mut t = table(36, 1, 0, 64, now);
    seat_all(&mut t, now);
    play_out(&mut t, 1, now);
    for json in [false, true] {
        let start = Instant::now();
        let mut bytes = 0;
        for _ in 0..50 {
            bytes += std::hint::black_box(t.records().all(json, "s")).iter().map(String::len).sum::<usize>();
        }
        let each = start.elapsed() / 50;
        let format = if json { "JSON" } else { "ISS" };
        println!("records of a 36-deal list derived ({format}, {} bytes): {each:.2?} each", bytes / 50);
    }
}
