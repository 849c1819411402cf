//! A table rebuilt from its inputs: the `Created` input, then every later input through
//! the same methods that made it live, at the times the journal kept, with the restarts
//! between them (`Step::Resumed`). The engine is deterministic and the table reads no
//! clock, so the rebuilt table has the same events, seq for seq.
//!
//! | rule | why |
//! |---|---|
//! | the first input must be `Created` with number 0 | a journal that starts elsewhere is not a table's |
//! | inputs must be numbered 1, 2, ... and not older than the creation; the replay stops at the first that is not, or that the table refuses | what the journal holds past a gap or a refusal was never answered OK |

use std::time::{Duration, Instant, UNIX_EPOCH};

use super::{Input, JournalEntry, Table, TableError, TableId, kept, log};

/// [`Table::replay`] of steps (inputs and restarts) into `log`.
pub(crate) fn rebuild(
    id: TableId,
    steps: impl IntoIterator<Item = kept::Step>,
    now: Instant,
    log: log::Log,
) -> Result<(Table, usize), TableError> {
    let mut steps = steps.into_iter();
    let Some(kept::Step::Input(JournalEntry { n: 0, at_ms: created_ms, input: Input::Created { config } })) =
        steps.next()
    else {
        return Err(TableError::Replay(0));
    };
    let at = |ms: u64| now + Duration::from_millis(ms.saturating_sub(created_ms));
    let mut table = Table::with_log(id, config, now, UNIX_EPOCH + Duration::from_millis(created_ms), log)?;
    let mut applied = 1;
    for step in steps {
        let entry = match step {
            kept::Step::Input(entry) => entry,
            kept::Step::Resumed(wall_ms) => {
                table.resume(at(wall_ms), kept::KeptInputs::wall(wall_ms));
                continue;
            }
        };
        if entry.n != applied as u64 || entry.at_ms < created_ms || !apply_input(&mut table, entry, at) {
            break;
        }
        applied += 1;
    }
    table.pending.clear();
    table.journaled = applied as u64;
    Ok((table, applied))
}

/// One input of a replay, at its time: whether it applied.
fn apply_input(table: &mut Table, entry: JournalEntry, at: impl Fn(u64) -> Instant) -> bool {
    let when = at(entry.at_ms);
    match entry.input {
        Input::Created { .. } => false,
        Input::Joined { seat, name, token, key } => {
            table.seat_player(&name, Some(seat), token, key, when).is_ok()
        }
        Input::Left { seat } => table.leave(seat, when).is_ok(),
        Input::Acted { seat, action, comment } => {
            table.act_commented(seat, action, comment, None, when).is_ok()
        }
        Input::Rekeyed { seat, token } => table.rekey(seat, token, when).is_ok(),
        Input::TimedOut => match table.timing.turn() {
            Some(t) => table.on_deadline(t.id, when).is_some(),
            None => false,
        },
    }
}
