//! Each worker's span in each mission (first start to last end of their activities that were
//! not cancelled, an open activity ending at [`OPEN`]) and each mission's span over its workers,
//! stored beside the activities and kept by every write that changes them, in its transaction.
//! The missions pages and the interleaving rule read these rows through an index: their cost
//! follows the page or the write, not the length of a worker's history.
//!
//! A worker's span is created with their first activity in the mission and keeps its row: a
//! write that moves only the end (nearly every write) updates the end, which no index holds,
//! so on PostgreSQL the update is heap-only (no new index entry, no dead one left for vacuum;
//! the page reclaims the old version itself). Only a move of the start, which the index of the
//! pages holds, touches the index (migration 0058).

use sqlx::AnyConnection;

use crate::db::sql::Fragment;
use crate::db::{Backend, PerBackend};
use crate::errors::AppResult;

use super::rules::{OPEN, Span};

pub mod sql {
    use super::PerBackend;

    /// What turns inserting a worker's span into widening the one stored (see [`WIDEN_SPAN`]),
    /// returning it when it was created or grew; also used by `activities::insert`.
    pub const WIDEN_CONFLICT: super::Fragment = PerBackend {
        sqlite: "ON CONFLICT (user_id, mission_id) DO UPDATE SET \
             start_time = min(mission_spans.start_time, excluded.start_time), \
             end_time = max(mission_spans.end_time, excluded.end_time) \
             WHERE excluded.start_time < mission_spans.start_time OR excluded.end_time > mission_spans.end_time \
             RETURNING start_time, end_time",
        postgres: "ON CONFLICT (user_id, mission_id) DO UPDATE SET \
             start_time = LEAST(mission_spans.start_time, excluded.start_time), \
             end_time = GREATEST(mission_spans.end_time, excluded.end_time) \
             WHERE excluded.start_time < mission_spans.start_time OR excluded.end_time > mission_spans.end_time \
             RETURNING start_time, end_time",
    };

    crate::statements! {
        /// No row once every activity of the worker in the mission is cancelled.
        pub const DROP_EMPTY_SPAN: &str = "DELETE FROM mission_spans WHERE user_id = $1 AND mission_id = $2 \
             AND NOT EXISTS (SELECT 1 FROM activities a \
                             WHERE a.user_id = $1 AND a.mission_id = $2 AND a.dismissed_at IS NULL)";
        /// The span as the live activities make it, written only where it differs from the
        /// stored one: an update of the same row, not a delete and an insert (which left a dead
        /// row and dead index entries behind on PostgreSQL, whatever changed).
        pub const SET_SPAN: &str = "INSERT INTO mission_spans (user_id, mission_id, start_time, end_time) \
             SELECT user_id, mission_id, MIN(start_time), MAX(COALESCE(end_time, $3)) FROM activities \
             WHERE user_id = $1 AND mission_id = $2 AND dismissed_at IS NULL \
             GROUP BY user_id, mission_id \
             ON CONFLICT (user_id, mission_id) DO UPDATE SET start_time = excluded.start_time, end_time = excluded.end_time \
             WHERE mission_spans.start_time <> excluded.start_time OR mission_spans.end_time <> excluded.end_time";
        /// The worker's span widened to take in `[$3, $4)`, the activity just logged (`$4` is
        /// [`OPEN`] for an open one): a logged activity only adds to the set the span covers,
        /// so the union of the old span and the new activity is the new span, without reading
        /// the worker's other activities (their count grows with the mission). Returns the span
        /// when it was created or grew; no row when the activity lies within it (nothing is
        /// written then: the usual case of a switch inside a running mission).
        pub const WIDEN_SPAN: PerBackend = crate::per_backend!(
            "INSERT INTO mission_spans (user_id, mission_id, start_time, end_time) VALUES ($1, $2, $3, $4) ",
            {WIDEN_CONFLICT}
        );
        /// The mission's span widened the same way ([`WIDEN_SPAN`]; NULL while it had no
        /// activity), after a worker's span that grew.
        pub const WIDEN_MISSION_SPAN: &str = "UPDATE missions SET \
             start_time = CASE WHEN start_time IS NULL OR start_time > $2 THEN $2 ELSE start_time END, \
             end_time = CASE WHEN end_time IS NULL OR end_time < $3 THEN $3 ELSE end_time END WHERE id = $1";
        pub const MISSION_SPAN: &str = "UPDATE missions SET \
             start_time = (SELECT MIN(s.start_time) FROM mission_spans s WHERE s.mission_id = $1), \
             end_time = (SELECT MAX(s.end_time) FROM mission_spans s WHERE s.mission_id = $1) \
             WHERE id = $1";
    }
}

/// Recomputes the worker's span in the mission, and the mission's, from the activities as they
/// now are. Called after every change to an activity's times or cancellation.
pub async fn refresh(conn: &mut AnyConnection, user_id: i64, mission_id: i64) -> AppResult<()> {
    sqlx::query(sql::DROP_EMPTY_SPAN)
        .bind(user_id)
        .bind(mission_id)
        .execute(&mut *conn)
        .await?;
    sqlx::query(sql::SET_SPAN)
        .bind(user_id)
        .bind(mission_id)
        .bind(OPEN)
        .execute(&mut *conn)
        .await?;
    sqlx::query(sql::MISSION_SPAN)
        .bind(mission_id)
        .execute(&mut *conn)
        .await?;
    Ok(())
}

/// [`refresh`] after an activity `[start, end)` was added to the mission for the worker
/// (`end` is `None` for an open one): its span and the mission's only grow, so each is widened
/// to take the activity in, in a cost that does not follow the mission's size. Returns the
/// worker's span as it now is when it was created or grew (the interleaving rule checks it
/// next), `None` when the activity lay within it: then neither span changed, and no mission
/// can have come to overlap it.
pub async fn widen_after_logging(
    conn: &mut AnyConnection,
    user_id: i64,
    mission_id: i64,
    start: i64,
    end: Option<i64>,
) -> AppResult<Option<Span>> {
    let backend = Backend::of(conn);
    let end = end.unwrap_or(OPEN);
    let taken_in = Span { mission_id, start, end };
    let widened: Option<(i64, i64)> =
        fetch_for_span(&mut *conn, backend.sql(sql::WIDEN_SPAN), user_id, taken_in).await?;
    // The mission's span covers the worker's: unchanged too.
    let Some((span_start, span_end)) = widened else {
        return Ok(None);
    };
    sqlx::query(sql::WIDEN_MISSION_SPAN)
        .bind(mission_id)
        .bind(start)
        .bind(end)
        .execute(&mut *conn)
        .await?;
    Ok(Some(Span {
        mission_id,
        start: span_start,
        end: span_end,
    }))
}

/// The row, if any, of `statement`, which takes a worker's span in a mission as `$1`…`$4`
/// (worker, mission, start, end): the widening of the stored span and the search for a mission
/// the span meets bind it the same way, here.
pub(super) async fn fetch_for_span<O>(
    conn: &mut AnyConnection,
    statement: &'static str,
    user_id: i64,
    span: Span,
) -> AppResult<Option<O>>
where
    O: for<'r> sqlx::FromRow<'r, sqlx::any::AnyRow> + Send + Unpin,
{
    Ok(sqlx::query_as(statement)
        .bind(user_id)
        .bind(span.mission_id)
        .bind(span.start)
        .bind(span.end)
        .fetch_optional(conn)
        .await?)
}
