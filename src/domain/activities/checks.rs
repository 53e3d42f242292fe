//! The rules that span rows, checked inside the writing transaction after the write, while the
//! worker's row is locked: no overlapping activities, no interleaved missions.
//!
//! The rules hold across all the worker's companies, so an actor confined to one company (an
//! employment token's) can be refused because of another company's data; the refusal then
//! describes nothing of it (no `conflictingActivity` / `conflictingMission`, no mission id): each
//! check takes the actor's [`Scope`] for that.

use serde_json::json;
use sqlx::AnyConnection;

use crate::domain::auth::Scope;
use crate::errors::{AppError, AppResult, Code};

use super::rules::{self, Span};

/// Writes each rule's search once, for both paths of a write: the statements below (with `$n`
/// values) and the PostgreSQL `WITH` of [`insert`](super::insert), which passes expressions over
/// its own sub-statements instead.
macro_rules! rule_searches {
    (overlap: user $user:literal, other_than $id:literal, start $start:literal, end $end:literal) => {
        ::const_format::concatcp!(
            "SELECT x.id, x.start_time, x.end_time, x.mission_id, x.type AS kind, u.id AS submitter_id, \
               u.first_name, u.last_name, xm.company_id \
             FROM activities x JOIN users u ON u.id = x.submitter_id JOIN missions xm ON xm.id = x.mission_id \
             WHERE x.user_id = ",
            $user,
            " AND x.id <> ",
            $id,
            " AND x.dismissed_at IS NULL \
               AND x.start_time < ",
            $end,
            " AND (x.end_time IS NULL OR x.end_time > ",
            $start,
            ") \
               AND x.start_time >= COALESCE((SELECT MAX(y.start_time) FROM activities y \
                 WHERE y.user_id = ",
            $user,
            " AND y.id <> ",
            $id,
            " AND y.dismissed_at IS NULL \
                   AND y.start_time <= ",
            $start,
            "), ",
            $start,
            ") \
             ORDER BY x.start_time LIMIT 1"
        )
    };
    (interleaving: user $user:literal, mission $mission:literal, start $start:literal, end $end:literal) => {
        ::const_format::concatcp!(
            "SELECT p.mission_id FROM mission_spans p \
             WHERE p.user_id = ",
            $user,
            " AND p.mission_id <> ",
            $mission,
            " \
               AND p.start_time < ",
            $end,
            " AND p.end_time > ",
            $start,
            " \
               AND p.start_time >= COALESCE((SELECT MAX(q.start_time) FROM mission_spans q \
                 WHERE q.user_id = ",
            $user,
            " AND q.mission_id <> ",
            $mission,
            " AND q.start_time <= ",
            $start,
            "), ",
            $start,
            ") \
             ORDER BY p.start_time LIMIT 1"
        )
    };
}
pub(super) use rule_searches;

pub mod sql {
    crate::statements! {
        /// The live activity of worker `$1`, other than `$2`, that shares a minute with
        /// `[$3, $4)` (`$4` is [`OPEN`](crate::domain::activities::rules::OPEN) for an open one),
        /// described for the error. The worker's other live activities do not overlap each
        /// other, so at most one of those starting at or before `$3` can end after it: the
        /// latest. Starting the search there makes it one short range of the index, where
        /// scanning every earlier activity (all of the history, for an open one) made each write
        /// cost with the worker's past.
        pub const OVERLAP: &str = rule_searches!(overlap: user "$1", other_than "$2", start "$3", end "$4");
        /// The first other mission (by start) of worker `$1` whose span meets the worker's span
        /// `[$3, $4)` in mission `$2`; spans may touch. Only the spans that can meet it are read:
        /// the other spans do not overlap each other, so at most one of those ending after `$3`
        /// begins at or before it, and starting from the latest such beginning makes the search
        /// one range of the index, whatever the history.
        pub const INTERLEAVED: &str =
            rule_searches!(interleaving: user "$1", mission "$2", start "$3", end "$4");
    }
}

/// OVERLAPPING_ACTIVITIES when another live activity of the worker shares a minute with
/// `[start, end)`; the conflicting activity is described in `extensions.conflictingActivity`.
pub async fn no_overlap(
    conn: &mut AnyConnection,
    scope: Scope,
    user_id: i64,
    activity_id: i64,
    start: i64,
    end: Option<i64>,
) -> AppResult<()> {
    let conflict: Option<Conflict> = sqlx::query_as(sql::OVERLAP)
        .bind(user_id)
        .bind(activity_id)
        .bind(start)
        .bind(end.unwrap_or(rules::OPEN))
        .fetch_optional(conn)
        .await?;
    match conflict {
        None => Ok(()),
        Some(c) => Err(overlapping_activities(scope, c)),
    }
}

/// OVERLAPPING_ACTIVITIES, describing the conflicting activity unless it lies outside `scope`.
pub(super) fn overlapping_activities(scope: Scope, c: Conflict) -> AppError {
    let error = AppError::new(
        Code::OverlappingActivities,
        "Activity is overlapping with existing ones for the user",
    );
    if !scope.allows(c.company_id) {
        return error;
    }
    error.with(
        "conflictingActivity",
        json!({
            "id": c.id, "startTime": c.start_time, "endTime": c.end_time, "missionId": c.mission_id, "type": c.kind,
            "submitter": { "id": c.submitter_id, "firstName": c.first_name, "lastName": c.last_name },
        }),
    )
}

/// The activity an overlap conflicts with, as the error describes it.
#[derive(sqlx::FromRow)]
pub(super) struct Conflict {
    pub id: i64,
    pub start_time: i64,
    pub end_time: Option<i64>,
    pub mission_id: i64,
    pub kind: String,
    pub submitter_id: i64,
    pub first_name: String,
    pub last_name: String,
    pub company_id: i64,
}

/// OVERLAPPING_MISSIONS when the worker's span in `mission_id` overlaps their span in another
/// mission; the other mission is described in `extensions.conflictingMission`.
pub async fn no_interleaving(conn: &mut AnyConnection, scope: Scope, user_id: i64, mission_id: i64) -> AppResult<()> {
    // The spans were refreshed by the write (see `spans`).
    let own: Option<(i64, i64)> =
        sqlx::query_as("SELECT start_time, end_time FROM mission_spans WHERE user_id = $1 AND mission_id = $2")
            .bind(user_id)
            .bind(mission_id)
            .fetch_optional(&mut *conn)
            .await?;
    let Some((start, end)) = own else {
        return Ok(());
    };
    span_not_interleaved(conn, scope, user_id, Span { mission_id, start, end }).await
}

/// [`no_interleaving`] for the worker's span in a mission, known to the caller (the write that
/// widened it returned it).
pub async fn span_not_interleaved(conn: &mut AnyConnection, scope: Scope, user_id: i64, own: Span) -> AppResult<()> {
    let other: Option<(i64,)> = super::spans::fetch_for_span(&mut *conn, sql::INTERLEAVED, user_id, own).await?;
    let Some((other,)) = other else {
        return Ok(());
    };
    let described: Option<OtherMission> = sqlx::query_as(
        "SELECT m.id, m.name, m.reception_time, u.id AS submitter_id, u.first_name, u.last_name, m.company_id
         FROM missions m JOIN users u ON u.id = m.submitter_id WHERE m.id = $1",
    )
    .bind(other)
    .fetch_optional(conn)
    .await?;
    Err(overlapping_missions(scope, other, described))
}

/// OVERLAPPING_MISSIONS with `other`, described unless it lies outside `scope`.
pub(super) fn overlapping_missions(scope: Scope, other: i64, described: Option<OtherMission>) -> AppError {
    if described.as_ref().is_some_and(|m| !scope.allows(m.company_id)) {
        return AppError::new(
            Code::OverlappingMissions,
            "Mission cannot overlap with another mission of the user.",
        );
    }
    let error = rules::overlapping_missions(other);
    match described {
        None => error,
        Some(m) => error.with(
            "conflictingMission",
            json!({
                "id": m.id, "name": m.name, "receptionTime": m.reception_time,
                "submitter": { "id": m.submitter_id, "firstName": m.first_name, "lastName": m.last_name },
            }),
        ),
    }
}

/// The mission an interleaving conflicts with, as the error describes it.
#[derive(sqlx::FromRow)]
pub(super) struct OtherMission {
    pub id: i64,
    pub name: Option<String>,
    pub reception_time: i64,
    pub submitter_id: i64,
    pub first_name: String,
    pub last_name: String,
    pub company_id: i64,
}
