//! # skat-arena
//!
//! Fair competitions between strategies. A competition is a number of seeded lists of
//! deals; in duplicate mode (the default) every list is played under every seat
//! rotation, so each bot gets each hand. Tables run in parallel, against the engine
//! directly (`InProcess`), an embedded server on loopback, or a remote server. The
//! standings come from the deal records, which are also written as ISS files.

pub mod classes;
pub mod run;
pub mod sprt;
pub mod standings;

use std::path::PathBuf;

use skat_engine::{DealRecord, DealResult};

/// Who sits in a seat.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Entry {
    /// A built-in strategy by name (`random`, `heuristic`).
    Builtin(String),
    /// A seat left open for an external bot: the arena prints its token. `open:NAME`
    /// names it in the standings.
    Open(Option<String>),
}

impl Entry {
    /// `open`, `open:NAME`, or a built-in strategy ([`skat_bots::Strategy::parse`]).
    pub fn parse(name: &str) -> Result<Entry, String> {
        let name = name.trim();
        if name == "open" {
            return Ok(Entry::Open(None));
        }
        if let Some(own) = name.strip_prefix("open:") {
            let own: String = own.chars().filter(|c| !c.is_control() && *c != ',').take(32).collect();
            if own.trim().is_empty() {
                return Err("`open:` needs a name, e.g. `open:mybot`".into());
            }
            return Ok(Entry::Open(Some(own.trim().to_string())));
        }
        match skat_bots::Strategy::parse(name, 0) {
            Ok(_) => Ok(Entry::Builtin(name.to_string())),
            Err(e) => Err(format!("bot `{name}`: {e}, or `open` / `open:NAME` for an external bot")),
        }
    }
}

/// Where tables are played.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Mode {
    /// Straight on the engine, no network: thousands of deals per second.
    InProcess,
    /// A running server at this address (TLS when `https://`): one of the operator's, or
    /// one `skat arena` starts in its own process on loopback (the arena library runs no
    /// server of its own).
    Remote(skat_sdk::ServerAddress),
}

/// A competition.
#[derive(Debug, Clone)]
pub struct ArenaConfig {
    /// The entries, one per seat (3 or 4).
    pub entries: Vec<Entry>,
    /// Deals per list.
    pub deals: u32,
    /// Seeded lists.
    pub lists: u32,
    /// The competition seed; list `i` is dealt from `seed + i`.
    pub seed: u64,
    /// Play every list under every seat rotation.
    pub duplicate: bool,
    /// Tables at once.
    pub parallel: usize,
    /// Where.
    pub mode: Mode,
    /// Folder for ISS records (one file per table).
    pub records_dir: Option<PathBuf>,
    /// Per-action time limit at gRPC tables in ms (0: none).
    pub action_ms: u64,
    /// Show a progress bar on stderr.
    pub progress: bool,
    /// A census of one family of games (in process only): every deal is bid and declared
    /// as in a full run, but only the deals declared in this family are played out by the
    /// bots; the others are finished by a stand-in and left out of the outcomes. A rare
    /// class (one null in seven lists) is then counted at the cost of the auctions, on
    /// exactly the deals and decisions a full run of the same seed has, for bots whose
    /// decisions follow from what they see (every built-in one but `random`).
    pub census: Option<classes::Family>,
}

impl ArenaConfig {
    /// The label of entry `i`: its name, numbered when the name repeats (`random#2`).
    pub fn label(&self, i: usize) -> String {
        let name = |e: &Entry| match e {
            Entry::Builtin(n) => n.clone(),
            Entry::Open(None) => "open".to_string(),
            Entry::Open(Some(n)) => n.clone(),
        };
        let me = name(&self.entries[i]);
        let same: Vec<usize> = (0..self.entries.len()).filter(|j| name(&self.entries[*j]) == me).collect();
        if same.len() == 1 {
            me
        } else {
            let k = same.iter().position(|j| *j == i).unwrap_or(0) + 1;
            format!("{me}#{k}")
        }
    }

    /// The tables to play, in order.
    pub fn plan(&self) -> Vec<TablePlan> {
        let mut rotations = skat_league::plan::rotations(self.entries.len());
        if !self.duplicate {
            rotations.truncate(1);
        }
        let mut plans = Vec::new();
        for list in 0..self.lists {
            for (rotation, seating) in rotations.iter().enumerate() {
                plans.push(TablePlan {
                    list,
                    rotation: rotation as u32,
                    seed: self.seed.wrapping_add(u64::from(list)),
                    // Seat s holds entry (s + rotation) mod n.
                    seating: seating.clone(),
                });
            }
        }
        plans
    }
}

/// One table of the competition.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TablePlan {
    /// Which list (from 0).
    pub list: u32,
    /// Which rotation (from 0).
    pub rotation: u32,
    /// The list's seed.
    pub seed: u64,
    /// For each seat, the entry sitting there.
    pub seating: Vec<usize>,
}

/// A played table.
#[derive(Debug, Clone)]
pub struct TableOutcome {
    /// What was planned.
    pub plan: TablePlan,
    /// What each deal scored (the standings' only input).
    pub results: Vec<DealResult>,
    /// The deals with their cards and moves when the arena keeps records (`records_dir`);
    /// empty otherwise (a long run would hold every card played: 400 bytes a deal, 130 MB
    /// for 3,000 lists).
    pub records: Vec<DealRecord>,
    /// The same deals as ISS records (written only when records are kept: empty when the
    /// arena runs without `records_dir`).
    pub iss: Vec<String>,
}
