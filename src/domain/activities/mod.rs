//! Activities: the working time itself (driving, work, support, transfer), their history, and
//! the rules that keep a worker's time consistent.

pub mod checks;
pub mod disputes;
pub mod insert;
pub mod log;
pub mod rules;
pub mod service;
pub mod spans;
pub mod store;

use chrono::NaiveDate;
use sqlx::AnyConnection;

use crate::db::Db;
use crate::errors::{AppError, AppResult};

/// Refuses to end an employment on `end` while the worker has recorded activity in that company
/// after that day: the recorded time would lose the employment that covers it.
pub async fn ensure_none_after(db: &Db, user_id: i64, company_id: i64, end: NaiveDate) -> AppResult<()> {
    let mut conn = db.pool.acquire().await?;
    match activity_after(&mut conn, user_id, company_id, end).await? {
        None => Ok(()),
        Some(activity_id) => Err(AppError::invalid_inputs(
            "The user has activities after the requested end date of the employment",
        )
        .with("reason", "ACTIVITY_EXIST_AFTER_EMPLOYMENT_END_DATE")
        .with("activityId", activity_id)),
    }
}

/// An activity (not cancelled) of the worker in the company that starts after `end`, or is still
/// running or ends after it: what forbids ending an employment on `end`. `end` is one of the
/// worker's local dates: it ends at the worker's local midnight (the reference's ends at UTC
/// midnight).
pub async fn activity_after(
    conn: &mut AnyConnection,
    user_id: i64,
    company_id: i64,
    end: NaiveDate,
) -> AppResult<Option<i64>> {
    let tz = crate::domain::alerts::load::zone(conn, user_id).await?;
    let next_day = crate::domain::regulation::time::day_end(tz, end);
    let row: Option<(i64,)> = sqlx::query_as(
        "SELECT a.id FROM activities a JOIN missions m ON m.id = a.mission_id
         WHERE a.user_id = $1 AND m.company_id = $2 AND a.dismissed_at IS NULL
           AND (a.start_time >= $3 OR a.end_time IS NULL OR a.end_time > $3) LIMIT 1",
    )
    .bind(user_id)
    .bind(company_id)
    .bind(next_day)
    .fetch_optional(conn)
    .await?;
    Ok(row.map(|r| r.0))
}
