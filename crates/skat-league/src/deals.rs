//! Deals fixed in advance, provably: a tournament's deals come from a secret drawn when it
//! is created; the server publishes a commitment to the secret then (its SHA-256) and the
//! secret itself when the tournament is over, and anyone can check that every deal played
//! came from it.
//!
//! | rule | why |
//! |---|---|
//! | each list's seed is SHA-256 of the secret, the meeting and the list (its first 8 bytes) | a table's seed, which its records show, says nothing about the other lists' deals |
//! | the commitment is published at creation and stored apart from the secret | the operator cannot swap the deals afterwards without the commitment changing, which everybody who saw it can tell |
//! | the secret is revealed only when the tournament is over | until then, nobody can deal a list that has not been played |
//! | a tournament made before the secret existed keeps `seed + meeting × lists + list` | its stored plan must deal what it dealt |
//!
//! What it cannot prove: that the secret was drawn fairly. A secret drawn by the server is
//! random; an operator who gives a seed chooses the deals before the start (and knows
//! them): for a competition, leave the seed out.

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

/// The secret a tournament's deals come from (hex). Its `Debug` shows nothing, so that no
/// log line or error can carry it while the tournament runs; [`DealSecret::reveal`] is the
/// one way to read it. Empty for a tournament made before secrets.
#[derive(Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct DealSecret(String);

impl DealSecret {
    /// The secret for an operator's seed (reproducible deals).
    pub fn of_seed(seed: u64) -> DealSecret {
        DealSecret(secret_of_seed(seed))
    }

    /// A secret from 32 random bytes.
    pub fn of_bytes(bytes: &[u8; 32]) -> DealSecret {
        DealSecret(secret_of_bytes(bytes))
    }

    /// Whether there is none (a tournament made before secrets).
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The secret itself: to derive seeds, or to publish once the tournament is over.
    pub fn reveal(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Debug for DealSecret {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(if self.0.is_empty() { "DealSecret(none)" } else { "DealSecret(hidden)" })
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// The commitment to a secret: hex SHA-256 of `skat-deals-v1:` and the secret.
pub fn commitment(secret: &str) -> String {
    hex(&Sha256::digest(format!("skat-deals-v1:{secret}").as_bytes()))
}

/// The seed of list `list` of meeting `meeting` under `secret`.
pub fn list_seed(secret: &str, meeting: u64, list: u64) -> u64 {
    let digest = Sha256::digest(format!("skat-list-v1:{secret}:{meeting}:{list}").as_bytes());
    let mut first = [0u8; 8];
    first.copy_from_slice(&digest[..8]);
    u64::from_le_bytes(first)
}

/// The secret for an operator's seed (reproducible deals): hex SHA-256 of the seed.
pub fn secret_of_seed(seed: u64) -> String {
    hex(&Sha256::digest(format!("skat-seed-v1:{seed}").as_bytes()))
}

/// A secret from 32 random bytes.
pub fn secret_of_bytes(bytes: &[u8; 32]) -> String {
    hex(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    const PINNED_COMMITMENT: &str = "91c7327a3957fba3ff177b68b8bba412fefdc0997f18f496aed730f3491c9199";
    const PINNED_SEED: u64 = 310_646_896_189_627_603;

    #[test]
    fn the_secret_never_shows_in_debug() {
        let s = DealSecret::of_seed(7);
        assert!(!format!("{s:?}").contains(s.reveal()));
        assert_eq!(s.reveal(), secret_of_seed(7));
    }

    #[test]
    fn seeds_and_commitments_are_fixed_by_the_secret_alone() {
        let s = secret_of_seed(7);
        assert_eq!(s.len(), 64);
        assert_eq!(list_seed(&s, 0, 0), list_seed(&s, 0, 0));
        assert_ne!(list_seed(&s, 0, 0), list_seed(&s, 0, 1));
        assert_ne!(list_seed(&s, 0, 1), list_seed(&s, 1, 0));
        assert_ne!(list_seed(&s, 0, 0), list_seed(&secret_of_seed(8), 0, 0));
        assert_eq!(commitment(&s), commitment(&s));
        assert_ne!(commitment(&s), commitment(&secret_of_seed(8)));
        // Pinned: a change here would make every published commitment unverifiable.
        assert_eq!(commitment("ab"), PINNED_COMMITMENT);
        assert_eq!(list_seed("ab", 1, 2), PINNED_SEED);
    }
}
