//! `Queries.output`: activity corrections tried and undone. The items are played as
//! `validateMission` plays its `activityItems`, in one write transaction with their workers
//! locked, so that every rule and permission answers as it would; the transaction is then
//! rolled back whatever happened, and the activity of the last item is what it would have been.

use crate::db::Db;
use crate::domain::activities::log::{self, ActivityEdit};
use crate::domain::activities::service::worker_of;
use crate::domain::activities::store::{self, ActivityRow};
use crate::domain::auth::Actor;
use crate::domain::workers;
use crate::errors::{AppError, AppResult};

use super::permissions;
use super::service::Correction;

/// Most items one dry run plays: each costs a few statements inside one transaction that holds
/// its workers' locks.
pub const MAX_ITEMS: usize = 100;

/// Plays `items` and rolls them back; the last item's activity as it would be, `None` for no
/// items. The first failing item's error is the answer, and nothing is kept either way.
pub async fn output(db: &Db, actor: Actor, items: &[Correction]) -> AppResult<Option<ActivityRow>> {
    if items.len() > MAX_ITEMS {
        return Err(AppError::invalid_inputs(format!(
            "At most {MAX_ITEMS} items may be tried at once"
        )));
    }
    let Some(_) = items.last() else {
        return Ok(None);
    };
    let mut touched = Vec::new();
    for item in items {
        match item {
            Correction::Log(new) => touched.push(new.user_id.unwrap_or(actor.user_id)),
            Correction::Edit(edit) => touched.extend(worker_of(db, edit.activity_id).await?),
            Correction::Cancel { activity_id, .. } => touched.extend(worker_of(db, *activity_id).await?),
        }
    }
    let mut tx = db.begin_write().await?;
    workers::lock(&mut tx, &touched).await?;
    let played = play(&mut tx, actor, items).await;
    tx.rollback().await?;
    played
}

/// Each item in turn, as `validateMission` corrects: the item's mission must be readable by the
/// actor, then the activity rules decide (an admin's corrections of a worker's time are tried
/// too); the activity the last one touched.
async fn play(conn: &mut sqlx::AnyConnection, actor: Actor, items: &[Correction]) -> AppResult<Option<ActivityRow>> {
    let mut last = None;
    for item in items {
        let mission = match item {
            Correction::Log(new) => Some(new.mission_id),
            Correction::Edit(ActivityEdit { activity_id, .. }) | Correction::Cancel { activity_id, .. } => {
                store::find(conn, *activity_id).await?.map(|a| a.mission_id)
            }
        };
        // An unknown activity is refused by the rules below, as by the mutations.
        if let Some(mission) = mission {
            permissions::readable(conn, actor, mission).await?;
        }
        last = Some(match item {
            Correction::Log(new) => log::log(conn, actor, new, false).await?,
            Correction::Edit(edit) => log::edit(conn, actor, edit, false).await?,
            Correction::Cancel { activity_id, context } => {
                log::cancel(conn, actor, *activity_id, context.as_ref(), false).await?;
                store::find(conn, *activity_id)
                    .await?
                    .ok_or_else(|| AppError::internal("cancelled activity vanished"))?
            }
        });
    }
    Ok(last)
}
