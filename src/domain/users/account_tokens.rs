//! Single-use links sent by e-mail (address confirmation, password reset): a random token in the
//! link, its SHA-256 hash in `account_tokens`, a purpose, an expiry. Spending one is a single
//! conditional `UPDATE`, so that two uses of one link cannot both succeed.

use sqlx::AnyConnection;

use crate::db::{Db, now};
use crate::domain::auth::tokens;
use crate::errors::AppResult;

/// What a link is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Purpose {
    ConfirmEmail,
    ResetPassword,
}

impl Purpose {
    fn as_str(self) -> &'static str {
        match self {
            Purpose::ConfirmEmail => "confirm_email",
            Purpose::ResetPassword => "reset_password",
        }
    }

    /// The readable prefix of the tokens of this purpose.
    pub fn prefix(self) -> &'static str {
        match self {
            Purpose::ConfirmEmail => "rl_ce_",
            Purpose::ResetPassword => "rl_pw_",
        }
    }
}

/// Where a link stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LinkState {
    /// Usable, for this user.
    Valid(i64),
    /// Already used, by this user's link.
    Used(i64),
    Expired,
    Unknown,
}

/// A fresh token and its hash, before it is stored (the e-mail is written with the token).
pub fn fresh(purpose: Purpose) -> AppResult<(String, String)> {
    tokens::generate(purpose.prefix())
}

/// Stores a link for a user, valid `seconds`, inside the caller's transaction.
pub async fn store(
    conn: &mut AnyConnection,
    hash: &str,
    purpose: Purpose,
    user_id: i64,
    seconds: i64,
) -> AppResult<()> {
    let at = now();
    sqlx::query(
        "INSERT INTO account_tokens (token_hash, purpose, user_id, created_at, expires_at) VALUES ($1, $2, $3, $4, $5)",
    )
    .bind(hash)
    .bind(purpose.as_str())
    .bind(user_id)
    .bind(at)
    .bind(at + seconds)
    .execute(conn)
    .await?;
    Ok(())
}

/// Stores a link for the account of `email`, if there is one, inside the caller's transaction:
/// the same statement runs whether or not the account exists (see `password_reset`).
pub async fn store_for_email(
    conn: &mut AnyConnection,
    hash: &str,
    purpose: Purpose,
    email: &str,
    seconds: i64,
) -> AppResult<()> {
    let at = now();
    sqlx::query(
        "INSERT INTO account_tokens (token_hash, purpose, user_id, created_at, expires_at)
         SELECT $1, $2, id, $3, $4 FROM users WHERE email = $5",
    )
    .bind(hash)
    .bind(purpose.as_str())
    .bind(at)
    .bind(at + seconds)
    .bind(email)
    .execute(conn)
    .await?;
    Ok(())
}

/// Reads where a link stands, changing nothing.
pub async fn state(db: &Db, purpose: Purpose, token: &str) -> AppResult<LinkState> {
    let row: Option<(i64, i64, Option<i64>)> = sqlx::query_as(
        "SELECT user_id, expires_at, used_at FROM account_tokens WHERE token_hash = $1 AND purpose = $2",
    )
    .bind(tokens::hash(token.trim()))
    .bind(purpose.as_str())
    .fetch_optional(db)
    .await?;
    Ok(match row {
        None => LinkState::Unknown,
        Some((user_id, _, Some(_))) => LinkState::Used(user_id),
        Some((_, expires_at, None)) if expires_at <= now() => LinkState::Expired,
        Some((user_id, _, None)) => LinkState::Valid(user_id),
    })
}

/// Spends a link inside the caller's transaction: the user it was for, or `None` when it is not
/// (or no longer) usable.
pub async fn spend(conn: &mut AnyConnection, purpose: Purpose, token: &str) -> AppResult<Option<i64>> {
    let at = now();
    let row: Option<(i64,)> = sqlx::query_as(
        "UPDATE account_tokens SET used_at = $3
         WHERE token_hash = $1 AND purpose = $2 AND used_at IS NULL AND expires_at > $3
         RETURNING user_id",
    )
    .bind(tokens::hash(token.trim()))
    .bind(purpose.as_str())
    .bind(at)
    .fetch_optional(conn)
    .await?;
    Ok(row.map(|(user_id,)| user_id))
}

/// Spends every other live link of a purpose for a user (a new password makes the other reset
/// links of the account useless).
pub async fn spend_all(conn: &mut AnyConnection, purpose: Purpose, user_id: i64) -> AppResult<()> {
    sqlx::query("UPDATE account_tokens SET used_at = $3 WHERE user_id = $1 AND purpose = $2 AND used_at IS NULL")
        .bind(user_id)
        .bind(purpose.as_str())
        .bind(now())
        .execute(conn)
        .await?;
    Ok(())
}
