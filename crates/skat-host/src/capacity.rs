//! What a runner can hold without overcommitting, as it tells the server when it follows
//! the feed (the server then hands it no more seats than fit).
//!
//! | engine | CPU | memory |
//! |---|---|---|
//! | podman | the cores of its cpuset (`--sandbox-cpuset`, else every core it may use) x 1000 millicores | the memory available when it starts, less 512 MiB for the host |
//! | Kubernetes | the bots' namespace's ResourceQuota (`requests.cpu`, else `limits.cpu`), divided among the runners that share it (`--quota-share`) | the same for `requests.memory` / `limits.memory` |
//!
//! The operator's numbers (`--capacity-cpu-millis`, `--capacity-memory-mib`) win over both.
//! 0 means "not stated": the server then gives the runner what comes (no admission).

use k8s_openapi::api::core::v1::ResourceQuota;
use k8s_openapi::apimachinery::pkg::api::resource::Quantity;

/// CPU in millicores and memory in MiB (0: not stated).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Capacity {
    /// Millicores.
    pub millis: u64,
    /// MiB.
    pub mib: u64,
}

/// Memory the host keeps for itself out of what is available.
const HOST_RESERVE_MIB: u64 = 512;

/// MemAvailable of /proc/meminfo, in MiB.
fn memory_available_mib() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    let kib: u64 = text
        .lines()
        .find_map(|l| l.strip_prefix("MemAvailable:"))?
        .split_whitespace()
        .next()?
        .parse()
        .ok()?;
    Some(kib / 1024)
}

/// A podman runner's capacity: its cores and the host's available memory, unless given.
pub fn podman(cores: usize, given: Capacity) -> Capacity {
    Capacity {
        millis: if given.millis > 0 { given.millis } else { cores as u64 * 1000 },
        mib: if given.mib > 0 {
            given.mib
        } else {
            memory_available_mib().map_or(0, |m| m.saturating_sub(HOST_RESERVE_MIB))
        },
    }
}

/// A CPU quantity in millicores (`500m`, `2`, `1.5`), or `None`.
pub fn cpu_millis(q: &str) -> Option<u64> {
    let q = q.trim();
    if let Some(m) = q.strip_suffix('m') {
        return m.parse().ok();
    }
    let cores: f64 = q.parse().ok()?;
    (cores.is_finite() && cores >= 0.0).then(|| (cores * 1000.0).round() as u64)
}

/// A memory quantity in MiB (`512Mi`, `1Gi`, `1G`, `1048576`), or `None`.
pub fn memory_mib(q: &str) -> Option<u64> {
    let q = q.trim();
    const UNITS: [(&str, f64); 10] = [
        ("Ki", 1024.0),
        ("Mi", 1024.0 * 1024.0),
        ("Gi", 1024.0 * 1024.0 * 1024.0),
        ("Ti", 1024.0 * 1024.0 * 1024.0 * 1024.0),
        ("k", 1e3),
        ("K", 1e3),
        ("M", 1e6),
        ("G", 1e9),
        ("T", 1e12),
        ("", 1.0),
    ];
    let (number, factor) =
        UNITS.iter().find_map(|(u, f)| q.strip_suffix(u).filter(|n| !n.is_empty()).map(|n| (n, *f)))?;
    let value: f64 = number.parse().ok()?;
    (value.is_finite() && value >= 0.0).then(|| (value * factor / (1024.0 * 1024.0)).floor() as u64)
}

fn quantity(
    hard: &std::collections::BTreeMap<String, Quantity>,
    keys: &[&str],
    parse: fn(&str) -> Option<u64>,
) -> Option<u64> {
    keys.iter().find_map(|k| hard.get(*k).and_then(|q| parse(&q.0)))
}

/// What the namespace's quotas allow in all (the smallest over several), or zeros where
/// none says.
pub fn of_quotas(quotas: &[ResourceQuota]) -> Capacity {
    let mut c = Capacity::default();
    for q in quotas {
        let Some(hard) = q.spec.as_ref().and_then(|s| s.hard.as_ref()) else { continue };
        if let Some(m) = quantity(hard, &["requests.cpu", "cpu", "limits.cpu"], cpu_millis) {
            c.millis = if c.millis == 0 { m } else { c.millis.min(m) };
        }
        if let Some(m) = quantity(hard, &["requests.memory", "memory", "limits.memory"], memory_mib) {
            c.mib = if c.mib == 0 { m } else { c.mib.min(m) };
        }
    }
    c
}

/// A quota's resource: its keys, how its quantities read, what the Pod asks, its name.
type Check<'a> = (&'a [&'a str], fn(&str) -> Option<u64>, u64, &'a str);

/// Whether a Pod asking `millis` and `mib` fits every quota now (its `hard` less its
/// `used`), or the first quota's words when not.
pub fn room_in(quotas: &[ResourceQuota], millis: u64, mib: u64) -> Result<(), String> {
    for q in quotas {
        let name = q.metadata.name.clone().unwrap_or_default();
        let (Some(hard), used) = (
            q.status.as_ref().and_then(|s| s.hard.as_ref()),
            q.status.as_ref().and_then(|s| s.used.as_ref()),
        ) else {
            continue;
        };
        let empty = Default::default();
        let used = used.unwrap_or(&empty);
        let checks: [Check<'_>; 2] = [
            (&["requests.cpu", "cpu", "limits.cpu"], cpu_millis, millis, "CPU"),
            (&["requests.memory", "memory", "limits.memory"], memory_mib, mib, "memory"),
        ];
        for (keys, parse, want, what) in checks {
            if let Some(h) = quantity(hard, keys, parse) {
                let u = quantity(used, keys, parse).unwrap_or(0);
                if u + want > h {
                    return Err(format!(
                        "the namespace's ResourceQuota `{name}` has no room for the sandbox's {what} (hard {h}, used {u}, asked {want})"
                    ));
                }
            }
        }
        let pods = |m| quantity(m, &["pods"], |q| q.parse().ok());
        if let Some(h) = pods(hard)
            && pods(used).unwrap_or(0) + 1 > h
        {
            return Err(format!(
                "the namespace's ResourceQuota `{name}` has no room for another Pod (pods {h})"
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quantities_parse() {
        assert_eq!(cpu_millis("500m"), Some(500));
        assert_eq!(cpu_millis("2"), Some(2000));
        assert_eq!(cpu_millis("1.5"), Some(1500));
        assert_eq!(cpu_millis("x"), None);
        assert_eq!(memory_mib("512Mi"), Some(512));
        assert_eq!(memory_mib("2Gi"), Some(2048));
        assert_eq!(memory_mib("1G"), Some(953));
        assert_eq!(memory_mib("1048576"), Some(1));
        assert_eq!(memory_mib("Mi"), None);
    }

    #[test]
    fn given_numbers_win() {
        assert_eq!(podman(2, Capacity { millis: 500, mib: 100 }), Capacity { millis: 500, mib: 100 });
        assert_eq!(podman(3, Capacity::default()).millis, 3000);
    }
}
