//! Password hashing with argon2id (OWASP parameters: 19 MiB, 2 passes, 1 lane).
//!
//! Hashing is deliberately slow, so it runs on the blocking thread pool and never stalls the
//! async workers that serve other requests.

use argon2::password_hash::{PasswordHash, PasswordHasher, PasswordVerifier, SaltString};
use argon2::{Algorithm, Argon2, Params, Version};

use crate::errors::AppError;

/// Shortest password accepted at sign-up.
pub const MIN_LENGTH: usize = 8;
/// Longest password accepted: bounds the hashing work an attacker can ask for.
pub const MAX_LENGTH: usize = 1024;

fn hasher() -> Argon2<'static> {
    Argon2::new(Algorithm::Argon2id, Version::V0x13, Params::DEFAULT)
}

/// Hashes a password into a PHC string.
pub async fn hash(password: String) -> Result<String, AppError> {
    tokio::task::spawn_blocking(move || {
        let mut salt = [0u8; 16];
        getrandom::fill(&mut salt).map_err(AppError::internal)?;
        let salt = SaltString::encode_b64(&salt).map_err(AppError::internal)?;
        hasher()
            .hash_password(password.as_bytes(), &salt)
            .map(|h| h.to_string())
            .map_err(AppError::internal)
    })
    .await
    .map_err(AppError::internal)?
}

/// Checks a password against a stored PHC string, in constant time.
pub async fn verify(password: String, stored: String) -> Result<bool, AppError> {
    tokio::task::spawn_blocking(move || {
        let parsed = PasswordHash::new(&stored).map_err(AppError::internal)?;
        Ok(hasher().verify_password(password.as_bytes(), &parsed).is_ok())
    })
    .await
    .map_err(AppError::internal)?
}

/// Spends the same time as a real check, for logins with an unknown e-mail: the answer time must
/// not tell whether an account exists.
pub async fn verify_against_nothing(password: String) {
    static DUMMY: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    let stored = match DUMMY.get() {
        Some(h) => h.clone(),
        None => match hash("not a real password".into()).await {
            Ok(h) => DUMMY.get_or_init(|| h).clone(),
            Err(_) => return,
        },
    };
    let _ = verify(password, stored).await;
}

#[cfg(test)]
mod tests {
    #[tokio::test]
    async fn hashes_are_argon2id_and_verify() {
        let h = super::hash("correct horse".into()).await.unwrap();
        assert!(h.starts_with("$argon2id$v=19$m=19456,t=2,p=1$"), "{h}");
        assert!(super::verify("correct horse".into(), h.clone()).await.unwrap());
        assert!(!super::verify("wrong horse".into(), h).await.unwrap());
    }
}
