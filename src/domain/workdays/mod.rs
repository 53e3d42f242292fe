//! Days of work (`User.workDays`, `Company.workDays`): each worker's recorded time cut into local
//! days, with the day's times, durations by type, expenditures and missions, as the reference service computes them.
//!
//! A page is read from the most recent day backwards: the activities overlapping a window of
//! days are loaded and summarised, and the window grows (four times longer each round) until it
//! holds more days than the page or reaches the owner's first activity. Every day whose start is
//! inside the window is complete, since every activity overlapping it was loaded.

pub mod summary;

use std::collections::HashMap;

use base64::Engine;
use chrono::{Days, NaiveDate};
use chrono_tz::Tz;

use crate::db::{Db, id_list, now};
use crate::domain::activities::rules::OPEN;
use crate::domain::auth::Actor;
use crate::domain::companies::permissions;
use crate::domain::kinds::{ActivityType, ExpenditureType};
use crate::domain::regulation::time::{self, day_start, local_date};
use crate::domain::users::zones;
use crate::errors::{AppError, AppResult};

pub use summary::{Day, Flavor};

/// Largest page of a user's days (the reference's cap, and its default).
pub const USER_PAGE_CAP: i64 = 200;
/// Largest page of a company's days (the reference has none; Roadlog bounds the work of one
/// request), and its default.
pub const COMPANY_PAGE_CAP: i64 = 1000;

/// A day of a page, with what is read about its missions.
#[derive(Clone, Debug)]
pub struct WorkDay {
    pub cursor: String,
    pub day: Day,
    /// Expenditure types and their number (user view: types present only; company: all four).
    pub expenditures: Vec<(&'static str, i64)>,
    /// The day's missions and their names, in the order of [`Day::missions`].
    pub mission_names: Vec<(i64, Option<String>)>,
}

/// A page of days, most recent first.
#[derive(Clone, Debug)]
pub struct Page {
    pub days: Vec<WorkDay>,
    pub has_next_page: bool,
}

/// Work day statements. Spans bind `$1` the owner (user or company), `$2` the window's end,
/// `$3` the "running" end, `$4` the window's start, `$5` 1 when `$6` (a JSON list of ids)
/// filters the rows.
pub mod sql {
    use crate::db::PerBackend;
    use crate::per_backend;

    const SPAN_COLUMNS: &str = "SELECT a.user_id, a.mission_id, a.type, a.start_time, a.end_time \
         FROM activities a JOIN missions m ON m.id = a.mission_id WHERE a.dismissed_at IS NULL";
    const WINDOW: &str = " AND a.start_time < $2 AND COALESCE(a.end_time, $3) > $4 AND ($5 = 0 OR ";

    crate::statements! {
        /// The user's activities in the window, in the companies of the list when filtered.
        pub const USER_SPANS: PerBackend =
            per_backend!(SPAN_COLUMNS, " AND a.user_id = $1", WINDOW, ["m.company_id" in 6], ")");
        /// The company's activities in the window, of the users of the list when filtered.
        pub const COMPANY_SPANS: PerBackend =
            per_backend!(SPAN_COLUMNS, " AND m.company_id = $1", WINDOW, ["a.user_id" in 6], ")");
        /// The start of the user's first activity (`$2`, `$3` as `$5`, `$6` above).
        pub const USER_FIRST: PerBackend = per_backend!(
            "SELECT MIN(a.start_time) FROM activities a JOIN missions m ON m.id = a.mission_id \
             WHERE a.dismissed_at IS NULL AND a.user_id = $1 AND ($2 = 0 OR ",
            ["m.company_id" in 3],
            ")"
        );
        /// The start of the first activity in the company's missions.
        pub const COMPANY_FIRST: PerBackend = per_backend!(
            "SELECT MIN(a.start_time) FROM activities a JOIN missions m ON m.id = a.mission_id \
             WHERE a.dismissed_at IS NULL AND m.company_id = $1 AND ($2 = 0 OR ",
            ["a.user_id" in 3],
            ")"
        );
        /// Names of the missions of the list.
        pub const MISSION_NAMES: PerBackend = per_backend!("SELECT id, name FROM missions WHERE ", ["id" in 1]);
        /// Expenditures (not cancelled) of the missions of the list.
        pub const EXPENDITURES: PerBackend = per_backend!(
            "SELECT user_id, mission_id, spending_date, type FROM expenditures WHERE dismissed_at IS NULL AND ",
            ["mission_id" in 1]
        );
        /// The user's time zone.
        pub const TIMEZONE: &str = "SELECT timezone_name FROM users WHERE id = $1";
        /// The time zones of the users of the list.
        pub const ZONES: PerBackend = per_backend!("SELECT id, timezone_name FROM users WHERE ", ["id" in 1]);
    }
}

/// Whose zone cuts the days.
#[derive(Clone, Copy)]
enum Zones {
    /// The one worker's (`User.workDays`).
    One(Tz),
    /// Each worker's own (`Company.workDays`), read with the page's activities.
    EachWorker,
}

/// The zones furthest ahead of UTC (UTC+14) and behind it (UTC-12): a local date begins
/// nowhere before its midnight in the first and ends nowhere after its midnight in the second.
const AHEAD: Tz = chrono_tz::Etc::GMTMinus14;
const BEHIND: Tz = chrono_tz::Etc::GMTPlus12;

impl Zones {
    /// The zone where a date begins first and the one where it ends last.
    fn extremes(self) -> (Tz, Tz) {
        match self {
            Zones::One(tz) => (tz, tz),
            Zones::EachWorker => (AHEAD, BEHIND),
        }
    }
}

/// What one page asks.
struct Request {
    flavor: Flavor,
    owner: i64,
    zones: Zones,
    /// Companies (user view) or users (company view) the rows are restricted to.
    filter: Option<Vec<i64>>,
    from: Option<NaiveDate>,
    /// The most recent day of the page (inclusive).
    until: NaiveDate,
    /// On `until`, only users below this id (the company cursor's second half).
    below_user: Option<i64>,
    limit: i64,
}

fn invalid_cursor() -> AppError {
    AppError::invalid_inputs("Invalid pagination cursor").with("field", "after")
}

fn encode(text: &str) -> String {
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(text)
}

fn decode(cursor: &str) -> AppResult<String> {
    let bytes = base64::engine::general_purpose::URL_SAFE_NO_PAD
        .decode(cursor.trim())
        .map_err(|_| invalid_cursor())?;
    String::from_utf8(bytes).map_err(|_| invalid_cursor())
}

fn page_size(first: Option<i32>, cap: i64) -> AppResult<i64> {
    match first {
        None => Ok(cap),
        Some(n) if n < 0 => Err(AppError::invalid_inputs("first must not be negative").with("field", "first")),
        Some(n) => Ok(i64::from(n).min(cap)),
    }
}

/// `User.workDays`: the user sees all their days; another caller the time of the companies they
/// administer today (AUTHORIZATION_ERROR when none).
pub async fn of_user(
    db: &Db,
    actor: Actor,
    user_id: i64,
    from: Option<NaiveDate>,
    until: Option<NaiveDate>,
    first: Option<i32>,
    after: Option<String>,
) -> AppResult<Page> {
    let filter = crate::domain::missions::queries::scope(db, actor, user_id, "workDays").await?;
    let limit = page_size(first, USER_PAGE_CAP)?;
    let zone: Option<(String,)> = sqlx::query_as(sql::TIMEZONE).bind(user_id).fetch_optional(db).await?;
    let tz = time::zone(zone.as_ref().map_or("Europe/Paris", |z| z.0.as_str()));
    let mut until = until.unwrap_or_else(|| local_date(tz, now()));
    if let Some(cursor) = after {
        let day = NaiveDate::parse_from_str(&decode(&cursor)?, "%Y-%m-%d").map_err(|_| invalid_cursor())?;
        until = until.min(day.pred_opt().ok_or_else(invalid_cursor)?);
    }
    let request = Request {
        flavor: Flavor::User,
        owner: user_id,
        zones: Zones::One(tz),
        filter,
        from,
        until,
        below_user: None,
        limit,
    };
    read(db, request).await
}

/// `Company.workDays` (admins): the days of the company's workers, each cut in that worker's
/// zone (the reference cuts everyone's in Europe/Paris), of the users of `user_ids` when given.
/// Without `until`, days run to the latest date anywhere on Earth now.
#[allow(clippy::too_many_arguments)]
pub async fn of_company(
    db: &Db,
    actor: Actor,
    company_id: i64,
    from: Option<NaiveDate>,
    until: Option<NaiveDate>,
    first: Option<i32>,
    after: Option<String>,
    user_ids: Option<Vec<i64>>,
) -> AppResult<Page> {
    if !permissions::is_admin(db, actor, company_id).await? {
        return Err(permissions::admin_only_field("workDays"));
    }
    let limit = page_size(first, COMPANY_PAGE_CAP)?;
    let mut until = until.unwrap_or_else(|| local_date(AHEAD, now()));
    let mut below_user = None;
    if let Some(cursor) = after {
        let text = decode(&cursor)?;
        let (day, user) = text.split_once(',').ok_or_else(invalid_cursor)?;
        let day = day.strip_suffix(" 00:00:00").ok_or_else(invalid_cursor)?;
        let day = NaiveDate::parse_from_str(day, "%Y-%m-%d").map_err(|_| invalid_cursor())?;
        let user: i64 = user.parse().map_err(|_| invalid_cursor())?;
        if day <= until {
            until = day;
            below_user = Some(user);
        }
    }
    let request = Request {
        flavor: Flavor::Company,
        owner: company_id,
        zones: Zones::EachWorker,
        filter: user_ids,
        from,
        until,
        below_user,
        limit,
    };
    read(db, request).await
}

/// The filter's two parameters: the flag and the JSON list.
fn filter_binds(filter: &Option<Vec<i64>>) -> (i64, String) {
    match filter {
        Some(ids) => (1, id_list(ids)),
        None => (0, "[]".to_string()),
    }
}

/// Reads one page (see the module's comment).
async fn read(db: &Db, request: Request) -> AppResult<Page> {
    let (spans_sql, first_sql) = match request.flavor {
        Flavor::User => (sql::USER_SPANS, sql::USER_FIRST),
        Flavor::Company => (sql::COMPANY_SPANS, sql::COMPANY_FIRST),
    };
    let (filtered, list) = filter_binds(&request.filter);
    let (first_start,): (Option<i64>,) = sqlx::query_as(db.sql(first_sql))
        .bind(request.owner)
        .bind(filtered)
        .bind(&list)
        .fetch_one(db)
        .await?;
    let empty = Page {
        days: vec![],
        has_next_page: false,
    };
    let Some(first_start) = first_start else {
        return Ok(empty);
    };
    let (ahead, behind) = request.zones.extremes();
    let floor = match request.from {
        Some(from) => from.max(local_date(behind, first_start)),
        None => local_date(behind, first_start),
    };
    if floor > request.until {
        return Ok(empty);
    }
    let now = now();
    let until_date = request.until.succ_opt().ok_or_else(invalid_cursor)?;
    let until = day_start(behind, until_date);
    let mut span_days: u64 = 14;
    let (days, has_next_page) = loop {
        let lo_date = request
            .until
            .checked_sub_days(Days::new(span_days - 1))
            .map_or(floor, |d| d.max(floor));
        let lo = day_start(ahead, lo_date);
        let rows: Vec<(i64, i64, String, i64, Option<i64>)> = sqlx::query_as(db.sql(spans_sql))
            .bind(request.owner)
            .bind(until)
            .bind(OPEN)
            .bind(lo)
            .bind(filtered)
            .bind(&list)
            .fetch_all(db)
            .await?;
        let spans: Vec<summary::Span> = rows
            .into_iter()
            .filter_map(|(user_id, mission_id, kind, start, end)| {
                Some(summary::Span {
                    user_id,
                    mission_id,
                    kind: ActivityType::from_str_opt(&kind)?,
                    start,
                    end,
                })
            })
            .collect();
        let worker_zones = match request.zones {
            Zones::One(_) => HashMap::new(),
            Zones::EachWorker => zones_of(db, &spans).await?,
        };
        let zone_of = |user: i64| match request.zones {
            Zones::One(tz) => tz,
            Zones::EachWorker => worker_zones.get(&user).copied().unwrap_or(zones::DEFAULT),
        };
        let mut days = summary::summarize(&zone_of, &spans, request.flavor, now, lo_date, until_date);
        if let Some(below) = request.below_user {
            days.retain(|d| d.day < request.until || d.user_id < below);
        }
        if days.len() as i64 > request.limit {
            days.truncate(request.limit as usize);
            break (days, true);
        }
        if lo_date <= floor {
            break (days, false);
        }
        span_days = span_days.saturating_mul(4);
    };
    let details = details(db, &days).await?;
    Ok(Page {
        days: days
            .into_iter()
            .map(|day| complete(day, request.flavor, &details))
            .collect(),
        has_next_page,
    })
}

/// The zones of the workers of `spans`.
async fn zones_of(db: &Db, spans: &[summary::Span]) -> AppResult<HashMap<i64, Tz>> {
    let mut users: Vec<i64> = spans.iter().map(|s| s.user_id).collect();
    users.sort_unstable();
    users.dedup();
    let rows: Vec<(i64, String)> = sqlx::query_as(db.sql(sql::ZONES))
        .bind(id_list(&users))
        .fetch_all(db)
        .await?;
    Ok(rows.into_iter().map(|(id, name)| (id, time::zone(&name))).collect())
}

/// What is read about the missions of a page: their names, and their expenditures by
/// `(user, mission, spending date)`.
struct Details {
    names: HashMap<i64, Option<String>>,
    expenditures: HashMap<(i64, i64, String), Vec<String>>,
}

async fn details(db: &Db, days: &[Day]) -> AppResult<Details> {
    let mut missions: Vec<i64> = days.iter().flat_map(|d| d.missions.iter().copied()).collect();
    missions.sort_unstable();
    missions.dedup();
    let list = id_list(&missions);
    let names: Vec<(i64, Option<String>)> = sqlx::query_as(db.sql(sql::MISSION_NAMES))
        .bind(&list)
        .fetch_all(db)
        .await?;
    let rows: Vec<(i64, i64, String, String)> = sqlx::query_as(db.sql(sql::EXPENDITURES))
        .bind(&list)
        .fetch_all(db)
        .await?;
    let mut expenditures: HashMap<(i64, i64, String), Vec<String>> = HashMap::new();
    for (user, mission, date, kind) in rows {
        expenditures.entry((user, mission, date)).or_default().push(kind);
    }
    Ok(Details {
        names: names.into_iter().collect(),
        expenditures,
    })
}

fn complete(day: Day, flavor: Flavor, details: &Details) -> WorkDay {
    let date = crate::domain::companies::date_text(day.day);
    let mut counts = [0i64; 4];
    for mission in &day.missions {
        for kind in details
            .expenditures
            .get(&(day.user_id, *mission, date.clone()))
            .into_iter()
            .flatten()
        {
            if let Some(i) = ExpenditureType::ALL.iter().position(|k| k.as_str() == kind) {
                counts[i] += 1;
            }
        }
    }
    let expenditures = ExpenditureType::ALL
        .iter()
        .zip(counts)
        .filter(|(_, n)| flavor == Flavor::Company || *n > 0)
        .map(|(k, n)| (k.as_str(), n))
        .collect();
    let mission_names = day
        .missions
        .iter()
        .map(|id| (*id, details.names.get(id).cloned().flatten()))
        .collect();
    let cursor = match flavor {
        Flavor::User => encode(&date),
        Flavor::Company => encode(&format!("{date} 00:00:00,{}", day.user_id)),
    };
    WorkDay {
        cursor,
        day,
        expenditures,
        mission_names,
    }
}
