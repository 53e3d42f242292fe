//! Each worker's span in each mission (first start to last end of their activities that were
//! not cancelled, an open activity ending at [`OPEN`]) and each mission's span over its workers,
//! stored beside the activities and kept by every write that changes them, in its transaction.
//! The missions pages and the interleaving rule read these rows through an index: their cost
//! follows the page or the write, not the length of a worker's history.

use sqlx::AnyConnection;

use crate::errors::AppResult;

use super::rules::OPEN;

pub mod sql {
    crate::statements! {
        pub const DROP_SPAN: &str = "DELETE FROM mission_spans WHERE user_id = $1 AND mission_id = $2";
        /// No row when every activity of the worker in the mission is cancelled.
        pub const INSERT_SPAN: &str = "INSERT INTO mission_spans (user_id, mission_id, start_time, end_time) \
             SELECT user_id, mission_id, MIN(start_time), MAX(COALESCE(end_time, $3)) FROM activities \
             WHERE user_id = $1 AND mission_id = $2 AND dismissed_at IS NULL \
             GROUP BY user_id, mission_id";
        /// [`INSERT_SPAN`] as an upsert, for a write after which the worker has an activity
        /// in the mission (so a row always results).
        pub const UPSERT_SPAN: &str = "INSERT INTO mission_spans (user_id, mission_id, start_time, end_time) \
             SELECT user_id, mission_id, MIN(start_time), MAX(COALESCE(end_time, $3)) FROM activities \
             WHERE user_id = $1 AND mission_id = $2 AND dismissed_at IS NULL \
             GROUP BY user_id, mission_id \
             ON CONFLICT (user_id, mission_id) DO UPDATE SET start_time = excluded.start_time, end_time = excluded.end_time";
        pub const MISSION_SPAN: &str = "UPDATE missions SET \
             start_time = (SELECT MIN(s.start_time) FROM mission_spans s WHERE s.mission_id = $1), \
             end_time = (SELECT MAX(s.end_time) FROM mission_spans s WHERE s.mission_id = $1) \
             WHERE id = $1";
    }
}

/// Recomputes the worker's span in the mission, and the mission's, from the activities as they
/// now are. Called after every change to an activity's times or cancellation.
pub async fn refresh(conn: &mut AnyConnection, user_id: i64, mission_id: i64) -> AppResult<()> {
    sqlx::query(sql::DROP_SPAN)
        .bind(user_id)
        .bind(mission_id)
        .execute(&mut *conn)
        .await?;
    worker_then_mission(conn, sql::INSERT_SPAN, user_id, mission_id).await
}

/// [`refresh`] after an activity was added to the mission for the worker (their span cannot
/// vanish): an upsert instead of a delete and an insert, one round trip less per `logActivity`.
pub async fn refresh_after_logging(conn: &mut AnyConnection, user_id: i64, mission_id: i64) -> AppResult<()> {
    worker_then_mission(conn, sql::UPSERT_SPAN, user_id, mission_id).await
}

/// Writes the worker's span with `statement` ([`sql::INSERT_SPAN`] or [`sql::UPSERT_SPAN`]),
/// then the mission's from its workers'.
async fn worker_then_mission(
    conn: &mut AnyConnection,
    statement: &'static str,
    user_id: i64,
    mission_id: i64,
) -> AppResult<()> {
    sqlx::query(statement)
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
