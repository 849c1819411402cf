//! Casual matchmaking: bots whose lobbies ask for casual play are seated together, first
//! come first served, at a one-list meeting of their table size. The queue is here; the
//! scheduler starts the meetings it matches (`Scheduler::queue_casual`).
//!
//! | rule | why |
//! |---|---|
//! | an account waits in the queue once, and plays one casual meeting at a time | a bot with many lobbies does not fill every table by itself |
//! | whoever's lobby closed leaves the queue when the next group is matched | nobody is seated for a bot that is gone |
//! | after its meeting, an account whose lobby still asks queues again | casual play goes on while the bot is there |
//! | a meeting is a tournament of format casual: duplicate rotations, results, ratings | casual games count like any other |

use std::collections::HashSet;
use std::sync::Mutex;

use skat_league::{AccountId, Format, TournamentSpec};

use super::{CompetitionConfig, lock};
use skat_table::secret::random_u64;

/// An account waiting for a casual table of `seats`.
#[derive(Debug, Clone)]
struct Waiting {
    account: AccountId,
    seats: u32,
}

#[derive(Debug, Default)]
struct Queue {
    /// First come, first served.
    waiting: Vec<Waiting>,
    /// Accounts queued for or playing a casual meeting (one at a time each).
    busy: HashSet<AccountId>,
}

/// The casual queue.
#[derive(Debug, Default)]
pub struct CasualQueue(Mutex<Queue>);

impl CasualQueue {
    /// Notes accounts as playing a casual meeting (its scheduler resumed after a restart).
    pub fn playing(&self, accounts: &[AccountId]) {
        lock(&self.0).busy.extend(accounts.iter().cloned());
    }

    /// Queues an account for a casual table of `seats`; false if it is already queued or
    /// playing one.
    pub fn queue(&self, account: &AccountId, seats: u32) -> bool {
        let mut q = lock(&self.0);
        if !q.busy.insert(account.clone()) {
            return false;
        }
        q.waiting.push(Waiting { account: account.clone(), seats });
        true
    }

    /// The first `seats` waiting accounts for a table of `seats` whose lobbies still ask
    /// (`wants`), taken out of the queue; those whose lobbies stopped asking leave it.
    /// `None`: not enough wait.
    pub fn take_group(&self, seats: u32, wants: impl Fn(&AccountId) -> bool) -> Option<Vec<AccountId>> {
        let mut q = lock(&self.0);
        let Queue { waiting, busy } = &mut *q;
        waiting.retain(|w| {
            let keep = w.seats != seats || wants(&w.account);
            if !keep {
                busy.remove(&w.account);
            }
            keep
        });
        let fitting: Vec<usize> =
            waiting.iter().enumerate().filter(|(_, w)| w.seats == seats).map(|(i, _)| i).collect();
        if fitting.len() < seats as usize {
            return None;
        }
        let take: Vec<usize> = fitting.into_iter().take(seats as usize).collect();
        let group = take.iter().map(|i| waiting[*i].account.clone()).collect();
        for i in take.into_iter().rev() {
            waiting.remove(i);
        }
        Some(group)
    }

    /// An account's casual meeting is over (or never started).
    pub fn done(&self, account: &AccountId) {
        lock(&self.0).busy.remove(account);
    }
}

/// The meeting a matched group plays: one list of the casual length, at the server's
/// default time.
pub fn meeting(group: Vec<AccountId>, seats: u32, config: &CompetitionConfig) -> TournamentSpec {
    TournamentSpec {
        entrants: group,
        seats: seats as u8,
        deals: config.casual_deals,
        lists: 1,
        action_ms: config.default_action_ms,
        deal_ms: config.default_deal_ms,
        seed: random_u64().unwrap_or(0),
        parallel: 0,
        format: Format::Casual,
        rounds: 0,
        start_ms: 0,
        secret: Default::default(),
        commitment: String::new(),
        unrated: false,
    }
}
