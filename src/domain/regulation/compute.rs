//! One recomputation of a worker's period (reference `compute_regulations`, §1.8): the day
//! before the period is recomputed too, weeks are whole, and the result says which alerts to
//! replace, which days (and Mondays) are now computed, and the new alerts.

use chrono::{Duration, NaiveDate};

use super::business::BusinessType;
use super::checks::{CHECKS, CheckType, Unit};
use super::explain::Words;
pub use super::outcome::Alert;
use super::time;
use super::workdays::{self, Mission};
use super::{daily, eu, weekly};

/// What one computation needs: the worker's missions that qualify for the submitter type
/// (validated by the worker, or by an admin), with every activity of theirs that counts.
#[derive(Clone, Debug)]
pub struct Input<'a> {
    pub tz: chrono_tz::Tz,
    pub business: BusinessType,
    pub missions: &'a [Mission],
    pub period_start: NaiveDate,
    pub period_end: NaiveDate,
    /// The checks that run are those valid today (the reference tests today, not the day).
    pub today: NaiveDate,
    /// Running activities end now.
    pub now: i64,
    /// Whether the company opted in to the EU driving-time checks (Roadlog extension).
    pub eu_driving_checks: bool,
}

/// The result of a computation.
#[derive(Clone, Debug)]
pub struct Computation {
    /// Day alerts dated in this range are replaced.
    pub days: (NaiveDate, NaiveDate),
    /// Week alerts dated in this range (Mondays) are replaced.
    pub weeks: (NaiveDate, NaiveDate),
    /// Days now computed (a computation row each), Mondays of the weeks included.
    pub computed: Vec<NaiveDate>,
    pub alerts: Vec<Alert>,
}

/// The local dates whose missions a computation of the period reads: from the Monday of the week
/// before the day before the period (the EU checks look at the previous week) to the Sunday of
/// its last week (or the day after the period).
pub fn load_range(period_start: NaiveDate, period_end: NaiveDate) -> (NaiveDate, NaiveDate) {
    let first = period_start - Duration::days(1);
    let last = time::sunday(period_end).max(period_end + Duration::days(1));
    (time::monday(first) - Duration::days(7), last)
}

/// The ranges a computation of the period replaces: its days (from the day before the period)
/// and its weeks (Mondays to Sundays), as [`Computation::days`] and [`Computation::weeks`] give
/// them.
pub fn replaced(period_start: NaiveDate, period_end: NaiveDate) -> ((NaiveDate, NaiveDate), (NaiveDate, NaiveDate)) {
    let first = period_start - Duration::days(1);
    ((first, period_end), (time::monday(first), time::sunday(period_end)))
}

/// Recomputes the period.
pub fn compute(input: &Input) -> Computation {
    let first = input.period_start - Duration::days(1);
    let week_from = time::monday(first);
    let week_to = time::sunday(input.period_end);
    let (_, until) = load_range(input.period_start, input.period_end);
    // The reference builds its work days from the first Monday.
    let work_days = workdays::build(input.tz, input.missions, week_from, until, input.now);
    let words = Words { tz: input.tz };
    let thresholds = input.business.thresholds();
    let daily_checks: Vec<CheckType> = CHECKS
        .iter()
        .filter(|c| c.unit == Unit::Day && !c.extension && c.check_type != CheckType::NoLic && c.valid_on(input.today))
        .map(|c| c.check_type)
        .collect();
    let mut computed = vec![];
    let mut alerts = vec![];
    for (index, day) in time::dates(first, input.period_end).enumerate() {
        let bounds = (time::day_start(input.tz, day), time::day_end(input.tz, day));
        let current = workdays::current_day(input.tz, &work_days, day);
        for check in &daily_checks {
            let outcome = match check {
                CheckType::MinimumDailyRest => {
                    let groups = workdays::current_and_next_day(input.tz, &work_days, day);
                    daily::min_daily_rest(&groups, bounds, words, input.now)
                }
                CheckType::MaximumWorkDayTime => daily::max_work_day_time(&current, thresholds, words, input.now),
                CheckType::EnoughBreak => daily::enough_break(&current, words, input.now),
                CheckType::MinimumWorkDayBreak => daily::min_work_day_break(&current, words, input.now),
                CheckType::MaximumUninterruptedWorkTime => {
                    daily::max_uninterrupted_work_time(&current, words, input.now)
                }
                _ => continue,
            };
            if !outcome.success {
                alerts.push(Alert {
                    day,
                    check: *check,
                    extra: outcome.extra,
                    explanation: outcome.explanation,
                });
            }
        }
        // The extra leading day is marked computed only when it has activities.
        if index != 0 || current.iter().any(|g| !g.activities.is_empty()) {
            computed.push(day);
        }
    }
    let max_week_hours = thresholds.max_weekly_work_hours;
    for week in weekly::weeks(input.tz, &work_days, week_from, week_to) {
        for (check, outcome) in [
            (
                CheckType::MaximumWorkedDaysInWeek,
                weekly::max_worked_days(&week, words),
            ),
            (
                CheckType::MaximumWorkInCalendarWeek,
                weekly::max_work_in_calendar_week(&week, max_week_hours, words),
            ),
        ] {
            if !outcome.success {
                alerts.push(Alert {
                    day: week.monday,
                    check,
                    extra: outcome.extra,
                    explanation: outcome.explanation,
                });
            }
        }
        computed.push(week.monday);
    }
    if input.eu_driving_checks {
        let line = eu::Timeline::new(input.missions, input.now);
        alerts.extend(eu::daily(&line, words, first, input.period_end));
        alerts.extend(eu::weekly(&line, words, (week_from, time::monday(week_to))));
    }
    computed.sort();
    computed.dedup();
    Computation {
        days: (first, input.period_end),
        weeks: (week_from, week_to),
        computed,
        alerts,
    }
}
