//! Rate limiting of failed authentications, per account or client and per address: after too
//! many failures in a window the subject is refused for a while. The counter lives in the
//! database so that every server instance sees the same failures; a flood from one address
//! cannot lock out everyone, and one account under attack does not block other accounts.

use crate::db::{Db, now};
use crate::errors::AppResult;

/// Failures counted in the window before refusing.
pub const MAX_FAILURES: i64 = 10;
/// The window, in seconds.
pub const WINDOW_SECONDS: i64 = 15 * 60;

/// Whether any of the subjects reached the limit; the answer is the seconds to wait.
pub async fn retry_after(db: &Db, subjects: &[String]) -> AppResult<Option<i64>> {
    let since = now() - WINDOW_SECONDS;
    for subject in subjects {
        let (count, oldest): (i64, Option<i64>) =
            sqlx::query_as("SELECT COUNT(*), MIN(at) FROM auth_failures WHERE subject = $1 AND at > $2")
                .bind(subject)
                .bind(since)
                .fetch_one(db.exec())
                .await?;
        if count >= MAX_FAILURES {
            return Ok(Some(
                oldest
                    .map(|o| o + WINDOW_SECONDS - now())
                    .unwrap_or(WINDOW_SECONDS)
                    .max(1),
            ));
        }
    }
    Ok(None)
}

/// Records a failure for each subject (and forgets failures older than the window).
pub async fn record_failure(db: &Db, subjects: &[String]) -> AppResult<()> {
    let at = now();
    for subject in subjects {
        sqlx::query("INSERT INTO auth_failures (subject, at) VALUES ($1, $2)")
            .bind(subject)
            .bind(at)
            .execute(db.exec())
            .await?;
    }
    sqlx::query("DELETE FROM auth_failures WHERE at < $1")
        .bind(at - WINDOW_SECONDS)
        .execute(db.exec())
        .await?;
    Ok(())
}
