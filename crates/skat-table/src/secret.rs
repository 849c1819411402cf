//! Secrets: seat tokens, bot tokens and join codes (128 random bits, sent as
//! `authorization: Bearer <token>`), their hashes, and randomness for ids and seeds.
//!
//! The server keeps only a secret's SHA-256 ([`TokenHash`]), in memory and in the
//! database, so neither a heap dump nor a copy of the database lets anybody act for a
//! seat or an account. Secrets compare in constant time and never print (`Debug` shows
//! `SeatToken(..)`).

/// The operating system gave no random bytes (the server cannot make tokens or ids).
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("no randomness available")]
pub struct NoRandomness;

/// A secret: a seat token or a join code. It is compared in constant time and never
/// printed (`Debug` shows `SeatToken(..)`), so it can sit in structures that are logged
/// or debugged without leaking.
#[derive(Clone)]
pub struct SeatToken(String);

impl SeatToken {
    /// A new secret: 128 bits from the operating system's generator, as 32 hex digits.
    pub fn generate() -> Result<SeatToken, NoRandomness> {
        let mut bytes = [0u8; 16];
        getrandom::fill(&mut bytes).map_err(|_| NoRandomness)?;
        Ok(SeatToken(bytes.iter().map(|b| format!("{b:02x}")).collect()))
    }

    /// The secret's text, to hand to its holder (and nowhere else).
    pub fn reveal(&self) -> &str {
        &self.0
    }
}

impl From<String> for SeatToken {
    fn from(s: String) -> SeatToken {
        SeatToken(s)
    }
}

impl PartialEq for SeatToken {
    fn eq(&self, other: &SeatToken) -> bool {
        same_token(&self.0, &other.0)
    }
}

impl Eq for SeatToken {}

impl std::fmt::Debug for SeatToken {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("SeatToken(..)")
    }
}

/// The SHA-256 of a secret: what a table keeps of a seat token or a join code.
/// Compared in constant time; `Debug` and `Display` show it (it is not the secret).
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct TokenHash([u8; 32]);

impl TokenHash {
    /// The hash of `secret`.
    pub fn of(secret: &str) -> TokenHash {
        use sha2::Digest as _;
        TokenHash(sha2::Sha256::digest(secret.as_bytes()).into())
    }

    /// Whether this is the hash of `presented` (constant time).
    pub fn matches(&self, presented: &str) -> bool {
        self.same(&TokenHash::of(presented))
    }

    /// Whether two hashes are equal, in constant time.
    pub fn same(&self, other: &TokenHash) -> bool {
        self.0.iter().zip(other.0.iter()).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
    }
}

impl SeatToken {
    /// The hash a table keeps of this secret.
    pub fn hash(&self) -> TokenHash {
        TokenHash::of(&self.0)
    }
}

impl std::fmt::Display for TokenHash {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.iter().try_for_each(|b| write!(f, "{b:02x}"))
    }
}

impl std::fmt::Debug for TokenHash {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "TokenHash({self})")
    }
}

impl std::str::FromStr for TokenHash {
    type Err = String;
    fn from_str(s: &str) -> Result<TokenHash, String> {
        let mut out = [0u8; 32];
        if s.len() != 64 || !s.is_ascii() {
            return Err(format!("a token hash is 64 hex digits, not {s:?}"));
        }
        for (i, byte) in out.iter_mut().enumerate() {
            *byte = u8::from_str_radix(&s[2 * i..2 * i + 2], 16).map_err(|e| e.to_string())?;
        }
        Ok(TokenHash(out))
    }
}

impl serde::Serialize for TokenHash {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> serde::Deserialize<'de> for TokenHash {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<TokenHash, D::Error> {
        let text = String::deserialize(d)?;
        text.parse().map_err(serde::de::Error::custom)
    }
}

/// A random 64-bit number from the operating system (seeds, table ids).
pub fn random_u64() -> Result<u64, NoRandomness> {
    let mut bytes = [0u8; 8];
    getrandom::fill(&mut bytes).map_err(|_| NoRandomness)?;
    Ok(u64::from_le_bytes(bytes))
}

/// Compares two tokens in time that depends only on their lengths.
pub fn same_token(a: &str, b: &str) -> bool {
    a.len() == b.len() && a.bytes().zip(b.bytes()).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_are_long_and_distinct() {
        let a = SeatToken::generate().unwrap().reveal().to_string();
        let b = SeatToken::generate().unwrap().reveal().to_string();
        assert_eq!(a.len(), 32);
        assert_ne!(a, b);
        assert!(same_token(&a, &a.clone()));
        assert!(!same_token(&a, &b));
        assert!(!same_token(&a, &a[..31]));
    }

    #[test]
    fn a_seat_token_never_prints_and_compares_by_content() {
        let t = SeatToken::generate().unwrap();
        let shown = format!("{t:?} {:?}", Some(t.clone()));
        assert!(!shown.contains(t.reveal()), "{shown}");
        assert!(t.hash().matches(t.reveal()));
        assert!(!t.hash().matches("0123"));
        assert_eq!(t, SeatToken::from(t.reveal().to_string()));
    }

    #[test]
    fn a_token_hash_round_trips_and_matches_only_its_token() {
        let t = SeatToken::generate().unwrap();
        let h = t.hash();
        assert!(h.matches(t.reveal()));
        assert!(!h.matches("nope"));
        assert_eq!(h.to_string().parse::<TokenHash>().unwrap(), h);
        assert!(!format!("{h:?}").contains(t.reveal()));
        assert!("zz".parse::<TokenHash>().is_err());
    }
}
