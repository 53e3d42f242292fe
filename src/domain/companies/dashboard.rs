//! `Company.dashboardSummary`: the figures of an admin's home page, each one `COUNT` over the
//! company's rows, read in one statement (and one for the pending invitations' ids) whatever
//! the number of workers and missions.
//!
//! "Today" and "this week" are those of the requesting admin's time zone, turned into Unix
//! seconds here; the 30- and 31-day windows count back from the server's clock.

use chrono::{Days, Utc};

use crate::db::Db;
use crate::domain::auth::Actor;
use crate::domain::regulation::time::{day_end, day_start, week_start, zone};
use crate::errors::{AppError, AppResult};

use super::{date_text, permissions};

/// Running activities that began longer ago than this are not counted as active missions.
const ACTIVE_WINDOW_SECONDS: i64 = 30 * 24 * 3600;
/// Missions whose activities all began longer ago than this are not waiting for validation.
const PENDING_WINDOW_SECONDS: i64 = 31 * 24 * 3600;
/// A worker whose last activity is older than this many local days is not counted as inactive
/// today (they left, or are away).
const RECENTLY_ACTIVE_DAYS: u64 = 30;

/// The figures of `DashboardSummary`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DashboardSummary {
    pub active_missions: i64,
    pub pending_validations: i64,
    pub pending_invitation_ids: Vec<i64>,
    pub inactive_employees: i64,
    pub auto_validated_missions: i64,
    pub any_mission_this_week: bool,
}

/// Dashboard statements.
pub mod sql {
    crate::statements! {
        /// The counts of company `$1`. `$2`: start of the active window; `$3`: start of the
        /// pending-validation window; `$4`, `$5`: local today's start and end (Unix seconds);
        /// `$6`: local today (`YYYY-MM-DD`); `$7`: local midnight 30 days ago; `$8`: local
        /// Monday 00:00 of this week.
        pub const COUNTS: &str = "SELECT
             (SELECT COUNT(DISTINCT a.mission_id) FROM activities a JOIN missions m ON m.id = a.mission_id
               WHERE m.company_id = $1 AND a.dismissed_at IS NULL AND a.end_time IS NULL AND a.start_time >= $2),
             (SELECT COUNT(*) FROM missions m WHERE m.company_id = $1
               AND EXISTS (SELECT 1 FROM activities a WHERE a.mission_id = m.id AND a.dismissed_at IS NULL AND a.start_time >= $3)
               AND NOT EXISTS (SELECT 1 FROM activities a WHERE a.mission_id = m.id AND a.dismissed_at IS NULL
                     AND NOT EXISTS (SELECT 1 FROM mission_ends me WHERE me.mission_id = m.id AND me.user_id = a.user_id))
               AND EXISTS (SELECT 1 FROM mission_validations v WHERE v.mission_id = m.id AND v.is_admin = 0)
               AND NOT EXISTS (SELECT 1 FROM mission_validations v WHERE v.mission_id = m.id AND v.is_admin = 1)),
             (SELECT COUNT(DISTINCT e.user_id) FROM employments e
               WHERE e.company_id = $1 AND e.validation_status = 'approved' AND e.dismissed_at IS NULL
                 AND e.has_admin_rights = 0 AND e.user_id IS NOT NULL AND (e.end_date IS NULL OR e.end_date >= $6)
                 AND COALESCE((SELECT MAX(a.start_time) FROM activities a JOIN missions m ON m.id = a.mission_id
                               WHERE a.user_id = e.user_id AND m.company_id = $1 AND a.dismissed_at IS NULL),
                              e.validation_time, e.reception_time) >= $7
                 AND NOT EXISTS (SELECT 1 FROM activities a JOIN missions m ON m.id = a.mission_id
                     WHERE a.user_id = e.user_id AND m.company_id = $1 AND a.dismissed_at IS NULL AND a.start_time >= $4)),
             (SELECT COUNT(DISTINCT v.mission_id) FROM mission_validations v JOIN missions m ON m.id = v.mission_id
               WHERE m.company_id = $1 AND v.is_admin = 1 AND v.is_auto = 1 AND v.creation_time >= $4 AND v.creation_time < $5),
             (SELECT COUNT(*) FROM (SELECT 1 FROM activities a JOIN missions m ON m.id = a.mission_id
               WHERE m.company_id = $1 AND a.dismissed_at IS NULL AND a.start_time >= $8 LIMIT 1) w)";
        /// The pending, not dismissed invitations of company `$1`.
        pub const PENDING_INVITATIONS: &str = "SELECT id FROM employments
             WHERE company_id = $1 AND validation_status = 'pending' AND dismissed_at IS NULL ORDER BY id";
        /// The time zone of user `$1`.
        pub const ZONE: &str = "SELECT timezone_name FROM users WHERE id = $1";
    }
}

/// `Company.dashboardSummary`, for an admin of the company today.
pub async fn summary(db: &Db, actor: Actor, company_id: i64) -> AppResult<DashboardSummary> {
    if !permissions::is_admin(db, actor, company_id).await? {
        return Err(permissions::admin_only_field("dashboardSummary"));
    }
    let (zone_name,): (String,) = sqlx::query_as(sql::ZONE)
        .bind(actor.user_id)
        .fetch_optional(&db.pool)
        .await?
        .ok_or_else(|| AppError::internal("the admin's account vanished"))?;
    let tz = zone(&zone_name);
    let now = Utc::now();
    let today = now.with_timezone(&tz).date_naive();
    let month_ago = today.checked_sub_days(Days::new(RECENTLY_ACTIVE_DAYS)).unwrap_or(today);
    let (active, pending, inactive, auto, this_week): (i64, i64, i64, i64, i64) = sqlx::query_as(sql::COUNTS)
        .bind(company_id)
        .bind(now.timestamp() - ACTIVE_WINDOW_SECONDS)
        .bind(now.timestamp() - PENDING_WINDOW_SECONDS)
        .bind(day_start(tz, today))
        .bind(day_end(tz, today))
        .bind(date_text(today))
        .bind(day_start(tz, month_ago))
        .bind(week_start(tz, today))
        .fetch_one(&db.pool)
        .await?;
    let pending_invitation_ids: Vec<(i64,)> = sqlx::query_as(sql::PENDING_INVITATIONS)
        .bind(company_id)
        .fetch_all(&db.pool)
        .await?;
    Ok(DashboardSummary {
        active_missions: active,
        pending_validations: pending,
        pending_invitation_ids: pending_invitation_ids.into_iter().map(|(id,)| id).collect(),
        inactive_employees: inactive,
        auto_validated_missions: auto,
        any_mission_this_week: this_week > 0,
    })
}
