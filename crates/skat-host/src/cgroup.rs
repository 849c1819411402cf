//! What a sandbox used, from its cgroup: CPU time and peak memory. Read while it runs
//! (the cgroup goes with the container), so the last reading is at most one look old.
//! Both hierarchies: v1 (`cpuacct.usage` in ns, `memory.max_usage_in_bytes`) and v2
//! (`cpu.stat`'s `usage_usec`, `memory.peak`).

use std::path::Path;

/// CPU and peak memory of a cgroup.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Usage {
    /// CPU time in milliseconds.
    pub cpu_ms: u64,
    /// Peak memory in bytes (0: not known).
    pub memory_peak: u64,
    /// Processes the kernel killed for memory (v1 `memory.oom_control`, v2
    /// `memory.events`: `oom_kill N`).
    pub oom_kills: u64,
}

/// `oom_kill N` in a cgroup's memory file.
fn oom_kills(path: &Path) -> u64 {
    std::fs::read_to_string(path)
        .ok()
        .and_then(|t| t.lines().find_map(|l| l.strip_prefix("oom_kill ")).and_then(|n| n.trim().parse().ok()))
        .unwrap_or(0)
}

fn number(path: &Path) -> Option<u64> {
    std::fs::read_to_string(path).ok()?.trim().parse().ok()
}

/// The usage of the cgroup at `relative` (as podman names it), or `None` when it is gone.
pub fn usage(relative: &str) -> Option<Usage> {
    usage_under(Path::new("/sys/fs/cgroup"), relative)
}

fn usage_under(root: &Path, relative: &str) -> Option<Usage> {
    let rel = relative.trim_start_matches('/');
    if rel.is_empty() || rel.split('/').any(|p| p == "..") {
        return None;
    }
    // v1: a hierarchy per controller.
    if let Some(ns) = number(&root.join("cpuacct").join(rel).join("cpuacct.usage"))
        .or_else(|| number(&root.join("cpu,cpuacct").join(rel).join("cpuacct.usage")))
    {
        let memory = root.join("memory").join(rel);
        let memory_peak = number(&memory.join("memory.max_usage_in_bytes")).unwrap_or(0);
        let oom_kills = oom_kills(&memory.join("memory.oom_control"));
        return Some(Usage { cpu_ms: ns / 1_000_000, memory_peak, oom_kills });
    }
    // v2: one hierarchy.
    let stat = std::fs::read_to_string(root.join(rel).join("cpu.stat")).ok()?;
    let usec = stat
        .lines()
        .find_map(|l| l.strip_prefix("usage_usec "))
        .and_then(|v| v.trim().parse::<u64>().ok())?;
    let memory_peak = number(&root.join(rel).join("memory.peak")).unwrap_or(0);
    let oom_kills = oom_kills(&root.join(rel).join("memory.events"));
    Some(Usage { cpu_ms: usec / 1000, memory_peak, oom_kills })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_hierarchies_are_read() {
        let dir = std::env::temp_dir().join(format!("skat-cgroup-test-{}", std::process::id()));
        let v1 = dir.join("v1");
        std::fs::create_dir_all(v1.join("cpuacct/pod/c")).unwrap();
        std::fs::create_dir_all(v1.join("memory/pod/c")).unwrap();
        std::fs::write(v1.join("cpuacct/pod/c/cpuacct.usage"), "2500000000\n").unwrap();
        std::fs::write(v1.join("memory/pod/c/memory.max_usage_in_bytes"), "1048576\n").unwrap();
        std::fs::write(
            v1.join("memory/pod/c/memory.oom_control"),
            "oom_kill_disable 0\nunder_oom 0\noom_kill 2\n",
        )
        .unwrap();
        assert_eq!(
            usage_under(&v1, "/pod/c"),
            Some(Usage { cpu_ms: 2500, memory_peak: 1 << 20, oom_kills: 2 })
        );
        let v2 = dir.join("v2");
        std::fs::create_dir_all(v2.join("pod/c")).unwrap();
        std::fs::write(v2.join("pod/c/cpu.stat"), "usage_usec 1500\nuser_usec 1000\n").unwrap();
        assert_eq!(usage_under(&v2, "/pod/c"), Some(Usage { cpu_ms: 1, memory_peak: 0, oom_kills: 0 }));
        assert_eq!(usage_under(&v2, "/../etc"), None);
        let _ = std::fs::remove_dir_all(dir);
    }
}
