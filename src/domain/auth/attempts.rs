//! Attempts counted in the database, per subject (a client at an address, an address, …): after
//! too many in the window the subject is refused until the oldest leaves it. The counter lives
//! in the database so that every server instance sees the same attempts; each caller chooses
//! its subjects so that a flood from one address cannot lock out anyone else.
//!
//! A subject is stored as given, so callers build it from bounded parts only (a numeric id, an
//! IP address, a normalised e-mail); [`MAX_SUBJECT_BYTES`] is checked here as well, and each row
//! leaves the table once it is older than the window.

use crate::db::{Db, now};
use crate::errors::{AppError, AppResult};

/// The window, in seconds.
pub const WINDOW_SECONDS: i64 = 15 * 60;

/// The longest subject stored: a prefix and an e-mail of at most 254 bytes fit.
pub const MAX_SUBJECT_BYTES: usize = 300;

/// A subject and the attempts it may make in the window.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Budget {
    pub subject: String,
    pub max: i64,
}

impl Budget {
    pub fn new(subject: String, max: i64) -> Budget {
        Budget { subject, max }
    }
}

fn checked(subject: &str) -> AppResult<&str> {
    if subject.len() > MAX_SUBJECT_BYTES {
        return Err(AppError::internal(format!(
            "a rate-limit subject of {} bytes (at most {MAX_SUBJECT_BYTES})",
            subject.len()
        )));
    }
    Ok(subject)
}

/// Whether any of the subjects spent its budget; the answer is the seconds to wait.
pub async fn retry_after(db: &Db, budgets: &[Budget]) -> AppResult<Option<i64>> {
    let at = now();
    for budget in budgets {
        let (count, oldest): (i64, Option<i64>) =
            sqlx::query_as("SELECT COUNT(*), MIN(at) FROM auth_failures WHERE subject = $1 AND at > $2")
                .bind(checked(&budget.subject)?)
                .bind(at - WINDOW_SECONDS)
                .fetch_one(db)
                .await?;
        if count >= budget.max {
            return Ok(Some(
                oldest.map(|o| o + WINDOW_SECONDS - at).unwrap_or(WINDOW_SECONDS).max(1),
            ));
        }
    }
    Ok(None)
}

/// Counts an attempt for each subject (and forgets attempts older than the window).
pub async fn record(db: &Db, budgets: &[Budget]) -> AppResult<()> {
    let at = now();
    for budget in budgets {
        sqlx::query("INSERT INTO auth_failures (subject, at) VALUES ($1, $2)")
            .bind(checked(&budget.subject)?)
            .bind(at)
            .execute(db)
            .await?;
    }
    sqlx::query("DELETE FROM auth_failures WHERE at < $1")
        .bind(at - WINDOW_SECONDS)
        .execute(db)
        .await?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_subjects_are_refused_before_storage() {
        assert!(checked(&format!("client-address:{}", "1".repeat(39))).is_ok());
        let long = "x".repeat(MAX_SUBJECT_BYTES + 1);
        assert_eq!(checked(&long).unwrap_err().code, crate::errors::Code::InternalError);
    }
}
