//! The doors of hosted bots' sandboxes: for every hosted seat handed to a runner, a
//! [`Door`] that admits that seat's calls and nothing else, with limits of its own.
//!
//! | rule | why |
//! |---|---|
//! | a door is opened when the feed hands its seat to a runner, keyed by the seat token's hash | the same seat handed out again (a runner reconnecting) finds the same door and socket |
//! | a seat handed out with a new token closes the door of the old one | one door per seat: the old token no longer holds it |
//! | on podman a door is a Unix socket of its own (`<socket-dir>/<16 hex>.sock`), made by the server | the server knows which connection is which sandbox before it sends a byte, so no sandbox can reach a cap another shares |
//! | at most [`CONNECTIONS`] connections, [`STREAMS`] streams and a bucket of [`BURST`] calls refilled at [`CALLS_PER_SECOND`] a door | a sandbox's limits are its own; an account's sandboxes together hold their doors' limits and nothing more |
//! | a door closes [`AFTER_TABLE`] after its table ended, or when the table is gone | the bot reads the standings, then the door goes |
//!
//! The rate is a token bucket of twenty lines, not a crate: the keyed limiters on
//! crates.io (governor) bring a clock and a concurrent map this does not need, since a
//! door holds its own bucket.

use std::collections::HashMap;
use std::net::{IpAddr, Ipv6Addr};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use tokio::sync::watch;

use crate::rpc::held::Holding;
use skat_table::secret::TokenHash;

/// Connections one door holds at once (more are closed as they arrive).
pub(crate) const CONNECTIONS: usize = 4;

/// Streams (WatchTable) one door holds at once.
pub(crate) const STREAMS: usize = 4;

/// Calls a door may make in a burst.
pub(crate) const BURST: f64 = 200.0;

/// Calls a door may make per second, sustained: a seat at a table of fast bots acts on a
/// third of about a hundred moves a second.
pub(crate) const CALLS_PER_SECOND: f64 = 100.0;

/// How long a door stays open after its table ended.
pub(crate) const AFTER_TABLE: Duration = Duration::from_secs(30);

/// The unique-local prefix of door addresses (`fd00:5ca7::/64`, never routed): a Unix
/// door's connections carry the address of their door, so the per-address limits of the
/// service behind it count each door as one client.
const PREFIX: u128 = 0xfd00_5ca7_u128 << 96;

/// The seat a door admits.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Pass {
    /// The table.
    pub(crate) table_id: String,
    /// The seat.
    pub(crate) seat: u32,
    /// The account, for the log.
    pub(crate) bot_name: String,
}

/// One sandbox's door.
#[derive(Debug)]
pub(crate) struct Door {
    number: u64,
    pass: Pass,
    token: TokenHash,
    socket: Option<PathBuf>,
    connections: AtomicUsize,
    bucket: Mutex<Bucket>,
    /// True once closed: its socket's listener and its connections end.
    closed: watch::Sender<bool>,
}

/// A token bucket: `level` calls available, refilled at [`CALLS_PER_SECOND`] up to
/// [`BURST`].
#[derive(Debug)]
struct Bucket {
    level: f64,
    at: Instant,
}

impl Bucket {
    fn take(&mut self, now: Instant) -> bool {
        let refill = now.saturating_duration_since(self.at).as_secs_f64() * CALLS_PER_SECOND;
        self.level = (self.level + refill).min(BURST);
        self.at = now;
        if self.level >= 1.0 {
            self.level -= 1.0;
            true
        } else {
            false
        }
    }
}

/// One of a door's connections, given back when dropped.
#[derive(Debug)]
pub(crate) struct DoorConnection {
    door: Arc<Door>,
}

impl Drop for DoorConnection {
    fn drop(&mut self) {
        self.door.connections.fetch_sub(1, Ordering::SeqCst);
    }
}

impl Holding for DoorConnection {
    fn open(&self) -> bool {
        !self.door.is_closed()
    }
}

impl Door {
    /// The seat it admits.
    pub(crate) fn pass(&self) -> &Pass {
        &self.pass
    }

    /// Its Unix socket, if it has one.
    pub(crate) fn socket(&self) -> Option<&Path> {
        self.socket.as_deref()
    }

    /// Whether `token` is this door's seat token.
    pub(crate) fn admits(&self, token: &str) -> bool {
        !self.is_closed() && self.token.matches(token)
    }

    /// Whether it closed (superseded, or its table is over).
    pub(crate) fn is_closed(&self) -> bool {
        *self.closed.borrow()
    }

    /// Turns true when it closes.
    pub(crate) fn closing(&self) -> watch::Receiver<bool> {
        self.closed.subscribe()
    }

    /// The address its Unix connections carry: `fd00:5ca7::<number>`.
    pub(crate) fn address(&self) -> IpAddr {
        IpAddr::V6(Ipv6Addr::from(PREFIX | u128::from(self.number)))
    }

    /// One more call now, unless its bucket is empty.
    pub(crate) fn take_call(&self) -> bool {
        self.bucket.lock().unwrap_or_else(|p| p.into_inner()).take(Instant::now())
    }

    /// One more connection, unless it holds [`CONNECTIONS`].
    pub(crate) fn connect(self: &Arc<Self>) -> Option<DoorConnection> {
        let before = self.connections.fetch_add(1, Ordering::SeqCst);
        if before >= CONNECTIONS || self.is_closed() {
            self.connections.fetch_sub(1, Ordering::SeqCst);
            return None;
        }
        Some(DoorConnection { door: Arc::clone(self) })
    }

    fn close(&self) {
        self.closed.send_replace(true);
        if let Some(path) = &self.socket {
            let _ = std::fs::remove_file(path);
        }
    }
}

/// What opening a door asks for.
#[derive(Debug)]
pub(crate) struct Opening<'a> {
    /// The seat.
    pub(crate) pass: Pass,
    /// Its token.
    pub(crate) token: &'a str,
}

/// Every open door, by token and by number.
#[derive(Debug)]
pub(crate) struct Doors {
    socket_dir: Option<PathBuf>,
    next: AtomicU64,
    open: Mutex<Open>,
}

#[derive(Debug, Default)]
struct Open {
    by_number: HashMap<u64, Arc<Door>>,
    /// (table, seat) → the door's number.
    by_seat: HashMap<(String, u32), u64>,
    /// The seat token's hash → the door's number (a hash of a secret may be compared in
    /// any time: it gives nothing of the secret away).
    by_token: HashMap<TokenHash, u64>,
    /// Doors whose table ended, with when it was first seen ended.
    ending: HashMap<u64, Instant>,
}

/// A door that is new needs its socket served.
#[derive(Debug)]
pub(crate) enum Opened {
    /// The seat's door was open already (the same token handed out again).
    Again(Arc<Door>),
    /// A new door.
    New(Arc<Door>),
}

impl Doors {
    /// The doors of a server that makes sockets in `socket_dir` (`None`: doors are reached
    /// by their token on the sandbox port only). The directory is made (mode 0711: the
    /// runner may reach a socket it is named, nobody may list them) and emptied: a door
    /// lives no longer than the process that opened it.
    pub(crate) fn new(socket_dir: Option<PathBuf>) -> std::io::Result<Doors> {
        if let Some(dir) = &socket_dir {
            use std::os::unix::fs::{FileTypeExt as _, PermissionsExt as _};
            std::fs::create_dir_all(dir)?;
            std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o711))?;
            for entry in std::fs::read_dir(dir)?.flatten() {
                if entry.file_type().is_ok_and(|t| t.is_socket()) {
                    let _ = std::fs::remove_file(entry.path());
                }
            }
        }
        Ok(Doors { socket_dir, next: AtomicU64::new(1), open: Mutex::default() })
    }

    fn open_doors(&self) -> std::sync::MutexGuard<'_, Open> {
        self.open.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The door of a seat handed to a runner: the one it has when the token is the same,
    /// else a new one (closing the seat's old door).
    pub(crate) fn open(&self, opening: Opening<'_>) -> Opened {
        let key = (opening.pass.table_id.clone(), opening.pass.seat);
        let mut open = self.open_doors();
        if let Some(n) = open.by_seat.get(&key).copied()
            && let Some(door) = open.by_number.get(&n).cloned()
        {
            if door.admits(opening.token) {
                return Opened::Again(door);
            }
            door.close();
            open.by_token.remove(&door.token);
            open.by_number.remove(&n);
            open.ending.remove(&n);
        }
        let number = self.next.fetch_add(1, Ordering::Relaxed);
        let socket = self.socket_dir.as_ref().map(|d| d.join(format!("{}.sock", random_name())));
        let door = Arc::new(Door {
            number,
            pass: opening.pass,
            token: TokenHash::of(opening.token),
            socket,
            connections: AtomicUsize::new(0),
            bucket: Mutex::new(Bucket { level: BURST, at: Instant::now() }),
            closed: watch::Sender::new(false),
        });
        open.by_seat.insert(key, number);
        open.by_token.insert(door.token, number);
        open.by_number.insert(number, Arc::clone(&door));
        Opened::New(door)
    }

    /// The door a Unix connection's address names.
    pub(crate) fn by_address(&self, ip: IpAddr) -> Option<Arc<Door>> {
        let IpAddr::V6(v6) = ip else { return None };
        let bits = u128::from(v6);
        if bits >> 64 != PREFIX >> 64 {
            return None;
        }
        self.open_doors().by_number.get(&(bits as u64)).cloned()
    }

    /// The door whose seat token `token` is (the sandbox port finds doors this way).
    pub(crate) fn by_token(&self, token: &str) -> Option<Arc<Door>> {
        let hash = TokenHash::of(token);
        let open = self.open_doors();
        open.by_token.get(&hash).and_then(|n| open.by_number.get(n)).cloned()
    }

    /// Closes the doors whose tables `ended` says have ended (for [`AFTER_TABLE`]) or are
    /// gone; `ended(table_id)` is `None` for a table that is gone, `Some(true)` for one
    /// that ended. Returns how many doors are open.
    pub(crate) fn sweep(&self, ended: impl Fn(&str) -> Option<bool>, now: Instant) -> usize {
        let mut open = self.open_doors();
        let Open { by_number, by_seat, by_token, ending } = &mut *open;
        by_number.retain(|n, door| {
            let keep = match ended(&door.pass.table_id) {
                None => false,
                Some(false) => true,
                Some(true) => now.saturating_duration_since(*ending.entry(*n).or_insert(now)) < AFTER_TABLE,
            };
            if !keep {
                door.close();
                ending.remove(n);
                by_token.remove(&door.token);
                by_seat.remove(&(door.pass.table_id.clone(), door.pass.seat));
            }
            keep
        });
        by_number.len()
    }

    /// Closes every door (shutdown).
    pub(crate) fn close_all(&self) {
        let mut open = self.open_doors();
        for door in open.by_number.values() {
            door.close();
        }
        *open = Open::default();
    }
}

/// 16 random hex digits: a socket's name says nothing and cannot be guessed.
fn random_name() -> String {
    let n = skat_table::secret::random_u64().unwrap_or_else(|_| {
        std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos() as u64)
    });
    format!("{n:016x}")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pass(table: &str, seat: u32) -> Pass {
        Pass { table_id: table.into(), seat, bot_name: "b".into() }
    }

    fn door(o: Opened) -> Arc<Door> {
        match o {
            Opened::Again(d) | Opened::New(d) => d,
        }
    }

    #[test]
    fn a_door_admits_its_token_only_and_a_new_token_closes_the_old_door() {
        let doors = Doors::new(None).unwrap();
        let a = door(doors.open(Opening { pass: pass("t", 0), token: "tok-a" }));
        assert!(a.admits("tok-a") && !a.admits("tok-b"));
        assert!(matches!(doors.open(Opening { pass: pass("t", 0), token: "tok-a" }), Opened::Again(_)));
        let b = door(doors.open(Opening { pass: pass("t", 0), token: "tok-b" }));
        assert!(a.is_closed() && !a.admits("tok-a"), "the old token's door closed");
        assert!(doors.by_token("tok-a").is_none());
        assert_eq!(doors.by_token("tok-b").map(|d| d.number), Some(b.number));
        assert_eq!(doors.by_address(b.address()).map(|d| d.number), Some(b.number));
        assert!(doors.by_address("fd00:5ca8::1".parse().unwrap()).is_none());
    }

    #[test]
    fn connections_and_calls_are_bounded_per_door() {
        let doors = Doors::new(None).unwrap();
        let a = door(doors.open(Opening { pass: pass("t", 0), token: "a" }));
        let b = door(doors.open(Opening { pass: pass("t", 1), token: "b" }));
        let held: Vec<_> = (0..CONNECTIONS).map(|_| a.connect().unwrap()).collect();
        assert!(a.connect().is_none(), "a door holds its limit");
        assert!(b.connect().is_some(), "another door is not affected");
        drop(held);
        assert!(a.connect().is_some());
        let now = Instant::now();
        let mut bucket = Bucket { level: BURST, at: now };
        assert_eq!((0..1000).filter(|_| bucket.take(now)).count(), BURST as usize);
        assert!(bucket.take(now + Duration::from_millis(20)), "refilled at the rate");
    }

    #[test]
    fn doors_close_after_their_table() {
        let doors = Doors::new(None).unwrap();
        let a = door(doors.open(Opening { pass: pass("ended", 0), token: "a" }));
        let b = door(doors.open(Opening { pass: pass("gone", 0), token: "b" }));
        let c = door(doors.open(Opening { pass: pass("live", 0), token: "c" }));
        let state = |t: &str| match t {
            "ended" => Some(true),
            "live" => Some(false),
            _ => None,
        };
        let now = Instant::now();
        assert_eq!(doors.sweep(state, now), 2);
        assert!(b.is_closed() && !a.is_closed());
        assert_eq!(doors.sweep(state, now + AFTER_TABLE), 1);
        assert!(a.is_closed() && !c.is_closed());
    }
}
