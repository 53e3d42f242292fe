//! Comments on a mission: anyone who reads the mission may comment; only the author cancels.

use sqlx::AnyConnection;

use crate::db::now;
use crate::domain::auth::Actor;
use crate::errors::{AppError, AppResult};

use super::permissions;

/// A comment as stored.
#[derive(sqlx::FromRow, Debug, Clone)]
pub struct CommentRow {
    pub id: i64,
    pub mission_id: i64,
    pub submitter_id: i64,
    pub text: String,
    pub reception_time: i64,
}

crate::statements! {
    /// The comments of the missions that were not cancelled.
    pub const OF_MISSIONS: crate::db::PerBackend = crate::per_backend!(
        "SELECT id, mission_id, submitter_id, text, reception_time FROM comments WHERE ",
        ["mission_id" in 1],
        " AND dismissed_at IS NULL ORDER BY id"
    );
}

/// Longest comment accepted.
pub const MAX_LENGTH: usize = 10_000;

/// `logComment`.
pub async fn log(conn: &mut AnyConnection, actor: Actor, mission_id: i64, text: &str) -> AppResult<CommentRow> {
    permissions::readable(conn, actor, mission_id).await?;
    let text = text.trim();
    if text.is_empty() || text.chars().count() > MAX_LENGTH {
        return Err(AppError::invalid_inputs(format!(
            "A comment has between 1 and {MAX_LENGTH} characters"
        )));
    }
    let row: CommentRow = sqlx::query_as(
        "INSERT INTO comments (mission_id, submitter_id, text, reception_time) VALUES ($1, $2, $3, $4)
         RETURNING id, mission_id, submitter_id, text, reception_time",
    )
    .bind(mission_id)
    .bind(actor.user_id)
    .bind(text)
    .bind(now())
    .fetch_one(conn)
    .await?;
    Ok(row)
}

/// `cancelComment`: by its author only.
pub async fn cancel(conn: &mut AnyConnection, actor: Actor, comment_id: i64) -> AppResult<()> {
    let row: Option<(i64, Option<i64>, i64)> =
        sqlx::query_as("SELECT submitter_id, dismissed_at, mission_id FROM comments WHERE id = $1")
            .bind(comment_id)
            .fetch_optional(&mut *conn)
            .await?;
    if let Some((_, _, mission_id)) = row {
        permissions::in_scope(conn, actor.scope, mission_id).await?;
    }
    match row {
        Some((author, _, _)) if author != actor.user_id => Err(AppError::authorization("Forbidden access")),
        None => Err(AppError::authorization("Forbidden access")),
        Some((_, Some(_), _)) => Err(AppError::invalid_resource("Comment already dismissed")),
        Some((_, None, _)) => {
            sqlx::query(
                "UPDATE comments SET dismissed_at = $2, dismiss_author_id = $3 WHERE id = $1 AND dismissed_at IS NULL",
            )
            .bind(comment_id)
            .bind(now())
            .bind(actor.user_id)
            .execute(conn)
            .await?;
            Ok(())
        }
    }
}
