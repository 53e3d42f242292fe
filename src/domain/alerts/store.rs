//! Writing one computation: the worker's alerts of the submitter type in the recomputed days and
//! weeks become the computed ones, and every computed day gets its row (kept with its first
//! creation time). Only the difference is written: an alert computed again exactly as stored
//! keeps its row (its id and creation time), the others are deleted or inserted, so that a
//! recomputation of unchanged data (a validation of one mission recomputes whole weeks, the
//! operator's rebuild whole months) costs reads, not writes. Runs inside the caller's
//! transaction, so a recomputation is all or nothing, and running it twice leaves the same rows.

use sqlx::AnyConnection;

use std::collections::{HashMap, HashSet};

use crate::db::{Backend, id_list, now};
use crate::domain::companies::date_text;
use crate::domain::regulation::business::BusinessType;
use crate::domain::regulation::checks::{CheckType, SubmitterType};
use crate::domain::regulation::compute::{Alert, Computation};
use crate::errors::{AppError, AppResult};

pub mod sql {
    use crate::db::PerBackend;

    crate::statements! {
        /// The stored alerts a computation replaces: `$1` worker, `$2` submitter type, `$3`–`$4`
        /// days, `$5`–`$6` Mondays.
        pub const STORED: &str = "SELECT id, day, check_type, business_id, extra, explanation, night_work, \
             not_enough_break, too_much_uninterrupted_work_time FROM regulatory_alerts \
             WHERE user_id = $1 AND submitter_type = $2 \
             AND ((unit = 'day' AND day >= $3 AND day <= $4) OR (unit = 'week' AND day >= $5 AND day <= $6))";
        /// The days of `$3`–`$4` already computed for the worker and submitter type.
        pub const COMPUTED: &str = "SELECT day FROM regulation_computations \
             WHERE user_id = $1 AND submitter_type = $2 AND day >= $3 AND day <= $4";
        /// Alerts no longer computed (ids as one JSON array).
        pub const DELETE: PerBackend = crate::per_backend!("DELETE FROM regulatory_alerts WHERE ", ["id" in 1]);
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
        /// The month summaries (`regulatory_alert_months`) of worker `$1` and side `$2` from
        /// month `$3` to `$4` (`YYYY-MM`, both included), dropped before they are written again.
        pub const FORGET_MONTHS: &str = "DELETE FROM regulatory_alert_months \
             WHERE user_id = $1 AND submitter_type = $2 AND month >= $3 AND month <= $4";
        /// The same months summarised again from the alerts: days `$3` (the first month's first)
        /// to `$4` (the day after the last month). A worker has one alert per day, check and side
        /// at most, so the sum of the days' bits is their union.
        pub const SUMMARISE_MONTHS: &str = "INSERT INTO regulatory_alert_months (user_id, submitter_type, month, \
             check_type, night_work, not_enough_break, too_much_uninterrupted_work_time, alerts, days) \
             SELECT $1, $2, substr(day, 1, 7), check_type, night_work, not_enough_break, \
               too_much_uninterrupted_work_time, COUNT(*), \
               SUM(CAST(1 AS BIGINT) << (CAST(substr(day, 9, 2) AS INTEGER) - 1)) \
             FROM regulatory_alerts WHERE user_id = $1 AND submitter_type = $2 AND day >= $3 AND day < $4 \
             GROUP BY substr(day, 1, 7), check_type, night_work, not_enough_break, too_much_uninterrupted_work_time";
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

/// An alert as stored, without its id, creation time and owner.
#[derive(sqlx::FromRow, PartialEq, Eq)]
struct Stored {
    day: String,
    check_type: String,
    business_id: i64,
    extra: String,
    explanation: String,
    night_work: i64,
    not_enough_break: i64,
    too_much_uninterrupted_work_time: i64,
}

#[derive(sqlx::FromRow)]
struct StoredRow {
    id: i64,
    #[sqlx(flatten)]
    alert: Stored,
}

fn stored(alert: &Alert, business: BusinessType) -> AppResult<Stored> {
    let explanation = serde_json::to_string(&alert.explanation)
        .map_err(|e| AppError::internal(format!("explanation not serialisable: {e}")))?;
    let night_work = alert.check == CheckType::MaximumWorkDayTime && flag(alert, "night_work") == 1;
    Ok(Stored {
        day: date_text(alert.day),
        check_type: alert.check.as_str().to_string(),
        business_id: business.id(),
        extra: alert.extra_text(),
        explanation,
        night_work: i64::from(night_work),
        not_enough_break: flag(alert, "not_enough_break"),
        too_much_uninterrupted_work_time: flag(alert, "too_much_uninterrupted_work_time"),
    })
}

fn json<T: serde::Serialize>(value: &T) -> AppResult<String> {
    serde_json::to_string(value).map_err(|e| AppError::internal(format!("not serialisable: {e}")))
}

/// Stores a computation of `user_id`'s alerts for `submitter`: two reads, then at most five
/// statements whatever the number of alerts and days, none when nothing changed.
pub async fn save(
    conn: &mut AnyConnection,
    user_id: i64,
    submitter: SubmitterType,
    business: BusinessType,
    computation: &Computation,
) -> AppResult<()> {
    let created = now();
    let backend = Backend::of(conn);
    let (days, weeks) = (computation.days, computation.weeks);
    let old: Vec<StoredRow> = sqlx::query_as(sql::STORED)
        .bind(user_id)
        .bind(submitter.as_str())
        .bind(date_text(days.0))
        .bind(date_text(days.1))
        .bind(date_text(weeks.0))
        .bind(date_text(weeks.1))
        .fetch_all(&mut *conn)
        .await?;
    // (day, check) is unique per worker and submitter type (a table constraint).
    let mut old: HashMap<(String, String), StoredRow> = old
        .into_iter()
        .map(|row| ((row.alert.day.clone(), row.alert.check_type.clone()), row))
        .collect();
    let mut deleted = Vec::new();
    let mut inserted = Vec::new();
    for alert in &computation.alerts {
        let new = stored(alert, business)?;
        let unit = alert.check.def().unit.as_str();
        match old.remove(&(new.day.clone(), new.check_type.clone())) {
            Some(row) if row.alert == new => {}
            Some(row) => {
                deleted.push(row.id);
                inserted.push((new, unit));
            }
            None => inserted.push((new, unit)),
        }
    }
    deleted.extend(old.into_values().map(|row| row.id));
    let changed = !deleted.is_empty() || !inserted.is_empty();
    if !deleted.is_empty() {
        sqlx::query(backend.sql(sql::DELETE))
            .bind(id_list(&deleted))
            .execute(&mut *conn)
            .await?;
    }
    if !inserted.is_empty() {
        let rows: Vec<serde_json::Value> = inserted
            .into_iter()
            .map(|(a, unit)| {
                serde_json::json!([
                    a.day,
                    a.check_type,
                    unit,
                    a.extra,
                    a.explanation,
                    a.night_work,
                    a.not_enough_break,
                    a.too_much_uninterrupted_work_time,
                ])
            })
            .collect();
        sqlx::query(backend.sql(sql::INSERT_ALERTS))
            .bind(created)
            .bind(submitter.as_str())
            .bind(user_id)
            .bind(business.id())
            .bind(json(&rows)?)
            .execute(&mut *conn)
            .await?;
    }
    if changed {
        summarise_months(conn, user_id, submitter, days.0.min(weeks.0), days.1.max(weeks.1)).await?;
    }
    let first = computation.computed.first().copied();
    let last = computation.computed.last().copied();
    if let (Some(first), Some(last)) = (first, last) {
        let known: Vec<(String,)> = sqlx::query_as(sql::COMPUTED)
            .bind(user_id)
            .bind(submitter.as_str())
            .bind(date_text(first))
            .bind(date_text(last))
            .fetch_all(&mut *conn)
            .await?;
        let known: HashSet<String> = known.into_iter().map(|r| r.0).collect();
        let days: Vec<String> = computation
            .computed
            .iter()
            .map(|d| date_text(*d))
            .filter(|d| !known.contains(d))
            .collect();
        if !days.is_empty() {
            sqlx::query(backend.sql(sql::MARK_COMPUTED))
                .bind(created)
                .bind(submitter.as_str())
                .bind(user_id)
                .bind(json(&days)?)
                .execute(&mut *conn)
                .await?;
        }
    }
    Ok(())
}

/// Summarises again the months from `first`'s to `last`'s of the worker's alerts of one side
/// (`regulatory_alert_months`, which the company recap reads), from the alerts as they now are.
async fn summarise_months(
    conn: &mut AnyConnection,
    user_id: i64,
    submitter: SubmitterType,
    first: chrono::NaiveDate,
    last: chrono::NaiveDate,
) -> AppResult<()> {
    use chrono::{Datelike, Months};
    let from = first.with_day(1).unwrap_or(first);
    let last_month = last.with_day(1).unwrap_or(last);
    let until = last_month + Months::new(1);
    let month = |d: chrono::NaiveDate| d.format("%Y-%m").to_string();
    sqlx::query(sql::FORGET_MONTHS)
        .bind(user_id)
        .bind(submitter.as_str())
        .bind(month(from))
        .bind(month(last_month))
        .execute(&mut *conn)
        .await?;
    sqlx::query(sql::SUMMARISE_MONTHS)
        .bind(user_id)
        .bind(submitter.as_str())
        .bind(date_text(from))
        .bind(date_text(until))
        .execute(&mut *conn)
        .await?;
    Ok(())
}
