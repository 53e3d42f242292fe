//! A company's alerts for admins (reference §1.11–1.12): `regulatoryAlertsRecap` (a month's
//! admin alerts by kind, with the reference's counting rules) and
//! `adminRegulationComputationsByUserAndByDay`.

use std::collections::BTreeMap;

use chrono::{Datelike, Months, NaiveDate};

use crate::db::{Db, PerBackend, id_list};
use crate::domain::auth::Actor;
use crate::domain::companies::{date_text, parse_date, permissions, today};
use crate::domain::regulation::checks::{CHECKS, CheckType, Unit};
use crate::domain::regulation::time::{self, DAY};
use crate::errors::{AppError, AppResult};

pub mod sql {
    use crate::db::PerBackend;
    use crate::db::sql::{JOINED_USER_IDS, ROWS_AS_JSON, ROWS_FROM};
    use crate::domain::companies::permissions::sql::ADMIN_TODAY;

    /// The company's (`$1`) month summaries (`m`: one text per bucket of workers and month, each
    /// its workers' rows `user_id month items` joined with `|`: migration 0053) joined with `|`,
    /// one range of the buckets' key; the caller keeps the rows of current workers. (The
    /// benchmark's 233 workers over two months: 32 bucket rows, PostgreSQL 0.11 ms, where a row
    /// per worker and month was 400 rows, 0.44 ms; probing the per-worker key once per current
    /// worker had cost 0.49 ms. A row per check and flags, grouped by a `GROUP BY` and returned
    /// as JSON rows, made the whole recap 2.5 times as costly on SQLite.)
    const SUMMARY_LIST: PerBackend = PerBackend {
        sqlite: "SELECT group_concat(m.summaries, '|') AS summaries FROM company_alert_month_buckets m",
        postgres: "SELECT string_agg(m.summaries, '|') AS summaries FROM company_alert_month_buckets m",
    };

    /// The workers `w` as one text, their ids joined with commas (null when there are none).
    const WORKER_LIST: PerBackend = crate::per_backend!("SELECT ", { JOINED_USER_IDS }, " FROM w");

    /// The company's (`$1`) workers on `$2` (today): an approved, not dismissed employment
    /// covering the day.
    /// (Not `DISTINCT`: the callers drop a repeated worker, and the sort it costs doubled
    /// PostgreSQL's time to read them, 0.05 → 0.11 ms for 234 workers.)
    const WORKERS_TODAY: &str = "SELECT user_id FROM employments WHERE company_id = $1 \
         AND user_id IS NOT NULL AND validation_status = 'approved' AND dismissed_at IS NULL \
         AND start_date <= $2 AND (end_date IS NULL OR end_date >= $2)";

    /// "has an admin computation dated in `[$5, $6)`", for one of the workers `w`.
    const ANY_COMPUTATION: PerBackend = PerBackend {
        sqlite: "SELECT 1 FROM w JOIN regulation_computations r ON r.user_id = w.user_id \
             AND r.submitter_type = 'admin' AND r.day >= $5 AND r.day < $6",
        postgres: "SELECT 1 FROM regulation_computations r WHERE r.submitter_type = 'admin' \
             AND r.day >= $5 AND r.day < $6 AND r.user_id = ANY(ARRAY(SELECT user_id FROM w))",
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
        /// admin of company `$1` on `$2` (today), with: the workers the company has that day
        /// (only those of the JSON list `$4` when it is not null), as a list ([`WORKER_LIST`]);
        /// whether any admin computation of theirs is dated in `[$5, $6)`; the company's SIREN
        /// and whether it opted in to the EU checks; and the company's admin month summaries of
        /// the months `$7` to `$8` (`YYYY-MM`) as one text ([`SUMMARY_LIST`]). The benchmark's
        /// recap (233 workers, a month and the one before) reads 32 bucket rows where the
        /// alerts are 7,400.
        pub const RECAP: PerBackend = crate::per_backend!(
            "WITH w AS (",
            WORKERS_TODAY,
            " AND (CAST($4 AS TEXT) IS NULL OR ",
            ["user_id" in 4],
            ")) SELECT (",
            {WORKER_LIST},
            ") AS workers, (SELECT COUNT(*) FROM (",
            {ANY_COMPUTATION},
            " LIMIT 1) x) AS found, c.siren, c.eu_driving_checks, s.summaries \
             FROM companies c, (",
            {SUMMARY_LIST},
            " WHERE m.company_id = $1 AND m.submitter_type = 'admin' AND m.month >= $7 AND m.month <= $8 \
               AND m.summaries <> '') s \
             WHERE c.id = $1 AND EXISTS (",
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
    users.dedup();
    Ok(users)
}

/// The admin alerts of the workers (`$1`) dated in `[from, to)`: per worker and day when
/// `per_worker` (the day details), else counted per day from the month summaries `months`.
async fn alert_lines(
    db: &Db,
    users: &[i64],
    (from, to): (NaiveDate, NaiveDate),
    per_worker: bool,
    months: &[MonthGroup],
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

/// The workers' month summaries added up per month, check and flags: how many workers were
/// alerted on each day of the month (index d-1: day d).
#[derive(Debug, PartialEq)]
struct MonthGroup {
    month: String,
    check_type: String,
    /// `night_work + 2 * not_enough_break + 4 * too_much_uninterrupted_work_time`.
    flags: i64,
    counts: [i64; 31],
}

impl MonthGroup {
    fn flag(&self, bit: u32) -> i64 {
        (self.flags >> bit) & 1
    }
}

/// The ids of a [`crate::db::sql::JOINED_USER_IDS`] text (none: no text), sorted, each once.
fn id_texts(list: Option<&str>) -> AppResult<Vec<i64>> {
    let mut ids = crate::db::joined_ids(list).map_err(|_| AppError::internal("worker list not readable"))?;
    ids.sort_unstable();
    ids.dedup();
    Ok(ids)
}

/// The summaries of [`sql::RECAP`] (`user_id month items` joined with `|`; no rows give no
/// text), the rows of the workers `current` (sorted) only, grouped.
fn month_groups(current: &[i64], summaries: Option<&str>) -> AppResult<Vec<MonthGroup>> {
    let unreadable = || AppError::internal("month summaries not readable");
    let Some(summaries) = summaries else {
        return Ok(vec![]);
    };
    let mut groups: Vec<MonthGroup> = vec![];
    // One pass over the text, each byte read once (splitting at `|`, then `;`, then ` ` read
    // it three times: a fifth of the request).
    let mut text = Summaries {
        bytes: summaries.as_bytes(),
        at: 0,
    };
    loop {
        // A row: its worker (a former worker's rows stay in the company) and month.
        let user = text.number(b' ').ok_or_else(unreadable)?;
        let kept = current.binary_search(&user).is_ok();
        let month = text.until(b' ').ok_or_else(unreadable)?;
        loop {
            let check = text.until(b' ').ok_or_else(unreadable)?;
            let flag = text.number(b' ').ok_or_else(unreadable)?;
            let (set, ended_by) = text.last_number().ok_or_else(unreadable)?;
            if kept {
                add_days(&mut groups, (month, check, flag), set)?;
            }
            match ended_by {
                // Another item of the row.
                Some(b';') => {}
                // The next row.
                Some(_) => break,
                None => return Ok(groups),
            }
        }
    }
}

/// Counts the days of `set` (bit d-1: day d) in the group of this month, check and flags.
fn add_days(groups: &mut Vec<MonthGroup>, (month, check, flags): (&[u8], &[u8], i64), set: i64) -> AppResult<()> {
    // A company's summaries fall in a few groups (months × checks × flags): a linear search is
    // shorter than hashing.
    let i = match groups
        .iter()
        .position(|g| g.flags == flags && g.check_type.as_bytes() == check && g.month.as_bytes() == month)
    {
        Some(i) => i,
        None => {
            let owned = |bytes: &[u8]| {
                String::from_utf8(bytes.to_vec()).map_err(|_| AppError::internal("month summaries not readable"))
            };
            groups.push(MonthGroup {
                month: owned(month)?,
                check_type: owned(check)?,
                flags,
                counts: [0; 31],
            });
            groups.len() - 1
        }
    };
    let mut bits = set & ((1 << 31) - 1);
    while bits != 0 {
        groups[i].counts[bits.trailing_zeros() as usize] += 1;
        bits &= bits - 1;
    }
    Ok(())
}

/// A cursor over the summaries' text.
struct Summaries<'a> {
    bytes: &'a [u8],
    /// Where the next field starts.
    at: usize,
}

impl<'a> Summaries<'a> {
    /// The field up to `end` (not empty), the cursor moved past `end`.
    fn until(&mut self, end: u8) -> Option<&'a [u8]> {
        let rest = self.bytes.get(self.at..)?;
        let length = rest.iter().position(|&b| b == end)?;
        self.at += length + 1;
        (length > 0).then(|| &rest[..length])
    }

    /// A non-negative decimal number of 1 to 18 digits ended by `end`, the cursor moved past it.
    fn number(&mut self, end: u8) -> Option<i64> {
        match self.digits()? {
            (n, Some(b)) if b == end => Some(n),
            _ => None,
        }
    }

    /// An item's last number, ended by `;` (another item), `|` (another row) or the end of the
    /// text (`None`).
    fn last_number(&mut self) -> Option<(i64, Option<u8>)> {
        match self.digits()? {
            (n, ended_by @ (Some(b';') | Some(b'|') | None)) => Some((n, ended_by)),
            _ => None,
        }
    }

    /// 1 to 18 digits and what follows them (`None`: the end), the cursor moved past that.
    fn digits(&mut self) -> Option<(i64, Option<u8>)> {
        let start = self.at;
        let mut n: i64 = 0;
        while let Some(&d @ b'0'..=b'9') = self.bytes.get(self.at) {
            if self.at - start == 18 {
                return None;
            }
            n = n * 10 + i64::from(d - b'0');
            self.at += 1;
        }
        if self.at == start {
            return None;
        }
        let next = self.bytes.get(self.at).copied();
        self.at += 1;
        Some((n, next))
    }
}

/// A month's total from its summaries, counted as the reference counts (an `enoughBreak` alert
/// with both halves failed counts twice).
fn month_total(groups: &[MonthGroup], month: &str) -> i64 {
    groups
        .iter()
        .filter(|group| group.month == month)
        .map(|group| group.counts.iter().sum::<i64>() * (1 + group.flag(1) * group.flag(2)))
        .sum()
}

fn month_text(day: NaiveDate) -> String {
    day.format("%Y-%m").to_string()
}

/// The alerts of the summaries counted per day, check and flags, for the days of `[from, to)`
/// only: the lines the recap's groups are made of (no worker: `user_id` 0).
fn lines_of_months(groups: &[MonthGroup], (from, to): (NaiveDate, NaiveDate)) -> Vec<AlertLine> {
    let mut lines = vec![];
    for group in groups {
        let Some(first) = parse_date(&format!("{}-01", group.month)) else {
            continue;
        };
        for (bit, &alerts) in group.counts.iter().enumerate() {
            let Some(day) = first.checked_add_days(chrono::Days::new(bit as u64)) else {
                continue;
            };
            if alerts == 0 || day < from || day >= to || day.month() != first.month() {
                continue;
            }
            lines.push(AlertLine {
                day: date_text(day),
                check_type: group.check_type.clone(),
                user_id: 0,
                night_work: group.flag(0),
                not_enough_break: group.flag(1),
                too_much_uninterrupted_work_time: group.flag(2),
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
pub async fn recap(db: &Db, actor: Actor, query: RecapQuery) -> AppResult<Summary> {
    if !actor.scope.allows(query.company_id) {
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
    type Head = (Option<String>, i64, String, i64, Option<String>);
    let head: Option<Head> = sqlx::query_as(db.sql(sql::RECAP))
        .bind(query.company_id)
        .bind(date_text(today()))
        .bind(actor.user_id)
        .bind(confined.as_deref().map(id_list))
        .bind(date_text(from))
        .bind(date_text(to))
        .bind(first_month)
        .bind(last_month)
        .fetch_optional(db.exec())
        .await?;
    let Some((workers, computed, siren, eu, summaries)) = head else {
        return Err(permissions::admin_only_field("regulatoryAlertsRecap"));
    };
    // Confined to one worker, the recap has them when that worker is a current one.
    let users = id_texts(workers.as_deref())?;
    if query.unique_user_id.is_some() && users.is_empty() {
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
    let months = month_groups(&users, summaries.as_deref())?;
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
    actor: Actor,
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn summaries_are_grouped_per_month_check_and_flags_and_counted_per_day() {
        // Three current workers' summaries: the first's September in two groups (both halves
        // failed on days 1 and 2, one half on day 1), the second's in the first group too (days
        // 2 and 31), the third's August (day 3); and a former worker's September (days 1 to 3 in
        // a group of its own and in the first group), left out.
        let groups = month_groups(
            &[3, 5, 8],
            Some(&format!(
                "5 2026-09 enoughBreak 6 3;enoughBreak 2 1|3 2026-09 enoughBreak 6 {}|\
                 9 2026-09 maximumWorkDayTime 1 7;enoughBreak 6 7|8 2026-08 enoughBreak 6 4",
                2 + (1 << 30)
            )),
        )
        .unwrap();
        assert_eq!(groups.len(), 3);
        let both = &groups[0];
        assert_eq!((both.month.as_str(), both.flags), ("2026-09", 6));
        assert_eq!(
            (both.counts[0], both.counts[1], both.counts[2], both.counts[30]),
            (1, 2, 0, 1)
        );
        assert_eq!((groups[1].flags, groups[1].counts[0]), (2, 1));
        assert_eq!((groups[2].month.as_str(), groups[2].counts[2]), ("2026-08", 1));
        // Both halves failed count twice (4 alerts of group 0), one half once.
        assert_eq!(month_total(&groups, "2026-09"), 4 * 2 + 1);
        assert_eq!(month_total(&groups, "2026-08"), 2);
        let september = NaiveDate::from_ymd_opt(2026, 9, 1).unwrap();
        let lines = lines_of_months(&groups, (september, september + Months::new(1)));
        let per_day: Vec<(&str, i64, i64)> = lines
            .iter()
            .map(|l| (l.day.as_str(), l.too_much_uninterrupted_work_time, l.alerts))
            .collect();
        assert_eq!(
            per_day,
            [("2026-09-01", 1, 1), ("2026-09-01", 0, 1), ("2026-09-02", 1, 2)],
            "September has no day 31: its bit is not a day"
        );
    }

    #[test]
    fn no_summaries_and_unreadable_ones() {
        assert_eq!(month_groups(&[1], None).unwrap(), vec![]);
        assert_eq!(id_texts(None).unwrap(), Vec::<i64>::new());
        assert_eq!(id_texts(Some("12,3,7,3")).unwrap(), [3, 7, 12]);
        assert!(id_texts(Some("12,,7")).is_err());
        for summaries in [
            "",
            "1 2026-09",
            "1 2026-09 ",
            "2026-09 a 0 1",
            "x 2026-09 a 0 1",
            "1 2026-09 a x 1",
            "1 2026-09 a 0 -1",
            "1 2026-09 a 0 ",
            "1 2026-09 a 0",
            "1 2026-09 a 0 1 2",
            "1 2026-09 a 0 1;",
            "1 2026-09 a 0 1|",
            "1 2026-09 a 0 1|2 2026-09",
        ] {
            // Whether the row's worker is current or not, the text is read alike.
            for current in [&[1][..], &[2]] {
                assert!(month_groups(current, Some(summaries)).is_err(), "{summaries}");
            }
        }
    }
}
