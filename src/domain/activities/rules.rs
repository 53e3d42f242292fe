//! Pure rules of working time, unit-tested apart from the database:
//!
//! * times are whole minutes (the reference truncates seconds away);
//! * nothing is recorded more than 5 minutes ahead of the server clock (phones' clocks drift a
//!   little, a larger gap is an error);
//! * an activity ends strictly after it starts;
//! * two activities of one worker never overlap, whatever their missions (a person does one
//!   thing at a time);
//! * the spans of a worker's missions (first start to last end, or open) never overlap, so that
//!   every minute of a worker belongs to at most one mission (the two rules that span rows are
//!   searched for in the database: `checks::sql`).

use crate::errors::{AppError, Code};

/// How far ahead of the server clock a time may be.
pub const MAX_AHEAD_SECONDS: i64 = 5 * 60;

/// Stands for "still running" in interval arithmetic.
pub const OPEN: i64 = i64::MAX;

/// Drops the seconds of a Unix time.
pub fn to_minute(t: i64) -> i64 {
    t.div_euclid(60) * 60
}

/// INVALID_INPUTS when `time` is more than 5 minutes after `now` (reference code
/// ACTIVITY_TIME_IN_FUTURE, kept in `reason`).
pub fn not_in_future(time: i64, now: i64, event: &str) -> Result<(), AppError> {
    if time > now + MAX_AHEAD_SECONDS {
        return Err(
            AppError::invalid_inputs(format!("{event} time is in the future by {} seconds", time - now))
                .with("reason", "ACTIVITY_TIME_IN_FUTURE")
                .with("eventTime", time)
                .with("receptionTime", now)
                .with("eventName", event),
        );
    }
    Ok(())
}

/// INVALID_INPUTS unless `end` is strictly after `start`.
pub fn positive_duration(start: i64, end: Option<i64>) -> Result<(), AppError> {
    if end.is_some_and(|end| end <= start) {
        return Err(
            AppError::invalid_inputs("End time of activity should be strictly after start time")
                .with("reason", "EMPTY_ACTIVITY_DURATION"),
        );
    }
    Ok(())
}

/// Whether `[a_start, a_end)` and `[b_start, b_end)` share a minute (`None` = open).
pub fn overlaps(a_start: i64, a_end: Option<i64>, b_start: i64, b_end: Option<i64>) -> bool {
    a_start < b_end.unwrap_or(OPEN) && b_start < a_end.unwrap_or(OPEN)
}

/// A mission's span for one worker: `[start, end)`, `end = OPEN` while an activity runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Span {
    pub mission_id: i64,
    pub start: i64,
    pub end: i64,
}

/// OVERLAPPING_MISSIONS, worded as the reference.
pub fn overlapping_missions(other: i64) -> AppError {
    AppError::new(
        Code::OverlappingMissions,
        format!("Mission cannot overlap with mission {other} for the user."),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_are_truncated_to_the_minute() {
        assert_eq!(to_minute(1_700_000_059), 1_700_000_040);
        assert_eq!(to_minute(1_700_000_040), 1_700_000_040);
        assert_eq!(to_minute(-1), -60);
    }

    #[test]
    fn five_minutes_ahead_is_the_limit() {
        assert!(not_in_future(1000 + 300, 1000, "Start").is_ok());
        let error = not_in_future(1000 + 301, 1000, "Start").unwrap_err();
        assert_eq!(error.code, Code::InvalidInputs);
        assert!(
            error
                .extensions
                .contains(&("reason", serde_json::json!("ACTIVITY_TIME_IN_FUTURE")))
        );
    }

    #[test]
    fn durations_are_positive() {
        assert!(positive_duration(60, Some(120)).is_ok());
        assert!(positive_duration(60, None).is_ok());
        assert!(positive_duration(60, Some(60)).is_err());
        assert!(positive_duration(120, Some(60)).is_err());
    }

    #[test]
    fn intervals_are_half_open() {
        assert!(!overlaps(0, Some(60), 60, Some(120)), "touching is not overlapping");
        assert!(overlaps(0, Some(61), 60, Some(120)));
        assert!(
            overlaps(0, None, 6000, Some(6060)),
            "an open activity covers everything after it"
        );
        assert!(!overlaps(6060, None, 0, Some(6060)));
    }
}
