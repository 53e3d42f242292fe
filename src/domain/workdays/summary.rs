//! The pure part of the days of work: a worker's activities cut into local days, and the figures
//! of each day, as `User.workDays` and `Company.workDays` compute them in the reference service.
//! The two differ on purpose, as in the reference: the user's view measures the service over
//! activities other than `off` and has no `lastActivityStartTime`; the company's measures it
//! from the first start to the last end of any activity and drops days without service.

use std::collections::BTreeMap;

use chrono::NaiveDate;
use chrono_tz::Tz;

use crate::domain::kinds::ActivityType;
use crate::domain::regulation::time::{day_end, day_start, local_date};

/// One activity (never a cancelled one).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Span {
    pub user_id: i64,
    pub mission_id: i64,
    pub kind: ActivityType,
    pub start: i64,
    /// `None` while running.
    pub end: Option<i64>,
}

impl Span {
    fn end_or(&self, now: i64) -> i64 {
        self.end.unwrap_or(now)
    }

    /// Seconds inside `[from, to)`, a running activity counting until `now`.
    fn within(&self, from: i64, to: i64, now: i64) -> i64 {
        (self.end_or(now).min(to) - self.start.max(from)).max(0)
    }
}

/// Which of the two computations.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Flavor {
    /// `User.workDays`.
    User,
    /// `Company.workDays`.
    Company,
}

/// One worker's local day.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Day {
    pub user_id: i64,
    pub day: NaiveDate,
    pub start_time: i64,
    /// `None` while the day's last activity runs.
    pub end_time: Option<i64>,
    /// The latest activity start, unclipped (company view only).
    pub last_activity_start: Option<i64>,
    pub service_duration: i64,
    pub total_work_duration: i64,
    /// Seconds of each type, in the order of [`ActivityType::ALL`].
    pub durations: [i64; 5],
    /// The day's missions, in the order of their first activity of the day.
    pub missions: Vec<i64>,
}

impl Day {
    /// Seconds of each activity type, named as on the wire.
    pub fn durations_by_type(&self) -> impl Iterator<Item = (&'static str, i64)> + '_ {
        ActivityType::ALL
            .iter()
            .zip(self.durations)
            .map(|(k, d)| (k.as_str(), d))
    }
}

fn type_index(kind: ActivityType) -> usize {
    ActivityType::ALL.iter().position(|k| *k == kind).unwrap_or(0)
}

/// The days of `spans` whose local date is in `[from, until)`, each worker's days cut in that
/// worker's zone (`zone_of` their user id), most recent first, then by user id descending.
/// Zero-length activities count for nothing; a running activity counts until `now`.
pub fn summarize(
    zone_of: &dyn Fn(i64) -> Tz,
    spans: &[Span],
    flavor: Flavor,
    now: i64,
    from: NaiveDate,
    until: NaiveDate,
) -> Vec<Day> {
    let mut by_day: BTreeMap<(NaiveDate, i64), Vec<&Span>> = BTreeMap::new();
    for span in spans {
        let end = span.end_or(now);
        if end <= span.start {
            continue;
        }
        let tz = zone_of(span.user_id);
        let mut date = local_date(tz, span.start);
        let last = local_date(tz, end - 1);
        while date <= last {
            if date >= from && date < until {
                by_day.entry((date, span.user_id)).or_default().push(span);
            }
            match date.succ_opt() {
                Some(next) => date = next,
                None => break,
            }
        }
    }
    let mut days: Vec<Day> = by_day
        .into_iter()
        .filter_map(|((date, user_id), mut spans)| {
            spans.sort_by_key(|s| (s.start, s.end.is_none()));
            let day = one_day(zone_of(user_id), date, user_id, &spans, flavor, now);
            (flavor == Flavor::User || day.service_duration > 0).then_some(day)
        })
        .collect();
    days.sort_by(|a, b| b.day.cmp(&a.day).then(b.user_id.cmp(&a.user_id)));
    days
}

/// The figures of one worker's day from its activities, sorted by start.
fn one_day(tz: Tz, date: NaiveDate, user_id: i64, spans: &[&Span], flavor: Flavor, now: i64) -> Day {
    let start_of_day = day_start(tz, date);
    let end_of_day = day_end(tz, date);
    let mut durations = [0i64; 5];
    let mut missions = Vec::new();
    for span in spans {
        durations[type_index(span.kind)] += span.within(start_of_day, end_of_day, now);
        if !missions.contains(&span.mission_id) {
            missions.push(span.mission_id);
        }
    }
    let total_work_duration = durations[type_index(ActivityType::Drive)]
        + durations[type_index(ActivityType::Work)]
        + durations[type_index(ActivityType::Support)];
    let start_time = spans.first().map_or(start_of_day, |s| s.start.max(start_of_day));
    let running = spans.iter().any(|s| s.end.is_none());
    let (end_time, last_activity_start, service_duration) = match flavor {
        Flavor::User => {
            let last = spans.last();
            let end_time = last.and_then(|s| s.end).map(|e| e.min(end_of_day));
            let working: Vec<&&Span> = spans.iter().filter(|s| s.kind != ActivityType::Off).collect();
            let service = match (working.first(), working.iter().map(|s| s.end_or(now)).max()) {
                (Some(first), Some(last_end)) => (last_end.min(end_of_day) - first.start.max(start_of_day)).max(0),
                _ => 0,
            };
            (end_time, None, service)
        }
        Flavor::Company => {
            let clipped_end = spans
                .iter()
                .map(|s| s.end_or(now).min(end_of_day))
                .max()
                .unwrap_or(start_of_day);
            // The day is running while one of its activities is and the day is not over.
            let end_time = (!(running && now < end_of_day)).then_some(clipped_end);
            let last_start = spans.iter().map(|s| s.start).max();
            (end_time, last_start, (clipped_end - start_time).max(0))
        }
    };
    Day {
        user_id,
        day: date,
        start_time,
        end_time,
        last_activity_start,
        service_duration,
        total_work_duration,
        durations,
        missions,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono_tz::Europe::Paris;

    fn at(day: &str, hour: u32, minute: u32) -> i64 {
        let date = NaiveDate::parse_from_str(day, "%Y-%m-%d").unwrap();
        crate::domain::regulation::time::local_time(Paris, date, hour, minute, 0)
    }

    fn span(mission: i64, kind: ActivityType, start: i64, end: Option<i64>) -> Span {
        Span {
            user_id: 7,
            mission_id: mission,
            kind,
            start,
            end,
        }
    }

    fn window() -> (NaiveDate, NaiveDate) {
        ("2026-01-01".parse().unwrap(), "2026-02-01".parse().unwrap())
    }

    #[test]
    fn an_overnight_activity_counts_in_both_days_clipped() {
        let spans = [
            span(
                1,
                ActivityType::Drive,
                at("2026-01-12", 20, 0),
                Some(at("2026-01-13", 2, 0)),
            ),
            span(
                1,
                ActivityType::Work,
                at("2026-01-13", 2, 0),
                Some(at("2026-01-13", 3, 30)),
            ),
        ];
        let (from, until) = window();
        let days = summarize(&|_| Paris, &spans, Flavor::User, at("2026-01-20", 0, 0), from, until);
        assert_eq!(days.len(), 2);
        let (second, first) = (&days[0], &days[1]);
        assert_eq!(first.day.to_string(), "2026-01-12");
        assert_eq!(first.start_time, at("2026-01-12", 20, 0));
        assert_eq!(first.end_time, Some(at("2026-01-13", 0, 0)));
        assert_eq!(first.service_duration, 4 * 3600);
        assert_eq!(second.day.to_string(), "2026-01-13");
        assert_eq!(second.start_time, at("2026-01-13", 0, 0));
        assert_eq!(second.end_time, Some(at("2026-01-13", 3, 30)));
        assert_eq!(second.total_work_duration, 3 * 3600 + 1800);
        assert_eq!(second.durations[0], 2 * 3600);
        assert_eq!(second.durations[1], 3600 + 1800);
    }

    #[test]
    fn off_is_listed_but_not_service_for_the_user_and_the_company_counts_gaps() {
        let spans = [
            span(
                1,
                ActivityType::Work,
                at("2026-01-14", 8, 0),
                Some(at("2026-01-14", 10, 0)),
            ),
            span(
                2,
                ActivityType::Off,
                at("2026-01-14", 14, 0),
                Some(at("2026-01-14", 18, 0)),
            ),
        ];
        let (from, until) = window();
        let now = at("2026-01-20", 0, 0);
        let user = &summarize(&|_| Paris, &spans, Flavor::User, now, from, until)[0];
        assert_eq!(user.service_duration, 2 * 3600);
        assert_eq!(user.durations[4], 4 * 3600);
        assert_eq!(user.missions, vec![1, 2]);
        assert_eq!(user.last_activity_start, None);
        let company = &summarize(&|_| Paris, &spans, Flavor::Company, now, from, until)[0];
        assert_eq!(company.service_duration, 10 * 3600);
        assert_eq!(company.last_activity_start, Some(at("2026-01-14", 14, 0)));
        assert_eq!(company.end_time, Some(at("2026-01-14", 18, 0)));
    }

    #[test]
    fn a_running_day_has_no_end_and_days_outside_the_window_are_left_out() {
        let spans = [
            span(
                1,
                ActivityType::Work,
                at("2026-01-30", 8, 0),
                Some(at("2026-01-30", 9, 0)),
            ),
            span(2, ActivityType::Drive, at("2026-01-31", 8, 0), None),
        ];
        let now = at("2026-01-31", 9, 0);
        let days = summarize(
            &|_| Paris,
            &spans,
            Flavor::Company,
            now,
            "2026-01-31".parse().unwrap(),
            "2026-02-01".parse().unwrap(),
        );
        assert_eq!(days.len(), 1);
        assert_eq!(days[0].end_time, None);
        assert_eq!(days[0].service_duration, 3600);
        let user = summarize(
            &|_| Paris,
            &spans,
            Flavor::User,
            now,
            "2026-01-31".parse().unwrap(),
            "2026-02-01".parse().unwrap(),
        );
        assert_eq!(user[0].end_time, None);
        assert_eq!(user[0].service_duration, 3600);
    }

    #[test]
    fn zero_length_activities_count_for_nothing() {
        let spans = [span(
            1,
            ActivityType::Work,
            at("2026-01-14", 8, 0),
            Some(at("2026-01-14", 8, 0)),
        )];
        let (from, until) = window();
        assert!(summarize(&|_| Paris, &spans, Flavor::User, at("2026-01-20", 0, 0), from, until).is_empty());
    }

    #[test]
    fn each_worker_is_cut_in_their_own_zone() {
        // 01:00 to 05:00 UTC on 2026-01-13: one Paris day; 22:00 to 02:00 in Cayenne (UTC-3),
        // two days of 2 h.
        let utc = |text: &str| {
            chrono::NaiveDateTime::parse_from_str(text, "%Y-%m-%d %H:%M")
                .unwrap()
                .and_utc()
                .timestamp()
        };
        let paris = span(
            1,
            ActivityType::Drive,
            utc("2026-01-13 01:00"),
            Some(utc("2026-01-13 05:00")),
        );
        let cayenne = Span {
            user_id: 8,
            ..span(
                2,
                ActivityType::Drive,
                utc("2026-01-13 01:00"),
                Some(utc("2026-01-13 05:00")),
            )
        };
        let zone_of = |user: i64| if user == 8 { chrono_tz::America::Cayenne } else { Paris };
        let (from, until) = window();
        let days = summarize(
            &zone_of,
            &[paris, cayenne],
            Flavor::Company,
            utc("2026-01-20 00:00"),
            from,
            until,
        );
        let found: Vec<(String, i64, i64)> = days
            .iter()
            .map(|d| (d.day.to_string(), d.user_id, d.total_work_duration))
            .collect();
        assert_eq!(
            found,
            [
                ("2026-01-13".to_string(), 8, 7200),
                ("2026-01-13".to_string(), 7, 14400),
                ("2026-01-12".to_string(), 8, 7200),
            ]
        );
        assert_eq!(days[2].end_time, Some(utc("2026-01-13 03:00")), "Cayenne's midnight");
    }
}
