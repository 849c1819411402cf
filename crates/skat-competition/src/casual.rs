//! Casual matchmaking: bots whose lobbies ask for casual play are seated together, first
//! come first served, at a one-list meeting of their table size.
//!
//! | rule | why |
//! |---|---|
//! | an account waits in the queue once, and plays one casual meeting at a time | a bot with many lobbies does not fill every table by itself |
//! | whoever's lobby closed leaves the queue when the next group is matched | nobody is seated for a bot that is gone |
//! | after its meeting, an account whose lobby still asks queues again | casual play goes on while the bot is there |
//! | a meeting is a tournament of format casual: duplicate rotations, results, ratings | casual games count like any other |

use std::collections::HashSet;
use std::sync::{Arc, Mutex};

use skat_league::{AccountId, Format, TournamentSpec};

use super::lock;
use super::scheduler::Scheduler;
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

    fn done(&self, account: &AccountId) {
        lock(&self.0).busy.remove(account);
    }
}

impl Scheduler {
    /// Queues an account for a casual meeting (once), then matches whoever waits.
    pub fn queue_casual(self: &Arc<Self>, account: &AccountId, seats: u32) {
        {
            let mut q = lock(&self.casual.0);
            if !q.busy.insert(account.clone()) {
                return;
            }
            q.waiting.push(Waiting { account: account.clone(), seats });
        }
        self.match_casual(seats);
    }

    /// Seats the first `seats` waiting accounts whose lobbies are still open at a casual
    /// meeting; those whose lobbies closed leave the queue.
    fn match_casual(self: &Arc<Self>, seats: u32) {
        let group: Vec<AccountId> = {
            let mut q = lock(&self.casual.0);
            let Queue { waiting, busy } = &mut *q;
            waiting.retain(|w| {
                let keep = w.seats != seats || self.ctx.lobbies.wants_casual(&w.account, seats);
                if !keep {
                    busy.remove(&w.account);
                }
                keep
            });
            let fitting: Vec<usize> =
                waiting.iter().enumerate().filter(|(_, w)| w.seats == seats).map(|(i, _)| i).collect();
            if fitting.len() < seats as usize {
                return;
            }
            let take: Vec<usize> = fitting.into_iter().take(seats as usize).collect();
            let group = take.iter().map(|i| waiting[*i].account.clone()).collect();
            for i in take.into_iter().rev() {
                waiting.remove(i);
            }
            group
        };
        let me = Arc::clone(self);
        tokio::spawn(async move {
            let spec = TournamentSpec {
                entrants: group.clone(),
                seats: seats as u8,
                deals: me.ctx.config.casual_deals,
                lists: 1,
                action_ms: me.ctx.config.default_action_ms,
                deal_ms: me.ctx.config.default_deal_ms,
                seed: random_u64().unwrap_or(0),
                parallel: 0,
                format: Format::Casual,
                rounds: 0,
                start_ms: 0,
                secret: Default::default(),
                commitment: String::new(),
                unrated: false,
            };
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
