//! Changing an account's login e-mail (`account.changeEmail`), confirmed as a new account's.
//!
//! The account takes the new address at once and counts as unconfirmed until the link sent
//! there is opened (production then refuses what needs a confirmed address, see
//! `confirmation`); its sessions go on, so that its owner can correct a mistyped address. The
//! links sent to the previous address (confirmation, password reset) stop working: they no
//! longer reach the account's owner for sure. The previous address is told, in the same
//! transaction, so that an owner who did not ask for the change learns of it.

use crate::db::{Db, is_unique_violation};
use crate::domain::mails::stored_lang;
use crate::errors::{AppError, AppResult};
use crate::mail::{messages, outbox};

use super::confirmation;

/// What a change did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Changed {
    /// The account has the new address, unconfirmed; both e-mails are queued.
    Moved,
    /// The address was the account's already: nothing changed, nothing sent.
    Unchanged,
}

fn taken() -> AppError {
    AppError::invalid_inputs("A user is already registered with this email").with("field", "email")
}

/// Gives `user_id` the address `new_email` (already normalised by the `Email` scalar).
/// Both e-mails are in the account's language (`users.language`).
pub async fn change(db: &Db, user_id: i64, new_email: &str, public_url: &str) -> AppResult<Changed> {
    let row: Option<(String, String, String)> =
        sqlx::query_as("SELECT email, first_name, language FROM users WHERE id = $1")
            .bind(user_id)
            .fetch_optional(db)
            .await?;
    let Some((old_email, name, language)) = row else {
        return Err(AppError::authentication("Invalid token"));
    };
    let lang = stored_lang(&language);
    if old_email == new_email {
        return Ok(Changed::Unchanged);
    }
    let mut tx = db.begin_write().await?;
    // Only over the address read: after a concurrent change this one fails rather than tell
    // the wrong previous address.
    let updated = sqlx::query("UPDATE users SET email = $2, email_confirmed_at = NULL WHERE id = $1 AND email = $3")
        .bind(user_id)
        .bind(new_email)
        .bind(&old_email)
        .execute(&mut *tx)
        .await;
    match updated {
        Ok(done) if done.rows_affected() == 1 => {}
        Ok(_) => {
            drop(tx);
            return Err(
                AppError::invalid_inputs("The account's e-mail changed meanwhile: read it again and retry")
                    .with("field", "email"),
            );
        }
        Err(e) if is_unique_violation(&e) => return Err(taken()),
        Err(e) => return Err(e.into()),
    }
    sqlx::query("DELETE FROM account_tokens WHERE user_id = $1 AND used_at IS NULL")
        .bind(user_id)
        .execute(&mut *tx)
        .await?;
    confirmation::send_for_new_address(&mut tx, user_id, new_email, &name, lang, public_url).await?;
    let told = messages::email_changed(lang, &name, new_email, public_url);
    outbox::enqueue(&mut tx, &old_email, &told.subject, &told.body, None).await?;
    tx.commit().await?;
    Ok(Changed::Moved)
}
