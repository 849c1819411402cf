//! When the journal's writer moves its hot log into `skat_entries` (the SQL is
//! [`skat_store::log`]).
//!
//! Every commit appends its new inputs to the log, at the end of one b-tree. Written under
//! their table's key at once, the inputs of a busy server's commit would each land on a
//! different table's leaf: a commit of 38 actions wrote 38 pages (about 10 KB per action,
//! docs/BENCHMARKS.md). So the writer keeps what it appended in memory, in stretches of a
//! few seconds; a closed stretch is sorted by table and moved a slice at a time, each
//! slice riding in an ordinary commit at most every [`MOVE_EVERY`], and the commit that
//! moves its last slice forgets it from the log (`seq <= last`).
//!
//! | rule | why |
//! |---|---|
//! | a stretch closes after [`STRETCH`] or [`STRETCH_MAX`] inputs | a table acts about once a second under thinking bots: twenty seconds put some twenty of its inputs on one leaf write (five seconds put five, and the moves were then the largest part of the bytes a durable deal writes: docs/BENCHMARKS.md, "Longer stretches") |
//! | a slice every [`MOVE_EVERY`] at most, a [`SLICES`]th of the stretch (at least [`MOVE_MIN`]), more when stretches queue | a stretch is moved in under half a stretch's time (8 s), so memory and the log stay bounded (about two stretches: at 2,000 tables of thinking bots some 110,000 inputs, 8 MB of the writer's memory; at most 2 x [`STRETCH_MAX`]); no commit carries a whole stretch, and a slice stays about a hundred inputs at that load (each slice costs its commit a few hundred microseconds) |
//! | a slice ends at a table's last input of the stretch | a table's leaf is written once per stretch |
//! | with nothing to commit for [`IDLE_MOVE_AFTER`], the writer moves on its own | an idle server's log empties too |

use std::collections::VecDeque;
use std::ops::Range;
use std::time::{Duration, Instant};

use skat_store::StoredEntry;

/// How long a stretch of the log stays open.
pub const STRETCH: Duration = Duration::from_secs(20);
/// Most inputs in one stretch.
pub const STRETCH_MAX: usize = 200_000;
/// Fewest inputs a slice moves.
pub const MOVE_MIN: usize = 64;
/// A stretch is moved in about this many slices.
pub const SLICES: usize = 400;
/// The least time between two commits that move a slice.
pub const MOVE_EVERY: Duration = Duration::from_millis(20);
/// Inputs an idle commit moves (nothing else waits for it).
const MOVE_IDLE: usize = 4096;
/// With nothing to commit for this long, the writer moves or closes a stretch anyway.
pub const IDLE_MOVE_AFTER: Duration = Duration::from_secs(1);

/// An input in the log, as the writer remembers it: where it goes and its `seq` (its
/// body stays in the database: a move copies it there, from row to row).
#[derive(Debug)]
struct Logged {
    table_id: String,
    n: u64,
    seq: u64,
}

/// A closed stretch: its inputs sorted by table and number, how many are moved.
#[derive(Debug)]
struct Stretch {
    entries: Vec<Logged>,
    moved: usize,
    last_seq: u64,
}

/// The writer's view of its log.
#[derive(Debug)]
pub struct HotLog {
    next_seq: u64,
    open: Vec<Logged>,
    opened: Option<Instant>,
    closed: VecDeque<Stretch>,
    last_move: Option<Instant>,
}

/// What the next commit does besides its own inputs and rows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Plan {
    /// The `seq` of the commit's first new input.
    pub first_seq: u64,
    /// Which inputs of the oldest closed stretch it moves.
    pub moves: Range<usize>,
    /// Forget the log up to here (the stretch's last slice moves in this commit).
    pub forget_upto: Option<u64>,
}

impl HotLog {
    /// A log whose next `seq` is `next_seq` (past every row the database holds).
    pub fn new(next_seq: u64) -> HotLog {
        HotLog { next_seq, open: Vec::new(), opened: None, closed: VecDeque::new(), last_move: None }
    }

    /// Inputs appended and not yet forgotten.
    pub fn len(&self) -> usize {
        self.open.len() + self.closed.iter().map(|s| s.entries.len()).sum::<usize>()
    }

    /// Whether anything waits to be moved.
    pub fn has_work(&self) -> bool {
        !self.open.is_empty() || !self.closed.is_empty()
    }

    /// Plans a commit at `now`; `idle`: nothing else is waiting for it.
    pub fn plan(&mut self, now: Instant, idle: bool) -> Plan {
        let due = self.opened.is_some_and(|t| now.duration_since(t) >= STRETCH);
        if !self.open.is_empty() && (due || self.open.len() >= STRETCH_MAX) {
            let mut entries = std::mem::take(&mut self.open);
            entries.sort_unstable_by(|a, b| (a.table_id.as_str(), a.n).cmp(&(b.table_id.as_str(), b.n)));
            self.closed.push_back(Stretch { entries, moved: 0, last_seq: self.next_seq - 1 });
            self.opened = None;
        }
        let paced = self.last_move.is_none_or(|t| now.duration_since(t) >= MOVE_EVERY);
        let (moves, forget_upto) = match self.closed.front() {
            Some(s) if idle || paced => {
                let budget =
                    if idle { MOVE_IDLE } else { MOVE_MIN.max(s.entries.len() / SLICES) * self.closed.len() };
                let mut end = (s.moved + budget).min(s.entries.len());
                while end < s.entries.len() && s.entries[end].table_id == s.entries[end - 1].table_id {
                    end += 1;
                }
                (s.moved..end, (end == s.entries.len()).then_some(s.last_seq))
            }
            _ => (0..0, None),
        };
        Plan { first_seq: self.next_seq, moves, forget_upto }
    }

    /// The `seq`s of the inputs `plan` moves, by table.
    pub fn moves(&self, plan: &Plan) -> Vec<u64> {
        self.closed
            .front()
            .map_or_else(Vec::new, |s| s.entries[plan.moves.clone()].iter().map(|e| e.seq).collect())
    }

    /// After the commit of `plan` with `new` (appended to the log) succeeded; takes
    /// `new`'s inputs.
    pub fn committed(&mut self, plan: &Plan, new: &mut Vec<StoredEntry>, now: Instant) {
        if !new.is_empty() && self.opened.is_none() {
            self.opened = Some(now);
        }
        let first = self.next_seq;
        self.next_seq += new.len() as u64;
        self.open.extend(new.drain(..).zip(first..).map(|(e, seq)| Logged {
            table_id: e.table_id,
            n: e.n,
            seq,
        }));
        if let Some(s) = self.closed.front_mut()
            && !plan.moves.is_empty()
        {
            self.last_move = Some(now);
            s.moved = plan.moves.end;
            if plan.forget_upto.is_some() {
                self.closed.pop_front();
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entries(tables: &[&str], from: u64) -> Vec<StoredEntry> {
        tables
            .iter()
            .enumerate()
            .map(|(i, t)| StoredEntry::new((*t).into(), from + i as u64, 1, "{}".into()))
            .collect()
    }

    /// Inputs are appended with consecutive numbers; a stretch closes when due, is moved
    /// sorted by table in slices that end at a table's boundary, and the slice that
    /// finishes it forgets exactly its numbers.
    #[test]
    fn stretches_close_move_by_table_and_are_forgotten() {
        let t0 = Instant::now();
        let mut log = HotLog::new(10);
        let mut moved: Vec<u64> = Vec::new();
        let mut new = entries(&["b", "a", "b", "c"], 0);
        let plan = log.plan(t0, false);
        assert_eq!(plan, Plan { first_seq: 10, moves: 0..0, forget_upto: None });
        log.committed(&plan, &mut new, t0);
        assert!(new.is_empty() && log.len() == 4 && log.has_work());
        // Not due yet: nothing moves.
        let plan = log.plan(t0 + STRETCH / 2, false);
        assert_eq!(plan, Plan { first_seq: 14, moves: 0..0, forget_upto: None });
        log.committed(&plan, &mut Vec::new(), t0);
        // Due: it closes (seq 10..=13), moves in one slice (under the budget), is forgotten.
        let mut later = entries(&["a"], 7);
        let plan = log.plan(t0 + STRETCH, false);
        assert_eq!(plan, Plan { first_seq: 14, moves: 0..4, forget_upto: Some(13) });
        moved.extend(log.moves(&plan));
        log.committed(&plan, &mut later, t0 + STRETCH);
        // ("a", 1) was seq 11; ("b", 0) 10; ("b", 2) 12; ("c", 3) 13.
        assert_eq!(moved, [11, 10, 12, 13], "by table, then number");
        assert_eq!(log.len(), 1, "the later input waits in the next stretch");
    }

    /// A large stretch moves in slices of a `SLICES`th (at least `MOVE_MIN`), at most
    /// one per `MOVE_EVERY`, never splitting a table; only the last slice forgets; an idle
    /// commit moves more.
    #[test]
    fn a_large_stretch_moves_in_paced_slices() {
        let t0 = Instant::now();
        let mut log = HotLog::new(1);
        // A hundred inputs per slice; three per table.
        let total = SLICES * 100;
        let names: Vec<String> = (0..total).map(|i| format!("t{:06}", i / 3)).collect();
        let refs: Vec<&str> = names.iter().map(String::as_str).collect();
        let mut new = entries(&refs, 0);
        let plan = log.plan(t0, false);
        log.committed(&plan, &mut new, t0);
        let (mut seen, mut slices, mut commits) = (0, 0, 0);
        let mut now = t0 + STRETCH;
        loop {
            let plan = log.plan(now, false);
            let slice = log.moves(&plan);
            commits += 1;
            if !slice.is_empty() {
                slices += 1;
                assert!(
                    slice.len() >= 100 && slice.len() <= 102 || plan.forget_upto.is_some(),
                    "{}",
                    slice.len()
                );
                if plan.moves.end < names.len() {
                    // seq k + 1 is input k, of table names[k].
                    let last = slice.last().map(|seq| &names[(*seq - 1) as usize]);
                    assert_ne!(last, Some(&names[plan.moves.end]), "a table is split");
                }
            }
            seen += slice.len();
            let mut more = entries(&["z"; 2], 1_000_000 + commits * 2);
            log.committed(&plan, &mut more, now);
            now += Duration::from_millis(5);
            if plan.forget_upto.is_some() {
                assert_eq!(plan.forget_upto, Some(total as u64));
                break;
            }
        }
        assert_eq!(seen, total);
        // Each slice is 100 to 102 inputs (it ends at a table's boundary).
        assert!((total / 102..=SLICES).contains(&slices), "{slices} slices");
        assert!(
            commits as usize >= 4 * (slices - 1),
            "one slice per 20 ms at most: {commits} commits of 5 ms"
        );
        assert_eq!(log.len(), 2 * commits as usize, "the next stretch holds the later commits' inputs");
        // Idle, the writer moves a bigger slice.
        let mut log = HotLog::new(1);
        let mut new = entries(&refs, 0);
        let plan = log.plan(t0, false);
        log.committed(&plan, &mut new, t0);
        let plan = log.plan(t0 + STRETCH, true);
        assert!(plan.moves.len() >= MOVE_IDLE, "{:?}", plan.moves);
    }
}
