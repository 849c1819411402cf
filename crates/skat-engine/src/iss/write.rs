//! Writing a finished deal as an ISS record (one line), the form the International Skat
//! Server keeps its games in.

use std::fmt::Write as _;

use super::IssResult;
use crate::action::{Action, ForfeitReason};
use crate::record::{DealRecord, Move};

/// Names and ids for writing a record.
#[derive(Debug, Clone, Default)]
pub struct RecordMeta {
    /// `PC`, the server name.
    pub server: String,
    /// `ID`.
    pub id: String,
    /// `DT`, as `YYYY-MM-DD/HH:MM:SS/UTC` (the engine reads no clock; the caller gives it).
    pub date: String,
    /// `P0`..`P2`: forehand, middlehand, rearhand.
    pub players: [String; 3],
    /// `SE`, a series or match id (the seed, for our matches).
    pub series: String,
}

/// Writes a finished deal as an ISS record (one line).
pub fn write(record: &DealRecord, meta: &RecordMeta) -> String {
    let mut mv = format!("w {}", record.dealt.to_iss());
    let mut moves = record.moves.iter().peekable();
    while let Some(m) = moves.next() {
        let who = m.position.index();
        let word = match m.action {
            Action::Bid { value } => value.to_string(),
            Action::Hold => "y".into(),
            Action::Pass => "p".into(),
            Action::PickUpSkat => format!("s w {}", record.dealt.skat),
            // Implied by the declaration's H.
            Action::PlayHand => continue,
            Action::Discard { cards } => {
                // Written with the declaration that follows, the classic `G.D1.D2` form.
                if let Some(Move { action: Action::Declare { contract }, .. }) = moves.peek().copied() {
                    moves.next();
                    format!("{}.{}", contract.iss_code(false), cards)
                } else {
                    // A discard with no declaration after it (the declarer ran out of time
                    // or left before declaring) has no form in the ISS grammar: a lone
                    // `D1.D2` would read as a declaration. It changes nothing in the
                    // result (the forfeit is charged at the bid either way), so the ISS
                    // record leaves it out; the JSON record keeps every move.
                    continue;
                }
            }
            Action::Declare { contract } => {
                let picked_up = record.moves.iter().any(|m| m.action == Action::PickUpSkat);
                contract.iss_code(!picked_up)
            }
            Action::Play { card } => card.to_string(),
            Action::Claim => "SC".into(),
            Action::Resign => "RE".into(),
            Action::Forfeit { reason } => {
                let kind = match reason {
                    ForfeitReason::Timeout => "TI",
                    ForfeitReason::Left => "LE",
                };
                let _ = write!(mv, " w {kind}.{who}");
                continue;
            }
        };
        let _ = write!(mv, " {who} {word}");
    }
    let result = IssResult::from_outcome(&record.outcome).to_iss();
    let [p0, p1, p2] = &meta.players;
    format!(
        "(;GM[Skat]PC[{}]CO[]SE[{}]ID[{}]DT[{}]P0[{}]P1[{}]P2[{}]R0[]R1[]R2[]MV[{}]R[{}] ;)",
        clean(&meta.server),
        clean(&meta.series),
        clean(&meta.id),
        clean(&meta.date),
        clean(p0),
        clean(p1),
        clean(p2),
        mv,
        result
    )
}

/// Property values cannot hold brackets.
fn clean(s: &str) -> String {
    s.chars().filter(|c| !matches!(c, '[' | ']')).collect()
}
