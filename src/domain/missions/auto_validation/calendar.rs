//! Business days as the reference counts them for auto-validation: Monday to Friday, except the
//! public holidays of metropolitan France (`jours_feries_france`, default zone): 1 January,
//! Easter Monday, 1 May, 8 May, Ascension Thursday, Whit Monday, 14 July, 15 August, 1 November,
//! 11 November and 25 December.

use chrono::{Datelike, Duration, NaiveDate, Weekday};

/// Easter Sunday of a Gregorian year (the anonymous algorithm of Meeus, Jones and Butcher).
pub fn easter(year: i32) -> NaiveDate {
    let a = year % 19;
    let b = year / 100;
    let c = year % 100;
    let d = b / 4;
    let e = b % 4;
    let f = (b + 8) / 25;
    let g = (b - f + 1) / 3;
    let h = (19 * a + b - d - g + 15) % 30;
    let i = c / 4;
    let k = c % 4;
    let l = (32 + 2 * e + 2 * i - h - k) % 7;
    let m = (a + 11 * h + 22 * l) / 451;
    let month = (h + l - 7 * m + 114) / 31;
    let day = (h + l - 7 * m + 114) % 31 + 1;
    NaiveDate::from_ymd_opt(year, month as u32, day as u32).unwrap_or_default()
}

/// Whether the date is a public holiday of metropolitan France.
pub fn is_public_holiday(date: NaiveDate) -> bool {
    let fixed = matches!(
        (date.month(), date.day()),
        (1, 1) | (5, 1) | (5, 8) | (7, 14) | (8, 15) | (11, 1) | (11, 11) | (12, 25)
    );
    let easter = easter(date.year());
    fixed
        || [1, 39, 50]
            .iter()
            .any(|offset| easter + Duration::days(*offset) == date)
}

/// Whether the date counts as a business day.
pub fn is_business_day(date: NaiveDate) -> bool {
    !matches!(date.weekday(), Weekday::Sat | Weekday::Sun) && !is_public_holiday(date)
}

/// `now` minus `days` business days (Unix seconds, UTC dates): step back one day at a time,
/// counting the days that are business days, as the reference does.
pub fn threshold(now: i64, days: u32) -> i64 {
    let mut at = now;
    let mut counted = 0;
    while counted < days {
        at -= 86_400;
        if is_business_day(crate::domain::missions::date_of(at)) {
            counted += 1;
        }
    }
    at
}

#[cfg(test)]
mod tests {
    use super::*;

    fn date(y: i32, m: u32, d: u32) -> NaiveDate {
        NaiveDate::from_ymd_opt(y, m, d).unwrap()
    }

    fn at(y: i32, m: u32, d: u32, h: u32) -> i64 {
        date(y, m, d).and_hms_opt(h, 0, 0).unwrap().and_utc().timestamp()
    }

    #[test]
    fn easter_dates() {
        assert_eq!(easter(2024), date(2024, 3, 31));
        assert_eq!(easter(2025), date(2025, 4, 20));
        assert_eq!(easter(2026), date(2026, 4, 5));
        assert_eq!(easter(2027), date(2027, 3, 28));
    }

    #[test]
    fn public_holidays_of_2026() {
        for (m, d) in [
            (1, 1),
            (4, 6),
            (5, 1),
            (5, 8),
            (5, 14),
            (5, 25),
            (7, 14),
            (8, 15),
            (11, 1),
            (11, 11),
            (12, 25),
        ] {
            assert!(is_public_holiday(date(2026, m, d)), "2026-{m}-{d}");
        }
        assert!(
            !is_public_holiday(date(2026, 4, 5)),
            "Easter Sunday itself is a Sunday, not listed"
        );
        assert!(!is_public_holiday(date(2026, 12, 26)));
        assert!(!is_business_day(date(2026, 1, 10)), "a Saturday");
        assert!(is_business_day(date(2026, 1, 9)), "a Friday");
    }

    #[test]
    fn thresholds_skip_weekends_and_public_holidays() {
        // Tuesday 10:00 minus one business day: Monday 10:00; minus two: Friday 10:00.
        assert_eq!(threshold(at(2026, 1, 13, 10), 1), at(2026, 1, 12, 10));
        assert_eq!(threshold(at(2026, 1, 13, 10), 2), at(2026, 1, 9, 10));
        // Monday 10:00 minus one: the Friday before.
        assert_eq!(threshold(at(2026, 1, 12, 10), 1), at(2026, 1, 9, 10));
        // Tuesday after Easter Monday 2026 (6 April) minus one: Friday 3 April.
        assert_eq!(threshold(at(2026, 4, 7, 10), 1), at(2026, 4, 3, 10));
        assert_eq!(threshold(at(2026, 4, 7, 10), 0), at(2026, 4, 7, 10));
    }
}
