//! Delivers queued e-mails. The default sender writes one log line per message (recipient and
//! subject only: bodies hold invitation tokens, which are secrets); every instance of the service
//! may run a sender, and a message is claimed by exactly one of them.

use std::time::Duration;

use crate::storage::{Db, now};

/// How often the outbox is polled.
const POLL: Duration = Duration::from_secs(1);

/// Claims up to `limit` unsent messages and marks them sent. The outer `sent_at IS NULL` makes
/// the claim exclusive under concurrency: a row another instance claimed first no longer matches.
async fn claim(db: &Db, limit: i64) -> Result<Vec<(i64, String, String)>, sqlx::Error> {
    sqlx::query_as(
        "UPDATE emails SET sent_at = $1, attempts = attempts + 1
         WHERE sent_at IS NULL AND id IN (SELECT id FROM emails WHERE sent_at IS NULL ORDER BY id LIMIT $2)
         RETURNING id, recipient, subject",
    )
    .bind(now())
    .bind(limit)
    .fetch_all(&db.pool)
    .await
}

/// Delivers what is queued now; returns how many messages went out.
pub async fn deliver_pending(db: &Db) -> Result<usize, sqlx::Error> {
    let mut total = 0;
    loop {
        let batch = claim(db, 50).await?;
        if batch.is_empty() {
            return Ok(total);
        }
        for (id, recipient, subject) in &batch {
            tracing::info!(email_id = id, %recipient, %subject, "e-mail delivered (log sender)");
        }
        total += batch.len();
    }
}

/// Runs the sender until the task is dropped.
pub fn spawn(db: Db) -> tokio::task::JoinHandle<()> {
    tokio::spawn(async move {
        loop {
            if let Err(error) = deliver_pending(&db).await {
                tracing::warn!(%error, "mail sender: outbox unavailable");
            }
            tokio::time::sleep(POLL).await;
        }
    })
}
