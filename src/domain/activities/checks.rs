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
    // The worker's other live activities do not overlap each other, so at most one of those
    // starting at or before `start` can end after it: the latest. Starting the search there
    // makes it one short range of the index, where scanning every earlier activity (all of the
    // history, for an open one) made each write cost with the worker's past.
    let conflict: Option<Conflict> = sqlx::query_as(
        "SELECT a.id, a.start_time, a.end_time, a.mission_id, a.type AS kind, u.id AS submitter_id, u.first_name, u.last_name,
                m.company_id
         FROM activities a JOIN users u ON u.id = a.submitter_id JOIN missions m ON m.id = a.mission_id
         WHERE a.user_id = $1 AND a.id <> $2 AND a.dismissed_at IS NULL
           AND a.start_time < $4 AND (a.end_time IS NULL OR a.end_time > $3)
           AND a.start_time >= COALESCE((SELECT MAX(x.start_time) FROM activities x
                                         WHERE x.user_id = $1 AND x.id <> $2 AND x.dismissed_at IS NULL
                                           AND x.start_time <= $3), $3)
         ORDER BY a.start_time LIMIT 1",
    )
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
    let Span { mission_id, start, end } = own;
    // Only the spans that can meet this one are read: the other spans do not overlap each other,
    // so at most one of those ending after `start` begins at or before it, and starting from the
    // latest such beginning makes the search one range of the index, whatever the history.
    let others: Vec<(i64, i64, i64)> = sqlx::query_as(
        "SELECT mission_id, start_time, end_time FROM mission_spans
         WHERE user_id = $1 AND mission_id <> $2 AND start_time < $4 AND end_time > $3
           AND start_time >= COALESCE((SELECT MAX(x.start_time) FROM mission_spans x
                                       WHERE x.user_id = $1 AND x.mission_id <> $2 AND x.start_time <= $3), $3)",
    )
    .bind(user_id)
    .bind(mission_id)
    .bind(start)
    .bind(end)
    .fetch_all(&mut *conn)
    .await?;
    let mut spans: Vec<Span> = others
        .into_iter()
        .map(|(mission_id, start, end)| Span { mission_id, start, end })
        .collect();
    spans.push(Span { mission_id, start, end });
    let Some(other) = rules::interleaved(&spans, mission_id) else {
        return Ok(());
    };
    let described: Option<OtherMission> = sqlx::query_as(
        "SELECT m.id, m.name, m.reception_time, u.id AS submitter_id, u.first_name, u.last_name, m.company_id
         FROM missions m JOIN users u ON u.id = m.submitter_id WHERE m.id = $1",
    )
    .bind(other.mission_id)
    .fetch_optional(conn)
    .await?;
    Err(overlapping_missions(scope, other.mission_id, described))
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
