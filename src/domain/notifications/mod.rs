//! Notifications of a user, as the reference service writes them: an admin validated a mission the user never touched
//! (`new_mission_by_admin`), an admin changed the user's time before validating it
//! (`mission_changes_warning`), the user's time was validated automatically
//! (`mission_auto_validation`). Each is written in the transaction of the action that causes it
//! (see `triggers`); the user reads them newest first and marks them read.

mod mails;
mod outcome;
pub mod triggers;

use serde_json::Value;
use sqlx::AnyConnection;

use crate::db::{Db, PerBackend, now};
use crate::domain::auth::Actor;
use crate::domain::kinds::NotificationType;
use crate::errors::{AppError, AppResult};

/// A notification as stored.
#[derive(sqlx::FromRow, Debug, Clone)]
pub struct NotificationRow {
    pub id: i64,
    pub user_id: i64,
    #[sqlx(rename = "type")]
    pub kind: String,
    pub read: i64,
    pub data: String,
    pub creation_time: i64,
}

impl NotificationRow {
    /// The stored type (the table's CHECK keeps it one of the three).
    pub fn kind(&self) -> NotificationType {
        NotificationType::from_str_opt(&self.kind).unwrap_or(NotificationType::MissionChangesWarning)
    }
}

/// The newest notifications a user reads at once (the reference has no paging: a bound keeps
/// the answer small whatever the history).
pub const MAX_LISTED: i64 = 500;

/// The most ids `markNotificationsAsRead` takes.
pub const MAX_MARKED: usize = 500;

pub mod sql {
    use super::PerBackend;

    /// "the notification (the table `notifications`) is about a mission of company `$3`": each
    /// kind names its mission in `data`.
    const ABOUT_COMPANY: PerBackend = PerBackend {
        sqlite: "EXISTS (SELECT 1 FROM missions m \
             WHERE m.id = json_extract(notifications.data, '$.mission_id') AND m.company_id = $3)",
        postgres: "EXISTS (SELECT 1 FROM missions m \
             WHERE m.id = CAST(CAST(notifications.data AS json) ->> 'mission_id' AS BIGINT) AND m.company_id = $3)",
    };

    crate::statements! {
        pub const INSERT: &str = "INSERT INTO notifications (user_id, type, read, data, creation_time) VALUES ($1, $2, 0, $3, $4)";
        /// `$1` the user, `$2` how many.
        pub const OF_USER: &str = "SELECT id, user_id, type, read, data, creation_time FROM notifications \
             WHERE user_id = $1 ORDER BY creation_time DESC, id DESC LIMIT $2";
        /// `$1` the user, `$2` how many, `$3` the company: those about the company's missions.
        pub const OF_USER_IN_COMPANY: PerBackend = crate::per_backend!(
            "SELECT id, user_id, type, read, data, creation_time FROM notifications \
             WHERE user_id = $1 AND ", { ABOUT_COMPANY }, " ORDER BY creation_time DESC, id DESC LIMIT $2"
        );
        /// `$1` the ids, `$2` the user, `$3` the company or NULL: how many of them are the
        /// user's (and about the company's missions).
        pub const COUNT_OWN: PerBackend = crate::per_backend!(
            "SELECT COUNT(*) FROM notifications WHERE ", ["id" in 1], " AND user_id = $2 \
             AND (CAST($3 AS BIGINT) IS NULL OR ", { ABOUT_COMPANY }, ")"
        );
        pub const MARK_READ: PerBackend = crate::per_backend!(
            "UPDATE notifications SET read = 1 WHERE ", ["id" in 1], " AND user_id = $2"
        );
        pub const SOME: PerBackend = crate::per_backend!(
            "SELECT id, user_id, type, read, data, creation_time FROM notifications WHERE ", ["id" in 1],
            " ORDER BY creation_time DESC, id DESC"
        );
    }
}

/// Writes a notification for `user_id`, in the caller's transaction.
pub async fn create(conn: &mut AnyConnection, user_id: i64, kind: NotificationType, data: &Value) -> AppResult<()> {
    sqlx::query(sql::INSERT)
        .bind(user_id)
        .bind(kind.as_str())
        .bind(data.to_string())
        .bind(now())
        .execute(conn)
        .await?;
    Ok(())
}

/// `User.notifications`: the actor's own, newest first; with an employment token, those about
/// its company's missions only.
pub async fn of_user(db: &Db, actor: Actor) -> AppResult<Vec<NotificationRow>> {
    let query = sqlx::query_as(match actor.scope.company() {
        None => sql::OF_USER,
        Some(_) => db.sql(sql::OF_USER_IN_COMPANY),
    })
    .bind(actor.user_id)
    .bind(MAX_LISTED);
    let query = match actor.scope.company() {
        None => query,
        Some(company) => query.bind(company),
    };
    Ok(query.fetch_all(db).await?)
}

/// `markNotificationsAsRead`: every id must be one of the actor's notifications, within the
/// actor's scope (AUTHORIZATION_ERROR otherwise, nothing changed); returns them, read.
pub async fn mark_read(db: &Db, actor: Actor, ids: &[i64]) -> AppResult<Vec<NotificationRow>> {
    let Actor { user_id: actor, scope } = actor;
    let mut ids = ids.to_vec();
    ids.sort_unstable();
    ids.dedup();
    if ids.len() > MAX_MARKED {
        return Err(AppError::invalid_inputs(format!(
            "At most {MAX_MARKED} notifications are marked at once"
        )));
    }
    if ids.is_empty() {
        return Ok(vec![]);
    }
    let list = crate::db::id_list(&ids);
    let mut tx = db.begin_write().await?;
    let (own,): (i64,) = sqlx::query_as(db.sql(sql::COUNT_OWN))
        .bind(&list)
        .bind(actor)
        .bind(scope.company())
        .fetch_one(&mut *tx)
        .await?;
    if own != ids.len() as i64 {
        return Err(AppError::authorization(
            "Actor is not authorized to mark notifications of someone else",
        ));
    }
    sqlx::query(db.sql(sql::MARK_READ))
        .bind(&list)
        .bind(actor)
        .execute(&mut *tx)
        .await?;
    let rows = sqlx::query_as(db.sql(sql::SOME))
        .bind(&list)
        .fetch_all(&mut *tx)
        .await?;
    tx.commit().await?;
    Ok(rows)
}
