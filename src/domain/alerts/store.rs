//! Writing one computation: the worker's alerts of the submitter type in the recomputed days and
//! weeks are replaced, and every computed day gets its row (kept with its first creation time).
//! Runs inside the caller's transaction, so a recomputation is all or nothing, and running it
//! twice leaves the same rows.

use sqlx::AnyConnection;

use crate::db::now;
use crate::domain::companies::date_text;
use crate::domain::regulation::business::BusinessType;
use crate::domain::regulation::checks::{CheckType, SubmitterType};
use crate::domain::regulation::compute::{Alert, Computation};
use crate::errors::{AppError, AppResult};

pub mod sql {
    crate::statements! {
        /// `$1` worker, `$2` submitter type, `$3`–`$4` days, `$5`–`$6` Mondays.
        pub const CLEAR: &str = "DELETE FROM regulatory_alerts WHERE user_id = $1 AND submitter_type = $2 \
             AND ((unit = 'day' AND day >= $3 AND day <= $4) OR (unit = 'week' AND day >= $5 AND day <= $6))";
        pub const INSERT_ALERT: &str = "INSERT INTO regulatory_alerts (creation_time, day, check_type, unit, \
             submitter_type, user_id, business_id, extra, explanation, night_work, not_enough_break, \
             too_much_uninterrupted_work_time) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)";
        pub const MARK_COMPUTED: &str = "INSERT INTO regulation_computations (creation_time, day, submitter_type, user_id) \
             VALUES ($1, $2, $3, $4) ON CONFLICT (day, user_id, submitter_type) DO NOTHING";
    }
}

fn flag(alert: &Alert, key: &str) -> i64 {
    i64::from(alert.extra.get(key).and_then(serde_json::Value::as_bool) == Some(true))
}

/// Stores a computation of `user_id`'s alerts for `submitter`.
pub async fn save(
    conn: &mut AnyConnection,
    user_id: i64,
    submitter: SubmitterType,
    business: BusinessType,
    computation: &Computation,
) -> AppResult<()> {
    let created = now();
    sqlx::query(sql::CLEAR)
        .bind(user_id)
        .bind(submitter.as_str())
        .bind(date_text(computation.days.0))
        .bind(date_text(computation.days.1))
        .bind(date_text(computation.weeks.0))
        .bind(date_text(computation.weeks.1))
        .execute(&mut *conn)
        .await?;
    for alert in &computation.alerts {
        let explanation = serde_json::to_string(&alert.explanation)
            .map_err(|e| AppError::internal(format!("explanation not serialisable: {e}")))?;
        let unit = alert.check.def().unit;
        sqlx::query(sql::INSERT_ALERT)
            .bind(created)
            .bind(date_text(alert.day))
            .bind(alert.check.as_str())
            .bind(unit.as_str())
            .bind(submitter.as_str())
            .bind(user_id)
            .bind(business.id())
            .bind(alert.extra_text())
            .bind(explanation)
            .bind(i64::from(
                alert.check == CheckType::MaximumWorkDayTime && flag(alert, "night_work") == 1,
            ))
            .bind(flag(alert, "not_enough_break"))
            .bind(flag(alert, "too_much_uninterrupted_work_time"))
            .execute(&mut *conn)
            .await?;
    }
    for day in &computation.computed {
        sqlx::query(sql::MARK_COMPUTED)
            .bind(created)
            .bind(date_text(*day))
            .bind(submitter.as_str())
            .bind(user_id)
            .execute(&mut *conn)
            .await?;
    }
    Ok(())
}
