//! Confirming an account's e-mail address, as the reference's activation e-mail: a new account
//! receives a link; until it is opened, the account cannot act on a company (mutations other than
//! logging in, signing up and redeeming an invitation answer AUTHORIZATION_ERROR) in production.
//! The sandbox relaxes the rule (its mail reaches no real mailbox), but sends the link and
//! reports the state (`hasConfirmedEmail`) all the same.

use sqlx::AnyConnection;

use crate::db::{Db, now};
use crate::errors::AppResult;
use crate::i18n::Lang;
use crate::mail::{messages, outbox};

use super::account_tokens::{self, LinkState, Purpose};

/// How long a confirmation link works (the reference's `EMAIL_ACTIVATION_TOKEN_EXPIRATION`).
pub const VALIDITY_SECONDS: i64 = 7 * 24 * 3600;

/// The message of the refusal, worded as the reference.
pub const NOT_ACTIVE: &str = "Actor is not active. The email activation is required to perform mutations.";

/// The page that confirms: `{public_url}/account/confirm?token=…`.
pub fn link(public_url: &str, token: &str) -> String {
    format!("{}/account/confirm?token={token}", public_url.trim_end_matches('/'))
}

/// Queues the confirmation e-mail of a new account, inside the caller's transaction.
pub async fn send(
    conn: &mut AnyConnection,
    user_id: i64,
    email: &str,
    name: &str,
    lang: Lang,
    public_url: &str,
) -> AppResult<()> {
    let link = new_link(conn, user_id, public_url).await?;
    let message = messages::confirm_email(lang, name, &link);
    outbox::enqueue(conn, email, &message.subject, &message.body, None).await
}

/// Queues the confirmation e-mail of an account's new address (`account.changeEmail`), inside
/// the caller's transaction: the same link, worded for a change rather than a new account.
pub async fn send_for_new_address(
    conn: &mut AnyConnection,
    user_id: i64,
    email: &str,
    name: &str,
    lang: Lang,
    public_url: &str,
) -> AppResult<()> {
    let link = new_link(conn, user_id, public_url).await?;
    let message = messages::confirm_new_email(lang, name, &link);
    outbox::enqueue(conn, email, &message.subject, &message.body, None).await
}

/// Stores a fresh confirmation link of the user and answers it.
async fn new_link(conn: &mut AnyConnection, user_id: i64, public_url: &str) -> AppResult<String> {
    let (token, hash) = account_tokens::fresh(Purpose::ConfirmEmail)?;
    account_tokens::store(conn, &hash, Purpose::ConfirmEmail, user_id, VALIDITY_SECONDS).await?;
    Ok(link(public_url, &token))
}

/// What opening a confirmation link did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// The address is confirmed now (or was already: a link opened twice, perhaps by a mail
    /// scanner first, is not an error for the owner).
    Confirmed,
    Expired,
    Unknown,
}

/// Opens a confirmation link.
pub async fn confirm(db: &Db, token: &str) -> AppResult<Outcome> {
    let mut tx = db.begin_write().await?;
    if let Some(user_id) = account_tokens::spend(&mut tx, Purpose::ConfirmEmail, token).await? {
        mark_confirmed(&mut tx, user_id).await?;
        tx.commit().await?;
        return Ok(Outcome::Confirmed);
    }
    drop(tx);
    Ok(match account_tokens::state(db, Purpose::ConfirmEmail, token).await? {
        LinkState::Used(_) | LinkState::Valid(_) => Outcome::Confirmed,
        LinkState::Expired => Outcome::Expired,
        LinkState::Unknown => Outcome::Unknown,
    })
}

/// What asking for a new link did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Resent {
    Sent,
    /// The address is confirmed already: nothing sent.
    AlreadyConfirmed,
    /// No confirmation link has this token.
    Unknown,
}

/// Sends a new confirmation link to the account an earlier link (expired, typically) was for:
/// only to that account's own address, and only while it is unconfirmed (the reference's
/// `resendActivationEmail`, reached from the expired link instead of a login).
pub async fn resend(db: &Db, token: &str, lang: Lang, public_url: &str) -> AppResult<Resent> {
    let row: Option<(i64, String, String, Option<i64>)> = sqlx::query_as(
        "SELECT u.id, u.email, u.first_name, u.email_confirmed_at FROM account_tokens t JOIN users u ON u.id = t.user_id
         WHERE t.token_hash = $1 AND t.purpose = 'confirm_email'",
    )
    .bind(crate::domain::auth::tokens::hash(token.trim()))
    .fetch_optional(db)
    .await?;
    let Some((user_id, email, name, confirmed)) = row else {
        return Ok(Resent::Unknown);
    };
    if confirmed.is_some() {
        return Ok(Resent::AlreadyConfirmed);
    }
    let mut tx = db.begin_write().await?;
    send(&mut tx, user_id, &email, &name, lang, public_url).await?;
    tx.commit().await?;
    Ok(Resent::Sent)
}

/// Records that the owner of the account proved the address (kept if already set).
pub async fn mark_confirmed(conn: &mut AnyConnection, user_id: i64) -> AppResult<()> {
    sqlx::query("UPDATE users SET email_confirmed_at = $2 WHERE id = $1 AND email_confirmed_at IS NULL")
        .bind(user_id)
        .bind(now())
        .execute(conn)
        .await?;
    Ok(())
}

/// Whether the account's address is confirmed.
pub async fn is_confirmed(db: &Db, user_id: i64) -> AppResult<bool> {
    let row: Option<(Option<i64>,)> = sqlx::query_as("SELECT email_confirmed_at FROM users WHERE id = $1")
        .bind(user_id)
        .fetch_optional(db)
        .await?;
    Ok(matches!(row, Some((Some(_),))))
}
