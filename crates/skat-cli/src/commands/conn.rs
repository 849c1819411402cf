//! What the client commands share: the server to talk to and how (TLS, a private CA,
//! plain text allowed or not), the admin token, and a runtime for the call.

use std::path::PathBuf;

use skat_proto::pb::skat_service_client::SkatServiceClient;
use skat_sdk::SdkError;
use skat_sdk::client::with_token;
use skat_sdk::{Keepalive, ServerAddress};
use tonic::transport::Channel;

/// The server a command talks to. `https://` is TLS with the system's roots (plus
/// `--ca-file`); anything else is plain text, and then no token leaves this machine
/// unless `--insecure` says so.
#[derive(Debug, Clone, clap::Args)]
pub struct ServerArgs {
    /// The server: `https://host[:port]` (TLS), `host:port` or `http://host:port` (plain
    /// text; tokens only to this machine unless --insecure).
    #[arg(long, env = "SKAT_SERVER", default_value = "http://127.0.0.1:50051")]
    pub server: String,
    /// A PEM file with the CA that signed the server's certificate (a private CA),
    /// trusted beside the system's roots.
    #[arg(long, env = "SKAT_CA_FILE")]
    pub ca_file: Option<PathBuf>,
    /// This client's certificate (PEM), for a server that wants mutual TLS
    /// (`skat serve --tls-client-ca`).
    #[arg(long, env = "SKAT_CLIENT_CERT", requires = "client_key")]
    pub client_cert: Option<PathBuf>,
    /// The key of --client-cert (PEM).
    #[arg(long, env = "SKAT_CLIENT_KEY", requires = "client_cert")]
    pub client_key: Option<PathBuf>,
    /// Send tokens in plain text to a server that is not this machine (only on a network
    /// you trust; prefer `https://`).
    #[arg(long, env = "SKAT_INSECURE")]
    pub insecure: bool,
    /// Ping the server every SECS seconds while a call is open (a seat's stream), and
    /// give the connection up when a ping goes 10 s unanswered: a server that vanished
    /// without closing the connection is noticed and the seat reconnects. 0: no pings.
    #[arg(long, env = "SKAT_KEEPALIVE_SECS", value_name = "SECS", default_value_t = 15)]
    pub keepalive: u64,
}

impl ServerArgs {
    /// The address with its TLS settings.
    pub fn address(&self) -> ServerAddress {
        ServerAddress::new(&self.server)
            .with_ca_file(self.ca_file.clone())
            .with_client_identity(self.client_cert.clone().zip(self.client_key.clone()))
            .allow_plain_text(self.insecure)
            .with_keepalive(Keepalive::every_secs(self.keepalive))
    }

    /// A client, after checking that `secret` (when there is one) may travel there.
    pub async fn connect(&self, secret: Option<&str>) -> Result<SkatServiceClient<Channel>, SdkError> {
        let address = self.address();
        if let Some(what) = secret {
            address.check_secret(what)?;
        }
        address.connect().await
    }
}

#[derive(Debug, clap::Args)]
pub struct NameConn {
    /// The account's name.
    #[arg(long)]
    pub name: String,
    #[command(flatten)]
    pub conn: Conn,
}

#[derive(Debug, clap::Args)]
pub struct Conn {
    #[command(flatten)]
    pub server: ServerArgs,
    /// The admin token (`skat serve --admin-token`).
    #[arg(long, env = "SKAT_ADMIN_TOKEN", hide_env_values = true)]
    pub admin_token: Option<String>,
}

impl Conn {
    /// A client; refuses before connecting when the admin token would travel in plain
    /// text beyond this machine.
    pub async fn connect(&self) -> Result<SkatServiceClient<Channel>, SdkError> {
        self.server.connect(self.admin_token.as_ref().map(|_| "admin token")).await
    }

    /// A request carrying the admin token, when one is given.
    pub fn request<T>(&self, message: T) -> tonic::Request<T> {
        match &self.admin_token {
            Some(t) => with_token(message, t),
            None => tonic::Request::new(message),
        }
    }
}

/// A runtime for one command.
pub fn runtime() -> std::io::Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_multi_thread().enable_all().build()
}

/// The time control a command's `--action-timeout` and `--deal-clock` ask for (`None`:
/// the server's default); one given alone keeps the other at the server's usual default.
pub fn time_control(
    action: Option<std::time::Duration>,
    deal: Option<std::time::Duration>,
) -> Option<skat_proto::pb::TimeControl> {
    let ms = |d: Option<std::time::Duration>| d.map(|d| d.as_millis() as u64);
    match (ms(action), ms(deal)) {
        (None, None) => None,
        (action, deal) => Some(skat_proto::pb::TimeControl {
            action_ms: action.unwrap_or(30_000),
            deal_ms: deal.unwrap_or(120_000),
            between_deals_ms: 0,
        }),
    }
}
