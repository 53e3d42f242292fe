//! Wall-clock times of the tests' French workers.

use chrono::{NaiveDate, TimeZone};

/// Unix seconds of a Paris wall-clock time on `day` (`YYYY-MM-DD`).
pub fn paris(day: &str, hour: u32, minute: u32) -> i64 {
    let d = NaiveDate::parse_from_str(day, "%Y-%m-%d").unwrap();
    chrono_tz::Europe::Paris
        .from_local_datetime(&d.and_hms_opt(hour, minute, 0).unwrap())
        .unwrap()
        .timestamp()
}
