//! What a computation reads: the worker's zone and the missions that qualify for the submitter
//! type, with every activity of the worker in them that counts (not cancelled, not `off`).

use std::collections::BTreeMap;

use chrono::NaiveDate;
use sqlx::AnyConnection;

use crate::domain::kinds::ActivityType;
use crate::domain::regulation::checks::SubmitterType;
use crate::domain::regulation::time::{self, DAY};
use crate::domain::regulation::workdays::{Activity, Mission};
use crate::errors::AppResult;

pub mod sql {
    crate::statements! {
        pub const ZONE: &str = "SELECT timezone_name FROM users WHERE id = $1";
        /// `$1` worker, `$2`/`$3` the instants the missions must overlap. Missions the worker
        /// validated himself (any company).
        pub const EMPLOYEE_ACTIVITIES: &str = "SELECT a.id, a.mission_id, a.type, a.start_time, a.end_time \
             FROM activities a \
             WHERE a.user_id = $1 AND a.dismissed_at IS NULL AND a.type <> 'off' \
               AND a.mission_id IN (SELECT s.mission_id FROM mission_spans s \
                                    WHERE s.user_id = $1 AND s.start_time < $3 AND s.end_time > $2) \
               AND EXISTS (SELECT 1 FROM mission_validations v \
                           WHERE v.mission_id = a.mission_id AND v.user_id = $1 AND v.submitter_id = $1) \
             ORDER BY a.mission_id, a.start_time, a.id";
        /// The same for missions an admin validated for the worker (or for everyone).
        pub const ADMIN_ACTIVITIES: &str = "SELECT a.id, a.mission_id, a.type, a.start_time, a.end_time \
             FROM activities a \
             WHERE a.user_id = $1 AND a.dismissed_at IS NULL AND a.type <> 'off' \
               AND a.mission_id IN (SELECT s.mission_id FROM mission_spans s \
                                    WHERE s.user_id = $1 AND s.start_time < $3 AND s.end_time > $2) \
               AND EXISTS (SELECT 1 FROM mission_validations v \
                           WHERE v.mission_id = a.mission_id AND v.is_admin = 1 \
                             AND (v.user_id = $1 OR v.user_id IS NULL)) \
             ORDER BY a.mission_id, a.start_time, a.id";
    }
}

/// The worker's zone (the reference's default when unknown).
pub async fn zone(conn: &mut AnyConnection, user_id: i64) -> AppResult<chrono_tz::Tz> {
    let row: Option<(String,)> = sqlx::query_as(sql::ZONE).bind(user_id).fetch_optional(conn).await?;
    Ok(time::zone(row.as_ref().map(|r| r.0.as_str()).unwrap_or("Europe/Paris")))
}

#[derive(sqlx::FromRow)]
struct Row {
    id: i64,
    mission_id: i64,
    #[sqlx(rename = "type")]
    kind: String,
    start_time: i64,
    end_time: Option<i64>,
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
    let rows: Vec<Row> = sqlx::query_as(statement)
        .bind(user_id)
        .bind(time::day_start(tz, from) - DAY)
        .bind(time::day_start(tz, until) + 2 * DAY)
        .fetch_all(conn)
        .await?;
    let mut by_mission: BTreeMap<i64, Vec<Activity>> = BTreeMap::new();
    for row in rows {
        let Some(kind) = ActivityType::from_str_opt(&row.kind) else {
            continue;
        };
        by_mission.entry(row.mission_id).or_default().push(Activity {
            id: row.id,
            mission_id: row.mission_id,
            kind,
            start: row.start_time,
            end: row.end_time,
        });
    }
    Ok(by_mission
        .into_iter()
        .map(|(id, activities)| Mission { id, activities })
        .collect())
}
