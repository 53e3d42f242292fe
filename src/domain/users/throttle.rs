//! Login throttling that slows guessing without locking people out, shared by the API login and
//! the OAuth login page (one counter, whatever door is used).
//!
//! The policy, with its numbers (`docs/src/reference/limits.md` states it too):
//! * from one address, an account takes at most [`PAIR_FAILURES`] wrong passwords in
//!   [`PAIR_WINDOW`] seconds; then that address is refused for that account until the oldest
//!   failure leaves the window;
//! * across all addresses, an account takes at most [`ACCOUNT_FAILURES`] wrong passwords in
//!   [`ACCOUNT_WINDOW`] seconds from addresses where its owner has not logged in successfully
//!   within [`KNOWN_FOR`]; past that, unknown addresses are refused for that account, while the
//!   owner's known addresses keep working under the first rule;
//! * nothing is counted per address alone, so one account's attackers never block another
//!   account behind the same address (a company's proxy).
//!
//! An attacker thus gets at most 30 guesses an hour per account (40 from an address where the
//! owner logged in before). Failures are counted per e-mail as typed, whether or not an account
//! has it, so an unknown e-mail answers exactly like a wrong password, extensions included.

use crate::db::{Db, now};
use crate::errors::{AppError, AppResult};

/// Wrong passwords for one account from one address, in [`PAIR_WINDOW`].
pub const PAIR_FAILURES: i64 = 10;
pub const PAIR_WINDOW: i64 = 15 * 60;
/// Wrong passwords for one account from all addresses, in [`ACCOUNT_WINDOW`], before addresses
/// without a recent success are refused.
pub const ACCOUNT_FAILURES: i64 = 30;
pub const ACCOUNT_WINDOW: i64 = 60 * 60;
/// How long an address stays known after a successful login.
pub const KNOWN_FOR: i64 = 90 * 24 * 3600;

/// The refusal of a throttled attempt (checked before any password is hashed).
fn throttled(retry_after: i64) -> AppError {
    AppError::authentication("Too many failed login attempts: retry later")
        .with("reason", "TOO_MANY_ATTEMPTS")
        .with("retryAfter", retry_after.max(1))
}

/// Refuses the attempt when a limit is reached.
pub async fn check(db: &Db, email: &str, address: &str) -> AppResult<()> {
    let at = now();
    let (pair, oldest): (i64, Option<i64>) =
        sqlx::query_as("SELECT COUNT(*), MIN(at) FROM login_failures WHERE email = $1 AND address = $2 AND at > $3")
            .bind(email)
            .bind(address)
            .bind(at - PAIR_WINDOW)
            .fetch_one(db)
            .await?;
    if pair >= PAIR_FAILURES {
        return Err(throttled(oldest.unwrap_or(at) + PAIR_WINDOW - at));
    }
    let (account, oldest): (i64, Option<i64>) =
        sqlx::query_as("SELECT COUNT(*), MIN(at) FROM login_failures WHERE email = $1 AND at > $2")
            .bind(email)
            .bind(at - ACCOUNT_WINDOW)
            .fetch_one(db)
            .await?;
    if account >= ACCOUNT_FAILURES {
        let known: Option<(i64,)> = sqlx::query_as(
            "SELECT last_success_at FROM login_known_addresses WHERE email = $1 AND address = $2 AND last_success_at > $3",
        )
        .bind(email)
        .bind(address)
        .bind(at - KNOWN_FOR)
        .fetch_optional(db)
        .await?;
        if known.is_none() {
            return Err(throttled(oldest.unwrap_or(at) + ACCOUNT_WINDOW - at));
        }
    }
    Ok(())
}

/// Counts a wrong password (or an unknown e-mail) and answers the error the client gets, with
/// the reference's `nb_bad_tries` / `max_possible_tries` counted for this account and address.
pub async fn failed(db: &Db, email: &str, address: &str) -> AppResult<AppError> {
    let at = now();
    sqlx::query("INSERT INTO login_failures (email, address, at) VALUES ($1, $2, $3)")
        .bind(email)
        .bind(address)
        .bind(at)
        .execute(db)
        .await?;
    sqlx::query("DELETE FROM login_failures WHERE at < $1")
        .bind(at - ACCOUNT_WINDOW.max(PAIR_WINDOW))
        .execute(db)
        .await?;
    let (tries,): (i64,) =
        sqlx::query_as("SELECT COUNT(*) FROM login_failures WHERE email = $1 AND address = $2 AND at > $3")
            .bind(email)
            .bind(address)
            .bind(at - PAIR_WINDOW)
            .fetch_one(db)
            .await?;
    Ok(AppError::authentication("Wrong email/password combination")
        .with("reason", "BAD_PASSWORD")
        .with("nb_bad_tries", tries)
        .with("max_possible_tries", PAIR_FAILURES))
}

/// A successful login: this address is known for the account, and its own failures are
/// forgotten (those from other addresses stay counted).
pub async fn succeeded(db: &Db, email: &str, address: &str) -> AppResult<()> {
    let at = now();
    sqlx::query(
        "INSERT INTO login_known_addresses (email, address, last_success_at) VALUES ($1, $2, $3)
         ON CONFLICT (email, address) DO UPDATE SET last_success_at = excluded.last_success_at",
    )
    .bind(email)
    .bind(address)
    .bind(at)
    .execute(db)
    .await?;
    sqlx::query("DELETE FROM login_failures WHERE email = $1 AND address = $2")
        .bind(email)
        .bind(address)
        .execute(db)
        .await?;
    Ok(())
}
