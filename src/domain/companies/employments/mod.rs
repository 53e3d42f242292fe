//! Employments: creating them under the primary/overlap rules, their life cycle (pending →
//! approved or rejected, cancelled, terminated), and listing them.
//!
//! Every change that can break a rule runs in a transaction that first locks the worker (see
//! [`crate::domain::workers`]): the rules then read committed state and cannot be raced.
//!
//! The life cycle, the changes made to an existing employment, is in `lifecycle`; ending
//! employments, one or a batch, in `terminate`; an employee's request to be detached in
//! `detachment`; attaching a former employee again in `reattach`; an admin putting off the
//! question of the company's number of workers in `snooze`.

pub mod accepted;
pub mod detachment;
mod lifecycle;
pub mod reattach;
pub mod snooze;
mod terminate;

use chrono::NaiveDate;
use sqlx::AnyConnection;

use crate::db::{Db, now};
use crate::domain::auth::Actor;
use crate::errors::{AppError, AppResult, Code};

use super::rules::{self, Held, Period};
use super::{date_text, parse_date, today};

pub use lifecycle::{answer, cancel, change_role, hide_email};
pub use terminate::{Ended, MAX_BATCH as MAX_TERMINATIONS, terminate, terminate_batch};

/// An employment as stored (with the user's e-mail when the employment has none of its own).
#[derive(sqlx::FromRow, Debug, Clone)]
pub struct EmploymentRow {
    pub id: i64,
    pub user_id: Option<i64>,
    pub company_id: i64,
    pub email: Option<String>,
    pub submitter_id: Option<i64>,
    pub reception_time: i64,
    pub validation_status: String,
    pub start_date: String,
    pub end_date: Option<String>,
    pub has_admin_rights: i64,
    pub is_primary: Option<i64>,
    pub dismissed_at: Option<i64>,
    /// The worker's last activity in the company, or when the employment began to count.
    pub last_active_at: i64,
    /// The team the worker belongs to through this employment.
    pub team_id: Option<i64>,
    /// The employee hides their e-mail from the company (0/1).
    pub hide_email: i64,
    /// When the latest invitation e-mail of the employment was queued.
    pub latest_invite_email_time: Option<i64>,
    /// The end of the worker's latest ended activity in the company (`Employment.lastActiveAt`).
    pub last_activity_end: Option<i64>,
    /// The day the admin last put off the question of the number of workers.
    pub nb_worker_info_snooze_date: Option<String>,
    /// The company's number of workers, when given.
    pub company_number_workers: Option<i64>,
}

/// How long `snoozeNbWorkerInfo` puts off the question of the number of workers.
pub const NB_WORKER_INFO_SNOOZE_DAYS: i64 = 15;

/// A worker without activity for this long is INACTIVE (the reference's rule).
pub const INACTIVE_AFTER_SECONDS: i64 = 90 * 24 * 3600;

/// The columns of [`EmploymentRow`], for `FROM employments e LEFT JOIN users u ON u.id = e.user_id`.
/// The e-mail is the one the company typed; the account's own address shows only once the user
/// accepted the employment (privacy before consent).
pub const SELECT: &str = "SELECT e.id, e.user_id, e.company_id, \
     CASE WHEN e.email IS NOT NULL THEN e.email WHEN e.validation_status = 'approved' THEN u.email END AS email, e.submitter_id, \
     e.reception_time, e.validation_status, e.start_date, e.end_date, e.has_admin_rights, e.is_primary, e.dismissed_at, \
     COALESCE((SELECT MAX(a.start_time) FROM activities a JOIN missions m ON m.id = a.mission_id \
               WHERE a.user_id = e.user_id AND m.company_id = e.company_id AND a.dismissed_at IS NULL), \
              e.validation_time, e.reception_time) AS last_active_at, e.team_id, e.hide_email, e.latest_invite_email_time, \
     (SELECT MAX(a.end_time) FROM activities a JOIN missions m ON m.id = a.mission_id \
      WHERE a.user_id = e.user_id AND m.company_id = e.company_id AND a.dismissed_at IS NULL) AS last_activity_end, \
     e.nb_worker_info_snooze_date, (SELECT c.number_workers FROM companies c WHERE c.id = e.company_id) AS company_number_workers \
     FROM employments e LEFT JOIN users u ON u.id = e.user_id";

impl EmploymentRow {
    /// `shouldForceNbWorkerInfo`: an admin who put off giving the company's number of workers
    /// [`NB_WORKER_INFO_SNOOZE_DAYS`] days ago or more, while the company still has none.
    pub fn should_force_nb_worker_info(&self, today: chrono::NaiveDate) -> bool {
        if self.company_number_workers.is_some_and(|n| n > 0) || self.has_admin_rights == 0 {
            return false;
        }
        self.nb_worker_info_snooze_date
            .as_deref()
            .and_then(parse_date)
            .is_some_and(|snoozed| (today - snoozed).num_days() >= NB_WORKER_INFO_SNOOZE_DAYS)
    }

    /// The reference's computed status.
    pub fn status(&self, today: &str) -> &'static str {
        if self.dismissed_at.is_some() {
            "DISMISSED"
        } else if self.validation_status == "rejected" {
            "REJECTED"
        } else if self.validation_status == "pending" {
            "PENDING"
        } else if self.end_date.as_deref().is_some_and(|end| end < today) {
            "TERMINATED"
        } else if self.has_admin_rights == 0 && self.last_active_at < now() - INACTIVE_AFTER_SECONDS {
            "INACTIVE"
        } else {
            "ACTIVE"
        }
    }

    /// Accepted, not cancelled.
    pub fn is_acknowledged(&self) -> bool {
        self.validation_status == "approved" && self.dismissed_at.is_none()
    }

    /// The reference's `isActive`: acknowledged and not ended before today.
    pub fn is_active(&self, today: &str) -> bool {
        self.is_acknowledged() && self.end_date.as_deref().is_none_or(|end| end >= today)
    }

    /// The reference's `isTerminated`: ended before today.
    pub fn is_terminated(&self, today: &str) -> bool {
        self.end_date.as_deref().is_some_and(|end| end < today)
    }
}

fn forbidden() -> AppError {
    AppError::authorization("Forbidden access")
}

/// Reads an employment.
pub async fn find(conn: &mut AnyConnection, id: i64) -> AppResult<Option<EmploymentRow>> {
    Ok(sqlx::query_as::<_, EmploymentRow>(sql::FIND)
        .bind(id)
        .fetch_optional(conn)
        .await?)
}

/// `(id, company_id, start_date, end_date, is_primary)` of an employment, for the rules.
pub(super) type HeldRow = (i64, i64, String, Option<String>, Option<i64>);

/// The user's employments that count for the rules: neither rejected nor dismissed.
pub(super) async fn held(conn: &mut AnyConnection, user_id: i64) -> AppResult<Vec<Held>> {
    let rows: Vec<HeldRow> = sqlx::query_as(
        "SELECT id, company_id, start_date, end_date, is_primary FROM employments
         WHERE user_id = $1 AND validation_status <> 'rejected' AND dismissed_at IS NULL",
    )
    .bind(user_id)
    .fetch_all(conn)
    .await?;
    Ok(rows
        .into_iter()
        .filter_map(|(id, company_id, start, end, primary)| {
            Some(Held {
                id,
                company_id,
                period: Period {
                    start: parse_date(&start)?,
                    end: end.as_deref().and_then(parse_date),
                },
                is_primary: primary == Some(1),
            })
        })
        .collect())
}

/// What a new employment is made of.
#[derive(Clone, Debug)]
pub struct NewEmployment {
    pub company_id: i64,
    pub period: Period,
    pub has_admin_rights: bool,
    pub is_primary: Option<bool>,
    pub status: &'static str,
    /// A team of the company (checked by the caller).
    pub team_id: Option<i64>,
}

/// Checks a requested period.
pub fn period(start: Option<NaiveDate>, end: Option<NaiveDate>) -> AppResult<Period> {
    let start = start.unwrap_or_else(today);
    if end.is_some_and(|end| end < start) {
        return Err(AppError::invalid_inputs("endDate must not be before startDate").with("field", "endDate"));
    }
    Ok(Period { start, end })
}

/// Creates an employment of an existing user, inside the caller's transaction, under the rules.
pub async fn insert_for_user(
    conn: &mut AnyConnection,
    user_id: i64,
    submitter_id: i64,
    new: &NewEmployment,
) -> AppResult<i64> {
    if !crate::domain::workers::lock_one(conn, user_id).await? {
        return Err(AppError::invalid_resource("Invalid user id").with("field", "userId"));
    }
    let existing = held(conn, user_id).await?;
    let primary = rules::admit(&existing, new.company_id, new.period, new.is_primary)?;
    let (id,): (i64,) = sqlx::query_as(
        "INSERT INTO employments (user_id, company_id, submitter_id, reception_time, validation_time, validation_status,
                                  start_date, end_date, has_admin_rights, is_primary, business_id, team_id)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, (SELECT business_id FROM companies WHERE id = $2), $11)
         RETURNING id",
    )
    .bind(user_id)
    .bind(new.company_id)
    .bind(submitter_id)
    .bind(now())
    .bind((new.status == "approved").then(now))
    .bind(new.status)
    .bind(date_text(new.period.start))
    .bind(new.period.end.map(date_text))
    .bind(i64::from(new.has_admin_rights))
    .bind(i64::from(primary))
    .bind(new.team_id)
    .fetch_one(&mut *conn)
    .await?;
    crate::domain::alerts::store::share_with_company(conn, user_id, new.company_id).await?;
    Ok(id)
}

/// Employment statements: the shared column list followed by one condition each.
pub mod sql {
    use super::SELECT;
    use const_format::concatcp;

    crate::statements! {
        pub const FIND: &str = concatcp!(SELECT, " WHERE e.id = $1");
        /// The invitation e-mail of employment `$1` was queued at `$2`.
        pub const INVITED: &str = "UPDATE employments SET latest_invite_email_time = $2 WHERE id = $1";
        /// `updateHideEmail`: employment `$1` of user `$2`.
        pub const HIDE_EMAIL: &str = "UPDATE employments SET hide_email = $3 WHERE id = $1 AND user_id = $2";
        /// `$1` company.
        pub const OF_COMPANY: &str = concatcp!(SELECT, " WHERE e.company_id = $1 AND e.dismissed_at IS NULL", ORDER);
        /// `$1` user, `$2` today.
        pub const CURRENT_OF_USER: &str = concatcp!(
            SELECT,
            " WHERE e.user_id = $1 AND e.validation_status <> 'rejected' AND e.dismissed_at IS NULL \
              AND e.start_date <= $2 AND (e.end_date IS NULL OR e.end_date >= $2)",
            ORDER
        );
        /// `$1` user, `$2`..`$3` the period, `$4` the second accepted status (`pending` to include
        /// invitations, `approved` otherwise).
        pub const OF_USER: &str = concatcp!(
            SELECT,
            " WHERE e.user_id = $1 AND e.dismissed_at IS NULL AND e.validation_status IN ('approved', $4) \
              AND e.start_date <= $3 AND (e.end_date IS NULL OR e.end_date >= $2)",
            ORDER
        );
    }
    const ORDER: &str = " ORDER BY e.start_date DESC, e.id DESC";
}

/// The company's employments, dismissed ones excluded; `latest_per_user` keeps each person's
/// most recent one.
pub async fn of_company(db: &Db, company_id: i64, latest_per_user: bool) -> AppResult<Vec<EmploymentRow>> {
    let rows = sqlx::query_as::<_, EmploymentRow>(sql::OF_COMPANY)
        .bind(company_id)
        .fetch_all(db)
        .await?;
    if !latest_per_user {
        return Ok(rows);
    }
    let mut seen = std::collections::HashSet::new();
    Ok(rows
        .into_iter()
        .filter(|r| seen.insert(r.user_id.map(|u| u.to_string()).or_else(|| r.email.clone())))
        .collect())
}

/// The actor's employments covering today, pending invitations included (only the company of
/// their scope's when they are confined to one).
pub async fn current_of_user(db: &Db, actor: Actor) -> AppResult<Vec<EmploymentRow>> {
    let rows = sqlx::query_as::<_, EmploymentRow>(sql::CURRENT_OF_USER)
        .bind(actor.user_id)
        .bind(date_text(today()))
        .fetch_all(db)
        .await?;
    Ok(actor.scope.keep(rows, |e| e.company_id))
}

/// The actor's accepted (and optionally pending) employments overlapping a period (only the
/// company of their scope's when they are confined to one).
pub async fn of_user(
    db: &Db,
    actor: Actor,
    from: Option<NaiveDate>,
    until: Option<NaiveDate>,
    include_pending: bool,
) -> AppResult<Vec<EmploymentRow>> {
    let rows = sqlx::query_as::<_, EmploymentRow>(sql::OF_USER)
        .bind(actor.user_id)
        .bind(from.map(date_text).unwrap_or_else(|| "0000-01-01".into()))
        .bind(until.map(date_text).unwrap_or_else(|| "9999-12-31".into()))
        .bind(if include_pending { "pending" } else { "approved" })
        .fetch_all(db)
        .await?;
    Ok(actor.scope.keep(rows, |e| e.company_id))
}

/// Maps a rules error of one item of a batch so that the client knows which item failed.
pub fn for_item(error: AppError, index: usize) -> AppError {
    if error.code == Code::InternalError {
        error
    } else {
        error.with("itemIndex", index as i64)
    }
}

/// Whom a new employment is for.
#[derive(Clone, Debug)]
pub enum Target {
    User(i64),
    Email(String),
}
