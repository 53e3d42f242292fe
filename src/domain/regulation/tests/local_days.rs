//! Invariants of local days and weeks, over random activity sets in several zones and around
//! every 2026 clock change of those zones: each minute of work lands in exactly one local day
//! and one local week, days and weeks begin at local midnight and on Monday, night work is read
//! on the local clock, and a computation gives the same result when run again.

use std::collections::BTreeMap;

use chrono::{Datelike, NaiveDate, NaiveTime, Timelike, Weekday};
use chrono_tz::Tz;
use proptest::prelude::*;

use super::super::business::BusinessType;
use super::super::compute::{self, Input};
use super::super::time::{self, HOUR, MINUTE};
use super::super::weekly;
use super::super::workdays::{self, Activity, Mission};
use super::date;
use crate::domain::kinds::ActivityType;

/// Zones and the dates the random activities gather around: every 2026 clock change of the
/// zones that have one, and ordinary dates (a Sunday to Monday turn among them).
const ANCHORS: &[(&str, &str)] = &[
    ("Europe/Paris", "2026-03-29"),
    ("Europe/Paris", "2026-10-25"),
    ("Europe/Paris", "2026-06-14"),
    ("America/Cayenne", "2026-03-29"),
    ("America/Cayenne", "2026-11-01"),
    ("Pacific/Auckland", "2026-04-05"),
    ("Pacific/Auckland", "2026-09-27"),
    ("Asia/Kolkata", "2026-10-25"),
    ("Asia/Kolkata", "2026-02-01"),
    ("Pacific/Chatham", "2026-04-05"),
    ("Pacific/Chatham", "2026-09-27"),
];

const KINDS: [ActivityType; 4] = [
    ActivityType::Drive,
    ActivityType::Work,
    ActivityType::Support,
    ActivityType::Transfer,
];

/// After the previous activity: a gap, a length (minutes), a kind, and whether a new mission
/// starts.
type Step = (i64, i64, usize, bool);

fn steps() -> impl Strategy<Value = (usize, i64, Vec<Step>)> {
    (
        0..ANCHORS.len(),
        0..(48 * 60i64),
        prop::collection::vec((0..(16 * 60i64), 1..(9 * 60i64), 0..KINDS.len(), any::<bool>()), 1..24),
    )
}

/// The zone, the anchor date and the missions of one case: back to back or apart, never
/// overlapping, from two days before the anchor on, on whole minutes.
fn case(anchor: usize, offset: i64, steps: &[Step]) -> (Tz, NaiveDate, Vec<Mission>) {
    let (name, day) = ANCHORS[anchor];
    let tz = time::zone(name);
    let anchor = date(day);
    let mut t = time::day_start(tz, anchor - chrono::Duration::days(2)) + offset * MINUTE;
    let mut missions: Vec<Mission> = vec![];
    for (index, (gap, length, kind, new_mission)) in steps.iter().enumerate() {
        t += gap * MINUTE;
        if missions.is_empty() || *new_mission {
            missions.push(Mission {
                id: missions.len() as i64 + 1,
                activities: vec![],
            });
        }
        let mission = missions.last_mut().expect("a mission");
        mission.activities.push(Activity {
            id: index as i64 + 1,
            mission_id: mission.id,
            kind: KINDS[*kind],
            start: t,
            end: Some(t + length * MINUTE),
        });
        t += length * MINUTE;
    }
    (tz, anchor, missions)
}

/// What a minute-by-minute walk on the local clock finds: work seconds per local date, and night
/// seconds per local date (00:00 to 05:00, and the day's last second, 23:59:59, as the reference
/// counts it).
fn walk(tz: Tz, missions: &[Mission]) -> (BTreeMap<NaiveDate, i64>, BTreeMap<NaiveDate, i64>) {
    let mut work = BTreeMap::new();
    let mut night = BTreeMap::new();
    for activity in missions.iter().flat_map(|m| &m.activities).filter(|a| a.is_work()) {
        let mut t = activity.start;
        while t < activity.end.expect("closed") {
            let local = time::local_datetime(tz, t);
            *work.entry(local.date()).or_insert(0) += MINUTE;
            let at_night = if local.hour() < 5 {
                MINUTE
            } else if local.hour() == 23 && local.minute() == 59 {
                1
            } else {
                0
            };
            *night.entry(local.date()).or_insert(0) += at_night;
            t += MINUTE;
        }
    }
    (work, night)
}

fn is_local_midnight(tz: Tz, t: i64, day: NaiveDate) -> bool {
    time::local_datetime(tz, t) == day.and_time(NaiveTime::MIN)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn every_minute_of_work_is_in_exactly_one_local_day((anchor, offset, steps) in steps()) {
        let (tz, anchor, missions) = case(anchor, offset, &steps);
        let from = anchor - chrono::Duration::days(14);
        let until = anchor + chrono::Duration::days(14);
        let days = workdays::build(tz, &missions, from, until, i64::MAX / 2);
        let (work, night) = walk(tz, &missions);
        let real: i64 = missions
            .iter()
            .flat_map(|m| &m.activities)
            .filter(|a| a.is_work())
            .map(|a| a.end.unwrap_or(a.start) - a.start)
            .sum();
        let by_day: BTreeMap<NaiveDate, i64> = days
            .iter()
            .filter(|d| d.total_work_duration > 0)
            .map(|d| (d.day, d.total_work_duration))
            .collect();
        prop_assert_eq!(by_day.values().sum::<i64>(), real);
        prop_assert_eq!(&by_day, &work.iter().filter(|(_, s)| **s > 0).map(|(d, s)| (*d, *s)).collect());
        for day in &days {
            prop_assert!(is_local_midnight(tz, day.start_of_day, day.day), "{} starts at local midnight", day.day);
            prop_assert!(is_local_midnight(tz, day.end_of_day, day.day.succ_opt().unwrap()), "{} ends at the next", day.day);
            prop_assert!([23 * HOUR, 24 * HOUR, 25 * HOUR].contains(&(day.end_of_day - day.start_of_day)));
            prop_assert_eq!(day.night_work_duration, night.get(&day.day).copied().unwrap_or(0), "night of {}", day.day);
        }
        // Consecutive days meet: no instant between two days, none in two.
        for d in time::dates(from, until) {
            prop_assert_eq!(time::day_end(tz, d), time::day_start(tz, d.succ_opt().unwrap()));
        }
    }

    #[test]
    fn every_minute_of_work_is_in_exactly_one_local_week((anchor, offset, steps) in steps()) {
        let (tz, anchor, missions) = case(anchor, offset, &steps);
        let from = time::monday(anchor - chrono::Duration::days(14));
        let until = time::sunday(anchor + chrono::Duration::days(14));
        let days = workdays::build(tz, &missions, from, until, i64::MAX / 2);
        let (work, _) = walk(tz, &missions);
        let mut expected: BTreeMap<NaiveDate, i64> = BTreeMap::new();
        for (day, seconds) in &work {
            *expected.entry(time::monday(*day)).or_insert(0) += seconds;
        }
        for week in weekly::weeks(tz, &days, from, until) {
            prop_assert_eq!(week.monday.weekday(), Weekday::Mon);
            let (start, end) = (time::week_start(tz, week.monday), time::week_end(tz, week.monday));
            prop_assert!(is_local_midnight(tz, start, week.monday));
            prop_assert!(is_local_midnight(tz, end, week.monday + chrono::Duration::days(7)));
            prop_assert_eq!(week.work_duration, expected.get(&week.monday).copied().unwrap_or(0), "week of {}", week.monday);
            prop_assert!(week.days.iter().all(|d| time::monday(d.day) == week.monday));
            if week.days.is_empty() {
                // A week without work is one rest, as long as the week in real time.
                prop_assert_eq!(week.rest_duration.value, end - start);
            }
            prop_assert!(week.rest_duration.value <= end - start);
        }
    }

    #[test]
    fn a_computation_run_again_gives_the_same_result((anchor, offset, steps) in steps()) {
        let (tz, anchor, missions) = case(anchor, offset, &steps);
        let input = Input {
            tz,
            business: BusinessType::Frequent,
            missions: &missions,
            period_start: anchor - chrono::Duration::days(3),
            period_end: anchor + chrono::Duration::days(3),
            today: date("2026-11-29"),
            now: time::day_start(tz, date("2026-11-29")),
            eu_driving_checks: true,
        };
        let first = compute::compute(&input);
        let again = compute::compute(&input);
        prop_assert_eq!(format!("{first:?}"), format!("{again:?}"));
        // The missions' order in the input does not matter.
        let reversed: Vec<Mission> = missions.iter().rev().cloned().collect();
        let other = compute::compute(&Input {
            missions: &reversed,
            ..input
        });
        prop_assert_eq!(format!("{first:?}"), format!("{other:?}"));
    }
}
