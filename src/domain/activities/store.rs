//! Activities and their versions as stored.

use sqlx::AnyConnection;

use crate::db::now;
use crate::errors::AppResult;

/// An activity as stored.
#[derive(sqlx::FromRow, Debug, Clone)]
pub struct ActivityRow {
    pub id: i64,
    pub mission_id: i64,
    pub user_id: i64,
    pub submitter_id: i64,
    #[sqlx(rename = "type")]
    pub kind: String,
    pub reception_time: i64,
    pub start_time: i64,
    pub end_time: Option<i64>,
    pub last_update_time: i64,
    pub last_submitter_id: Option<i64>,
    pub dismissed_at: Option<i64>,
    pub dismiss_author_id: Option<i64>,
    pub dismiss_context: Option<String>,
    /// The worker's dispute, a JSON object as text (see `disputes`).
    pub dispute: Option<String>,
}

pub const COLUMNS: &str = "a.id, a.mission_id, a.user_id, a.submitter_id, a.type, a.reception_time, a.start_time, \
     a.end_time, a.last_update_time, a.last_submitter_id, a.dismissed_at, a.dismiss_author_id, a.dismiss_context, a.dispute";

/// [`COLUMNS`] without the table's alias, for `RETURNING` (a test keeps the two alike).
pub const RETURNED: &str = "id, mission_id, user_id, submitter_id, type, reception_time, start_time, \
     end_time, last_update_time, last_submitter_id, dismissed_at, dismiss_author_id, dismiss_context, dispute";

/// Activity statements.
pub mod sql {
    use super::COLUMNS;
    use crate::db::PerBackend;
    use const_format::concatcp;

    crate::statements! {
        pub const FIND: &str = concatcp!("SELECT ", COLUMNS, " FROM activities a WHERE a.id = $1");
        /// The user's (`$1`) activity running in mission `$2` at `$3`, if any.
        pub const CURRENT: &str = concatcp!(
            "SELECT ",
            COLUMNS,
            " FROM activities a WHERE a.user_id = $1 AND a.mission_id = $2 AND a.dismissed_at IS NULL \
               AND a.start_time <= $3 AND (a.end_time IS NULL OR a.end_time > $3) ORDER BY a.start_time DESC LIMIT 1"
        );
        /// Every activity of the missions (cancelled ones included), in time order.
        pub const OF_MISSIONS: PerBackend = crate::per_backend!(
            "SELECT ",
            COLUMNS,
            " FROM activities a WHERE ",
            ["a.mission_id" in 1],
            " ORDER BY a.start_time, a.id"
        );
        /// The versions of the activities, oldest first.
        pub const VERSIONS_OF: PerBackend = crate::per_backend!(
            "SELECT id, activity_id, reception_time, start_time, end_time, context, submitter_id FROM activity_versions \
             WHERE ",
            ["activity_id" in 1],
            " ORDER BY version_number"
        );
    }
}

/// Reads an activity.
pub async fn find(conn: &mut AnyConnection, id: i64) -> AppResult<Option<ActivityRow>> {
    Ok(sqlx::query_as::<_, ActivityRow>(sql::FIND)
        .bind(id)
        .fetch_optional(conn)
        .await?)
}

/// A version as stored.
#[derive(sqlx::FromRow, Debug, Clone)]
pub struct VersionRow {
    pub id: i64,
    pub activity_id: i64,
    pub reception_time: i64,
    pub start_time: i64,
    pub end_time: Option<i64>,
    pub context: Option<String>,
    pub submitter_id: i64,
}

/// Appends a version with the activity's times as they are now.
pub async fn add_version(
    conn: &mut AnyConnection,
    activity_id: i64,
    submitter_id: i64,
    context: Option<&serde_json::Value>,
    creation_time: Option<i64>,
) -> AppResult<()> {
    let received = now();
    sqlx::query(
        "INSERT INTO activity_versions (activity_id, version_number, reception_time, creation_time, start_time, end_time,
                                        context, submitter_id)
         SELECT a.id, COALESCE((SELECT MAX(v.version_number) FROM activity_versions v WHERE v.activity_id = a.id), 0) + 1,
                $2, $3, a.start_time, a.end_time, $4, $5
         FROM activities a WHERE a.id = $1",
    )
    .bind(activity_id)
    .bind(received)
    .bind(creation_time.unwrap_or(received))
    .bind(context.map(|c| c.to_string()))
    .bind(submitter_id)
    .execute(conn)
    .await?;
    Ok(())
}

#[cfg(test)]
mod returned_tests {
    #[test]
    fn returned_columns_are_the_columns_without_alias() {
        assert_eq!(super::COLUMNS.replace("a.", ""), super::RETURNED);
    }
}
