//! The transposition table: what earlier searches learnt about positions at trick
//! boundaries, one `u64` per entry.
//!
//! Within one deal the cards still in play say who holds each of them (a card stays in
//! the hand it was dealt to until played), so a boundary is named by those cards and
//! the leader: 34 bits. The [`Solver`](crate::Solver) checks that every position it is
//! given belongs to the deal its table was filled from, and clears the table otherwise.
//!
//! An entry packs the key, the bounds of the points still to come and the lead that
//! decided the last search there. Buckets of two slots: the first keeps the bigger
//! subtree, the second takes whatever comes; the table doubles once a quarter of it is
//! used (a fuller two-slot table loses a tenth of what it is given), up to [`MAX_BITS`],
//! and then replaces.

/// What is known of one boundary.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Entry {
    /// Lowest and highest points the declarer still takes from here.
    pub lower: u8,
    pub upper: u8,
    /// The lead (a layout bit) that decided the last search here.
    pub best: Option<u8>,
}

/// The most slots: 2^22 (32 MiB).
const MAX_BITS: u32 = 22;
/// The first allocation: 2^10 slots (8 KiB), so a solver made for one small search
/// costs nothing to create.
const MIN_BITS: u32 = 10;

const KEY_BITS: u32 = 34;
const KEY_MASK: u64 = (1 << KEY_BITS) - 1;

#[derive(Debug)]
pub(crate) struct Table {
    slots: Vec<u64>,
    bits: u32,
    filled: usize,
}

impl Default for Table {
    fn default() -> Table {
        Table { slots: vec![0; 1 << MIN_BITS], bits: MIN_BITS, filled: 0 }
    }
}

/// The key of a boundary: the cards in play (never none at a stored boundary, so a key
/// is never 0, which marks an empty slot) and the leader.
pub(crate) fn key(cards: u32, leader: u8) -> u64 {
    u64::from(cards) | u64::from(leader) << 32
}

fn pack(key: u64, e: Entry) -> u64 {
    key | u64::from(e.lower) << 34 | u64::from(e.upper) << 41 | u64::from(e.best.map_or(0, |b| b + 1)) << 48
}

fn unpack(slot: u64) -> Entry {
    let best = ((slot >> 48) & 63) as u8;
    Entry { lower: ((slot >> 34) & 127) as u8, upper: ((slot >> 41) & 127) as u8, best: best.checked_sub(1) }
}

/// How many cards a key's position still has in play: the size of what it saves.
fn depth(slot: u64) -> u32 {
    (slot as u32).count_ones()
}

impl Table {
    fn bucket(&self, key: u64) -> usize {
        let h = key.wrapping_mul(0x9E37_79B9_7F4A_7C15);
        ((h >> (64 - self.bits)) as usize) & !1
    }

    pub fn get(&self, key: u64) -> Option<Entry> {
        let b = self.bucket(key);
        let pair = &self.slots[b..b + 2];
        pair.iter().find(|s| **s & KEY_MASK == key).map(|s| unpack(*s))
    }

    /// Asks the memory for the buckets of `keys` without waiting for them: the search
    /// comes to them a little later, by when the cache misses have overlapped.
    pub fn touch(&self, keys: &[u64]) {
        #[cfg(target_arch = "x86_64")]
        for k in keys {
            let slot: *const u64 = &self.slots[self.bucket(*k)];
            // SAFETY: a prefetch is a hint to the cache: it dereferences nothing, cannot
            // fault, and `slot` points into `self.slots` anyway. SSE is part of x86_64.
            unsafe { std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(slot.cast()) };
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = keys;
    }

    pub fn put(&mut self, key: u64, e: Entry) {
        if self.filled * 4 > self.slots.len() && self.bits < MAX_BITS {
            self.grow();
        }
        self.place(pack(key, e));
    }

    fn place(&mut self, packed: u64) {
        let key = packed & KEY_MASK;
        let b = self.bucket(key);
        let (first, second) = (self.slots[b], self.slots[b + 1]);
        if first & KEY_MASK == key {
            self.slots[b] = packed;
        } else if second & KEY_MASK == key {
            self.slots[b + 1] = packed;
        } else if first == 0 {
            self.slots[b] = packed;
            self.filled += 1;
        } else if depth(packed) >= depth(first) {
            // The bigger subtree takes the first slot; the one it displaces the second.
            if second == 0 {
                self.filled += 1;
            }
            self.slots[b + 1] = first;
            self.slots[b] = packed;
        } else {
            if second == 0 {
                self.filled += 1;
            }
            self.slots[b + 1] = packed;
        }
    }

    fn grow(&mut self) {
        let old = std::mem::take(&mut self.slots);
        self.bits += 1;
        self.slots = vec![0; 1 << self.bits];
        self.filled = 0;
        for slot in old.into_iter().filter(|s| *s != 0) {
            self.place(slot);
        }
    }

    pub fn clear(&mut self) {
        *self = Table::default();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_come_back_as_stored_through_growth_and_replacement() {
        let mut t = Table::default();
        let e = |i: u64| Entry {
            lower: (i % 100) as u8,
            upper: 120,
            best: (!i.is_multiple_of(3)).then_some((i % 32) as u8),
        };
        for i in 1..5000u64 {
            t.put(key(i as u32 * 7919, (i % 3) as u8), e(i));
        }
        // A bucket holds two: a third key that lands in it evicts one, but whatever
        // comes back is exactly what was stored, and nearly everything comes back.
        let mut found = 0;
        for i in 1..5000u64 {
            if let Some(got) = t.get(key(i as u32 * 7919, (i % 3) as u8)) {
                assert_eq!(got, e(i), "key {i}");
                found += 1;
            }
        }
        assert!(found > 4700, "{found} of 4999 found");
        assert_eq!(t.get(key(12345, 0)), None);
    }
}
