//! The competitions' settings: the part of the server's settings these services read,
//! copied out of them once at start (`ServerConfig::competition` in the server).

use std::path::PathBuf;

/// What the competition services are set up with.
#[derive(Debug, Clone, Default)]
pub struct CompetitionConfig {
    /// This replica's name (`None`: a single server).
    pub node_id: Option<String>,
    /// Other replicas' addresses by name, for lobby seats on tables they own.
    pub peers: Vec<(String, String)>,
    /// A replica's address from its name (`{node}` replaced), when not in `peers`.
    pub peer_address_template: Option<String>,
    /// The operator's token (`None`: no admin calls).
    pub admin_token: Option<String>,
    /// Anyone may register an account.
    pub open_registration: bool,
    /// Tables at once per account, at most.
    pub account_max_tables: u32,
    /// Lobby streams per account, at most.
    pub account_max_lobbies: usize,
    /// Deals of a casual meeting's list.
    pub casual_deals: u32,
    /// Challenges an account may send per hour.
    pub challenges_per_hour: usize,
    /// A turn's time when a meeting states none (ms).
    pub default_action_ms: u64,
    /// A seat's time per deal when a meeting states none (ms).
    pub default_deal_ms: u64,
    /// Joins a table takes (seats taken and re-taken).
    pub max_joins_per_table: usize,
    /// Tables this server holds, at most.
    pub max_tables: usize,
    /// Hosted bots.
    pub hosting: HostingConfig,
}

impl CompetitionConfig {
    /// Where the replica `node` is reached, if known.
    pub fn peer_address(&self, node: &str) -> Option<String> {
        if let Some((_, a)) = self.peers.iter().find(|(n, _)| n == node) {
            return Some(a.clone());
        }
        self.peer_address_template.as_ref().map(|t| t.replace("{node}", node))
    }
}

/// Hosted bots (`skat serve --hosting-*`, docs/hosted-bots.md).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HostingConfig {
    /// Where submitted archives are kept (`None`: archives are refused; references to
    /// images in a registry are still taken).
    pub images_dir: Option<PathBuf>,
    /// Largest archive taken, in bytes.
    pub max_image_bytes: u64,
    /// New versions wait for the operator's approval before they play.
    pub approval: bool,
    /// The runner's token (`None`: no runner may follow the feed).
    pub runner_token: Option<String>,
    /// A sandbox's CPU (requests = limits), in millicores, unless a tournament says.
    pub cpu_millis: u32,
    /// A sandbox's memory, in MiB, unless a tournament says.
    pub memory_mib: u32,
    /// Versions kept per account (the oldest inactive, unpinned ones go first).
    pub versions_per_account: usize,
    /// Where the server makes each hosted seat's Unix socket, its sandbox's only door
    /// (`--hosting-socket-dir`; podman runners on this machine mount them). `None`: no
    /// sockets; sandboxes reach the sandbox port.
    pub socket_dir: Option<PathBuf>,
    /// The sandbox port (`--hosting-sandbox-addr`): sandboxes on a cluster reach their
    /// seats there, with their seat tokens and nothing else.
    pub sandbox_addr: Option<std::net::SocketAddr>,
    /// Who may seat a hosted account at a table of their own (`CreateTable.bots`).
    pub people_tables: PeopleTables,
}

/// Who may seat hosted accounts at tables they create (`--hosting-people-tables`): each
/// such seat starts a sandbox on the operator's machine.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum PeopleTables {
    /// Nobody: hosted accounts play the operator's tournaments only.
    None,
    /// Tables made with the operator's token (admin or create token).
    #[default]
    Operator,
    /// Anyone who may create a table.
    Anyone,
}

impl std::fmt::Display for PeopleTables {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            PeopleTables::None => "none",
            PeopleTables::Operator => "operator",
            PeopleTables::Anyone => "anyone",
        })
    }
}

impl Default for HostingConfig {
    fn default() -> Self {
        HostingConfig {
            images_dir: None,
            max_image_bytes: 512 * 1024 * 1024,
            approval: false,
            runner_token: None,
            cpu_millis: 1000,
            memory_mib: 512,
            versions_per_account: 20,
            socket_dir: None,
            sandbox_addr: None,
            people_tables: PeopleTables::Operator,
        }
    }
}
