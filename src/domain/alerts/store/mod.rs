//! Writing one computation: the worker's alerts of the submitter type in the recomputed days and
//! weeks become the computed ones, and every computed day gets its row (kept with its first
//! creation time). Only the difference is written: an alert computed again exactly as stored
//! keeps its row (its id and creation time), the others are deleted or inserted, so that a
//! recomputation of unchanged data (a validation of one mission recomputes whole weeks, the
//! operator's rebuild whole months) costs reads, not writes. Runs inside the caller's
//! transaction, so a recomputation is all or nothing, and running it twice leaves the same rows.

mod day_counts;
mod existing;
mod months;
mod prepared;

use sqlx::AnyConnection;

use crate::db::{Backend, id_list, now};
use crate::domain::companies::date_text;
use crate::domain::regulation::business::BusinessType;
use crate::domain::regulation::checks::SubmitterType;
use crate::domain::regulation::compute::Computation;
use crate::errors::{AppError, AppResult};

pub use day_counts::DayCounts;
pub use existing::{Existing, existing};
pub use months::share_with_company;
pub use prepared::{Prepared, prepare};

use prepared::Ready;

pub mod sql {
    use crate::db::PerBackend;

    crate::statements! {
        /// Alerts no longer computed (ids as one JSON array).
        pub const DELETE: PerBackend = crate::per_backend!("DELETE FROM regulatory_alerts WHERE ", ["id" in 1]);
        /// Every alert of a computation in one statement: `$5` is a JSON array of rows
        /// `[day, check, unit, extra, explanation, night_work, not_enough_break,
        /// too_much_uninterrupted_work_time, digest]`, so that a rebuild of a company's month is
        /// a statement per worker, not one per alert.
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

fn json<T: serde::Serialize>(value: &T) -> AppResult<String> {
    serde_json::to_string(value).map_err(|e| AppError::internal(format!("not serialisable: {e}")))
}

/// Stores a computation of `user_id`'s alerts for `submitter`: two reads, then at most six
/// statements whatever the number of alerts and days, none when nothing changed. The companies'
/// day counts change by `counts`, which the caller writes before it commits.
pub async fn save(
    conn: &mut AnyConnection,
    counts: &mut DayCounts,
    user_id: i64,
    submitter: SubmitterType,
    business: BusinessType,
    computation: &Computation,
) -> AppResult<()> {
    let mut stored = existing(conn, &[user_id], computation.days, computation.weeks).await?;
    let old = stored.remove(&(user_id, submitter)).unwrap_or_default();
    let prepared = prepare(computation, business)?;
    apply(conn, counts, (user_id, submitter, business), computation, prepared, old).await
}

/// Writes the difference between a computation (`prepared` from it) of a worker's side (`whose`:
/// worker, side and business) and what was stored (`old`, read by [`existing`] in the same
/// transaction): at most six statements, none when nothing changed; the companies' day counts
/// change by `counts`.
pub async fn apply(
    conn: &mut AnyConnection,
    counts: &mut DayCounts,
    whose: (i64, SubmitterType, BusinessType),
    computation: &Computation,
    prepared: Prepared,
    old: Existing,
) -> AppResult<()> {
    let (user_id, submitter, _) = whose;
    let created = now();
    let (deleted, inserted) = difference(prepared, old.alerts);
    let changed = !deleted.is_empty() || !inserted.is_empty();
    if !deleted.is_empty() {
        sqlx::query(Backend::of(conn).sql(sql::DELETE))
            .bind(id_list(&deleted))
            .execute(&mut *conn)
            .await?;
    }
    if !inserted.is_empty() {
        insert(conn, whose, created, inserted).await?;
    }
    if changed {
        let (days, weeks) = (computation.days, computation.weeks);
        let span = (days.0.min(weeks.0), days.1.max(weeks.1));
        months::summarise_months(conn, counts, user_id, submitter, span).await?;
    }
    // Computed days: the new ones get their row (kept with its first creation time).
    let days: Vec<String> = computation
        .computed
        .iter()
        .map(|d| date_text(*d))
        .filter(|d| !old.computed.contains(d))
        .collect();
    if !days.is_empty() {
        sqlx::query(Backend::of(conn).sql(sql::MARK_COMPUTED))
            .bind(created)
            .bind(submitter.as_str())
            .bind(user_id)
            .bind(json(&days)?)
            .execute(&mut *conn)
            .await?;
    }
    Ok(())
}

/// The stored alerts' ids to delete and the computed alerts to insert: an alert whose digest
/// matches the stored one of its day and check stays as it is.
fn difference(
    prepared: Prepared,
    mut old: std::collections::HashMap<(String, String), (i64, Option<String>)>,
) -> (Vec<i64>, Vec<Ready>) {
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
    (deleted, inserted)
}

/// [`sql::INSERT_ALERTS`] for the alerts `inserted` of a worker's side.
async fn insert(
    conn: &mut AnyConnection,
    (user_id, submitter, business): (i64, SubmitterType, BusinessType),
    created: i64,
    inserted: Vec<Ready>,
) -> AppResult<()> {
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
    sqlx::query(Backend::of(conn).sql(sql::INSERT_ALERTS))
        .bind(created)
        .bind(submitter.as_str())
        .bind(user_id)
        .bind(business.id())
        .bind(json(&rows)?)
        .execute(&mut *conn)
        .await?;
    Ok(())
}
