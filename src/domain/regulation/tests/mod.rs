//! Table-driven tests of the engine with hand-computed cases: each threshold and business type,
//! a day across midnight, weeks across clock changes, missing and running missions, holidays
//! (`off`). Times are written in Paris local time; expected `extra` strings are what the
//! reference's clients read.

mod daily_rest;
mod enough_break;
mod eu;
mod local_days;
mod period;
mod weekly;
mod work_day;

use chrono::NaiveDate;

use super::business::BusinessType;
use super::checks::CheckType;
use super::compute::{self, Alert, Computation, Input};
use super::workdays::{Activity, Mission};
use crate::domain::kinds::ActivityType;

pub const PARIS: chrono_tz::Tz = chrono_tz::Europe::Paris;

pub fn date(text: &str) -> NaiveDate {
    text.parse().unwrap()
}

/// Unix seconds of a Paris local time `YYYY-MM-DD HH:MM`.
pub fn at(local: &str) -> i64 {
    let naive = chrono::NaiveDateTime::parse_from_str(local, "%Y-%m-%d %H:%M").unwrap();
    super::time::local_to_utc(PARIS, naive)
}

/// An activity from `start` to `end` (`None`: running), Paris local times.
pub fn act(kind: &str, start: &str, end: Option<&str>) -> (ActivityType, i64, Option<i64>) {
    (ActivityType::from_str_opt(kind).unwrap(), at(start), end.map(at))
}

/// Missions from lists of activities; ids are given in order.
pub fn missions(list: &[Vec<(ActivityType, i64, Option<i64>)>]) -> Vec<Mission> {
    let mut next_id = 1;
    list.iter()
        .enumerate()
        .map(|(index, activities)| Mission {
            id: index as i64 + 1,
            activities: activities
                .iter()
                .map(|(kind, start, end)| {
                    next_id += 1;
                    Activity {
                        id: next_id,
                        mission_id: index as i64 + 1,
                        kind: *kind,
                        start: *start,
                        end: *end,
                    }
                })
                .collect(),
        })
        .collect()
}

/// A date and its spans `(kind, "HH:MM", "HH:MM")`.
pub type Day<'a> = (&'a str, &'a [(&'a str, &'a str, &'a str)]);

/// One mission per entry of `days`.
pub fn day_missions(days: &[Day]) -> Vec<Mission> {
    let list: Vec<Vec<_>> = days
        .iter()
        .map(|(day, spans)| {
            spans
                .iter()
                .map(|(kind, from, to)| act(kind, &format!("{day} {from}"), Some(&format!("{day} {to}"))))
                .collect()
        })
        .collect();
    missions(&list)
}

/// Computes `from..=to` for a worker of `business` in Paris, today 2025-06-02, long after.
pub fn run(missions: &[Mission], from: &str, to: &str, business: BusinessType) -> Computation {
    run_at(missions, from, to, business, at("2025-12-31 12:00"))
}

pub fn run_at(missions: &[Mission], from: &str, to: &str, business: BusinessType, now: i64) -> Computation {
    compute::compute(&Input {
        tz: PARIS,
        business,
        missions,
        period_start: date(from),
        period_end: date(to),
        today: date("2025-06-02"),
        now,
        eu_driving_checks: false,
    })
}

/// The alerts of one check: (day, extra as the API prints it).
pub fn alerts(computation: &Computation, check: CheckType) -> Vec<(String, String)> {
    computation
        .alerts
        .iter()
        .filter(|a| a.check == check)
        .map(|a| (a.day.to_string(), a.extra_text()))
        .collect()
}

/// The alert of one check on one day.
pub fn alert<'a>(computation: &'a Computation, check: CheckType, day: &str) -> Option<&'a Alert> {
    computation
        .alerts
        .iter()
        .find(|a| a.check == check && a.day == date(day))
}

/// A number or string of an alert's `extra`.
pub fn extra(alert: &Alert, key: &str) -> serde_json::Value {
    alert.extra.get(key).cloned().unwrap_or(serde_json::Value::Null)
}
