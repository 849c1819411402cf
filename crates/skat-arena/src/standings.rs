//! Standings from deal records: Seeger-Fabian points per list with a 95% confidence
//! interval, games declared and won, average game value, plain points; and for every two
//! entries the paired difference, the right test of one against the other: both played
//! the same deals, and a list's rotations count as one observation, not several (they
//! share the deals, which the per-entry intervals, over tables, do not allow for).

use serde::Serialize;
use skat_engine::Outcome;

use skat_league::standings::Summary;

use crate::classes::{ClassFigures, Family};
use crate::{ArenaConfig, TableOutcome};

/// One entry's results.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct BotStanding {
    /// The entry's label (`heuristic`, `random#2`).
    pub bot: String,
    /// Tables played (lists × rotations).
    pub tables: usize,
    /// Mean Seeger-Fabian points per list (one list = one table of `deals` deals).
    pub seeger_fabian_mean: f64,
    /// Standard deviation over tables.
    pub seeger_fabian_sd: f64,
    /// 95% confidence interval of the mean (Student's t over tables); `None` with one table.
    pub seeger_fabian_ci95: Option<[f64; 2]>,
    /// Seeger-Fabian points per table, in plan order.
    pub seeger_fabian_per_table: Vec<i64>,
    /// Total plain (scoresheet) points.
    pub plain_total: i64,
    /// Mean plain points per list.
    pub plain_mean: f64,
    /// Games declared.
    pub declared: u32,
    /// Games won.
    pub won: u32,
    /// Games lost.
    pub lost: u32,
    /// Mean value of the games it declared.
    pub average_game_value: f64,
    /// Penalties (forfeits before a declaration).
    pub penalties: u32,
    /// Declared, won and Seeger-Fabian points per game by class of game (suit, grand,
    /// null; hand or not), as declarer and as defender ([`crate::classes`]).
    pub classes: Vec<ClassFigures>,
}

/// How much better one entry did than another on the same deals.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct PairedDifference {
    /// The first entry's label.
    pub a: String,
    /// The second entry's label.
    pub b: String,
    /// Lists compared (each one observation: the mean over its rotations of a's
    /// Seeger-Fabian points less b's at the same table).
    pub lists: usize,
    /// The mean difference per list (per table, as `seeger_fabian_mean`).
    pub mean: f64,
    /// Its 95% interval (Student's t over lists); `None` with one list.
    pub ci95: Option<[f64; 2]>,
}

/// The whole competition's results.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Standings {
    /// The competition seed.
    pub seed: u64,
    /// Deals per list.
    pub deals_per_list: u32,
    /// Lists.
    pub lists: u32,
    /// Rotations per list.
    pub rotations: u32,
    /// Tables played.
    pub tables: usize,
    /// Deals played in all.
    pub deals: usize,
    /// Per entry, in the order given.
    pub bots: Vec<BotStanding>,
    /// For every two entries (in the order given), the paired difference per list.
    pub paired: Vec<PairedDifference>,
    /// The statistical method behind the intervals.
    pub method: &'static str,
}

/// Computes the standings from what the tables recorded.
pub fn compute(config: &ArenaConfig, outcomes: &[TableOutcome]) -> Standings {
    let n = config.entries.len();
    let seats = n as u8;
    let mut sf_tables: Vec<Vec<i64>> = vec![Vec::new(); n];
    let mut plain = vec![0i64; n];
    let mut declared = vec![0u32; n];
    let mut won = vec![0u32; n];
    let mut lost = vec![0u32; n];
    let mut value_sum = vec![0u64; n];
    let mut penalties = vec![0u32; n];
    for t in outcomes {
        let mut table_sf = vec![0i64; n];
        for r in &t.results {
            let sf = r.seeger_fabian_by_seat(seats);
            let pl = r.plain_by_seat(seats);
            for seat in 0..n {
                let e = t.plan.seating[seat];
                table_sf[e] += i64::from(sf[seat]);
                plain[e] += i64::from(pl[seat]);
            }
            match r.outcome {
                Outcome::Game(g) => {
                    let e = t.plan.seating[usize::from(r.seats[g.declarer.index()])];
                    declared[e] += 1;
                    value_sum[e] += u64::from(g.value);
                    if g.won {
                        won[e] += 1;
                    } else {
                        lost[e] += 1;
                    }
                }
                Outcome::Penalty(p) => {
                    penalties[t.plan.seating[usize::from(r.seats[p.offender.index()])]] += 1
                }
                Outcome::PassedIn => {}
            }
        }
        for e in 0..n {
            sf_tables[e].push(table_sf[e]);
        }
    }
    let mut classes = crate::classes::compute(n, outcomes).into_iter();
    let bots = (0..n)
        .map(|e| {
            let xs = Summary::of_points(&sf_tables[e]);
            let (mean, sd, ci) = (xs.mean, xs.sd, xs.interval());
            BotStanding {
                bot: config.label(e),
                tables: xs.n,
                seeger_fabian_mean: mean,
                seeger_fabian_sd: sd,
                seeger_fabian_ci95: ci,
                seeger_fabian_per_table: sf_tables[e].clone(),
                plain_total: plain[e],
                plain_mean: if xs.n == 0 { 0.0 } else { plain[e] as f64 / xs.n as f64 },
                declared: declared[e],
                won: won[e],
                lost: lost[e],
                // No game declared: no value summed, 0.
                average_game_value: value_sum[e] as f64 / f64::from(declared[e].max(1)),
                penalties: penalties[e],
                classes: classes.next().unwrap_or_default(),
            }
        })
        .collect();
    let paired = paired(config, outcomes, &sf_tables);
    Standings {
        seed: config.seed,
        deals_per_list: config.deals,
        lists: config.lists,
        rotations: if config.duplicate { n as u32 } else { 1 },
        tables: outcomes.len(),
        deals: outcomes.iter().map(|t| t.results.len()).sum(),
        bots,
        paired,
        method: "Seeger-Fabian points per table (one list under one rotation); mean over tables; 95% interval = mean ± t(0.975, tables−1) · sd / √tables; paired: per list the mean over its tables of a − b, interval over lists",
    }
}

/// Every two entries' difference, one observation per list (its rotations share the deals,
/// so they are averaged, not counted as independent).
fn paired(config: &ArenaConfig, outcomes: &[TableOutcome], sf_tables: &[Vec<i64>]) -> Vec<PairedDifference> {
    let n = config.entries.len();
    let mut out = Vec::new();
    for a in 0..n {
        for b in a + 1..n {
            let summary = Summary::of(&list_differences(outcomes, sf_tables, a, b));
            out.push(PairedDifference {
                a: config.label(a),
                b: config.label(b),
                lists: summary.n,
                mean: summary.mean,
                ci95: summary.interval(),
            });
        }
    }
    out
}

/// Per list (in list order), the mean over its tables of entry `a`'s Seeger-Fabian points
/// less entry `b`'s: the paired observations a sequential test reads.
pub fn paired_per_list(config: &ArenaConfig, outcomes: &[TableOutcome], a: usize, b: usize) -> Vec<f64> {
    let seats = config.entries.len() as u8;
    let mut sf_tables: Vec<Vec<i64>> = vec![Vec::new(); config.entries.len()];
    for t in outcomes {
        let mut table_sf = vec![0i64; config.entries.len()];
        for r in &t.results {
            let sf = r.seeger_fabian_by_seat(seats);
            for (seat, points) in sf.iter().enumerate().take(config.entries.len()) {
                table_sf[t.plan.seating[seat]] += i64::from(*points);
            }
        }
        for (e, points) in table_sf.into_iter().enumerate() {
            sf_tables[e].push(points);
        }
    }
    list_differences(outcomes, &sf_tables, a, b)
}

fn list_differences(outcomes: &[TableOutcome], sf_tables: &[Vec<i64>], a: usize, b: usize) -> Vec<f64> {
    let mut per_list: std::collections::BTreeMap<u32, (f64, usize)> = Default::default();
    for (i, t) in outcomes.iter().enumerate() {
        let d = (sf_tables[a][i] - sf_tables[b][i]) as f64;
        let e = per_list.entry(t.plan.list).or_default();
        e.0 += d;
        e.1 += 1;
    }
    per_list.values().map(|(sum, k)| sum / *k as f64).collect()
}

/// Wilson's score interval at 95% for `won` of `n`, in percent.
pub fn wilson95(won: u32, n: u32) -> [f64; 2] {
    if n == 0 {
        return [0.0, 100.0];
    }
    let (n, p, z) = (f64::from(n), f64::from(won) / f64::from(n), 1.959_964);
    let centre = (p + z * z / (2.0 * n)) / (1.0 + z * z / n);
    let half = z / (1.0 + z * z / n) * (p * (1.0 - p) / n + z * z / (4.0 * n * n)).sqrt();
    [100.0 * (centre - half).max(0.0), 100.0 * (centre + half).min(1.0)]
}

impl Standings {
    /// A fixed-width table for people.
    pub fn to_text(&self) -> String {
        let mut s = format!(
            "{} tables ({} lists x {} rotations), {} deals per list, seed {}\n\n",
            self.tables, self.lists, self.rotations, self.deals_per_list, self.seed
        );
        s.push_str(&format!(
            "{:<14} {:>10} {:>22} {:>9} {:>9} {:>11} {:>10}\n",
            "bot", "SF/list", "95% interval", "declared", "won %", "avg value", "plain/list"
        ));
        for b in &self.bots {
            let ci = b.seeger_fabian_ci95.map_or("-".to_string(), |[lo, hi]| format!("[{lo:.0}, {hi:.0}]"));
            let rate = if b.declared == 0 { 0.0 } else { 100.0 * f64::from(b.won) / f64::from(b.declared) };
            s.push_str(&format!(
                "{:<14} {:>10.1} {:>22} {:>9} {:>8.1}% {:>11.1} {:>10.1}\n",
                b.bot, b.seeger_fabian_mean, ci, b.declared, rate, b.average_game_value, b.plain_mean
            ));
        }
        s.push_str(&self.classes_text());
        if !self.paired.is_empty() {
            s.push_str(&format!(
                "\n{:<30} {:>10} {:>22}\n",
                "paired, on the same deals", "diff/list", "95% interval"
            ));
            for p in &self.paired {
                let ci = p.ci95.map_or("-".to_string(), |[lo, hi]| format!("[{lo:+.0}, {hi:+.0}]"));
                s.push_str(&format!("{:<30} {:>+10.1} {:>22}\n", format!("{} - {}", p.a, p.b), p.mean, ci));
            }
        }
        s
    }

    /// Per entry and class of game: declared, won, SF per game as declarer and defender.
    fn classes_text(&self) -> String {
        let mut s = format!(
            "\n{:<14} {:<11} {:>9} {:>7} {:>12} {:>9} {:>12}\n",
            "by game", "class", "declared", "won %", "SF/declared", "defended", "SF/defended"
        );
        for b in &self.bots {
            for c in &b.classes {
                s.push_str(&format!(
                    "{:<14} {:<11} {:>9} {:>6.1}% {:>12.1} {:>9} {:>12.1}\n",
                    b.bot,
                    c.class,
                    c.declared,
                    c.won_percent(),
                    c.per_declared(),
                    c.defended,
                    c.per_defended()
                ));
            }
        }
        s
    }

    /// A census ([`crate::ArenaConfig::census`]): per entry, the classes of `family` it
    /// declared, won (with Wilson's 95% interval: a rate over a few dozen games is wide) and
    /// its Seeger-Fabian points per game as declarer. The standings of a census count only
    /// the deals played out, so nothing else of them is shown.
    pub fn census_text(&self, family: Family) -> String {
        let mut s = format!(
            "census of {family} games: {} tables ({} lists x {} rotations) x {} deals, seed {}: every deal bid and declared, only {family} games played out\n\n{:<14} {:<11} {:>9} {:>7} {:>16} {:>12}\n",
            self.tables,
            self.lists,
            self.rotations,
            self.deals_per_list,
            self.seed,
            "bot",
            "class",
            "declared",
            "won %",
            "95% interval",
            "SF/declared"
        );
        for b in &self.bots {
            for c in b.classes.iter().filter(|c| c.declared > 0 && c.class.starts_with(&family.to_string())) {
                let [lo, hi] = wilson95(c.won, c.declared);
                s.push_str(&format!(
                    "{:<14} {:<11} {:>9} {:>6.1}% {:>16} {:>12.1}\n",
                    b.bot,
                    c.class,
                    c.declared,
                    c.won_percent(),
                    format!("[{lo:.1}, {hi:.1}]"),
                    c.per_declared()
                ));
            }
        }
        s
    }

    /// CSV with a header row.
    pub fn to_csv(&self) -> String {
        let mut s = String::from(
            "bot,tables,seeger_fabian_mean,seeger_fabian_sd,ci95_low,ci95_high,plain_total,plain_mean,declared,won,lost,average_game_value,penalties\n",
        );
        for b in &self.bots {
            let (lo, hi) = b
                .seeger_fabian_ci95
                .map_or((String::new(), String::new()), |[l, h]| (format!("{l:.3}"), format!("{h:.3}")));
            s.push_str(&format!(
                "{},{},{:.3},{:.3},{},{},{},{:.3},{},{},{},{:.3},{}\n",
                b.bot,
                b.tables,
                b.seeger_fabian_mean,
                b.seeger_fabian_sd,
                lo,
                hi,
                b.plain_total,
                b.plain_mean,
                b.declared,
                b.won,
                b.lost,
                b.average_game_value,
                b.penalties
            ));
        }
        s
    }
}
