//! Reads the worker's "Relevé d'heures" from the database: their days in every company where
//! they have an accepted employment over the period (the token's company only for software with
//! an employment token), as the activity report computes them, the columns those companies ask
//! for, and each day's mark (a mission not validated, or changed by someone else after the
//! worker validated it).

use std::collections::{BTreeMap, HashMap};

use chrono::NaiveDate;

use super::statement::{Columns, Day, Mark, Statement};
use crate::db::{Db, id_list};
use crate::domain::auth::Actor;
use crate::domain::export::data::companies_of;
use crate::domain::export::workbook::{display_name, load};
use crate::errors::AppResult;

pub mod sql {
    use crate::db::PerBackend;
    use crate::per_backend;

    crate::statements! {
        /// What the companies ask the documents to show.
        pub const SETTINGS: PerBackend = per_backend!(
            "SELECT require_support_activity, COALESCE(allow_other_task, 0), allow_transfers, require_expenditures \
             FROM companies WHERE ",
            ["id" in 1]
        );
        pub const NAME: &str = "SELECT first_name, last_name FROM users WHERE id = $1";
        /// Per mission `$1`: the latest validation by the worker `$2` (0 when none), and
        /// whether an admin validated it for them (or for everyone).
        pub const VALIDATIONS: PerBackend = per_backend!(
            "SELECT m.id, \
             COALESCE((SELECT MAX(v.reception_time) FROM mission_validations v \
                WHERE v.mission_id = m.id AND v.is_admin = 0 AND v.user_id = $2), 0), \
             (SELECT COUNT(*) FROM mission_validations v \
                WHERE v.mission_id = m.id AND v.is_admin = 1 AND (v.user_id IS NULL OR v.user_id = $2)) \
             FROM missions m WHERE ",
            ["m.id" in 1]
        );
        /// Per mission `$1`: the latest change of the worker `$2`'s activities by someone else
        /// (a version, or a cancellation).
        pub const CHANGES_BY_OTHERS: PerBackend = per_backend!(
            "SELECT a.mission_id, MAX(av.reception_time) FROM activity_versions av \
             JOIN activities a ON a.id = av.activity_id \
             WHERE a.user_id = $2 AND av.submitter_id <> $2 AND ",
            ["a.mission_id" in 1],
            " GROUP BY a.mission_id \
             UNION ALL SELECT mission_id, MAX(dismissed_at) FROM activities \
             WHERE user_id = $2 AND dismissed_at IS NOT NULL AND dismiss_author_id <> $2 AND ",
            ["mission_id" in 1],
            " GROUP BY mission_id"
        );
    }
}

/// The statement of the actor's own days from `min` to `max`, extracted on `today`, running
/// activities counting until `now`.
pub async fn statement(
    db: &Db,
    actor: Actor,
    min: NaiveDate,
    max: NaiveDate,
    today: NaiveDate,
    now: i64,
) -> AppResult<Statement> {
    let user = actor.user_id;
    let companies = companies_of(db, actor, min, max).await?;
    let loaded = load::days_of(db, &companies, &[user], min, max, now).await?;
    let (first_name, last_name): (String, String) = sqlx::query_as(sql::NAME).bind(user).fetch_one(db).await?;
    let settings: Vec<(i64, i64, i64, i64)> = sqlx::query_as(db.sql(sql::SETTINGS))
        .bind(id_list(&companies))
        .fetch_all(db)
        .await?;
    let rows = loaded.workers.into_iter().flat_map(|w| w.days).collect::<Vec<_>>();
    let any = |pick: fn(&(i64, i64, i64, i64)) -> i64| settings.iter().any(|s| pick(s) != 0);
    let columns = Columns {
        support: any(|s| s.0) || rows.iter().any(|r| r.figures.support > 0),
        other_task: any(|s| s.1) || rows.iter().any(|r| r.figures.work > 0),
        transfer: any(|s| s.2) || rows.iter().any(|r| r.figures.transfer > 0),
        expenditures: any(|s| s.3),
    };
    let mut mission_ids: Vec<i64> = rows.iter().flat_map(|r| r.figures.missions.iter().copied()).collect();
    mission_ids.sort_unstable();
    mission_ids.dedup();
    let marks = marks(db, user, &mission_ids).await?;
    let days: BTreeMap<NaiveDate, Day> = rows
        .into_iter()
        .map(|row| {
            let mark = row
                .figures
                .missions
                .iter()
                .map(|m| marks.get(m).copied().unwrap_or_default())
                .max()
                .unwrap_or_default();
            (row.figures.date, Day { row, mark })
        })
        .collect();
    Ok(Statement {
        name: display_name(&first_name, &last_name),
        min_date: min,
        max_date: max,
        extracted_on: today,
        columns,
        days,
    })
}

/// Each mission's mark for the worker.
async fn marks(db: &Db, user: i64, missions: &[i64]) -> AppResult<HashMap<i64, Mark>> {
    let list = id_list(missions);
    let validations: Vec<(i64, i64, i64)> = sqlx::query_as(db.sql(sql::VALIDATIONS))
        .bind(&list)
        .bind(user)
        .fetch_all(db)
        .await?;
    let changes: Vec<(i64, Option<i64>)> = sqlx::query_as(db.sql(sql::CHANGES_BY_OTHERS))
        .bind(&list)
        .bind(user)
        .fetch_all(db)
        .await?;
    let mut last_change: HashMap<i64, i64> = HashMap::new();
    for (mission, at) in changes {
        if let Some(at) = at {
            let latest = last_change.entry(mission).or_insert(at);
            *latest = (*latest).max(at);
        }
    }
    Ok(validations
        .into_iter()
        .map(|(mission, validated_at, admin_validations)| {
            let mark = if validated_at == 0 {
                Mark::NotValidatedByWorker
            } else if admin_validations == 0 {
                Mark::NotValidatedByAdmin
            } else if last_change.get(&mission).is_some_and(|at| *at > validated_at) {
                Mark::ChangedAfterValidation
            } else {
                Mark::None
            };
            (mission, mark)
        })
        .collect())
}
