//! Ending a mission and validating it: the worker validates first, then an
//! admin; a validation locks the mission for non-admins (see `permissions`).

use serde_json::json;
use sqlx::AnyConnection;

use crate::db::{is_unique_violation, now};
use crate::domain::activities::rules::{not_in_future, to_minute};
use crate::domain::activities::store::add_version;
use crate::domain::auth::Actor;
use crate::domain::kinds::ValidationJustification;
use crate::errors::{AppError, AppResult, Code};

use super::{auto_validation, permissions};

/// A validation as stored.
#[derive(sqlx::FromRow, Debug, Clone)]
pub struct ValidationRow {
    pub id: i64,
    pub mission_id: i64,
    pub is_admin: i64,
    pub is_auto: i64,
    pub justification: Option<String>,
    pub context: Option<String>,
    pub user_id: Option<i64>,
    pub submitter_id: Option<i64>,
    pub reception_time: i64,
}

pub mod sql {
    crate::statements! {
        /// The automatic validations of the worker's time in the mission: (worker side, admin side).
        pub const AUTO_VALIDATIONS: &str = "SELECT COUNT(CASE WHEN is_admin = 0 THEN 1 END), \
             COUNT(CASE WHEN is_admin = 1 THEN 1 END) FROM mission_validations \
             WHERE mission_id = $1 AND user_id = $2 AND is_auto = 1";
    }
}

crate::statements! {
    /// The validations of the missions.
    pub const OF_MISSIONS: crate::db::PerBackend = crate::per_backend!(
        "SELECT id, mission_id, is_admin, is_auto, justification, context, user_id, submitter_id, reception_time \
         FROM mission_validations WHERE ",
        ["mission_id" in 1],
        " ORDER BY id"
    );
}

/// `endMission`: closes the worker's running activity at `end` and records the end.
pub async fn end_mission(
    conn: &mut AnyConnection,
    actor: Actor,
    mission_id: i64,
    end: i64,
    user_id: Option<i64>,
) -> AppResult<()> {
    let received = now();
    let end = to_minute(end);
    not_in_future(end, received, "End")?;
    let for_user = user_id.unwrap_or(actor.user_id);
    permissions::writable(conn, actor, mission_id, for_user, end, None).await?;
    let existing: Option<MissionEnd> = sqlx::query_as(
        "SELECT e.end_time, u.id AS submitter_id, u.first_name, u.last_name
         FROM mission_ends e LEFT JOIN users u ON u.id = e.submitter_id WHERE e.mission_id = $1 AND e.user_id = $2",
    )
    .bind(mission_id)
    .bind(for_user)
    .fetch_optional(&mut *conn)
    .await?;
    if let Some(end) = existing {
        return Err(already_ended(
            end.end_time,
            end.submitter_id,
            end.first_name,
            end.last_name,
        ));
    }
    let late: Option<(i64,)> = sqlx::query_as(
        "SELECT id FROM activities WHERE mission_id = $1 AND user_id = $2 AND dismissed_at IS NULL
           AND (start_time >= $3 OR end_time > $3) LIMIT 1",
    )
    .bind(mission_id)
    .bind(for_user)
    .bind(end)
    .fetch_optional(&mut *conn)
    .await?;
    if late.is_some() {
        return Err(AppError::new(
            Code::InvalidActivitySwitch,
            "Invalid time for mission end because there are activities starting or ending after",
        ));
    }
    let running: Vec<(i64,)> = sqlx::query_as(
        "SELECT id FROM activities WHERE mission_id = $1 AND user_id = $2 AND dismissed_at IS NULL AND end_time IS NULL",
    )
    .bind(mission_id)
    .bind(for_user)
    .fetch_all(&mut *conn)
    .await?;
    for (id,) in running {
        sqlx::query("UPDATE activities SET end_time = $2, last_update_time = $3, last_submitter_id = $4 WHERE id = $1")
            .bind(id)
            .bind(end)
            .bind(received)
            .bind(actor.user_id)
            .execute(&mut *conn)
            .await?;
        add_version(conn, id, actor.user_id, None, None).await?;
        crate::domain::activities::spans::refresh(conn, for_user, mission_id).await?;
    }
    let inserted = sqlx::query(
        "INSERT INTO mission_ends (mission_id, user_id, submitter_id, reception_time, end_time) VALUES ($1, $2, $3, $4, $5)",
    )
    .bind(mission_id)
    .bind(for_user)
    .bind(actor.user_id)
    .bind(received)
    .bind(end)
    .execute(&mut *conn)
    .await;
    match inserted {
        Ok(_) => Ok(()),
        Err(e) if is_unique_violation(&e) => Err(already_ended(end, None, None, None)),
        Err(e) => Err(e.into()),
    }
}

/// An existing end of the mission, as MISSION_ALREADY_ENDED describes it.
#[derive(sqlx::FromRow)]
struct MissionEnd {
    end_time: i64,
    submitter_id: Option<i64>,
    first_name: Option<String>,
    last_name: Option<String>,
}

fn already_ended(
    end_time: i64,
    submitter: Option<i64>,
    first_name: Option<String>,
    last_name: Option<String>,
) -> AppError {
    let submitter = match submitter {
        Some(id) => json!({ "id": id, "firstName": first_name, "lastName": last_name }),
        None => json!({}),
    };
    AppError::new(Code::MissionAlreadyEnded, "Mission already ended")
        .with("missionEnd", json!({ "endTime": end_time, "submitter": submitter }))
}

/// Missions that began more than this long ago may be validated by an admin without the worker.
const ADMIN_ALONE_AFTER_SECONDS: i64 = 10 * 24 * 3600;

/// `validateMission` for `users` (already locked by the caller), after the bulk corrections.
pub async fn validate(
    conn: &mut AnyConnection,
    actor: Actor,
    mission_id: i64,
    users: &[i64],
    justification: Option<ValidationJustification>,
    creation_time: Option<i64>,
) -> AppResult<()> {
    let mission = permissions::readable(conn, actor, mission_id).await?;
    let is_admin = permissions::is_admin(conn, actor, mission.company_id).await?;
    if users.is_empty() {
        return Err(AppError::invalid_inputs("usersIds must name at least one user"));
    }
    if !is_admin && users.iter().any(|u| *u != actor.user_id) {
        return Err(AppError::authorization(
            "A worker validates a mission only for themselves",
        ));
    }
    let received = now();
    for user in users {
        let (count, running, first_start): (i64, i64, Option<i64>) = sqlx::query_as(
            "SELECT COUNT(*), COUNT(*) - COUNT(end_time), MIN(start_time) FROM activities
             WHERE mission_id = $1 AND user_id = $2 AND dismissed_at IS NULL",
        )
        .bind(mission_id)
        .bind(*user)
        .fetch_one(&mut *conn)
        .await?;
        if count == 0 {
            return Err(
                AppError::invalid_resource("The user has no activity to validate in this mission")
                    .with("reason", "NO_ACTIVITIES_TO_VALIDATE")
                    .with("userId", *user),
            );
        }
        if running > 0 {
            return Err(
                AppError::invalid_resource("The mission is still running for the user: end it first")
                    .with("reason", "MISSION_STILL_RUNNING")
                    .with("userId", *user),
            );
        }
        let (auto_worker, auto_admin): (i64, i64) = sqlx::query_as(sql::AUTO_VALIDATIONS)
            .bind(mission_id)
            .bind(*user)
            .fetch_one(&mut *conn)
            .await?;
        if !is_admin && auto_worker + auto_admin > 0 {
            return Err(AppError::invalid_resource(
                "The mission was validated automatically and can no longer be changed",
            )
            .with("reason", "MISSION_ALREADY_AUTO_VALIDATED")
            .with("userId", *user));
        }
        if is_admin && auto_admin > 0 && justification.is_none() {
            return Err(AppError::invalid_inputs(
                "The mission was validated automatically for the admins: a justification is needed to validate it again",
            )
            .with("reason", "MISSING_JUSTIFICATION_FOR_ADMIN_VALIDATION")
            .with("userId", *user));
        }
        if is_admin && *user != actor.user_id && mission.submitter_id != actor.user_id {
            let (by_user,): (i64,) = sqlx::query_as(
                "SELECT COUNT(*) FROM mission_validations WHERE mission_id = $1 AND user_id = $2 AND is_admin = 0",
            )
            .bind(mission_id)
            .bind(*user)
            .fetch_one(&mut *conn)
            .await?;
            let old = first_start.is_some_and(|s| s < received - ADMIN_ALONE_AFTER_SECONDS);
            if by_user == 0 && !old {
                return Err(
                    AppError::invalid_resource("The worker has not validated the mission yet")
                        .with("reason", "MISSION_NOT_ALREADY_VALIDATED_BY_USER")
                        .with("userId", *user),
                );
            }
        }
        let (exists,): (i64,) = sqlx::query_as(
            "SELECT COUNT(*) FROM mission_validations
             WHERE mission_id = $1 AND user_id = $2 AND submitter_id = $3 AND is_admin = $4 AND is_auto = 0",
        )
        .bind(mission_id)
        .bind(*user)
        .bind(actor.user_id)
        .bind(i64::from(is_admin))
        .fetch_one(&mut *conn)
        .await?;
        if exists == 0 {
            sqlx::query(
                "INSERT INTO mission_validations (mission_id, submitter_id, user_id, is_admin, is_auto, justification,
                                                  reception_time, creation_time)
                 VALUES ($1, $2, $3, $4, 0, $5, $6, $7)",
            )
            .bind(mission_id)
            .bind(actor.user_id)
            .bind(*user)
            .bind(i64::from(is_admin))
            .bind(justification.map(|j| j.as_str()))
            .bind(received)
            .bind(creation_time.unwrap_or(received))
            .execute(&mut *conn)
            .await?;
        }
        // A validated mission is over for the worker.
        let last_end: (Option<i64>,) = sqlx::query_as(
            "SELECT MAX(end_time) FROM activities WHERE mission_id = $1 AND user_id = $2 AND dismissed_at IS NULL",
        )
        .bind(mission_id)
        .bind(*user)
        .fetch_one(&mut *conn)
        .await?;
        let ended: Option<(i64,)> =
            sqlx::query_as("SELECT id FROM mission_ends WHERE mission_id = $1 AND user_id = $2")
                .bind(mission_id)
                .bind(*user)
                .fetch_optional(&mut *conn)
                .await?;
        if ended.is_none() {
            sqlx::query(
                "INSERT INTO mission_ends (mission_id, user_id, submitter_id, reception_time, end_time) VALUES ($1, $2, $3, $4, $5)",
            )
            .bind(mission_id)
            .bind(*user)
            .bind(actor.user_id)
            .bind(received)
            .bind(last_end.0.unwrap_or(received))
            .execute(&mut *conn)
            .await?;
        }
        // The worker's validation starts the admins' wait; an admin's ends every wait.
        auto_validation::queue::after_validation(conn, mission_id, *user, is_admin, received).await?;
    }
    // The regulatory checks of the validated time, in this transaction.
    crate::domain::alerts::triggers::after_validation(conn, mission_id, mission.company_id, users, is_admin).await
}
