//! `skat serve` as a process: started on port 0, its address read from the line it
//! announces, its log kept, killed when the test ends.

use std::io::{BufRead, BufReader, Write};
use std::net::{SocketAddr, TcpListener};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::mpsc;
use std::time::Duration;

/// How long a server may take to announce itself (a debug build recovering a journal).
const START_WITHIN: Duration = Duration::from_secs(60);

/// The admin token [`Serve::operator`] sets.
pub const ADMIN_TOKEN: &str = "operator-secret";

static LOGS: AtomicU32 = AtomicU32::new(0);

/// A port nobody listens on now, for a server whose address another must know before
/// it starts (replicas that name each other as peers). Anything else uses port 0.
///
/// The port is picked below the kernel's ephemeral range (`ip_local_port_range`), from
/// which every port-0 bind and every outgoing connection takes its port: a port from
/// that range, free when checked, could be taken by another test's server or client
/// before this test's server binds it (it happened: "Address already in use" in the
/// takeover tests). Below the range only another `reserve_port` could pick it, and the
/// pick is spread by process and call.
///
/// # Panics
/// When no port below the ephemeral range can be bound.
pub fn reserve_port() -> u16 {
    static CALLS: AtomicU32 = AtomicU32::new(0);
    let low = std::fs::read_to_string("/proc/sys/net/ipv4/ip_local_port_range")
        .ok()
        .and_then(|range| range.split_whitespace().next()?.parse::<u32>().ok())
        .unwrap_or(32_768);
    let span = low.saturating_sub(1_024).clamp(1, 8_192);
    let start = std::process::id().wrapping_mul(7_919);
    for _ in 0..span {
        let step = CALLS.fetch_add(1, Ordering::Relaxed).wrapping_mul(613);
        let port = low.saturating_sub(1 + start.wrapping_add(step) % span);
        let Ok(port) = u16::try_from(port) else { continue };
        if TcpListener::bind(("127.0.0.1", port)).is_ok() {
            return port;
        }
    }
    panic!("no free port below the ephemeral range ({low})")
}

/// A child process (a bot, a client) killed when the test ends first.
pub struct Kill(pub Child);

impl Drop for Kill {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// The flags of a `skat serve` under test. The defaults: gRPC on 127.0.0.1 and a port
/// the server picks, metrics and the page off, `RUST_LOG=info`.
#[derive(Debug, Clone)]
pub struct Serve {
    bin: PathBuf,
    args: Vec<String>,
    env: Vec<(String, String)>,
    port: u16,
    metrics: bool,
    web: bool,
}

impl Serve {
    /// `bin serve` (`bin`: the `skat` binary, `env!("CARGO_BIN_EXE_skat")`).
    pub fn new(bin: impl AsRef<Path>) -> Serve {
        Serve {
            bin: bin.as_ref().to_path_buf(),
            args: Vec::new(),
            env: vec![("RUST_LOG".into(), "info".into())],
            port: 0,
            metrics: false,
            web: false,
        }
    }

    /// The operator's settings: the admin token [`ADMIN_TOKEN`], registration by the
    /// admin only.
    pub fn operator(self) -> Serve {
        self.args(["--admin-token", ADMIN_TOKEN, "--registration", "admin"])
    }

    /// Clocks a test can wait for: 400 ms per action, no deal clock.
    pub fn fast_clocks(self) -> Serve {
        self.args(["--action-timeout", "400ms", "--deal-clock", "0s"])
    }

    /// The journal in a SQLite file under `dir`.
    pub fn data_dir(self, dir: &Path) -> Serve {
        self.args(["--data-dir", &dir.display().to_string()])
    }

    /// Metrics on a port the server picks ([`ServerProcess::metrics`]).
    pub fn metrics(mut self) -> Serve {
        self.metrics = true;
        self
    }

    /// The page on a port the server picks ([`ServerProcess::web`]).
    pub fn web(mut self) -> Serve {
        self.web = true;
        self
    }

    /// TLS on the gRPC and web ports with the certificate and key `skat certs --out dir`
    /// made (`server.pem`, `server-key.pem`).
    pub fn tls(self, dir: &Path) -> Serve {
        let file = |name: &str| dir.join(name).display().to_string();
        self.args([
            "--tls-cert".to_string(),
            file("server.pem"),
            "--tls-key".to_string(),
            file("server-key.pem"),
        ])
    }

    /// gRPC on this port (one reserved with [`reserve_port`]).
    pub fn port(mut self, port: u16) -> Serve {
        self.port = port;
        self
    }

    /// One more flag or value.
    pub fn arg(mut self, arg: impl Into<String>) -> Serve {
        self.args.push(arg.into());
        self
    }

    /// More flags and values.
    pub fn args<S: Into<String>>(mut self, args: impl IntoIterator<Item = S>) -> Serve {
        self.args.extend(args.into_iter().map(Into::into));
        self
    }

    /// An environment variable of the server.
    pub fn env(mut self, key: &str, value: &str) -> Serve {
        self.env.retain(|(k, _)| k != key);
        self.env.push((key.into(), value.into()));
        self
    }

    /// The command line, as the server is started.
    pub fn command(&self) -> Command {
        let mut cmd = Command::new(&self.bin);
        let off_or_any = |on: bool| if on { "127.0.0.1:0" } else { "off" };
        cmd.args(["serve", "--addr", &format!("127.0.0.1:{}", self.port)])
            .args(["--metrics-addr", off_or_any(self.metrics), "--web-addr", off_or_any(self.web)])
            .args(&self.args);
        for (k, v) in &self.env {
            cmd.env(k, v);
        }
        cmd
    }

    /// Starts the server and waits for it to announce its address.
    ///
    /// # Panics
    /// When it exits or stays silent first, with its log.
    pub fn start(&self) -> ServerProcess {
        self.try_start().unwrap_or_else(|log| panic!("the server did not start; its log:\n{log}"))
    }

    /// Starts the server; its log when it exits (or stays silent) before announcing.
    pub fn try_start(&self) -> Result<ServerProcess, String> {
        let mut server = self.spawn()?;
        match server.announced.recv_timeout(START_WITHIN) {
            Ok(line) => {
                server.read_announcement(&line)?;
                Ok(server)
            }
            Err(_) => {
                let _ = server.child.kill();
                let _ = server.child.wait();
                std::thread::sleep(Duration::from_millis(50));
                Err(server.log())
            }
        }
    }

    /// Starts the server without waiting for it (a test that stops it while it starts);
    /// its address is the port asked for ([`Serve::port`]) until it announces one.
    ///
    /// # Errors
    /// When the binary cannot run.
    pub fn spawn(&self) -> Result<ServerProcess, String> {
        let n = LOGS.fetch_add(1, Ordering::Relaxed);
        let log = std::env::temp_dir().join(format!("skat-test-{}-{n}.log", std::process::id()));
        let mut child = self
            .command()
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| format!("cannot run {}: {e}", self.bin.display()))?;
        let stderr = child.stderr.take().ok_or("no stderr")?;
        let (tx, announced) = mpsc::channel();
        let mut file = std::fs::File::create(&log).map_err(|e| e.to_string())?;
        // The log is drained for the process's life (a full pipe would stop the server).
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                let _ = writeln!(file, "{line}");
                if line.contains("skat server listening on ") {
                    let _ = tx.send(line);
                }
            }
        });
        Ok(ServerProcess {
            child,
            addr: SocketAddr::from(([127, 0, 0, 1], self.port)),
            metrics: None,
            web: None,
            log,
            spec: self.clone(),
            announced,
        })
    }
}

/// A running `skat serve`.
pub struct ServerProcess {
    child: Child,
    /// Its gRPC address.
    pub addr: SocketAddr,
    /// Its metrics address, when [`Serve::metrics`].
    pub metrics: Option<SocketAddr>,
    /// The page's address, when [`Serve::web`].
    pub web: Option<SocketAddr>,
    log: PathBuf,
    spec: Serve,
    announced: mpsc::Receiver<String>,
}

/// The address after `marker` in `line`, up to the next space, `/`, `)`, `;` or `,`.
fn address_after(line: &str, marker: &str) -> Option<SocketAddr> {
    let rest = &line[line.find(marker)? + marker.len()..];
    let end = rest.find([' ', '/', ')', ';', ',']).unwrap_or(rest.len());
    rest[..end].parse().ok()
}

impl ServerProcess {
    fn read_announcement(&mut self, line: &str) -> Result<(), String> {
        self.addr = address_after(line, "listening on ").ok_or_else(|| format!("no address in: {line}"))?;
        self.metrics = address_after(line, "metrics on http://");
        self.web = address_after(line, "the page on http://")
            .or_else(|| address_after(line, "the page on https://"));
        Ok(())
    }

    /// Its gRPC port.
    pub fn port(&self) -> u16 {
        self.addr.port()
    }

    /// `http://` and its gRPC address.
    pub fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// `127.0.0.1:PORT`, as the CLI's `--server` takes it.
    pub fn server_arg(&self) -> String {
        self.addr.to_string()
    }

    /// Its process id.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// What it logged so far.
    pub fn log(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }

    /// Kills it at once (SIGKILL: no shutdown, as a crash); the same command on the same
    /// port, to start again later.
    pub fn kill9(mut self) -> Serve {
        let _ = self.child.kill();
        let _ = self.child.wait();
        self.again()
    }

    /// The same command on the same port.
    pub fn again(&self) -> Serve {
        self.spec.clone().port(self.addr.port())
    }

    /// Waits for it to exit (after a signal); its exit status.
    ///
    /// # Panics
    /// When the status cannot be read.
    pub fn wait(&mut self) -> ExitStatus {
        self.child.wait().expect("the server's exit status")
    }

    /// Its exit status, if it has exited.
    pub fn try_wait(&mut self) -> Option<ExitStatus> {
        self.child.try_wait().ok().flatten()
    }

    /// Sends SIGTERM and waits for it to exit; its exit status.
    ///
    /// # Panics
    /// When the signal cannot be sent.
    pub fn sigterm(mut self) -> ExitStatus {
        let pid = self.child.id().to_string();
        let sent = Command::new("kill").args(["-TERM", &pid]).status().expect("kill(1)");
        assert!(sent.success(), "SIGTERM sent to {pid}");
        self.child.wait().expect("the server's exit status")
    }

    /// Kills it (as a crash) and starts the same command on the same port; the new
    /// server's log follows the old one's.
    pub fn restart(self) -> ServerProcess {
        let old = self.log();
        let mut next = self.kill9().start();
        next.log_before(&old);
        next
    }

    fn log_before(&mut self, old: &str) {
        let now = self.log();
        let _ = std::fs::write(&self.log, format!("{old}--- restarted ---\n{now}"));
    }
}

impl Drop for ServerProcess {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        if std::thread::panicking() {
            let log = self.log();
            let tail: Vec<&str> = log.lines().rev().take(80).collect();
            eprintln!(
                "--- the server's log ({}), last {} lines ---\n{}",
                self.log.display(),
                tail.len(),
                tail.into_iter().rev().collect::<Vec<_>>().join("\n")
            );
        } else {
            let _ = std::fs::remove_file(&self.log);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::address_after;

    #[test]
    fn the_announcement_gives_every_address() {
        let line = "skat server listening on 127.0.0.1:4100 (gRPC, plain text), metrics on http://127.0.0.1:4101/metrics, the page on http://127.0.0.1:4102/; tables journaled to memory";
        assert_eq!(address_after(line, "listening on "), Some("127.0.0.1:4100".parse().unwrap()));
        assert_eq!(address_after(line, "metrics on http://"), Some("127.0.0.1:4101".parse().unwrap()));
        assert_eq!(address_after(line, "the page on http://"), Some("127.0.0.1:4102".parse().unwrap()));
        assert_eq!(
            address_after("skat server listening on [::1]:5 (gRPC", "listening on "),
            Some("[::1]:5".parse().unwrap())
        );
        assert_eq!(address_after(line, "nowhere"), None);
    }
}
