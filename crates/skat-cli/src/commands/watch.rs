//! `skat watch TABLE`: the demo's printer for any table, as a spectator (no token) or as
//! a seat (with its token: the same public lines; the server checks the token).

use std::process::ExitCode;

use skat_proto::pb;
use skat_sdk::SdkError;
use skat_sdk::client::with_token;

use super::CmdResult;

#[derive(Debug, clap::Args)]
pub struct Args {
    /// The table id.
    table: String,
    #[command(flatten)]
    server: super::conn::ServerArgs,
    /// Watch as this seat (its token) instead of as a spectator.
    #[arg(long)]
    token: Option<String>,
}

pub fn run(args: Args) -> CmdResult {
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build()?;
    runtime.block_on(async {
        let mut client = args.server.connect(args.token.as_ref().map(|_| "seat token")).await?;
        let get = pb::GetTableRequest { table_id: args.table.clone() };
        let get = match &args.token {
            Some(t) => with_token(get, t),
            None => tonic::Request::new(get),
        };
        let view =
            client.get_table(get).await.map_err(SdkError::from)?.into_inner().table.unwrap_or_default();
        outln!(
            "table {} ({}), {} deals",
            view.table_id,
            if view.name.is_empty() { "no name" } else { &view.name },
            view.deals
        );
        let request = pb::WatchTableRequest { table_id: args.table.clone(), after_seq: Some(0) };
        let request = match &args.token {
            Some(t) => with_token(request, t),
            None => tonic::Request::new(request),
        };
        let stream = client.watch_table(request).await.map_err(SdkError::from)?.into_inner();
        super::demo::print_table(stream, view.deals).await.map_err(SdkError::from)?;
        Ok::<_, Box<dyn std::error::Error>>(ExitCode::SUCCESS)
    })
}
