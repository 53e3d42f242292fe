//! What is stored of workers' computations over a period: the alerts a recomputation replaces
//! (their ids and digests) and the days already computed.

use std::collections::{HashMap, HashSet};

use chrono::NaiveDate;
use sqlx::AnyConnection;

use crate::db::{Backend, id_list};
use crate::domain::companies::date_text;
use crate::domain::regulation::checks::SubmitterType;
use crate::errors::{AppError, AppResult};

pub mod sql {
    use crate::db::PerBackend;

    crate::statements! {
        /// The stored alerts of the workers `$1` (both sides) that computations of a period
        /// replace: days `$2`–`$3`, Mondays `$4`–`$5`, all within `$6`–`$7`. Their worker, side,
        /// id, day, check and digest only: all in the index `regulatory_alerts_recap`, so the
        /// rows and their explanation texts are not read.
        pub const STORED: PerBackend = crate::per_backend!(
            "SELECT user_id, submitter_type, id, day, check_type, digest FROM regulatory_alerts WHERE ",
            ["user_id" in 1],
            " AND submitter_type IN ('employee', 'admin') AND day >= $6 AND day <= $7 \
             AND ((unit = 'day' AND day >= $2 AND day <= $3) OR (unit = 'week' AND day >= $4 AND day <= $5))"
        );
        /// The days of `$2`–`$3` already computed for the workers `$1` (both sides).
        pub const COMPUTED: PerBackend = crate::per_backend!(
            "SELECT user_id, submitter_type, day FROM regulation_computations WHERE ",
            ["user_id" in 1],
            " AND submitter_type IN ('employee', 'admin') AND day >= $2 AND day <= $3"
        );
    }
}

/// What is stored of one worker's side over a computation's period: the alerts by day and
/// check (id and digest; no digest: stored before digests were, compared as different and so
/// written again once) and the days already computed.
#[derive(Default)]
pub struct Existing {
    pub(super) alerts: HashMap<(String, String), (i64, Option<String>)>,
    pub(super) computed: HashSet<String>,
}

/// A stored alert: worker, side, id, day, check and digest.
type StoredRow = (i64, String, i64, String, String, Option<String>);

/// The stored alerts and computed days of `users`, both sides, that computations of a period
/// with these `days` and `weeks` (see [`crate::domain::regulation::compute::Computation`])
/// replace: two statements, whatever the number of workers.
pub async fn existing(
    conn: &mut AnyConnection,
    users: &[i64],
    days: (NaiveDate, NaiveDate),
    weeks: (NaiveDate, NaiveDate),
) -> AppResult<HashMap<(i64, SubmitterType), Existing>> {
    let backend = Backend::of(conn);
    let (first, last) = (days.0.min(weeks.0), days.1.max(weeks.1));
    let alerts: Vec<StoredRow> = sqlx::query_as(backend.sql(sql::STORED))
        .bind(id_list(users))
        .bind(date_text(days.0))
        .bind(date_text(days.1))
        .bind(date_text(weeks.0))
        .bind(date_text(weeks.1))
        .bind(date_text(first))
        .bind(date_text(last))
        .fetch_all(&mut *conn)
        .await?;
    let computed: Vec<(i64, String, String)> = sqlx::query_as(backend.sql(sql::COMPUTED))
        .bind(id_list(users))
        .bind(date_text(first))
        .bind(date_text(last))
        .fetch_all(&mut *conn)
        .await?;
    let mut existing: HashMap<(i64, SubmitterType), Existing> = HashMap::new();
    // (day, check) is unique per worker and submitter type (a table constraint).
    for (user, submitter, id, day, check, digest) in alerts {
        let of = existing.entry((user, side(&submitter)?)).or_default();
        of.alerts.insert((day, check), (id, digest));
    }
    for (user, submitter, day) in computed {
        let of = existing.entry((user, side(&submitter)?)).or_default();
        of.computed.insert(day);
    }
    Ok(existing)
}

/// A stored `submitter_type`.
fn side(text: &str) -> AppResult<SubmitterType> {
    SubmitterType::from_str_opt(text).ok_or_else(|| AppError::internal(format!("stored side {text}")))
}
