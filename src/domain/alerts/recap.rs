//! A company's alerts for admins (reference §1.11–1.12): `regulatoryAlertsRecap` (a month's
//! admin alerts by kind, with the reference's counting rules) and
//! `adminRegulationComputationsByUserAndByDay`.

use std::collections::BTreeMap;

use chrono::{Datelike, Months, NaiveDate};

use crate::db::{Db, PerBackend, id_list};
use crate::domain::companies::{date_text, parse_date, permissions, today};
use crate::domain::regulation::checks::{CHECKS, CheckType, Unit};
use crate::domain::regulation::time::{self, DAY};
use crate::errors::{AppError, AppResult};

pub mod sql {
    use crate::db::PerBackend;
    use crate::db::sql::{ROWS_AS_JSON, ROWS_FROM};
    use crate::domain::companies::permissions::sql::ADMIN_TODAY;

    /// The workers' bit sets of a group, joined with commas.
    const DAYS_JOINED: PerBackend = PerBackend {
        sqlite: "group_concat(m.days, ',') AS days",
        postgres: "string_agg(CAST(m.days AS TEXT), ',') AS days",
    };

    /// The company's (`$1`) workers on `$2` (today): an approved, not dismissed employment
    /// covering the day.
    const WORKERS_TODAY: &str = "SELECT DISTINCT user_id FROM employments WHERE company_id = $1 \
         AND user_id IS NOT NULL AND validation_status = 'approved' AND dismissed_at IS NULL \
         AND start_date <= $2 AND (end_date IS NULL OR end_date >= $2)";

    /// "is one of the workers `w`" (the CTE of [`RECAP`]); on PostgreSQL as an array, for one
    /// index lookup per worker (see `per_backend!`'s id lists).
    const IN_WORKERS: PerBackend = PerBackend {
        sqlite: " IN (SELECT user_id FROM w)",
        postgres: " = ANY(ARRAY(SELECT user_id FROM w))",
    };

    crate::statements! {
        /// The company's workers today (`$2`), as one row (a row per worker was a thread
        /// hand-over per worker on SQLite: 233 of them per recap).
        pub const CURRENT_WORKERS: PerBackend = crate::per_backend!(
            {ROWS_AS_JSON},
            "t.user_id",
            {ROWS_FROM},
            WORKERS_TODAY,
            ") t"
        );
        /// Everything the recap reads but the day details, in one round trip (it was four: the
        /// permission, the workers, a header, the summaries). A row only when user `$3` is an
        /// admin of company `$1` on `$2` (today), with: the company's workers that day (only
        /// those of the JSON list `$4` when it is not null), as JSON rows; whether any admin
        /// computation of theirs is dated in `[$5, $6)`; the company's SIREN and whether it
        /// opted in to the EU checks; and their admin alerts of the months `$7` to `$8`
        /// (`YYYY-MM`) from the month summaries, as JSON rows: per month, check and flags, each
        /// worker's alerted days as a bit set (bit d-1: day d), joined with commas. A month of
        /// a 233-worker company is some 800 summary rows where its alerts are 7,400.
        pub const RECAP: PerBackend = crate::per_backend!(
            "WITH w AS (",
            WORKERS_TODAY,
            " AND (CAST($4 AS TEXT) IS NULL OR ",
            ["user_id" in 4],
            ")) SELECT (",
            {ROWS_AS_JSON},
            "t.user_id",
            {ROWS_FROM},
            "SELECT user_id FROM w) t) AS workers, \
             (SELECT COUNT(*) FROM (SELECT 1 FROM regulation_computations r \
                 WHERE r.submitter_type = 'admin' AND r.day >= $5 AND r.day < $6 AND r.user_id",
            {IN_WORKERS},
            " LIMIT 1) x) AS found, c.siren, c.eu_driving_checks, (",
            {ROWS_AS_JSON},
            "t.month, t.check_type, t.night_work, t.not_enough_break, t.too_much_uninterrupted_work_time, t.days",
            {ROWS_FROM},
            "SELECT m.month, m.check_type, m.night_work, m.not_enough_break, m.too_much_uninterrupted_work_time, ",
            {DAYS_JOINED},
            " FROM regulatory_alert_months m WHERE m.submitter_type = 'admin' AND m.month >= $7 AND m.month <= $8 \
               AND m.user_id",
            {IN_WORKERS},
            " GROUP BY m.month, m.check_type, m.night_work, m.not_enough_break, m.too_much_uninterrupted_work_time) t) AS months \
             FROM companies c WHERE c.id = $1 AND EXISTS (",
            ADMIN_TODAY,
            ")"
        );
        /// The same per worker too, when the recap's `dayDetails` (one item per day and worker)
        /// are asked for. The workers' names are read apart, once per worker.
        pub const ALERTS_BY_DAY_AND_USER: PerBackend = crate::per_backend!(
            "SELECT a.day, a.check_type, a.user_id, a.night_work, a.not_enough_break, \
               a.too_much_uninterrupted_work_time, CAST(COUNT(*) AS BIGINT) AS alerts \
             FROM regulatory_alerts a WHERE a.submitter_type = 'admin' AND a.day >= $2 AND a.day < $3 AND ",
            ["a.user_id" in 1],
            " GROUP BY a.day, a.check_type, a.user_id, a.night_work, a.not_enough_break, \
               a.too_much_uninterrupted_work_time ORDER BY a.day, a.user_id"
        );
        /// The names and zones of the alerted workers (`$1`).
        pub const NAMES: PerBackend = crate::per_backend!(
            "SELECT id, first_name, last_name, timezone_name FROM users WHERE ",
            ["id" in 1]
        );
        /// The activities the workers (`$1`) started in `[$2, $3)` for companies other than `$4`,
        /// with those companies' SIRENs: one statement for every alerted worker of the recap.
        pub const OTHER_COMPANIES: PerBackend = crate::per_backend!(
            "SELECT a.user_id, a.start_time, c.siren FROM activities a JOIN missions m ON m.id = a.mission_id \
             JOIN companies c ON c.id = m.company_id WHERE ",
            ["a.user_id" in 1],
            " AND a.dismissed_at IS NULL AND a.start_time >= $2 AND a.start_time < $3 AND m.company_id <> $4"
        );
        /// Admin computations of the workers (`$1`), days optional.
        pub const ADMIN_COMPUTATIONS: PerBackend = crate::per_backend!(
            "SELECT c.day, c.user_id, \
               (SELECT CAST(COALESCE(SUM(CASE WHEN a.check_type = 'enoughBreak' \
                       THEN a.not_enough_break + a.too_much_uninterrupted_work_time ELSE 1 END), 0) AS BIGINT) \
                FROM regulatory_alerts a WHERE a.user_id = c.user_id AND a.day = c.day \
                  AND a.submitter_type = 'admin' AND a.unit = 'day'), \
               (SELECT COUNT(*) FROM regulatory_alerts a WHERE a.user_id = c.user_id AND a.day = c.day \
                  AND a.submitter_type = 'admin' AND a.unit = 'week') \
             FROM regulation_computations c WHERE c.submitter_type = 'admin' \
               AND (CAST($2 AS TEXT) IS NULL OR c.day >= CAST($2 AS TEXT)) \
               AND (CAST($3 AS TEXT) IS NULL OR c.day <= CAST($3 AS TEXT)) AND ",
            ["c.user_id" in 1],
            " ORDER BY c.id"
        );
    }
}

/// `RegulatoryAlertsSummary`.
#[derive(Debug, Clone, Default)]
pub struct Summary {
    pub has_any_computation: bool,
    pub month: NaiveDate,
    pub total: i64,
    pub total_previous_month: i64,
    pub daily: Vec<Group>,
    pub weekly: Vec<Group>,
}

/// `AlertsGroup`.
#[derive(Debug, Clone, Default)]
pub struct Group {
    pub alerts_type: String,
    pub nb_alerts: i64,
    pub days: Vec<NaiveDate>,
    pub details: Vec<Detail>,
}

/// `AlertDayDetail`.
#[derive(Debug, Clone)]
pub struct Detail {
    pub day: NaiveDate,
    pub user_name: String,
    pub user_id: i64,
    pub other_company_relation: Option<&'static str>,
}

#[derive(sqlx::FromRow)]
struct AlertLine {
    day: String,
    check_type: String,
    user_id: i64,
    night_work: i64,
    not_enough_break: i64,
    too_much_uninterrupted_work_time: i64,
    /// How many alerts the line stands for.
    alerts: i64,
}

/// An alerted worker's name and zone.
struct Worker {
    name: String,
    zone: chrono_tz::Tz,
}

async fn workers_of(db: &Db, lines: &[AlertLine]) -> AppResult<BTreeMap<i64, Worker>> {
    let mut users: Vec<i64> = lines.iter().map(|l| l.user_id).collect();
    users.sort_unstable();
    users.dedup();
    if users.is_empty() {
        return Ok(BTreeMap::new());
    }
    let rows: Vec<(i64, String, String, String)> = sqlx::query_as(db.sql(sql::NAMES))
        .bind(id_list(&users))
        .fetch_all(db.exec())
        .await?;
    Ok(rows
        .into_iter()
        .map(|(id, first, last, zone)| {
            (
                id,
                Worker {
                    name: format!("{first} {last}"),
                    zone: time::zone(&zone),
                },
            )
        })
        .collect())
}

/// What `regulatoryAlertsRecap` receives.
pub struct RecapQuery {
    pub company_id: i64,
    pub month: NaiveDate,
    pub unique_user_id: Option<i64>,
    pub team_id: Option<i64>,
    pub from: Option<NaiveDate>,
    pub to: Option<NaiveDate>,
    /// Whether `dayDetails` are read: without them, the alerts are counted per day and kind
    /// only, and no name or other company is looked up.
    pub with_details: bool,
}

async fn current_workers(db: &Db, company_id: i64) -> AppResult<Vec<i64>> {
    let (rows,): (String,) = sqlx::query_as(db.sql(sql::CURRENT_WORKERS))
        .bind(company_id)
        .bind(date_text(today()))
        .fetch_one(db.exec())
        .await?;
    let rows: Vec<(i64,)> = super::json_rows(&rows)?;
    let mut users: Vec<i64> = rows.into_iter().map(|r| r.0).collect();
    users.sort_unstable();
    Ok(users)
}

/// The admin alerts of the workers (`$1`) dated in `[from, to)`: per worker and day when
/// `per_worker` (the day details), else counted per day from the month summaries `months`.
async fn alert_lines(
    db: &Db,
    users: &[i64],
    (from, to): (NaiveDate, NaiveDate),
    per_worker: bool,
    months: &[MonthRow],
) -> AppResult<Vec<AlertLine>> {
    if per_worker {
        return Ok(sqlx::query_as(db.sql(sql::ALERTS_BY_DAY_AND_USER))
            .bind(id_list(users))
            .bind(date_text(from))
            .bind(date_text(to))
            .fetch_all(db.exec())
            .await?);
    }
    Ok(lines_of_months(months, (from, to)))
}

/// The workers' bit sets of a summary group.
fn bit_sets(days: &str) -> impl Iterator<Item = i64> + '_ {
    days.split(',').filter_map(|bits| bits.trim().parse::<i64>().ok())
}

/// A month's total from its summaries, counted as the reference counts (an `enoughBreak` alert
/// with both halves failed counts twice).
fn month_total(rows: &[MonthRow], month: &str) -> i64 {
    rows.iter()
        .filter(|row| row.month == month)
        .map(|row| {
            let alerts: i64 = bit_sets(&row.days).map(|set| i64::from(set.count_ones())).sum();
            alerts * (1 + row.not_enough_break * row.too_much_uninterrupted_work_time)
        })
        .sum()
}

/// A group of the month summaries: a month, a check and its flags, and each worker's alerted
/// days of the month as a bit set (bit d-1: day d), joined with commas. Read from a JSON array
/// of [`sql::RECAP`]'s columns, in their order.
#[derive(serde::Deserialize)]
struct MonthRow {
    month: String,
    check_type: String,
    night_work: i64,
    not_enough_break: i64,
    too_much_uninterrupted_work_time: i64,
    days: String,
}

fn month_text(day: NaiveDate) -> String {
    day.format("%Y-%m").to_string()
}

/// The alerts of the summaries counted per day, check and flags, for the days of `[from, to)`
/// only: the lines the recap's groups are made of (no worker: `user_id` 0).
fn lines_of_months(rows: &[MonthRow], (from, to): (NaiveDate, NaiveDate)) -> Vec<AlertLine> {
    let mut lines = vec![];
    for row in rows {
        let Some(first) = parse_date(&format!("{}-01", row.month)) else {
            continue;
        };
        // How many workers were alerted on each day of the month (index d-1: day d).
        let mut counts = [0i64; 31];
        for set in bit_sets(&row.days) {
            for (bit, count) in counts.iter_mut().enumerate() {
                *count += (set >> bit) & 1;
            }
        }
        for (bit, &alerts) in counts.iter().enumerate() {
            let Some(day) = first.checked_add_days(chrono::Days::new(bit as u64)) else {
                continue;
            };
            if alerts == 0 || day < from || day >= to || day.month() != first.month() {
                continue;
            }
            lines.push(AlertLine {
                day: date_text(day),
                check_type: row.check_type.clone(),
                user_id: 0,
                night_work: row.night_work,
                not_enough_break: row.not_enough_break,
                too_much_uninterrupted_work_time: row.too_much_uninterrupted_work_time,
                alerts,
            });
        }
    }
    lines.sort_by(|a, b| a.day.cmp(&b.day));
    lines
}

/// Counted as the reference counts: an `enoughBreak` alert with both halves failed counts twice.
fn total(lines: &[AlertLine]) -> i64 {
    lines
        .iter()
        .map(|l| l.alerts * (1 + i64::from(l.not_enough_break == 1 && l.too_much_uninterrupted_work_time == 1)))
        .sum()
}

/// `Company.regulatoryAlertsRecap`, for a company admin.
pub async fn recap(db: &Db, actor: i64, query: RecapQuery) -> AppResult<Summary> {
    if !crate::domain::auth::scope::allows(query.company_id) {
        return Err(permissions::admin_only_field("regulatoryAlertsRecap"));
    }
    // The workers the recap is confined to: a team's current workers (a team of another
    // company, or none, has none), or the one worker asked for; all the company's current
    // workers otherwise (read with the rest, below).
    let confined: Option<Vec<i64>> = match (query.team_id, query.unique_user_id) {
        (None, None) => None,
        (None, Some(unique)) => Some(vec![unique]),
        (Some(team), unique) => {
            let mut team = crate::domain::teams::current_workers(db, query.company_id, team).await?;
            if let Some(unique) = unique {
                team.retain(|&u| u == unique);
            }
            Some(team)
        }
    };
    let month = query.month.with_day(1).unwrap_or(query.month);
    let (from, to, previous) = match (query.from, query.to) {
        (Some(from), Some(to)) => (from, to, None),
        _ => (month, month + Months::new(1), Some(month - Months::new(1))),
    };
    // The summaries read: the previous month's (its total), and the period's own when the day
    // details are not asked for (its counts). Without a previous month (an explicit period),
    // the previous total is 0.
    let months = match (query.with_details, previous, to.pred_opt()) {
        (false, _, Some(last)) => Some((previous.unwrap_or(from).min(from), last)),
        (true, Some(first), _) => Some((first, first)),
        _ => None,
    };
    // No months: a range no month is in.
    let (first_month, last_month) = months.map_or(("1".to_string(), "0".to_string()), |(first, last)| {
        (month_text(first), month_text(last))
    });
    let head: Option<(String, i64, String, i64, String)> = sqlx::query_as(db.sql(sql::RECAP))
        .bind(query.company_id)
        .bind(date_text(today()))
        .bind(actor)
        .bind(confined.as_deref().map(id_list))
        .bind(date_text(from))
        .bind(date_text(to))
        .bind(first_month)
        .bind(last_month)
        .fetch_optional(db.exec())
        .await?;
    let Some((workers, computed, siren, eu, months)) = head else {
        return Err(permissions::admin_only_field("regulatoryAlertsRecap"));
    };
    let workers: Vec<(i64,)> = super::json_rows(&workers)?;
    let mut users: Vec<i64> = workers.into_iter().map(|w| w.0).collect();
    users.sort_unstable();
    if let Some(unique) = query.unique_user_id
        && !users.contains(&unique)
    {
        return Err(AppError::authorization(
            "Forbidden access: the user is not a current worker of the team or of the company",
        ));
    }
    if computed == 0 {
        return Ok(Summary {
            month,
            ..Summary::default()
        });
    }
    let months: Vec<MonthRow> = super::json_rows(&months)?;
    let total_previous_month = previous.map_or(0, |first| month_total(&months, &month_text(first)));
    let lines = alert_lines(db, &users, (from, to), query.with_details, &months).await?;
    let eu = eu == 1;
    let mut daily: Vec<(String, Vec<&AlertLine>)> = vec![];
    let mut weekly: Vec<(String, Vec<&AlertLine>)> = vec![];
    fn group(groups: &mut Vec<(String, Vec<&AlertLine>)>, name: &str) -> usize {
        match groups.iter().position(|g| g.0 == name) {
            Some(i) => i,
            None => {
                groups.push((name.to_string(), vec![]));
                groups.len() - 1
            }
        }
    }
    // The EU extensions come after the reference's groups, for companies that opted in.
    for check in CHECKS
        .iter()
        .filter(|c| c.check_type != CheckType::NoLic && (eu || !c.extension))
    {
        let of_check = lines.iter().filter(|l| l.check_type == check.check_type.as_str());
        match (check.unit, check.check_type) {
            (Unit::Week, _) => {
                if check.valid_on(from) {
                    let i = group(&mut weekly, check.check_type.as_str());
                    weekly[i].1.extend(of_check);
                }
            }
            (Unit::Day, CheckType::MaximumWorkDayTime) => {
                let day = group(&mut daily, "maximumWorkDayTime");
                let night = group(&mut daily, "maximumNightWorkDayTime");
                for line in of_check {
                    daily[if line.night_work == 1 { night } else { day }].1.push(line);
                }
            }
            (Unit::Day, CheckType::EnoughBreak)
            | (Unit::Day, CheckType::MinimumWorkDayBreak)
            | (Unit::Day, CheckType::MaximumUninterruptedWorkTime) => {
                let merged = check.check_type == CheckType::EnoughBreak;
                let lines: Vec<&AlertLine> = of_check.collect();
                if merged || check.check_type == CheckType::MinimumWorkDayBreak {
                    let i = group(&mut daily, "not_enough_break");
                    daily[i]
                        .1
                        .extend(lines.iter().filter(|l| !merged || l.not_enough_break == 1));
                }
                if merged || check.check_type == CheckType::MaximumUninterruptedWorkTime {
                    let i = group(&mut daily, "too_much_uninterrupted_work_time");
                    daily[i].1.extend(
                        lines
                            .iter()
                            .filter(|l| !merged || l.too_much_uninterrupted_work_time == 1),
                    );
                }
            }
            (Unit::Day, other) => {
                let i = group(&mut daily, other.as_str());
                daily[i].1.extend(of_check);
            }
        }
    }
    let (workers, relations) = if query.with_details {
        let workers = workers_of(db, &lines).await?;
        let relations = other_company_relations(db, query.company_id, &siren, &lines, &workers).await?;
        (workers, relations)
    } else {
        (BTreeMap::new(), BTreeMap::new())
    };
    let build = |groups: Vec<(String, Vec<&AlertLine>)>| -> Vec<Group> {
        groups
            .into_iter()
            .map(|(alerts_type, lines)| {
                let mut days: Vec<NaiveDate> = lines.iter().filter_map(|l| parse_date(&l.day)).collect();
                days.sort();
                days.dedup();
                let mut details: Vec<Detail> = vec![];
                if query.with_details {
                    let mut sorted = lines.clone();
                    sorted.sort_by(|a, b| a.day.cmp(&b.day).then(a.user_id.cmp(&b.user_id)));
                    // Sorted by (day, user): a repeated pair follows its first line.
                    sorted.dedup_by(|a, b| a.day == b.day && a.user_id == b.user_id);
                    for line in sorted {
                        let Some(day) = parse_date(&line.day) else { continue };
                        details.push(Detail {
                            day,
                            user_name: workers.get(&line.user_id).map(|w| w.name.clone()).unwrap_or_default(),
                            user_id: line.user_id,
                            other_company_relation: relations.get(&(day, line.user_id)).copied(),
                        });
                    }
                }
                Group {
                    alerts_type,
                    nb_alerts: lines.iter().map(|l| l.alerts).sum(),
                    days,
                    details,
                }
            })
            .collect()
    };
    Ok(Summary {
        has_any_computation: true,
        month,
        total: total(&lines),
        total_previous_month,
        daily: build(daily),
        weekly: build(weekly),
    })
}

/// For each alerted (local day, worker): `company` when the worker started activities that day
/// for a company with another SIREN, `establishment` when only for other companies with the same
/// SIREN (absent: neither). One statement for all the lines, however many: the activities the
/// alerted workers started for other companies over the span of the alerted days, each placed
/// on its local day in its worker's zone.
async fn other_company_relations(
    db: &Db,
    company_id: i64,
    siren: &str,
    lines: &[AlertLine],
    workers: &BTreeMap<i64, Worker>,
) -> AppResult<BTreeMap<(NaiveDate, i64), &'static str>> {
    let mut alerted: BTreeMap<(NaiveDate, i64), chrono_tz::Tz> = BTreeMap::new();
    for line in lines {
        if let (Some(day), Some(worker)) = (parse_date(&line.day), workers.get(&line.user_id)) {
            alerted.insert((day, line.user_id), worker.zone);
        }
    }
    let mut relations = BTreeMap::new();
    let span = alerted.iter().map(|(&(day, _), &tz)| {
        let start = time::day_start(tz, day);
        (start, start + DAY)
    });
    let Some((from, until)) = span.reduce(|a, b| (a.0.min(b.0), a.1.max(b.1))) else {
        return Ok(relations);
    };
    let mut users: Vec<i64> = alerted.keys().map(|k| k.1).collect();
    users.sort_unstable();
    users.dedup();
    let zones: BTreeMap<i64, chrono_tz::Tz> = alerted.iter().map(|(&(_, user), &tz)| (user, tz)).collect();
    let rows: Vec<(i64, i64, String)> = sqlx::query_as(db.sql(sql::OTHER_COMPANIES))
        .bind(id_list(&users))
        .bind(from)
        .bind(until)
        .bind(company_id)
        .fetch_all(db.exec())
        .await?;
    for (user, start, other) in rows {
        let Some(&tz) = zones.get(&user) else { continue };
        let key = (time::local_date(tz, start), user);
        if !alerted.contains_key(&key) {
            continue;
        }
        let relation = if other != siren { "company" } else { "establishment" };
        // `company` wins over `establishment`.
        let entry = relations.entry(key).or_insert(relation);
        if relation == "company" {
            *entry = relation;
        }
    }
    Ok(relations)
}

/// `CompanyAdminRegulationComputationsByUserAndDay`.
#[derive(sqlx::FromRow, Debug, Clone)]
pub struct AdminDay {
    pub day: String,
    pub user_id: i64,
    pub nb_alerts_daily_admin: i64,
    pub nb_alerts_weekly_admin: i64,
}

/// `Company.adminRegulationComputationsByUserAndByDay`, for a company admin.
pub async fn admin_days(
    db: &Db,
    actor: i64,
    company_id: i64,
    from: Option<NaiveDate>,
    to: Option<NaiveDate>,
    user_ids: Option<Vec<i64>>,
) -> AppResult<Vec<AdminDay>> {
    if !permissions::is_admin(db, actor, company_id).await? {
        return Err(permissions::admin_only_field(
            "adminRegulationComputationsByUserAndByDay",
        ));
    }
    let mut users = current_workers(db, company_id).await?;
    if let Some(wanted) = user_ids {
        users.retain(|u| wanted.contains(u));
    }
    let statement: PerBackend = sql::ADMIN_COMPUTATIONS;
    let rows: Vec<(String, i64, i64, i64)> = sqlx::query_as(db.sql(statement))
        .bind(id_list(&users))
        .bind(from.map(date_text))
        .bind(to.map(date_text))
        .fetch_all(db.exec())
        .await?;
    Ok(rows
        .into_iter()
        .map(|(day, user_id, daily, weekly)| AdminDay {
            day,
            user_id,
            nb_alerts_daily_admin: daily,
            nb_alerts_weekly_admin: weekly,
        })
        .collect())
}
