//! The Excel activity report's request: which workers it covers and how it is split into files
//! ([`chunking`](super::chunking)), read the same way for the prediction and for the report.

use chrono::NaiveDate;

use crate::db::Db;
use crate::errors::AppResult;

use super::chunking::{self, Plan, TooLarge, Worker};
use super::data;

/// What an activity report covers, as the request gives it (dates as sent: their defaults differ
/// between the workers' selection and the report's period, as in the reference).
#[derive(Debug, Clone)]
pub struct ReportRequest {
    pub company_ids: Vec<i64>,
    /// Empty: every worker of the companies.
    pub user_ids: Vec<i64>,
    pub min_date: Option<NaiveDate>,
    pub max_date: Option<NaiveDate>,
    pub one_file_by_employee: bool,
}

/// The first day the workers are selected from when the request names none.
fn selection_start() -> NaiveDate {
    NaiveDate::from_ymd_opt(2000, 1, 1).unwrap_or(NaiveDate::MIN)
}

/// The report's split on `today`: its workers (an accepted employment in one of the companies
/// overlapping [`min_date` or 2000-01-01, `max_date` or today], among `user_ids` when given), its
/// period ([`chunking::effective_dates`]) and its chunks. The caller's rights are checked before.
pub async fn plan(db: &Db, request: &ReportRequest, today: NaiveDate) -> AppResult<Result<Plan, TooLarge>> {
    let from = request.min_date.unwrap_or_else(selection_start);
    let to = request.max_date.unwrap_or(today);
    let employees = data::employees(db, &request.company_ids, &request.user_ids, from, to).await?;
    let workers: Vec<Worker> = employees
        .into_iter()
        .map(|e| Worker {
            id: e.id,
            first_name: e.first_name,
            last_name: e.last_name,
        })
        .collect();
    let (min, max) = chunking::effective_dates(request.min_date, request.max_date, today);
    Ok(chunking::plan(&workers, min, max, request.one_file_by_employee))
}
