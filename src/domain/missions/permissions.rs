//! Who may read and write a mission (reference §3.4 and §3.6).
//!
//! Writing follows the reference's steps, first failure wins: the mission exists; the actor is a
//! company admin, its submitter or a participant; the worker concerned has an accepted
//! employment covering the period and today; a non-admin acting for someone else is the mission
//! submitter with team mode on (or that worker is already in the mission); validations lock the
//! mission for non-admins. The locks answer INVALID_RESOURCE with the reference's finer reason;
//! the others AUTHORIZATION_ERROR. A mission of a company outside the request's scope (an
//! employment token's) is forbidden like an unknown one.

use sqlx::AnyConnection;

use crate::domain::auth::scope;
use crate::domain::companies::{date_text, today};
use crate::errors::{AppError, AppResult};

use super::date_of;
use super::store::MissionRow;

mod sql {
    use const_format::concatcp;

    /// An accepted, not dismissed employment of `$1` in company `$2` starting on or before the
    /// date that follows.
    const EMPLOYED_FROM: &str = "SELECT 1 FROM employments WHERE user_id = $1 AND company_id = $2 \
         AND validation_status = 'approved' AND dismissed_at IS NULL AND start_date <= ";

    crate::statements! {
        /// An accepted employment of `$1` in company `$2` covering `$3` to `$4`.
        pub const EMPLOYED_OVER: &str =
            concatcp!(EMPLOYED_FROM, "$3 AND (end_date IS NULL OR end_date >= $4) LIMIT 1");
        /// The same as [`EMPLOYED_OVER`], and covering `$5` (today), each 0 or 1.
        pub const EMPLOYED_OVER_AND_TODAY: &str = concatcp!(
            "SELECT CAST(CASE WHEN EXISTS (",
            EMPLOYED_FROM,
            "$3 AND (end_date IS NULL OR end_date >= $4)) THEN 1 ELSE 0 END AS BIGINT), \
             CAST(CASE WHEN EXISTS (",
            EMPLOYED_FROM,
            "$5 AND (end_date IS NULL OR end_date >= $5)) THEN 1 ELSE 0 END AS BIGINT)"
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

/// AUTHORIZATION_ERROR unless the mission belongs to the request's company (when the request is
/// confined to one): for the operations whose own rule is authorship (a comment, a dispute).
pub async fn in_scope(conn: &mut AnyConnection, mission_id: i64) -> AppResult<()> {
    if scope::current().is_none() {
        return Ok(());
    }
    let mission = super::store::find(conn, mission_id).await?.ok_or_else(forbidden)?;
    scope::require(mission.company_id)
}

/// Reading a mission: company admin, submitter or participant. Unknown ids look forbidden.
pub async fn readable(conn: &mut AnyConnection, actor: i64, mission_id: i64) -> AppResult<MissionRow> {
    let mission = super::store::find(conn, mission_id).await?.ok_or_else(forbidden)?;
    scope::require(mission.company_id)?;
    if mission.submitter_id == actor
        || participates(conn, actor, mission_id).await?
        || is_admin(conn, actor, mission.company_id).await?
    {
        Ok(mission)
    } else {
        Err(forbidden())
    }
}

/// Accepted employment of `user_id` in the company covering the dates from `first` to `last`.
async fn employed_over(
    conn: &mut AnyConnection,
    user_id: i64,
    company_id: i64,
    first: &str,
    last: &str,
) -> AppResult<bool> {
    if !scope::allows(company_id) {
        return Ok(false);
    }
    let row: Option<(i64,)> = sqlx::query_as(sql::EMPLOYED_OVER)
        .bind(user_id)
        .bind(company_id)
        .bind(first)
        .bind(last)
        .fetch_optional(conn)
        .await?;
    Ok(row.is_some())
}

/// Whether `user_id` has an accepted employment in the company covering the dates from `first`
/// to `last`, and one covering today: the two conditions of [`writable`] in one round trip.
async fn employed_over_and_today(
    conn: &mut AnyConnection,
    user_id: i64,
    company_id: i64,
    first: &str,
    last: &str,
) -> AppResult<(bool, bool)> {
    if !scope::allows(company_id) {
        return Ok((false, false));
    }
    let (over_period, still_today): (i64, i64) = sqlx::query_as(sql::EMPLOYED_OVER_AND_TODAY)
        .bind(user_id)
        .bind(company_id)
        .bind(first)
        .bind(last)
        .bind(date_text(today()))
        .fetch_one(conn)
        .await?;
    Ok((over_period == 1, still_today == 1))
}

/// The outcome of a successful write check.
pub struct WriteAccess {
    pub mission: MissionRow,
    pub actor_is_admin: bool,
}

/// Checks that `actor` may write the data of `for_user` in the mission over `[start, end]`
/// (Unix seconds; `end` defaults to `start`).
pub async fn writable(
    conn: &mut AnyConnection,
    actor: i64,
    mission_id: i64,
    for_user: i64,
    start: i64,
    end: Option<i64>,
) -> AppResult<WriteAccess> {
    // 1–2. The mission exists, and the actor is an admin, its submitter or a participant.
    let mission = super::store::find(conn, mission_id).await?.ok_or_else(forbidden)?;
    scope::require(mission.company_id)?;
    let actor_is_admin = is_admin(conn, actor, mission.company_id).await?;
    if !(actor_is_admin || mission.submitter_id == actor || participates(conn, actor, mission_id).await?) {
        return Err(forbidden());
    }
    let side = if for_user == actor { "EMPLOYEE" } else { "ADMIN" };
    // 3. The worker is employed over the period, 3bis. and still today (one read for both).
    let first = date_text(date_of(start));
    let last = date_text(date_of(end.unwrap_or(start).max(start)));
    let (over_period, still_today) = employed_over_and_today(conn, for_user, mission.company_id, &first, &last).await?;
    if !over_period {
        return Err(
            AppError::authorization("The user has no accepted employment in the company over this period")
                .with("reason", format!("ACTIVITY_OUTSIDE_EMPLOYMENT_{side}")),
        );
    }
    if !still_today {
        return Err(AppError::authorization("The user is no longer employed by the company")
            .with("reason", format!("USER_NOT_EMPLOYED_BY_COMPANY_ANYMORE_{side}")));
    }
    // 4. Team mode: a non-admin acts for someone else only as the mission's submitter.
    if for_user != actor && !actor_is_admin {
        let team_mode: (i64,) = sqlx::query_as("SELECT allow_team_mode FROM companies WHERE id = $1")
            .bind(mission.company_id)
            .fetch_one(&mut *conn)
            .await?;
        let allowed =
            mission.submitter_id == actor && (team_mode.0 == 1 || participates(conn, for_user, mission_id).await?);
        if !allowed {
            return Err(AppError::authorization(
                "Actor is not authorized to perform the operation for this user",
            ));
        }
    }
    // 5–7. Validation locks, for non-admins.
    if !actor_is_admin {
        ensure_unlocked(conn, mission_id, for_user, actor).await?;
    }
    Ok(WriteAccess {
        mission,
        actor_is_admin,
    })
}

/// A non-admin cannot change a mission validated by an admin, automatically, or by the worker.
async fn ensure_unlocked(conn: &mut AnyConnection, mission_id: i64, for_user: i64, actor: i64) -> AppResult<()> {
    let rows: Vec<(i64, i64, Option<i64>, Option<i64>)> = sqlx::query_as(
        "SELECT is_admin, is_auto, user_id, submitter_id FROM mission_validations WHERE mission_id = $1",
    )
    .bind(mission_id)
    .fetch_all(conn)
    .await?;
    // The strongest lock is reported: admin, then automatic, then the worker's own validation.
    let concerns = |user_id: Option<i64>| user_id.is_none() || user_id == Some(for_user);
    if rows
        .iter()
        .any(|(admin, auto, user, _)| *admin == 1 && *auto == 0 && concerns(*user))
    {
        return Err(
            AppError::invalid_resource("The mission was validated by an admin and can no longer be changed")
                .with("reason", "MISSION_ALREADY_VALIDATED_BY_ADMIN"),
        );
    }
    if rows.iter().any(|(_, auto, user, _)| *auto == 1 && concerns(*user)) {
        return Err(
            AppError::invalid_resource("The mission was validated automatically and can no longer be changed")
                .with("reason", "MISSION_ALREADY_AUTO_VALIDATED"),
        );
    }
    let by_worker = |(admin, _, user, submitter): &(i64, i64, Option<i64>, Option<i64>)| {
        *admin == 0 && user.is_some_and(|u| u == for_user || u == actor) && submitter == user
    };
    if rows.iter().any(by_worker) {
        return Err(
            AppError::invalid_resource("The mission was validated by the worker and can no longer be changed")
                .with("reason", "MISSION_ALREADY_VALIDATED_BY_USER"),
        );
    }
    Ok(())
}

/// `createMission`: an accepted employment in the company today.
pub async fn can_create(conn: &mut AnyConnection, actor: i64, company_id: i64) -> AppResult<()> {
    let today = date_text(today());
    if employed_over(conn, actor, company_id, &today, &today).await? {
        Ok(())
    } else {
        Err(AppError::authorization(
            "Actor is not authorized to create a mission for the company",
        ))
    }
}
