//! Teams, as the reference service has them: a company's groups of workers, with the company admins who manage each
//! one and the vehicles it uses. A worker belongs to a team through an employment
//! (`employments.team_id`). Teams group, they do not restrict: every company admin still reads
//! every worker of the company; the only server-side filter is `regulatoryAlertsRecap(teamId)`.
//!
//! Reading is here; creating, replacing, deleting and moving workers between teams is in
//! `manage`.

mod mails;
mod manage;

pub use manage::{
    Moved, TeamInput, change_employee_team, create, delete, drop_admin, follow_accepted, for_new_employment, update,
};

use crate::db::Db;
use crate::domain::auth::Actor;
use crate::domain::companies::permissions;
use crate::domain::vehicles::VehicleRow;
use crate::errors::{AppError, AppResult};

/// Longest team name (the reference's column is 255 characters).
pub const MAX_NAME: usize = 255;

/// A team as stored.
#[derive(sqlx::FromRow, Debug, Clone)]
pub struct TeamRow {
    pub id: i64,
    pub company_id: i64,
    pub name: String,
    pub creation_time: i64,
}

/// Team statements.
pub mod sql {
    use const_format::concatcp;

    const SELECT: &str = "SELECT id, company_id, name, creation_time FROM teams";
    crate::statements! {
        pub const FIND: &str = concatcp!(SELECT, " WHERE id = $1");
        pub const OF_COMPANY: &str = concatcp!(SELECT, " WHERE company_id = $1 ORDER BY name, id");
        /// Users of the employments of team `$1` that their user accepted (privacy before
        /// consent: an invitation still pending shows no account), whatever their dates.
        pub const MEMBERS: &str = "SELECT DISTINCT user_id FROM employments WHERE team_id = $1 \
             AND user_id IS NOT NULL AND validation_status = 'approved' AND dismissed_at IS NULL ORDER BY user_id";
        pub const ADMINS: &str = "SELECT user_id FROM team_admin_users WHERE team_id = $1 ORDER BY user_id";
        /// The team's vehicles still in service.
        pub const VEHICLES: &str = "SELECT v.id, v.company_id, v.registration_number, v.alias, v.last_kilometer_reading, \
             v.creation_time, v.terminated_at \
             FROM team_vehicles t JOIN vehicles v ON v.id = t.vehicle_id \
             WHERE t.team_id = $1 AND v.terminated_at IS NULL ORDER BY v.registration_number";
        /// The company's workers today (`$2`) whose employment is in team `$3`.
        pub const CURRENT_WORKERS: &str = "SELECT DISTINCT user_id FROM employments WHERE company_id = $1 \
             AND team_id = $3 AND user_id IS NOT NULL AND validation_status = 'approved' AND dismissed_at IS NULL \
             AND start_date <= $2 AND (end_date IS NULL OR end_date >= $2) ORDER BY user_id";
    }
}

/// Reads a team.
pub async fn find(db: &Db, id: i64) -> AppResult<Option<TeamRow>> {
    Ok(sqlx::query_as::<_, TeamRow>(sql::FIND)
        .bind(id)
        .fetch_optional(db)
        .await?)
}

/// `Company.teams`: readable by whoever reads the company's people (an employment covering
/// today, a pending invitation included), as `Company.users`.
pub async fn of_company(db: &Db, actor: Actor, company_id: i64) -> AppResult<Vec<TeamRow>> {
    if !permissions::is_employed(db, actor, company_id).await? {
        return Err(AppError::authorization("Forbidden access"));
    }
    Ok(sqlx::query_as::<_, TeamRow>(sql::OF_COMPANY)
        .bind(company_id)
        .fetch_all(db)
        .await?)
}

/// `Employment.team`: the team of an employment the caller already reads.
pub async fn of_employment(db: &Db, team_id: Option<i64>) -> AppResult<Option<TeamRow>> {
    match team_id {
        Some(id) => find(db, id).await,
        None => Ok(None),
    }
}

async fn user_ids(db: &Db, statement: &'static str, team_id: i64) -> AppResult<Vec<i64>> {
    let rows: Vec<(i64,)> = sqlx::query_as(statement).bind(team_id).fetch_all(db).await?;
    Ok(rows.into_iter().map(|r| r.0).collect())
}

/// `Team.users`: the ids of the users of the team's accepted employments, current or not. Ids
/// only: reading the accounts is the users module's work, and teams sit below it (an invitation
/// redeemed at sign-up follows its team).
pub async fn member_ids(db: &Db, team_id: i64) -> AppResult<Vec<i64>> {
    user_ids(db, sql::MEMBERS, team_id).await
}

/// `Team.adminUsers`: ids, as [`member_ids`].
pub async fn admin_ids(db: &Db, team_id: i64) -> AppResult<Vec<i64>> {
    user_ids(db, sql::ADMINS, team_id).await
}

/// `Team.vehicles`: those still in service.
pub async fn vehicles(db: &Db, team_id: i64) -> AppResult<Vec<VehicleRow>> {
    Ok(sqlx::query_as::<_, VehicleRow>(sql::VEHICLES)
        .bind(team_id)
        .fetch_all(db)
        .await?)
}

/// The company's workers today who belong to the team through that employment (the
/// `teamId` filter of `regulatoryAlertsRecap`).
pub async fn current_workers(db: &Db, company_id: i64, team_id: i64) -> AppResult<Vec<i64>> {
    let rows: Vec<(i64,)> = sqlx::query_as(sql::CURRENT_WORKERS)
        .bind(company_id)
        .bind(crate::domain::companies::date_text(crate::domain::companies::today()))
        .bind(team_id)
        .fetch_all(db)
        .await?;
    Ok(rows.into_iter().map(|r| r.0).collect())
}
