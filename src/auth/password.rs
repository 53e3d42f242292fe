//! Password hashing with argon2id (OWASP parameters: 19 MiB, 2 passes, 1 lane), under a fixed
//! budget.
//!
//! Hashing is deliberately slow and memory-hungry, so it runs on the blocking thread pool (never
//! stalling the async workers) and at most one hash per core runs at a time: a semaphore sized
//! to the cores makes further hashes queue, and a transport that cannot wait long takes a
//! permit first with [`permit`] (bounded wait, then 503) and runs the request under it with
//! [`under_permit`], inside which hashes use that permit instead of queueing again. Memory is
//! therefore bounded by the number of cores whatever the traffic.

use std::future::Future;
use std::sync::LazyLock;
use std::time::Duration;

use argon2::password_hash::{PasswordHash, PasswordHasher, PasswordVerifier, SaltString};
use argon2::{Algorithm, Argon2, Params, Version};
use tokio::sync::{Semaphore, SemaphorePermit};

use crate::errors::AppError;

/// Shortest password accepted at sign-up.
pub const MIN_LENGTH: usize = 8;
/// Longest password accepted: bounds the hashing work an attacker can ask for.
pub const MAX_LENGTH: usize = 1024;
/// Longest wait for a hashing permit before the request is refused as busy (503).
pub const PERMIT_WAIT: Duration = Duration::from_secs(5);

/// One permit per core.
static BUDGET: LazyLock<Semaphore> = LazyLock::new(|| {
    let cores = std::thread::available_parallelism().map(|n| n.get()).unwrap_or(2);
    Semaphore::new(cores)
});

tokio::task_local! {
    /// Set while a request runs under a permit it took beforehand.
    static HELD: ();
}

/// Every hashing permit is taken: the caller should answer 503 with `Retry-After`.
#[derive(Debug)]
pub struct Busy;

/// Takes a hashing permit, waiting at most [`PERMIT_WAIT`].
pub async fn permit() -> Result<SemaphorePermit<'static>, Busy> {
    match tokio::time::timeout(PERMIT_WAIT, BUDGET.acquire()).await {
        Ok(Ok(permit)) => Ok(permit),
        _ => Err(Busy),
    }
}

/// Runs `work` (a request) under a permit taken with [`permit`]: its hashes use that permit.
pub async fn under_permit<F: Future>(permit: SemaphorePermit<'static>, work: F) -> F::Output {
    let output = HELD.scope((), work).await;
    drop(permit);
    output
}

/// Runs one hashing job on the blocking pool, within the budget.
async fn hashing<T: Send + 'static>(job: impl FnOnce() -> Result<T, AppError> + Send + 'static) -> Result<T, AppError> {
    let run = || async { tokio::task::spawn_blocking(job).await.map_err(AppError::internal)? };
    if HELD.try_with(|_| ()).is_ok() {
        run().await
    } else {
        let _permit = BUDGET.acquire().await.map_err(AppError::internal)?;
        run().await
    }
}

fn hasher() -> Argon2<'static> {
    Argon2::new(Algorithm::Argon2id, Version::V0x13, Params::DEFAULT)
}

/// Hashes a password into a PHC string.
pub async fn hash(password: String) -> Result<String, AppError> {
    hashing(move || {
        let mut salt = [0u8; 16];
        getrandom::fill(&mut salt).map_err(AppError::internal)?;
        let salt = SaltString::encode_b64(&salt).map_err(AppError::internal)?;
        hasher()
            .hash_password(password.as_bytes(), &salt)
            .map(|h| h.to_string())
            .map_err(AppError::internal)
    })
    .await
}

/// Checks a password against a stored PHC string, in constant time.
pub async fn verify(password: String, stored: String) -> Result<bool, AppError> {
    hashing(move || {
        let parsed = PasswordHash::new(&stored).map_err(AppError::internal)?;
        Ok(hasher().verify_password(password.as_bytes(), &parsed).is_ok())
    })
    .await
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

    #[tokio::test]
    async fn a_request_under_a_permit_hashes_without_queueing_again() {
        let permit = super::permit().await.unwrap();
        let hashed = super::under_permit(permit, super::hash("under a permit".into())).await;
        assert!(hashed.unwrap().starts_with("$argon2id$"));
    }
}
