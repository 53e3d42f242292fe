//! Checking a code under the limit of wrong codes, inside the caller's write transaction.
//!
//! The transaction starts by writing the user's credential row, which holds it until commit
//! (PostgreSQL locks the row; SQLite writes one transaction at a time): every check of one user's
//! codes runs after the other, so counting the wrong codes of the window and adding one cannot
//! be overtaken by a concurrent attempt, and at most [`MAX_FAILURES`] wrong codes are ever
//! checked in [`WINDOW_SECONDS`], whatever the number of requests in flight.

use sqlx::AnyConnection;

use crate::db::now;
use crate::domain::export::sealing::Sealer;
use crate::errors::{AppError, AppResult};

use super::codes;

/// Wrong codes allowed per user in the window.
pub const MAX_FAILURES: i64 = 5;
/// The window, in seconds.
pub const WINDOW_SECONDS: i64 = 5 * 60;

/// The user's credential, read under the lock.
pub struct Credential {
    pub secret: Vec<u8>,
    pub enabled: bool,
    pub last_step: Option<i64>,
}

/// What the given code turned out to be.
#[derive(Debug, PartialEq, Eq)]
pub enum Proof {
    Right,
    Wrong,
}

/// The name the secret is sealed under: a sealed secret opens for its user only.
pub fn sealed_name(user_id: i64) -> String {
    format!("totp:{user_id}")
}

/// Locks and reads the user's credential (`None`: the user has none).
pub async fn lock(conn: &mut AnyConnection, sealer: &Sealer, user_id: i64) -> AppResult<Option<Credential>> {
    let row: Option<(Vec<u8>, Option<i64>, Option<i64>)> = sqlx::query_as(
        "UPDATE totp_credentials SET user_id = user_id WHERE user_id = $1
         RETURNING secret, enabled_at, last_step",
    )
    .bind(user_id)
    .fetch_optional(&mut *conn)
    .await?;
    row.map(|(sealed, enabled_at, last_step)| {
        Ok(Credential {
            secret: sealer.open(&sealed_name(user_id), &sealed)?,
            enabled: enabled_at.is_some(),
            last_step,
        })
    })
    .transpose()
}

/// The refusal past the limit.
fn throttled(retry_after: i64) -> AppError {
    AppError::authentication("Too many wrong codes: retry later")
        .with("reason", "TOO_MANY_ATTEMPTS")
        .with("retryAfter", retry_after.max(1))
}

/// The answer to a wrong code.
pub fn wrong_code() -> AppError {
    AppError::authentication("Invalid TOTP code").with("reason", "BAD_TOTP_CODE")
}

/// Checks `code` for the locked credential: a TOTP code not used before, or (when
/// `recovery_allowed`) one of the user's unused recovery codes, which is spent. A wrong code is
/// counted; past the limit the code is not even looked at. The caller commits in every case
/// (the count must stay) and refuses on [`Proof::Wrong`].
pub async fn check(
    conn: &mut AnyConnection,
    user_id: i64,
    credential: &Credential,
    code: &str,
    recovery_allowed: bool,
) -> AppResult<Proof> {
    if code.chars().count() > codes::MAX_CODE_CHARS {
        return Err(
            AppError::invalid_inputs(format!("A code has at most {} characters", codes::MAX_CODE_CHARS))
                .with("field", "code"),
        );
    }
    let at = now();
    sqlx::query("DELETE FROM totp_failures WHERE user_id = $1 AND at <= $2")
        .bind(user_id)
        .bind(at - WINDOW_SECONDS)
        .execute(&mut *conn)
        .await?;
    let (count, oldest): (i64, Option<i64>) =
        sqlx::query_as("SELECT COUNT(*), MIN(at) FROM totp_failures WHERE user_id = $1 AND at > $2")
            .bind(user_id)
            .bind(at - WINDOW_SECONDS)
            .fetch_one(&mut *conn)
            .await?;
    if count >= MAX_FAILURES {
        return Err(throttled(oldest.map_or(WINDOW_SECONDS, |o| o + WINDOW_SECONDS - at)));
    }
    let given = codes::normalize(code);
    if codes::looks_like_totp(&given) {
        if let Some(step) = codes::matching_step(&credential.secret, &given, at, credential.last_step)? {
            sqlx::query("UPDATE totp_credentials SET last_step = $2 WHERE user_id = $1")
                .bind(user_id)
                .bind(step)
                .execute(&mut *conn)
                .await?;
            return Ok(Proof::Right);
        }
    } else if recovery_allowed {
        // Looked up by hash: no stored secret is compared byte by byte here.
        let spent = sqlx::query(
            "UPDATE totp_recovery_codes SET used_at = $3
             WHERE user_id = $1 AND code_hash = $2 AND used_at IS NULL",
        )
        .bind(user_id)
        .bind(codes::recovery_hash(&given))
        .bind(at)
        .execute(&mut *conn)
        .await?;
        if spent.rows_affected() == 1 {
            return Ok(Proof::Right);
        }
    }
    sqlx::query("INSERT INTO totp_failures (user_id, at) VALUES ($1, $2)")
        .bind(user_id)
        .bind(at)
        .execute(&mut *conn)
        .await?;
    Ok(Proof::Wrong)
}
