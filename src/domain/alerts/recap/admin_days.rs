//! `Company.adminRegulationComputationsByUserAndByDay`: the admin computations of the company's
//! current workers, each with its count of daily and weekly alerts.

use chrono::NaiveDate;

use crate::db::{Db, id_list};
use crate::domain::auth::Actor;
use crate::domain::companies::{date_text, permissions, today};
use crate::errors::AppResult;

pub mod sql {
    use crate::db::PerBackend;

    use super::super::sql::{IN_WORKERS, WORKERS};

    crate::statements! {
        /// The admin computations of the workers ([`WORKERS`]: company `$1`, today `$2`, only
        /// those of the JSON list `$3` when it is not null) dated from `$4` to `$5` (both
        /// optional), each with its daily alerts (an `enoughBreak` alert with both halves
        /// failed counts twice) and its weekly ones.
        pub const ADMIN_COMPUTATIONS: PerBackend = crate::per_backend!(
            {WORKERS},
            "SELECT c.day, c.user_id, \
               (SELECT CAST(COALESCE(SUM(CASE WHEN a.check_type = 'enoughBreak' \
                       THEN a.not_enough_break + a.too_much_uninterrupted_work_time ELSE 1 END), 0) AS BIGINT) \
                FROM regulatory_alerts a WHERE a.user_id = c.user_id AND a.day = c.day \
                  AND a.submitter_type = 'admin' AND a.unit = 'day') AS nb_alerts_daily_admin, \
               (SELECT COUNT(*) FROM regulatory_alerts a WHERE a.user_id = c.user_id AND a.day = c.day \
                  AND a.submitter_type = 'admin' AND a.unit = 'week') AS nb_alerts_weekly_admin \
             FROM regulation_computations c WHERE c.submitter_type = 'admin' \
               AND (CAST($4 AS TEXT) IS NULL OR c.day >= CAST($4 AS TEXT)) \
               AND (CAST($5 AS TEXT) IS NULL OR c.day <= CAST($5 AS TEXT)) AND c.user_id",
            {IN_WORKERS},
            " ORDER BY c.id"
        );
    }
}

/// `CompanyAdminRegulationComputationsByUserAndDay`.
#[derive(sqlx::FromRow, Debug, Clone)]
pub struct AdminDay {
    pub day: String,
    pub user_id: i64,
    pub nb_alerts_daily_admin: i64,
    pub nb_alerts_weekly_admin: i64,
}

/// `Company.adminRegulationComputationsByUserAndByDay`, for a company admin: the computations of
/// the company's current workers (only those of `user_ids` when given).
pub async fn admin_days(
    db: &Db,
    actor: Actor,
    company_id: i64,
    from: Option<NaiveDate>,
    to: Option<NaiveDate>,
    user_ids: Option<Vec<i64>>,
) -> AppResult<Vec<AdminDay>> {
    if !permissions::is_admin(db, actor, company_id).await? {
        return Err(permissions::admin_only_field(
            "adminRegulationComputationsByUserAndByDay",
        ));
    }
    Ok(sqlx::query_as(db.sql(sql::ADMIN_COMPUTATIONS))
        .bind(company_id)
        .bind(date_text(today()))
        .bind(user_ids.as_deref().map(id_list))
        .bind(from.map(date_text))
        .bind(to.map(date_text))
        .fetch_all(db)
        .await?)
}
