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
}

pub const COLUMNS: &str = "a.id, a.mission_id, a.user_id, a.submitter_id, a.type, a.reception_time, a.start_time, \
     a.end_time, a.last_update_time, a.last_submitter_id, a.dismissed_at, a.dismiss_author_id, a.dismiss_context";

/// Reads an activity.
pub async fn find(conn: &mut AnyConnection, id: i64) -> AppResult<Option<ActivityRow>> {
    let sql = sqlx::AssertSqlSafe(format!("SELECT {COLUMNS} FROM activities a WHERE a.id = $1"));
    Ok(sqlx::query_as::<_, ActivityRow>(sql)
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
