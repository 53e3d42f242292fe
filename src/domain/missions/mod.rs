//! Missions: a piece of work of a company (a tour, a delivery round), its vehicle, locations and
//! comments, who may read and write it, and its end and validation.

pub mod auto_validation;
pub mod comments;
pub mod deleted;
pub mod dry_run;
pub mod holidays;
pub mod locations;
pub mod permissions;
pub mod queries;
pub mod service;
pub mod store;
pub mod validation;

/// Unix seconds of the start of a UTC day.
pub fn day_start(date: chrono::NaiveDate) -> i64 {
    date.and_hms_opt(0, 0, 0).map(|t| t.and_utc().timestamp()).unwrap_or(0)
}

/// The UTC date of a Unix time.
pub fn date_of(t: i64) -> chrono::NaiveDate {
    chrono::DateTime::from_timestamp(t, 0)
        .map(|d| d.date_naive())
        .unwrap_or_default()
}
