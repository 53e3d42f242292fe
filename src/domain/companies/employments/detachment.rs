//! An employee asks to be detached from a company (`employments.requestDetachment`): the
//! company's admins are written to, at most once per [`COOLDOWN_SECONDS`]; the first request's
//! time is kept and the later ones are reminders. Nothing else changes: an admin detaches with
//! `terminateEmployment`, which keeps the request (`Employment.detachmentRequest`).

use crate::db::{Db, now};
use crate::domain::auth::Actor;
use crate::domain::mails;
use crate::errors::{AppError, AppResult};
use crate::mail::kinds::MailType;
use crate::mail::messages;

use super::{EmploymentRow, find};
use crate::domain::companies::{date_text, today};

/// The least time between two e-mails of one employment's request (the reference's 48 hours).
pub const COOLDOWN_SECONDS: i64 = 48 * 3600;

/// An employment's request, as `Employment.detachmentRequest` shows it (Unix seconds).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DetachmentRequest {
    pub requested_at: i64,
    pub last_sent_at: i64,
}

/// Detachment statements.
pub mod sql {
    crate::statements! {
        /// The request of employment `$1`.
        pub const OF_EMPLOYMENT: &str =
            "SELECT detachment_requested_at, detachment_last_sent_at FROM employments WHERE id = $1";
        /// Records a request of employment `$1` at `$2`, unless one was sent after `$3` (the
        /// cooldown's start): the first request's time is kept.
        pub const RECORD: &str = "UPDATE employments
             SET detachment_requested_at = COALESCE(detachment_requested_at, $2), detachment_last_sent_at = $2
             WHERE id = $1 AND (detachment_last_sent_at IS NULL OR detachment_last_sent_at <= $3)";
        /// The e-mails of the admins of company `$1` today (`$2`) other than user `$3`, once each.
        pub const ADMINS: &str = "SELECT DISTINCT u.id, u.email FROM employments e JOIN users u ON u.id = e.user_id
             WHERE e.company_id = $1 AND e.validation_status = 'approved' AND e.dismissed_at IS NULL AND e.has_admin_rights = 1
               AND e.start_date <= $2 AND (e.end_date IS NULL OR e.end_date >= $2) AND u.id <> $3
             ORDER BY u.email";
        /// The name of user `$1` and of company `$2`.
        pub const NAMES: &str = "SELECT u.first_name, u.last_name, c.usual_name FROM users u, companies c WHERE u.id = $1 AND c.id = $2";
    }
}

/// The request of an employment, if one was made.
pub async fn of_employment(db: &Db, employment_id: i64) -> AppResult<Option<DetachmentRequest>> {
    let row: Option<(Option<i64>, Option<i64>)> = sqlx::query_as(sql::OF_EMPLOYMENT)
        .bind(employment_id)
        .fetch_optional(db)
        .await?;
    Ok(match row {
        Some((Some(requested_at), last_sent_at)) => Some(DetachmentRequest {
            requested_at,
            last_sent_at: last_sent_at.unwrap_or(requested_at),
        }),
        _ => None,
    })
}

fn only_the_employee() -> AppError {
    AppError::authorization("Only the employee can request detachment")
}

/// `requestDetachment`: the employment's own user, while it is active, asks the company's admins
/// to detach them; answers the employment.
pub async fn request(db: &Db, actor: Actor, employment_id: i64) -> AppResult<EmploymentRow> {
    let mut tx = db.begin_write().await?;
    // An unknown id answers as another user's, so that ids cannot be probed.
    let row = find(&mut tx, employment_id).await?.ok_or_else(only_the_employee)?;
    if row.user_id != Some(actor.user_id) || !actor.scope.allows(row.company_id) {
        return Err(only_the_employee());
    }
    if !row.is_active(&date_text(today())) {
        return Err(AppError::invalid_inputs("Employment is not active"));
    }
    let before: Option<(Option<i64>, Option<i64>)> = sqlx::query_as(sql::OF_EMPLOYMENT)
        .bind(employment_id)
        .fetch_optional(&mut *tx)
        .await?;
    let (first_request, last_sent) = before.unwrap_or((None, None));
    let at = now();
    let recorded = sqlx::query(sql::RECORD)
        .bind(employment_id)
        .bind(at)
        .bind(at - COOLDOWN_SECONDS)
        .execute(&mut *tx)
        .await?;
    if recorded.rows_affected() != 1 {
        let wait = last_sent.map_or(COOLDOWN_SECONDS, |sent| sent + COOLDOWN_SECONDS - at);
        return Err(
            AppError::invalid_inputs("A request was already sent recently, please wait 48 hours")
                .with("retryAfter", wait.max(1)),
        );
    }
    let (first_name, last_name, company): (String, String, String) = sqlx::query_as(sql::NAMES)
        .bind(actor.user_id)
        .bind(row.company_id)
        .fetch_one(&mut *tx)
        .await?;
    let first_day = first_request
        .and_then(|t| chrono::DateTime::from_timestamp(t, 0))
        .map(|t| date_text(t.date_naive()));
    let employee = format!("{first_name} {last_name}");
    let admins: Vec<(i64, String)> = sqlx::query_as(sql::ADMINS)
        .bind(row.company_id)
        .bind(date_text(today()))
        .bind(actor.user_id)
        .fetch_all(&mut *tx)
        .await?;
    let kind = match first_day {
        None => MailType::DetachmentRequest,
        Some(_) => MailType::DetachmentReminder,
    };
    // Each admin in their own language.
    for (admin, _) in admins {
        mails::send_required(&mut tx, admin, kind, |to| {
            messages::detachment_request(to.lang, &employee, &company, employment_id, first_day.as_deref())
        })
        .await?;
    }
    let row = find(&mut tx, employment_id)
        .await?
        .ok_or_else(|| AppError::internal("employment vanished"))?;
    tx.commit().await?;
    Ok(row)
}
