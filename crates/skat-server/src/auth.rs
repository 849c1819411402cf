//! Seat tokens: 128 random bits, sent as `authorization: Bearer <token>`.

use skat_proto::pb::ErrorReason as R;
use tonic::metadata::MetadataMap;
use tonic::{Code, Status};

use crate::error::Refusal;

fn no_randomness() -> Status {
    Refusal::new(Code::Internal, R::Internal, "no randomness available").into()
}

/// A new secret token: 128 bits from the operating system's generator, as 32 hex digits.
pub fn new_token() -> Result<String, Status> {
    let mut bytes = [0u8; 16];
    getrandom::fill(&mut bytes).map_err(|_| no_randomness())?;
    Ok(bytes.iter().map(|b| format!("{b:02x}")).collect())
}

/// A random 64-bit number from the operating system (seeds, table ids).
pub fn random_u64() -> Result<u64, Status> {
    let mut bytes = [0u8; 8];
    getrandom::fill(&mut bytes).map_err(|_| no_randomness())?;
    Ok(u64::from_le_bytes(bytes))
}

/// The bearer token of a request, if any. A malformed header is UNAUTHENTICATED.
pub fn bearer(metadata: &MetadataMap) -> Result<Option<String>, Status> {
    let Some(value) = metadata.get("authorization") else { return Ok(None) };
    let malformed = |m: &str| -> Status { Refusal::new(Code::Unauthenticated, R::TokenMalformed, m).into() };
    let text = value.to_str().map_err(|_| malformed("authorization header is not text"))?;
    match text.strip_prefix("Bearer ").or_else(|| text.strip_prefix("bearer ")) {
        Some(token) if !token.trim().is_empty() => Ok(Some(token.trim().to_string())),
        _ => Err(malformed("authorization must be `Bearer <token>`")),
    }
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
        let a = new_token().unwrap();
        let b = new_token().unwrap();
        assert_eq!(a.len(), 32);
        assert_ne!(a, b);
        assert!(same_token(&a, &a.clone()));
        assert!(!same_token(&a, &b));
        assert!(!same_token(&a, &a[..31]));
    }

    #[test]
    fn bearer_parsing() {
        let mut m = MetadataMap::new();
        assert_eq!(bearer(&m).unwrap(), None);
        m.insert("authorization", "Bearer abc".parse().unwrap());
        assert_eq!(bearer(&m).unwrap(), Some("abc".into()));
        m.insert("authorization", "Basic abc".parse().unwrap());
        assert!(bearer(&m).is_err());
    }
}
