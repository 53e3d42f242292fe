//! Delivers queued e-mails, through an SMTP relay when one is configured, otherwise by writing
//! one log line per message (recipient and subject only: bodies hold invitation tokens, which are
//! secrets). Every instance of the service may run a sender; a message is claimed by exactly one
//! of them, and one that could not be delivered is released for a later attempt.

use std::time::Duration;

use crate::storage::{Db, now};

/// How often the outbox is polled.
const POLL: Duration = Duration::from_secs(1);

/// How messages leave.
#[derive(Clone, Debug)]
pub enum Transport {
    Log,
    Smtp(super::smtp::Relay),
}

/// Gives up on a message after this many failed attempts (it stays in the outbox with its error).
const MAX_ATTEMPTS: i64 = 10;

/// Claims up to `limit` unsent messages. The outer `sent_at IS NULL` makes the claim exclusive
/// under concurrency: a row another instance claimed first no longer matches.
async fn claim(db: &Db, limit: i64) -> Result<Vec<(i64, String, String, String)>, sqlx::Error> {
    sqlx::query_as(
        "UPDATE emails SET sent_at = $1, attempts = attempts + 1
         WHERE sent_at IS NULL AND attempts < $3
           AND id IN (SELECT id FROM emails WHERE sent_at IS NULL AND attempts < $3 ORDER BY id LIMIT $2)
         RETURNING id, recipient, subject, body",
    )
    .bind(now())
    .bind(limit)
    .bind(MAX_ATTEMPTS)
    .fetch_all(&db.pool)
    .await
}

/// Delivers what is queued now; returns how many messages went out.
pub async fn deliver_pending(db: &Db, transport: &Transport) -> Result<usize, sqlx::Error> {
    let mut total = 0;
    loop {
        let batch = claim(db, 50).await?;
        if batch.is_empty() {
            return Ok(total);
        }
        let mut failed = false;
        for (id, recipient, subject, body) in &batch {
            let outcome = match transport {
                Transport::Log => Ok(()),
                Transport::Smtp(relay) => {
                    super::smtp::send(relay, recipient, subject, body, &format!("{id}@roadlog")).await
                }
            };
            match outcome {
                Ok(()) => {
                    tracing::info!(email_id = id, %recipient, %subject, "e-mail delivered");
                    total += 1;
                }
                Err(error) => {
                    // Released for a later attempt; nothing is lost.
                    tracing::warn!(email_id = id, %recipient, %error, "e-mail not delivered, will retry");
                    sqlx::query("UPDATE emails SET sent_at = NULL, last_error = $2 WHERE id = $1")
                        .bind(id)
                        .bind(&error)
                        .execute(&db.pool)
                        .await?;
                    failed = true;
                }
            }
        }
        if failed {
            return Ok(total);
        }
    }
}

/// Runs the sender until the task is dropped.
pub fn spawn(db: Db, transport: Transport) -> tokio::task::JoinHandle<()> {
    tokio::spawn(async move {
        loop {
            if let Err(error) = deliver_pending(&db, &transport).await {
                tracing::warn!(%error, "mail sender: outbox unavailable");
            }
            tokio::time::sleep(POLL).await;
        }
    })
}
