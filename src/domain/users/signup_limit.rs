//! How many accounts one client address may try to create: [`ATTEMPTS`] sign-ups in
//! [`WINDOW_SECONDS`](crate::domain::auth::attempts::WINDOW_SECONDS), counted in the database whatever the door (`signUp.user` or
//! the sign-up page), so that the budget holds across server instances. Each attempt counts,
//! successful or not: every success sends a confirmation e-mail.

use crate::domain::auth::attempts::Budget;
use crate::errors::AppError;

/// Sign-up attempts per client address in the window.
pub const ATTEMPTS: i64 = 10;

/// The counter of one client address (empty when unknown: such requests share one counter).
pub fn budget(address: &str) -> Budget {
    Budget::new(format!("signup:{address}"), ATTEMPTS)
}

/// The refusal of a sign-up over the budget: the shape of a throttled login
/// (`reason: TOO_MANY_ATTEMPTS`, `retryAfter` in seconds).
pub fn throttled(retry_after: i64) -> AppError {
    AppError::authentication("Too many sign-ups from this address: retry later")
        .with("reason", "TOO_MANY_ATTEMPTS")
        .with("retryAfter", retry_after.max(1))
}
