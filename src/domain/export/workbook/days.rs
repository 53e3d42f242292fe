//! A worker's days as the activity report shows them: the activities cut into local days of the
//! worker's time zone (as the days of work are), and each day's figures: durations by type,
//! total work, amplitude, break, night hours, start and end, and whether the day touches the
//! days around it.

use std::collections::BTreeMap;

use chrono::NaiveDate;
use chrono_tz::Tz;

use crate::domain::kinds::ActivityType;
use crate::domain::regulation::time::{day_end, day_start, local_date, local_time};

/// One activity of the worker (never a cancelled one); `end` is `None` while running.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Span {
    pub mission_id: i64,
    pub kind: ActivityType,
    pub start: i64,
    pub end: Option<i64>,
}

/// The worker's whole time in a mission, beyond the report's period.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MissionBounds {
    pub start: i64,
    /// `None` while running.
    pub end: Option<i64>,
}

/// One local day's figures, in seconds and Unix times.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DayFigures {
    pub date: NaiveDate,
    /// Missions in the order of their first activity of the day.
    pub missions: Vec<i64>,
    /// The mission of the first activity and of the last one (`off` included).
    pub first_mission: i64,
    pub last_mission: i64,
    /// First start and last end of the activities other than `off`, clipped to the day; `None`
    /// for a day of `off` only; `end` is also `None` while running.
    pub start: Option<i64>,
    pub end: Option<i64>,
    pub overlaps_previous_day: bool,
    pub overlaps_next_day: bool,
    pub drive: i64,
    pub work: i64,
    pub support: i64,
    pub transfer: i64,
    pub off: i64,
    pub total_work: i64,
    pub amplitude: i64,
    pub pause: i64,
    pub night: i64,
}

impl DayFigures {
    /// Every activity of the day is `off`.
    pub fn is_off_day(&self) -> bool {
        self.start.is_none()
    }
}

/// Night work ends at 06:00 and starts at 21:00 local time.
const NIGHT_ENDS: u32 = 6;
const NIGHT_STARTS: u32 = 21;

fn overlap(start: i64, end: i64, from: i64, to: i64) -> i64 {
    (end.min(to) - start.max(from)).max(0)
}

/// The worker's days from `from` to `to` (both included) in zone `tz`, by date: every day an
/// activity touches, each activity clipped to it; a running activity counts until `now`.
/// `bounds` gives each mission's span for the worker (a mission missing there is bounded by
/// its activities here).
pub fn days(
    tz: Tz,
    spans: &[Span],
    bounds: &BTreeMap<i64, MissionBounds>,
    from: NaiveDate,
    to: NaiveDate,
    now: i64,
) -> Vec<DayFigures> {
    let mut by_day: BTreeMap<NaiveDate, Vec<&Span>> = BTreeMap::new();
    for span in spans {
        let end = span.end.unwrap_or(now);
        if end <= span.start {
            continue;
        }
        let mut date = local_date(tz, span.start).max(from);
        let last = local_date(tz, end - 1).min(to);
        while date <= last {
            by_day.entry(date).or_default().push(span);
            match date.succ_opt() {
                Some(next) => date = next,
                None => break,
            }
        }
    }
    by_day
        .into_iter()
        .map(|(date, mut spans)| {
            spans.sort_by_key(|s| (s.start, s.end.is_none()));
            one_day(tz, date, &spans, bounds, now)
        })
        .collect()
}

fn one_day(tz: Tz, date: NaiveDate, spans: &[&Span], bounds: &BTreeMap<i64, MissionBounds>, now: i64) -> DayFigures {
    let (from, to) = (day_start(tz, date), day_end(tz, date));
    let night_ends = local_time(tz, date, NIGHT_ENDS, 0, 0);
    let night_starts = local_time(tz, date, NIGHT_STARTS, 0, 0);
    let mut figures = DayFigures {
        date,
        missions: Vec::new(),
        first_mission: spans.first().map_or(0, |s| s.mission_id),
        last_mission: spans.last().map_or(0, |s| s.mission_id),
        start: None,
        end: None,
        overlaps_previous_day: false,
        overlaps_next_day: false,
        drive: 0,
        work: 0,
        support: 0,
        transfer: 0,
        off: 0,
        total_work: 0,
        amplitude: 0,
        pause: 0,
        night: 0,
    };
    let mut last_end: Option<i64> = None;
    let mut running = false;
    for span in spans {
        let end = span.end.unwrap_or(now);
        let inside = overlap(span.start, end, from, to);
        if !figures.missions.contains(&span.mission_id) {
            figures.missions.push(span.mission_id);
        }
        match span.kind {
            ActivityType::Drive => figures.drive += inside,
            ActivityType::Work => figures.work += inside,
            ActivityType::Support => figures.support += inside,
            ActivityType::Transfer => figures.transfer += inside,
            ActivityType::Off => figures.off += inside,
        }
        if matches!(
            span.kind,
            ActivityType::Drive | ActivityType::Work | ActivityType::Support
        ) {
            figures.night += overlap(span.start, end, from, night_ends) + overlap(span.start, end, night_starts, to);
        }
        if span.kind != ActivityType::Off {
            figures.start = Some(figures.start.unwrap_or(span.start.max(from)));
            last_end = Some(last_end.map_or(end, |e: i64| e.max(end)).min(to));
            running |= span.end.is_none();
        }
    }
    figures.total_work = figures.drive + figures.work + figures.support;
    if let (Some(start), Some(end)) = (figures.start, last_end) {
        figures.amplitude = (end - start).max(0);
        figures.end = (!running).then_some(end);
    }
    figures.pause = (figures.amplitude - figures.total_work - figures.transfer).max(0);
    let bound = |mission: i64| bounds.get(&mission).copied();
    figures.overlaps_previous_day =
        bound(figures.first_mission).map_or_else(|| spans.first().is_some_and(|s| s.start < from), |b| b.start < from);
    figures.overlaps_next_day = bound(figures.last_mission).map_or_else(
        || spans.last().is_some_and(|s| s.end.is_none_or(|e| e > to)),
        |b| b.end.is_none_or(|e| e > to),
    );
    figures
}

/// Excel's serial number of a date (days since 1899-12-30): the sheets write days as numbers.
pub fn excel_date(date: NaiveDate) -> f64 {
    let epoch = NaiveDate::from_ymd_opt(1899, 12, 30).unwrap_or(NaiveDate::MIN);
    (date - epoch).num_days() as f64
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::regulation::time::zone;

    fn paris() -> Tz {
        zone("Europe/Paris")
    }

    fn at(day: NaiveDate, hour: u32, minute: u32) -> i64 {
        local_time(paris(), day, hour, minute, 0)
    }

    fn date(text: &str) -> NaiveDate {
        NaiveDate::parse_from_str(text, "%Y-%m-%d").unwrap()
    }

    fn span(mission: i64, kind: ActivityType, start: i64, end: Option<i64>) -> Span {
        Span {
            mission_id: mission,
            kind,
            start,
            end,
        }
    }

    #[test]
    fn a_day_has_its_durations_break_amplitude_and_night_hours() {
        let d = date("2026-03-10");
        let spans = [
            span(1, ActivityType::Drive, at(d, 5, 0), Some(at(d, 7, 30))),
            span(1, ActivityType::Work, at(d, 8, 0), Some(at(d, 12, 0))),
            span(1, ActivityType::Transfer, at(d, 13, 0), Some(at(d, 13, 45))),
            span(1, ActivityType::Support, at(d, 20, 0), Some(at(d, 22, 15))),
        ];
        let days = days(paris(), &spans, &BTreeMap::new(), d, d, at(d, 23, 0));
        assert_eq!(days.len(), 1);
        let day = &days[0];
        assert_eq!(
            (day.drive, day.work, day.support, day.transfer),
            (9000, 14400, 8100, 2700)
        );
        assert_eq!(day.total_work, 9000 + 14400 + 8100);
        assert_eq!((day.start, day.end), (Some(at(d, 5, 0)), Some(at(d, 22, 15))));
        assert_eq!(day.amplitude, 17 * 3600 + 15 * 60);
        assert_eq!(day.pause, day.amplitude - day.total_work - 2700);
        // 05:00–06:00 and 21:00–22:15.
        assert_eq!(day.night, 3600 + 4500);
        assert!(!day.overlaps_previous_day && !day.overlaps_next_day);
    }

    #[test]
    fn a_night_mission_is_cut_at_local_midnight_and_overlaps_both_days() {
        let d = date("2026-07-03");
        let next = d.succ_opt().unwrap();
        let spans = [span(4, ActivityType::Drive, at(d, 22, 0), Some(at(next, 3, 0)))];
        let days = days(paris(), &spans, &BTreeMap::new(), d, next, at(next, 12, 0));
        assert_eq!(days.iter().map(|d| d.drive).collect::<Vec<_>>(), [7200, 10800]);
        assert!(days[0].overlaps_next_day && !days[0].overlaps_previous_day);
        assert!(days[1].overlaps_previous_day && !days[1].overlaps_next_day);
        assert_eq!(days.iter().map(|d| d.night).collect::<Vec<_>>(), [7200, 10800]);
        // Outside the period, no day.
        assert_eq!(super::days(paris(), &spans, &BTreeMap::new(), next, next, 0).len(), 1);
    }

    #[test]
    fn an_off_day_has_no_start_and_a_running_day_no_end() {
        let d = date("2026-05-04");
        let spans = [span(2, ActivityType::Off, at(d, 0, 0), Some(at(d, 8, 0)))];
        let day = &days(paris(), &spans, &BTreeMap::new(), d, d, 0)[0];
        assert!(day.is_off_day());
        assert_eq!((day.off, day.amplitude, day.pause), (8 * 3600, 0, 0));
        let spans = [span(3, ActivityType::Work, at(d, 9, 0), None)];
        let day = &days(paris(), &spans, &BTreeMap::new(), d, d, at(d, 10, 0))[0];
        assert_eq!((day.start, day.end, day.work), (Some(at(d, 9, 0)), None, 3600));
        assert!(day.overlaps_next_day);
        // The mission's bounds beyond the day decide the overlaps.
        let bounds = BTreeMap::from([(
            3,
            MissionBounds {
                start: at(d, 9, 0) - 86400,
                end: Some(at(d, 10, 0)),
            },
        )]);
        let day = &days(paris(), &spans, &bounds, d, d, at(d, 10, 0))[0];
        assert!(day.overlaps_previous_day && !day.overlaps_next_day);
    }
}
