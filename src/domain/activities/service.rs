//! The activity services: each change to a worker's time is one write transaction with that
//! worker locked first, in which the rules of `log` run against committed data.

use crate::db::Db;
use crate::domain::auth::Actor;
use crate::domain::workers;
use crate::errors::AppResult;

use super::log::{self, ActivityEdit, NewActivity};
use super::store::ActivityRow;

/// The worker of an activity (none when it does not exist: the permission checks refuse it).
pub async fn worker_of(db: &Db, activity_id: i64) -> AppResult<Vec<i64>> {
    let mut conn = db.pool.acquire().await?;
    Ok(log::worker_of(&mut conn, activity_id).await?.into_iter().collect())
}

/// `logActivity`: for the actor, or for `new.user_id` when the actor may record for them.
pub async fn log_activity(db: &Db, actor: Actor, new: NewActivity) -> AppResult<ActivityRow> {
    let worker = new.user_id.unwrap_or(actor.user_id);
    let mut tx = db.begin_write().await?;
    workers::lock(&mut tx, &[worker]).await?;
    let row = log::log(&mut tx, actor, &new, true).await?;
    tx.commit().await?;
    Ok(row)
}

/// `editActivity`.
pub async fn edit_activity(db: &Db, actor: Actor, edit: ActivityEdit) -> AppResult<ActivityRow> {
    let worker = worker_of(db, edit.activity_id).await?;
    let mut tx = db.begin_write().await?;
    workers::lock(&mut tx, &worker).await?;
    let row = log::edit(&mut tx, actor, &edit, true).await?;
    tx.commit().await?;
    Ok(row)
}

/// `cancelActivity`.
pub async fn cancel_activity(
    db: &Db,
    actor: Actor,
    activity_id: i64,
    context: Option<serde_json::Value>,
) -> AppResult<()> {
    let worker = worker_of(db, activity_id).await?;
    let mut tx = db.begin_write().await?;
    workers::lock(&mut tx, &worker).await?;
    log::cancel(&mut tx, actor, activity_id, context.as_ref(), true).await?;
    tx.commit().await?;
    Ok(())
}
