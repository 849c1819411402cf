//! Where a server is, and how to talk to it safely.
//!
//! | address | means |
//! |---|---|
//! | `host:port`, `http://host:port` | plain text |
//! | `https://host[:port]` | TLS, trusting the system's roots, or the CA in `ca_file` (`--ca-file`, `SKAT_CA_FILE`) for a private CA |
//! | `unix:///path/to/socket` | a Unix socket on this machine (`skat serve --unix-socket`): how a hosted bot's sandbox reaches the server |
//!
//! A server that wants mutual TLS (`skat serve --tls-client-ca`) gets this client's
//! certificate and key from `with_client_identity` (`--client-cert`/`--client-key`,
//! `SKAT_CLIENT_CERT`/`SKAT_CLIENT_KEY`).
//!
//! A connection is pinged while a call is open on it ([`Keepalive`]: every 15 s, 10 s to
//! answer; `SKAT_KEEPALIVE_SECS` sets the interval, `0` turns it off): a server whose
//! machine vanished without closing the connection (a network partition, a node powered
//! off) is noticed within 25 s, and the seat reconnects (to the replica that took its
//! tables over), instead of waiting on a stream that will never speak again while its
//! clock runs out.
//!
//! A secret (a seat, bot, admin or create token, a join code) is never sent in plain
//! text to anything but this machine (a loopback address or `localhost`) unless plain
//! text was allowed explicitly (`--insecure`, `SKAT_INSECURE=1`): [`ServerAddress::check_secret`]
//! refuses with an error that says how to fix it. There is no silent downgrade: `https://`
//! is TLS or nothing.

use std::net::IpAddr;
use std::path::PathBuf;
use std::time::Duration;

use skat_proto::pb::skat_service_client::SkatServiceClient;
use tonic::transport::{Certificate, Channel, ClientTlsConfig, Endpoint, Identity};

use crate::error::SdkError;

/// A server and how to reach it (see the module header).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ServerAddress {
    url: String,
    ca_file: Option<PathBuf>,
    /// A client certificate and its key, for servers that want mutual TLS.
    identity: Option<(PathBuf, PathBuf)>,
    insecure: bool,
    keepalive: Option<Keepalive>,
}

/// HTTP/2 pings on a connection with an open call (a seat's stream): every `interval`,
/// and the connection is given up when one is not answered within `timeout`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Keepalive {
    /// Time between pings while a call is open.
    pub interval: Duration,
    /// Time a ping has to be answered before the connection is given up.
    pub timeout: Duration,
}

impl Keepalive {
    /// Every 15 s, 10 s to answer. The server pings its clients too (every 30 s), but
    /// that tells the server, not the client, that the other end is gone.
    pub const DEFAULT: Keepalive =
        Keepalive { interval: Duration::from_secs(15), timeout: Duration::from_secs(10) };

    /// Pings every `secs` seconds with the default time to answer; `0`: no pings (what
    /// `SKAT_KEEPALIVE_SECS` and `--keepalive` say).
    pub fn every_secs(secs: u64) -> Option<Keepalive> {
        (secs > 0).then(|| Keepalive { interval: Duration::from_secs(secs), ..Keepalive::DEFAULT })
    }

    /// From `SKAT_KEEPALIVE_SECS`, else the default.
    fn from_env() -> Option<Keepalive> {
        match std::env::var("SKAT_KEEPALIVE_SECS").ok().and_then(|v| v.trim().parse::<u64>().ok()) {
            Some(secs) => Keepalive::every_secs(secs),
            None => Some(Keepalive::DEFAULT),
        }
    }
}

/// Whether an environment variable says yes (`1`, `true`, `yes`).
fn env_flag(name: &str) -> bool {
    std::env::var(name).is_ok_and(|v| matches!(v.trim().to_ascii_lowercase().as_str(), "1" | "true" | "yes"))
}

impl ServerAddress {
    /// A server from its address (`host:port`, `http://...`, `https://...`), with the TLS
    /// settings of the environment: `SKAT_CA_FILE` (a CA to trust), `SKAT_INSECURE=1`
    /// (secrets may travel in plain text).
    pub fn new(address: &str) -> ServerAddress {
        let address = address.trim().trim_end_matches('/');
        let url = if address.contains("://") || address.starts_with("unix:") {
            address.to_string()
        } else {
            format!("http://{address}")
        };
        let file = |name| std::env::var_os(name).filter(|v| !v.is_empty()).map(PathBuf::from);
        ServerAddress {
            url,
            ca_file: file("SKAT_CA_FILE"),
            identity: file("SKAT_CLIENT_CERT").zip(file("SKAT_CLIENT_KEY")),
            insecure: env_flag("SKAT_INSECURE"),
            keepalive: Keepalive::from_env(),
        }
    }

    /// Pings the server this often while a call is open (`None`: never), instead of what
    /// the environment said.
    pub fn with_keepalive(mut self, keepalive: Option<Keepalive>) -> ServerAddress {
        self.keepalive = keepalive;
        self
    }

    /// Connects with this address's timeouts and pings.
    fn tuned(&self, endpoint: Endpoint) -> Endpoint {
        // A replica that died without refusing connections (its address gone from the
        // network) costs seconds, not the system's minutes, before the next address.
        let endpoint = endpoint.tcp_nodelay(true).connect_timeout(Duration::from_secs(5));
        match self.keepalive {
            Some(k) => endpoint.http2_keep_alive_interval(k.interval).keep_alive_timeout(k.timeout),
            None => endpoint,
        }
    }

    /// Presents this certificate (PEM, with its chain) and key to servers that want
    /// mutual TLS; `None` keeps what the environment said.
    pub fn with_client_identity(mut self, identity: Option<(PathBuf, PathBuf)>) -> ServerAddress {
        if identity.is_some() {
            self.identity = identity;
        }
        self
    }

    /// Trusts the CA in this PEM file for TLS (beside the system's roots); `None` keeps
    /// what the environment said.
    pub fn with_ca_file(mut self, ca_file: Option<PathBuf>) -> ServerAddress {
        if ca_file.is_some() {
            self.ca_file = ca_file;
        }
        self
    }

    /// Allows secrets in plain text beyond this machine (a network you trust); `false`
    /// keeps what the environment said.
    pub fn allow_plain_text(mut self, insecure: bool) -> ServerAddress {
        self.insecure |= insecure;
        self
    }

    /// The URL (`http://...` or `https://...`).
    pub fn url(&self) -> &str {
        &self.url
    }

    /// Whether the connection is TLS.
    pub fn is_tls(&self) -> bool {
        self.url.starts_with("https://")
    }

    /// The host part of the URL.
    fn host(&self) -> &str {
        let rest = self.url.split_once("://").map_or(self.url.as_str(), |(_, r)| r);
        let authority = rest.split('/').next().unwrap_or(rest);
        let authority = authority.rsplit_once('@').map_or(authority, |(_, h)| h);
        if let Some(v6) = authority.strip_prefix('[') {
            return v6.split(']').next().unwrap_or(v6);
        }
        authority.split(':').next().unwrap_or(authority)
    }

    /// The socket's path, for a `unix://` address.
    pub fn unix_path(&self) -> Option<&str> {
        self.url.strip_prefix("unix://").or_else(|| self.url.strip_prefix("unix:"))
    }

    /// Whether the server is this machine (a loopback address, `localhost` or a Unix socket).
    pub fn is_loopback(&self) -> bool {
        if self.unix_path().is_some() {
            return true;
        }
        let host = self.host();
        host.eq_ignore_ascii_case("localhost") || host.parse::<IpAddr>().is_ok_and(|ip| ip.is_loopback())
    }

    /// Refuses to send `what` (a secret) in plain text beyond this machine unless allowed.
    pub fn check_secret(&self, what: &str) -> Result<(), SdkError> {
        if self.is_tls() || self.is_loopback() || self.insecure {
            return Ok(());
        }
        Err(SdkError::PlainText { what: what.to_string(), url: self.url.clone() })
    }

    /// Another server with the same TLS settings: `address` as the server named it (a
    /// redirect to the replica that owns a table), taking this one's scheme when it has
    /// none.
    pub fn at(&self, address: &str) -> ServerAddress {
        let scheme = if self.is_tls() { "https" } else { "http" };
        let url = if address.contains("://") { address.to_string() } else { format!("{scheme}://{address}") };
        ServerAddress { url, ..self.clone() }
    }

    /// The endpoint, with TLS for `https://` (never plain text instead); not connected.
    pub fn endpoint(&self) -> Result<Endpoint, SdkError> {
        let fail = |e| SdkError::Connect { url: self.url.clone(), source: e };
        let endpoint = self.tuned(Endpoint::from_shared(self.url.clone()).map_err(fail)?);
        if !self.is_tls() {
            return Ok(endpoint);
        }
        let read = |path: &PathBuf| {
            std::fs::read(path).map_err(|e| SdkError::CaFile { path: path.clone(), source: e })
        };
        let mut tls = ClientTlsConfig::new().with_native_roots();
        if let Some(ca) = &self.ca_file {
            tls = tls.ca_certificate(Certificate::from_pem(read(ca)?));
        }
        if let Some((cert, key)) = &self.identity {
            tls = tls.identity(Identity::from_pem(read(cert)?, read(key)?));
        }
        endpoint.tls_config(tls).map_err(fail)
    }

    /// A channel to the server.
    pub async fn channel(&self) -> Result<Channel, SdkError> {
        let fail = |e| SdkError::Connect { url: self.url.clone(), source: e };
        if let Some(path) = self.unix_path() {
            let path = PathBuf::from(path);
            // The URI only names the `:authority`; the connector goes to the socket.
            let endpoint = self.tuned(Endpoint::from_static("http://localhost"));
            let connector = tower::service_fn(move |_: tonic::transport::Uri| {
                let path = path.clone();
                async move {
                    Ok::<_, std::io::Error>(hyper_util::rt::TokioIo::new(
                        tokio::net::UnixStream::connect(path).await?,
                    ))
                }
            });
            return endpoint.connect_with_connector(connector).await.map_err(fail);
        }
        self.endpoint()?.connect().await.map_err(fail)
    }

    /// A client of the server: TLS for `https://` (never plain text instead).
    pub async fn connect(&self) -> Result<SkatServiceClient<Channel>, SdkError> {
        Ok(SkatServiceClient::new(self.channel().await?))
    }
}

impl From<&str> for ServerAddress {
    fn from(address: &str) -> ServerAddress {
        ServerAddress::new(address)
    }
}

impl From<String> for ServerAddress {
    fn from(address: String) -> ServerAddress {
        ServerAddress::new(&address)
    }
}

impl From<&String> for ServerAddress {
    fn from(address: &String) -> ServerAddress {
        ServerAddress::new(address)
    }
}

impl From<&ServerAddress> for ServerAddress {
    fn from(address: &ServerAddress) -> ServerAddress {
        address.clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plain(a: &str) -> ServerAddress {
        ServerAddress { insecure: false, ca_file: None, identity: None, ..ServerAddress::new(a) }
    }

    #[test]
    fn addresses_name_their_scheme_and_host() {
        assert_eq!(plain("127.0.0.1:50051").url(), "http://127.0.0.1:50051");
        assert_eq!(plain(" http://127.0.0.1:50051/ ").url(), "http://127.0.0.1:50051");
        assert_eq!(plain("https://skat.example.org").url(), "https://skat.example.org");
        assert!(plain("https://skat.example.org").is_tls());
        for local in ["127.0.0.1:1", "http://localhost:1", "[::1]:1", "127.8.9.10:1"] {
            assert!(plain(local).is_loopback(), "{local}");
        }
        for remote in ["10.0.0.1:1", "skat.example.org:443", "http://[2001:db8::1]:1", "localhost.example:1"]
        {
            assert!(!plain(remote).is_loopback(), "{remote}");
        }
    }

    #[test]
    fn a_secret_never_goes_in_plain_text_beyond_this_machine_unless_allowed() {
        assert!(plain("127.0.0.1:50051").check_secret("bot token").is_ok());
        assert!(plain("https://skat.example.org").check_secret("bot token").is_ok());
        let e = plain("skat.example.org:50051").check_secret("bot token").unwrap_err().to_string();
        assert!(e.contains("bot token") && e.contains("https://") && e.contains("--insecure"), "{e}");
        assert!(plain("skat.example.org:50051").allow_plain_text(true).check_secret("bot token").is_ok());
    }

    #[test]
    fn a_redirect_keeps_the_scheme() {
        assert_eq!(plain("https://a.example").at("b.example:443").url(), "https://b.example:443");
        assert_eq!(plain("http://127.0.0.1:1").at("127.0.0.1:2").url(), "http://127.0.0.1:2");
        assert_eq!(plain("http://127.0.0.1:1").at("https://c.example").url(), "https://c.example");
    }
}
