//! Reads the history of missions ([`history`]): each worker's activities with their versions,
//! cancellation and dispute, the missions' validations, expenditures and places, and the names of
//! their authors. A fixed number of statements for any list of missions; shared by the sheets
//! `Détail` and `Missions supprimées` and the mission's PDF.

use std::collections::{HashMap, HashSet};

use crate::db::{Db, id_list};
use crate::domain::kinds::ActivityType;
use crate::errors::AppResult;

use super::history::{self, Activity, Expenditure, Facts, Location, Validation, Version};

pub mod sql {
    use crate::db::PerBackend;
    use crate::per_backend;

    crate::statements! {
        pub const MISSIONS: PerBackend = per_backend!(
            "SELECT id, name, company_id, creation_time FROM missions WHERE ",
            ["id" in 1]
        );
        pub const ACTIVITIES: PerBackend = per_backend!(
            "SELECT id, mission_id, user_id, type, start_time, dismissed_at, dismiss_author_id, dismiss_context, dispute \
             FROM activities WHERE ",
            ["mission_id" in 1],
            " ORDER BY start_time, id"
        );
        pub const VERSIONS: PerBackend = per_backend!(
            "SELECT v.activity_id, v.creation_time, v.start_time, v.end_time, v.context, v.submitter_id \
             FROM activity_versions v JOIN activities a ON a.id = v.activity_id WHERE ",
            ["a.mission_id" in 1],
            " ORDER BY v.activity_id, v.version_number"
        );
        pub const VALIDATIONS: PerBackend = per_backend!(
            "SELECT mission_id, submitter_id, user_id, is_admin, is_auto, creation_time FROM mission_validations WHERE ",
            ["mission_id" in 1],
            " ORDER BY creation_time, id"
        );
        pub const EXPENDITURES: PerBackend = per_backend!(
            "SELECT mission_id, user_id, submitter_id, type, creation_time, dismissed_at, dismiss_author_id \
             FROM expenditures WHERE ",
            ["mission_id" in 1],
            " ORDER BY creation_time, id"
        );
        pub const LOCATIONS: PerBackend = per_backend!(
            "SELECT mission_id, type, submitter_id, creation_time, name, postal_code, city FROM location_entries WHERE ",
            ["mission_id" in 1]
        );
        pub const AUTHORS: PerBackend =
            per_backend!("SELECT id, first_name, last_name FROM users WHERE ", ["id" in 1]);
    }
}

/// A mission's name, company and creation time.
pub struct MissionInfo {
    pub name: Option<String>,
    pub company: i64,
    pub created: i64,
}

/// Id, mission, user, type, start, cancelled at, by, context, dispute.
type ActivityRow = (
    i64,
    i64,
    i64,
    String,
    i64,
    Option<i64>,
    Option<i64>,
    Option<String>,
    Option<String>,
);
type VersionRow = (i64, i64, i64, Option<i64>, Option<String>, i64);
type ValidationRow = (i64, Option<i64>, Option<i64>, i64, i64, i64);
type ExpenditureRow = (i64, i64, i64, String, i64, Option<i64>, Option<i64>);
type LocationRow = (i64, String, i64, i64, String, Option<String>, Option<String>);

/// What is known of the history of some missions.
pub struct Histories {
    pub missions: HashMap<i64, MissionInfo>,
    /// Per (worker, mission).
    pub facts: HashMap<(i64, i64), Facts>,
    /// The start of each worker's first activity in each mission, cancelled ones included.
    pub first: HashMap<(i64, i64), i64>,
    /// The missions with an activity standing (the others are deleted).
    pub standing: HashSet<i64>,
}

/// The history of the missions of `list` (a JSON array of ids, [`id_list`]).
pub async fn histories(db: &Db, list: &str) -> AppResult<Histories> {
    let rows: Vec<(i64, Option<String>, i64, i64)> =
        sqlx::query_as(db.sql(sql::MISSIONS)).bind(list).fetch_all(db).await?;
    let missions: HashMap<i64, MissionInfo> = rows
        .into_iter()
        .map(|(id, name, company, created)| (id, MissionInfo { name, company, created }))
        .collect();
    let activities: Vec<ActivityRow> = sqlx::query_as(db.sql(sql::ACTIVITIES)).bind(list).fetch_all(db).await?;
    let versions: Vec<VersionRow> = sqlx::query_as(db.sql(sql::VERSIONS)).bind(list).fetch_all(db).await?;
    let validations: Vec<ValidationRow> = sqlx::query_as(db.sql(sql::VALIDATIONS))
        .bind(list)
        .fetch_all(db)
        .await?;
    let expenditures: Vec<ExpenditureRow> = sqlx::query_as(db.sql(sql::EXPENDITURES))
        .bind(list)
        .fetch_all(db)
        .await?;
    let locations: Vec<LocationRow> = sqlx::query_as(db.sql(sql::LOCATIONS)).bind(list).fetch_all(db).await?;

    let mut by_activity: HashMap<i64, Vec<Version>> = HashMap::new();
    for (activity, time, start, end, context, submitter) in versions {
        by_activity.entry(activity).or_default().push(Version {
            time,
            start,
            end,
            context,
            submitter,
        });
    }
    // A mission is deleted when none of its activities stands; a worker's first activity in
    // it (cancelled ones included) dates it.
    let standing: HashSet<i64> = activities.iter().filter(|a| a.5.is_none()).map(|a| a.1).collect();
    let mut first: HashMap<(i64, i64), i64> = HashMap::new();
    let mut facts: HashMap<(i64, i64), Facts> = HashMap::new();
    for (id, mission, user, kind, start, dismissed_at, dismiss_author, dismiss_context, dispute) in activities {
        let Some(kind) = ActivityType::from_str_opt(&kind) else {
            continue;
        };
        first.entry((user, mission)).or_insert(start);
        let mut versions = by_activity.remove(&id).unwrap_or_default();
        if versions.is_empty() {
            versions.push(Version {
                time: start,
                start,
                end: None,
                context: None,
                submitter: user,
            });
        }
        facts.entry((user, mission)).or_default().activities.push(Activity {
            kind,
            versions,
            dismissed: dismissed_at
                .zip(dismiss_author)
                .map(|(at, by)| (at, by, dismiss_context)),
            dispute,
        });
    }
    // The workers of each mission, so that what concerns a mission reaches its workers directly.
    let mut workers_of: HashMap<i64, Vec<i64>> = HashMap::new();
    for (user, mission) in facts.keys() {
        workers_of.entry(*mission).or_default().push(*user);
    }
    for (mission, submitter, user, is_admin, is_auto, time) in validations {
        for u in workers_of.get(&mission).into_iter().flatten() {
            if let Some(f) = facts.get_mut(&(*u, mission))
                && user.is_none_or(|user| user == *u)
            {
                f.validations.push(Validation {
                    submitter,
                    is_admin: is_admin != 0,
                    is_auto: is_auto != 0,
                    time,
                });
            }
        }
    }
    for (mission, user, submitter, kind, time, dismissed_at, dismiss_author) in expenditures {
        if let Some(f) = facts.get_mut(&(user, mission)) {
            f.expenditures.push(Expenditure {
                label: history::expenditure_label(&kind),
                submitter,
                time,
                dismissed: dismissed_at.zip(dismiss_author),
            });
        }
    }
    for (mission, kind, submitter, time, name, postal_code, city) in locations {
        let place = super::place(name, postal_code, city);
        for u in workers_of.get(&mission).into_iter().flatten() {
            if let Some(f) = facts.get_mut(&(*u, mission)) {
                f.locations.push(Location {
                    is_start: kind == "mission_start_location",
                    submitter,
                    time,
                    place: place.clone(),
                });
            }
        }
    }
    for ((_, mission), f) in facts.iter_mut() {
        let holiday = f.activities.iter().any(|a| a.kind == ActivityType::Off);
        if holiday {
            f.holiday_name = missions.get(mission).and_then(|m| m.name.clone());
        }
    }

    Ok(Histories {
        missions,
        facts,
        first,
        standing,
    })
}

/// The authors of some histories, each once.
pub fn authors<'a>(facts: impl Iterator<Item = &'a Facts>) -> Vec<i64> {
    let mut authors: Vec<i64> = facts.flat_map(history_authors).collect();
    authors.sort_unstable();
    authors.dedup();
    authors
}

/// The display names of the users `ids`.
pub async fn names(db: &Db, ids: &[i64]) -> AppResult<HashMap<i64, String>> {
    let rows: Vec<(i64, String, String)> = sqlx::query_as(db.sql(sql::AUTHORS))
        .bind(id_list(ids))
        .fetch_all(db)
        .await?;
    Ok(rows
        .into_iter()
        .map(|(id, first, last)| (id, super::display_name(&first, &last)))
        .collect())
}

fn history_authors(f: &Facts) -> Vec<i64> {
    let mut ids = Vec::new();
    for a in &f.activities {
        ids.extend(a.versions.iter().map(|v| v.submitter));
        ids.extend(a.dismissed.as_ref().map(|d| d.1));
        if let Some(dispute) = a.dispute.as_deref()
            && let Ok(value) = serde_json::from_str::<serde_json::Value>(dispute)
        {
            ids.extend(value.get("submitter_id").and_then(serde_json::Value::as_i64));
        }
    }
    ids.extend(f.validations.iter().filter_map(|v| v.submitter));
    for e in &f.expenditures {
        ids.push(e.submitter);
        ids.extend(e.dismissed.map(|d| d.1));
    }
    ids.extend(f.locations.iter().map(|l| l.submitter));
    ids
}
