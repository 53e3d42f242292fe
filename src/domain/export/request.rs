//! What an export covers: the companies, the employees, the period (its defaults, order and
//! length are checked here; the body's shape by the transport). Every problem is reported per
//! field, as the export's 404 `details` says.

use std::collections::BTreeMap;

use chrono::NaiveDate;

/// Longest exported period, in days between `min_date` and `max_date` (as the reference).
pub const MAX_PERIOD_DAYS: i64 = 64;
/// Default period: `max_date` and the 27 days before it (four weeks).
pub const DEFAULT_PERIOD_DAYS: i64 = 27;
/// Most companies in one export.
pub const MAX_COMPANIES: usize = 100;
/// Most users named in one export.
pub const MAX_USERS: usize = 5_000;

/// A well-formed export request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExportRequest {
    pub company_ids: Vec<i64>,
    /// Empty: every employee of the companies over the period.
    pub user_ids: Vec<i64>,
    pub min_date: NaiveDate,
    pub max_date: NaiveDate,
    pub with_digital_signatures: bool,
    pub employee_version: bool,
}

/// Field → messages, for the 404 answer.
pub type Details = BTreeMap<String, Vec<String>>;

impl ExportRequest {
    /// An export of these companies (and, when not empty, only these users) over the period
    /// from `min_date` (default: `max_date` minus 27 days) to `max_date` (default: `today`).
    pub fn new(
        company_ids: Vec<i64>,
        user_ids: Vec<i64>,
        min_date: Option<NaiveDate>,
        max_date: Option<NaiveDate>,
        with_digital_signatures: bool,
        employee_version: bool,
        today: NaiveDate,
    ) -> Result<ExportRequest, Details> {
        let max_date = max_date.unwrap_or(today);
        let min_date = min_date.unwrap_or(max_date - chrono::Duration::days(DEFAULT_PERIOD_DAYS));
        let mut details = Details::new();
        if min_date > max_date {
            details.insert("max_date".into(), vec!["min_date must not be after max_date".into()]);
        } else if (max_date - min_date).num_days() > MAX_PERIOD_DAYS {
            details.insert(
                "max_date".into(),
                vec![format!("The requested period should be at most {MAX_PERIOD_DAYS} days")],
            );
        }
        if !details.is_empty() {
            return Err(details);
        }
        Ok(ExportRequest {
            company_ids,
            user_ids,
            min_date,
            max_date,
            with_digital_signatures,
            employee_version,
        })
    }
}
