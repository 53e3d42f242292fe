//! The regulation engine: the working-time checks of the reference service — daily
//! rest, maximum work per day, breaks, weekly rest, weekly work — with its thresholds per
//! business, its day and week boundaries in the worker's time zone, its `extra` values and
//! quirks, and an explanation of every alert in English and French; and, opt-in per company, the
//! EU driving-time rules as extension checks.
//!
//! Everything here is pure: functions over a worker's activities, no database, no GraphQL, no
//! async. The service that loads activities and stores results lives beside it.

pub mod breaks;
pub mod business;
pub mod check_type;
pub mod checks;
pub mod compute;
pub mod daily;
pub mod eu;
pub mod explain;
pub mod outcome;
pub mod pyjson;
pub mod time;
pub mod variables;
pub mod weekly;
pub mod workdays;

#[cfg(test)]
mod tests;
