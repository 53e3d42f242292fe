//! Reads one worker's part in one mission for its PDF, once the request is allowed: both the
//! caller and the worker may read the mission (its company's admin today, its submitter, or with
//! an activity in it), and the caller is employed today by its company. Every refusal is the
//! same, whether the mission or the worker exists or not.

use chrono_tz::Tz;

use super::mission::{Comment, HistoryLine, MissionDetails, Place};
use super::statement::Columns;
use crate::db::{Db, id_list};
use crate::domain::auth::Actor;
use crate::domain::companies::permissions::is_employed;
use crate::domain::export::workbook::days::Span;
use crate::domain::export::workbook::history::{self, Author};
use crate::domain::export::workbook::{display_name, history_load, place};
use crate::domain::kinds::{ActivityType, ExpenditureType};
use crate::domain::missions::{deleted, permissions, store};
use crate::domain::regulation::time::zone;
use crate::errors::{AppError, AppResult, Code};

pub mod sql {
    crate::statements! {
        pub const USER_EXISTS: &str = "SELECT id FROM users WHERE id = $1";
        pub const USER: &str = "SELECT first_name, last_name, timezone_name FROM users WHERE id = $1";
        /// The company's name and what it asks the document to show.
        pub const COMPANY: &str = "SELECT usual_name, require_support_activity, COALESCE(allow_other_task, 0), \
             allow_transfers, require_expenditures FROM companies WHERE id = $1";
        pub const VEHICLE: &str = "SELECT registration_number FROM vehicles WHERE id = $1";
        /// The worker `$2`'s activities in mission `$1`, cancelled ones included, by start.
        pub const ACTIVITIES: &str = "SELECT type, start_time, end_time, dismissed_at FROM activities \
             WHERE mission_id = $1 AND user_id = $2 ORDER BY start_time, id";
        pub const PLACES: &str =
            "SELECT type, name, postal_code, city, kilometer_reading FROM location_entries WHERE mission_id = $1";
        /// The comments not cancelled, in the order received, with their author's name.
        pub const COMMENTS: &str = "SELECT u.first_name, u.last_name, c.reception_time, c.text FROM comments c \
             JOIN users u ON u.id = c.submitter_id WHERE c.mission_id = $1 AND c.dismissed_at IS NULL \
             ORDER BY c.reception_time, c.id";
        /// The worker `$2`'s expenses in mission `$1` not cancelled.
        pub const EXPENDITURES: &str =
            "SELECT type FROM expenditures WHERE mission_id = $1 AND user_id = $2 AND dismissed_at IS NULL";
    }
}

/// The one refusal of this export.
fn forbidden() -> AppError {
    AppError::authorization("Forbidden access")
}

/// Any refusal becomes [`forbidden`]; a failure of the database stays what it is.
fn refused(error: AppError) -> AppError {
    if error.code == Code::AuthorizationError {
        forbidden()
    } else {
        error
    }
}

/// The mission `mission_id` when `actor` may export the part of `user_id` in it.
pub async fn authorize(db: &Db, actor: Actor, mission_id: i64, user_id: i64) -> AppResult<store::MissionRow> {
    let mut conn = db.pool.acquire().await?;
    let mission = permissions::readable(&mut conn, actor, mission_id)
        .await
        .map_err(refused)?;
    let exists: Option<(i64,)> = sqlx::query_as(sql::USER_EXISTS)
        .bind(user_id)
        .fetch_optional(&mut *conn)
        .await?;
    if exists.is_none() {
        return Err(forbidden());
    }
    // The worker reads it as themselves, whatever the caller's confinement.
    permissions::readable(&mut conn, Actor::unconfined(user_id), mission_id)
        .await
        .map_err(refused)?;
    drop(conn);
    if !is_employed(db, actor, mission.company_id).await? {
        return Err(forbidden());
    }
    Ok(mission)
}

/// The document of the part of `user_id` in `mission` (allowed by [`authorize`]), running
/// activities counting until `now`.
pub async fn details(
    db: &Db,
    actor: Actor,
    mission: store::MissionRow,
    user_id: i64,
    now: i64,
) -> AppResult<MissionDetails> {
    let id = mission.id;
    let (first_name, last_name, tz_name): (String, String, String) =
        sqlx::query_as(sql::USER).bind(user_id).fetch_one(db).await?;
    let tz = zone(&tz_name);
    let (company_name, support, other_task, transfers, expenditures): (String, i64, i64, i64, i64) =
        sqlx::query_as(sql::COMPANY)
            .bind(mission.company_id)
            .fetch_one(db)
            .await?;
    let vehicle = match mission.vehicle_id {
        Some(vehicle) => sqlx::query_as::<_, (String,)>(sql::VEHICLE)
            .bind(vehicle)
            .fetch_optional(db)
            .await?
            .map(|(plate,)| plate),
        None => None,
    };
    let view = store::load_one(db, id, actor).await?;
    let deleted = match view.deleted_at {
        Some(at) => Some((at, deleted::deleted_by(db, id).await?)),
        None => None,
    };
    let rows: Vec<(String, i64, Option<i64>, Option<i64>)> = sqlx::query_as(sql::ACTIVITIES)
        .bind(id)
        .bind(user_id)
        .fetch_all(db)
        .await?;
    let mut activities = Vec::new();
    let mut all_activities = Vec::new();
    for (kind, start, end, dismissed_at) in rows {
        let Some(kind) = ActivityType::from_str_opt(&kind) else {
            continue;
        };
        let span = Span {
            mission_id: id,
            kind,
            start,
            end,
        };
        if dismissed_at.is_none() {
            activities.push(span.clone());
        }
        all_activities.push(span);
    }
    let (start, end) = places(db, id).await?;
    let kinds: Vec<(String,)> = sqlx::query_as(sql::EXPENDITURES)
        .bind(id)
        .bind(user_id)
        .fetch_all(db)
        .await?;
    let mut counts = [0; 4];
    for (kind,) in kinds {
        if let Some(i) = ExpenditureType::ALL.iter().position(|k| k.as_str() == kind) {
            counts[i] += 1;
        }
    }
    let comments: Vec<(String, String, i64, String)> = sqlx::query_as(sql::COMMENTS).bind(id).fetch_all(db).await?;
    Ok(MissionDetails {
        mission_id: id,
        mission_name: mission.name.filter(|n| !n.trim().is_empty()),
        user_id,
        user_name: display_name(&first_name, &last_name),
        tz,
        company_name,
        vehicle,
        deleted,
        // A row for each kind the company asks for, and for any kind the worker recorded, so
        // that the rows add up to the amplitude whatever the settings are today.
        columns: Columns {
            support: support != 0 || activities.iter().any(|a| a.kind == ActivityType::Support),
            other_task: other_task != 0 || activities.iter().any(|a| a.kind == ActivityType::Work),
            transfer: transfers != 0 || activities.iter().any(|a| a.kind == ActivityType::Transfer),
            expenditures: expenditures != 0,
        },
        activities,
        all_activities,
        start,
        end,
        expenditures: counts,
        comments: comments
            .into_iter()
            .map(|(first, last, time, text)| Comment {
                author: display_name(&first, &last),
                time,
                text,
            })
            .collect(),
        history: history_lines(db, tz, id, user_id).await?,
        now,
    })
}

/// The mission's start and end places.
async fn places(db: &Db, mission_id: i64) -> AppResult<(Place, Place)> {
    type PlaceRow = (String, String, Option<String>, Option<String>, Option<i64>);
    let rows: Vec<PlaceRow> = sqlx::query_as(sql::PLACES).bind(mission_id).fetch_all(db).await?;
    let (mut start, mut end) = (Place::default(), Place::default());
    for (kind, name, postal_code, city, kilometers) in rows {
        let entry = Place {
            address: Some(place(name, postal_code, city)).filter(|a| !a.is_empty()),
            kilometers,
        };
        if kind == "mission_start_location" {
            start = entry;
        } else {
            end = entry;
        }
    }
    Ok((start, end))
}

/// The worker's history in the mission, as the Excel report's `Détail` sheet tells it, each
/// line with its author's name and the reason given.
async fn history_lines(db: &Db, tz: Tz, mission_id: i64, user_id: i64) -> AppResult<Vec<HistoryLine>> {
    let mut histories = history_load::histories(db, &id_list(&[mission_id])).await?;
    let facts = histories.facts.remove(&(user_id, mission_id)).unwrap_or_default();
    let names = history_load::names(db, &history_load::authors(std::iter::once(&facts))).await?;
    Ok(history::events(tz, &facts)
        .into_iter()
        .map(|event| {
            let author = match event.author {
                Author::User(id) => names.get(&id).cloned(),
                Author::Automatic => None,
            };
            let mut text = event.text;
            if !event.justification.is_empty() {
                text.push_str(&format!(" (motif : \"{}\")", event.justification));
            }
            HistoryLine {
                author: author.unwrap_or_else(|| "Mobilic".to_string()),
                time: event.time,
                text,
                is_deletion: event.is_deletion,
            }
        })
        .collect())
}
