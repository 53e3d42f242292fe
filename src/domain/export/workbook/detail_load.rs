//! Reads what the sheets `Détail` and `Missions supprimées` tell of a file's missions: which
//! missions each worker had over the period, whether every activity of a mission is cancelled,
//! and their history ([`history`]). A fixed number of statements per file, each over the list
//! of missions.

use std::collections::{BTreeMap, HashMap, HashSet};

use chrono::NaiveDate;
use chrono_tz::Tz;

use crate::db::{Db, id_list};
use crate::domain::activities::rules::OPEN;
use crate::domain::kinds::ActivityType;
use crate::domain::regulation::time::{local_date, local_datetime};
use crate::errors::AppResult;

use super::days::excel_date;
use super::history::{self, Activity, Author, Expenditure, Facts, Location, Validation, Version};
use super::{EventRow, MissionDay, MissionEvents, WorkerMissions};

pub mod sql {
    use crate::db::PerBackend;
    use crate::per_backend;

    crate::statements! {
        /// Missions of the users `$1` in the companies `$2` with an activity, cancelled or not,
        /// overlapping `[$5, $3)`, `$4` standing for "still running".
        pub const MISSIONS_OF_PERIOD: PerBackend = per_backend!(
            "SELECT DISTINCT a.mission_id FROM activities a JOIN missions m ON m.id = a.mission_id WHERE ",
            ["a.user_id" in 1],
            " AND ",
            ["m.company_id" in 2],
            " AND a.start_time < $3 AND COALESCE(a.end_time, $4) > $5"
        );
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
        /// The users `$1` with admin rights in the companies `$2`.
        pub const ADMINS: PerBackend = per_backend!(
            "SELECT user_id, company_id FROM employments WHERE has_admin_rights = 1 \
             AND validation_status = 'approved' AND dismissed_at IS NULL AND ",
            ["user_id" in 1],
            " AND ",
            ["company_id" in 2]
        );
    }
}

/// A worker of the file: id, display name, time zone, and the kept days with their missions.
pub struct Worker {
    pub id: i64,
    pub name: String,
    pub tz: Tz,
    pub days: Vec<(NaiveDate, Vec<i64>)>,
}

/// The missions' history sheets: (`Détail`, `Missions supprimées`).
pub type Sheets = (Vec<WorkerMissions>, Vec<WorkerMissions>);

struct MissionInfo {
    name: Option<String>,
    company: i64,
    created: i64,
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

/// The history sheets of `workers` (sorted by name) in `company_ids` over `[from, until)`.
pub async fn sheets(
    db: &Db,
    company_ids: &[i64],
    workers: &[Worker],
    (from, until): (i64, i64),
    (min, max): (NaiveDate, NaiveDate),
) -> AppResult<Sheets> {
    let user_ids: Vec<i64> = workers.iter().map(|w| w.id).collect();
    let ids: Vec<(i64,)> = sqlx::query_as(db.sql(sql::MISSIONS_OF_PERIOD))
        .bind(id_list(&user_ids))
        .bind(id_list(company_ids))
        .bind(until)
        .bind(OPEN)
        .bind(from)
        .fetch_all(db)
        .await?;
    let list = id_list(&ids.into_iter().map(|(id,)| id).collect::<Vec<_>>());
    let rows: Vec<(i64, Option<String>, i64, i64)> =
        sqlx::query_as(db.sql(sql::MISSIONS)).bind(&list).fetch_all(db).await?;
    let missions: HashMap<i64, MissionInfo> = rows
        .into_iter()
        .map(|(id, name, company, created)| (id, MissionInfo { name, company, created }))
        .collect();
    let activities: Vec<ActivityRow> = sqlx::query_as(db.sql(sql::ACTIVITIES))
        .bind(&list)
        .fetch_all(db)
        .await?;
    let versions: Vec<VersionRow> = sqlx::query_as(db.sql(sql::VERSIONS)).bind(&list).fetch_all(db).await?;
    let validations: Vec<ValidationRow> = sqlx::query_as(db.sql(sql::VALIDATIONS))
        .bind(&list)
        .fetch_all(db)
        .await?;
    let expenditures: Vec<ExpenditureRow> = sqlx::query_as(db.sql(sql::EXPENDITURES))
        .bind(&list)
        .fetch_all(db)
        .await?;
    let locations: Vec<LocationRow> = sqlx::query_as(db.sql(sql::LOCATIONS)).bind(&list).fetch_all(db).await?;

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
        let place = [Some(name), postal_code, city]
            .into_iter()
            .flatten()
            .map(|p| p.trim().to_string())
            .filter(|p| !p.is_empty())
            .collect::<Vec<_>>()
            .join(" ");
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

    let mut authors: Vec<i64> = facts.values().flat_map(history_authors).collect();
    authors.sort_unstable();
    authors.dedup();
    let rows: Vec<(i64, String, String)> = sqlx::query_as(db.sql(sql::AUTHORS))
        .bind(id_list(&authors))
        .fetch_all(db)
        .await?;
    let names: HashMap<i64, String> = rows
        .into_iter()
        .map(|(id, first, last)| (id, super::display_name(&first, &last)))
        .collect();
    let rows: Vec<(i64, i64)> = sqlx::query_as(db.sql(sql::ADMINS))
        .bind(id_list(&authors))
        .bind(id_list(company_ids))
        .fetch_all(db)
        .await?;
    let admins: HashSet<(i64, i64)> = rows.into_iter().collect();

    let mut detail = Vec::new();
    let mut deleted = Vec::new();
    for worker in workers {
        let mut kept: BTreeMap<NaiveDate, Vec<i64>> = BTreeMap::new();
        let mut gone: BTreeMap<NaiveDate, Vec<i64>> = BTreeMap::new();
        for ((user, mission), start) in &first {
            if *user != worker.id {
                continue;
            }
            let date = local_date(worker.tz, *start);
            if standing.contains(mission) {
                // Listed on the first kept day holding the mission from its first activity's day.
                let day = worker
                    .days
                    .iter()
                    .find(|(d, ms)| *d >= date && ms.contains(mission))
                    .map(|(d, _)| *d);
                if let Some(day) = day {
                    kept.entry(day).or_default().push(*mission);
                }
            } else if (min..=max).contains(&date) {
                gone.entry(date).or_default().push(*mission);
            }
        }
        let build = |days: BTreeMap<NaiveDate, Vec<i64>>| -> Vec<MissionDay> {
            days.into_iter()
                .map(|(date, mut ids)| {
                    ids.sort_by_key(|id| (missions.get(id).map_or(0, |m| m.created), *id));
                    let missions = ids
                        .iter()
                        .map(|id| {
                            let info = missions.get(id);
                            let company = info.map_or(0, |m| m.company);
                            let f = facts.get(&(worker.id, *id)).cloned().unwrap_or_default();
                            MissionEvents {
                                name: info.and_then(|m| m.name.clone()).unwrap_or_default(),
                                events: history::events(worker.tz, &f)
                                    .into_iter()
                                    .map(|e| event_row(worker.tz, e, company, &names, &admins))
                                    .collect(),
                            }
                        })
                        .collect();
                    MissionDay { date, missions }
                })
                .collect()
        };
        for (days, sheet) in [(kept, &mut detail), (gone, &mut deleted)] {
            if days.is_empty() {
                continue;
            }
            sheet.push(WorkerMissions {
                id: worker.id,
                name: worker.name.clone(),
                days: build(days),
            });
        }
    }
    Ok((detail, deleted))
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

fn event_row(
    tz: Tz,
    e: history::Event,
    company: i64,
    names: &HashMap<i64, String>,
    admins: &HashSet<(i64, i64)>,
) -> EventRow {
    let (author, status) = match e.author {
        Author::Automatic => ("Mobilic".to_string(), "Validation automatique"),
        Author::User(id) => (
            names.get(&id).cloned().unwrap_or_else(|| "Mobilic".to_string()),
            if admins.contains(&(id, company)) {
                "Administrateur"
            } else {
                "Travailleur mobile"
            },
        ),
    };
    let local = local_datetime(tz, e.time);
    let seconds = f64::from(chrono::Timelike::num_seconds_from_midnight(&local.time()));
    EventRow {
        time: excel_date(local.date()) + seconds / 86400.0,
        author,
        status: status.to_string(),
        text: e.text,
        activity: e.activity,
        justification: e.justification,
        is_deletion: e.is_deletion,
    }
}
