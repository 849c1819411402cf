//! `skat bot submit | versions | activate | logs` (the author, with the bot token) and
//! `skat admin approve-version | sandboxes` (the operator): hosted bots
//! (docs/hosted-bots.md).

use std::path::PathBuf;
use std::process::ExitCode;

use skat_proto::pb;
use skat_proto::pb::hosting_service_client::HostingServiceClient;
use skat_sdk::client::with_token;
use tokio::io::AsyncReadExt as _;
use tonic::transport::Channel;

use super::CmdResult;
use super::conn::{Conn, ServerArgs, runtime};
use super::text::shorten_digests;

/// Bytes per archive message.
const CHUNK: usize = 512 * 1024;

/// The author's connection: the server and the bot token.
#[derive(Debug, clap::Args)]
pub struct Author {
    #[command(flatten)]
    server: ServerArgs,
    /// The account's bot token.
    #[arg(long, env = "SKAT_BOT_TOKEN", hide_env_values = true, required_unless_present = "bot_token_file")]
    bot_token: Option<String>,
    /// A file holding the bot token (its first line).
    #[arg(long)]
    bot_token_file: Option<PathBuf>,
}

impl Author {
    fn token(&self) -> Result<String, Box<dyn std::error::Error>> {
        if let Some(t) = &self.bot_token {
            return Ok(t.trim().to_string());
        }
        let path = self.bot_token_file.as_ref().ok_or("--bot-token or --bot-token-file is needed")?;
        let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
        Ok(text.lines().next().unwrap_or("").trim().to_string())
    }

    async fn client(&self) -> Result<(HostingServiceClient<Channel>, String), Box<dyn std::error::Error>> {
        let address = self.server.address();
        address.check_secret("bot token")?;
        let client = HostingServiceClient::new(address.channel().await?).max_decoding_message_size(4 << 20);
        Ok((client, self.token()?))
    }
}

/// What an author does with hosted versions.
#[derive(Debug, clap::Subcommand)]
pub enum BotAction {
    /// Submit a version of the bot as a container image: an archive (`podman save
    /// --format oci-archive`, `docker save`) uploaded to the server, or a reference the
    /// runner pulls, pinned by digest. A version is its image and its command: the same
    /// image with another command is another version. Prints the version: its image
    /// digest, state and name.
    Submit {
        #[command(flatten)]
        author: Author,
        /// The image archive to upload.
        #[arg(long, conflicts_with = "image", required_unless_present = "image")]
        archive: Option<PathBuf>,
        /// An image reference pinned by digest (`registry.example.org/me/bot@sha256:...`).
        #[arg(long)]
        image: Option<String>,
        /// The command the sandbox runs: words split at spaces, or a JSON array of words
        /// (`["python3", "-c", "print(1)"]`); default: the image's own entry point.
        #[arg(long, default_value = "")]
        command: String,
        /// The SDK the bot uses, for people (`rust`, `python`, `typescript`, `go`...).
        #[arg(long, default_value = "")]
        sdk: String,
        /// Make it the version that plays.
        #[arg(long)]
        activate: bool,
    },
    /// The bot's versions, newest first: image digest, state, whether active, name,
    /// command, why one failed.
    Versions(Author),
    /// Make a version the one that plays (`--none`: none; the bot plays through its own
    /// lobby again).
    Activate {
        #[command(flatten)]
        author: Author,
        /// The version's image digest (or its first 12 or more hex digits), when the image
        /// has one version.
        #[arg(long, required_unless_present_any = ["none", "version_id"])]
        digest: Option<String>,
        /// The version's name (`skat bot versions` shows it): its image and its command.
        #[arg(long, conflicts_with = "digest")]
        version_id: Option<String>,
        /// No version plays.
        #[arg(long, conflicts_with_all = ["digest", "version_id"])]
        none: bool,
    },
    /// The bot's sandboxes (newest first: table, outcome, CPU, memory), or one
    /// sandbox's output (`--sandbox ID`).
    Logs {
        #[command(flatten)]
        author: Author,
        /// One sandbox: print its output.
        #[arg(long)]
        sandbox: Option<String>,
        /// Only this table's sandboxes.
        #[arg(long, default_value = "")]
        table: String,
    },
}

/// A time for people (UTC, to the second).
fn when(unix_ms: i64) -> String {
    let at = std::time::UNIX_EPOCH + std::time::Duration::from_millis(u64::try_from(unix_ms).unwrap_or(0));
    humantime::format_rfc3339_seconds(at).to_string().replace('T', " ").replace('Z', " UTC")
}

/// One line for a version.
fn version_line(v: &pb::BotVersion) -> String {
    let state = match pb::VersionState::try_from(v.state) {
        Ok(pb::VersionState::Pending) => "pending approval",
        Ok(pb::VersionState::Approved) => "approved",
        Ok(pb::VersionState::Failed) => "failed",
        _ => "unknown",
    };
    let active = if v.active { ", active" } else { "" };
    let source = if v.image_ref.is_empty() {
        format!("archive of {} bytes", v.size_bytes)
    } else {
        v.image_ref.clone()
    };
    let command = if v.command.is_empty() { "its entry point".to_string() } else { v.command.join(" ") };
    let failure = if v.failure.is_empty() { String::new() } else { format!("\n    why: {}", v.failure) };
    let sdk = if v.sdk.is_empty() { String::new() } else { format!(", sdk {}", v.sdk) };
    format!(
        "{} {state}{active}: version {}, {source}, runs {command}{sdk}, submitted {}{failure}",
        v.digest,
        v.version_id,
        when(v.submitted_unix_ms)
    )
}

/// One line for a sandbox.
pub(crate) fn sandbox_line(s: &pb::Sandbox) -> String {
    let outcome = match pb::SandboxOutcome::try_from(s.outcome) {
        Ok(pb::SandboxOutcome::Running) => "running",
        Ok(pb::SandboxOutcome::Exited) => "exited",
        Ok(pb::SandboxOutcome::Stopped) => "stopped",
        Ok(pb::SandboxOutcome::OutOfMemory) => "out of memory",
        Ok(pb::SandboxOutcome::TimedOut) => "timed out",
        Ok(pb::SandboxOutcome::FailedToStart) => "failed to start",
        _ => "unknown",
    };
    let memory = if s.memory_peak_bytes > 0 {
        format!(", peak {} MiB", s.memory_peak_bytes >> 20)
    } else {
        String::new()
    };
    let version =
        if s.version_id.is_empty() { s.digest.clone() } else { format!("version {}", s.version_id) };
    let runner = if s.runner.is_empty() { String::new() } else { format!(" on {}", s.runner) };
    shorten_digests(&format!(
        "{} {} at {} seat {} ({version}{runner}): {outcome}, {:.1} CPU s{memory}, {} bytes of output; {}",
        s.id,
        s.bot_name,
        s.table_id,
        s.seat,
        s.cpu_ms as f64 / 1000.0,
        s.log_bytes,
        s.detail
    ))
}

async fn submit(
    author: &Author,
    archive: Option<PathBuf>,
    image: Option<String>,
    header: pb::BotVersionHeader,
) -> Result<pb::BotVersion, Box<dyn std::error::Error>> {
    use pb::submit_bot_version_request::Part;
    let (mut client, token) = author.client().await?;
    let (tx, rx) = tokio::sync::mpsc::channel(4);
    let header = pb::BotVersionHeader { image_ref: image.unwrap_or_default(), ..header };
    tx.send(pb::SubmitBotVersionRequest { part: Some(Part::Header(header)) }).await?;
    let sender = tokio::spawn(async move {
        let Some(path) = archive else { return Ok::<(), std::io::Error>(()) };
        let mut file = tokio::fs::File::open(&path).await?;
        let mut buf = vec![0u8; CHUNK];
        loop {
            let n = file.read(&mut buf).await?;
            if n == 0
                || tx
                    .send(pb::SubmitBotVersionRequest { part: Some(Part::Chunk(buf[..n].to_vec())) })
                    .await
                    .is_err()
            {
                return Ok(());
            }
        }
    });
    let answer =
        client.submit_bot_version(with_token(tokio_stream::wrappers::ReceiverStream::new(rx), &token)).await;
    sender.await??;
    Ok(answer?.into_inner().version.ok_or("the server answered without the version")?)
}

/// Runs an author's action.
pub fn run(action: BotAction) -> CmdResult {
    let rt = runtime()?;
    rt.block_on(async move {
        match action {
            BotAction::Submit { author, archive, image, command, sdk, activate } => {
                if let Some(a) = &archive
                    && !a.is_file()
                {
                    return Err(format!("{}: no such file", a.display()).into());
                }
                let command: Vec<String> = if command.trim_start().starts_with('[') {
                    serde_json::from_str(&command).map_err(|e| format!("--command as JSON: {e}"))?
                } else {
                    command.split_whitespace().map(String::from).collect()
                };
                let header = pb::BotVersionHeader { command, sdk, activate, ..Default::default() };
                let v = submit(&author, archive, image, header).await?;
                outln!("{}", version_line(&v));
                if !v.active {
                    outln!("activate it with: skat bot activate --version-id {}", v.version_id);
                }
            }
            BotAction::Versions(author) => {
                let (mut c, token) = author.client().await?;
                let all = c
                    .list_bot_versions(with_token(pb::ListBotVersionsRequest {}, &token))
                    .await?
                    .into_inner();
                if all.versions.is_empty() {
                    outln!("no versions yet: skat bot submit --archive bot.tar (docs/hosted-bots.md)");
                }
                for v in &all.versions {
                    outln!("{}", version_line(v));
                }
            }
            BotAction::Activate { author, digest, version_id, none } => {
                let (mut c, token) = author.client().await?;
                let (digest, version_id) = if none {
                    Default::default()
                } else {
                    (digest.unwrap_or_default(), version_id.unwrap_or_default())
                };
                let r = c
                    .activate_bot_version(with_token(
                        pb::ActivateBotVersionRequest { digest, version_id },
                        &token,
                    ))
                    .await?;
                match r.into_inner().version {
                    Some(v) => outln!("{}", version_line(&v)),
                    None => outln!("no version is active: the bot plays through its own lobby"),
                }
            }
            BotAction::Logs { author, sandbox, table } => {
                let (mut c, token) = author.client().await?;
                print_logs(&mut c, &token, sandbox, table).await?;
            }
        }
        Ok(ExitCode::SUCCESS)
    })
}

/// A sandbox's output, or the list of sandboxes.
async fn print_logs(
    c: &mut HostingServiceClient<Channel>,
    token: &str,
    sandbox: Option<String>,
    table: String,
) -> Result<(), Box<dyn std::error::Error>> {
    if let Some(id) = sandbox {
        let r = c
            .get_sandbox_log(with_token(pb::GetSandboxLogRequest { sandbox_id: id }, token))
            .await?
            .into_inner();
        if let Some(s) = &r.sandbox {
            eprintln!("{}", sandbox_line(s));
            if s.log_truncated {
                eprintln!("(older output was dropped: the last 1 MiB is kept)");
            }
        }
        use std::io::Write as _;
        std::io::stdout().write_all(&r.log)?;
        return Ok(());
    }
    let request = pb::ListSandboxesRequest { table_id: table, ..Default::default() };
    let all = c.list_sandboxes(with_token(request, token)).await?.into_inner();
    if all.sandboxes.is_empty() {
        outln!("no sandboxes yet");
    }
    for s in &all.sandboxes {
        outln!("{}", sandbox_line(s));
    }
    Ok(())
}

/// A version as the operator names it: by its name, or by its image's digest.
#[derive(Debug, Clone, Default)]
pub struct Pick {
    /// The image digest or a prefix of it.
    pub digest: String,
    /// The version's name.
    pub version_id: String,
}

/// `skat admin approve-version`.
pub async fn approve(conn: &Conn, bot: String, pick: Pick, approve: bool) -> CmdResult {
    {
        let address = conn.server.address();
        address.check_secret("admin token")?;
        let mut c = HostingServiceClient::new(address.channel().await?);
        let v = c
            .approve_bot_version(conn.request(pb::ApproveBotVersionRequest {
                bot_name: bot,
                digest: pick.digest,
                approve,
                version_id: pick.version_id,
            }))
            .await?
            .into_inner()
            .version
            .ok_or("the server answered without the version")?;
        outln!("{}", version_line(&v));
        Ok(ExitCode::SUCCESS)
    }
}

/// The runners following the server: what each holds of what it can (`skat admin online`).
pub async fn runners(conn: &Conn) -> CmdResult {
    let address = conn.server.address();
    address.check_secret("admin token")?;
    let mut c = HostingServiceClient::new(address.channel().await?);
    let r = match c.list_runners(conn.request(pb::ListRunnersRequest {})).await {
        Ok(r) => r.into_inner(),
        // A server from before runners were listed.
        Err(s) if s.code() == tonic::Code::Unimplemented => return Ok(ExitCode::SUCCESS),
        Err(s) => return Err(s.into()),
    };
    outln!("runners: {} hosted tables waiting for places", r.tables_waiting);
    if r.runners.is_empty() {
        outln!("  none follows this server");
    }
    let of = |used: u64, cap: u64, unit: &str| {
        if cap == 0 { format!("{used} {unit} (no limit stated)") } else { format!("{used} of {cap} {unit}") }
    };
    for x in &r.runners {
        outln!(
            "  {}{}: {} seats, {}, {}",
            x.name,
            if x.connected { "" } else { " (away)" },
            x.seats,
            of(x.used_cpu_millis, x.capacity_cpu_millis, "millicores"),
            of(x.used_memory_mib, x.capacity_memory_mib, "MiB")
        );
    }
    Ok(ExitCode::SUCCESS)
}

/// `skat admin sandboxes`: every account's (running ones only with `running`).
pub async fn sandboxes(conn: &Conn, running: bool) -> CmdResult {
    {
        let address = conn.server.address();
        address.check_secret("admin token")?;
        let mut c = HostingServiceClient::new(address.channel().await?);
        let request = pb::ListSandboxesRequest { running_only: running, limit: 500, ..Default::default() };
        let all = c.list_sandboxes(conn.request(request)).await?.into_inner();
        if all.sandboxes.is_empty() {
            outln!("{}", if running { "no sandboxes running" } else { "no sandboxes" });
        }
        for s in &all.sandboxes {
            outln!("{}", sandbox_line(s));
        }
        Ok(ExitCode::SUCCESS)
    }
}
