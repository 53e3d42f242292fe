//! An admin puts off the question of the company's number of workers (`snoozeNbWorkerInfo`):
//! the employment's snooze date becomes today, and `Employment.shouldForceNbWorkerInfo` turns
//! true once [`super::NB_WORKER_INFO_SNOOZE_DAYS`] days have passed without the number given.

use crate::db::Db;
use crate::domain::auth::Actor;
use crate::errors::{AppError, AppResult};

use crate::domain::companies::{date_text, today};

/// Snooze statements.
pub mod sql {
    crate::statements! {
        /// Sets the snooze date of employment `$1` to `$2`, when it belongs to user `$3`.
        pub const SNOOZE: &str =
            "UPDATE employments SET nb_worker_info_snooze_date = $2 WHERE id = $1 AND user_id = $3";
        /// The company of employment `$1` when it belongs to user `$2`.
        pub const OWN_COMPANY: &str = "SELECT company_id FROM employments WHERE id = $1 AND user_id = $2";
    }
}

/// `snoozeNbWorkerInfo`: the caller's own employment only; any other id (someone else's, or
/// unknown: ids must not be probed) is "Forbidden access" and nothing changes.
pub async fn snooze(db: &Db, actor: Actor, employment_id: i64) -> AppResult<()> {
    let company: Option<(i64,)> = sqlx::query_as(sql::OWN_COMPANY)
        .bind(employment_id)
        .bind(actor.user_id)
        .fetch_optional(&db.pool)
        .await?;
    match company {
        Some((company_id,)) if actor.scope.allows(company_id) => {}
        _ => return Err(AppError::authorization("Forbidden access")),
    }
    sqlx::query(sql::SNOOZE)
        .bind(employment_id)
        .bind(date_text(today()))
        .bind(actor.user_id)
        .execute(&db.pool)
        .await?;
    Ok(())
}
