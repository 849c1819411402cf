//! Which of a WatchTables stream's watches were woken, so that the stream polls those and
//! not every watch it carries.
//!
//! | rule | why |
//! |---|---|
//! | each watch is polled with a waker of its own, which notes the watch's key and wakes the stream | a stream of 63 watches that looked at all of them for every event spent 5-6% more CPU a durable deal than three streams a seat (docs/BENCHMARKS.md); now an event costs one watch's poll |
//! | a key is noted once until the watch is polled again (its flag is cleared before the poll) | a table that publishes often does not grow the list; a wake during the poll is kept |
//! | the stream's own waker is the last one it was polled with | a wake always reaches the task that polls the stream now |

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::task::{Wake, Waker};

/// The keys woken since the stream last looked, and the stream's waker.
#[derive(Debug, Default)]
pub(crate) struct Woken {
    shared: Arc<Mutex<State>>,
}

#[derive(Debug, Default)]
struct State {
    keys: Vec<u64>,
    stream: Option<Waker>,
}

/// One watch's waker: its key, whether it is noted already, and where to note it.
#[derive(Debug)]
pub(crate) struct WatchWaker {
    key: u64,
    noted: AtomicBool,
    shared: Arc<Mutex<State>>,
}

fn lock(state: &Mutex<State>) -> MutexGuard<'_, State> {
    state.lock().unwrap_or_else(|p| p.into_inner())
}

impl Woken {
    /// The waker for the watch `key`, and its handle (to clear its note before a poll).
    pub(crate) fn waker(&self, key: u64) -> (Arc<WatchWaker>, Waker) {
        let one = Arc::new(WatchWaker { key, noted: AtomicBool::new(false), shared: self.shared.clone() });
        (one.clone(), Waker::from(one))
    }

    /// The keys woken since the last call, in order; `stream` is woken by the next.
    pub(crate) fn take(&self, stream: &Waker) -> Vec<u64> {
        let mut state = lock(&self.shared);
        if !state.stream.as_ref().is_some_and(|w| w.will_wake(stream)) {
            state.stream = Some(stream.clone());
        }
        std::mem::take(&mut state.keys)
    }
}

impl WatchWaker {
    /// The watch is about to be polled: a wake from now on is noted again.
    pub(crate) fn clear(&self) {
        self.noted.store(false, Ordering::Release);
    }
}

impl Wake for WatchWaker {
    fn wake(self: Arc<Self>) {
        self.wake_by_ref();
    }

    fn wake_by_ref(self: &Arc<Self>) {
        if self.noted.swap(true, Ordering::AcqRel) {
            return;
        }
        let stream = {
            let mut state = lock(&self.shared);
            state.keys.push(self.key);
            state.stream.clone()
        };
        if let Some(stream) = stream {
            stream.wake();
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::AtomicUsize;

    use super::*;

    struct Count(AtomicUsize);
    impl Wake for Count {
        fn wake(self: Arc<Self>) {
            self.0.fetch_add(1, Ordering::Relaxed);
        }
    }

    #[test]
    fn a_watch_is_noted_once_until_it_is_polled_and_wakes_the_stream() {
        let woken = Woken::default();
        let count = Arc::new(Count(AtomicUsize::new(0)));
        let stream = Waker::from(count.clone());
        assert!(woken.take(&stream).is_empty());
        let ((a, wake_a), (b, wake_b)) = (woken.waker(1), woken.waker(2));
        wake_b.wake_by_ref();
        wake_a.wake_by_ref();
        wake_b.wake_by_ref();
        assert_eq!(woken.take(&stream), vec![2, 1], "in order, each once");
        assert_eq!(count.0.load(Ordering::Relaxed), 2, "the stream is woken by each new note");
        // Not polled yet: still noted, so not listed again.
        wake_a.wake_by_ref();
        assert!(woken.take(&stream).is_empty());
        a.clear();
        b.clear();
        wake_a.wake_by_ref();
        assert_eq!(woken.take(&stream), vec![1]);
    }
}
