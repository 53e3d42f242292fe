//! `User.hadEnoughBreakLastMission`: whether the mission the user last validated
//! himself passed the break check of his own (`employee`) computations.

use crate::db::Db;
use crate::domain::activities::rules::OPEN;
use crate::domain::companies::date_text;
use crate::domain::regulation::time::{self, local_date};
use crate::errors::AppResult;

/// Statements.
pub mod sql {
    crate::statements! {
        /// The span of the mission of user `$1`'s latest validation as its submitter, and the
        /// user's time zone.
        pub const LAST_VALIDATED: &str = "SELECT m.start_time, m.end_time, u.timezone_name \
             FROM mission_validations v JOIN missions m ON m.id = v.mission_id JOIN users u ON u.id = v.submitter_id \
             WHERE v.submitter_id = $1 ORDER BY v.reception_time DESC, v.id DESC LIMIT 1";
        /// An `employee` break alert of user `$1` with too few breaks, between days `$2` and `$3`.
        pub const BREAK_ALERT: &str = "SELECT 1 FROM regulatory_alerts \
             WHERE user_id = $1 AND submitter_type = 'employee' AND check_type = 'enoughBreak' \
               AND not_enough_break = 1 AND day >= $2 AND day <= $3 LIMIT 1";
    }
}

/// True when the user validated no mission, or the mission has no start or end yet; otherwise
/// false when an `employee` `enoughBreak` alert with too few breaks falls on one of its local days.
pub async fn had_enough_break(db: &Db, user_id: i64) -> AppResult<bool> {
    let last: Option<(Option<i64>, Option<i64>, String)> = sqlx::query_as(sql::LAST_VALIDATED)
        .bind(user_id)
        .fetch_optional(db)
        .await?;
    let Some((Some(start), Some(end), zone)) = last else {
        return Ok(true);
    };
    if end == OPEN {
        return Ok(true);
    }
    let tz = time::zone(&zone);
    let alert: Option<(i64,)> = sqlx::query_as(sql::BREAK_ALERT)
        .bind(user_id)
        .bind(date_text(local_date(tz, start)))
        .bind(date_text(local_date(tz, end)))
        .fetch_optional(db)
        .await?;
    Ok(alert.is_none())
}
