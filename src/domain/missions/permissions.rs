//! Who may read and write a mission.
//!
//! Writing follows the reference's steps, first failure wins: the mission exists; the actor is a
//! company admin, its submitter or a participant; the worker concerned has an accepted
//! employment covering the period and today; a non-admin acting for someone else is the mission
//! submitter with team mode on (or that worker is already in the mission); validations lock the
//! mission for non-admins. The locks answer INVALID_RESOURCE with the reference's finer reason;
//! the others AUTHORIZATION_ERROR. A mission of a company outside the request's scope (an
//! employment token's) is forbidden like an unknown one.
//!
//! Employment dates are the worker's local dates: the period written and "today" are read in the
//! worker's zone before they are compared with an employment's start and end (the reference
//! compares the dates of the UTC times, so a worker far from UTC could not log the first hours of
//! their first day, or could log the evening before it). The actor's admin rights stay checked
//! against today's UTC date, as everywhere else in the companies' permissions.

use chrono::NaiveDate;
use sqlx::AnyConnection;

use crate::db::now;
use crate::domain::auth::{Actor, Scope};
use crate::domain::companies::{date_text, today};
use crate::domain::regulation::time::local_date;
use crate::errors::{AppError, AppResult};

use super::store::MissionRow;

mod sql {
    use const_format::concatcp;

    use crate::domain::companies::permissions::sql::admin_on;

    /// An accepted, not dismissed employment of `$user` in company `$company` (parameters or
    /// columns of the enclosing statement) starting on or before the date that follows.
    macro_rules! employed_from {
        ($user:literal, $company:literal) => {
            concatcp!(
                "SELECT 1 FROM employments WHERE user_id = ",
                $user,
                " AND company_id = ",
                $company,
                " AND validation_status = 'approved' AND dismissed_at IS NULL AND start_date <= "
            )
        };
    }

    /// `1` when the subquery that follows finds a row, else `0` (the same type on both
    /// databases); closed by [`FLAG_END`].
    const FLAG: &str = "CAST(CASE WHEN EXISTS (";
    const FLAG_END: &str = ") THEN 1 ELSE 0 END AS BIGINT)";
    /// A validation of mission `m` that concerns worker `$3` (theirs, or the whole mission's).
    const VALIDATION_OF_WORKER: &str = "SELECT 1 FROM mission_validations v WHERE v.mission_id = m.id \
         AND (v.user_id IS NULL OR v.user_id = $3)";

    crate::statements! {
        /// An accepted employment of `$1` in company `$2` covering `$3` to `$4`.
        pub const EMPLOYED_OVER: &str =
            concatcp!(employed_from!("$1", "$2"), "$3 AND (end_date IS NULL OR end_date >= $4) LIMIT 1");
        /// Everything [`super::writable`] decides on, in one round trip (it was up to seven:
        /// the mission, the actor's admin rights, their participation, the employment over the
        /// period and today, the team mode, the validations), with the mission's holiday state
        /// and the worker's participation that `logActivity` needs next. Mission `$1`, actor
        /// `$2`, worker `$3`, period `$4` to `$5` and the worker's today `$7` (the worker's local
        /// dates), today `$6` (UTC, for the actor's admin rights); no row for an unknown mission.
        pub const WRITE_CONTEXT: &str = concatcp!(
            "SELECT ",
            crate::domain::missions::store::sql::COLUMNS,
            ", c.allow_team_mode, ",
            FLAG, admin_on!("m.company_id", "$6", "$2"), FLAG_END, " AS actor_is_admin, ",
            FLAG, "SELECT 1 FROM activities a WHERE a.user_id = $2 AND a.mission_id = m.id", FLAG_END,
            " AS actor_participates, ",
            FLAG, "SELECT 1 FROM activities a WHERE a.user_id = $3 AND a.mission_id = m.id", FLAG_END,
            " AS worker_participates, ",
            FLAG, employed_from!("$3", "m.company_id"), "$4 AND (end_date IS NULL OR end_date >= $5)", FLAG_END,
            " AS employed_over_period, ",
            FLAG, employed_from!("$3", "m.company_id"), "$7 AND (end_date IS NULL OR end_date >= $7)", FLAG_END,
            " AS employed_today, ",
            FLAG, VALIDATION_OF_WORKER, " AND v.is_admin = 1 AND v.is_auto = 0", FLAG_END, " AS locked_by_admin, ",
            FLAG, VALIDATION_OF_WORKER, " AND v.is_auto = 1", FLAG_END, " AS locked_automatically, ",
            FLAG, "SELECT 1 FROM mission_validations v WHERE v.mission_id = m.id AND v.is_admin = 0 \
               AND v.user_id IN ($3, $2) AND v.submitter_id = v.user_id", FLAG_END, " AS locked_by_worker, ",
            FLAG, "SELECT 1 FROM activities a WHERE a.mission_id = m.id", FLAG_END, " AS has_activities, ",
            FLAG, "SELECT 1 FROM activities a WHERE a.mission_id = m.id AND a.type = 'off'", FLAG_END,
            " AS is_holiday FROM missions m JOIN companies c ON c.id = m.company_id WHERE m.id = $1"
        );
    }
}

fn forbidden() -> AppError {
    AppError::authorization("Forbidden access")
}

pub use crate::domain::companies::permissions::is_admin_on as is_admin;

/// Whether the user has an activity (even cancelled) in the mission.
pub async fn participates(conn: &mut AnyConnection, user_id: i64, mission_id: i64) -> AppResult<bool> {
    let row: Option<(i64,)> = sqlx::query_as("SELECT 1 FROM activities WHERE user_id = $1 AND mission_id = $2 LIMIT 1")
        .bind(user_id)
        .bind(mission_id)
        .fetch_optional(conn)
        .await?;
    Ok(row.is_some())
}

/// AUTHORIZATION_ERROR unless the mission belongs to the company of `scope` (when it is confined
/// to one): for the operations whose own rule is authorship (a comment, a dispute).
pub async fn in_scope(conn: &mut AnyConnection, scope: Scope, mission_id: i64) -> AppResult<()> {
    if scope.company().is_none() {
        return Ok(());
    }
    let mission = super::store::find(conn, mission_id).await?.ok_or_else(forbidden)?;
    scope.require(mission.company_id)
}

/// Reading a mission: company admin, submitter or participant. Unknown ids look forbidden.
pub async fn readable(conn: &mut AnyConnection, actor: Actor, mission_id: i64) -> AppResult<MissionRow> {
    let mission = super::store::find(conn, mission_id).await?.ok_or_else(forbidden)?;
    actor.scope.require(mission.company_id)?;
    if mission.submitter_id == actor.user_id
        || participates(conn, actor.user_id, mission_id).await?
        || is_admin(conn, actor, mission.company_id).await?
    {
        Ok(mission)
    } else {
        Err(forbidden())
    }
}

/// Accepted employment of the actor in the company covering the dates from `first` to `last`.
async fn employed_over(
    conn: &mut AnyConnection,
    actor: Actor,
    company_id: i64,
    first: &str,
    last: &str,
) -> AppResult<bool> {
    if !actor.scope.allows(company_id) {
        return Ok(false);
    }
    let row: Option<(i64,)> = sqlx::query_as(sql::EMPLOYED_OVER)
        .bind(actor.user_id)
        .bind(company_id)
        .bind(first)
        .bind(last)
        .fetch_optional(conn)
        .await?;
    Ok(row.is_some())
}

/// What [`sql::WRITE_CONTEXT`] reads: the mission and a flag (0 or 1) per condition.
#[derive(sqlx::FromRow)]
struct WriteContext {
    #[sqlx(flatten)]
    mission: MissionRow,
    allow_team_mode: i64,
    actor_is_admin: i64,
    actor_participates: i64,
    worker_participates: i64,
    employed_over_period: i64,
    employed_today: i64,
    locked_by_admin: i64,
    locked_automatically: i64,
    locked_by_worker: i64,
    has_activities: i64,
    is_holiday: i64,
}

/// The outcome of a successful write check.
pub struct WriteAccess {
    pub mission: MissionRow,
    pub actor_is_admin: bool,
    /// The worker written for has an activity in the mission (even cancelled).
    pub worker_participates: bool,
    /// The mission holds an activity (even cancelled).
    pub mission_has_activities: bool,
    /// The mission holds an `off` activity: it is a holiday.
    pub mission_is_holiday: bool,
    /// The zone of the worker written for, whose local dates the write is checked against.
    pub worker_zone: chrono_tz::Tz,
}

/// What a write covers, in the worker's days.
#[derive(Clone, Copy, Debug)]
enum Covered {
    /// From one instant to another (Unix seconds): the local dates of both, in the worker's zone.
    Span(i64, i64),
    /// One of the worker's local dates (an expenditure's spending date).
    Date(NaiveDate),
}

/// The zone of the worker written for, read in the caller's transaction (the reference's default,
/// `Europe/Paris`, for an unknown user: the mission checks refuse them next).
async fn worker_zone(conn: &mut AnyConnection, user_id: i64) -> AppResult<chrono_tz::Tz> {
    crate::domain::alerts::load::zone(conn, user_id).await
}

/// Checks that `actor` may write the data of `for_user` in the mission over `[start, end]`
/// (Unix seconds; `end` defaults to `start`), the employment over the worker's local dates of
/// both. One read of the worker's zone, one of [`sql::WRITE_CONTEXT`]; the steps are then decided
/// in the reference's order, first failure wins.
pub async fn writable(
    conn: &mut AnyConnection,
    actor: Actor,
    mission_id: i64,
    for_user: i64,
    start: i64,
    end: Option<i64>,
) -> AppResult<WriteAccess> {
    let end = end.unwrap_or(start).max(start);
    check(conn, actor, mission_id, for_user, Covered::Span(start, end)).await
}

/// [`writable`] for a write that concerns one of the worker's local dates (an expenditure):
/// the employment must cover that date.
pub async fn writable_on(
    conn: &mut AnyConnection,
    actor: Actor,
    mission_id: i64,
    for_user: i64,
    date: NaiveDate,
) -> AppResult<WriteAccess> {
    check(conn, actor, mission_id, for_user, Covered::Date(date)).await
}

/// The write check of [`writable`] and [`writable_on`], once the covered dates are known.
async fn check(
    conn: &mut AnyConnection,
    actor: Actor,
    mission_id: i64,
    for_user: i64,
    covered: Covered,
) -> AppResult<WriteAccess> {
    let tz = worker_zone(conn, for_user).await?;
    let (first, last) = match covered {
        Covered::Span(start, end) => (local_date(tz, start), local_date(tz, end)),
        Covered::Date(date) => (date, date),
    };
    let context: Option<WriteContext> = sqlx::query_as(sql::WRITE_CONTEXT)
        .bind(mission_id)
        .bind(actor.user_id)
        .bind(for_user)
        .bind(date_text(first))
        .bind(date_text(last))
        .bind(date_text(today()))
        .bind(date_text(local_date(tz, now())))
        .fetch_optional(&mut *conn)
        .await?;
    // 1–2. The mission exists, and the actor is an admin, its submitter or a participant.
    let context = context.ok_or_else(forbidden)?;
    let mission = context.mission;
    actor.scope.require(mission.company_id)?;
    let actor_is_admin = context.actor_is_admin == 1;
    if !(actor_is_admin || mission.submitter_id == actor.user_id || context.actor_participates == 1) {
        return Err(forbidden());
    }
    let side = if for_user == actor.user_id { "EMPLOYEE" } else { "ADMIN" };
    // 3. The worker is employed over the period, 3bis. and still today.
    if context.employed_over_period == 0 {
        return Err(
            AppError::authorization("The user has no accepted employment in the company over this period")
                .with("reason", format!("ACTIVITY_OUTSIDE_EMPLOYMENT_{side}")),
        );
    }
    if context.employed_today == 0 {
        return Err(AppError::authorization("The user is no longer employed by the company")
            .with("reason", format!("USER_NOT_EMPLOYED_BY_COMPANY_ANYMORE_{side}")));
    }
    // 4. Team mode: a non-admin acts for someone else only as the mission's submitter.
    if for_user != actor.user_id && !actor_is_admin {
        let allowed =
            mission.submitter_id == actor.user_id && (context.allow_team_mode == 1 || context.worker_participates == 1);
        if !allowed {
            return Err(AppError::authorization(
                "Actor is not authorized to perform the operation for this user",
            ));
        }
    }
    // 5–7. Validation locks, for non-admins; the strongest is reported: admin, then automatic,
    // then the worker's own validation.
    if !actor_is_admin {
        if context.locked_by_admin == 1 {
            return Err(AppError::invalid_resource(
                "The mission was validated by an admin and can no longer be changed",
            )
            .with("reason", "MISSION_ALREADY_VALIDATED_BY_ADMIN"));
        }
        if context.locked_automatically == 1 {
            return Err(AppError::invalid_resource(
                "The mission was validated automatically and can no longer be changed",
            )
            .with("reason", "MISSION_ALREADY_AUTO_VALIDATED"));
        }
        if context.locked_by_worker == 1 {
            return Err(AppError::invalid_resource(
                "The mission was validated by the worker and can no longer be changed",
            )
            .with("reason", "MISSION_ALREADY_VALIDATED_BY_USER"));
        }
    }
    Ok(WriteAccess {
        mission,
        actor_is_admin,
        worker_participates: context.worker_participates == 1,
        mission_has_activities: context.has_activities == 1,
        mission_is_holiday: context.is_holiday == 1,
        worker_zone: tz,
    })
}

/// `createMission`: an accepted employment in the company on the actor's local today.
pub async fn can_create(conn: &mut AnyConnection, actor: Actor, company_id: i64) -> AppResult<()> {
    let today = date_text(local_date(worker_zone(conn, actor.user_id).await?, now()));
    if employed_over(conn, actor, company_id, &today, &today).await? {
        Ok(())
    } else {
        Err(AppError::authorization(
            "Actor is not authorized to create a mission for the company",
        ))
    }
}
