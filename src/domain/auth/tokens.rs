//! Opaque bearer tokens: 256 random bits, given once to the client and stored only as a SHA-256
//! hash, so that a leaked database does not leak usable credentials. Looking a token up by its
//! hash also means no secret is ever compared byte by byte in our code.

use base64::Engine;
use sha2::{Digest, Sha256};

use crate::errors::AppError;

/// A new random token with a readable prefix (`rl_at_`, `rl_rt_`, …) and its hash.
pub fn generate(prefix: &str) -> Result<(String, String), AppError> {
    let mut bytes = [0u8; 32];
    getrandom::fill(&mut bytes).map_err(AppError::internal)?;
    let token = format!(
        "{prefix}{}",
        base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bytes)
    );
    let hashed = hash(&token);
    Ok((token, hashed))
}

/// The stored form of a token.
pub fn hash(token: &str) -> String {
    let digest = Sha256::digest(token.as_bytes());
    digest.iter().map(|b| format!("{b:02x}")).collect()
}

/// A random integer in `low..=high`, for identifiers that must not be guessable.
pub fn random_in(low: i64, high: i64) -> Result<i64, AppError> {
    let mut bytes = [0u8; 8];
    getrandom::fill(&mut bytes).map_err(AppError::internal)?;
    let span = (high - low + 1) as u64;
    Ok(low + (u64::from_le_bytes(bytes) % span) as i64)
}

#[cfg(test)]
mod tests {
    #[test]
    fn tokens_are_random_and_hashed() {
        let (a, ha) = super::generate("rl_at_").unwrap();
        let (b, _) = super::generate("rl_at_").unwrap();
        assert_ne!(a, b);
        assert!(a.starts_with("rl_at_") && a.len() == 6 + 43);
        assert_eq!(ha, super::hash(&a));
        assert_eq!(ha.len(), 64);
        assert!(!ha.contains(&a));
    }

    #[test]
    fn random_ids_stay_in_range() {
        for _ in 0..1000 {
            let id = super::random_in(100_000_000, 999_999_999).unwrap();
            assert!((100_000_000..=999_999_999).contains(&id));
        }
    }
}
