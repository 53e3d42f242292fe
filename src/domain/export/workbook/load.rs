//! Reads one file of an activity report from the database: the companies' names and settings,
//! the workers, their activities in the exported companies over the period, and what the rows
//! show about the missions (names, vehicles, places, odometer readings, expenditures, comments).

use std::collections::{BTreeMap, HashMap};

use chrono::{Datelike, NaiveDate, Timelike, Weekday};
use chrono_tz::Tz;

use crate::db::{Db, id_list};
use crate::domain::activities::rules::OPEN;
use crate::domain::companies::date_text;
use crate::domain::kinds::{ActivityType, ExpenditureType};
use crate::domain::missions::auto_validation::calendar::is_public_holiday;
use crate::domain::regulation::time::{self, day_end, day_start, local_datetime};
use crate::errors::AppResult;

use super::days::{self, MissionBounds, Span};
use super::detail_load;
use super::{DayRow, Flags, Report, WorkerDays, display_name};

pub mod sql {
    use crate::db::PerBackend;
    use crate::per_backend;

    crate::statements! {
        pub const COMPANIES: PerBackend = per_backend!(
            "SELECT usual_name, require_mission_name, require_expenditures, require_kilometer_data, allow_transfers \
             FROM companies WHERE ",
            ["id" in 1],
            " ORDER BY id"
        );
        pub const USERS: PerBackend =
            per_backend!("SELECT id, first_name, last_name, timezone_name FROM users WHERE ", ["id" in 1]);
        /// Activities of the users `$1` in the companies `$2` overlapping `[$5, $3)`, `$4`
        /// standing for "still running".
        pub const SPANS: PerBackend = per_backend!(
            "SELECT a.user_id, a.mission_id, a.type, a.start_time, a.end_time \
             FROM activities a JOIN missions m ON m.id = a.mission_id WHERE a.dismissed_at IS NULL AND ",
            ["a.user_id" in 1],
            " AND ",
            ["m.company_id" in 2],
            " AND a.start_time < $3 AND COALESCE(a.end_time, $4) > $5 ORDER BY a.start_time, a.id"
        );
        pub const MISSIONS: PerBackend = per_backend!(
            "SELECT m.id, m.name, m.vehicle_id, v.alias, v.registration_number \
             FROM missions m LEFT JOIN vehicles v ON v.id = m.vehicle_id WHERE ",
            ["m.id" in 1]
        );
        /// Each worker's span in each mission, `$2` standing for "still running", and whether
        /// the mission holds time off.
        pub const BOUNDS: PerBackend = per_backend!(
            "SELECT mission_id, user_id, MIN(start_time), MAX(COALESCE(end_time, $2)), \
             MAX(CASE WHEN type = 'off' THEN CAST(1 AS BIGINT) ELSE CAST(0 AS BIGINT) END) \
             FROM activities WHERE dismissed_at IS NULL AND ",
            ["mission_id" in 1],
            " GROUP BY mission_id, user_id"
        );
        pub const LOCATIONS: PerBackend = per_backend!(
            "SELECT mission_id, type, name, postal_code, city, kilometer_reading FROM location_entries WHERE ",
            ["mission_id" in 1]
        );
        /// Every comment, cancelled ones included, in the order received.
        pub const COMMENTS: PerBackend = per_backend!(
            "SELECT mission_id, text FROM comments WHERE ",
            ["mission_id" in 1],
            " ORDER BY reception_time, id"
        );
    }
}

/// What the rows show of a mission.
#[derive(Default)]
struct Mission {
    name: Option<String>,
    vehicle: Option<(i64, String)>,
    is_holiday: bool,
    start_place: String,
    end_place: String,
    km_start: Option<i64>,
    km_end: Option<i64>,
    comments: Vec<String>,
}

/// The zones furthest ahead of and behind UTC: the period's activities of any worker lie
/// between the first's start of `min` and the second's end of `max`.
const AHEAD: Tz = chrono_tz::Etc::GMTMinus14;
const BEHIND: Tz = chrono_tz::Etc::GMTPlus12;

/// One file of the report: the workers `user_ids` in the companies `company_ids` from `min` to
/// `max` (both included), running activities counting until `now`.
pub async fn report(
    db: &Db,
    company_ids: &[i64],
    user_ids: &[i64],
    min: NaiveDate,
    max: NaiveDate,
    now: i64,
) -> AppResult<Report> {
    let days = days_of(db, company_ids, user_ids, min, max, now).await?;
    let (detail, deleted) = detail_load::sheets(db, company_ids, &days.history, days.window, (min, max)).await?;
    Ok(Report {
        company_names: days.company_names,
        min_date: min,
        max_date: max,
        flags: days.flags,
        workers: days.workers,
        idle: days.idle,
        detail,
        deleted,
    })
}

/// The days of a report, without the missions' history.
pub struct Days {
    pub company_names: Vec<String>,
    pub flags: Flags,
    /// Workers with at least one day, by display name.
    pub workers: Vec<WorkerDays>,
    /// Display names of the workers without a day, by last then first name.
    pub idle: Vec<String>,
    history: Vec<detail_load::Worker>,
    /// The instants between which the period's activities of any worker lie.
    window: (i64, i64),
}

/// The days of the workers `user_ids` in the companies `company_ids` from `min` to `max` (both
/// included), running activities counting until `now`: the `Activités` sheet's rows, and the
/// days of the worker's own "Relevé d'heures".
pub async fn days_of(
    db: &Db,
    company_ids: &[i64],
    user_ids: &[i64],
    min: NaiveDate,
    max: NaiveDate,
    now: i64,
) -> AppResult<Days> {
    let companies: Vec<(String, i64, i64, i64, i64)> = sqlx::query_as(db.sql(sql::COMPANIES))
        .bind(id_list(company_ids))
        .fetch_all(db)
        .await?;
    let flags = Flags {
        mission_name: companies.iter().any(|c| c.1 != 0),
        expenditures: companies.iter().any(|c| c.2 != 0),
        kilometers: companies.iter().any(|c| c.3 != 0),
        transfers: companies.iter().any(|c| c.4 != 0),
    };
    let users: Vec<(i64, String, String, String)> = sqlx::query_as(db.sql(sql::USERS))
        .bind(id_list(user_ids))
        .fetch_all(db)
        .await?;
    let from = day_start(AHEAD, min);
    let until = day_end(BEHIND, max);
    let rows: Vec<(i64, i64, String, i64, Option<i64>)> = sqlx::query_as(db.sql(sql::SPANS))
        .bind(id_list(user_ids))
        .bind(id_list(company_ids))
        .bind(until)
        .bind(OPEN)
        .bind(from)
        .fetch_all(db)
        .await?;
    let mut spans: HashMap<i64, Vec<Span>> = HashMap::new();
    let mut mission_ids: Vec<i64> = Vec::new();
    for (user, mission, kind, start, end) in rows {
        let Some(kind) = ActivityType::from_str_opt(&kind) else {
            continue;
        };
        mission_ids.push(mission);
        spans.entry(user).or_default().push(Span {
            mission_id: mission,
            kind,
            start,
            end,
        });
    }
    mission_ids.sort_unstable();
    mission_ids.dedup();
    let (missions, bounds, expenditures) = missions(db, &mission_ids).await?;
    let mut workers = Vec::new();
    let mut idle: Vec<(String, String, String)> = Vec::new();
    let mut history_workers = Vec::new();
    for (id, first_name, last_name, zone) in users {
        let name = display_name(&first_name, &last_name);
        let tz = time::zone(&zone);
        let user_bounds: BTreeMap<i64, MissionBounds> = bounds
            .iter()
            .filter(|((_, user), _)| *user == id)
            .map(|((mission, _), b)| (*mission, *b))
            .collect();
        let figures = days::days(
            tz,
            spans.get(&id).map_or(&[][..], Vec::as_slice),
            &user_bounds,
            min,
            max,
            now,
        );
        history_workers.push(detail_load::Worker {
            id,
            name: name.clone(),
            tz,
            days: figures.iter().map(|f| (f.date, f.missions.clone())).collect(),
        });
        if figures.is_empty() {
            idle.push((last_name.to_lowercase(), first_name.to_lowercase(), name));
            continue;
        }
        let days = figures
            .into_iter()
            .map(|figures| row(tz, id, figures, &missions, &expenditures))
            .collect();
        workers.push(WorkerDays { id, name, days });
    }
    workers.sort_by(|a, b| a.name.cmp(&b.name).then(a.id.cmp(&b.id)));
    idle.sort();
    history_workers.sort_by(|a, b| a.name.cmp(&b.name).then(a.id.cmp(&b.id)));
    Ok(Days {
        company_names: companies.into_iter().map(|c| c.0).collect(),
        flags,
        workers,
        idle: idle.into_iter().map(|(_, _, name)| name).collect(),
        history: history_workers,
        window: (from, until),
    })
}

/// Id, name, vehicle id, alias, plate.
type MissionRow = (i64, Option<String>, Option<i64>, Option<String>, Option<String>);
/// Mission, type, name, postal code, city, odometer reading.
type LocationRow = (i64, String, String, Option<String>, Option<String>, Option<i64>);
type Bounds = HashMap<(i64, i64), MissionBounds>;
/// Expenditure counts by (user, mission, date), in the order of [`ExpenditureType::ALL`].
type Expenditures = HashMap<(i64, i64, String), [i64; 4]>;

async fn missions(db: &Db, ids: &[i64]) -> AppResult<(HashMap<i64, Mission>, Bounds, Expenditures)> {
    let list = id_list(ids);
    let rows: Vec<MissionRow> = sqlx::query_as(db.sql(sql::MISSIONS)).bind(&list).fetch_all(db).await?;
    let mut missions: HashMap<i64, Mission> = rows
        .into_iter()
        .map(|(id, name, vehicle_id, alias, plate)| {
            let vehicle = vehicle_id.map(|v| (v, alias.filter(|a| !a.trim().is_empty()).or(plate).unwrap_or_default()));
            (
                id,
                Mission {
                    name,
                    vehicle,
                    ..Mission::default()
                },
            )
        })
        .collect();
    let rows: Vec<(i64, i64, i64, i64, i64)> = sqlx::query_as(db.sql(sql::BOUNDS))
        .bind(&list)
        .bind(OPEN)
        .fetch_all(db)
        .await?;
    let mut bounds = HashMap::new();
    for (mission, user, start, end, off) in rows {
        let end = (end != OPEN).then_some(end);
        bounds.insert((mission, user), MissionBounds { start, end });
        if off != 0
            && let Some(m) = missions.get_mut(&mission)
        {
            m.is_holiday = true;
        }
    }
    let rows: Vec<LocationRow> = sqlx::query_as(db.sql(sql::LOCATIONS)).bind(&list).fetch_all(db).await?;
    for (mission, kind, name, postal_code, city, km) in rows {
        let Some(m) = missions.get_mut(&mission) else {
            continue;
        };
        let place = super::place(name, postal_code, city);
        if kind == "mission_start_location" {
            (m.start_place, m.km_start) = (place, km);
        } else {
            (m.end_place, m.km_end) = (place, km);
        }
    }
    let rows: Vec<(i64, String)> = sqlx::query_as(db.sql(sql::COMMENTS)).bind(&list).fetch_all(db).await?;
    for (mission, text) in rows {
        if let Some(m) = missions.get_mut(&mission) {
            m.comments.push(text);
        }
    }
    let rows: Vec<(i64, i64, String, String)> = sqlx::query_as(db.sql(crate::domain::workdays::sql::EXPENDITURES))
        .bind(&list)
        .fetch_all(db)
        .await?;
    let mut expenditures: Expenditures = HashMap::new();
    for (user, mission, date, kind) in rows {
        if let Some(i) = ExpenditureType::ALL.iter().position(|k| k.as_str() == kind) {
            expenditures.entry((user, mission, date)).or_default()[i] += 1;
        }
    }
    Ok((missions, bounds, expenditures))
}

/// Seconds after local midnight of `t`.
fn time_of_day(tz: Tz, t: i64) -> i64 {
    i64::from(local_datetime(tz, t).time().num_seconds_from_midnight())
}

fn row(
    tz: Tz,
    user: i64,
    figures: days::DayFigures,
    missions: &HashMap<i64, Mission>,
    expenditures: &Expenditures,
) -> DayRow {
    let of = |id: &i64| missions.get(id);
    let day_missions: Vec<&Mission> = figures.missions.iter().filter_map(of).collect();
    let names = |holiday: bool| -> Vec<String> {
        day_missions
            .iter()
            .filter(|m| m.is_holiday == holiday)
            .filter_map(|m| m.name.clone())
            .collect()
    };
    let mut vehicles: Vec<(i64, String)> = Vec::new();
    for m in &day_missions {
        if let Some(v) = &m.vehicle
            && !vehicles.iter().any(|(id, _)| *id == v.0)
        {
            vehicles.push(v.clone());
        }
    }
    let date = date_text(figures.date);
    let mut counts = [0i64; 4];
    for mission in &figures.missions {
        if let Some(c) = expenditures.get(&(user, *mission, date.clone())) {
            for (total, n) in counts.iter_mut().zip(c) {
                *total += n;
            }
        }
    }
    let first = of(&figures.first_mission);
    let last = of(&figures.last_mission);
    let one_vehicle = vehicles.len() == 1;
    let off_day = figures.is_off_day();
    let start_time = figures
        .start
        .filter(|_| !off_day && !figures.overlaps_previous_day)
        .map(|t| time_of_day(tz, t));
    let end_time = figures.end.filter(|_| !off_day && !figures.overlaps_next_day).map(|t| {
        if t == day_end(tz, figures.date) {
            86400
        } else {
            time_of_day(tz, t)
        }
    });
    DayRow {
        start_time,
        end_time,
        missions: names(false),
        holiday_names: names(true),
        vehicles: vehicles.into_iter().map(|(_, name)| name).collect(),
        start_place: first
            .filter(|_| !figures.overlaps_previous_day)
            .map(|m| m.start_place.clone())
            .unwrap_or_default(),
        end_place: last
            .filter(|_| !figures.overlaps_next_day)
            .map(|m| m.end_place.clone())
            .unwrap_or_default(),
        km_start: first.filter(|_| one_vehicle).and_then(|m| m.km_start),
        km_end: last.filter(|_| one_vehicle).and_then(|m| m.km_end),
        expenditures: counts,
        comments: day_missions.iter().flat_map(|m| m.comments.iter().cloned()).collect(),
        is_sunday_or_holiday: figures.date.weekday() == Weekday::Sun || is_public_holiday(figures.date),
        is_day_off: !day_missions.is_empty() && day_missions.iter().all(|m| m.is_holiday),
        has_holiday_mission: day_missions.iter().any(|m| m.is_holiday),
        figures,
    }
}
