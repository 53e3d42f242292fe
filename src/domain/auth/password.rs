//! Password hashing with argon2id (OWASP parameters: 19 MiB, 2 passes, 1 lane), under a fixed
//! budget.
//!
//! Hashing is deliberately slow and memory-hungry, so it runs on the blocking thread pool (never
//! stalling the async workers) and at most one hash per core runs at a time: a semaphore sized
//! to the cores makes further hashes queue, and a transport that cannot wait long takes a
//! permit first with [`permit`] (bounded wait, then 503) and hands it to the request's hashes as
//! a [`Hashing`] value, so that they use that permit instead of queueing again. Memory is
//! therefore bounded by the number of cores whatever the traffic.
//!
//! The 19 MiB of argon2 memory are allocated once per concurrent hash and reused: allocating
//! them afresh for each hash costs page faults, and the C allocator keeps such blocks once it
//! has raised its own threshold, so the process grew by the number of threads that ever hashed.

use std::sync::{Arc, LazyLock};
use std::time::Duration;

use argon2::password_hash::{Output, ParamsString, PasswordHash, SaltString};
use argon2::{Algorithm, Argon2, Block, Params, Version};
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

/// Every hashing permit is taken: the caller should answer 503 with `Retry-After`.
#[derive(Debug)]
pub struct Busy;

/// How a request's hashes get a core: under the permit its transport took before it ran, or by
/// waiting for one at each hash.
#[derive(Clone, Debug, Default)]
pub struct Hashing(Option<Arc<SemaphorePermit<'static>>>);

impl Hashing {
    /// Each hash waits for a permit (jobs, the command line, routes that took none).
    pub fn queued() -> Hashing {
        Hashing(None)
    }

    /// Takes a hashing permit, waiting at most [`PERMIT_WAIT`]: the hashes of the request that
    /// holds it (and its clones) run under it.
    pub async fn permit() -> Result<Hashing, Busy> {
        match tokio::time::timeout(PERMIT_WAIT, BUDGET.acquire()).await {
            Ok(Ok(permit)) => Ok(Hashing(Some(Arc::new(permit)))),
            _ => Err(Busy),
        }
    }

    /// Runs one hashing job on the blocking pool, within the budget.
    async fn run<T: Send + 'static>(
        &self,
        job: impl FnOnce() -> Result<T, AppError> + Send + 'static,
    ) -> Result<T, AppError> {
        let _queued = match self.0 {
            Some(_) => None,
            None => Some(BUDGET.acquire().await.map_err(AppError::internal)?),
        };
        tokio::task::spawn_blocking(job).await.map_err(AppError::internal)?
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
pub async fn hash(password: String, hashing: &Hashing) -> Result<String, AppError> {
    hashing
        .run(move || {
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
pub async fn verify(password: String, stored: String, hashing: &Hashing) -> Result<bool, AppError> {
    hashing
        .run(move || {
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
pub async fn verify_against_nothing(password: String, hashing: &Hashing) {
    static DUMMY: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    let stored = match DUMMY.get() {
        Some(h) => h.clone(),
        None => match hash("not a real password".into(), hashing).await {
            Ok(h) => DUMMY.get_or_init(|| h).clone(),
            Err(error) => {
                // Without the dummy hash, unknown e-mails answer faster than known ones.
                error.log_if_internal();
                return;
            }
        },
    };
    let _ = verify(password, stored, hashing).await;
}

#[cfg(test)]
mod tests {
    #[tokio::test]
    async fn hashes_are_argon2id_and_verify() {
        let queued = super::Hashing::queued();
        let h = super::hash("correct horse".into(), &queued).await.unwrap();
        assert!(h.starts_with("$argon2id$v=19$m=19456,t=2,p=1$"), "{h}");
        assert!(super::verify("correct horse".into(), h.clone(), &queued).await.unwrap());
        assert!(!super::verify("wrong horse".into(), h, &queued).await.unwrap());
    }

    #[tokio::test]
    async fn hashes_of_the_argon2_crate_verify_too() {
        use argon2::password_hash::{PasswordHasher, SaltString};
        let salt = SaltString::encode_b64(b"sixteen byte slt").unwrap();
        let theirs = argon2::Argon2::default()
            .hash_password(b"correct horse", &salt)
            .unwrap()
            .to_string();
        let queued = super::Hashing::queued();
        assert!(
            super::verify("correct horse".into(), theirs.clone(), &queued)
                .await
                .unwrap()
        );
        assert!(!super::verify("wrong".into(), theirs, &queued).await.unwrap());
    }

    #[tokio::test]
    async fn a_request_under_a_permit_hashes_without_queueing_again() {
        // Every permit taken by requests: their own hashes still run, under the permits they hold.
        let mut held = Vec::new();
        while let Ok(permit) =
            tokio::time::timeout(std::time::Duration::from_millis(10), super::Hashing::permit()).await
        {
            held.push(permit.unwrap());
        }
        let hashed = super::hash("under a permit".into(), &held[0]).await;
        assert!(hashed.unwrap().starts_with("$argon2id$"));
    }
}
