//! AnalyzeTable: a finished table's analysis, from the cache or queued for the analysis
//! workers ([`crate::analysis`]); the caller asks again until it is ready.
//!
//! | rule | why |
//! |---|---|
//! | public, like GetRecords, and under the same embargo | the analysis shows what the records show, no more |
//! | a table whose match is not over is refused (TABLE_IN_PLAY) | its deals' hands are still secret, and the analysis would name them |
//! | a full queue or no workers: RESOURCE_EXHAUSTED, ANALYSIS_BUSY | nothing waits without a bound |

use crate::rpc::refusal::Refused;
use skat_proto::pb;
use skat_proto::pb::ErrorReason as R;
use tonic::{Code, Request, Status};

use super::access::Access;
use super::refusal::Refusal;
use super::service::{SkatServer, record_table};
use crate::analysis::{Busy, Job, Standing};
use skat_table::TableHandle;

/// The analysis job of a finished table: its records, derived from its inputs off the
/// table's lock (a table keeps no records), with the players' names.
async fn finished_job(id: &str, handle: &TableHandle) -> Result<Job, Status> {
    let (names, past) = {
        let t = handle.settled().await;
        if !t.is_finished() {
            return Err(Refusal::new(
                Code::FailedPrecondition,
                R::TableInPlay,
                "the table is still in play: it is analysed once its match is over",
            )
            .into());
        }
        (t.names(), t.past())
    };
    let records = tokio::task::spawn_blocking(move || past.deal_records())
        .await
        .map_err(|_| Refusal::new(Code::Internal, R::Internal, "the table's records could not be read"))?;
    let name = |seat: skat_engine::Seat| names.get(usize::from(seat)).cloned().unwrap_or_default();
    let deals = records
        .into_iter()
        .map(|r| {
            let seats = r.seats.map(name);
            (r, seats)
        })
        .collect();
    Ok(Job { table_id: id.to_string(), deals })
}

/// AnalyzeTable.
pub(crate) async fn analyze(
    s: &SkatServer,
    request: Request<pb::AnalyzeTableRequest>,
) -> Result<pb::AnalyzeTableResponse, Status> {
    record_table(&request.get_ref().table_id);
    s.admit(request.metadata(), Access::Read).await?;
    let id = request.get_ref().table_id.as_str();
    let handle = s.readable(id, true).await?;
    let marked = handle.lock().config().marked_for_embargo();
    s.competitions.embargo.check_embargo(id, marked).await.refused()?;
    let worlds = s.analyst.config().worlds;
    let standing = match s.analyst.standing(id).await.refused()? {
        Some(standing) => standing,
        None => {
            let job = finished_job(id, &handle).await?;
            s.analyst.enqueue(job).map_err(|busy| match busy {
                Busy::Full(max) => Refusal::new(
                    Code::ResourceExhausted,
                    R::AnalysisBusy,
                    format!("{max} tables wait for analysis already: ask again later"),
                )
                .with("max", max),
                Busy::Off => Refusal::new(
                    Code::ResourceExhausted,
                    R::AnalysisBusy,
                    "this server analyses no tables (--analysis-workers 0)",
                )
                .with("max", 0),
            })?
        }
    };
    Ok(match standing {
        Standing::Queued(ahead) => pb::AnalyzeTableResponse {
            state: pb::AnalysisState::Queued.into(),
            ahead: u32::try_from(ahead).unwrap_or(u32::MAX),
            worlds,
            ..Default::default()
        },
        Standing::Running => pb::AnalyzeTableResponse {
            state: pb::AnalysisState::Running.into(),
            worlds,
            ..Default::default()
        },
        Standing::Ready(a) => pb::AnalyzeTableResponse {
            state: pb::AnalysisState::Ready.into(),
            ahead: 0,
            deals: a.deals.clone(),
            summary: a.summary.clone(),
            worlds: a.worlds,
            computed_ms: a.computed_ms,
            took_ms: a.took_ms,
        },
    })
}
