//! The lines a recap's groups are made of: the period's admin alerts of the company's current
//! workers counted per day, check and flags. With the day details, one line per worker too,
//! read from the alerts; without them, added up from the workers' month rows (a row per worker,
//! month, check and flags, read as one row per month, check and flags with the workers' day sets
//! joined), a few per month where the alerts are one per worker and day; for all the company's
//! current workers, from the company's day counts less the rows of the workers who are not
//! current.

use std::collections::{BTreeMap, HashMap};

use chrono::{Datelike, NaiveDate};

use crate::db::{Db, joined_integers};
use crate::domain::companies::{date_text, parse_date};
use crate::errors::{AppError, AppResult};

use super::sql;

/// A day's alerts of one check and flags (of one worker with the day details; `user_id` 0
/// without them).
#[derive(sqlx::FromRow, Debug, Clone, PartialEq)]
pub(super) struct AlertLine {
    pub day: String,
    pub check_type: String,
    pub user_id: i64,
    pub night_work: i64,
    pub not_enough_break: i64,
    pub too_much_uninterrupted_work_time: i64,
    /// How many alerts the line stands for.
    pub alerts: i64,
}

/// The workers' alerts of a month, check and flags: on which days, a set per worker (bit d-1:
/// day d), joined with commas.
#[derive(sqlx::FromRow, Debug)]
struct MonthRow {
    month: String,
    check_type: String,
    night_work: i64,
    not_enough_break: i64,
    too_much_uninterrupted_work_time: i64,
    days: String,
}

/// A row of [`sql::COMPANY_DAYS`]: in part 0, how many workers were alerted on a day (`period`)
/// for a check and flags; in part 1, a month's (`period`) rows of the workers who are not current
/// (`days`); in part 2, the month before's total (`workers`); in part 3, the head
/// (`eu_driving_checks`, `computed`).
#[derive(sqlx::FromRow, Debug)]
struct CompanyRow {
    part: i64,
    period: String,
    check_type: String,
    night_work: i64,
    not_enough_break: i64,
    too_much_uninterrupted_work_time: i64,
    workers: i64,
    days: Option<String>,
    eu_driving_checks: Option<i64>,
    computed: Option<i64>,
}

/// What a recap needs of the company besides its lines.
#[derive(Debug, Default)]
pub(super) struct CompanyHead {
    pub eu_driving_checks: bool,
    /// Whether any admin computation of a current worker is dated in the period.
    pub computed: bool,
}

/// A recap of all the company's current workers without day details.
pub(super) struct CompanyRecap {
    /// None when the caller is not an admin of the company today.
    pub head: Option<CompanyHead>,
    pub lines: Vec<AlertLine>,
    pub total_before: i64,
}

impl CompanyRow {
    fn flags(&self) -> [i64; 3] {
        [
            self.night_work,
            self.not_enough_break,
            self.too_much_uninterrupted_work_time,
        ]
    }
}

/// The parameters of [`sql::WORKERS`]: the company, today and the JSON list of the workers the
/// recap is confined to (none: all).
pub(super) struct Workers<'a> {
    pub company_id: i64,
    pub today: &'a str,
    pub confined: Option<&'a str>,
}

/// The workers' admin alerts dated in `[from, to)`, a line per day, worker, check and flags,
/// in order of day and worker.
pub(super) async fn per_worker(
    db: &Db,
    workers: &Workers<'_>,
    (from, to): (NaiveDate, NaiveDate),
) -> AppResult<Vec<AlertLine>> {
    Ok(sqlx::query_as(db.sql(sql::ALERTS_BY_DAY_AND_USER))
        .bind(workers.company_id)
        .bind(workers.today)
        .bind(workers.confined)
        .bind(date_text(from))
        .bind(date_text(to))
        .fetch_all(db)
        .await?)
}

/// The workers' admin alerts dated in `[from, to)`, a line per day, check and flags, in order of
/// day: their month rows added up.
pub(super) async fn per_day(
    db: &Db,
    workers: &Workers<'_>,
    (from, to): (NaiveDate, NaiveDate),
) -> AppResult<Vec<AlertLine>> {
    let last = to.pred_opt().unwrap_or(to);
    let rows: Vec<MonthRow> = sqlx::query_as(db.sql(sql::MONTHS))
        .bind(workers.company_id)
        .bind(workers.today)
        .bind(workers.confined)
        .bind(month_text(from))
        .bind(month_text(last))
        .fetch_all(db)
        .await?;
    added_up(rows, (from, to))
}

/// All the company's current workers' admin alerts dated in `[from, to)`, a line per day, check
/// and flags, in order of day, and their total of `[before, from)` (the month before): the
/// company's day counts less the month rows of its workers who are not current (one statement,
/// whatever the number of workers).
pub(super) async fn per_day_of_company(
    db: &Db,
    (company_id, actor): (i64, i64),
    today: &str,
    (before, from, to): (NaiveDate, NaiveDate, NaiveDate),
) -> AppResult<CompanyRecap> {
    let last = to.pred_opt().unwrap_or(to);
    let rows: Vec<CompanyRow> = sqlx::query_as(db.sql(sql::COMPANY_DAYS))
        .bind(company_id)
        .bind(today)
        .bind(month_text(before))
        .bind(month_text(last))
        .bind(date_text(from))
        .bind(date_text(to))
        .bind(date_text(before))
        .bind(actor)
        .fetch_all(db)
        .await?;
    let mut counted = Vec::new();
    let mut others = Vec::new();
    let mut total_before = 0;
    let mut head = None;
    for row in rows {
        match row.part {
            0 => counted.push(row),
            1 => others.push(MonthRow {
                days: row.days.unwrap_or_default(),
                month: row.period,
                check_type: row.check_type,
                night_work: row.night_work,
                not_enough_break: row.not_enough_break,
                too_much_uninterrupted_work_time: row.too_much_uninterrupted_work_time,
            }),
            2 => total_before = row.workers,
            _ => {
                head = Some(CompanyHead {
                    eu_driving_checks: row.eu_driving_checks == Some(1),
                    computed: row.computed.unwrap_or(0) > 0,
                })
            }
        }
    }
    let mut others = added_up(others, (before, to))?;
    let first = date_text(from);
    let others_now = others.split_off(others.partition_point(|l| l.day < first));
    Ok(CompanyRecap {
        head,
        lines: less(counted, others_now),
        total_before: total_before - total(&others),
    })
}

/// The day counts less the other workers' lines, in order of day; days left with no alert are
/// dropped.
fn less(counted: Vec<CompanyRow>, others: Vec<AlertLine>) -> Vec<AlertLine> {
    let key = |day: &str, check: &str, flags: [i64; 3]| (day.to_string(), check.to_string(), flags);
    let mut others: HashMap<(String, String, [i64; 3]), i64> = others
        .into_iter()
        .map(|l| {
            let flags = [l.night_work, l.not_enough_break, l.too_much_uninterrupted_work_time];
            (key(&l.day, &l.check_type, flags), l.alerts)
        })
        .collect();
    let mut lines: Vec<AlertLine> = counted
        .into_iter()
        .filter_map(|c| {
            let flags = c.flags();
            let alerts = c.workers - others.remove(&key(&c.period, &c.check_type, flags)).unwrap_or(0);
            (alerts > 0).then(|| AlertLine {
                day: c.period,
                check_type: c.check_type,
                user_id: 0,
                night_work: flags[0],
                not_enough_break: flags[1],
                too_much_uninterrupted_work_time: flags[2],
                alerts,
            })
        })
        .collect();
    lines.sort_by(|a, b| a.day.cmp(&b.day));
    lines
}

pub(super) fn month_text(day: NaiveDate) -> String {
    day.format("%Y-%m").to_string()
}

/// The month rows added up per month, check and flags, then counted per day of `[from, to)`.
fn added_up(rows: Vec<MonthRow>, (from, to): (NaiveDate, NaiveDate)) -> AppResult<Vec<AlertLine>> {
    // How many workers were alerted on each day of the month (index d-1: day d).
    let mut counted: BTreeMap<(String, String, [i64; 3]), [i64; 31]> = BTreeMap::new();
    for row in rows {
        let flags = [
            row.night_work,
            row.not_enough_break,
            row.too_much_uninterrupted_work_time,
        ];
        let sets = joined_integers(Some(&row.days))
            .map_err(|cause| AppError::internal(format!("a day set in company_alert_months: {cause}")))?;
        let counts = counted.entry((row.month, row.check_type, flags)).or_insert([0; 31]);
        for days in sets {
            for (bit, count) in counts.iter_mut().enumerate() {
                *count += (days >> bit) & 1;
            }
        }
    }
    let mut lines = vec![];
    for ((month, check_type, flags), counts) in counted {
        let Some(first) = parse_date(&format!("{month}-01")) else {
            continue;
        };
        for (day, alerts) in first.iter_days().zip(counts) {
            if alerts == 0 || day < from || day >= to || day.month() != first.month() {
                continue;
            }
            lines.push(AlertLine {
                day: date_text(day),
                check_type: check_type.clone(),
                user_id: 0,
                night_work: flags[0],
                not_enough_break: flags[1],
                too_much_uninterrupted_work_time: flags[2],
                alerts,
            });
        }
    }
    lines.sort_by(|a, b| a.day.cmp(&b.day));
    Ok(lines)
}

/// The lines' alerts, counted as the recap counts them: an `enoughBreak` alert with both halves
/// failed counts twice.
pub(super) fn total(lines: &[AlertLine]) -> i64 {
    lines
        .iter()
        .map(|l| l.alerts * (1 + i64::from(l.not_enough_break == 1 && l.too_much_uninterrupted_work_time == 1)))
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(month: &str, check_type: &str, flags: [i64; 3], days: &[i64]) -> MonthRow {
        MonthRow {
            month: month.to_string(),
            check_type: check_type.to_string(),
            night_work: flags[0],
            not_enough_break: flags[1],
            too_much_uninterrupted_work_time: flags[2],
            days: days.iter().map(i64::to_string).collect::<Vec<_>>().join(","),
        }
    }

    #[test]
    fn month_rows_are_added_up_per_day_check_and_flags() {
        // Two workers' September: both halves failed on days 1 and 2 for the first, on days 2
        // and 31 (September has none) for the second; one half on day 1 for the first; and an
        // August row, outside the period.
        let both = [0, 1, 1];
        let rows = vec![
            row("2026-09", "enoughBreak", both, &[0b11, 0b10 + (1 << 30)]),
            row("2026-09", "enoughBreak", [0, 1, 0], &[0b1]),
            row("2026-08", "enoughBreak", both, &[0b100]),
        ];
        let september = NaiveDate::from_ymd_opt(2026, 9, 1).unwrap();
        let lines = added_up(rows, (september, NaiveDate::from_ymd_opt(2026, 10, 1).unwrap())).unwrap();
        let per_day: Vec<(&str, i64, i64)> = lines
            .iter()
            .map(|l| (l.day.as_str(), l.too_much_uninterrupted_work_time, l.alerts))
            .collect();
        assert_eq!(
            per_day,
            [("2026-09-01", 0, 1), ("2026-09-01", 1, 1), ("2026-09-02", 1, 2)],
            "September has no day 31: its bit is not a day"
        );
        // Both halves failed count twice.
        assert_eq!(total(&lines), 2 * 3 + 1);
    }

    #[test]
    fn only_the_days_of_the_period_are_counted() {
        let rows = vec![
            row("2026-08", "maximumWorkDayTime", [1, 0, 0], &[(1 << 30) | 1]),
            row("2026-09", "maximumWorkDayTime", [1, 0, 0], &[0b111]),
        ];
        let from = NaiveDate::from_ymd_opt(2026, 8, 31).unwrap();
        let lines = added_up(rows, (from, NaiveDate::from_ymd_opt(2026, 9, 3).unwrap())).unwrap();
        let days: Vec<&str> = lines.iter().map(|l| l.day.as_str()).collect();
        assert_eq!(days, ["2026-08-31", "2026-09-01", "2026-09-02"]);
        assert!(lines.iter().all(|l| l.night_work == 1 && l.alerts == 1));
        assert!(added_up(vec![], (from, from)).unwrap().is_empty());
    }

    fn counted(day: &str, flags: [i64; 3], workers: i64) -> CompanyRow {
        CompanyRow {
            part: 0,
            period: day.to_string(),
            check_type: "enoughBreak".to_string(),
            night_work: flags[0],
            not_enough_break: flags[1],
            too_much_uninterrupted_work_time: flags[2],
            workers,
            days: None,
            eu_driving_checks: None,
            computed: None,
        }
    }

    #[test]
    fn the_workers_who_are_not_current_are_taken_out_of_the_day_counts() {
        // Three workers alerted on September 1st (one of them gone), one on the 2nd (gone), and
        // one with both halves on the 2nd.
        let both = [0, 1, 1];
        let counts = vec![
            counted("2026-09-01", [0, 1, 0], 3),
            counted("2026-09-02", [0, 1, 0], 1),
            counted("2026-09-02", both, 1),
        ];
        let september = NaiveDate::from_ymd_opt(2026, 9, 1).unwrap();
        let gone = added_up(
            vec![row("2026-09", "enoughBreak", [0, 1, 0], &[0b11])],
            (september, NaiveDate::from_ymd_opt(2026, 10, 1).unwrap()),
        )
        .unwrap();
        let lines = less(counts, gone);
        let per_day: Vec<(&str, i64, i64)> = lines
            .iter()
            .map(|l| (l.day.as_str(), l.too_much_uninterrupted_work_time, l.alerts))
            .collect();
        assert_eq!(per_day, [("2026-09-01", 0, 2), ("2026-09-02", 1, 1)]);
        assert_eq!(total(&lines), 2 + 2);
    }

    #[test]
    fn a_day_set_that_is_not_a_number_is_an_error() {
        let mut bad = row("2026-09", "maximumWorkDayTime", [0, 0, 0], &[1]);
        bad.days.push_str(",x");
        let from = NaiveDate::from_ymd_opt(2026, 9, 1).unwrap();
        assert!(added_up(vec![bad], (from, NaiveDate::from_ymd_opt(2026, 10, 1).unwrap())).is_err());
    }
}
