//! Transparent huge pages for the server's process (`skat serve --huge-pages`).
//!
//! The kernel may back a process's memory with 2 MiB pages instead of 4 KiB ones:
//! fewer TLB misses, but a 2 MiB page that is partly used is resident whole. mimalloc
//! asks for them for its arenas (`madvise`), so on most Linux hosts the server gets them.
//!
//! | rule | why |
//! |---|---|
//! | `auto` (the default): off with the memory journal, left on with a durable one | measured at 2,000 tables of 12-deal lists half-way (docs/BENCHMARKS.md, "Transparent huge pages"): with the memory journal **14 KiB a table added instead of 17-18**, at the same CPU a deal; with SQLite about a quarter less memory too, but **4-9% more CPU a durable deal**, and CPU is what a durable server runs out of first (docs/deploy.md) |
//! | `off`: `prctl(PR_SET_THP_DISABLE)` as the server starts, before its runtime | the process's setting, which wins over `madvise` and the host's `always`, for every allocator; the few pages already huge stay so |
//! | `on`: nothing is changed | the host's setting and the allocator decide (`MIMALLOC_ALLOW_THP=0` in the environment still turns them off) |
//! | a refusal (not Linux, a sandbox that forbids `prctl`) is a warning | the server runs either way; only its memory differs |

/// What the server does about transparent huge pages.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum HugePages {
    /// Off with `--database memory`, left to the host with a durable journal.
    Auto,
    /// Left to the host's setting and the allocator.
    On,
    /// Off for the server's process.
    Off,
}

impl HugePages {
    /// Whether the process turns them off, with the server's journal.
    pub fn turns_off(self, memory_journal: bool) -> bool {
        match self {
            HugePages::Auto => memory_journal,
            HugePages::On => false,
            HugePages::Off => true,
        }
    }

    /// Applies the setting to this process and says what it did.
    pub fn apply(self, memory_journal: bool) {
        if !self.turns_off(memory_journal) {
            tracing::info!(setting = ?self, "transparent huge pages left to the host and the allocator");
            return;
        }
        match rustix::thread::disable_transparent_huge_pages(true) {
            Ok(()) => tracing::info!(setting = ?self, "transparent huge pages off for this process"),
            Err(error) => {
                tracing::warn!(setting = ?self, %error, "transparent huge pages could not be turned off")
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::HugePages;

    #[test]
    fn auto_turns_them_off_only_for_the_memory_journal() {
        assert!(HugePages::Auto.turns_off(true));
        assert!(!HugePages::Auto.turns_off(false));
        assert!(HugePages::Off.turns_off(false) && HugePages::Off.turns_off(true));
        assert!(!HugePages::On.turns_off(true));
    }
}
