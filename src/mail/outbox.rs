//! The outbox table: mail is queued in the transaction of the change that causes it, claimed by
//! one sender with a lease, and marked sent only once the relay has taken it.

use serde::Serialize;
use sqlx::AnyConnection;

use crate::db::{Db, PerBackend, now};
use crate::errors::AppResult;

/// Gives up on a message after this many failed attempts (it stays in the outbox with its error).
pub const MAX_ATTEMPTS: i64 = 10;

/// Queues a message, inside the caller's transaction. `company` is the company that typed the
/// recipient's address (an invitation), if any: its admins see the message in the sandbox.
pub async fn enqueue(
    conn: &mut AnyConnection,
    recipient: &str,
    subject: &str,
    body: &str,
    company: Option<i64>,
) -> AppResult<()> {
    sqlx::query("INSERT INTO emails (recipient, subject, body, created_at, company_id) VALUES ($1, $2, $3, $4, $5)")
        .bind(recipient)
        .bind(subject)
        .bind(body)
        .bind(now())
        .bind(company)
        .execute(conn)
        .await?;
    Ok(())
}

/// [`enqueue`] of an optional message to an account's own address, with its unsubscribe link,
/// which the SMTP sender gives as the `List-Unsubscribe` header.
pub async fn enqueue_stoppable(
    conn: &mut AnyConnection,
    recipient: &str,
    subject: &str,
    body: &str,
    unsubscribe_url: &str,
) -> AppResult<()> {
    sqlx::query(
        "INSERT INTO emails (recipient, subject, body, created_at, company_id, unsubscribe_url)
         VALUES ($1, $2, $3, $4, NULL, $5)",
    )
    .bind(recipient)
    .bind(subject)
    .bind(body)
    .bind(now())
    .bind(unsubscribe_url)
    .execute(conn)
    .await?;
    Ok(())
}

/// Queues a message to the account that has the address `email`, if one has it, inside the
/// caller's transaction. The same statement runs either way, so that the work done (and its
/// time) does not tell whether an account exists (the password reset's request).
pub async fn enqueue_to_account(conn: &mut AnyConnection, email: &str, subject: &str, body: &str) -> AppResult<()> {
    sqlx::query(
        "INSERT INTO emails (recipient, subject, body, created_at, company_id)
         SELECT email, $2, $3, $4, NULL FROM users WHERE email = $1",
    )
    .bind(email)
    .bind(subject)
    .bind(body)
    .bind(now())
    .execute(conn)
    .await?;
    Ok(())
}

/// A message as the sandbox outbox shows it.
#[derive(Serialize, sqlx::FromRow, Debug)]
#[serde(rename_all = "camelCase")]
pub struct OutboxEntry {
    pub id: i64,
    #[sqlx(rename = "recipient")]
    pub to: String,
    pub subject: String,
    pub body: String,
    pub created_at: i64,
    pub sent_at: Option<i64>,
}

/// The latest messages, newest first, optionally for one recipient (the operator's view).
pub async fn latest(db: &Db, recipient: Option<&str>, limit: i64) -> AppResult<Vec<OutboxEntry>> {
    let rows = sqlx::query_as::<_, OutboxEntry>(
        "SELECT id, recipient, subject, body, created_at, sent_at FROM emails
         WHERE (CAST($1 AS TEXT) IS NULL OR recipient = $1) ORDER BY id DESC LIMIT $2",
    )
    .bind(recipient)
    .bind(limit)
    .fetch_all(db)
    .await?;
    Ok(rows)
}

crate::statements! {
    /// `$1` the companies, `$2` one recipient or null, `$3` how many.
    pub const LATEST_OF_COMPANIES: PerBackend = crate::per_backend!(
        "SELECT id, recipient, subject, body, created_at, sent_at FROM emails WHERE ",
        ["company_id" in 1],
        " AND (CAST($2 AS TEXT) IS NULL OR recipient = $2) ORDER BY id DESC LIMIT $3"
    );
}

/// The latest messages of some companies, newest first, optionally for one recipient (a
/// company admin's view). A message to anyone but `viewer` (the reading user) has its
/// tokens masked ([`mask_tokens`]): an invitation or sync link acts for its recipient, and an
/// admin holding it could accept in the employee's name or set the employee's password.
pub async fn latest_of_companies(
    db: &Db,
    companies: &[i64],
    recipient: Option<&str>,
    viewer: i64,
    limit: i64,
) -> AppResult<Vec<OutboxEntry>> {
    let own: Option<(String,)> = sqlx::query_as("SELECT email FROM users WHERE id = $1")
        .bind(viewer)
        .fetch_optional(db)
        .await?;
    let own = own.map(|(email,)| email).unwrap_or_default();
    let mut entries = sqlx::query_as::<_, OutboxEntry>(db.sql(LATEST_OF_COMPANIES))
        .bind(crate::db::id_list(companies))
        .bind(recipient)
        .bind(limit)
        .fetch_all(db)
        .await?;
    for entry in &mut entries {
        if own.is_empty() || !entry.to.eq_ignore_ascii_case(&own) {
            entry.body = mask_tokens(&entry.body);
        }
    }
    Ok(entries)
}

/// What stands for a masked token.
pub const MASK: &str = "[hidden: only the recipient sees this token]";

/// The text with every secret token replaced by [`MASK`]: the tokens the service generates
/// (`rl_<kind>_` and at least 16 base64url characters) and the value of any `token=` query
/// parameter. A prefix stays readable (`rl_inv_[hidden: …]`), so the reader knows what was sent.
pub fn mask_tokens(text: &str) -> String {
    let token_char = |c: char| c.is_ascii_alphanumeric() || c == '-' || c == '_' || c == '%' || c == '.' || c == '~';
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    loop {
        let next_rl = rest.find("rl_");
        let next_query = rest.find("token=");
        let (at, is_query) = match (next_rl, next_query) {
            (Some(r), Some(q)) if q < r => (q, true),
            (Some(r), _) => (r, false),
            (None, Some(q)) => (q, true),
            (None, None) => break,
        };
        let (head, tail) = rest.split_at(at);
        out.push_str(head);
        if is_query {
            out.push_str("token=");
            let value = &tail["token=".len()..];
            let end = value.find(|c: char| !token_char(c)).unwrap_or(value.len());
            let prefix = token_prefix(&value[..end]).unwrap_or("");
            if end > prefix.len() {
                out.push_str(prefix);
                out.push_str(MASK);
            } else {
                out.push_str(&value[..end]);
            }
            rest = &value[end..];
            continue;
        }
        let end = tail.find(|c: char| !token_char(c)).unwrap_or(tail.len());
        let word = &tail[..end];
        match token_prefix(word) {
            Some(prefix) if word.len() - prefix.len() >= 16 => {
                out.push_str(prefix);
                out.push_str(MASK);
                rest = &tail[end..];
            }
            _ => {
                out.push_str("rl_");
                rest = &tail[3..];
            }
        }
    }
    out.push_str(rest);
    out
}

/// `rl_<lowercase kind>_` at the start of `word`, if there.
fn token_prefix(word: &str) -> Option<&str> {
    let kind = word.strip_prefix("rl_")?;
    let len = kind.find(|c: char| !c.is_ascii_lowercase())?;
    (len > 0 && kind[len..].starts_with('_')).then(|| &word[..3 + len + 1])
}

/// Messages still to deliver (metrics).
pub async fn backlog(db: &Db) -> Result<i64, sqlx::Error> {
    let (count,): (i64,) = sqlx::query_as("SELECT COUNT(*) FROM emails WHERE sent_at IS NULL AND attempts < $1")
        .bind(MAX_ATTEMPTS)
        .fetch_one(db)
        .await?;
    Ok(count)
}

/// A claimed message.
#[derive(sqlx::FromRow, Debug)]
pub struct Claimed {
    pub id: i64,
    pub recipient: String,
    pub subject: String,
    pub body: String,
    /// The link that stops this type of message, for an optional one.
    pub unsubscribe_url: Option<String>,
}

/// Claims up to `limit` unsent messages for `sender` until `lease_secs` from now. A message is
/// claimable when unsent and not under a live lease; the repeated condition in the outer
/// `WHERE` makes the claim exclusive under concurrency (a row another sender claimed first no
/// longer matches).
pub async fn claim(db: &Db, sender: &str, limit: i64, lease_secs: i64) -> Result<Vec<Claimed>, sqlx::Error> {
    let at = now();
    sqlx::query_as(
        "UPDATE emails SET claimed_by = $1, claimed_until = $2, attempts = attempts + 1
         WHERE sent_at IS NULL AND attempts < $4 AND (claimed_until IS NULL OR claimed_until < $5)
           AND id IN (SELECT id FROM emails
                      WHERE sent_at IS NULL AND attempts < $4 AND (claimed_until IS NULL OR claimed_until < $5)
                      ORDER BY id LIMIT $3)
         RETURNING id, recipient, subject, body, unsubscribe_url",
    )
    .bind(sender)
    .bind(at + lease_secs)
    .bind(limit)
    .bind(MAX_ATTEMPTS)
    .bind(at)
    .fetch_all(db)
    .await
}

/// The relay took the message.
pub async fn mark_sent(db: &Db, sender: &str, id: i64) -> Result<(), sqlx::Error> {
    sqlx::query(
        "UPDATE emails SET sent_at = $3, claimed_by = NULL, claimed_until = NULL, last_error = NULL
         WHERE id = $1 AND claimed_by = $2",
    )
    .bind(id)
    .bind(sender)
    .bind(now())
    .execute(db)
    .await?;
    Ok(())
}

/// The relay refused or could not be reached: released for a later attempt, with the reason.
pub async fn mark_failed(db: &Db, sender: &str, id: i64, error: &str) -> Result<(), sqlx::Error> {
    sqlx::query(
        "UPDATE emails SET claimed_by = NULL, claimed_until = NULL, last_error = $3 WHERE id = $1 AND claimed_by = $2",
    )
    .bind(id)
    .bind(sender)
    .bind(error)
    .execute(db)
    .await?;
    Ok(())
}

/// Gives back what `sender` claimed and did not try to send (a stopping server): the attempt
/// it counted did not happen.
pub async fn release(db: &Db, sender: &str, ids: &[i64]) -> Result<(), sqlx::Error> {
    for id in ids {
        sqlx::query(
            "UPDATE emails SET claimed_by = NULL, claimed_until = NULL, attempts = attempts - 1
             WHERE id = $1 AND claimed_by = $2 AND sent_at IS NULL",
        )
        .bind(id)
        .bind(sender)
        .execute(db)
        .await?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::{MASK, mask_tokens};

    #[test]
    fn tokens_and_token_parameters_are_masked() {
        let token = "rl_inv_Kq3vX9pL2mN8rT4wY6zA1bC5dE7fG0hJ2kM4nP6qR8s".to_string();
        let body =
            format!("Accept here:\n    https://r.example/invitations/accept?token={token}\n\nor use:\n    {token}\n");
        let masked = mask_tokens(&body);
        assert!(!masked.contains(&token[7..]), "{masked}");
        assert_eq!(masked.matches(MASK).count(), 2, "{masked}");
        assert!(masked.contains(&format!("?token=rl_inv_{MASK}\n")), "{masked}");
        assert!(masked.contains(&format!("\n    rl_inv_{MASK}\n")), "{masked}");
        // A link whose token is not one of ours is masked all the same.
        assert_eq!(mask_tokens("a?token=abc&x=1 b"), format!("a?token={MASK}&x=1 b"));
        // Words that only look like a prefix stay.
        let plain = "the rl_ prefix, rl_inv_short, token= and rl_Upper_abcdefghijklmnopqrstu";
        assert_eq!(mask_tokens(plain), plain);
        assert_eq!(mask_tokens("é rl_ü token=é"), "é rl_ü token=é");
    }
}
