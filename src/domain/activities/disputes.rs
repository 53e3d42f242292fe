//! Activity disputes: the worker contests one of their activities after an admin
//! validated the mission, within 15 days of that validation, and may withdraw the dispute within
//! 15 days. The dispute is the reference's JSON object: `{"text", "submitter_id", "time",
//! "status": "created"}`, then `"status": "cancelled"` with `"cancelled_at"`.
//!
//! Each change runs in a write transaction with the worker locked, so two concurrent disputes of
//! one activity cannot both be recorded.

use serde_json::{Value, json};
use sqlx::AnyConnection;

use crate::db::{Db, now};
use crate::domain::auth::Actor;
use crate::domain::workers;
use crate::errors::{AppError, AppResult};

use super::store::{self, ActivityRow};

/// How long after the latest admin validation a dispute may be opened, and after its opening
/// cancelled (whole days).
pub const EXPIRY_DAYS: i64 = 15;
/// Longest dispute text.
pub const MAX_TEXT: usize = 2000;

/// Dispute statements.
pub mod sql {
    crate::statements! {
        /// The latest admin validation (manual or automatic) of mission `$1` for user `$2` or for
        /// everyone.
        pub const LATEST_ADMIN_VALIDATION: &str = "SELECT MAX(reception_time) FROM mission_validations
             WHERE mission_id = $1 AND is_admin = 1 AND (user_id IS NULL OR user_id = $2)";
        pub const SET: &str = "UPDATE activities SET dispute = $2 WHERE id = $1";
    }
}

fn unknown() -> AppError {
    AppError::invalid_inputs("Invalid activity id").with("field", "activityId")
}

fn whole_days_since(t: i64, now: i64) -> i64 {
    (now - t).div_euclid(86_400)
}

/// The stored dispute, when it is one still open (`status: created`).
fn open_dispute(row: &ActivityRow) -> Option<Value> {
    let dispute: Value = serde_json::from_str(row.dispute.as_deref()?).ok()?;
    (dispute.get("status").and_then(Value::as_str) == Some("created")).then_some(dispute)
}

async fn set(conn: &mut AnyConnection, id: i64, dispute: &Value) -> AppResult<ActivityRow> {
    sqlx::query(sql::SET)
        .bind(id)
        .bind(dispute.to_string())
        .execute(&mut *conn)
        .await?;
    store::find(conn, id)
        .await?
        .ok_or_else(|| AppError::internal("activity vanished"))
}

/// `activities.disputeActivity`.
pub async fn dispute(db: &Db, actor: Actor, activity_id: i64, text: &str) -> AppResult<ActivityRow> {
    let text = text.trim().to_string();
    if text.is_empty() || text.chars().count() > MAX_TEXT {
        return Err(
            AppError::invalid_inputs(format!("text must have between 1 and {MAX_TEXT} characters"))
                .with("field", "text"),
        );
    }
    let mut tx = db.begin_write().await?;
    workers::lock(&mut tx, &[actor.user_id]).await?;
    let row = store::find(&mut tx, activity_id).await?.ok_or_else(unknown)?;
    crate::domain::missions::permissions::in_scope(&mut tx, actor.scope, row.mission_id).await?;
    if row.user_id != actor.user_id {
        return Err(AppError::authorization(
            "Only the worker of the activity may dispute it",
        ));
    }
    if open_dispute(&row).is_some() {
        return Err(AppError::invalid_inputs("The activity is already disputed").with("reason", "ALREADY_DISPUTED"));
    }
    let (validated,): (Option<i64>,) = sqlx::query_as(sql::LATEST_ADMIN_VALIDATION)
        .bind(row.mission_id)
        .bind(row.user_id)
        .fetch_one(&mut *tx)
        .await?;
    let at = now();
    let Some(validated) = validated else {
        return Err(
            AppError::invalid_inputs("Only an activity validated by an admin can be disputed")
                .with("reason", "NOT_VALIDATED_BY_ADMIN"),
        );
    };
    if whole_days_since(validated, at) >= EXPIRY_DAYS {
        return Err(AppError::invalid_inputs(format!(
            "The admin validation is more than {EXPIRY_DAYS} days old: the activity can no longer be disputed"
        ))
        .with("reason", "DISPUTE_PERIOD_EXPIRED"));
    }
    let dispute = json!({ "text": text, "submitter_id": actor.user_id, "time": at, "status": "created" });
    let row = set(&mut tx, activity_id, &dispute).await?;
    tx.commit().await?;
    Ok(row)
}

/// `activities.cancelDispute`: the dispute's author withdraws it.
pub async fn cancel(db: &Db, actor: Actor, activity_id: i64) -> AppResult<ActivityRow> {
    let mut tx = db.begin_write().await?;
    workers::lock(&mut tx, &[actor.user_id]).await?;
    let row = store::find(&mut tx, activity_id).await?.ok_or_else(unknown)?;
    crate::domain::missions::permissions::in_scope(&mut tx, actor.scope, row.mission_id).await?;
    let Some(mut dispute) = open_dispute(&row) else {
        return Err(AppError::invalid_inputs("The activity has no open dispute").with("reason", "NO_OPEN_DISPUTE"));
    };
    if dispute.get("submitter_id").and_then(Value::as_i64) != Some(actor.user_id) {
        return Err(AppError::authorization("Only the author of the dispute may cancel it"));
    }
    let at = now();
    let opened = dispute.get("time").and_then(Value::as_i64).unwrap_or(at);
    if whole_days_since(opened, at) >= EXPIRY_DAYS {
        return Err(AppError::invalid_inputs(format!(
            "The dispute is more than {EXPIRY_DAYS} days old and can no longer be cancelled"
        ))
        .with("reason", "DISPUTE_PERIOD_EXPIRED"));
    }
    dispute["status"] = json!("cancelled");
    dispute["cancelled_at"] = json!(at);
    let row = set(&mut tx, activity_id, &dispute).await?;
    tx.commit().await?;
    Ok(row)
}
