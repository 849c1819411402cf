//! A table's published `seq` and the wakers of whoever waits for it to grow.
//!
//! | rule | why |
//! |---|---|
//! | the seq is an atomic; a waiter's waker sits in the table's list until the next publish, which wakes and clears the list | a watch channel per table and a boxed future per stream (tokio's `WatchStream`) cost about 0.8 KiB a table in play; this costs a word per waiter |
//! | a waiter registers under the list's lock and checks the seq again under it; a publisher raises the seq before it takes the lock | a publish between a waiter's check and its registration is never missed |
//! | a waiter's waker is in the list at most once (it remembers what it left there, and in which round of the list) and is taken out when the waiter goes away | the list is bounded by the table's waiting readers, whatever a client opens and drops |
//! | [`PublishedSeq::wake_all`] wakes without a change | a table that closes or a server that stops: each waiter looks at why itself |

use std::future::Future;
use std::pin::Pin;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};
use std::task::{Context, Poll, Waker};

/// The last published seq of a table, and who waits for a later one.
#[derive(Debug, Default)]
pub struct PublishedSeq {
    seq: AtomicU64,
    waiting: Mutex<Waiting>,
}

/// The wakers to wake at the next publish, and how many times the list was woken (and
/// emptied) before.
#[derive(Debug, Default)]
struct Waiting {
    round: u64,
    wakers: Vec<Waker>,
}

/// The waker a waiter left in the list and the list's round then (a later round has
/// woken and dropped it).
#[derive(Debug, Default)]
pub struct Registered(Option<(Waker, u64)>);

impl PublishedSeq {
    /// Starting at `seq`.
    pub fn new(seq: u64) -> PublishedSeq {
        PublishedSeq { seq: AtomicU64::new(seq), waiting: Mutex::default() }
    }

    /// The last published seq.
    pub fn get(&self) -> u64 {
        self.seq.load(Ordering::Acquire)
    }

    fn list(&self) -> std::sync::MutexGuard<'_, Waiting> {
        self.waiting.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Publishes `seq` if it is newer (commits may be published out of order: the seq only
    /// grows), waking every waiter.
    pub fn publish(&self, seq: u64) {
        if self.seq.fetch_max(seq, Ordering::AcqRel) < seq {
            self.wake_all();
        }
    }

    /// Wakes every waiter, changed or not.
    pub fn wake_all(&self) {
        let woken = {
            let mut list = self.list();
            list.round += 1;
            std::mem::take(&mut list.wakers)
        };
        for waker in woken {
            waker.wake();
        }
    }

    /// Ready once the seq is past `after`; otherwise registers `cx`'s waker (in
    /// `registered`, to be [forgotten](Self::forget) when the waiter goes away).
    pub fn poll_after(&self, after: u64, registered: &mut Registered, cx: &Context<'_>) -> Poll<u64> {
        let seq = self.get();
        if seq > after {
            return Poll::Ready(seq);
        }
        let mut list = self.list();
        let seq = self.get();
        if seq > after {
            return Poll::Ready(seq);
        }
        if let Some((waker, round)) = &registered.0
            && *round == list.round
            && waker.will_wake(cx.waker())
        {
            return Poll::Pending;
        }
        Self::take_out(&mut list, registered);
        list.wakers.push(cx.waker().clone());
        registered.0 = Some((cx.waker().clone(), list.round));
        Poll::Pending
    }

    /// Whether the list was woken (and emptied) since `registered` was left in it.
    fn woken_since(&self, registered: &Registered) -> bool {
        registered.0.as_ref().is_some_and(|(_, round)| *round != self.list().round)
    }

    /// Takes a waiter's waker out of the list (it stopped waiting).
    pub fn forget(&self, registered: &mut Registered) {
        if registered.0.is_some() {
            Self::take_out(&mut self.list(), registered);
        }
    }

    /// Takes `registered`'s waker out of `list` if this round still holds it.
    fn take_out(list: &mut Waiting, registered: &mut Registered) {
        let Some((waker, round)) = registered.0.take() else { return };
        if round == list.round
            && let Some(at) = list.wakers.iter().position(|w| w.will_wake(&waker))
        {
            list.wakers.swap_remove(at);
        }
    }

    /// Resolves at the next publish past `after`, or at the next [`wake_all`](Self::wake_all)
    /// (the caller looks again at what it waits for); not when its task is woken for
    /// something else.
    pub fn changed(&self, after: u64) -> Changed<'_> {
        Changed { seq: self, after, registered: Registered::default() }
    }

    /// How many waiters are registered.
    #[cfg(test)]
    fn waiting(&self) -> usize {
        self.list().wakers.len()
    }
}

/// [`PublishedSeq::changed`]'s future.
#[derive(Debug)]
#[must_use = "a future does nothing unless awaited"]
pub struct Changed<'a> {
    seq: &'a PublishedSeq,
    after: u64,
    registered: Registered,
}

impl Future for Changed<'_> {
    type Output = ();

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        let this = self.get_mut();
        // Woken by a wake_all since it registered (a publish past `after` shows in the seq).
        if this.seq.woken_since(&this.registered) {
            this.registered.0 = None;
            return Poll::Ready(());
        }
        this.seq.poll_after(this.after, &mut this.registered, cx).map(|_| ())
    }
}

impl Drop for Changed<'_> {
    fn drop(&mut self) {
        self.seq.forget(&mut self.registered);
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;
    use std::time::Duration;

    use super::*;

    /// A task waiting for a seq past `after`.
    fn waiter(seq: &Arc<PublishedSeq>, after: u64) -> tokio::task::JoinHandle<()> {
        let seq = Arc::clone(seq);
        tokio::spawn(async move { seq.changed(after).await })
    }

    /// A waiter wakes at a newer seq only, and a dropped waiter leaves nothing behind.
    #[tokio::test]
    async fn a_waiter_wakes_at_a_newer_seq_and_leaves_no_waker_behind() {
        let seq = Arc::new(PublishedSeq::new(5));
        let waiter = waiter(&seq, 5);
        tokio::time::sleep(Duration::from_millis(20)).await;
        assert_eq!(seq.waiting(), 1);
        seq.publish(4);
        seq.publish(5);
        tokio::time::sleep(Duration::from_millis(20)).await;
        assert!(!waiter.is_finished(), "an older or equal seq wakes nobody");
        seq.publish(6);
        tokio::time::timeout(Duration::from_secs(5), waiter).await.expect("woken").expect("ran");
        assert_eq!(seq.get(), 6);
        assert_eq!(seq.waiting(), 0);

        // Opened and dropped a thousand times without a publish: the list stays empty.
        for _ in 0..1000 {
            let pending = tokio::time::timeout(Duration::from_micros(1), seq.changed(6)).await;
            assert!(pending.is_err());
        }
        assert_eq!(seq.waiting(), 0);
    }

    /// wake_all ends a wait without a change.
    #[tokio::test]
    async fn wake_all_ends_a_wait() {
        let seq = Arc::new(PublishedSeq::new(1));
        let waiter = waiter(&seq, 1);
        tokio::time::sleep(Duration::from_millis(20)).await;
        seq.wake_all();
        tokio::time::timeout(Duration::from_secs(5), waiter).await.expect("woken").expect("ran");
    }
}
