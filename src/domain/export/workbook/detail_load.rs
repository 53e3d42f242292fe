//! Reads what the sheets `Détail` and `Missions supprimées` tell of a file's missions: which
//! missions each worker had over the period, whether every activity of a mission is cancelled,
//! and their history ([`history`], read by [`history_load`]). A fixed number of statements per file, each over the list
//! of missions.

use std::collections::{BTreeMap, HashMap, HashSet};

use chrono::NaiveDate;
use chrono_tz::Tz;

use crate::db::{Db, id_list};
use crate::domain::activities::rules::OPEN;
use crate::domain::regulation::time::{local_date, local_datetime};
use crate::errors::AppResult;

use super::days::excel_date;
use super::history::{self, Author};
use super::history_load;
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
    let history_load::Histories {
        missions,
        facts,
        first,
        standing,
    } = history_load::histories(db, &list).await?;
    let authors = history_load::authors(facts.values());
    let names = history_load::names(db, &authors).await?;
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
