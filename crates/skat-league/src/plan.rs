//! Who meets whom, in which seat, on which deals.
//!
//! | rule | why |
//! |---|---|
//! | every list is played in every seat rotation on the same deals (duplicate) | each entrant gets each hand: the luck of the cards cancels out |
//! | round robin: every group of `seats` entrants meets once | everybody meets everybody in every combination |
//! | Swiss: rounds of groups by standing, avoiding rematches, sit-outs rotating | many entrants, few tables: the best meet the best |
//! | the deals of list `k` of meeting `m` follow from the tournament's secret (`TournamentSpec::list_seed`, [`crate::deals`]) | a tournament's deals are fixed, and provably so, by its secret alone |

use std::collections::{HashMap, HashSet};

use crate::model::{AccountId, PlannedTable, TournamentSpec};

/// Most Swiss rounds.
pub const MAX_ROUNDS: u32 = 9;

/// The seat rotations of a table of `n` seats: in rotation `r`, seat `s` holds entry
/// `(s + r) % n`, so over the `n` rotations every entry sits in every seat once.
pub fn rotations(n: usize) -> Vec<Vec<usize>> {
    (0..n).map(|r| (0..n).map(|s| (s + r) % n).collect()).collect()
}

/// Every group of `k` out of `n`, in lexicographic order.
pub fn combinations(n: usize, k: usize) -> Vec<Vec<usize>> {
    let mut out = Vec::new();
    if k == 0 || k > n {
        return out;
    }
    let mut pick = (0..k).collect::<Vec<_>>();
    loop {
        out.push(pick.clone());
        let mut i = k;
        while i > 0 && pick[i - 1] == n - k + i - 1 {
            i -= 1;
        }
        if i == 0 {
            return out;
        }
        pick[i - 1] += 1;
        for j in i..k {
            pick[j] = pick[j - 1] + 1;
        }
    }
}

/// The tables of one meeting of `group`: `lists` lists, each in every seat rotation on
/// the same deals, numbered from `first_index`.
fn meeting(spec: &TournamentSpec, meeting: u64, group: &[&AccountId], first_index: u64) -> Vec<PlannedTable> {
    let lists = u64::from(spec.lists_per_meeting());
    let mut out = Vec::new();
    for list in 0..lists {
        let seed = spec.list_seed(meeting, list);
        for rotation in rotations(group.len()) {
            let seating = rotation.iter().map(|e| group[*e].clone()).collect();
            out.push(PlannedTable::pending(first_index + out.len() as u64, seating, seed));
        }
    }
    out
}

/// A round robin's tables: every group of `seats` entrants meets (see [`meeting`]).
pub fn round_robin(spec: &TournamentSpec) -> Vec<PlannedTable> {
    let mut out = Vec::new();
    for (m, group) in combinations(spec.entrants.len(), usize::from(spec.seats)).into_iter().enumerate() {
        let group: Vec<&AccountId> = group.iter().map(|i| &spec.entrants[*i]).collect();
        let tables = meeting(spec, m as u64, &group, out.len() as u64);
        out.extend(tables);
    }
    out
}

/// The first plan of a tournament: a round robin's every table, a Swiss tournament's
/// first round.
pub fn first_plan(spec: &TournamentSpec) -> Vec<PlannedTable> {
    match spec.format {
        crate::model::Format::Swiss => swiss_round(spec, &[]),
        _ => round_robin(spec),
    }
}

/// Tables per meeting: every list in every seat rotation.
pub fn meeting_size(spec: &TournamentSpec) -> usize {
    spec.lists_per_meeting() as usize * spec.seats_per_table()
}

/// Meetings per Swiss round: as many groups as the entrants fill.
pub fn groups_per_round(spec: &TournamentSpec) -> usize {
    (spec.entrants.len() / spec.seats_per_table()).max(1)
}

/// Swiss rounds planned so far.
pub fn rounds_planned(spec: &TournamentSpec, plan: &[PlannedTable]) -> u32 {
    (plan.len() / (meeting_size(spec) * groups_per_round(spec))) as u32
}

/// The most Swiss rounds `entrants` can play at `seats` before some group must meet
/// again: the different groups they make, divided by the groups of one round (at least
/// one round, at most [`MAX_ROUNDS`]).
pub fn max_swiss_rounds(entrants: usize, seats: u8) -> u32 {
    let groups = combinations_count(entrants, usize::from(seats.max(1)));
    let per_round = (entrants / usize::from(seats.max(1))).max(1);
    u32::try_from(groups / per_round as u128).unwrap_or(u32::MAX).clamp(1, MAX_ROUNDS)
}

/// C(n, k) without listing the groups (saturating).
fn combinations_count(n: usize, k: usize) -> u128 {
    if k > n {
        return 0;
    }
    (0..k).fold(1u128, |acc, i| acc.saturating_mul((n - i) as u128) / (i as u128 + 1))
}

/// The tables a tournament will have in all: a round robin's plan, or every Swiss round.
pub fn tables_in_all(spec: &TournamentSpec) -> usize {
    match spec.format {
        crate::model::Format::Swiss => {
            spec.rounds.max(1) as usize * groups_per_round(spec) * meeting_size(spec)
        }
        _ => {
            let groups = combinations_count(spec.entrants.len(), spec.seats_per_table());
            usize::try_from(groups).unwrap_or(usize::MAX).saturating_mul(meeting_size(spec))
        }
    }
}

/// Swiss rounds when none are asked for: enough for everybody to meet everybody once,
/// at most [`MAX_ROUNDS`]; a number asked for is capped at [`MAX_ROUNDS`].
pub fn swiss_rounds(entrants: usize, seats: u8, asked: u32) -> u32 {
    if asked > 0 {
        return asked.min(MAX_ROUNDS);
    }
    let others = entrants.saturating_sub(1) as u32;
    others.div_ceil(u32::from(seats.max(2)) - 1).clamp(1, MAX_ROUNDS)
}

/// The next Swiss round's tables after `plan`. Entrants are ranked by their mean
/// Seeger-Fabian so far (the entrants' order breaks ties, so round one follows it); when
/// they do not divide into groups, the lowest ranked of those who sat out least sit out;
/// the rest are grouped best with best, each group filled with the highest ranked who
/// has met nobody in it yet when there is one. Each group meets like a round-robin
/// meeting: `lists` lists, each in every seat rotation on the same deals.
pub fn swiss_round(spec: &TournamentSpec, plan: &[PlannedTable]) -> Vec<PlannedTable> {
    let seats = spec.seats_per_table();
    let size = meeting_size(spec);
    let mut score: HashMap<&AccountId, (i64, u32)> = HashMap::new();
    let mut met: HashSet<(&AccountId, &AccountId)> = HashSet::new();
    let mut played: HashMap<&AccountId, u32> = HashMap::new();
    for p in plan {
        for r in &p.result {
            let e = score.entry(&r.account_id).or_default();
            e.0 += r.seeger_fabian;
            e.1 += 1;
        }
        for a in &p.seating {
            for b in &p.seating {
                met.insert((a, b));
            }
        }
    }
    for meeting in plan.chunks(size) {
        if let Some(first) = meeting.first() {
            for a in &first.seating {
                *played.entry(a).or_default() += 1;
            }
        }
    }
    let rounds_so_far = rounds_planned(spec, plan);
    let mean = |a: &AccountId| score.get(a).map_or(0.0, |(sum, n)| *sum as f64 / f64::from((*n).max(1)));
    let mut ranked: Vec<(usize, &AccountId)> = spec.entrants.iter().enumerate().collect();
    ranked.sort_by(|(i, a), (j, b)| mean(b).total_cmp(&mean(a)).then(i.cmp(j)));
    let mut order: Vec<&AccountId> = ranked.into_iter().map(|(_, a)| a).collect();
    // Sit-outs: of those who sat out least so far, the lowest ranked.
    let byes_of = |a: &AccountId| rounds_so_far.saturating_sub(played.get(a).copied().unwrap_or(0));
    for _ in 0..order.len() % seats {
        let fewest = order.iter().map(|a| byes_of(a)).min().unwrap_or(0);
        if let Some(j) = order.iter().rposition(|a| byes_of(a) == fewest) {
            order.remove(j);
        }
    }
    let mut groups: Vec<Vec<&AccountId>> = Vec::new();
    while !order.is_empty() {
        let mut group = vec![order.remove(0)];
        while group.len() < seats && !order.is_empty() {
            let fresh = order.iter().position(|c| group.iter().all(|g| !met.contains(&(*g, *c))));
            group.push(order.remove(fresh.unwrap_or(0)));
        }
        groups.push(group);
    }
    let meetings_before = (plan.len() / size) as u64;
    let mut out = Vec::new();
    for (g, group) in groups.iter().enumerate() {
        let tables = meeting(spec, meetings_before + g as u64, group, (plan.len() + out.len()) as u64);
        out.extend(tables);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn swiss_rounds_are_bounded_by_the_groups_the_entrants_make() {
        // Three entrants at three seats make one group: a second round repeats it.
        assert_eq!(max_swiss_rounds(3, 3), 1);
        assert_eq!(max_swiss_rounds(4, 3), 4);
        assert_eq!(max_swiss_rounds(8, 3), MAX_ROUNDS);
        assert_eq!(combinations_count(8, 3), 56);
        assert_eq!(combinations_count(2, 3), 0);
    }
    use crate::model::{Format, SeatResult, TableStatus};

    fn ids(n: usize) -> Vec<AccountId> {
        (0..n as u64).map(AccountId::from_random).collect()
    }

    fn spec(entrants: Vec<AccountId>, lists: u32, format: Format, rounds: u32) -> TournamentSpec {
        TournamentSpec {
            entrants,
            seats: 3,
            deals: 6,
            lists,
            action_ms: 0,
            deal_ms: 0,
            seed: 10,
            parallel: 0,
            format,
            rounds,
            start_ms: 0,
            secret: Default::default(),
            commitment: String::new(),
            unrated: false,
        }
    }

    #[test]
    fn rotations_put_every_entry_in_every_seat() {
        assert_eq!(rotations(3), vec![vec![0, 1, 2], vec![1, 2, 0], vec![2, 0, 1]]);
        for n in [3, 4] {
            for seat in 0..n {
                let mut who: Vec<usize> = rotations(n).iter().map(|r| r[seat]).collect();
                who.sort();
                assert_eq!(who, (0..n).collect::<Vec<_>>());
            }
        }
    }

    #[test]
    fn every_group_meets_in_every_rotation() {
        let e = ids(4);
        let p = round_robin(&spec(e.clone(), 2, Format::RoundRobin, 0));
        assert_eq!(p.len(), 4 * 2 * 3, "4 triples x 2 lists x 3 rotations");
        assert!(p.iter().enumerate().all(|(i, t)| t.index == i as u64));
        // The rotations of a list share its deals and put each entrant in every seat.
        for chunk in p.chunks(3) {
            assert!(chunk.iter().all(|t| t.seed == chunk[0].seed));
            for seat in 0..3 {
                let mut who: Vec<&AccountId> = chunk.iter().map(|t| &t.seating[seat]).collect();
                who.sort();
                who.dedup();
                assert_eq!(who.len(), 3);
            }
        }
        assert_eq!(combinations(5, 3).len(), 10);
        assert!(combinations(2, 3).is_empty());
    }

    fn finish(plan: &mut [PlannedTable], score: impl Fn(usize) -> i64, entrants: &[AccountId]) {
        for p in plan.iter_mut() {
            p.status = TableStatus::Finished;
            p.result = p
                .seating
                .iter()
                .map(|a| SeatResult {
                    seeger_fabian: score(entrants.iter().position(|e| e == a).unwrap()),
                    ..SeatResult::empty(a.clone())
                })
                .collect();
        }
    }

    #[test]
    fn swiss_groups_by_standing_avoids_rematches_and_rotates_sit_outs() {
        let e = ids(7);
        let spec = spec(e.clone(), 1, Format::Swiss, 3);
        // Round one follows the entrants' order; the last sits out (7 = 2 x 3 + 1).
        let mut plan = swiss_round(&spec, &[]);
        assert_eq!(plan.len(), 2 * 3, "two meetings, three rotations each");
        assert_eq!(plan[0].seating, e[0..3]);
        assert_eq!(plan[3].seating, e[3..6]);
        assert_eq!(rounds_planned(&spec, &plan), 1);
        assert!(plan.iter().all(|p| !p.seats(&e[6])));
        // Rotations share their deals; meetings do not.
        assert_eq!(plan[0].seed, plan[2].seed);
        assert_ne!(plan[0].seed, plan[3].seed);
        // The higher the number, the better the score.
        finish(&mut plan, |i| i as i64 * 10, &e);
        let round2 = swiss_round(&spec, &plan);
        assert_eq!(round2.len(), 6);
        assert_eq!(round2[0].index, 6, "numbered after the plan so far");
        let seated: Vec<&AccountId> = round2.iter().step_by(3).flat_map(|p| p.seating.iter()).collect();
        // e6 sat out and is not ranked lowest among those who played: it plays now, and
        // the lowest ranked of those who played (e0) sits out.
        assert!(seated.contains(&&e[6]));
        assert!(!seated.contains(&&e[0]));
        // Best with best, but not with anybody they met: e5 (best who played) meets
        // e6 and the best who did not meet e5 yet.
        let g = &round2[0].seating;
        let met_before = plan.iter().any(|p| g.iter().filter(|a| p.seats(a)).count() >= 2);
        assert!(!met_before, "{g:?} holds a pair that met in round one");
        assert_eq!(g, &[e[5].clone(), e[2].clone(), e[6].clone()]);
        let mut all = plan.clone();
        all.extend(round2);
        assert_eq!(rounds_planned(&spec, &all), 2);
    }

    #[test]
    fn swiss_rounds_default_to_meeting_everybody() {
        assert_eq!(swiss_rounds(7, 3, 0), 3);
        assert_eq!(swiss_rounds(3, 3, 0), 1);
        assert_eq!(swiss_rounds(100, 3, 0), MAX_ROUNDS);
        assert_eq!(swiss_rounds(7, 3, 50), MAX_ROUNDS);
        assert_eq!(swiss_rounds(7, 3, 2), 2);
    }
}
