//! Recording, correcting and cancelling activities. Each function runs inside the caller's
//! write transaction, in which the worker's user row is locked first (see [`crate::domain::workers`]), so the
//! cross-row checks that follow every write cannot be raced.

use sqlx::AnyConnection;

use crate::db::now;
use crate::domain::auth::Actor;
use crate::domain::kinds::ActivityType;
use crate::domain::missions::permissions::WriteAccess;
use crate::domain::missions::{auto_validation, permissions};
use crate::errors::{AppError, AppResult, Code};

use super::insert::{self, Insert};
use super::rules::{not_in_future, positive_duration, to_minute};
use super::store::{self, ActivityRow, add_version};
use super::{checks, spans};

fn forbidden() -> AppError {
    AppError::authorization("Forbidden access")
}

/// What `logActivity` receives.
#[derive(Clone, Debug)]
pub struct NewActivity {
    pub mission_id: i64,
    pub user_id: Option<i64>,
    pub kind: ActivityType,
    pub start: i64,
    pub end: Option<i64>,
    pub switch: bool,
    pub context: Option<serde_json::Value>,
    pub creation_time: Option<i64>,
}

/// `logActivity`. In switch mode (the default) the worker's current activity in the mission is
/// closed at the new start; logging the type already running changes nothing.
/// `owner_only`: as a mutation of its own, only the worker or the mission's submitter logs; a
/// correction inside `validateMission` only needs the mission-level write access.
pub async fn log(
    conn: &mut AnyConnection,
    actor: Actor,
    new: &NewActivity,
    owner_only: bool,
) -> AppResult<ActivityRow> {
    let received = now();
    let start = to_minute(new.start);
    let end = new.end.map(to_minute);
    if new.switch && end.is_some() {
        return Err(AppError::invalid_inputs(
            "Specifying an end time is not authorized in switch mode",
        ));
    }
    not_in_future(start, received, "Start")?;
    if let Some(end) = end {
        not_in_future(end, received, "End")?;
    }
    positive_duration(start, end)?;
    let for_user = new.user_id.unwrap_or(actor.user_id);
    let access = permissions::writable(conn, actor, new.mission_id, for_user, start, end).await?;
    if owner_only && for_user != actor.user_id && access.mission.submitter_id != actor.user_id {
        return Err(AppError::authorization("Actor is not authorized to log in the mission"));
    }
    holiday_rules(&access, new.kind)?;
    let first_in_mission = !access.worker_participates;
    if new.switch {
        let current = sqlx::query_as::<_, ActivityRow>(store::sql::CURRENT)
            .bind(for_user)
            .bind(new.mission_id)
            .bind(start)
            .fetch_optional(&mut *conn)
            .await?;
        if let Some(current) = current {
            if current.end_time.is_some() {
                return Err(AppError::new(
                    Code::InvalidActivitySwitch,
                    "Invalid time for switch mode because there is a current activity with an end time",
                )
                .with("currentActivityId", current.id));
            }
            if current.kind == new.kind.as_str() {
                return Ok(current);
            }
            if current.start_time == start {
                return Err(AppError::invalid_inputs(
                    "The current activity started at this very minute: edit its type by cancelling it instead",
                )
                .with("reason", "EMPTY_ACTIVITY_DURATION"));
            }
            sqlx::query(
                "UPDATE activities SET end_time = $2, last_update_time = $3, last_submitter_id = $4 WHERE id = $1",
            )
            .bind(current.id)
            .bind(start)
            .bind(received)
            .bind(actor.user_id)
            .execute(&mut *conn)
            .await?;
            add_version(conn, current.id, actor.user_id, new.context.as_ref(), new.creation_time).await?;
            if current.mission_id != new.mission_id {
                spans::refresh(conn, for_user, current.mission_id).await?;
            }
        }
    }
    let logged = insert::insert(
        conn,
        Insert {
            mission_id: new.mission_id,
            user_id: for_user,
            actor,
            kind: new.kind,
            received,
            creation_time: new.creation_time,
            start,
            end,
            context: new.context.as_ref(),
        },
    )
    .await?;
    // The worker's first activity in the mission starts the wait for its automatic validation
    // (in the admins' queue when an admin recorded it); a holiday is validated at once.
    if first_in_mission && new.kind != ActivityType::Off {
        auto_validation::queue::enqueue(conn, new.mission_id, for_user, access.actor_is_admin, received).await?;
    }
    Ok(logged)
}

/// The reference's holiday rules: a holiday mission (one holding an `off` activity) takes no
/// other activity, and an `off` activity starts a mission of its own.
fn holiday_rules(access: &WriteAccess, kind: ActivityType) -> AppResult<()> {
    if kind == ActivityType::Off && access.mission_has_activities {
        return Err(
            AppError::invalid_inputs("A holiday is logged in a mission of its own, and this one is not empty")
                .with("reason", "LOG_HOLIDAY_IN_MISSION_NOT_EMPTY"),
        );
    }
    if kind != ActivityType::Off && access.mission_is_holiday {
        return Err(
            AppError::invalid_inputs("This mission is a holiday: no other activity can be logged in it")
                .with("reason", "LOG_ACTIVITY_IN_HOLIDAY_MISSION"),
        );
    }
    Ok(())
}

/// What `editActivity` receives.
#[derive(Clone, Debug, Default)]
pub struct ActivityEdit {
    pub activity_id: i64,
    pub start: Option<i64>,
    pub end: Option<i64>,
    pub remove_end: bool,
    pub context: Option<serde_json::Value>,
    pub creation_time: Option<i64>,
}

/// An activity that may be changed: by its submitter or its worker when `owner_only` (an unknown
/// id looks forbidden).
async fn own_activity(
    conn: &mut AnyConnection,
    actor: Actor,
    activity_id: i64,
    owner_only: bool,
) -> AppResult<ActivityRow> {
    let activity = store::find(conn, activity_id).await?.ok_or_else(forbidden)?;
    if owner_only && actor.user_id != activity.submitter_id && actor.user_id != activity.user_id {
        return Err(AppError::authorization("Actor is not authorized to edit the activity"));
    }
    if activity.dismissed_at.is_some() {
        return Err(AppError::invalid_resource("Activity already dismissed."));
    }
    Ok(activity)
}

/// The worker of an activity, read before the writing transaction to know whom to lock.
pub async fn worker_of(conn: &mut AnyConnection, activity_id: i64) -> AppResult<Option<i64>> {
    let row: Option<(i64,)> = sqlx::query_as("SELECT user_id FROM activities WHERE id = $1")
        .bind(activity_id)
        .fetch_optional(conn)
        .await?;
    Ok(row.map(|r| r.0))
}

/// `editActivity`: new times, one more version.
pub async fn edit(
    conn: &mut AnyConnection,
    actor: Actor,
    edit: &ActivityEdit,
    owner_only: bool,
) -> AppResult<ActivityRow> {
    if edit.start.is_none() && edit.end.is_none() && !edit.remove_end {
        return Err(AppError::invalid_inputs(
            "At least one of startTime or endTime or removeEndTime should be set",
        ));
    }
    if edit.end.is_some() && edit.remove_end {
        return Err(AppError::invalid_inputs(
            "Either endTime or removeEndTime should be set but not both",
        ));
    }
    let activity = own_activity(conn, actor, edit.activity_id, owner_only).await?;
    let received = now();
    let start = edit.start.map(to_minute).unwrap_or(activity.start_time);
    let end = if edit.remove_end {
        None
    } else {
        edit.end.map(to_minute).or(activity.end_time)
    };
    if edit.start.is_some() {
        not_in_future(start, received, "Start")?;
    }
    if let (Some(end), Some(_)) = (end, edit.end) {
        not_in_future(end, received, "End")?;
    }
    positive_duration(start, end)?;
    let first = start.min(activity.start_time);
    let last = end.unwrap_or(received).max(activity.end_time.unwrap_or(received));
    permissions::writable(conn, actor, activity.mission_id, activity.user_id, first, Some(last)).await?;
    if start == activity.start_time && end == activity.end_time {
        return Ok(activity);
    }
    sqlx::query(
        "UPDATE activities SET start_time = $2, end_time = $3, last_update_time = $4, last_submitter_id = $5 WHERE id = $1",
    )
    .bind(activity.id)
    .bind(start)
    .bind(end)
    .bind(received)
    .bind(actor.user_id)
    .execute(&mut *conn)
    .await?;
    add_version(
        conn,
        activity.id,
        actor.user_id,
        edit.context.as_ref(),
        edit.creation_time,
    )
    .await?;
    if end.is_none() {
        insert::reopen(conn, activity.mission_id, activity.user_id).await?;
    }
    spans::refresh(conn, activity.user_id, activity.mission_id).await?;
    checks::no_overlap(conn, actor.scope, activity.user_id, activity.id, start, end).await?;
    checks::no_interleaving(conn, actor.scope, activity.user_id, activity.mission_id).await?;
    store::find(conn, activity.id)
        .await?
        .ok_or_else(|| AppError::internal("activity vanished"))
}

/// `cancelActivity`: a soft delete, kept in the history.
pub async fn cancel(
    conn: &mut AnyConnection,
    actor: Actor,
    activity_id: i64,
    context: Option<&serde_json::Value>,
    owner_only: bool,
) -> AppResult<()> {
    let activity = own_activity(conn, actor, activity_id, owner_only).await?;
    permissions::writable(
        conn,
        actor,
        activity.mission_id,
        activity.user_id,
        activity.start_time,
        activity.end_time,
    )
    .await?;
    dismiss(conn, actor, activity.id, context).await
}

/// Marks an activity cancelled; INVALID_RESOURCE when it already is.
pub async fn dismiss(
    conn: &mut AnyConnection,
    actor: Actor,
    activity_id: i64,
    context: Option<&serde_json::Value>,
) -> AppResult<()> {
    let received = now();
    let done: Option<(i64, i64)> = sqlx::query_as(
        "UPDATE activities SET dismissed_at = $2, dismiss_author_id = $3, dismiss_context = $4, last_update_time = $2
         WHERE id = $1 AND dismissed_at IS NULL RETURNING user_id, mission_id",
    )
    .bind(activity_id)
    .bind(received)
    .bind(actor.user_id)
    .bind(context.map(|c| c.to_string()))
    .fetch_optional(&mut *conn)
    .await?;
    let Some((user_id, mission_id)) = done else {
        return Err(AppError::invalid_resource("Activity already dismissed."));
    };
    spans::refresh(conn, user_id, mission_id).await
}
