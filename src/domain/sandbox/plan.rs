//! The demo data as a plan: who works which day, in which shape, and which days break which
//! working-time rule. Pure (no database, no clock): the plan depends only on "today", so a seed
//! on a given day always records the same days.
//!
//! The 30 days before today hold at least three whole calendar weeks ending three days or more
//! before today; the breaches are placed in those weeks, which the admin validates (the recap
//! reads only the admin's computations):
//!
//! | week | worker | days | rule broken |
//! |---|---|---|---|
//! | A (latest) | Léa Martin | Wednesday: 12 h 30 of work | `maximumWorkDayTime` |
//! | A | Sophie Durand | all seven days | `maximumWorkedDaysInWeek` |
//! | B | Karim Benali | Monday–Friday at 11 h 30 (57 h 30) | `maximumWorkInCalendarWeek` |
//! | B | Inès Moreau | Thursday: 8 h without a break | `enoughBreak` |
//! | C (earliest) | Thomas Petit | Tuesday until 21:15, Wednesday from 05:00 | `minimumDailyRest` |
//!
//! Every other day follows a rest pattern (Monday–Friday; Julien Roux, part-time, Monday,
//! Tuesday and Thursday) in shapes of different lengths that break no rule.

use chrono::{Datelike, Duration, NaiveDate, Weekday};

use crate::domain::kinds::{ActivityType, ExpenditureType};
use crate::domain::regulation::checks::CheckType;

/// Days seeded: the 30 days before today.
pub const DAYS: i64 = 30;
/// Days before today the admin leaves to validate (the worker has validated them).
pub const LEFT_TO_THE_ADMIN: i64 = 2;

/// A stretch of a day: an activity, or a break (time without activity), in minutes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Segment {
    Activity(ActivityType, i64),
    Break(i64),
}

use ActivityType::{Drive, Support, Transfer, Work};
use Segment::{Activity as A, Break as B};

/// The shapes of a working day.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shape {
    /// 07:00–13:30, 5 h 45 of work, a 45-minute break.
    Standard,
    /// 08:00–12:15, 3 h 45 of work after a transfer.
    Short,
    /// 06:00–15:15, 7 h 30 of work, two breaks.
    Long,
    /// 05:00–18:30, 12 h 30 of work: too long a work day.
    TooLong,
    /// 05:30–18:00, 11 h 30 of work: five of them make too long a week.
    WeekOfExcess,
    /// 06:00–14:00, 8 h of work without a break.
    WithoutBreak,
    /// 12:00–21:15, 8 h 30 of work, followed by an `Early` day: too short a daily rest.
    Late,
    /// 05:00–10:30, the day after a `Late` one.
    Early,
}

impl Shape {
    /// Local time of the first activity, in minutes after midnight.
    pub fn start_minute(self) -> i64 {
        match self {
            Shape::Standard => 7 * 60,
            Shape::Short => 8 * 60,
            Shape::Long | Shape::WithoutBreak => 6 * 60,
            Shape::TooLong | Shape::Early => 5 * 60,
            Shape::WeekOfExcess => 5 * 60 + 30,
            Shape::Late => 12 * 60,
        }
    }

    pub fn segments(self) -> &'static [Segment] {
        match self {
            Shape::Standard => &[
                A(Drive, 120),
                A(Work, 60),
                B(45),
                A(Drive, 75),
                A(Support, 30),
                A(Work, 60),
            ],
            Shape::Short => &[A(Transfer, 30), A(Drive, 90), A(Work, 90), A(Drive, 45)],
            Shape::Long => &[
                A(Drive, 150),
                B(30),
                A(Work, 120),
                B(45),
                A(Drive, 120),
                A(Transfer, 30),
                A(Work, 60),
            ],
            Shape::TooLong => &[
                A(Drive, 180),
                B(20),
                A(Work, 150),
                B(20),
                A(Drive, 180),
                B(20),
                A(Work, 120),
                A(Support, 120),
            ],
            Shape::WeekOfExcess => &[A(Drive, 180), B(30), A(Work, 180), B(30), A(Drive, 150), A(Work, 180)],
            Shape::WithoutBreak => &[A(Drive, 150), A(Work, 120), A(Drive, 120), A(Work, 90)],
            Shape::Late => &[A(Work, 60), A(Drive, 180), B(45), A(Drive, 180), A(Work, 90)],
            Shape::Early => &[A(Drive, 120), A(Work, 60), B(30), A(Drive, 120)],
        }
    }

    /// Minutes of drive, work and support (what the rules count as work).
    pub fn work_minutes(self) -> i64 {
        self.segments()
            .iter()
            .map(|s| match s {
                A(Drive | Work | Support, m) => *m,
                _ => 0,
            })
            .sum()
    }

    /// Minutes of driving (for the kilometre readings).
    pub fn drive_minutes(self) -> i64 {
        self.segments()
            .iter()
            .map(|s| match s {
                A(Drive, m) => *m,
                _ => 0,
            })
            .sum()
    }

    /// Minutes from the first activity to the last one's end.
    pub fn span_minutes(self) -> i64 {
        self.segments()
            .iter()
            .map(|s| match s {
                A(_, m) | B(m) => *m,
            })
            .sum()
    }

    /// What the worker spends that day.
    pub fn expenditures(self) -> &'static [ExpenditureType] {
        match self {
            Shape::Short | Shape::Early => &[ExpenditureType::Snack],
            Shape::Standard | Shape::Long | Shape::WithoutBreak => &[ExpenditureType::DayMeal],
            Shape::TooLong | Shape::WeekOfExcess => &[ExpenditureType::DayMeal, ExpenditureType::Snack],
            Shape::Late => &[ExpenditureType::DayMeal, ExpenditureType::NightMeal],
        }
    }
}

/// A working-time rule the plan breaks on purpose, named as its check (`RegulationCheck.type`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Breach {
    MinimumDailyRest,
    MaximumWorkDayTime,
    EnoughBreak,
    MaximumWorkedDaysInWeek,
    MaximumWorkInCalendarWeek,
}

impl Breach {
    pub const ALL: [Breach; 5] = [
        Breach::MinimumDailyRest,
        Breach::MaximumWorkDayTime,
        Breach::EnoughBreak,
        Breach::MaximumWorkedDaysInWeek,
        Breach::MaximumWorkInCalendarWeek,
    ];

    /// The check that fails, as `RegulationCheck.type` names it.
    pub fn check(self) -> CheckType {
        match self {
            Breach::MinimumDailyRest => CheckType::MinimumDailyRest,
            Breach::MaximumWorkDayTime => CheckType::MaximumWorkDayTime,
            Breach::EnoughBreak => CheckType::EnoughBreak,
            Breach::MaximumWorkedDaysInWeek => CheckType::MaximumWorkedDaysInWeek,
            Breach::MaximumWorkInCalendarWeek => CheckType::MaximumWorkInCalendarWeek,
        }
    }

    /// Whether the check is computed per week (its alert is dated on the Monday).
    pub fn weekly(self) -> bool {
        matches!(
            self,
            Breach::MaximumWorkedDaysInWeek | Breach::MaximumWorkInCalendarWeek
        )
    }
}

/// A demo worker: names, vehicle, what they do.
#[derive(Clone, Copy, Debug)]
pub struct Persona {
    pub first_name: &'static str,
    pub last_name: &'static str,
    /// Registration of the vehicle they drive (each worker has their own).
    pub vehicle: &'static str,
    /// That vehicle's odometer before the first seeded day.
    pub odometer: i32,
    /// One line on what their month shows.
    pub profile: &'static str,
}

/// The demo workers, in a fixed order (their index is used below).
pub const PERSONAS: [Persona; 6] = [
    Persona {
        first_name: "Léa",
        last_name: "Martin",
        vehicle: "DM-101-LY",
        odometer: 182_400,
        profile: "Long-distance driver, Monday to Friday; one work day of 12 h 30 (maximumWorkDayTime).",
    },
    Persona {
        first_name: "Karim",
        last_name: "Benali",
        vehicle: "DM-102-LY",
        odometer: 96_150,
        profile: "Driver, Monday to Friday; one week of five 11 h 30 days, 57 h 30 (maximumWorkInCalendarWeek).",
    },
    Persona {
        first_name: "Sophie",
        last_name: "Durand",
        vehicle: "DM-103-LY",
        odometer: 240_870,
        profile: "Driver, Monday to Friday; one week worked all seven days (maximumWorkedDaysInWeek).",
    },
    Persona {
        first_name: "Thomas",
        last_name: "Petit",
        vehicle: "DM-104-LY",
        odometer: 58_020,
        profile: "Driver, Monday to Friday; a late day then an early one, 7 h 45 of rest (minimumDailyRest).",
    },
    Persona {
        first_name: "Inès",
        last_name: "Moreau",
        vehicle: "DM-105-LY",
        odometer: 131_300,
        profile: "Delivery driver, Monday to Friday; one day of 8 h without a break (enoughBreak); her latest day is not validated yet.",
    },
    Persona {
        first_name: "Julien",
        last_name: "Roux",
        vehicle: "DM-106-LY",
        odometer: 12_640,
        profile: "Part-time driver (Monday, Tuesday, Thursday), short days; no rule broken.",
    },
];

/// Index of the worker whose latest day is left for them to validate.
pub const LEAVES_LAST_DAY_UNVALIDATED: usize = 4;

/// The shapes of ordinary days, taken in turn (day of the week + worker).
const ROTATION: [Shape; 5] = [Shape::Standard, Shape::Long, Shape::Standard, Shape::Short, Shape::Long];

/// One worker's day in the plan.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlannedDay {
    pub worker: usize,
    pub date: NaiveDate,
    pub shape: Shape,
    /// The rule this day breaks (for weekly rules: the day that completes the breach).
    pub breach: Option<Breach>,
    /// The worker validates it (all but one: see [`LEAVES_LAST_DAY_UNVALIDATED`]).
    pub validated_by_worker: bool,
    /// The admin validates it too (days up to [`LEFT_TO_THE_ADMIN`] days before today).
    pub validated_by_admin: bool,
}

/// The whole plan: its days in time order (day by day, workers in order within a day).
#[derive(Clone, Debug)]
pub struct Plan {
    pub first_day: NaiveDate,
    pub last_day: NaiveDate,
    pub days: Vec<PlannedDay>,
}

/// The three whole weeks that carry the breaches (their Mondays, latest first).
fn breach_weeks(today: NaiveDate) -> [NaiveDate; 3] {
    // The latest Monday whose week ends before the days left to the admin.
    let last_admin_day = today - Duration::days(LEFT_TO_THE_ADMIN + 1);
    let sunday = last_admin_day - Duration::days(i64::from(last_admin_day.weekday().num_days_from_sunday()));
    let a = sunday - Duration::days(6);
    [a, a - Duration::days(7), a - Duration::days(14)]
}

/// What `worker` does on `date` (`None`: a rest day).
fn day_of(worker: usize, date: NaiveDate, weeks: [NaiveDate; 3]) -> Option<(Shape, Option<Breach>)> {
    let weekday = date.weekday();
    let monday = date - Duration::days(i64::from(weekday.num_days_from_monday()));
    let [a, b, c] = weeks;
    let ordinary = ROTATION[(weekday.num_days_from_monday() as usize + worker) % ROTATION.len()];
    let weekend = matches!(weekday, Weekday::Sat | Weekday::Sun);
    match worker {
        0 if monday == a && weekday == Weekday::Wed => Some((Shape::TooLong, Some(Breach::MaximumWorkDayTime))),
        1 if monday == b && !weekend => {
            let breach = (weekday == Weekday::Fri).then_some(Breach::MaximumWorkInCalendarWeek);
            Some((Shape::WeekOfExcess, breach))
        }
        2 if monday == a => {
            let breach = (weekday == Weekday::Sun).then_some(Breach::MaximumWorkedDaysInWeek);
            Some((if weekend { Shape::Standard } else { ordinary }, breach))
        }
        3 if monday == c && weekday == Weekday::Tue => Some((Shape::Late, Some(Breach::MinimumDailyRest))),
        3 if monday == c && weekday == Weekday::Wed => Some((Shape::Early, None)),
        4 if monday == b && weekday == Weekday::Thu => Some((Shape::WithoutBreak, Some(Breach::EnoughBreak))),
        5 => matches!(weekday, Weekday::Mon | Weekday::Tue | Weekday::Thu).then_some((Shape::Short, None)),
        _ if weekend => None,
        _ => Some((ordinary, None)),
    }
}

/// The plan of the 30 days before `today` (the workers' local date).
pub fn plan(today: NaiveDate) -> Plan {
    let first_day = today - Duration::days(DAYS);
    let last_day = today - Duration::days(1);
    let weeks = breach_weeks(today);
    let last_admin_day = today - Duration::days(LEFT_TO_THE_ADMIN + 1);
    let mut days = Vec::new();
    for date in first_day.iter_days().take_while(|d| *d <= last_day) {
        for worker in 0..PERSONAS.len() {
            if let Some((shape, breach)) = day_of(worker, date, weeks) {
                days.push(PlannedDay {
                    worker,
                    date,
                    shape,
                    breach,
                    validated_by_worker: true,
                    validated_by_admin: date <= last_admin_day,
                });
            }
        }
    }
    if let Some(latest) = days.iter_mut().rev().find(|d| d.worker == LEAVES_LAST_DAY_UNVALIDATED) {
        latest.validated_by_worker = false;
        latest.validated_by_admin = false;
    }
    Plan {
        first_day,
        last_day,
        days,
    }
}

/// Where a breach shows: the worker, and the day of its alert (the Monday for a weekly rule).
pub fn breach_day(day: &PlannedDay) -> Option<(Breach, NaiveDate)> {
    let breach = day.breach?;
    let date = if breach.weekly() {
        day.date - Duration::days(i64::from(day.date.weekday().num_days_from_monday()))
    } else {
        day.date
    };
    Some((breach, date))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn every_today() -> impl Iterator<Item = NaiveDate> {
        // Two months of "todays": every weekday and both month ends.
        NaiveDate::from_ymd_opt(2026, 1, 1).unwrap().iter_days().take(62)
    }

    #[test]
    fn every_rule_is_broken_once_within_the_admin_validated_days() {
        for today in every_today() {
            let plan = plan(today);
            assert_eq!(plan.first_day, today - Duration::days(30));
            assert_eq!(plan.last_day, today - Duration::days(1));
            for breach in Breach::ALL {
                let days: Vec<&PlannedDay> = plan.days.iter().filter(|d| d.breach == Some(breach)).collect();
                assert_eq!(days.len(), 1, "{breach:?} on {today}");
                assert!(days[0].validated_by_admin, "{breach:?} on {today}");
                assert!(days[0].date >= plan.first_day);
            }
            // Each weekly breach has its whole week in the plan.
            for day in plan.days.iter().filter(|d| d.breach.is_some_and(Breach::weekly)) {
                let (_, monday) = breach_day(day).unwrap();
                assert!(monday >= plan.first_day, "{today}");
            }
        }
    }

    #[test]
    fn ordinary_days_keep_the_rules() {
        for shape in [Shape::Standard, Shape::Short, Shape::Long] {
            // Over 6 h of work needs 30 min of breaks of 15 min or more; at most 12 h of work.
            let breaks: i64 = shape
                .segments()
                .iter()
                .map(|s| match s {
                    B(m) if *m >= 15 => *m,
                    _ => 0,
                })
                .sum();
            assert!(shape.work_minutes() <= 6 * 60 || breaks >= 30, "{shape:?}");
            assert!(shape.work_minutes() <= 9 * 60);
        }
        // A normal week of the rotation stays under the 48 h of the strictest business.
        let week: i64 = ROTATION.iter().map(|s| s.work_minutes()).sum();
        assert!(week < 48 * 60);
        assert_eq!(Shape::TooLong.work_minutes(), 12 * 60 + 30);
        assert_eq!(Shape::WeekOfExcess.work_minutes() * 5, 57 * 60 + 30);
        assert_eq!(Shape::WithoutBreak.work_minutes(), 8 * 60);
        // Late ends 21:15, Early starts 05:00: 7 h 45 of rest.
        let late_end = Shape::Late.start_minute() + Shape::Late.span_minutes();
        assert_eq!(24 * 60 - late_end + Shape::Early.start_minute(), 7 * 60 + 45);
    }

    #[test]
    fn one_day_is_left_for_its_worker_and_two_for_the_admin() {
        let today = NaiveDate::from_ymd_opt(2026, 11, 26).unwrap();
        let plan = plan(today);
        let unvalidated: Vec<&PlannedDay> = plan.days.iter().filter(|d| !d.validated_by_worker).collect();
        assert_eq!(unvalidated.len(), 1);
        assert_eq!(unvalidated[0].worker, LEAVES_LAST_DAY_UNVALIDATED);
        assert!(
            plan.days
                .iter()
                .filter(|d| !d.validated_by_admin)
                .all(|d| d.date >= today - Duration::days(3))
        );
        // The part-timer rests on Wednesdays, Fridays and weekends.
        assert!(
            plan.days
                .iter()
                .filter(|d| d.worker == 5)
                .all(|d| matches!(d.date.weekday(), Weekday::Mon | Weekday::Tue | Weekday::Thu))
        );
    }
}
