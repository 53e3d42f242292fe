//! Local days and weeks in the worker's time zone.
//!
//! A day D runs from local midnight of D to local midnight of D+1: 24 real hours on most days,
//! 23 on the day clocks go forward and 25 on the day they go back, so every instant belongs to
//! exactly one day. A week runs from Monday 00:00 local to the next Monday 00:00 local and is
//! named by its Monday. The reference instead takes 24 hours from local midnight (its days
//! overlap or leave an hour out on clock-change days); Roadlog deviates from it on those days
//! only.
//!
//! [`DAY`] stays as a length of real time, for the rolling windows the rules name ("10 h in every
//! 24 h"); it never ends a calendar day.

use chrono::{Datelike, Duration, NaiveDate, NaiveDateTime, NaiveTime, Offset, TimeZone};
use chrono_tz::Tz;

pub const MINUTE: i64 = 60;
pub const HOUR: i64 = 3600;
/// 24 real hours, for rolling windows; a calendar day ends at [`day_end`].
pub const DAY: i64 = 86_400;

/// The worker's zone; an unknown stored name is read as the reference's default,
/// `Europe/Paris`, with a warning ([`crate::domain::users::zones::stored`]).
pub fn zone(name: &str) -> Tz {
    crate::domain::users::zones::stored(name)
}

/// Unix seconds of a local wall-clock time. An ambiguous time (clocks going back) is read with
/// the earlier offset, a skipped one (clocks going forward) with the offset in force before the
/// change, as Python's `zoneinfo` does with `fold=0`.
pub fn local_to_utc(tz: Tz, local: NaiveDateTime) -> i64 {
    use chrono::LocalResult;
    match tz.from_local_datetime(&local) {
        LocalResult::Single(t) => t.timestamp(),
        LocalResult::Ambiguous(earlier, _) => earlier.timestamp(),
        LocalResult::None => {
            let before = tz.offset_from_utc_datetime(&(local - Duration::days(1))).fix();
            (local - Duration::seconds(i64::from(before.local_minus_utc())))
                .and_utc()
                .timestamp()
        }
    }
}

/// Unix seconds of local midnight at the start of `day`.
pub fn day_start(tz: Tz, day: NaiveDate) -> i64 {
    local_to_utc(tz, day.and_time(NaiveTime::MIN))
}

/// Unix seconds of the local midnight ending `day` (the start of the next day): 23, 24 or 25
/// real hours after [`day_start`].
pub fn day_end(tz: Tz, day: NaiveDate) -> i64 {
    match day.succ_opt() {
        Some(next) => day_start(tz, next),
        None => day_start(tz, day) + DAY,
    }
}

/// Unix seconds of Monday 00:00 local of the week of `day`.
pub fn week_start(tz: Tz, day: NaiveDate) -> i64 {
    day_start(tz, monday(day))
}

/// Unix seconds of the next Monday 00:00 local after the week of `day`.
pub fn week_end(tz: Tz, day: NaiveDate) -> i64 {
    day_end(tz, sunday(day))
}

/// Unix seconds of a local time of day on `day`.
pub fn local_time(tz: Tz, day: NaiveDate, hour: u32, minute: u32, second: u32) -> i64 {
    let time = NaiveTime::from_hms_opt(hour, minute, second).unwrap_or(NaiveTime::MIN);
    local_to_utc(tz, day.and_time(time))
}

/// The local date of an instant.
pub fn local_date(tz: Tz, t: i64) -> NaiveDate {
    tz.timestamp_opt(t, 0)
        .single()
        .map(|d| d.date_naive())
        .unwrap_or_default()
}

/// The local wall-clock time of an instant.
pub fn local_datetime(tz: Tz, t: i64) -> NaiveDateTime {
    tz.timestamp_opt(t, 0)
        .single()
        .map(|d| d.naive_local())
        .unwrap_or_default()
}

/// The Monday of the week of `day`.
pub fn monday(day: NaiveDate) -> NaiveDate {
    day - Duration::days(i64::from(day.weekday().num_days_from_monday()))
}

/// The Sunday of the week of `day`.
pub fn sunday(day: NaiveDate) -> NaiveDate {
    monday(day) + Duration::days(6)
}

/// Every date from `from` to `to`, both included.
pub fn dates(from: NaiveDate, to: NaiveDate) -> impl Iterator<Item = NaiveDate> {
    from.iter_days().take_while(move |d| *d <= to)
}

/// An instant as the reference writes it in `extra`: the naive UTC `isoformat()`,
/// `2022-07-11T05:00:00`, without offset.
pub fn iso(t: i64) -> String {
    use chrono::{Datelike, Timelike};
    chrono::DateTime::from_timestamp(t, 0)
        .map(|d| {
            format!(
                "{:04}-{:02}-{:02}T{:02}:{:02}:{:02}",
                d.year(),
                d.month(),
                d.day(),
                d.hour(),
                d.minute(),
                d.second()
            )
        })
        .unwrap_or_default()
}

/// A date as French readers write it, `03/03/2025`.
pub fn french_date(day: NaiveDate) -> String {
    use chrono::Datelike;
    format!("{:02}/{:02}/{:04}", day.day(), day.month(), day.year())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn date(text: &str) -> NaiveDate {
        text.parse().unwrap()
    }

    #[test]
    fn local_midnight_follows_the_zone_offset() {
        let paris = zone("Europe/Paris");
        // Winter: UTC+1; summer: UTC+2.
        assert_eq!(iso(day_start(paris, date("2025-01-15"))), "2025-01-14T23:00:00");
        assert_eq!(iso(day_start(paris, date("2025-07-15"))), "2025-07-14T22:00:00");
        // The day clocks go forward is 23 hours long, the day they go back 25.
        let start = day_start(paris, date("2025-03-30"));
        assert_eq!(day_end(paris, date("2025-03-30")) - start, 23 * HOUR);
        let start = day_start(paris, date("2025-10-26"));
        assert_eq!(day_end(paris, date("2025-10-26")) - start, 25 * HOUR);
        assert_eq!(day_end(paris, date("2025-10-25")), start);
        assert_eq!(
            iso(local_time(paris, date("2025-03-30"), 5, 0, 0)),
            "2025-03-30T03:00:00"
        );
    }

    #[test]
    fn skipped_and_repeated_local_times_read_like_zoneinfo() {
        let paris = zone("Europe/Paris");
        // 02:30 does not exist on 2025-03-30: read with the winter offset (UTC+1).
        assert_eq!(
            iso(local_time(paris, date("2025-03-30"), 2, 30, 0)),
            "2025-03-30T01:30:00"
        );
        // 02:30 happens twice on 2025-10-26: the first one (UTC+2).
        assert_eq!(
            iso(local_time(paris, date("2025-10-26"), 2, 30, 0)),
            "2025-10-26T00:30:00"
        );
    }

    #[test]
    fn weeks_run_monday_to_sunday() {
        assert_eq!(monday(date("2025-03-30")), date("2025-03-24"));
        assert_eq!(monday(date("2025-03-24")), date("2025-03-24"));
        assert_eq!(sunday(date("2025-03-24")), date("2025-03-30"));
        assert_eq!(dates(date("2025-03-30"), date("2025-04-01")).count(), 3);
        // The week of the spring change is 167 hours long, that of the autumn change 169.
        let paris = zone("Europe/Paris");
        let spring = date("2025-03-27");
        assert_eq!(week_end(paris, spring) - week_start(paris, spring), 167 * HOUR);
        assert_eq!(week_end(paris, spring), day_start(paris, date("2025-03-31")));
        let autumn = date("2025-10-20");
        assert_eq!(week_end(paris, autumn) - week_start(paris, autumn), 169 * HOUR);
    }

    #[test]
    fn unknown_zones_fall_back_to_paris() {
        assert_eq!(zone("Mars/Olympus"), chrono_tz::Europe::Paris);
        assert_eq!(zone("America/New_York"), chrono_tz::America::New_York);
    }
}
