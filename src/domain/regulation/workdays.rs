//! A worker's activities grouped by local day ("work days", grouped as the reference service
//! groups them, on days from local midnight to the next), with the per-day figures the checks
//! read.

use chrono::NaiveDate;

use super::time;
use crate::domain::kinds::ActivityType;

/// One activity of the worker, as the checks see it (never cancelled; `off` is dropped before).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Activity {
    pub id: i64,
    pub mission_id: i64,
    pub kind: ActivityType,
    pub start: i64,
    /// `None` while running.
    pub end: Option<i64>,
}

impl Activity {
    /// drive, work and support count as work; transfer and off do not.
    pub fn is_work(&self) -> bool {
        matches!(
            self.kind,
            ActivityType::Drive | ActivityType::Work | ActivityType::Support
        )
    }

    /// The end, or `now` while running.
    pub fn end_or(&self, now: i64) -> i64 {
        self.end.unwrap_or(now)
    }

    /// Seconds of the activity inside `[from, to)` (the reference's `duration_over`).
    pub fn duration_over(&self, from: i64, to: i64, now: i64) -> i64 {
        if self.end.is_some_and(|e| e <= from) || self.start >= to {
            return 0;
        }
        self.end_or(now).min(to) - self.start.max(from)
    }
}

/// One mission of the worker: its activities that count (not cancelled, not `off`).
#[derive(Clone, Debug)]
pub struct Mission {
    pub id: i64,
    pub activities: Vec<Activity>,
}

/// The worker's activities of one local day and the figures derived from them.
#[derive(Clone, Debug)]
pub struct WorkDay {
    pub day: NaiveDate,
    /// Local midnight, in Unix seconds.
    pub start_of_day: i64,
    /// The next local midnight: 23, 24 or 25 hours after `start_of_day`.
    pub end_of_day: i64,
    /// Whole (unclipped) activities intersecting the day, by start.
    pub activities: Vec<Activity>,
    /// The first activity's start, not before the day's start.
    pub start_time: i64,
    /// The last activity's end, not after the day's end; `None` when it is running.
    pub end_time: Option<i64>,
    /// From the first start to the last end, inside the day.
    pub service_duration: i64,
    /// Seconds of drive, work and support inside the day.
    pub total_work_duration: i64,
    /// Seconds of work of the day outside local 05:00–23:59:59.
    pub night_work_duration: i64,
    pub first_mission_overlaps_previous_day: bool,
    pub last_mission_overlaps_next_day: bool,
}

fn sort_activities(activities: &mut [Activity]) {
    activities.sort_by_key(|a| (a.start, a.end.is_none(), a.id));
}

/// The work days from `from` to `until` (inclusive) of the given missions: each mission is
/// added to every local day from its first start to its last end (today while it runs); days
/// without activity are dropped.
pub fn build(tz: chrono_tz::Tz, missions: &[Mission], from: NaiveDate, until: NaiveDate, now: i64) -> Vec<WorkDay> {
    let mut missions: Vec<Mission> = missions
        .iter()
        .map(|m| {
            let mut activities: Vec<Activity> = m
                .activities
                .iter()
                .filter(|a| a.kind != ActivityType::Off)
                .cloned()
                .collect();
            sort_activities(&mut activities);
            Mission { id: m.id, activities }
        })
        .filter(|m| !m.activities.is_empty())
        .collect();
    missions.sort_by_key(|m| (m.activities[0].start, m.id));
    let mut by_day: std::collections::BTreeMap<NaiveDate, Vec<usize>> = Default::default();
    for (index, mission) in missions.iter().enumerate() {
        let first = time::local_date(tz, mission.activities[0].start);
        let last_end = mission.activities.last().and_then(|a| a.end).unwrap_or(now);
        let last = time::local_date(tz, last_end);
        for day in time::dates(first, last) {
            if day >= from && day <= until {
                by_day.entry(day).or_default().push(index);
            }
        }
    }
    by_day
        .into_iter()
        .filter_map(|(day, indexes)| {
            let in_day: Vec<&Mission> = indexes.iter().map(|i| &missions[*i]).collect();
            work_day(tz, day, &in_day, now)
        })
        .collect()
}

fn work_day(tz: chrono_tz::Tz, day: NaiveDate, missions: &[&Mission], now: i64) -> Option<WorkDay> {
    let start_of_day = time::day_start(tz, day);
    let end_of_day = time::day_end(tz, day);
    let mut activities: Vec<Activity> = missions
        .iter()
        .flat_map(|m| m.activities.iter())
        .filter(|a| a.start < end_of_day && a.end.is_none_or(|e| e > start_of_day) && Some(a.start) != a.end)
        .cloned()
        .collect();
    if activities.is_empty() {
        return None;
    }
    sort_activities(&mut activities);
    let first = &activities[0];
    let last = &activities[activities.len() - 1];
    let start_time = first.start.max(start_of_day);
    let end_time = last.end.map(|e| e.min(end_of_day));
    let service_duration = last.end_or(now).min(end_of_day) - start_time;
    let day_5 = time::local_time(tz, day, 5, 0, 0);
    let day_23_59_59 = time::local_time(tz, day, 23, 59, 59);
    let mut total_work_duration = 0;
    let mut night_work_duration = 0;
    for activity in activities.iter().filter(|a| a.is_work()) {
        let in_day = activity.duration_over(start_of_day, end_of_day, now);
        total_work_duration += in_day;
        night_work_duration += in_day - activity.duration_over(day_5, day_23_59_59, now);
    }
    let mission_of = |activity: &Activity| missions.iter().find(|m| m.id == activity.mission_id);
    let first_mission_overlaps_previous_day = mission_of(first).is_some_and(|m| m.activities[0].start < start_of_day);
    let last_mission_overlaps_next_day = mission_of(last)
        .and_then(|m| m.activities.last())
        .is_some_and(|a| a.end.is_none_or(|e| e > end_of_day));
    Some(WorkDay {
        day,
        start_of_day,
        end_of_day,
        start_time,
        end_time,
        service_duration,
        total_work_duration,
        night_work_duration,
        first_mission_overlaps_previous_day,
        last_mission_overlaps_next_day,
        activities,
    })
}

/// Work days relevant to the local day `day` (reference `filter_work_days_to_current_day`):
/// those starting by its end (the next local midnight) and ending after its start; running days
/// are left out.
pub fn current_day(tz: chrono_tz::Tz, days: &[WorkDay], day: NaiveDate) -> Vec<&WorkDay> {
    let (from, to) = (time::day_start(tz, day), time::day_end(tz, day));
    days.iter()
        .filter(|w| w.start_time <= to && w.end_time.is_some_and(|e| e > from))
        .collect()
}

/// The same with the next day too (reference `filter_work_days_to_current_and_next_day`).
pub fn current_and_next_day(tz: chrono_tz::Tz, days: &[WorkDay], day: NaiveDate) -> Vec<&WorkDay> {
    let from = time::day_start(tz, day);
    let to = day
        .succ_opt()
        .map_or(from + 2 * time::DAY, |next| time::day_end(tz, next));
    days.iter()
        .filter(|w| w.start_time <= to && w.end_time.is_some_and(|e| e > from))
        .collect()
}
