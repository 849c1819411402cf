//! Which of the tables a scheduler picked may be seated now: all of them for a tournament
//! that is not hosted; for a hosted one, each in the order picked while every seat of it
//! gets a place on the runners ([`super::places`]), stopping at the first that does not
//! fit (it waits, and the ones after it wait behind it: the queue drains in its order).
//! A table's id is made here, before it exists, so that its seats' places are held under
//! it from the start.

use super::SeatKey;
use super::places::{Places, Size};
use crate::CompetitionConfig;
use skat_engine::matches::Seat;
use skat_store::hosting::Pin;
use skat_table::TableId;
use skat_table::secret::random_u64;

/// The tables to seat now, with their ids, and how many wait for places.
#[derive(Debug, Default)]
pub(super) struct Admitted {
    /// Plan positions with the ids their tables will have.
    pub(super) tables: Vec<(usize, TableId)>,
    /// Picked tables that wait for places.
    pub(super) waiting: u32,
}

/// The sandbox size a hosted tournament's pins ask for (the largest), or `None` when it is
/// not hosted.
pub(super) fn size_of(pins: &[Pin]) -> Option<Size> {
    let millis = pins.iter().map(|p| u64::from(p.cpu_millis)).max()?;
    let mib = pins.iter().map(|p| u64::from(p.memory_mib)).max()?;
    Some(Size { millis, mib })
}

/// The picked tables that may be seated now (see the module header).
pub(super) fn admit(
    places: &Places,
    hosted: Option<Size>,
    seats: u8,
    picks: Vec<usize>,
    config: &CompetitionConfig,
) -> Admitted {
    let mut admitted = Admitted::default();
    let mut picks = picks.into_iter();
    for i in picks.by_ref() {
        let Ok(n) = random_u64() else {
            tracing::error!("no randomness for a table id; the table waits for the next pass");
            admitted.waiting += 1;
            break;
        };
        let id = TableId::new(config.node_id.as_deref(), n);
        if let Some(size) = hosted {
            let keys: Vec<SeatKey> =
                (0..seats).map(|s| SeatKey { table: id.clone(), seat: Seat::new(s) }).collect();
            if places.admit(&keys, size).is_none() {
                admitted.waiting += 1;
                break;
            }
        }
        admitted.tables.push((i, id));
    }
    admitted.waiting += picks.count() as u32;
    admitted
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hosted_tables_are_admitted_in_order_while_they_fit() {
        let places = Places::default();
        let config = CompetitionConfig::default();
        let free = admit(&places, None, 3, vec![4, 1, 7], &config);
        assert_eq!((free.tables.len(), free.waiting), (3, 0), "not hosted: every pick");
        let half = Size { millis: 500, mib: 128 };
        let none = admit(&places, Some(half), 3, vec![4, 1, 7], &config);
        assert_eq!((none.tables.len(), none.waiting), (0, 3), "no runner: every pick waits");
        places.runner_came("r", Size { millis: 2000, mib: 1024 });
        let some = admit(&places, Some(half), 3, vec![4, 1, 7], &config);
        assert_eq!(
            some.tables.iter().map(|(i, _)| *i).collect::<Vec<_>>(),
            vec![4],
            "four places: one table of three"
        );
        assert_eq!(some.waiting, 2);
    }
}
