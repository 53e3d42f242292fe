//! Password hashing with argon2id (OWASP parameters: 19 MiB, 2 passes, 1 lane), under a fixed
//! budget.
//!
//! Hashing is deliberately slow and memory-hungry, so it runs on the blocking thread pool (never
//! stalling the async workers) and at most one hash per core runs at a time: a semaphore sized
//! to the cores makes further hashes queue, and a transport that cannot wait long takes a
//! permit first with [`permit`] (bounded wait, then 503) and runs the request under it with
//! [`under_permit`], inside which hashes use that permit instead of queueing again. Memory is
//! therefore bounded by the number of cores whatever the traffic.
//!
//! The 19 MiB of argon2 memory are allocated once per concurrent hash and reused: allocating
//! them afresh for each hash costs page faults, and the C allocator keeps such blocks once it
//! has raised its own threshold, so the process grew by the number of threads that ever hashed.

use std::future::Future;
use std::sync::LazyLock;
use std::time::Duration;

use argon2::password_hash::{Output, ParamsString, PasswordHash, SaltString};
use argon2::{Algorithm, Argon2, Block, Params, Version};
use futures::FutureExt;
use subtle::ConstantTimeEq;
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
///
/// Not an `async fn`, which would hold `work` twice in its state (see [`crate::db::Db::within_request`]).
pub fn under_permit<F: Future>(permit: SemaphorePermit<'static>, work: F) -> impl Future<Output = F::Output> {
    HELD.scope((), work).map(move |output| {
        drop(permit);
        output
    })
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

/// Argon2 working memory, kept for reuse (at most one per concurrent hash, so one per core).
static MEMORY: std::sync::Mutex<Vec<Vec<Block>>> = std::sync::Mutex::new(Vec::new());

/// Runs argon2id with `params` into `out`, on a reused memory area.
fn argon2id(params: Params, password: &[u8], salt: &[u8], out: &mut [u8]) -> Result<(), AppError> {
    let blocks = params.block_count();
    let mut memory = MEMORY
        .lock()
        .map_err(AppError::internal)?
        .pop()
        .filter(|m| m.len() == blocks)
        .unwrap_or_else(|| vec![Block::default(); blocks]);
    let result = Argon2::new(Algorithm::Argon2id, Version::V0x13, params)
        .hash_password_into_with_memory(password, salt, out, &mut memory)
        .map_err(AppError::internal);
    if let Ok(mut pool) = MEMORY.lock() {
        pool.push(memory);
    }
    result
}

/// Hashes a password into a PHC string (`$argon2id$v=19$m=19456,t=2,p=1$salt$hash`).
pub async fn hash(password: String) -> Result<String, AppError> {
    hashing(move || {
        let mut salt = [0u8; 16];
        getrandom::fill(&mut salt).map_err(AppError::internal)?;
        let params = Params::DEFAULT;
        let mut out = [0u8; Params::DEFAULT_OUTPUT_LEN];
        argon2id(params.clone(), password.as_bytes(), &salt, &mut out)?;
        let salt = SaltString::encode_b64(&salt).map_err(AppError::internal)?;
        let phc = PasswordHash {
            algorithm: Algorithm::Argon2id.ident(),
            version: Some(Version::V0x13.into()),
            params: ParamsString::try_from(&params).map_err(AppError::internal)?,
            salt: Some(salt.as_salt()),
            hash: Some(Output::new(&out).map_err(AppError::internal)?),
        };
        Ok(phc.to_string())
    })
    .await
}

/// Checks a password against a stored PHC string, in constant time.
pub async fn verify(password: String, stored: String) -> Result<bool, AppError> {
    hashing(move || {
        let parsed = PasswordHash::new(&stored).map_err(AppError::internal)?;
        if parsed.algorithm != Algorithm::Argon2id.ident() {
            return Err(AppError::internal("a stored password hash is not argon2id"));
        }
        let expected = parsed
            .hash
            .ok_or_else(|| AppError::internal("a stored password hash has no hash"))?;
        let params = Params::try_from(&parsed).map_err(AppError::internal)?;
        let mut salt = [0u8; 64];
        let salt = parsed
            .salt
            .ok_or_else(|| AppError::internal("a stored password hash has no salt"))?
            .decode_b64(&mut salt)
            .map_err(AppError::internal)?;
        let mut out = vec![0u8; expected.len()];
        argon2id(params, password.as_bytes(), salt, &mut out)?;
        Ok(out.ct_eq(expected.as_bytes()).into())
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
            Err(error) => {
                // Without the dummy hash, unknown e-mails answer faster than known ones.
                error.log_if_internal();
                return;
            }
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
    async fn hashes_of_the_argon2_crate_verify_too() {
        use argon2::password_hash::{PasswordHasher, SaltString};
        let salt = SaltString::encode_b64(b"sixteen byte slt").unwrap();
        let theirs = argon2::Argon2::default()
            .hash_password(b"correct horse", &salt)
            .unwrap()
            .to_string();
        assert!(super::verify("correct horse".into(), theirs.clone()).await.unwrap());
        assert!(!super::verify("wrong".into(), theirs).await.unwrap());
    }

    #[tokio::test]
    async fn a_request_under_a_permit_hashes_without_queueing_again() {
        let permit = super::permit().await.unwrap();
        let hashed = super::under_permit(permit, super::hash("under a permit".into())).await;
        assert!(hashed.unwrap().starts_with("$argon2id$"));
    }
}
