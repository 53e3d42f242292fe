//! The recap's month summaries (`company_alert_months`, migrations 0059 and 0061): a row per
//! company, side, month, check, flags and worker (in that key order, the order a recap adds them
//! up), with the month's alerted days as a bit set. Each is written again from the worker's
//! alerts in the transaction that changes them, under the worker's lock, so a transaction only
//! ever writes its own workers' rows. What a transaction removes and writes goes into its
//! [`DayCounts`], the company's counts per day.

use chrono::{Datelike, Months, NaiveDate};
use sqlx::AnyConnection;

use crate::domain::companies::date_text;
use crate::domain::regulation::checks::SubmitterType;
use crate::errors::AppResult;

use super::day_counts::{DayCounts, MonthDays};

pub mod sql {
    /// What the month statements give back of the rows they remove or write.
    const RETURNED: &str = " RETURNING company_id, submitter_type, month, check_type, night_work, not_enough_break, \
         too_much_uninterrupted_work_time, days";

    crate::statements! {
        /// The month rows (in every company) of worker `$1` and side `$2` from month `$3` to
        /// `$4` (`YYYY-MM`, both included), dropped before they are written again.
        pub const FORGET_MONTHS: &str = const_format::concatcp!(
             "DELETE FROM company_alert_months \
             WHERE user_id = $1 AND submitter_type = $2 AND month >= $3 AND month <= $4",
             RETURNED
        );
        /// All of worker `$1`'s month rows in company `$2`.
        pub const FORGET_COMPANY: &str = const_format::concatcp!(
            "DELETE FROM company_alert_months WHERE user_id = $1 AND company_id = $2",
            RETURNED
        );
        /// The month rows of worker `$1` and side `$2` written again from the alerts of days `$3`
        /// (included) to `$4` (excluded): per month, check and flags, how many alerts and on
        /// which days. A worker has at most one alert per day, check and side, so the sum of the
        /// days' bits is their union. Written for each company in which the worker has an
        /// employment that was not rejected (only company `$5` when it is not null).
        pub const SUMMARISE_MONTHS: &str = const_format::concatcp!(
            "INSERT INTO company_alert_months (company_id, submitter_type, month, \
               user_id, check_type, night_work, not_enough_break, too_much_uninterrupted_work_time, alerts, days) \
             SELECT e.company_id, $2, g.month, $1, g.check_type, g.night_work, g.not_enough_break, \
               g.too_much_uninterrupted_work_time, g.alerts, g.days \
             FROM (SELECT substr(day, 1, 7) AS month, check_type, night_work, not_enough_break, \
                 too_much_uninterrupted_work_time, COUNT(*) AS alerts, \
                 CAST(SUM(CAST(1 AS BIGINT) << (CAST(substr(day, 9, 2) AS INTEGER) - 1)) AS BIGINT) AS days \
               FROM regulatory_alerts WHERE user_id = $1 AND submitter_type = $2 AND day >= $3 AND day < $4 \
               GROUP BY substr(day, 1, 7), check_type, night_work, not_enough_break, too_much_uninterrupted_work_time) g \
             CROSS JOIN (SELECT DISTINCT company_id FROM employments WHERE user_id = $1 \
               AND validation_status <> 'rejected' AND (CAST($5 AS BIGINT) IS NULL OR company_id = $5)) e",
            RETURNED
        );
    }
}

fn month_text(day: NaiveDate) -> String {
    day.format("%Y-%m").to_string()
}

/// Summarises again the months from `first`'s to `last`'s of the worker's alerts of one side,
/// from the alerts as they now are, in each company that keeps them: two statements. The
/// companies' day counts change by the difference (`counts`).
pub(super) async fn summarise_months(
    conn: &mut AnyConnection,
    counts: &mut DayCounts,
    user_id: i64,
    submitter: SubmitterType,
    (first, last): (NaiveDate, NaiveDate),
) -> AppResult<()> {
    let from = first.with_day(1).unwrap_or(first);
    let last_month = last.with_day(1).unwrap_or(last);
    let removed: Vec<MonthDays> = sqlx::query_as(sql::FORGET_MONTHS)
        .bind(user_id)
        .bind(submitter.as_str())
        .bind(month_text(from))
        .bind(month_text(last_month))
        .fetch_all(&mut *conn)
        .await?;
    counts.removed(&removed);
    let until = last_month + Months::new(1);
    let written = summarise(conn, user_id, submitter, (&date_text(from), &date_text(until)), None).await?;
    counts.added(&written);
    Ok(())
}

/// [`sql::SUMMARISE_MONTHS`]: the days `[from, until)` (texts), for every company that keeps the
/// worker's rows or only `company`; gives back the rows written.
async fn summarise(
    conn: &mut AnyConnection,
    user_id: i64,
    submitter: SubmitterType,
    (from, until): (&str, &str),
    company: Option<i64>,
) -> AppResult<Vec<MonthDays>> {
    Ok(sqlx::query_as(sql::SUMMARISE_MONTHS)
        .bind(user_id)
        .bind(submitter.as_str())
        .bind(from)
        .bind(until)
        .bind(company)
        .fetch_all(&mut *conn)
        .await?)
}

/// Gives company `company_id` the month rows of worker `user_id`, who now has an employment
/// there: all of them, of both sides, from the alerts (rows left there by an earlier employment
/// are replaced). Called in the transaction that creates or accepts the employment, the worker
/// locked, so that no computation of the worker's alerts runs in between. The company's day
/// counts change by the difference, written at once.
pub async fn share_with_company(conn: &mut AnyConnection, user_id: i64, company_id: i64) -> AppResult<()> {
    // Texts below and above every day's `YYYY-MM-DD`.
    const EVERY_DAY: (&str, &str) = ("0000-00-00", "9999-99-99");
    let mut counts = DayCounts::new();
    let removed: Vec<MonthDays> = sqlx::query_as(sql::FORGET_COMPANY)
        .bind(user_id)
        .bind(company_id)
        .fetch_all(&mut *conn)
        .await?;
    counts.removed(&removed);
    for side in [SubmitterType::Employee, SubmitterType::Admin] {
        let written = summarise(conn, user_id, side, EVERY_DAY, Some(company_id)).await?;
        counts.added(&written);
    }
    counts.write(conn).await
}
