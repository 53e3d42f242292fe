//! Ending accepted employments: `terminateEmployment` (one; a refusal is an error) and
//! `batchTerminateEmployments` (several; each refused on its own, as the reference answers it).
//! Both apply the same rules, in one write transaction per employment, and tell the employee by
//! e-mail.

use chrono::NaiveDate;
use sqlx::AnyConnection;

use super::{EmploymentRow, find, forbidden};
use crate::db::Db;
use crate::domain::auth::Actor;
use crate::domain::companies::{date_text, permissions, today};
use crate::domain::mails;
use crate::errors::{AppError, AppResult};
use crate::mail::kinds::MailType;
use crate::mail::notices;

/// Most employments one batch may end.
pub const MAX_BATCH: usize = 100;

/// Why an employment cannot be ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Refusal {
    NotFound,
    OwnEmployment,
    /// Not accepted, cancelled, or with an end date already set.
    NotActive,
    BeforeStart,
    /// An activity (its id) after the requested end date.
    ActivityAfter(i64),
}

impl Refusal {
    /// The reference's message of a refused batch item.
    fn message(self) -> &'static str {
        match self {
            Refusal::NotFound => "Employment not found",
            Refusal::OwnEmployment => "Cannot terminate your own employment",
            Refusal::NotActive => "Employment is inactive or already terminated",
            Refusal::BeforeStart => "End date is before the employment start date",
            Refusal::ActivityAfter(_) => "User has logged activities after this end date",
        }
    }

    /// The error `terminateEmployment` raises instead.
    fn into_error(self, row: &EmploymentRow) -> AppError {
        match self {
            Refusal::NotFound => forbidden(),
            Refusal::OwnEmployment => AppError::authorization("An admin cannot terminate their own employment")
                .with("reason", "USER_SELF_TERMINATE_EMPLOYMENT"),
            Refusal::NotActive if !row.is_acknowledged() => {
                AppError::invalid_resource(format!("Could not find valid employment with id {}", row.id))
                    .with("status", row.status(&date_text(today())))
            }
            // As the reference: an employment that already has an end date (past, today or to
            // come) is ended, and is not terminated again; its end date is not moved.
            Refusal::NotActive => AppError::invalid_resource(format!(
                "Employment is inactive or already terminated: it must not be already ended (end date {})",
                row.end_date.as_deref().unwrap_or("unknown")
            ))
            .with("reason", "EMPLOYMENT_ALREADY_TERMINATED"),
            Refusal::BeforeStart => {
                AppError::invalid_inputs("End date must not be before the start date of the employment")
                    .with("field", "endDate")
            }
            Refusal::ActivityAfter(activity_id) => {
                AppError::invalid_inputs("The user has activities after the requested end date of the employment")
                    .with("reason", "ACTIVITY_EXIST_AFTER_EMPLOYMENT_END_DATE")
                    .with("activityId", activity_id)
            }
        }
    }
}

/// Ends one employment whose company the actor administers, in its own write transaction; the
/// conditions are checked again by the update itself, so that two concurrent terminations of one
/// employment cannot both succeed.
async fn end_one(
    db: &Db,
    actor: Actor,
    row: &EmploymentRow,
    end: Option<NaiveDate>,
) -> AppResult<Result<EmploymentRow, Refusal>> {
    if row.user_id == Some(actor.user_id) {
        return Ok(Err(Refusal::OwnEmployment));
    }
    if !row.is_acknowledged() || row.end_date.is_some() {
        return Ok(Err(Refusal::NotActive));
    }
    let end = end.unwrap_or_else(today);
    let start =
        super::parse_date(&row.start_date).ok_or_else(|| AppError::internal("stored employment dates are invalid"))?;
    if end < start {
        return Ok(Err(Refusal::BeforeStart));
    }
    let mut tx = db.begin_write().await?;
    if let Some(user_id) = row.user_id
        && let Some(activity) = crate::domain::activities::activity_after(&mut tx, user_id, row.company_id, end).await?
    {
        return Ok(Err(Refusal::ActivityAfter(activity)));
    }
    let done = sqlx::query(sql::END)
        .bind(row.id)
        .bind(date_text(end))
        .execute(&mut *tx)
        .await?;
    if done.rows_affected() != 1 {
        return Ok(Err(Refusal::NotActive));
    }
    tell_employee(&mut tx, row, end).await?;
    let ended = find(&mut tx, row.id)
        .await?
        .ok_or_else(|| AppError::internal("employment vanished"))?;
    tx.commit().await?;
    Ok(Ok(ended))
}

/// Queues the `employment_terminated` e-mail to the employee's own address (not the company's
/// to read, even in the sandbox), in the employee's language.
async fn tell_employee(conn: &mut AnyConnection, row: &EmploymentRow, end: NaiveDate) -> AppResult<()> {
    let Some(user_id) = row.user_id else {
        return Ok(());
    };
    let (company,): (String,) = sqlx::query_as(sql::COMPANY_NAME)
        .bind(row.company_id)
        .fetch_one(&mut *conn)
        .await?;
    mails::send_required(conn, user_id, MailType::EmploymentTerminated, |to| {
        notices::employment_terminated(to.lang, &to.name, &company, end)
    })
    .await?;
    Ok(())
}

/// `terminateEmployment`: an admin ends an accepted employment of someone else.
pub async fn terminate(db: &Db, actor: Actor, employment_id: i64, end: Option<NaiveDate>) -> AppResult<EmploymentRow> {
    let row = {
        let mut conn = db.pool.acquire().await?;
        super::lifecycle::for_admin(&mut conn, actor, employment_id).await?
    };
    end_one(db, actor, &row, end)
        .await?
        .map_err(|refusal| refusal.into_error(&row))
}

/// The outcome of one item of a batch.
#[derive(Clone, Debug)]
pub struct Ended {
    pub employment_id: i64,
    /// The refusal's message, `None` on success.
    pub error: Option<&'static str>,
}

/// `batchTerminateEmployments`: the actor must administer the company of every listed
/// employment that exists (AUTHORIZATION_ERROR otherwise, before anything changes); then each item
/// is applied on its own and answered in order.
pub async fn terminate_batch(db: &Db, actor: Actor, items: &[(i64, Option<NaiveDate>)]) -> AppResult<Vec<Ended>> {
    if items.len() > MAX_BATCH {
        return Err(AppError::invalid_inputs(format!(
            "A batch may end at most {MAX_BATCH} employments (received {})",
            items.len()
        )));
    }
    let mut rows = Vec::with_capacity(items.len());
    {
        let mut conn = db.pool.acquire().await?;
        for (id, _) in items {
            rows.push(find(&mut conn, *id).await?);
        }
    }
    let mut companies: Vec<i64> = rows.iter().flatten().map(|r| r.company_id).collect();
    companies.sort_unstable();
    companies.dedup();
    for company in companies {
        permissions::require_admin(db, actor, company).await?;
    }
    let mut outcomes = Vec::with_capacity(items.len());
    for ((id, end), row) in items.iter().zip(rows) {
        let refusal = match row {
            None => Some(Refusal::NotFound),
            Some(row) => end_one(db, actor, &row, *end).await?.err(),
        };
        outcomes.push(Ended {
            employment_id: *id,
            error: refusal.map(Refusal::message),
        });
    }
    Ok(outcomes)
}

/// Termination statements.
pub mod sql {
    crate::statements! {
        /// Ends employment `$1` on `$2`, if it is accepted, not cancelled and not already ended.
        pub const END: &str = "UPDATE employments SET end_date = $2
             WHERE id = $1 AND validation_status = 'approved' AND dismissed_at IS NULL AND end_date IS NULL";
        /// The name of company `$1`.
        pub const COMPANY_NAME: &str = "SELECT usual_name FROM companies WHERE id = $1";
    }
}
