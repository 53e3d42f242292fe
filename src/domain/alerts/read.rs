//! What the API reads: a worker's computations and their alerts, and who may read them.

use chrono::NaiveDate;

use crate::db::Db;
use crate::domain::auth::{Actor, Scope};
use crate::domain::companies::{date_text, parse_date, today};
use crate::domain::regulation::business::BusinessType;
use crate::domain::regulation::checks::{CHECKS, CheckDef, CheckType, SubmitterType, Unit};
use crate::domain::regulation::explain::Explanation;
use crate::domain::regulation::time::iso;
use crate::errors::{AppError, AppResult};

use super::load;

pub mod sql {
    /// The columns of an [`AlertRow`](super::AlertRow): its owner and its [`AlertContent`](super::AlertContent).
    const ALERT_COLUMNS: &str = "SELECT id, submitter_type, user_id, day, check_type, business_id, extra, explanation, \
         night_work, not_enough_break, too_much_uninterrupted_work_time";

    crate::statements! {
        /// `$1` worker, `$2` submitter type or NULL, `$3`/`$4` days or NULL.
        pub const COMPUTATIONS: &str = "SELECT id, creation_time, day, submitter_type, user_id FROM regulation_computations \
             WHERE user_id = $1 AND (CAST($2 AS TEXT) IS NULL OR submitter_type = CAST($2 AS TEXT)) \
               AND (CAST($3 AS TEXT) IS NULL OR day >= CAST($3 AS TEXT)) \
               AND (CAST($4 AS TEXT) IS NULL OR day <= CAST($4 AS TEXT)) ORDER BY day, id";
        pub const ALERTS_OF_DAY: &str = const_format::concatcp!(
            ALERT_COLUMNS,
            " FROM regulatory_alerts WHERE user_id = $1 AND day = $2 AND submitter_type = $3 ORDER BY id"
        );
        pub const ALERT: &str = const_format::concatcp!(ALERT_COLUMNS, " FROM regulatory_alerts WHERE id = $1");
        /// Whether the worker has an accepted employment in a company that opted in to the EU checks.
        pub const EU_WORKER: &str = "SELECT 1 FROM employments e JOIN companies c ON c.id = e.company_id \
             WHERE e.user_id = $1 AND e.validation_status = 'approved' AND e.dismissed_at IS NULL \
               AND c.eu_driving_checks = 1 LIMIT 1";
        /// The spans (`[start, end)`) of the worker's (`$1`) missions for companies other than
        /// `$2` that overlap `$3`–`$4`.
        pub const SPANS_ELSEWHERE: &str = "SELECT s.start_time, s.end_time FROM mission_spans s \
             JOIN missions m ON m.id = s.mission_id \
             WHERE s.user_id = $1 AND m.company_id <> $2 AND s.start_time < $4 AND s.end_time > $3";
        /// Whether `$1` is admin today (`$3`) of a company where `$2` holds or held an employment.
        /// (The companies, so that a request confined to one company counts that one only.)
        pub const ADMIN_OF_USER: &str = "SELECT DISTINCT a.company_id FROM employments a JOIN employments w ON w.company_id = a.company_id \
             WHERE a.user_id = $1 AND a.validation_status = 'approved' AND a.dismissed_at IS NULL AND a.has_admin_rights = 1 \
               AND a.start_date <= $3 AND (a.end_date IS NULL OR a.end_date >= $3) \
               AND w.user_id = $2 AND w.validation_status <> 'rejected' AND w.dismissed_at IS NULL";
    }
}

/// A computation as stored.
#[derive(sqlx::FromRow, Debug, Clone)]
pub struct ComputationRow {
    pub id: i64,
    pub creation_time: i64,
    pub day: String,
    pub submitter_type: String,
    pub user_id: i64,
}

impl ComputationRow {
    /// The reference's `creationTime`: a JSON-encoded UTC time without offset.
    pub fn creation_time_json(&self) -> String {
        serde_json::Value::String(iso(self.creation_time)).to_string()
    }

    /// The checks listed for the computation: those valid on the day it was created, in id order;
    /// the EU extensions only when `extensions`.
    pub fn checks(&self, unit: Option<Unit>, extensions: bool) -> Vec<&'static CheckDef> {
        let created = crate::domain::missions::date_of(self.creation_time);
        CHECKS
            .iter()
            .filter(|c| unit.is_none_or(|u| c.unit == u) && c.valid_on(created) && (extensions || !c.extension))
            .collect()
    }
}

/// An alert as stored: its id and owner, and its content.
#[derive(sqlx::FromRow, Debug, Clone)]
pub struct AlertRow {
    pub id: i64,
    pub submitter_type: String,
    pub user_id: i64,
    #[sqlx(flatten)]
    pub content: AlertContent,
}

/// What an alert says, as its columns hold it: what the store writes and compares, and what the
/// API reads back.
#[derive(sqlx::FromRow, Debug, Clone, PartialEq, Eq)]
pub struct AlertContent {
    pub day: String,
    pub check_type: String,
    pub business_id: i64,
    /// The alert's `extra` object, as JSON text.
    pub extra: String,
    /// The alert's [`Explanation`], as JSON text.
    pub explanation: String,
    /// 0 or 1, and the two below: the flags of `extra` the month rows group by.
    pub night_work: i64,
    pub not_enough_break: i64,
    pub too_much_uninterrupted_work_time: i64,
}

impl AlertRow {
    pub fn check(&self) -> Option<CheckType> {
        CheckType::from_str_opt(&self.content.check_type)
    }

    pub fn business(&self) -> BusinessType {
        BusinessType::from_id(self.content.business_id).unwrap_or(BusinessType::DEFAULT)
    }

    pub fn explanation(&self) -> Explanation {
        serde_json::from_str(&self.content.explanation).unwrap_or_default()
    }
}

/// `User.regulationComputationsByDay`: the user himself, or a current admin of one of the user's
/// companies (within the actor's scope).
pub async fn may_read(db: &Db, actor: Actor, user_id: i64) -> AppResult<()> {
    if actor.user_id == user_id {
        return Ok(());
    }
    let rows: Vec<(i64,)> = sqlx::query_as(sql::ADMIN_OF_USER)
        .bind(actor.user_id)
        .bind(user_id)
        .bind(date_text(today()))
        .fetch_all(db)
        .await?;
    if rows.iter().any(|(company,)| actor.scope.allows(*company)) {
        Ok(())
    } else {
        Err(AppError::authorization("Forbidden access"))
    }
}

/// The user's computations, by day. A worker's computation reads the activities of all their
/// employers; an actor confined to one company gets those of the days whose computation read
/// that company's activities only (see [`computed_from_company_only`]).
pub async fn computations(
    db: &Db,
    scope: Scope,
    user_id: i64,
    submitter: Option<SubmitterType>,
    from: Option<NaiveDate>,
    to: Option<NaiveDate>,
) -> AppResult<Vec<ComputationRow>> {
    let rows: Vec<ComputationRow> = sqlx::query_as(sql::COMPUTATIONS)
        .bind(user_id)
        .bind(submitter.map(|s| s.as_str()))
        .bind(from.map(date_text))
        .bind(to.map(date_text))
        .fetch_all(db)
        .await?;
    match scope.company() {
        None => Ok(rows),
        Some(company_id) => computed_from_company_only(db, user_id, company_id, rows).await,
    }
}

/// Keeps the computations that read none of the worker's missions for another company than
/// `company_id`: those whose reading window ([`load::reads`]: the day's weeks and a day around)
/// meets no such mission's span.
async fn computed_from_company_only(
    db: &Db,
    user_id: i64,
    company_id: i64,
    rows: Vec<ComputationRow>,
) -> AppResult<Vec<ComputationRow>> {
    let (zone,): (String,) = sqlx::query_as(load::sql::ZONE)
        .bind(user_id)
        .fetch_optional(db)
        .await?
        .unwrap_or_else(|| ("Europe/Paris".to_string(),));
    let tz = crate::domain::regulation::time::zone(&zone);
    let windows: Vec<(ComputationRow, (i64, i64))> = rows
        .into_iter()
        .filter_map(|row| {
            let day = parse_date(&row.day)?;
            Some((row, load::reads(tz, day)))
        })
        .collect();
    let Some((lower, upper)) = windows
        .iter()
        .map(|(_, w)| *w)
        .reduce(|a, b| (a.0.min(b.0), a.1.max(b.1)))
    else {
        return Ok(vec![]);
    };
    let elsewhere: Vec<(i64, i64)> = sqlx::query_as(sql::SPANS_ELSEWHERE)
        .bind(user_id)
        .bind(company_id)
        .bind(lower)
        .bind(upper)
        .fetch_all(db)
        .await?;
    Ok(windows
        .into_iter()
        .filter(|(_, (from, until))| !elsewhere.iter().any(|(start, end)| start < until && end > from))
        .map(|(row, _)| row)
        .collect())
}

/// The alerts of a computation.
pub async fn alerts_of(db: &Db, computation: &ComputationRow) -> AppResult<Vec<AlertRow>> {
    Ok(sqlx::query_as(sql::ALERTS_OF_DAY)
        .bind(computation.user_id)
        .bind(&computation.day)
        .bind(&computation.submitter_type)
        .fetch_all(db)
        .await?)
}

/// One alert.
pub async fn alert(db: &Db, id: i64) -> AppResult<Option<AlertRow>> {
    Ok(sqlx::query_as(sql::ALERT).bind(id).fetch_optional(db).await?)
}

/// Whether the EU driving-time checks (Roadlog extension) concern the worker: an accepted
/// employment in a company that opted in.
pub async fn eu_worker(db: &Db, user_id: i64) -> AppResult<bool> {
    let row: Option<(i64,)> = sqlx::query_as(sql::EU_WORKER).bind(user_id).fetch_optional(db).await?;
    Ok(row.is_some())
}
