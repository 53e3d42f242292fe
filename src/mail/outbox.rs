//! The outbox table.

use serde::Serialize;
use sqlx::AnyConnection;

use crate::errors::AppResult;
use crate::storage::{Db, now};

/// Queues a message, inside the caller's transaction.
pub async fn enqueue(conn: &mut AnyConnection, recipient: &str, subject: &str, body: &str) -> AppResult<()> {
    sqlx::query("INSERT INTO emails (recipient, subject, body, created_at) VALUES ($1, $2, $3, $4)")
        .bind(recipient)
        .bind(subject)
        .bind(body)
        .bind(now())
        .execute(conn)
        .await?;
    Ok(())
}

/// A message as the sandbox outbox shows it.
#[derive(Serialize, sqlx::FromRow, Debug)]
#[serde(rename_all = "camelCase")]
pub struct OutboxEntry {
    pub id: i64,
    #[sqlx(rename = "recipient")]
    pub to: String,
    pub subject: String,
    pub body: String,
    pub created_at: i64,
    pub sent_at: Option<i64>,
}

/// The latest messages, newest first, optionally for one recipient.
pub async fn latest(db: &Db, recipient: Option<&str>, limit: i64) -> AppResult<Vec<OutboxEntry>> {
    let rows = sqlx::query_as::<_, OutboxEntry>(
        "SELECT id, recipient, subject, body, created_at, sent_at FROM emails
         WHERE ($1 IS NULL OR recipient = $1) ORDER BY id DESC LIMIT $2",
    )
    .bind(recipient)
    .bind(limit)
    .fetch_all(&db.pool)
    .await?;
    Ok(rows)
}
