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

/// Why a tournament's deals do not verify.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum VerifyError {
    /// Made before deals were committed.
    #[error("this tournament was made before deals were committed: nothing to verify")]
    NotCommitted,
    /// The secret is still hidden.
    #[error("the secret is revealed when the tournament is over: verify then")]
    NotRevealed,
    /// The revealed secret is not the committed one.
    #[error("the revealed secret does not match the tournament's commitment {0}")]
    SecretMismatch(String),
    /// The server shows another commitment than the one kept at creation.
    #[error("the commitment the server shows ({shown}) is not the one you kept ({kept})")]
    CommitmentChanged {
        /// What the server shows now.
        shown: String,
        /// What the reader kept.
        kept: String,
    },
    /// A deal's seed is not one of the secret's.
    #[error("seed {0} does not come from the secret")]
    ForeignSeed(u64),
}

/// A finished tournament's deals, checked against its commitment: the revealed secret
/// hashes to the commitment (and to the one kept at creation, if any), and every list was
/// dealt from a seed the secret gives. The cards of each seed are the engine's to check
/// (`Dealt::seeded`); this crate knows no cards.
#[derive(Debug, Clone)]
pub struct Verifier {
    seeds: std::collections::HashSet<u64>,
}

impl Verifier {
    /// The verifier of a tournament of `meetings` meetings of `lists` lists each.
    pub fn new(
        secret: &str,
        committed: &str,
        kept: Option<&str>,
        meetings: u64,
        lists: u64,
    ) -> Result<Verifier, VerifyError> {
        if secret.is_empty() {
            return Err(if committed.is_empty() {
                VerifyError::NotCommitted
            } else {
                VerifyError::NotRevealed
            });
        }
        if commitment(secret) != committed {
            return Err(VerifyError::SecretMismatch(committed.to_string()));
        }
        if let Some(kept) = kept
            && kept.trim() != committed
        {
            return Err(VerifyError::CommitmentChanged {
                shown: committed.to_string(),
                kept: kept.to_string(),
            });
        }
        let seeds = (0..meetings).flat_map(|m| (0..lists).map(move |k| list_seed(secret, m, k))).collect();
        Ok(Verifier { seeds })
    }

    /// Whether a deal's seed comes from the secret.
    pub fn check_seed(&self, seed: u64) -> Result<(), VerifyError> {
        if self.seeds.contains(&seed) { Ok(()) } else { Err(VerifyError::ForeignSeed(seed)) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const PINNED_COMMITMENT: &str = "91c7327a3957fba3ff177b68b8bba412fefdc0997f18f496aed730f3491c9199";
    const PINNED_SEED: u64 = 310_646_896_189_627_603;

    #[test]
    fn a_verifier_accepts_the_secret_and_its_seeds_and_refuses_the_rest() {
        let secret = secret_of_seed(7);
        let committed = commitment(&secret);
        let v = Verifier::new(&secret, &committed, Some(&committed), 2, 3).expect("the secret verifies");
        assert!(v.check_seed(list_seed(&secret, 1, 2)).is_ok());
        assert_eq!(
            v.check_seed(list_seed(&secret, 2, 0)),
            Err(VerifyError::ForeignSeed(list_seed(&secret, 2, 0)))
        );
        assert_eq!(Verifier::new("", "", None, 1, 1).err(), Some(VerifyError::NotCommitted));
        assert_eq!(Verifier::new("", &committed, None, 1, 1).err(), Some(VerifyError::NotRevealed));
        assert!(matches!(
            Verifier::new(&secret_of_seed(8), &committed, None, 1, 1),
            Err(VerifyError::SecretMismatch(_))
        ));
        assert!(matches!(
            Verifier::new(&secret, &committed, Some("abc"), 1, 1),
            Err(VerifyError::CommitmentChanged { .. })
        ));
    }

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
