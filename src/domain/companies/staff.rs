//! Who works for a company today, counted and listed: `Company.nbWorkers`,
//! `Company.hasNoActiveAdmins` and `Company.currentAdmins`. "Today" is an accepted employment, not
//! cancelled, whose period covers today (the reference's active employment).

use crate::db::Db;
use crate::domain::users::accounts::{self, UserRow};
use crate::errors::AppResult;

use super::{date_text, today};

/// Staff statements; `$1` the company, `$2` today.
pub mod sql {
    crate::statements! {
        /// Users with an active employment (admins only when `$3` = 1).
        pub const CURRENT_IDS: &str = "SELECT DISTINCT user_id FROM employments
             WHERE company_id = $1 AND validation_status = 'approved' AND dismissed_at IS NULL AND user_id IS NOT NULL
               AND start_date <= $2 AND (end_date IS NULL OR end_date >= $2) AND has_admin_rights >= $3
             ORDER BY user_id";
    }
}

async fn current_ids(db: &Db, company_id: i64, admins_only: bool) -> AppResult<Vec<i64>> {
    let rows: Vec<(i64,)> = sqlx::query_as(sql::CURRENT_IDS)
        .bind(company_id)
        .bind(date_text(today()))
        .bind(i64::from(admins_only))
        .fetch_all(db)
        .await?;
    Ok(rows.into_iter().map(|r| r.0).collect())
}

/// `Company.nbWorkers`: the users employed today, admins included.
pub async fn nb_workers(db: &Db, company_id: i64) -> AppResult<i64> {
    Ok(current_ids(db, company_id, false).await?.len() as i64)
}

/// `Company.hasNoActiveAdmins`.
pub async fn has_no_active_admins(db: &Db, company_id: i64) -> AppResult<bool> {
    Ok(current_ids(db, company_id, true).await?.is_empty())
}

/// `Company.currentAdmins`, by id.
pub async fn current_admins(db: &Db, company_id: i64) -> AppResult<Vec<UserRow>> {
    let ids = current_ids(db, company_id, true).await?;
    let mut users = accounts::find_many(db, &ids).await?;
    users.sort_by_key(|u| u.id);
    Ok(users)
}
