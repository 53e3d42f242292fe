//! An admin attaches a former employee to the company again (`employments.reattachEmployment`),
//! in the first of these cases that applies:
//! 1. an employment accepted, then cancelled, and never ended is restored (same id). An
//!    invitation cancelled before it was accepted is not: it would become accepted without its
//!    user's consent;
//! 2. the user has no employment in the company ended by today: refused;
//! 3. the user has an accepted employment without an end: refused;
//! 4. the most recent ended employment ended today: its termination is cancelled (same id,
//!    detachment request cleared);
//! 5. otherwise a new accepted employment from today, with the admin rights, team and e-mail
//!    visibility of the most recent ended one.
//!
//! The employee is told by e-mail, queued with the change.

use crate::db::{Db, now};
use crate::domain::auth::Actor;
use crate::domain::mails;
use crate::errors::{AppError, AppResult};
use crate::mail::kinds::MailType;
use crate::mail::messages;

use super::rules::Period;
use super::{EmploymentRow, NewEmployment, find, insert_for_user};
use crate::domain::companies::{date_text, permissions, today};

/// Reattachment statements; `$1` the user, `$2` the company.
pub mod sql {
    crate::statements! {
        /// An employment accepted, then cancelled, never ended.
        pub const CANCELLED_ACCEPTED: &str = "SELECT id FROM employments
             WHERE user_id = $1 AND company_id = $2 AND dismissed_at IS NOT NULL AND validation_status = 'approved'
               AND end_date IS NULL ORDER BY id DESC LIMIT 1";
        /// The accepted employments ended by `$3`, most recent end first.
        pub const ENDED: &str = "SELECT id, end_date, has_admin_rights, team_id, hide_email FROM employments
             WHERE user_id = $1 AND company_id = $2 AND validation_status = 'approved' AND dismissed_at IS NULL
               AND end_date IS NOT NULL AND end_date <= $3 ORDER BY end_date DESC, id DESC LIMIT 1";
        /// An accepted employment without an end.
        pub const OPEN: &str = "SELECT id FROM employments
             WHERE user_id = $1 AND company_id = $2 AND validation_status = 'approved' AND dismissed_at IS NULL
               AND end_date IS NULL LIMIT 1";
        /// Restores employment `$1`, accepted at `$2`.
        pub const RESTORE: &str = "UPDATE employments SET dismissed_at = NULL, dismiss_author_id = NULL, validation_time = $2
             WHERE id = $1";
        /// Cancels the termination of employment `$1`.
        pub const UNEND: &str = "UPDATE employments SET end_date = NULL, detachment_requested_at = NULL, detachment_last_sent_at = NULL
             WHERE id = $1";
        /// Employment `$1` hides the employee's e-mail (`$2`).
        pub const HIDE: &str = "UPDATE employments SET hide_email = $2 WHERE id = $1";
        /// The name of company `$1`.
        pub const COMPANY_NAME: &str = "SELECT usual_name FROM companies WHERE id = $1";
    }
}

/// What `reattachEmployment` answers.
pub struct Reattached {
    pub employment: EmploymentRow,
    /// Whether the employee's e-mail was queued (always, once the reattachment succeeded: the
    /// outbox takes it with the change).
    pub email_sent: bool,
}

/// `(id, end_date, has_admin_rights, team_id, hide_email)` of an ended employment.
type EndedRow = (i64, String, i64, Option<i64>, i64);

/// `reattachEmployment`: `actor`, an admin of `company_id`, attaches `user_id` again.
pub async fn reattach(db: &Db, actor: Actor, company_id: i64, user_id: i64, public_url: &str) -> AppResult<Reattached> {
    if !permissions::is_admin(db, actor, company_id).await? {
        return Err(AppError::authorization("Actor is not authorized to reattach employee"));
    }
    let today = today();
    let mut tx = db.begin_write().await?;
    // Every rule below reads the user's employments: they cannot change meanwhile.
    if !crate::domain::workers::lock_one(&mut tx, user_id).await? {
        return Err(AppError::invalid_resource("User not found"));
    }
    let restorable: Option<(i64,)> = sqlx::query_as(sql::CANCELLED_ACCEPTED)
        .bind(user_id)
        .bind(company_id)
        .fetch_optional(&mut *tx)
        .await?;
    let employment_id = if let Some((id,)) = restorable {
        sqlx::query(sql::RESTORE).bind(id).bind(now()).execute(&mut *tx).await?;
        id
    } else {
        let ended: Option<EndedRow> = sqlx::query_as(sql::ENDED)
            .bind(user_id)
            .bind(company_id)
            .bind(date_text(today))
            .fetch_optional(&mut *tx)
            .await?;
        let Some((ended_id, end_date, admin, team_id, hide_email)) = ended else {
            return Err(AppError::invalid_inputs(
                "No terminated employment found for this user and company",
            ));
        };
        let open: Option<(i64,)> = sqlx::query_as(sql::OPEN)
            .bind(user_id)
            .bind(company_id)
            .fetch_optional(&mut *tx)
            .await?;
        if open.is_some() {
            return Err(AppError::invalid_inputs(
                "An active employment already exists for this user and company",
            ));
        }
        if end_date == date_text(today) {
            sqlx::query(sql::UNEND).bind(ended_id).execute(&mut *tx).await?;
            ended_id
        } else {
            let new = NewEmployment {
                company_id,
                period: Period {
                    start: today,
                    end: None,
                },
                has_admin_rights: admin == 1,
                is_primary: None,
                status: "approved",
                team_id,
            };
            let id = insert_for_user(&mut tx, user_id, actor.user_id, &new).await?;
            sqlx::query(sql::HIDE)
                .bind(id)
                .bind(hide_email)
                .execute(&mut *tx)
                .await?;
            id
        }
    };
    let (company,): (String,) = sqlx::query_as(sql::COMPANY_NAME)
        .bind(company_id)
        .fetch_one(&mut *tx)
        .await?;
    mails::send_required(&mut tx, user_id, MailType::EmploymentReattachment, |to| {
        messages::reattachment(to.lang, &company, public_url)
    })
    .await?;
    let employment = find(&mut tx, employment_id)
        .await?
        .ok_or_else(|| AppError::internal("employment vanished"))?;
    tx.commit().await?;
    Ok(Reattached {
        employment,
        email_sent: true,
    })
}
