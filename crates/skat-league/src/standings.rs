//! How entrants stand: totals per entrant over the finished tables, the mean
//! Seeger-Fabian points per list with a 95% Student-t interval, and each meeting's
//! result (head to head).
//!
//! The interval is `mean ± t(0.975, n−1) · sd / √n` over lists: the arena prints the
//! same figure for its entries, the server for a tournament's entrants.

use crate::model::{AccountId, PlannedTable, TableStatus, TournamentSpec};
use crate::plan::{groups_per_round, meeting_size};

/// Two-sided 97.5% quantiles of Student's t for 1..=30 degrees of freedom.
const T975: [f64; 30] = [
    12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160, 2.145, 2.131,
    2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042,
];

/// The t quantile for a 95% two-sided interval with `df` degrees of freedom (NaN for 0;
/// the normal 1.96 beyond 30).
pub fn t975(df: usize) -> f64 {
    match df {
        0 => f64::NAN,
        d if d <= 30 => T975[d - 1],
        _ => 1.96,
    }
}

/// Mean and sample standard deviation (0 for fewer than two values).
pub fn mean_sd(xs: &[f64]) -> (f64, f64) {
    let n = xs.len() as f64;
    if xs.is_empty() {
        return (0.0, 0.0);
    }
    let mean = xs.iter().sum::<f64>() / n;
    if xs.len() < 2 {
        return (mean, 0.0);
    }
    let var = xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1.0);
    (mean, var.sqrt())
}

/// A sample's mean, standard deviation and 95% interval.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Summary {
    /// How many values.
    pub n: usize,
    /// Their mean (0 with none).
    pub mean: f64,
    /// Their sample standard deviation (0 with fewer than two).
    pub sd: f64,
    /// Half the width of the 95% interval; `None` with fewer than two values.
    pub half_width: Option<f64>,
}

impl Summary {
    /// The summary of `xs`.
    pub fn of(xs: &[f64]) -> Summary {
        let (mean, sd) = mean_sd(xs);
        let n = xs.len();
        let half_width = (n >= 2).then(|| t975(n - 1) * sd / (n as f64).sqrt());
        Summary { n, mean, sd, half_width }
    }

    /// The summary of whole numbers (points).
    pub fn of_points(xs: &[i64]) -> Summary {
        Summary::of(&xs.iter().map(|x| *x as f64).collect::<Vec<_>>())
    }

    /// The 95% interval `[low, high]`, with two values or more.
    pub fn interval(&self) -> Option<[f64; 2]> {
        self.half_width.map(|h| [self.mean - h, self.mean + h])
    }
}

/// One entrant's totals over a tournament's finished tables.
#[derive(Debug, Clone, PartialEq)]
pub struct EntrantStanding {
    /// The entrant.
    pub account_id: AccountId,
    /// Lists played (finished tables).
    pub lists: u32,
    /// Seeger-Fabian points in all.
    pub seeger_fabian: i64,
    /// Mean Seeger-Fabian points per list.
    pub mean: f64,
    /// Half the width of the mean's 95% interval (0 with fewer than two lists).
    pub ci95: f64,
    /// Games declared.
    pub declared: u32,
    /// Games won.
    pub won: u32,
    /// Deals forfeited.
    pub penalties: u32,
}

/// Every entrant's totals, in the spec's order of entrants (sort them for people).
pub fn entrant_standings(spec: &TournamentSpec, plan: &[PlannedTable]) -> Vec<EntrantStanding> {
    spec.entrants
        .iter()
        .map(|a| {
            let mut sf = Vec::new();
            let (mut declared, mut won, mut penalties) = (0, 0, 0);
            for r in finished(plan).flat_map(|p| p.result.iter()).filter(|r| &r.account_id == a) {
                sf.push(r.seeger_fabian);
                declared += r.declared;
                won += r.won;
                penalties += r.penalties;
            }
            let summary = Summary::of_points(&sf);
            EntrantStanding {
                account_id: a.clone(),
                lists: sf.len() as u32,
                seeger_fabian: sf.iter().sum(),
                mean: summary.mean,
                ci95: summary.half_width.unwrap_or(0.0),
                declared,
                won,
                penalties,
            }
        })
        .collect()
}

/// One meeting of a tournament: a group of entrants and what each scored against the
/// others so far.
#[derive(Debug, Clone, PartialEq)]
pub struct MeetingStanding {
    /// The group, in the seat order of its first table.
    pub entrants: Vec<AccountId>,
    /// Seeger-Fabian points of each over the meeting's finished tables.
    pub seeger_fabian: Vec<i64>,
    /// Tables finished.
    pub finished: u32,
    /// Tables in the meeting.
    pub tables: u32,
    /// Its Swiss round, from 1 (0 for other formats).
    pub round: u32,
}

/// The meetings of a tournament, in plan order.
pub fn meetings(spec: &TournamentSpec, plan: &[PlannedTable]) -> Vec<MeetingStanding> {
    let swiss = spec.format == crate::model::Format::Swiss;
    plan.chunks(meeting_size(spec))
        .enumerate()
        .map(|(i, tables)| {
            let entrants: Vec<AccountId> = tables.first().map(|p| p.seating.clone()).unwrap_or_default();
            let done: Vec<&PlannedTable> = finished(tables).collect();
            let sf = |a: &AccountId| -> i64 {
                done.iter()
                    .flat_map(|p| p.result.iter())
                    .filter(|r| &r.account_id == a)
                    .map(|r| r.seeger_fabian)
                    .sum()
            };
            MeetingStanding {
                seeger_fabian: entrants.iter().map(sf).collect(),
                entrants,
                finished: done.len() as u32,
                tables: tables.len() as u32,
                round: if swiss { (i / groups_per_round(spec)) as u32 + 1 } else { 0 },
            }
        })
        .collect()
}

fn finished(plan: &[PlannedTable]) -> impl Iterator<Item = &PlannedTable> {
    plan.iter().filter(|p| p.status == TableStatus::Finished)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Format, SeatResult};

    #[test]
    fn summary_matches_hand_computed_figures() {
        let s = Summary::of_points(&[10, 20]);
        assert_eq!(s.mean, 15.0);
        // sd = 7.071; t(1) = 12.706; half width = 12.706 * 7.071 / sqrt(2) = 63.53
        assert!((s.half_width.unwrap() - 63.53).abs() < 0.01, "{s:?}");
        assert_eq!(Summary::of(&[5.0]).interval(), None);
        assert_eq!(Summary::of(&[]).mean, 0.0);
        assert_eq!(t975(40), 1.96);
        assert!(t975(0).is_nan());
    }

    #[test]
    fn standings_count_only_finished_tables() {
        let e: Vec<AccountId> = (0..3).map(AccountId::from_random).collect();
        let spec = TournamentSpec {
            entrants: e.clone(),
            seats: 3,
            deals: 6,
            lists: 1,
            action_ms: 0,
            deal_ms: 0,
            seed: 1,
            parallel: 0,
            format: Format::RoundRobin,
            rounds: 0,
            start_ms: 0,
            secret: Default::default(),
            commitment: String::new(),
            unrated: false,
        };
        let mut plan = crate::plan::round_robin(&spec);
        assert_eq!(plan.len(), 3);
        for (k, p) in plan.iter_mut().enumerate().take(2) {
            p.status = TableStatus::Finished;
            p.result = p
                .seating
                .iter()
                .enumerate()
                .map(|(seat, a)| SeatResult {
                    seeger_fabian: (seat as i64 + 1) * 100 + k as i64,
                    declared: 1,
                    ..SeatResult::empty(a.clone())
                })
                .collect();
        }
        let s = entrant_standings(&spec, &plan);
        assert!(s.iter().all(|x| x.lists == 2 && x.declared == 2));
        let total: i64 = s.iter().map(|x| x.seeger_fabian).sum();
        assert_eq!(total, 2 * (100 + 200 + 300) + 3);
        let m = meetings(&spec, &plan);
        assert_eq!(m.len(), 1);
        assert_eq!((m[0].finished, m[0].tables, m[0].round), (2, 3, 0));
        assert_eq!(m[0].seeger_fabian.iter().sum::<i64>(), total);
    }
}
