//! Expenditures: the meals and nights away that workers declare on a mission, one of a type per
//! day, inside the days of the mission.
//!
//! A spending date is one of the worker's local dates (in their time zone), the day `workDays`
//! shows it on: the reference takes the dates of the UTC times of the worker's first and last
//! activity, so a worker far from UTC had to declare a meal on a day their `workDays` never show.

use chrono::NaiveDate;
use sqlx::AnyConnection;

use crate::db::{is_unique_violation, now};
use crate::domain::auth::Actor;
use crate::domain::kinds::ExpenditureType;
use crate::domain::missions::permissions;
use crate::domain::regulation::time::local_date;
use crate::errors::{AppError, AppResult, Code};

/// An expenditure as stored.
#[derive(sqlx::FromRow, Debug, Clone)]
pub struct ExpenditureRow {
    pub id: i64,
    pub mission_id: i64,
    pub user_id: i64,
    pub submitter_id: i64,
    #[sqlx(rename = "type")]
    pub kind: String,
    pub spending_date: String,
    pub reception_time: i64,
    pub dismissed_at: Option<i64>,
    pub dismiss_author_id: Option<i64>,
}

/// Expenditure statements.
pub mod sql {
    use crate::db::PerBackend;
    use const_format::concatcp;

    const SELECT: &str = "SELECT e.id, e.mission_id, e.user_id, e.submitter_id, e.type, e.spending_date, \
         e.reception_time, e.dismissed_at, e.dismiss_author_id FROM expenditures e";
    crate::statements! {
        pub const FIND: &str = concatcp!(SELECT, " WHERE e.id = $1");
        /// Every expenditure of the missions (cancelled ones included).
        pub const OF_MISSIONS: PerBackend =
            crate::per_backend!(SELECT, " WHERE ", ["e.mission_id" in 1], " ORDER BY e.spending_date, e.id");
    }
}

async fn find(conn: &mut AnyConnection, id: i64) -> AppResult<Option<ExpenditureRow>> {
    Ok(sqlx::query_as::<_, ExpenditureRow>(sql::FIND)
        .bind(id)
        .fetch_optional(conn)
        .await?)
}

/// What `logExpenditure` receives.
#[derive(Clone, Debug)]
pub struct NewExpenditure {
    pub mission_id: i64,
    pub user_id: Option<i64>,
    pub kind: ExpenditureType,
    pub spending_date: NaiveDate,
    pub creation_time: Option<i64>,
}

/// `logExpenditure`, inside the caller's write transaction.
pub async fn log(conn: &mut AnyConnection, actor: Actor, new: &NewExpenditure) -> AppResult<ExpenditureRow> {
    let for_user = new.user_id.unwrap_or(actor.user_id);
    let access = permissions::writable_on(conn, actor, new.mission_id, for_user, new.spending_date).await?;
    let (enabled,): (i64,) = sqlx::query_as("SELECT require_expenditures FROM companies WHERE id = $1")
        .bind(access.mission.company_id)
        .fetch_one(&mut *conn)
        .await?;
    if enabled != 1 {
        return Err(AppError::authorization(
            "Expenditures have been disabled for this company",
        ));
    }
    // The date must fall within the worker's local days in the mission.
    let span: (Option<i64>, Option<i64>) = sqlx::query_as(
        "SELECT MIN(start_time), MAX(COALESCE(end_time, $3)) FROM activities
         WHERE user_id = $1 AND mission_id = $2 AND dismissed_at IS NULL",
    )
    .bind(for_user)
    .bind(new.mission_id)
    .bind(now())
    .fetch_one(&mut *conn)
    .await?;
    let tz = access.worker_zone;
    let inside = match span {
        (Some(first), Some(last)) => {
            local_date(tz, first) <= new.spending_date && new.spending_date <= local_date(tz, last)
        }
        _ => false,
    };
    if !inside {
        return Err(
            AppError::invalid_inputs("The spending date is not within the days of the user's mission")
                .with("reason", "EXPENDITURE_DATE_NOT_INCLUDED_IN_MISSION_RANGE"),
        );
    }
    let received = now();
    let inserted: Result<(i64,), sqlx::Error> = sqlx::query_as(
        "INSERT INTO expenditures (mission_id, user_id, submitter_id, type, spending_date, reception_time, creation_time)
         VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING id",
    )
    .bind(new.mission_id)
    .bind(for_user)
    .bind(actor.user_id)
    .bind(new.kind.as_str())
    .bind(crate::domain::companies::date_text(new.spending_date))
    .bind(received)
    .bind(new.creation_time.unwrap_or(received))
    .fetch_one(&mut *conn)
    .await;
    let id = match inserted {
        Ok((id,)) => id,
        // The unique index guarantees it even when two requests race.
        Err(e) if is_unique_violation(&e) => {
            return Err(AppError::new(
                Code::DuplicateExpenditures,
                "An expenditure of that type and that date is already logged for the user on the mission",
            ));
        }
        Err(e) => return Err(e.into()),
    };
    find(conn, id)
        .await?
        .ok_or_else(|| AppError::internal("expenditure vanished"))
}

/// The worker of an expenditure, read before the writing transaction to know whom to lock.
pub async fn worker_of(conn: &mut AnyConnection, id: i64) -> AppResult<Option<i64>> {
    let row: Option<(i64,)> = sqlx::query_as("SELECT user_id FROM expenditures WHERE id = $1")
        .bind(id)
        .fetch_optional(conn)
        .await?;
    Ok(row.map(|r| r.0))
}

/// `cancelExpenditure`, inside the caller's write transaction.
pub async fn cancel(conn: &mut AnyConnection, actor: Actor, id: i64) -> AppResult<()> {
    let row = find(conn, id)
        .await?
        .ok_or_else(|| AppError::authorization("Forbidden access"))?;
    let date = crate::domain::companies::parse_date(&row.spending_date).unwrap_or_default();
    permissions::writable_on(conn, actor, row.mission_id, row.user_id, date).await?;
    let done = sqlx::query(
        "UPDATE expenditures SET dismissed_at = $2, dismiss_author_id = $3 WHERE id = $1 AND dismissed_at IS NULL",
    )
    .bind(id)
    .bind(now())
    .bind(actor.user_id)
    .execute(conn)
    .await?;
    if done.rows_affected() != 1 {
        return Err(AppError::invalid_resource("Expenditure already dismissed"));
    }
    Ok(())
}
