//! Changing the password while logged in (`account.resetPasswordConnected`).
//!
//! The current password is asked for: a stolen access token alone must not let its holder lock
//! the owner out. Its check runs under the login throttle of the account's e-mail and the
//! request's address (see [`super::throttle`]): a wrong one counts as a failed login, so a token
//! holder gets no more guesses than a login form gives. On success the other login sessions of
//! the account end, with the browser sessions of its pages and its unused reset links; the
//! session that made the change goes on. The access of third-party applications stays, as after
//! a reset by e-mail (see `password_reset`).

use crate::db::{Db, now};
use crate::domain::auth::password;
use crate::errors::{AppError, AppResult};

use super::account_tokens::{self, Purpose};
use super::{accounts, sessions, throttle};

/// A change asked for by the account's owner.
pub struct PasswordChange {
    /// The password the account has now; required (INVALID_INPUTS when missing).
    pub current: Option<String>,
    /// The one it gets.
    pub new: String,
}

fn missing_current() -> AppError {
    AppError::invalid_inputs("currentPassword is required: give the account's current password")
        .with("field", "currentPassword")
}

/// The answer to a wrong current password: the login throttle's counts, on the argument.
fn wrong_current(counted: AppError) -> AppError {
    let mut error = AppError::invalid_inputs("The current password is wrong").with("field", "currentPassword");
    error.extensions.extend(counted.extensions);
    error
}

/// Changes the password of `user_id`, whose request comes from `address` through login session
/// `keep` (none for an OAuth client's token).
pub async fn change(
    db: &Db,
    user_id: i64,
    keep: Option<i64>,
    change: PasswordChange,
    address: &str,
    hashing: &password::Hashing,
) -> AppResult<()> {
    let current = change.current.filter(|c| !c.is_empty()).ok_or_else(missing_current)?;
    // The cheap checks first: a new password that would be refused costs no guess.
    accounts::check_password(&change.new)?;
    let row: Option<(String, String)> = sqlx::query_as("SELECT email, password_hash FROM users WHERE id = $1")
        .bind(user_id)
        .fetch_optional(db)
        .await?;
    let Some((email, stored)) = row else {
        return Err(AppError::authentication("Invalid token"));
    };
    throttle::check(db, &email, address).await?;
    if !password::verify(current, stored.clone(), hashing).await? {
        return Err(wrong_current(throttle::failed(db, &email, address).await?));
    }
    let hashed = password::hash(change.new, hashing).await?;
    let mut tx = db.begin_write().await?;
    // Only over the hash that was checked: a password changed meanwhile by another request
    // makes this one's current password wrong.
    let updated = sqlx::query(
        "UPDATE users SET password_hash = $2, password_updated_at = $3 WHERE id = $1 AND password_hash = $4",
    )
    .bind(user_id)
    .bind(&hashed)
    .bind(now())
    .bind(&stored)
    .execute(&mut *tx)
    .await?;
    if updated.rows_affected() != 1 {
        drop(tx);
        return Err(wrong_current(throttle::failed(db, &email, address).await?));
    }
    sessions::end_all(&mut tx, user_id, keep).await?;
    account_tokens::spend_all(&mut tx, Purpose::ResetPassword, user_id).await?;
    tx.commit().await?;
    // The owner proved the password from this address, as a login does.
    throttle::succeeded(db, &email, address).await?;
    Ok(())
}
