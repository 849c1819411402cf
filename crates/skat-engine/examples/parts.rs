use std::time::Instant;
use skat_engine::*;
fn main() {
    let n = 1_000_000u64;
    let t = Instant::now();
    let mut x = 0u32;
    for i in 0..n { x ^= Dealt::seeded(1, i).skat.bits(); }
    println!("deal: {:?}/deal {x}", t.elapsed() / n as u32);
    let d = Dealt::seeded(1, 0);
    let t = Instant::now();
    for _ in 0..n { let deal = std::hint::black_box(Deal::new(d)); x ^= deal.hand(Position::Forehand).bits(); }
    println!("new: {:?}/deal {x}", t.elapsed() / n as u32);
    println!("size of Deal {}", std::mem::size_of::<Deal>());
}
