//! What a computation reads: the worker's zone and the missions that qualify for the submitter
//! type, with every activity of the worker in them that counts (not cancelled, not `off`).

use std::collections::BTreeMap;

use chrono::NaiveDate;
use sqlx::AnyConnection;

use crate::db::Backend;
use crate::domain::kinds::ActivityType;
use crate::domain::regulation::checks::SubmitterType;
use crate::domain::regulation::time;
use crate::domain::regulation::workdays::{Activity, Mission};
use crate::errors::AppResult;

pub mod sql {
    use crate::db::PerBackend;

    crate::statements! {
        pub const ZONE: &str = "SELECT timezone_name FROM users WHERE id = $1";
        /// The zones of the workers `$1`.
        pub const ZONES: PerBackend = crate::per_backend!("SELECT id, timezone_name FROM users WHERE ", ["id" in 1]);
        /// `$1` worker, `$2`/`$3` the instants the missions must overlap. Missions the worker
        /// validated himself (any company): their activities' id, mission, type, start and end.
        pub const EMPLOYEE_ACTIVITIES: &str = "SELECT a.id, a.mission_id, a.type, a.start_time, a.end_time \
             FROM activities a \
             WHERE a.user_id = $1 AND a.dismissed_at IS NULL AND a.type <> 'off' \
               AND a.mission_id IN (SELECT s.mission_id FROM mission_spans s \
                                    WHERE s.user_id = $1 AND s.start_time < $3 AND s.end_time > $2) \
               AND EXISTS (SELECT 1 FROM mission_validations v \
                           WHERE v.mission_id = a.mission_id AND v.user_id = $1 AND v.submitter_id = $1)";
        /// The same for missions an admin validated for the worker (or for everyone).
        pub const ADMIN_ACTIVITIES: &str = "SELECT a.id, a.mission_id, a.type, a.start_time, a.end_time \
             FROM activities a \
             WHERE a.user_id = $1 AND a.dismissed_at IS NULL AND a.type <> 'off' \
               AND a.mission_id IN (SELECT s.mission_id FROM mission_spans s \
                                    WHERE s.user_id = $1 AND s.start_time < $3 AND s.end_time > $2) \
               AND EXISTS (SELECT 1 FROM mission_validations v \
                           WHERE v.mission_id = a.mission_id AND v.is_admin = 1 \
                             AND (v.user_id = $1 OR v.user_id IS NULL))";
        /// For the rebuild: the activities of the workers `$1` in the missions whose span
        /// overlaps `$2`–`$3` (the widest window of the workers: each is narrowed afterwards), with
        /// that span and whether the worker (`by_self`) or an admin (`by_admin`) validated the
        /// mission: both sides of a few workers in one statement.
        pub const ACTIVITIES_OF_WORKERS: PerBackend = crate::per_backend!(
            // The validations are looked up once per mission, not once per activity.
            "WITH s AS MATERIALIZED (SELECT s.user_id, s.mission_id, s.start_time, s.end_time, \
               CASE WHEN EXISTS (SELECT 1 FROM mission_validations v WHERE v.mission_id = s.mission_id \
                 AND v.user_id = s.user_id AND v.submitter_id = s.user_id) THEN 1 ELSE 0 END AS by_self, \
               CASE WHEN EXISTS (SELECT 1 FROM mission_validations v WHERE v.mission_id = s.mission_id \
                 AND v.is_admin = 1 AND (v.user_id = s.user_id OR v.user_id IS NULL)) THEN 1 ELSE 0 END AS by_admin \
               FROM mission_spans s WHERE ",
            ["s.user_id" in 1],
            " AND s.start_time < $3 AND s.end_time > $2) \
             SELECT s.user_id AS user_id, s.start_time AS span_start, s.end_time AS span_end, a.id AS id, \
               a.mission_id AS mission_id, a.type AS type, a.start_time AS start_time, a.end_time AS end_time, \
               s.by_self AS by_self, s.by_admin AS by_admin \
             FROM s JOIN activities a ON a.mission_id = s.mission_id AND a.user_id = s.user_id \
             WHERE a.dismissed_at IS NULL AND a.type <> 'off'"
        );
    }
}

/// The worker's zone (the reference's default when unknown).
pub async fn zone(conn: &mut AnyConnection, user_id: i64) -> AppResult<chrono_tz::Tz> {
    let row: Option<(String,)> = sqlx::query_as(sql::ZONE).bind(user_id).fetch_optional(conn).await?;
    Ok(time::zone(row.as_ref().map(|r| r.0.as_str()).unwrap_or("Europe/Paris")))
}

/// The zones of several workers (the reference's default when unknown), in one statement.
pub async fn zones(conn: &mut AnyConnection, users: &[i64]) -> AppResult<BTreeMap<i64, chrono_tz::Tz>> {
    let rows: Vec<(i64, String)> = sqlx::query_as(Backend::of(conn).sql(sql::ZONES))
        .bind(crate::db::id_list(users))
        .fetch_all(&mut *conn)
        .await?;
    let found: BTreeMap<i64, String> = rows.into_iter().collect();
    Ok(users
        .iter()
        .map(|user| {
            (
                *user,
                time::zone(found.get(user).map_or("Europe/Paris", String::as_str)),
            )
        })
        .collect())
}

/// An activity as the statements give it: id, mission, type, start, end.
type Row = (i64, i64, String, i64, Option<i64>);

/// The instants a computation of the local date `day` reads missions in, wherever the period
/// computed with it started or ended.
pub fn reads(tz: chrono_tz::Tz, day: NaiveDate) -> (i64, i64) {
    let (from, until) = crate::domain::regulation::compute::load_range(day, day);
    window(tz, from, until)
}

/// The instants a computation of the local dates `from..=until` reads missions in.
fn window(tz: chrono_tz::Tz, from: NaiveDate, until: NaiveDate) -> (i64, i64) {
    // A local day of margin each side: missions are read whole, from the day before `from` to
    // the end of the day after `until`.
    let before = from.pred_opt().unwrap_or(from);
    let after = until.succ_opt().unwrap_or(until);
    (time::day_start(tz, before), time::day_end(tz, after))
}

/// Activities grouped into missions, each mission's in order of start, then id.
fn into_missions(rows: impl IntoIterator<Item = Row>) -> Vec<Mission> {
    let mut by_mission: BTreeMap<i64, Vec<Activity>> = BTreeMap::new();
    for (id, mission_id, kind, start, end) in rows {
        let Some(kind) = ActivityType::from_str_opt(&kind) else {
            continue;
        };
        by_mission.entry(mission_id).or_default().push(Activity {
            id,
            mission_id,
            kind,
            start,
            end,
        });
    }
    // The statements give the activities in no particular order.
    by_mission
        .into_iter()
        .map(|(id, mut activities)| {
            activities.sort_by_key(|a| (a.start, a.id));
            Mission { id, activities }
        })
        .collect()
}

/// What [`missions`] gives for each worker and side, for several workers at once (the rebuild):
/// `zones` holds each worker's zone; one statement.
pub async fn missions_of_workers(
    conn: &mut AnyConnection,
    zones: &BTreeMap<i64, chrono_tz::Tz>,
    from: NaiveDate,
    until: NaiveDate,
) -> AppResult<BTreeMap<(i64, SubmitterType), Vec<Mission>>> {
    let windows: BTreeMap<i64, (i64, i64)> = zones
        .iter()
        .map(|(&user, &tz)| (user, window(tz, from, until)))
        .collect();
    let Some(widest) = windows.values().copied().reduce(|a, b| (a.0.min(b.0), a.1.max(b.1))) else {
        return Ok(BTreeMap::new());
    };
    let users: Vec<i64> = zones.keys().copied().collect();
    type Wide = (i64, i64, i64, i64, i64, String, i64, Option<i64>, i64, i64);
    let rows: Vec<Wide> = sqlx::query_as(Backend::of(conn).sql(sql::ACTIVITIES_OF_WORKERS))
        .bind(crate::db::id_list(&users))
        .bind(widest.0)
        .bind(widest.1)
        .fetch_all(&mut *conn)
        .await?;
    let mut sides: BTreeMap<(i64, SubmitterType), Vec<Row>> = BTreeMap::new();
    for (user, span_start, span_end, id, mission, kind, start, end, by_self, by_admin) in rows {
        // The worker's own window, as `missions` reads it.
        let Some(&(lower, upper)) = windows.get(&user) else {
            continue;
        };
        if !(span_start < upper && span_end > lower) {
            continue;
        }
        for (side, validated) in [(SubmitterType::Employee, by_self), (SubmitterType::Admin, by_admin)] {
            if validated == 1 {
                sides
                    .entry((user, side))
                    .or_default()
                    .push((id, mission, kind.clone(), start, end));
            }
        }
    }
    Ok(sides
        .into_iter()
        .map(|(key, rows)| (key, into_missions(rows)))
        .collect())
}

/// The qualifying missions of the worker touching the local dates `from..=until` (whole
/// missions: every activity, also outside the dates).
pub async fn missions(
    conn: &mut AnyConnection,
    tz: chrono_tz::Tz,
    user_id: i64,
    submitter: SubmitterType,
    from: NaiveDate,
    until: NaiveDate,
) -> AppResult<Vec<Mission>> {
    let statement = match submitter {
        SubmitterType::Employee => sql::EMPLOYEE_ACTIVITIES,
        SubmitterType::Admin => sql::ADMIN_ACTIVITIES,
    };
    let (lower, upper) = window(tz, from, until);
    let rows: Vec<Row> = sqlx::query_as(statement)
        .bind(user_id)
        .bind(lower)
        .bind(upper)
        .fetch_all(&mut *conn)
        .await?;
    Ok(into_missions(rows))
}
