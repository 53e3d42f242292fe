//! When notifications are written (the reference service's triggers), in the transaction of what causes them:
//!
//! - an admin's manual validation (`validateMission`) of a worker who is admin of no company:
//!   `new_mission_by_admin` when the worker never acted on the mission (no validation of his own,
//!   no activity he recorded, changed or cancelled) and has time in it; otherwise
//!   `mission_changes_warning` when his time was changed by others after his last action (his
//!   validation, else his last change) and its start, end or work duration differ from what it
//!   was then;
//! - the worker-side automatic validation: `mission_auto_validation`.
//!
//! `mission_start_date` is the local time (the worker's time zone, no offset) of the start of
//! the worker's time in the mission (before the changes, for a warning).

use serde_json::json;
use sqlx::AnyConnection;

use crate::domain::alerts::load;
use crate::domain::companies::{date_text, today};
use crate::domain::kinds::NotificationType;
use crate::domain::regulation::time;
use crate::errors::AppResult;

use super::create;
use super::outcome::{Outcome, measures};

pub mod sql {
    crate::statements! {
        /// Whether the user is an admin of some company today (`$2` today).
        pub const ADMIN_SOMEWHERE: &str = "SELECT COUNT(*) FROM employments WHERE user_id = $1 \
             AND validation_status = 'approved' AND dismissed_at IS NULL AND has_admin_rights = 1 \
             AND start_date <= $2 AND (end_date IS NULL OR end_date >= $2)";
        /// The user's last validation of the mission, by himself.
        pub const OWN_VALIDATION: &str = "SELECT MAX(reception_time) FROM mission_validations \
             WHERE mission_id = $1 AND user_id = $2 AND submitter_id = $2";
        /// The user's last change to his time in the mission (a version or a cancellation).
        pub const OWN_CHANGE: &str = "SELECT MAX(t) FROM ( \
             SELECT v.reception_time AS t FROM activity_versions v JOIN activities a ON a.id = v.activity_id \
             WHERE a.mission_id = $1 AND a.user_id = $2 AND v.submitter_id = $2 \
             UNION ALL SELECT a.dismissed_at AS t FROM activities a \
             WHERE a.mission_id = $1 AND a.user_id = $2 AND a.dismiss_author_id = $2) changes";
        /// The user's current time in the mission.
        pub const CURRENT: &str = "SELECT type, start_time, end_time FROM activities \
             WHERE mission_id = $1 AND user_id = $2 AND dismissed_at IS NULL";
        /// The user's time in the mission as it was at `$3`.
        pub const AS_OF: &str = "SELECT a.type, v.start_time, v.end_time FROM activities a \
             JOIN activity_versions v ON v.activity_id = a.id \
             WHERE a.mission_id = $1 AND a.user_id = $2 AND a.reception_time <= $3 \
               AND (a.dismissed_at IS NULL OR a.dismissed_at > $3) \
               AND v.version_number = (SELECT MAX(w.version_number) FROM activity_versions w \
                                       WHERE w.activity_id = a.id AND w.reception_time <= $3)";
        /// Whether the user's time in the mission changed after `$3`.
        pub const CHANGED_AFTER: &str = "SELECT COUNT(*) FROM activities WHERE mission_id = $1 AND user_id = $2 \
             AND (last_update_time > $3 OR reception_time > $3 OR dismissed_at > $3)";
        pub const MISSION_NAME: &str = "SELECT name FROM missions WHERE id = $1";
    }
}

async fn local_start(conn: &mut AnyConnection, user_id: i64, start: i64) -> AppResult<String> {
    let tz = load::zone(conn, user_id).await?;
    Ok(time::local_datetime(tz, start).format("%Y-%m-%dT%H:%M:%S").to_string())
}

/// After `validateMission` by `admin`, an admin of the mission's company, for each validated
/// worker: the notification (for a worker who is admin of no company, as the reference) and the
/// e-mail (for every worker but the admin himself, as the reference: see `mails`).
pub async fn after_admin_validation(
    conn: &mut AnyConnection,
    mission_id: i64,
    users: &[i64],
    admin: i64,
    at: i64,
    public_url: &str,
) -> AppResult<()> {
    for &user in users {
        let Some(outcome) = outcome(conn, mission_id, user, at).await? else {
            continue;
        };
        let (admin_somewhere,): (i64,) = sqlx::query_as(sql::ADMIN_SOMEWHERE)
            .bind(user)
            .bind(date_text(today()))
            .fetch_one(&mut *conn)
            .await?;
        if admin_somewhere == 0 {
            let (kind, start) = match &outcome {
                Outcome::New { now, .. } => (NotificationType::NewMissionByAdmin, now.start),
                Outcome::Changed { then, now, .. } => {
                    (NotificationType::MissionChangesWarning, then.start.or(now.start))
                }
            };
            let start = local_start(conn, user, start.unwrap_or(at)).await?;
            let data = json!({ "mission_id": mission_id, "mission_start_date": start });
            create(conn, user, kind, &data).await?;
        }
        if user != admin {
            super::mails::tell(conn, mission_id, user, admin, &outcome, at, public_url).await?;
        }
    }
    Ok(())
}

/// Whether the worker's time in the mission is new to them or changed since their last action
/// (`None`: neither, nothing to tell).
async fn outcome(conn: &mut AnyConnection, mission_id: i64, user: i64, at: i64) -> AppResult<Option<Outcome>> {
    let current: Vec<(String, i64, Option<i64>)> = sqlx::query_as(sql::CURRENT)
        .bind(mission_id)
        .bind(user)
        .fetch_all(&mut *conn)
        .await?;
    if current.is_empty() {
        return Ok(None);
    }
    let holiday = current.iter().any(|(kind, _, _)| kind == "off");
    let (validated,): (Option<i64>,) = sqlx::query_as(sql::OWN_VALIDATION)
        .bind(mission_id)
        .bind(user)
        .fetch_one(&mut *conn)
        .await?;
    let last_action = match validated {
        Some(t) => Some(t),
        None => {
            let (changed,): (Option<i64>,) = sqlx::query_as(sql::OWN_CHANGE)
                .bind(mission_id)
                .bind(user)
                .fetch_one(&mut *conn)
                .await?;
            changed
        }
    };
    let now = measures(&current, at);
    let Some(last_action) = last_action else {
        return Ok(Some(Outcome::New { now, holiday }));
    };
    let (changes,): (i64,) = sqlx::query_as(sql::CHANGED_AFTER)
        .bind(mission_id)
        .bind(user)
        .bind(last_action)
        .fetch_one(&mut *conn)
        .await?;
    if changes == 0 {
        return Ok(None);
    }
    let before: Vec<(String, i64, Option<i64>)> = sqlx::query_as(sql::AS_OF)
        .bind(mission_id)
        .bind(user)
        .bind(last_action)
        .fetch_all(&mut *conn)
        .await?;
    let then = measures(&before, at);
    Ok((then != now).then_some(Outcome::Changed { then, now, holiday }))
}

/// After the worker-side automatic validation of `user`'s time in the mission.
pub async fn after_auto_validation(conn: &mut AnyConnection, mission_id: i64, user: i64) -> AppResult<()> {
    let current: Vec<(String, i64, Option<i64>)> = sqlx::query_as(sql::CURRENT)
        .bind(mission_id)
        .bind(user)
        .fetch_all(&mut *conn)
        .await?;
    let Some(start) = current.iter().map(|a| a.1).min() else {
        return Ok(());
    };
    let (name,): (Option<String>,) = sqlx::query_as(sql::MISSION_NAME)
        .bind(mission_id)
        .fetch_one(&mut *conn)
        .await?;
    let start = local_start(conn, user, start).await?;
    let data = json!({ "mission_id": mission_id, "mission_start_date": start, "mission_name": name });
    create(conn, user, NotificationType::MissionAutoValidation, &data).await
}
