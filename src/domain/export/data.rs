//! Turns the database into the C1B input model, a chunk of employees at a time, so that memory
//! does not grow with the number of employees.

use std::collections::{BTreeMap, HashMap};

use chrono::NaiveDate;

use crate::db::{Db, id_list};
use crate::domain::auth::Actor;
use crate::domain::companies::parse_date;
use crate::domain::missions::{date_of, day_start};
use crate::errors::{AppError, AppResult};

use super::c1b::{self, Activity, ActivityKind, DriverCard, Export, Mission};
use super::cards::{self, CardDates};

/// An employee to export.
#[derive(sqlx::FromRow, Debug, Clone)]
pub struct Employee {
    pub id: i64,
    pub first_name: String,
    pub last_name: String,
    pub birth_date: Option<String>,
    /// The start of the employee's earliest employment (among the exported companies) that overlaps
    /// the period, `YYYY-MM-DD`.
    pub employment_start: String,
}

/// Export statements.
pub mod sql {
    use crate::db::PerBackend;
    use crate::per_backend;

    /// What every query of a chunk reads: activities (`a`, joined to their mission `m`) of the
    /// users `$4` in the companies `$5`, overlapping `[$2, $1)`, `$3` standing for "still running".
    const WINDOW: PerBackend = per_backend!(
        ["a.user_id" in 4],
        " AND ",
        ["m.company_id" in 5],
        " AND a.start_time < $1 AND COALESCE(a.end_time, $3) > $2"
    );

    crate::statements! {
        /// Employees with an accepted employment overlapping `[$1, $2]` in one of the companies `$3`,
        /// with the earliest start of those employments.
        pub const EMPLOYEES: PerBackend = per_backend!(
            "SELECT u.id, u.first_name, u.last_name, u.birth_date, MIN(e.start_date) AS employment_start \
             FROM users u JOIN employments e ON e.user_id = u.id WHERE ",
            ["e.company_id" in 3],
            " AND e.validation_status = 'approved' AND e.dismissed_at IS NULL AND e.start_date <= $2 \
               AND (e.end_date IS NULL OR e.end_date >= $1) \
             GROUP BY u.id, u.first_name, u.last_name, u.birth_date ORDER BY u.id"
        );
        /// The same, among the users `$4` only.
        pub const EMPLOYEES_AMONG: PerBackend = per_backend!(
            "SELECT u.id, u.first_name, u.last_name, u.birth_date, MIN(e.start_date) AS employment_start \
             FROM users u JOIN employments e ON e.user_id = u.id WHERE ",
            ["e.company_id" in 3],
            " AND e.validation_status = 'approved' AND e.dismissed_at IS NULL AND e.start_date <= $2 \
               AND (e.end_date IS NULL OR e.end_date >= $1) AND ",
            ["u.id" in 4],
            " GROUP BY u.id, u.first_name, u.last_name, u.birth_date ORDER BY u.id"
        );
        /// The companies where user `$1` has an accepted employment overlapping `[$2, $3]`.
        pub const COMPANIES_OF: &str = "SELECT DISTINCT company_id FROM employments \
             WHERE user_id = $1 AND validation_status = 'approved' AND dismissed_at IS NULL \
               AND start_date <= $3 AND (end_date IS NULL OR end_date >= $2) ORDER BY company_id";
        /// A user as an employee without employment: dated from the account's creation.
        pub const UNEMPLOYED: &str = "SELECT id, first_name, last_name, birth_date, creation_time FROM users WHERE id = $1";
        pub const ACTIVITIES: PerBackend = per_backend!(
            "SELECT a.id, a.mission_id, a.user_id, a.type, a.start_time, a.end_time, a.dismissed_at, a.dismiss_author_id \
             FROM activities a JOIN missions m ON m.id = a.mission_id WHERE ",
            { WINDOW },
            " ORDER BY a.start_time, a.id"
        );
        pub const VERSIONS: PerBackend = per_backend!(
            "SELECT v.activity_id, v.version_number, v.start_time, v.end_time, v.submitter_id \
             FROM activity_versions v JOIN activities a ON a.id = v.activity_id JOIN missions m ON m.id = a.mission_id \
             WHERE ",
            { WINDOW },
            " ORDER BY v.activity_id, v.version_number"
        );
        pub const MISSIONS: PerBackend = per_backend!(
            "SELECT m.id, v.registration_number, ls.kilometer_reading AS start_km, le.kilometer_reading AS end_km \
             FROM missions m LEFT JOIN vehicles v ON v.id = m.vehicle_id \
             LEFT JOIN location_entries ls ON ls.mission_id = m.id AND ls.type = 'mission_start_location' \
             LEFT JOIN location_entries le ON le.mission_id = m.id AND le.type = 'mission_end_location' \
             WHERE m.id IN (SELECT a.mission_id FROM activities a JOIN missions m ON m.id = a.mission_id WHERE ",
            { WINDOW },
            ")"
        );
    }
}

/// Employees with an accepted employment in one of the companies over the period (restricted to
/// `only` when it is not empty; other ids are ignored, never revealed).
pub async fn employees(
    db: &Db,
    companies: &[i64],
    only: &[i64],
    min: NaiveDate,
    max: NaiveDate,
) -> AppResult<Vec<Employee>> {
    let statement = if only.is_empty() {
        sql::EMPLOYEES
    } else {
        sql::EMPLOYEES_AMONG
    };
    let mut query = sqlx::query_as::<_, Employee>(db.sql(statement))
        .bind(crate::domain::companies::date_text(min))
        .bind(crate::domain::companies::date_text(max))
        .bind(id_list(companies));
    if !only.is_empty() {
        query = query.bind(id_list(only));
    }
    Ok(query.fetch_all(db).await?)
}

/// The companies where the actor has an accepted employment over the period (only the company of
/// their scope when they are confined to one: software with an employment token exports that
/// company's data of the employee, nothing of the others).
pub async fn companies_of(db: &Db, actor: Actor, min: NaiveDate, max: NaiveDate) -> AppResult<Vec<i64>> {
    let rows: Vec<(i64,)> = sqlx::query_as(sql::COMPANIES_OF)
        .bind(actor.user_id)
        .bind(crate::domain::companies::date_text(min))
        .bind(crate::domain::companies::date_text(max))
        .fetch_all(db)
        .await?;
    Ok(actor.scope.keep(rows, |r| r.0).into_iter().map(|r| r.0).collect())
}

/// The user as an employee of no company (their own export with no employment over the period).
pub async fn unemployed(db: &Db, user_id: i64) -> AppResult<Employee> {
    let (id, first_name, last_name, birth_date, created): (i64, String, String, Option<String>, i64) =
        sqlx::query_as(sql::UNEMPLOYED).bind(user_id).fetch_one(db).await?;
    Ok(Employee {
        id,
        first_name,
        last_name,
        birth_date,
        employment_start: crate::domain::companies::date_text(date_of(created)),
    })
}

#[derive(sqlx::FromRow, Debug, Clone)]
struct ActivityData {
    id: i64,
    mission_id: i64,
    user_id: i64,
    #[sqlx(rename = "type")]
    kind: String,
    start_time: i64,
    end_time: Option<i64>,
    dismissed_at: Option<i64>,
    dismiss_author_id: Option<i64>,
}

#[derive(sqlx::FromRow, Debug, Clone)]
struct VersionData {
    activity_id: i64,
    version_number: i64,
    start_time: i64,
    end_time: Option<i64>,
    submitter_id: i64,
}

#[derive(sqlx::FromRow, Debug, Clone)]
struct MissionData {
    id: i64,
    registration_number: Option<String>,
    start_km: Option<i64>,
    end_km: Option<i64>,
}

/// The period as Unix seconds `[start, end)`.
pub fn bounds(min: NaiveDate, max: NaiveDate) -> (i64, i64) {
    (day_start(min), day_start(max.succ_opt().unwrap_or(max)))
}

fn kind(text: &str) -> Option<ActivityKind> {
    match text {
        "drive" => Some(ActivityKind::Drive),
        "work" => Some(ActivityKind::Work),
        "support" => Some(ActivityKind::Support),
        "transfer" => Some(ActivityKind::Transfer),
        _ => None,
    }
}

/// The files of one chunk of employees: the current data and, when asked, the data as each
/// employee declared it (the latest version of each activity that they submitted themselves).
pub struct Chunk {
    pub current: Vec<Export>,
    pub declared: Vec<Export>,
}

#[allow(clippy::too_many_arguments)]
pub async fn chunk(
    db: &Db,
    companies: &[i64],
    company_name: &str,
    employees: &[Employee],
    min: NaiveDate,
    max: NaiveDate,
    employee_version: bool,
    generated_at: i64,
) -> AppResult<Chunk> {
    let (from, until) = bounds(min, max);
    let users: Vec<i64> = employees.iter().map(|e| e.id).collect();
    let (user_list, company_list) = (id_list(&users), id_list(companies));
    // The same five parameters for every query of the chunk.
    macro_rules! bind_window {
        ($query:expr) => {
            $query
                .bind(until)
                .bind(from)
                .bind(generated_at)
                .bind(&user_list)
                .bind(&company_list)
        };
    }

    let activities = bind_window!(sqlx::query_as::<_, ActivityData>(db.sql(sql::ACTIVITIES)))
        .fetch_all(db)
        .await?;

    let mut versions: HashMap<i64, Vec<VersionData>> = HashMap::new();
    if employee_version {
        for v in bind_window!(sqlx::query_as::<_, VersionData>(db.sql(sql::VERSIONS)))
            .fetch_all(db)
            .await?
        {
            versions.entry(v.activity_id).or_default().push(v);
        }
    }

    let missions: HashMap<i64, MissionData> = bind_window!(sqlx::query_as::<_, MissionData>(db.sql(sql::MISSIONS)))
        .fetch_all(db)
        .await?
        .into_iter()
        .map(|m| (m.id, m))
        .collect();

    let mut by_user: HashMap<i64, Vec<ActivityData>> = HashMap::new();
    for a in activities {
        by_user.entry(a.user_id).or_default().push(a);
    }
    // Each employee's activities as currently recorded and, when asked, as declared.
    let mut lists = Vec::with_capacity(employees.len());
    for employee in employees {
        let mine = by_user.remove(&employee.id).unwrap_or_default();
        let current: Vec<(i64, Activity)> = mine
            .iter()
            .filter(|a| a.dismissed_at.is_none())
            .filter_map(|a| {
                Some((
                    a.mission_id,
                    Activity {
                        kind: kind(&a.kind)?,
                        start: a.start_time,
                        end: a.end_time.unwrap_or(generated_at),
                    },
                ))
            })
            .filter(|(_, a)| a.end > a.start)
            .collect();
        let declared: Vec<(i64, Activity)> = if employee_version {
            mine.iter()
                // Cancelled by the employee: not declared any more. Cancelled by someone else: the
                // employee's declaration stands.
                .filter(|a| a.dismiss_author_id != Some(employee.id))
                .filter_map(|a| {
                    let own = versions
                        .get(&a.id)?
                        .iter()
                        .filter(|v| v.submitter_id == employee.id)
                        .max_by_key(|v| v.version_number)?;
                    Some((
                        a.mission_id,
                        Activity {
                            kind: kind(&a.kind)?,
                            start: own.start_time,
                            end: own.end_time.unwrap_or(generated_at),
                        },
                    ))
                })
                .filter(|(_, a)| a.end > a.start)
                .collect()
        } else {
            Vec::new()
        };
        lists.push((current, declared));
    }

    // The card covers the employment's start (or the first exported activity if earlier) up to
    // the last exported activity and the download itself.
    let mut coverage = Vec::with_capacity(employees.len());
    for (employee, (current, declared)) in employees.iter().zip(&lists) {
        let start = parse_date(&employee.employment_start).ok_or_else(|| {
            AppError::internal(format!(
                "employment start {:?} of user {} is not a date",
                employee.employment_start, employee.id
            ))
        })?;
        let exported = current.iter().chain(declared).map(|(_, a)| a);
        let first = exported.clone().map(|a| date_of(a.start.max(from))).min();
        let last = exported.map(|a| date_of(a.end.min(until) - 1)).max();
        let earliest = first.map_or(start, |first| first.min(start));
        let latest = last
            .into_iter()
            .chain([date_of(generated_at), earliest])
            .max()
            .unwrap_or(earliest);
        coverage.push((employee.id, earliest, latest));
    }
    let card_dates = cards::settle(db, &coverage, generated_at).await?;

    let mut chunk = Chunk {
        current: Vec::with_capacity(employees.len()),
        declared: Vec::new(),
    };
    for (employee, (current, declared)) in employees.iter().zip(lists) {
        let dates = card_dates
            .get(&employee.id)
            .copied()
            .ok_or_else(|| AppError::internal(format!("no card dates for user {}", employee.id)))?;
        let card = card(employee, company_name, dates);
        chunk
            .current
            .push(export(card.clone(), &current, &missions, min, max, generated_at));
        if employee_version {
            chunk
                .declared
                .push(export(card, &declared, &missions, min, max, generated_at));
        }
    }
    Ok(chunk)
}

fn card(employee: &Employee, company_name: &str, dates: CardDates) -> DriverCard {
    DriverCard {
        card_number: c1b::roadlog_card_number(employee.id as u64, 0).unwrap_or_default(),
        surname: employee.last_name.clone(),
        first_names: employee.first_name.clone(),
        birth_date: employee.birth_date.as_deref().and_then(parse_date),
        company_name: company_name.to_string(),
        issuing_authority: c1b::DEFAULT_ISSUING_AUTHORITY.to_string(),
        card_issue: dates.issue,
        card_validity_begin: dates.issue,
        card_expiry: dates.expiry,
    }
}

/// Builds one file's input: activities, then per mission its vehicle records (one per day,
/// odometers interpolated at midnight), its begin and end places and each day's distance (see
/// `c1b::missions`).
fn export(
    card: DriverCard,
    activities: &[(i64, Activity)],
    missions: &HashMap<i64, MissionData>,
    min: NaiveDate,
    max: NaiveDate,
    generated_at: i64,
) -> Export {
    let mut per_mission: BTreeMap<i64, Vec<(i64, i64)>> = BTreeMap::new();
    for (mission, a) in activities {
        per_mission.entry(*mission).or_default().push((a.start, a.end));
    }
    let km = |v: Option<i64>| v.and_then(|k| u32::try_from(k).ok());
    let missions: Vec<Mission> = per_mission
        .into_iter()
        .map(|(id, activities)| {
            let data = missions.get(&id);
            Mission {
                registration: data.and_then(|d| d.registration_number.clone()),
                activities,
                odometer_begin: data.and_then(|d| km(d.start_km)),
                odometer_end: data.and_then(|d| km(d.end_km)),
            }
        })
        .collect();
    let records = c1b::mission_records(&missions, min, max);
    Export {
        card,
        period_start: min,
        period_end: max,
        activities: activities.iter().map(|(_, a)| *a).collect(),
        vehicles: records.vehicles,
        places: records.places,
        day_distances: records.day_distances,
        generated_at,
    }
}
