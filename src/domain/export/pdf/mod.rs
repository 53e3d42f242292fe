//! The worker's printable records as PDF: the "Relevé d'heures" of their own days over a period
//! ([`statement`], read by [`statement_load`], laid out by [`statement_pages`]) and the details
//! of one worker's part in a mission ([`mission`], read by [`mission_load`], laid out by
//! [`mission_pages`]). Documents are
//! laid out on A4 pages ([`canvas`]) with tables ([`table`]) in an embedded typeface
//! ([`fonts`]).

pub mod canvas;
pub mod fonts;
pub mod mission;
pub mod mission_load;
pub mod mission_pages;
pub mod statement;
pub mod statement_load;
pub mod statement_pages;
pub mod table;

use chrono::NaiveDate;

use crate::db::Db;
use crate::domain::auth::Actor;
use crate::errors::{AppError, AppResult};

/// The longest period of a "Relevé d'heures", in days between its first and last dates.
pub const MAX_STATEMENT_DAYS: i64 = 366;

/// The reference's message for a longer period.
pub const PERIOD_TOO_LONG: &str = "The requested period should be less than 1 year";

/// Whether the period is short enough to be exported (the order of the dates is not checked,
/// as the reference does not check it).
pub fn period_allowed(min: NaiveDate, max: NaiveDate) -> bool {
    (max - min).num_days() <= MAX_STATEMENT_DAYS
}

/// The actor's own "Relevé d'heures" from `min` to `max`: the file's name and bytes. The pages
/// are laid out on a blocking thread.
pub async fn statement(
    db: &Db,
    actor: Actor,
    min: NaiveDate,
    max: NaiveDate,
    service: &str,
) -> AppResult<(String, Vec<u8>)> {
    let statement =
        statement_load::statement(db, actor, min, max, crate::domain::companies::today(), crate::db::now()).await?;
    let name = statement::file_name(&statement.name, min, max);
    let service = service.to_string();
    let bytes = tokio::task::spawn_blocking(move || statement_pages::render(&statement, &service))
        .await
        .map_err(AppError::internal)??;
    Ok((name, bytes))
}

/// The details of the part of `user_id` in mission `mission_id`, when `actor` may export them
/// (AUTHORIZATION_ERROR otherwise, the same whether the mission or the worker exists or not):
/// the file's name and bytes. The pages are laid out on a blocking thread.
pub async fn mission_details(
    db: &Db,
    actor: Actor,
    mission_id: i64,
    user_id: i64,
    service: &str,
) -> AppResult<(String, Vec<u8>)> {
    let mission = mission_load::authorize(db, actor, mission_id, user_id).await?;
    let details = mission_load::details(db, actor, mission, user_id, crate::db::now()).await?;
    let name = details.file_name();
    let service = service.to_string();
    let bytes = tokio::task::spawn_blocking(move || mission_pages::render(&details, &service))
        .await
        .map_err(AppError::internal)??;
    Ok((name, bytes))
}
