//! Writing one computation: the worker's alerts of the submitter type in the recomputed days and
//! weeks are replaced, and every computed day gets its row (kept with its first creation time).
//! Runs inside the caller's transaction, so a recomputation is all or nothing, and running it
//! twice leaves the same rows.

use sqlx::AnyConnection;

use crate::db::{Backend, now};
use crate::domain::companies::date_text;
use crate::domain::regulation::business::BusinessType;
use crate::domain::regulation::checks::{CheckType, SubmitterType};
use crate::domain::regulation::compute::{Alert, Computation};
use crate::errors::{AppError, AppResult};

pub mod sql {
    use crate::db::PerBackend;

    crate::statements! {
        /// `$1` worker, `$2` submitter type, `$3`–`$4` days, `$5`–`$6` Mondays.
        pub const CLEAR: &str = "DELETE FROM regulatory_alerts WHERE user_id = $1 AND submitter_type = $2 \
             AND ((unit = 'day' AND day >= $3 AND day <= $4) OR (unit = 'week' AND day >= $5 AND day <= $6))";
        /// Every alert of a computation in one statement: `$5` is a JSON array of rows
        /// `[day, check, unit, extra, explanation, night_work, not_enough_break,
        /// too_much_uninterrupted_work_time]` (a statement per alert made a month's rebuild of a
        /// 200-worker company 14,000 round trips).
        pub const INSERT_ALERTS: PerBackend = PerBackend {
            sqlite: "INSERT INTO regulatory_alerts (creation_time, day, check_type, unit, submitter_type, user_id, \
                 business_id, extra, explanation, night_work, not_enough_break, too_much_uninterrupted_work_time) \
                 SELECT $1, json_extract(value, '$[0]'), json_extract(value, '$[1]'), json_extract(value, '$[2]'), \
                 $2, $3, $4, json_extract(value, '$[3]'), json_extract(value, '$[4]'), json_extract(value, '$[5]'), \
                 json_extract(value, '$[6]'), json_extract(value, '$[7]') FROM json_each($5)",
            postgres: "INSERT INTO regulatory_alerts (creation_time, day, check_type, unit, submitter_type, user_id, \
                 business_id, extra, explanation, night_work, not_enough_break, too_much_uninterrupted_work_time) \
                 SELECT $1, r.v->>0, r.v->>1, r.v->>2, $2, $3, $4, r.v->>3, r.v->>4, CAST(r.v->>5 AS BIGINT), \
                 CAST(r.v->>6 AS BIGINT), CAST(r.v->>7 AS BIGINT) \
                 FROM json_array_elements(CAST(CAST($5 AS TEXT) AS json)) AS r(v)",
        };
        /// Every computed day in one statement: `$4` is a JSON array of dates. (SQLite needs the
        /// `WHERE true` to read `ON CONFLICT` as the upsert's, not as part of the `SELECT`.)
        pub const MARK_COMPUTED: PerBackend = PerBackend {
            sqlite: "INSERT INTO regulation_computations (creation_time, day, submitter_type, user_id) \
                 SELECT $1, value, $2, $3 FROM json_each($4) WHERE true \
                 ON CONFLICT (day, user_id, submitter_type) DO NOTHING",
            postgres: "INSERT INTO regulation_computations (creation_time, day, submitter_type, user_id) \
                 SELECT $1, value, $2, $3 FROM json_array_elements_text(CAST(CAST($4 AS TEXT) AS json)) \
                 ON CONFLICT (day, user_id, submitter_type) DO NOTHING",
        };
    }
}

fn flag(alert: &Alert, key: &str) -> i64 {
    i64::from(alert.extra.get(key).and_then(serde_json::Value::as_bool) == Some(true))
}

/// Stores a computation of `user_id`'s alerts for `submitter`: three statements whatever the
/// number of alerts and days.
pub async fn save(
    conn: &mut AnyConnection,
    user_id: i64,
    submitter: SubmitterType,
    business: BusinessType,
    computation: &Computation,
) -> AppResult<()> {
    let created = now();
    let backend = Backend::of(conn);
    sqlx::query(sql::CLEAR)
        .bind(user_id)
        .bind(submitter.as_str())
        .bind(date_text(computation.days.0))
        .bind(date_text(computation.days.1))
        .bind(date_text(computation.weeks.0))
        .bind(date_text(computation.weeks.1))
        .execute(&mut *conn)
        .await?;
    if !computation.alerts.is_empty() {
        let mut rows = Vec::with_capacity(computation.alerts.len());
        for alert in &computation.alerts {
            let explanation = serde_json::to_string(&alert.explanation)
                .map_err(|e| AppError::internal(format!("explanation not serialisable: {e}")))?;
            let night_work = alert.check == CheckType::MaximumWorkDayTime && flag(alert, "night_work") == 1;
            rows.push(serde_json::json!([
                date_text(alert.day),
                alert.check.as_str(),
                alert.check.def().unit.as_str(),
                alert.extra_text(),
                explanation,
                i64::from(night_work),
                flag(alert, "not_enough_break"),
                flag(alert, "too_much_uninterrupted_work_time"),
            ]));
        }
        sqlx::query(backend.sql(sql::INSERT_ALERTS))
            .bind(created)
            .bind(submitter.as_str())
            .bind(user_id)
            .bind(business.id())
            .bind(serde_json::Value::Array(rows).to_string())
            .execute(&mut *conn)
            .await?;
    }
    if !computation.computed.is_empty() {
        let days: Vec<String> = computation.computed.iter().map(|d| date_text(*d)).collect();
        sqlx::query(backend.sql(sql::MARK_COMPUTED))
            .bind(created)
            .bind(submitter.as_str())
            .bind(user_id)
            .bind(serde_json::to_string(&days).map_err(|e| AppError::internal(e.to_string()))?)
            .execute(&mut *conn)
            .await?;
    }
    Ok(())
}
