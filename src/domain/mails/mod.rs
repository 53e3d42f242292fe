//! E-mails to the users of the service: each in the language the user chose (`users.language`,
//! French unless they said otherwise), queued in the transaction of the change that causes it
//! (`mail::outbox`), and, for the optional types (`mail::kinds`), left out when the user stopped
//! that type and otherwise ended with a link that stops it without logging in
//! ([`unsubscribe`]). The user's choices are in [`preferences`].

pub mod preferences;
pub mod unsubscribe;

use sqlx::AnyConnection;

use crate::errors::AppResult;
use crate::i18n::Lang;
use crate::mail::kinds::MailType;
use crate::mail::messages::Message;
use crate::mail::notices;
use crate::mail::outbox;

/// Who an e-mail goes to, as the texts need them.
#[derive(Clone, Debug)]
pub struct Recipient {
    pub user_id: i64,
    pub email: String,
    pub lang: Lang,
    /// First and last names.
    pub name: String,
}

/// The language of a stored code (`fr` unless it reads `en`).
pub fn stored_lang(code: &str) -> Lang {
    if code == "en" { Lang::En } else { Lang::Fr }
}

/// The user as a recipient, if the account exists.
pub async fn recipient(conn: &mut AnyConnection, user_id: i64) -> AppResult<Option<Recipient>> {
    let row: Option<(String, String, String, String)> =
        sqlx::query_as("SELECT email, language, first_name, last_name FROM users WHERE id = $1")
            .bind(user_id)
            .fetch_optional(&mut *conn)
            .await?;
    Ok(row.map(|(email, language, first, last)| Recipient {
        user_id,
        email,
        lang: stored_lang(&language),
        name: format!("{first} {last}"),
    }))
}

/// Queues an e-mail of `kind` to the user, written by `write` for them, inside the caller's
/// transaction; answers whether one was queued (not for a user who does not exist or stopped
/// this optional type). An optional e-mail ends with its unsubscribe link, under `public_url`.
/// It goes to the user's own address: no company reads it in the sandbox.
pub async fn send(
    conn: &mut AnyConnection,
    user_id: i64,
    kind: MailType,
    public_url: &str,
    write: impl FnOnce(&Recipient) -> Message,
) -> AppResult<bool> {
    let Some(to) = recipient(conn, user_id).await? else {
        return Ok(false);
    };
    if kind.optional() && preferences::stopped(conn, user_id, kind).await? {
        return Ok(false);
    }
    let mut message = write(&to);
    if kind.optional() {
        let link = unsubscribe::link(conn, public_url, user_id, kind).await?;
        message.body.push_str(&notices::unsubscribe_footer(to.lang, &link));
        outbox::enqueue_stoppable(conn, &to.email, &message.subject, &message.body, &link).await?;
    } else {
        outbox::enqueue(conn, &to.email, &message.subject, &message.body, None).await?;
    }
    Ok(true)
}

/// [`send`] for a type that cannot be stopped (it has no unsubscribe link).
pub async fn send_required(
    conn: &mut AnyConnection,
    user_id: i64,
    kind: MailType,
    write: impl FnOnce(&Recipient) -> Message,
) -> AppResult<bool> {
    debug_assert!(!kind.optional(), "{} needs its unsubscribe link", kind.as_str());
    send(conn, user_id, kind, "", write).await
}
