//! Which cores a sandbox runs on. A CPU quota is CPU time, not a core: two sandboxes on
//! one core each get their share per period, but a decision shorter than a period runs
//! at the core's full speed alone and at half beside a busy neighbour (measured: a hosted
//! bot's p99 from 42 to 133 ms beside a spinner on shared cores, docs/BENCHMARKS.md). So
//! each sandbox gets cores of its own from the runner's set while there are free ones.
//!
//! | rule | why |
//! |---|---|
//! | a sandbox of `m` millicores gets `max(1, ceil(m / 1000))` whole cores of its own, pinned (`--cpuset-cpus`), its quota still `m` | no neighbour's spinning reaches its decisions |
//! | with no free core it shares the least-loaded ones, and says so (a warning in the runner's log and in the sandbox's report) | it still plays; the operator and the author both learn that its times are not its own |
//! | the runner's set is `--sandbox-cpuset`, or every core the runner may use | keep the server's cores apart by giving the runner the others |

use std::sync::Mutex;

/// The cores of a runner and how many sandboxes each holds.
#[derive(Debug)]
pub struct Cores {
    /// (core id, sandboxes on it).
    load: Mutex<Vec<(u32, u32)>>,
}

/// Cores held by one sandbox, given back by [`Cores::release`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Place {
    /// The cores, for `--cpuset-cpus` (`2`, `2,3`).
    pub cpuset: String,
    /// Whether another sandbox runs on any of them.
    pub shared: bool,
    ids: Vec<u32>,
}

/// The ids in a cpuset list (`0-3,6`), or why not.
pub fn parse_cpuset(list: &str) -> Result<Vec<u32>, String> {
    let mut ids = Vec::new();
    for part in list.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        let bad = || format!("`{list}` is not a list of cores (like `1`, `2-7`, `0,2`)");
        let (a, b) = match part.split_once('-') {
            Some((a, b)) => {
                (a.trim().parse::<u32>().map_err(|_| bad())?, b.trim().parse::<u32>().map_err(|_| bad())?)
            }
            None => {
                let n = part.parse::<u32>().map_err(|_| bad())?;
                (n, n)
            }
        };
        if a > b || b > 4095 {
            return Err(bad());
        }
        ids.extend(a..=b);
    }
    ids.sort_unstable();
    ids.dedup();
    if ids.is_empty() {
        return Err(format!("`{list}` names no core"));
    }
    Ok(ids)
}

/// The cores this process may run on (`Cpus_allowed_list` of /proc/self/status), or
/// 0..n from the parallelism the standard library sees.
pub fn allowed() -> Vec<u32> {
    let from_proc = std::fs::read_to_string("/proc/self/status").ok().and_then(|s| {
        s.lines().find_map(|l| l.strip_prefix("Cpus_allowed_list:")).and_then(|l| parse_cpuset(l.trim()).ok())
    });
    from_proc.unwrap_or_else(|| {
        let n = std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get);
        (0..n as u32).collect()
    })
}

impl Cores {
    /// The cores in `ids`.
    pub fn new(ids: &[u32]) -> Cores {
        Cores { load: Mutex::new(ids.iter().map(|&id| (id, 0)).collect()) }
    }

    /// How many cores there are.
    pub fn len(&self) -> usize {
        self.load.lock().unwrap_or_else(|p| p.into_inner()).len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Cores for a sandbox of `millis`: free ones if there are enough, else the least
    /// loaded (shared).
    pub fn take(&self, millis: u32) -> Place {
        let want = (millis.div_ceil(1000)).max(1) as usize;
        let mut load = self.load.lock().unwrap_or_else(|p| p.into_inner());
        let want = want.min(load.len().max(1));
        // Least loaded first; among equals, the lowest id (a stable, readable choice).
        let mut order: Vec<usize> = (0..load.len()).collect();
        order.sort_by_key(|&i| (load[i].1, load[i].0));
        let chosen: Vec<usize> = order.into_iter().take(want).collect();
        let shared = chosen.iter().any(|&i| load[i].1 > 0);
        for &i in &chosen {
            load[i].1 += 1;
        }
        let mut ids: Vec<u32> = chosen.iter().map(|&i| load[i].0).collect();
        ids.sort_unstable();
        let cpuset = ids.iter().map(u32::to_string).collect::<Vec<_>>().join(",");
        Place { cpuset, shared, ids }
    }

    /// Gives a sandbox's cores back.
    pub fn release(&self, place: &Place) {
        let mut load = self.load.lock().unwrap_or_else(|p| p.into_inner());
        for (id, n) in load.iter_mut() {
            if place.ids.contains(id) {
                *n = n.saturating_sub(1);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cpusets_parse() {
        assert_eq!(parse_cpuset("0-3,6").unwrap(), vec![0, 1, 2, 3, 6]);
        assert_eq!(parse_cpuset(" 1 ").unwrap(), vec![1]);
        for bad in ["", "a", "3-1", "1-", "9999"] {
            assert!(parse_cpuset(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn each_sandbox_gets_cores_of_its_own_until_there_are_none() {
        let cores = Cores::new(&[2, 3, 4]);
        let a = cores.take(1000);
        let b = cores.take(500);
        assert_eq!((a.cpuset.as_str(), a.shared), ("2", false));
        assert_eq!((b.cpuset.as_str(), b.shared), ("3", false));
        let c = cores.take(2000);
        assert!(c.shared, "two cores wanted, one free: shared");
        cores.release(&a);
        cores.release(&c);
        let d = cores.take(2000);
        assert_eq!((d.cpuset.as_str(), d.shared), ("2,4", false));
        let e = cores.take(1000);
        assert_eq!((e.cpuset.as_str(), e.shared), ("2", true));
    }
}
