//! What the competition commands share: the server to talk to, the admin token, and a
//! runtime for the call.

use skat_sdk::client::with_token;

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
    /// The server.
    #[arg(long, env = "SKAT_SERVER", default_value = "http://127.0.0.1:50051")]
    pub server: String,
    /// The admin token (`skat serve --admin-token`).
    #[arg(long, env = "SKAT_ADMIN_TOKEN", hide_env_values = true)]
    pub admin_token: Option<String>,
}

impl Conn {
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
