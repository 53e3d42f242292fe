//! Writing one computation: the worker's alerts of the submitter type in the recomputed days and
//! weeks become the computed ones, and every computed day gets its row (kept with its first
//! creation time). Only the difference is written: an alert computed again exactly as stored
//! keeps its row (its id and creation time), the others are deleted or inserted, so that a
//! recomputation of unchanged data (a validation of one mission recomputes whole weeks, the
//! operator's rebuild whole months) costs reads, not writes. Runs inside the caller's
//! transaction, so a recomputation is all or nothing, and running it twice leaves the same rows.

use sqlx::AnyConnection;

use std::collections::{HashMap, HashSet};

use chrono::NaiveDate;

use crate::db::{Backend, id_list, now};
use crate::domain::companies::date_text;
use crate::domain::regulation::business::BusinessType;
use crate::domain::regulation::checks::{CheckType, SubmitterType};
use crate::domain::regulation::compute::{Alert, Computation};
use crate::errors::{AppError, AppResult};

pub mod sql {
    use crate::db::PerBackend;
    use crate::db::sql::{ROWS_AS_JSON, ROWS_FROM};

    /// A month's items (`check_type flags days`, joined with `;`) from its groups `g`.
    const SUMMARY_ITEMS: PerBackend = PerBackend {
        sqlite: "group_concat(g.check_type || ' ' || g.flags || ' ' || g.days, ';')",
        postgres: "string_agg(g.check_type || ' ' || CAST(g.flags AS TEXT) || ' ' || CAST(g.days AS TEXT), ';')",
    };

    crate::statements! {
        /// The stored alerts of the workers `$1` (both sides) that computations of a period
        /// replace: days `$2`–`$3`, Mondays `$4`–`$5`, all within `$6`–`$7`. Their worker, side,
        /// id, day, check and digest only (all in the index `regulatory_alerts_recap`, so the
        /// rows and their 2 KB texts are not read), as one row.
        pub const STORED: PerBackend = crate::per_backend!(
            {ROWS_AS_JSON},
            "t.user_id, t.submitter_type, t.id, t.day, t.check_type, t.digest",
            {ROWS_FROM},
            "SELECT user_id, submitter_type, id, day, check_type, digest FROM regulatory_alerts WHERE ",
            ["user_id" in 1],
            " AND submitter_type IN ('employee', 'admin') AND day >= $6 AND day <= $7 \
             AND ((unit = 'day' AND day >= $2 AND day <= $3) OR (unit = 'week' AND day >= $4 AND day <= $5))) t"
        );
        /// The days of `$2`–`$3` already computed for the workers `$1` (both sides), as one row.
        pub const COMPUTED: PerBackend = crate::per_backend!(
            {ROWS_AS_JSON},
            "t.user_id, t.submitter_type, t.day",
            {ROWS_FROM},
            "SELECT user_id, submitter_type, day FROM regulation_computations WHERE ",
            ["user_id" in 1],
            " AND submitter_type IN ('employee', 'admin') AND day >= $2 AND day <= $3) t"
        );
        /// Alerts no longer computed (ids as one JSON array).
        pub const DELETE: PerBackend = crate::per_backend!("DELETE FROM regulatory_alerts WHERE ", ["id" in 1]);
        /// Every alert of a computation in one statement: `$5` is a JSON array of rows
        /// `[day, check, unit, extra, explanation, night_work, not_enough_break,
        /// too_much_uninterrupted_work_time, digest]` (a statement per alert made a month's rebuild of a
        /// 200-worker company 14,000 round trips).
        pub const INSERT_ALERTS: PerBackend = PerBackend {
            sqlite: "INSERT INTO regulatory_alerts (creation_time, day, check_type, unit, submitter_type, user_id, \
                 business_id, extra, explanation, night_work, not_enough_break, too_much_uninterrupted_work_time, digest) \
                 SELECT $1, json_extract(value, '$[0]'), json_extract(value, '$[1]'), json_extract(value, '$[2]'), \
                 $2, $3, $4, json_extract(value, '$[3]'), json_extract(value, '$[4]'), json_extract(value, '$[5]'), \
                 json_extract(value, '$[6]'), json_extract(value, '$[7]'), json_extract(value, '$[8]') FROM json_each($5)",
            postgres: "INSERT INTO regulatory_alerts (creation_time, day, check_type, unit, submitter_type, user_id, \
                 business_id, extra, explanation, night_work, not_enough_break, too_much_uninterrupted_work_time, digest) \
                 SELECT $1, r.v->>0, r.v->>1, r.v->>2, $2, $3, $4, r.v->>3, r.v->>4, CAST(r.v->>5 AS BIGINT), \
                 CAST(r.v->>6 AS BIGINT), CAST(r.v->>7 AS BIGINT), r.v->>8 \
                 FROM json_array_elements(CAST(CAST($5 AS TEXT) AS json)) AS r(v)",
        };
        /// The month summaries (`company_alert_month_summaries`, in every company) of worker
        /// `$1` and side `$2` from month `$3` to `$4` (`YYYY-MM`, both included), dropped before
        /// they are written again; their buckets are written again after.
        pub const FORGET_MONTHS: &str = "DELETE FROM company_alert_month_summaries \
             WHERE user_id = $1 AND submitter_type = $2 AND month >= $3 AND month <= $4 \
             RETURNING company_id, submitter_type, month";
        /// All of worker `$1`'s month summaries in company `$2`.
        pub const FORGET_COMPANY: &str = "DELETE FROM company_alert_month_summaries \
             WHERE user_id = $1 AND company_id = $2 RETURNING company_id, submitter_type, month";
        /// The same months summarised again from the alerts: days `$3` (the first month's first)
        /// to `$4` (the day after the last month); per month, the worker, the month and an item
        /// per check and flags (the format is in migrations 0051 and 0052). A worker has one
        /// alert per day, check and side at most, so the sum of the days' bits is their union.
        /// Written for each company in which the worker has an employment that was not rejected
        /// (only company `$5` when it is not null): the rows migration 0052 keeps.
        pub const SUMMARISE_MONTHS: PerBackend = crate::per_backend!(
            "INSERT INTO company_alert_month_summaries (company_id, submitter_type, month, user_id, bucket, summary) \
             SELECT e.company_id, $2, s.month, $1, $6, CAST(CAST($1 AS BIGINT) AS TEXT) || ' ' || s.month || ' ' || s.items \
             FROM (SELECT g.month, ",
            {SUMMARY_ITEMS},
            " AS items FROM (SELECT substr(day, 1, 7) AS month, check_type, \
               night_work + 2 * not_enough_break + 4 * too_much_uninterrupted_work_time AS flags, \
               CAST(SUM(CAST(1 AS BIGINT) << (CAST(substr(day, 9, 2) AS INTEGER) - 1)) AS BIGINT) AS days \
             FROM regulatory_alerts WHERE user_id = $1 AND submitter_type = $2 AND day >= $3 AND day < $4 \
             GROUP BY substr(day, 1, 7), check_type, night_work, not_enough_break, too_much_uninterrupted_work_time) g \
             GROUP BY g.month) s \
             CROSS JOIN (SELECT DISTINCT company_id FROM employments WHERE user_id = $1 \
               AND validation_status <> 'rejected' AND (CAST($5 AS BIGINT) IS NULL OR company_id = $5)) e \
             RETURNING company_id, submitter_type, month"
        );
        /// The buckets `$1` (a JSON array of `[company, side, month, bucket]`, in key order) made
        /// to exist and locked, in that order: an upsert that inserts the missing ones and, with
        /// its `WHERE false`, updates none but locks every existing one (PostgreSQL documents
        /// that rows are locked whether or not the condition holds). Locking in key order, and
        /// once per transaction, no two transactions wait on each other in a cycle. (SQLite
        /// needs the `WHERE true` to read `ON CONFLICT` as the upsert's.)
        pub const CLAIM_BUCKETS: PerBackend = PerBackend {
            sqlite: "INSERT INTO company_alert_month_buckets (company_id, submitter_type, month, bucket, summaries) \
                 SELECT json_extract(value, '$[0]'), json_extract(value, '$[1]'), json_extract(value, '$[2]'), \
                 json_extract(value, '$[3]'), '' FROM json_each($1) WHERE true ORDER BY key \
                 ON CONFLICT (company_id, submitter_type, month, bucket) DO UPDATE SET summaries = excluded.summaries WHERE false",
            postgres: "INSERT INTO company_alert_month_buckets (company_id, submitter_type, month, bucket, summaries) \
                 SELECT CAST(k.v->>0 AS BIGINT), k.v->>1, k.v->>2, CAST(k.v->>3 AS INTEGER), '' \
                 FROM json_array_elements(CAST(CAST($1 AS TEXT) AS json)) WITH ORDINALITY AS k(v, i) ORDER BY k.i \
                 ON CONFLICT (company_id, submitter_type, month, bucket) DO UPDATE SET summaries = excluded.summaries WHERE false",
        };
        /// The buckets `$1` (as in [`CLAIM_BUCKETS`], which locked them) written again from their
        /// workers' rows, as the database now is (on PostgreSQL, under READ COMMITTED, this
        /// statement sees what the transactions that held the locks before committed).
        pub const WRITE_BUCKETS: PerBackend = PerBackend {
            sqlite: "UPDATE company_alert_month_buckets AS b SET summaries = COALESCE((SELECT group_concat(s.summary, '|') \
                 FROM company_alert_month_summaries s WHERE s.company_id = b.company_id \
                 AND s.submitter_type = b.submitter_type AND s.month = b.month AND s.bucket = b.bucket), '') \
                 WHERE (b.company_id, b.submitter_type, b.month, b.bucket) IN (SELECT json_extract(value, '$[0]'), \
                 json_extract(value, '$[1]'), json_extract(value, '$[2]'), json_extract(value, '$[3]') FROM json_each($1))",
            postgres: "UPDATE company_alert_month_buckets AS b SET summaries = COALESCE((SELECT string_agg(s.summary, '|') \
                 FROM company_alert_month_summaries s WHERE s.company_id = b.company_id \
                 AND s.submitter_type = b.submitter_type AND s.month = b.month AND s.bucket = b.bucket), '') \
                 FROM (SELECT CAST(v->>0 AS BIGINT) AS company_id, v->>1 AS submitter_type, v->>2 AS month, \
                 CAST(v->>3 AS INTEGER) AS bucket FROM json_array_elements(CAST(CAST($1 AS TEXT) AS json)) AS r(v)) k \
                 WHERE b.company_id = k.company_id AND b.submitter_type = k.submitter_type AND b.month = k.month \
                 AND b.bucket = k.bucket",
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

/// An alert as stored, without its id, creation time and owner.
#[derive(PartialEq, Eq)]
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

impl Stored {
    /// What is compared with a stored alert instead of its texts: a SHA-256 (first 128 bits,
    /// hex) of every stored field, each prefixed by its length so that no two alerts share an
    /// input. Reading the texts back to compare them was 30 MB for a month's rebuild.
    fn digest(&self) -> String {
        use sha2::{Digest, Sha256};
        let mut hash = Sha256::new();
        let numbers = [
            self.business_id,
            self.night_work,
            self.not_enough_break,
            self.too_much_uninterrupted_work_time,
        ];
        for part in [&self.day, &self.check_type, &self.extra, &self.explanation] {
            hash.update((part.len() as u64).to_le_bytes());
            hash.update(part.as_bytes());
        }
        for number in numbers {
            hash.update(number.to_le_bytes());
        }
        hash.finalize()[..16].iter().map(|b| format!("{b:02x}")).collect()
    }
}

/// What is stored of one worker's side over a computation's period: the alerts by day and
/// check (id and digest; no digest: stored before digests were, compared as different and so
/// written again once) and the days already computed.
#[derive(Default)]
pub struct Existing {
    alerts: HashMap<(String, String), (i64, Option<String>)>,
    computed: HashSet<String>,
}

/// The stored alerts and computed days of `users`, both sides, that computations of a period
/// with these `days` and `weeks` (see [`Computation`]) replace: two statements, whatever the
/// number of workers.
pub async fn existing(
    conn: &mut AnyConnection,
    users: &[i64],
    days: (NaiveDate, NaiveDate),
    weeks: (NaiveDate, NaiveDate),
) -> AppResult<HashMap<(i64, SubmitterType), Existing>> {
    let backend = Backend::of(conn);
    let (first, last) = (days.0.min(weeks.0), days.1.max(weeks.1));
    let (alerts,): (String,) = sqlx::query_as(backend.sql(sql::STORED))
        .bind(id_list(users))
        .bind(date_text(days.0))
        .bind(date_text(days.1))
        .bind(date_text(weeks.0))
        .bind(date_text(weeks.1))
        .bind(date_text(first))
        .bind(date_text(last))
        .fetch_one(&mut *conn)
        .await?;
    let (computed,): (String,) = sqlx::query_as(backend.sql(sql::COMPUTED))
        .bind(id_list(users))
        .bind(date_text(first))
        .bind(date_text(last))
        .fetch_one(&mut *conn)
        .await?;
    let mut existing: HashMap<(i64, SubmitterType), Existing> = HashMap::new();
    let side =
        |text: &str| SubmitterType::from_str_opt(text).ok_or_else(|| AppError::internal(format!("stored side {text}")));
    let alerts: Vec<(i64, String, i64, String, String, Option<String>)> = super::json_rows(&alerts)?;
    // (day, check) is unique per worker and submitter type (a table constraint).
    for (user, submitter, id, day, check, digest) in alerts {
        let of = existing.entry((user, side(&submitter)?)).or_default();
        of.alerts.insert((day, check), (id, digest));
    }
    let computed: Vec<(i64, String, String)> = super::json_rows(&computed)?;
    for (user, submitter, day) in computed {
        existing
            .entry((user, side(&submitter)?))
            .or_default()
            .computed
            .insert(day);
    }
    Ok(existing)
}

/// A computation's alerts as they are stored, each with its digest and unit: pure work (the
/// explanations serialised and hashed), which the rebuild does on every core.
pub struct Prepared {
    alerts: Vec<(Stored, String, &'static str)>,
}

/// Prepares `computation`'s alerts for `business`.
pub fn prepare(computation: &Computation, business: BusinessType) -> AppResult<Prepared> {
    let alerts = computation
        .alerts
        .iter()
        .map(|alert| {
            let stored = stored(alert, business)?;
            let digest = stored.digest();
            Ok((stored, digest, alert.check.def().unit.as_str()))
        })
        .collect::<AppResult<Vec<_>>>()?;
    Ok(Prepared { alerts })
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
    touched: &mut Touched,
    user_id: i64,
    submitter: SubmitterType,
    business: BusinessType,
    computation: &Computation,
) -> AppResult<()> {
    let mut stored = existing(conn, &[user_id], computation.days, computation.weeks).await?;
    let old = stored.remove(&(user_id, submitter)).unwrap_or_default();
    let prepared = prepare(computation, business)?;
    apply(conn, touched, user_id, submitter, business, computation, prepared, old).await
}

/// Writes the difference between a computation (`prepared` from it) and what was stored (`old`,
/// read by [`existing`] in the same transaction): at most five statements, none when nothing
/// changed. The summary buckets it changes are added to `touched`.
#[allow(clippy::too_many_arguments)]
pub async fn apply(
    conn: &mut AnyConnection,
    touched: &mut Touched,
    user_id: i64,
    submitter: SubmitterType,
    business: BusinessType,
    computation: &Computation,
    prepared: Prepared,
    old: Existing,
) -> AppResult<()> {
    let created = now();
    let backend = Backend::of(conn);
    let (days, weeks) = (computation.days, computation.weeks);
    let Existing {
        alerts: mut old,
        computed: known,
    } = old;
    let mut deleted = Vec::new();
    let mut inserted = Vec::new();
    for (new, digest, unit) in prepared.alerts {
        match old.remove(&(new.day.clone(), new.check_type.clone())) {
            Some((_, Some(stored))) if stored == digest => {}
            Some((id, _)) => {
                deleted.push(id);
                inserted.push((new, digest, unit));
            }
            None => inserted.push((new, digest, unit)),
        }
    }
    deleted.extend(old.into_values().map(|(id, _)| id));
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
            .map(|(a, digest, unit)| {
                serde_json::json!([
                    a.day,
                    a.check_type,
                    unit,
                    a.extra,
                    a.explanation,
                    a.night_work,
                    a.not_enough_break,
                    a.too_much_uninterrupted_work_time,
                    digest,
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
        let (first, last) = (days.0.min(weeks.0), days.1.max(weeks.1));
        summarise_months(conn, touched, user_id, submitter, first, last).await?;
    }
    // Computed days: the new ones get their row (kept with its first creation time).
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
    Ok(())
}

/// Summarises again the months from `first`'s to `last`'s of the worker's alerts of one side
/// (`company_alert_month_summaries`), from the alerts as they now are, in each company that keeps
/// them; the buckets of the rows dropped or written are added to `touched`.
async fn summarise_months(
    conn: &mut AnyConnection,
    touched: &mut Touched,
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
    let dropped: Vec<(i64, String, String)> = sqlx::query_as(sql::FORGET_MONTHS)
        .bind(user_id)
        .bind(submitter.as_str())
        .bind(month(from))
        .bind(month(last_month))
        .fetch_all(&mut *conn)
        .await?;
    touched.add(user_id, dropped);
    let range = (date_text(from), date_text(until));
    let written = summarise(conn, user_id, submitter, (&range.0, &range.1), None).await?;
    touched.add(user_id, written);
    Ok(())
}

/// [`sql::SUMMARISE_MONTHS`]: the days `[from, until)` (texts), for every company that keeps the
/// worker's summaries or only `company`; the keys of the rows written.
async fn summarise(
    conn: &mut AnyConnection,
    user_id: i64,
    submitter: SubmitterType,
    (from, until): (&str, &str),
    company: Option<i64>,
) -> AppResult<Vec<(i64, String, String)>> {
    Ok(sqlx::query_as(Backend::of(conn).sql(sql::SUMMARISE_MONTHS))
        .bind(user_id)
        .bind(submitter.as_str())
        .bind(from)
        .bind(until)
        .bind(company)
        .bind(bucket(user_id))
        .fetch_all(&mut *conn)
        .await?)
}

/// Gives company `company_id` the month summaries of worker `user_id`, who now has an
/// employment there: all of them, of both sides, from the alerts (rows left there by an earlier
/// employment are replaced), and writes their buckets again. Called in the transaction that
/// creates or accepts the employment, the worker locked, so that no computation of the worker's
/// alerts runs in between; it must be that transaction's only change of summaries (see
/// [`Touched`]).
pub async fn share_with_company(conn: &mut AnyConnection, user_id: i64, company_id: i64) -> AppResult<()> {
    // Texts below and above every day's `YYYY-MM-DD`.
    const EVERY_DAY: (&str, &str) = ("0000-00-00", "9999-99-99");
    let mut touched = Touched::default();
    let dropped: Vec<(i64, String, String)> = sqlx::query_as(sql::FORGET_COMPANY)
        .bind(user_id)
        .bind(company_id)
        .fetch_all(&mut *conn)
        .await?;
    touched.add(user_id, dropped);
    for side in [SubmitterType::Employee, SubmitterType::Admin] {
        let written = summarise(conn, user_id, side, EVERY_DAY, Some(company_id)).await?;
        touched.add(user_id, written);
    }
    touched.write(conn).await
}

/// How many buckets a company's month summaries are kept in (migration 0053).
const BUCKETS: i64 = 16;

/// The bucket of a worker's summaries: `user_id % 16`, as SQL's `%` computes it.
fn bucket(user_id: i64) -> i64 {
    user_id % BUCKETS
}

/// The summary buckets (`company_alert_month_buckets`: company, side, month, bucket) whose rows
/// a transaction changed, written again by [`Touched::write`] once, just before it commits.
///
/// Once: the write locks its buckets in key order, and a transaction that locked some, then
/// others later, could wait on a second transaction that waits on it (the rebuild's 16 workers
/// of a company against a validation of several of its workers, each writing after each
/// worker). So every computation of a transaction adds to one `Touched` and the transaction
/// writes it last.
#[derive(Debug, Default)]
pub struct Touched(std::collections::BTreeSet<(i64, String, String, i64)>);

impl Touched {
    fn add(&mut self, user_id: i64, rows: Vec<(i64, String, String)>) {
        let bucket = bucket(user_id);
        self.0.extend(
            rows.into_iter()
                .map(|(company, side, month)| (company, side, month, bucket)),
        );
    }

    /// Locks the buckets (in key order, creating the missing ones) and writes them again from
    /// their workers' rows: two statements, none when no bucket changed.
    pub async fn write(self, conn: &mut AnyConnection) -> AppResult<()> {
        if self.0.is_empty() {
            return Ok(());
        }
        // A set serialises as an array, in its (key) order.
        let keys = json(&self.0)?;
        let backend = Backend::of(conn);
        sqlx::query(backend.sql(sql::CLAIM_BUCKETS))
            .bind(&keys)
            .execute(&mut *conn)
            .await?;
        sqlx::query(backend.sql(sql::WRITE_BUCKETS))
            .bind(&keys)
            .execute(&mut *conn)
            .await?;
        Ok(())
    }
}
