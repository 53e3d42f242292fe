//! The auto-validation queue: rows are added when a worker's first activity of a mission is
//! logged (in the admins' queue when an admin logged it) and when the worker's side is validated
//! (the admins' wait starts), and removed when the side they wait for is validated. Holiday
//! missions are validated when recorded and never wait. Each function runs in the caller's
//! transaction.

use sqlx::AnyConnection;

use crate::errors::AppResult;

pub mod sql {
    crate::statements! {
        /// Whether the mission is a holiday (holds an `off` activity, even cancelled).
        pub const IS_HOLIDAY: &str = "SELECT COUNT(*) FROM activities WHERE mission_id = $1 AND type = 'off'";
        /// `$1` mission, `$2` user, `$3` queue, `$4` since when; a row already waiting stays.
        pub const ENQUEUE: &str = "INSERT INTO mission_auto_validations (mission_id, user_id, is_admin, reception_time) \
             VALUES ($1, $2, $3, $4) ON CONFLICT (user_id, mission_id, is_admin) DO NOTHING";
        /// Everything the worker waits for in the mission.
        pub const FORGET: &str = "DELETE FROM mission_auto_validations WHERE mission_id = $1 AND user_id = $2";
    }
}

/// Whether the mission is a holiday mission.
pub async fn is_holiday(conn: &mut AnyConnection, mission_id: i64) -> AppResult<bool> {
    let (count,): (i64,) = sqlx::query_as(sql::IS_HOLIDAY).bind(mission_id).fetch_one(conn).await?;
    Ok(count > 0)
}

/// The worker's time in the mission starts waiting in the worker's queue (`by_admin` false) or the
/// admins' (`by_admin`: an admin recorded it) since `at`.
pub async fn enqueue(
    conn: &mut AnyConnection,
    mission_id: i64,
    user_id: i64,
    by_admin: bool,
    at: i64,
) -> AppResult<()> {
    if is_holiday(conn, mission_id).await? {
        return Ok(());
    }
    sqlx::query(sql::ENQUEUE)
        .bind(mission_id)
        .bind(user_id)
        .bind(i64::from(by_admin))
        .bind(at)
        .execute(conn)
        .await?;
    Ok(())
}

/// After a validation of the worker's time in the mission at `at`: an admin's (manual or
/// automatic) ends every wait; the worker's side (the worker's own, or the automatic one) ends
/// the worker's wait and starts the admins'.
pub async fn after_validation(
    conn: &mut AnyConnection,
    mission_id: i64,
    user_id: i64,
    by_admin: bool,
    at: i64,
) -> AppResult<()> {
    sqlx::query(sql::FORGET)
        .bind(mission_id)
        .bind(user_id)
        .execute(&mut *conn)
        .await?;
    if !by_admin {
        enqueue(conn, mission_id, user_id, true, at).await?;
    }
    Ok(())
}
