//! Password reset by e-mail: a request sends a link valid one hour, usable once (only its hash is
//! stored); choosing the new password through it revokes every login session of the account
//! (their access and refresh tokens stop working) and every browser session of its pages. The
//! access of third-party applications (OAuth tokens) stays: the page lists them for the owner to
//! revoke (`auth.revokeAuthorizedClient`).
//!
//! A request answers the same whether or not an account has the address, and does the same
//! work: the token is generated, the e-mail written, and the same two statements run in one
//! transaction; they store and queue nothing when no account matches.

use crate::db::{Db, now};
use crate::domain::auth::password;
use crate::errors::{AppError, AppResult};
use crate::i18n::Lang;
use crate::mail::{messages, outbox};

use super::account_tokens::{self, LinkState, Purpose};

/// How long a reset link works.
pub const VALIDITY_SECONDS: i64 = 3600;

/// The page that chooses the new password: `{public_url}/account/password/new?token=…`.
pub fn link(public_url: &str, token: &str) -> String {
    format!(
        "{}/account/password/new?token={token}",
        public_url.trim_end_matches('/')
    )
}

/// Asks for a reset link for `email` (already normalised).
pub async fn request(db: &Db, email: &str, lang: Lang, public_url: &str) -> AppResult<()> {
    let (token, hash) = account_tokens::fresh(Purpose::ResetPassword)?;
    let message = messages::reset_password(lang, &link(public_url, &token));
    let mut tx = db.begin_write().await?;
    account_tokens::store_for_email(&mut tx, &hash, Purpose::ResetPassword, email, VALIDITY_SECONDS).await?;
    outbox::enqueue_to_account(&mut tx, email, &message.subject, &message.body).await?;
    tx.commit().await?;
    Ok(())
}

/// Where a reset link stands (the page shows the form only for a valid one).
pub async fn state(db: &Db, token: &str) -> AppResult<LinkState> {
    account_tokens::state(db, Purpose::ResetPassword, token).await
}

/// Why a new password was not set.
#[derive(Debug)]
pub enum Refused {
    /// The link is used, expired or unknown.
    Link(LinkState),
    /// The password itself (length), or a failure.
    Error(AppError),
}

impl From<AppError> for Refused {
    fn from(error: AppError) -> Refused {
        Refused::Error(error)
    }
}

impl From<sqlx::Error> for Refused {
    fn from(error: sqlx::Error) -> Refused {
        Refused::Error(error.into())
    }
}

/// Sets the new password through a reset link and revokes the account's sessions, in one
/// transaction; answers the account's id. The argon2id hash is computed before the transaction
/// (it takes a while and needs no lock).
pub async fn complete(db: &Db, token: &str, new_password: String, hashing: &password::Hashing) -> Result<i64, Refused> {
    match state(db, token).await? {
        LinkState::Valid(_) => {}
        other => return Err(Refused::Link(other)),
    }
    super::accounts::check_password(&new_password)?;
    let hashed = password::hash(new_password, hashing).await?;
    let mut tx = db.begin_write().await?;
    let Some(user_id) = account_tokens::spend(&mut tx, Purpose::ResetPassword, token).await? else {
        drop(tx);
        // Spent or expired between the check and now.
        return Err(Refused::Link(state(db, token).await?));
    };
    let at = now();
    // The link reached the address: it is confirmed as well.
    sqlx::query(
        "UPDATE users SET password_hash = $2, email_confirmed_at = COALESCE(email_confirmed_at, $3), password_updated_at = $3
         WHERE id = $1",
    )
    .bind(user_id)
    .bind(&hashed)
    .bind(at)
    .execute(&mut *tx)
    .await?;
    super::sessions::end_all(&mut tx, user_id, None).await?;
    account_tokens::spend_all(&mut tx, Purpose::ResetPassword, user_id).await?;
    // Failed logins counted against the account no longer stand between its owner and it.
    sqlx::query("DELETE FROM login_failures WHERE email = (SELECT email FROM users WHERE id = $1)")
        .bind(user_id)
        .execute(&mut *tx)
        .await?;
    tx.commit().await?;
    Ok(user_id)
}
