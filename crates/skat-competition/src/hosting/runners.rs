//! The runners that follow this server's feed, and the seats handed to them.
//!
//! | rule | why |
//! |---|---|
//! | a runner is known by its name; a feed opened again under the same name takes over that runner's channel, and its seats are sent to it again | a runner that restarts finds its seats (it keeps a sandbox whose seat and token it has) |
//! | a seat goes to the runner its place is on ([`crate::places`]) | runners share the work by their free capacity |
//! | a seat handed out is kept until its table is over, and sent again when its place moves (its runner went away) | the seat resumes on another runner where its table's clocks allow |

use std::collections::HashMap;
use std::sync::Mutex;

use tokio::sync::mpsc;

use super::feed::HostedSeat;
use crate::SeatKey;

/// Seats waiting for a runner to read them, per runner.
pub const FEED_ROOM: usize = 1024;

/// The runners' channels and the seats handed out.
#[derive(Debug, Default)]
pub struct Runners {
    feeds: Mutex<HashMap<String, mpsc::Sender<HostedSeat>>>,
    handed: Mutex<HashMap<SeatKey, HostedSeat>>,
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

impl Runners {
    /// A feed for `runner` (an older one of that name ends: its channel closes), with the
    /// seats handed out whose places `on_it` says are this runner's sent first; and a
    /// handle whose `closed()` says when this feed's reader went.
    pub fn open(
        &self,
        runner: &str,
        on_it: impl Fn(&SeatKey) -> bool,
    ) -> (mpsc::Receiver<HostedSeat>, mpsc::Sender<HostedSeat>) {
        let (tx, rx) = mpsc::channel(FEED_ROOM);
        for (_, seat) in lock(&self.handed).iter().filter(|(k, _)| on_it(k)) {
            let _ = tx.try_send(seat.clone());
        }
        lock(&self.feeds).insert(runner.to_string(), tx.clone());
        (rx, tx)
    }

    /// Whether `runner`'s newest feed is gone (closed, or taken over by none).
    pub fn closed(&self, runner: &str) -> bool {
        lock(&self.feeds).get(runner).is_none_or(mpsc::Sender::is_closed)
    }

    /// The channel of `runner`, while its feed is open.
    fn feed(&self, runner: &str) -> Option<mpsc::Sender<HostedSeat>> {
        lock(&self.feeds).get(runner).filter(|tx| !tx.is_closed()).cloned()
    }

    /// Hands `seat` to `runner` (kept, and sent when its feed is open).
    pub async fn hand(&self, key: SeatKey, runner: &str, seat: HostedSeat) {
        lock(&self.handed).insert(key, seat.clone());
        if let Some(tx) = self.feed(runner) {
            let _ = tx.send(seat).await;
        }
    }

    /// Sends a handed seat again, to the runner its place moved to.
    pub async fn hand_again(&self, key: &SeatKey, runner: &str) {
        let seat = lock(&self.handed).get(key).cloned();
        if let (Some(seat), Some(tx)) = (seat, self.feed(runner)) {
            let _ = tx.send(seat).await;
        }
    }

    /// Forgets the seats whose tables `over` says are over; their keys.
    pub fn forget(&self, over: impl Fn(&SeatKey) -> bool) -> Vec<SeatKey> {
        let mut handed = lock(&self.handed);
        let gone: Vec<SeatKey> = handed.keys().filter(|k| over(k)).cloned().collect();
        for k in &gone {
            handed.remove(k);
        }
        gone
    }
}
