//! When alerts are computed: when a mission is validated (by the worker: the
//! `employee` computation; by an admin: the `admin` one), when an admin cancels a worker's
//! mission, and when the operator rebuilds a company's period. Each recomputation runs in the
//! transaction of what triggered it, with the worker locked.

use chrono::{Duration, NaiveDate};
use sqlx::AnyConnection;

use crate::db::{Db, now};
use crate::domain::companies::{business, date_text, today};
use crate::domain::regulation::business::BusinessType;
use crate::domain::regulation::checks::SubmitterType;
use crate::domain::regulation::compute::{self, Input};
use crate::domain::regulation::time;
use crate::errors::{AppError, AppResult};

use super::{load, store};

pub mod sql {
    crate::statements! {
        /// The worker's counted activities in the mission: first start, last end, running ones.
        pub const SPAN: &str = "SELECT MIN(start_time), MAX(COALESCE(end_time, start_time)), COUNT(*) - COUNT(end_time) \
             FROM activities WHERE mission_id = $1 AND user_id = $2 AND dismissed_at IS NULL AND type <> 'off'";
        /// When the worker last validated the mission himself.
        pub const OWN_VALIDATION: &str = "SELECT MAX(reception_time) FROM mission_validations \
             WHERE mission_id = $1 AND user_id = $2 AND submitter_id = $2";
        /// The span of the worker's activities in the mission as known at `$3`.
        pub const SPAN_AT: &str = "SELECT MIN(v.start_time), MAX(COALESCE(v.end_time, v.start_time)) \
             FROM activity_versions v JOIN activities a ON a.id = v.activity_id \
             WHERE a.mission_id = $1 AND a.user_id = $2 AND a.type <> 'off' AND v.reception_time <= $3";
        pub const EU_CHECKS: &str = "SELECT eu_driving_checks FROM companies WHERE id = $1";
        /// The workers of a company over a period (accepted employments).
        pub const WORKERS: &str = "SELECT DISTINCT user_id FROM employments WHERE company_id = $1 AND user_id IS NOT NULL \
             AND validation_status = 'approved' AND dismissed_at IS NULL AND start_date <= $3 \
             AND (end_date IS NULL OR end_date >= $2) ORDER BY user_id";
    }
}

/// What one recomputation wrote.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Written {
    pub computed_days: usize,
    pub alerts: usize,
}

/// Whether the company opted in to the EU driving-time checks.
pub async fn eu_checks(conn: &mut AnyConnection, company_id: i64) -> AppResult<bool> {
    let row: Option<(i64,)> = sqlx::query_as(sql::EU_CHECKS)
        .bind(company_id)
        .fetch_optional(conn)
        .await?;
    Ok(row.is_some_and(|r| r.0 == 1))
}

/// The settings of one recomputation: the business of the worker and the EU opt-in of the
/// company whose event triggered it.
#[derive(Clone, Copy, Debug)]
pub struct Rules {
    pub business: BusinessType,
    pub eu_driving_checks: bool,
}

impl Rules {
    /// The rules of `user_id` working for `company_id`.
    pub async fn of(conn: &mut AnyConnection, user_id: i64, company_id: i64) -> AppResult<Rules> {
        Ok(Rules {
            business: business::for_worker(conn, user_id, company_id).await?,
            eu_driving_checks: eu_checks(conn, company_id).await?,
        })
    }
}

/// Recomputes the worker's `from..=to` for `submitter` (with the day before, and whole weeks);
/// the companies' day counts change by `counts`, which the caller writes.
async fn recompute(
    conn: &mut AnyConnection,
    counts: &mut store::DayCounts,
    user_id: i64,
    submitter: SubmitterType,
    rules: Rules,
    from: NaiveDate,
    to: NaiveDate,
) -> AppResult<Written> {
    let business = rules.business;
    let tz = load::zone(conn, user_id).await?;
    let (load_from, load_until) = compute::load_range(from, to);
    let missions = load::missions(conn, tz, user_id, submitter, load_from, load_until).await?;
    let computation = compute::compute(&Input {
        tz,
        business,
        missions: &missions,
        period_start: from,
        period_end: to,
        today: today(),
        now: now(),
        eu_driving_checks: rules.eu_driving_checks,
    });
    store::save(conn, counts, user_id, submitter, business, &computation).await?;
    Ok(Written {
        computed_days: computation.computed.len(),
        alerts: computation.alerts.len(),
    })
}

fn utc_date(t: i64) -> NaiveDate {
    crate::domain::missions::date_of(t)
}

/// After `validateMission` recorded its validations: for each validated worker, the admin
/// computation (`by_admin`) or the worker's own, over the local dates of the worker's time in the
/// mission; an admin's also covers the dates of the version the worker had validated.
pub async fn after_validation(
    conn: &mut AnyConnection,
    mission_id: i64,
    company_id: i64,
    users: &[i64],
    by_admin: bool,
) -> AppResult<()> {
    let mut counts = store::DayCounts::new();
    for user in users {
        let (start, end, running): (Option<i64>, Option<i64>, i64) = sqlx::query_as(sql::SPAN)
            .bind(mission_id)
            .bind(*user)
            .fetch_one(&mut *conn)
            .await?;
        // Nothing but holidays (`off`): no computation.
        let (Some(start), Some(end)) = (start, end) else {
            continue;
        };
        let tz = load::zone(conn, *user).await?;
        let mut from = time::local_date(tz, start);
        let mut to = if running > 0 {
            today()
        } else {
            time::local_date(tz, end)
        };
        let submitter = if by_admin {
            SubmitterType::Admin
        } else {
            SubmitterType::Employee
        };
        if by_admin {
            let (validated,): (Option<i64>,) = sqlx::query_as(sql::OWN_VALIDATION)
                .bind(mission_id)
                .bind(*user)
                .fetch_one(&mut *conn)
                .await?;
            if let Some(validated) = validated {
                let (old_start, old_end): (Option<i64>, Option<i64>) = sqlx::query_as(sql::SPAN_AT)
                    .bind(mission_id)
                    .bind(*user)
                    .bind(validated)
                    .fetch_one(&mut *conn)
                    .await?;
                if let Some(s) = old_start {
                    from = from.min(utc_date(s));
                }
                if let Some(e) = old_end {
                    to = to.max(utc_date(e));
                }
            }
        }
        let rules = Rules::of(conn, *user, company_id).await?;
        recompute(conn, &mut counts, *user, submitter, rules, from, to).await?;
    }
    counts.write(conn).await
}

/// After a company admin cancelled `worker`'s time in a mission of `company_id` that ran from
/// `start` to `end` (`None`: running): the admin computation of those dates.
pub async fn after_cancel(
    conn: &mut AnyConnection,
    company_id: i64,
    worker: i64,
    start: i64,
    end: Option<i64>,
) -> AppResult<()> {
    let tz = load::zone(conn, worker).await?;
    let from = time::local_date(tz, start);
    let to = end.map(|e| time::local_date(tz, e)).unwrap_or_else(today);
    let rules = Rules::of(conn, worker, company_id).await?;
    let mut counts = store::DayCounts::new();
    recompute(conn, &mut counts, worker, SubmitterType::Admin, rules, from, to).await?;
    counts.write(conn).await
}

/// Longest period the operator rebuilds at once.
pub const MAX_REBUILD_DAYS: i64 = 366;

/// What `roadlog regulation rebuild` did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct RebuildReport {
    pub workers: usize,
    pub computed_days: usize,
    pub alerts: usize,
}

/// Workers recomputed per transaction by the rebuild: a commit per worker would be a log sync
/// per worker; a few workers per transaction keep each transaction short (the workers' locks,
/// and SQLite's single writer, are held for a few workers' computations, not for the whole
/// rebuild).
pub const REBUILD_WORKERS_PER_TRANSACTION: usize = 16;

/// Recomputes both submitter types for every worker of the company over `from..=to`, a few
/// workers per transaction (locked in id order); running it again gives the same rows.
pub async fn rebuild(db: &Db, company_id: i64, from: NaiveDate, to: NaiveDate) -> AppResult<RebuildReport> {
    if to < from {
        return Err(AppError::invalid_inputs("--to must not be before --from"));
    }
    if to - from >= Duration::days(MAX_REBUILD_DAYS) {
        return Err(AppError::invalid_inputs(format!(
            "a rebuild covers at most {MAX_REBUILD_DAYS} days: split the period"
        )));
    }
    let (exists,): (i64,) = sqlx::query_as("SELECT COUNT(*) FROM companies WHERE id = $1")
        .bind(company_id)
        .fetch_one(db)
        .await?;
    if exists == 0 {
        return Err(AppError::invalid_resource(format!("no company {company_id}")));
    }
    let workers: Vec<(i64,)> = sqlx::query_as(sql::WORKERS)
        .bind(company_id)
        .bind(date_text(from))
        .bind(date_text(to))
        .fetch_all(db)
        .await?;
    let workers: Vec<i64> = workers.into_iter().map(|(user,)| user).collect();
    let mut report = RebuildReport::default();
    let (load_from, load_until) = compute::load_range(from, to);
    let (days, weeks) = compute::replaced(from, to);
    for chunk in workers.chunks(REBUILD_WORKERS_PER_TRANSACTION) {
        let mut tx = db.begin_write().await?;
        crate::domain::workers::lock(&mut tx, chunk).await?;
        // What the chunk's computations read, in a few statements for all its workers and both
        // sides rather than a few per worker and side.
        let eu_driving_checks = eu_checks(&mut tx, company_id).await?;
        let zones = load::zones(&mut tx, chunk).await?;
        let businesses = business::for_workers(&mut tx, chunk, company_id).await?;
        let mut missions = load::missions_of_workers(&mut tx, &zones, load_from, load_until).await?;
        let mut stored = store::existing(&mut tx, chunk, days, weeks).await?;
        let mut counts = store::DayCounts::new();
        let mut jobs = Vec::with_capacity(chunk.len() * 2);
        for &user in chunk {
            for submitter in [SubmitterType::Employee, SubmitterType::Admin] {
                jobs.push(Job {
                    user,
                    submitter,
                    tz: zones.get(&user).copied().unwrap_or(chrono_tz::Europe::Paris),
                    business: businesses.get(&user).copied().unwrap_or(BusinessType::DEFAULT),
                    missions: missions.remove(&(user, submitter)).unwrap_or_default(),
                });
            }
        }
        for (job, computation, prepared) in compute_all(jobs, from, to, eu_driving_checks).await? {
            let old = stored.remove(&(job.user, job.submitter)).unwrap_or_default();
            report.computed_days += computation.computed.len();
            report.alerts += computation.alerts.len();
            let whose = (job.user, job.submitter, job.business);
            store::apply(&mut tx, &mut counts, whose, &computation, prepared, old).await?;
        }
        counts.write(&mut tx).await?;
        report.workers += chunk.len();
        tx.commit().await?;
    }
    Ok(report)
}

/// One computation of the rebuild, with what it reads.
struct Job {
    user: i64,
    submitter: SubmitterType,
    tz: chrono_tz::Tz,
    business: BusinessType,
    missions: Vec<crate::domain::regulation::workdays::Mission>,
}

/// Runs the computations (pure: the rules, the explanations, their digests) on every core, off
/// the async threads, and gives them back in their order.
async fn compute_all(
    jobs: Vec<Job>,
    from: NaiveDate,
    to: NaiveDate,
    eu_driving_checks: bool,
) -> AppResult<Vec<(Job, compute::Computation, store::Prepared)>> {
    let (today, now) = (today(), now());
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let per_core = jobs.len().div_ceil(cores).max(1);
    let mut jobs = jobs.into_iter();
    let mut parts = Vec::new();
    loop {
        let part: Vec<Job> = jobs.by_ref().take(per_core).collect();
        if part.is_empty() {
            break;
        }
        parts.push(tokio::task::spawn_blocking(move || {
            part.into_iter()
                .map(|job| {
                    let computation = compute::compute(&Input {
                        tz: job.tz,
                        business: job.business,
                        missions: &job.missions,
                        period_start: from,
                        period_end: to,
                        today,
                        now,
                        eu_driving_checks,
                    });
                    let prepared = store::prepare(&computation, job.business)?;
                    Ok((job, computation, prepared))
                })
                .collect::<AppResult<Vec<_>>>()
        }));
    }
    let mut done = Vec::new();
    for part in parts {
        let part = part
            .await
            .map_err(|e| AppError::internal(format!("a computation of the rebuild failed: {e}")))??;
        done.extend(part);
    }
    Ok(done)
}
