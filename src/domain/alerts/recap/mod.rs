//! A company's alerts for admins: `regulatoryAlertsRecap`, a period's admin alerts of the
//! company's current workers by kind, and `adminRegulationComputationsByUserAndByDay`.
//!
//! A recap of all the company's current workers without the day details (the common request)
//! is one statement: its head (the admin's permission, the company's settings, whether any
//! admin computation is dated in the period), the company's day counts (`company_alert_days`)
//! less the month rows of the workers who are not current, and the previous month's total. Any
//! other recap reads its head (the permission, the workers, the settings and the previous
//! month's total) in one statement, then its lines: for a team or a worker, their month rows
//! (`company_alert_months`) added up per day (one); with the day details, the alerts
//! themselves, a line per worker and day, and then the workers' names and other companies (two
//! more). However many workers the company has.

mod admin_days;
mod details;
mod groups;
mod lines;
pub mod sql;

use chrono::{Datelike, Months, NaiveDate};

use crate::db::{Db, id_list};
use crate::domain::auth::Actor;
use crate::domain::companies::{date_text, permissions, today};
use crate::errors::{AppError, AppResult};

pub use admin_days::{AdminDay, admin_days};

/// `RegulatoryAlertsSummary`.
#[derive(Debug, Clone, Default)]
pub struct Summary {
    pub has_any_computation: bool,
    pub month: NaiveDate,
    pub total: i64,
    pub total_previous_month: i64,
    pub daily: Vec<Group>,
    pub weekly: Vec<Group>,
}

/// `AlertsGroup`.
#[derive(Debug, Clone, Default)]
pub struct Group {
    pub alerts_type: String,
    pub nb_alerts: i64,
    pub days: Vec<NaiveDate>,
    pub details: Vec<Detail>,
}

/// `AlertDayDetail`.
#[derive(Debug, Clone)]
pub struct Detail {
    pub day: NaiveDate,
    pub user_name: String,
    pub user_id: i64,
    pub other_company_relation: Option<&'static str>,
}

/// What `regulatoryAlertsRecap` receives.
pub struct RecapQuery {
    pub company_id: i64,
    pub month: NaiveDate,
    pub unique_user_id: Option<i64>,
    pub team_id: Option<i64>,
    pub from: Option<NaiveDate>,
    pub to: Option<NaiveDate>,
    /// Whether `dayDetails` are read: without them, the alerts are counted per day and kind
    /// only, and no name or other company is looked up.
    pub with_details: bool,
}

/// The days a recap covers: `[from, to)`, the month asked for unless a period is, and the
/// month before (whose total the recap gives) when no period is.
struct Period {
    month: NaiveDate,
    from: NaiveDate,
    to: NaiveDate,
    previous: Option<NaiveDate>,
}

impl Period {
    fn of(query: &RecapQuery) -> Period {
        let month = query.month.with_day(1).unwrap_or(query.month);
        let (from, to, previous) = match (query.from, query.to) {
            (Some(from), Some(to)) => (from, to, None),
            _ => (month, month + Months::new(1), Some(month - Months::new(1))),
        };
        Period {
            month,
            from,
            to,
            previous,
        }
    }
}

/// The row of [`sql::RECAP`].
#[derive(sqlx::FromRow)]
struct Head {
    workers: i64,
    computed: i64,
    siren: String,
    eu_driving_checks: i64,
    previous_total: i64,
}

/// The workers a recap is confined to: a team's current workers (a team of another company, or
/// none, has none), or the one worker asked for; none when it covers all the company's current
/// workers.
async fn confined(db: &Db, query: &RecapQuery) -> AppResult<Option<Vec<i64>>> {
    Ok(match (query.team_id, query.unique_user_id) {
        (None, None) => None,
        (None, Some(unique)) => Some(vec![unique]),
        (Some(team), unique) => {
            let mut team = crate::domain::teams::current_workers(db, query.company_id, team).await?;
            if let Some(unique) = unique {
                team.retain(|&u| u == unique);
            }
            Some(team)
        }
    })
}

/// `Company.regulatoryAlertsRecap`, for a company admin.
pub async fn recap(db: &Db, actor: Actor, query: RecapQuery) -> AppResult<Summary> {
    if !actor.scope.allows(query.company_id) {
        return Err(permissions::admin_only_field("regulatoryAlertsRecap"));
    }
    let today = date_text(today());
    let period = Period::of(&query);
    let empty = || Summary {
        month: period.month,
        ..Summary::default()
    };
    // All the current workers without details, the common request: one statement.
    if query.team_id.is_none() && query.unique_user_id.is_none() && !query.with_details {
        let before = period.previous.unwrap_or(period.from);
        let company = lines::per_day_of_company(
            db,
            (query.company_id, actor.user_id),
            &today,
            (before, period.from, period.to),
        )
        .await?;
        let Some(head) = company.head else {
            return Err(permissions::admin_only_field("regulatoryAlertsRecap"));
        };
        if !head.computed {
            return Ok(empty());
        }
        return Ok(summary(
            &period,
            &company.lines,
            company.total_before,
            head.eu_driving_checks,
            None,
        ));
    }
    let confined = confined(db, &query).await?.as_deref().map(id_list);
    let head: Option<Head> = sqlx::query_as(db.sql(sql::RECAP))
        .bind(query.company_id)
        .bind(today.as_str())
        .bind(confined.as_deref())
        .bind(actor.user_id)
        .bind(date_text(period.from))
        .bind(date_text(period.to))
        .bind(period.previous.map(lines::month_text))
        .fetch_optional(db)
        .await?;
    let Some(head) = head else {
        return Err(permissions::admin_only_field("regulatoryAlertsRecap"));
    };
    // Confined to one worker, the recap has them when that worker is a current one.
    if query.unique_user_id.is_some() && head.workers == 0 {
        return Err(AppError::authorization(
            "Forbidden access: the user is not a current worker of the team or of the company",
        ));
    }
    if head.computed == 0 {
        return Ok(empty());
    }
    let workers = lines::Workers {
        company_id: query.company_id,
        today: &today,
        confined: confined.as_deref(),
    };
    let span = (period.from, period.to);
    let lines = if query.with_details {
        lines::per_worker(db, &workers, span).await?
    } else {
        lines::per_day(db, &workers, span).await?
    };
    let details = if query.with_details {
        Some(details::Details::read(db, query.company_id, &head.siren, &lines).await?)
    } else {
        None
    };
    Ok(summary(
        &period,
        &lines,
        head.previous_total,
        head.eu_driving_checks == 1,
        details.as_ref(),
    ))
}

/// The summary of a period's lines.
fn summary(
    period: &Period,
    lines: &[lines::AlertLine],
    total_previous_month: i64,
    eu_driving_checks: bool,
    details: Option<&details::Details>,
) -> Summary {
    let kinds = groups::sorted(lines, eu_driving_checks, period.from);
    Summary {
        has_any_computation: true,
        month: period.month,
        total: lines::total(lines),
        total_previous_month,
        daily: groups::built(kinds.daily, details),
        weekly: groups::built(kinds.weekly, details),
    }
}
