//! Changing teams, by the reference service's rules: `teams.createTeam / updateTeam / deleteTeam` and
//! `employments.changeEmployeeTeam`, company admins only, each in one write transaction; and the
//! team rules other employment changes apply (a new employment's team, an accepted invitation's
//! team, an admin losing admin rights).
//!
//! `createTeam` and `updateTeam` set everything they are given and replace what they are not:
//! name, admins, vehicles and members together. Ids the rules do not admit (a user who is not an
//! admin of the company, another company's vehicle) are dropped silently, as the reference does.

use sqlx::AnyConnection;

use crate::db::{Db, WriteTx, id_list, is_unique_violation, now};
use crate::domain::auth::Actor;
use crate::domain::auth::tokens;
use crate::domain::companies::permissions;
use crate::errors::{AppError, AppResult};

use super::{MAX_NAME, TeamRow};

/// Statements that change teams.
pub mod sql {
    use crate::db::PerBackend;

    crate::statements! {
        pub const INSERT: &str = "INSERT INTO teams (id, company_id, name, creation_time) VALUES ($1, $2, $3, $4)";
        /// Renames team `$1`; on PostgreSQL this also locks its row until the transaction ends,
        /// so two changes of one team run one after the other.
        pub const RENAME: &str = "UPDATE teams SET name = $2 WHERE id = $1";
        pub const DELETE: &str = "DELETE FROM teams WHERE id = $1";
        pub const ADMINS: &str = "SELECT user_id FROM team_admin_users WHERE team_id = $1 ORDER BY user_id";
        pub const CLEAR_ADMINS: &str = "DELETE FROM team_admin_users WHERE team_id = $1";
        /// Of the users `$2`, those whose most recent employment in company `$1` (by start date,
        /// whatever its state, as the reference) has admin rights, made admins of team `$3`.
        pub const ADD_ADMINS: PerBackend = crate::per_backend!(
            "INSERT INTO team_admin_users (team_id, user_id) SELECT DISTINCT CAST($3 AS BIGINT), e.user_id FROM employments e \
             WHERE e.company_id = $1 AND e.has_admin_rights = 1 AND ",
            ["e.user_id" in 2],
            " AND NOT EXISTS (SELECT 1 FROM employments l WHERE l.company_id = e.company_id AND l.user_id = e.user_id \
                AND (l.start_date > e.start_date OR (l.start_date = e.start_date AND l.id > e.id)))"
        );
        pub const CLEAR_VEHICLES: &str = "DELETE FROM team_vehicles WHERE team_id = $1";
        /// Of the vehicles `$2`, those of company `$1`, given to team `$3`.
        pub const ADD_VEHICLES: PerBackend = crate::per_backend!(
            "INSERT INTO team_vehicles (team_id, vehicle_id) SELECT CAST($3 AS BIGINT), v.id FROM vehicles v WHERE v.company_id = $1 AND ",
            ["v.id" in 2]
        );
        pub const CLEAR_KNOWN_ADDRESSES: &str = "DELETE FROM team_known_addresses WHERE team_id = $1";
        /// Of the known addresses `$2`, those of company `$1` not terminated, given to team `$3`.
        pub const ADD_KNOWN_ADDRESSES: PerBackend = crate::per_backend!(
            "INSERT INTO team_known_addresses (team_id, known_address_id) SELECT CAST($3 AS BIGINT), k.id \
             FROM company_known_addresses k WHERE k.company_id = $1 AND k.dismissed_at IS NULL AND ",
            ["k.id" in 2]
        );
        pub const DETACH_MEMBERS: &str = "UPDATE employments SET team_id = NULL WHERE team_id = $1";
        /// Every employment in company `$1` of the users `$2`, whatever its state, joins team `$3`.
        pub const ATTACH_USERS: PerBackend = crate::per_backend!(
            "UPDATE employments SET team_id = $3 WHERE company_id = $1 AND ",
            ["user_id" in 2]
        );
        /// Every employment of user `$2` in company `$1` joins team `$3` (NULL: none).
        pub const MOVE_USER: &str = "UPDATE employments SET team_id = $3 WHERE company_id = $1 AND user_id = $2";
        /// Employment `$2` of company `$1` joins team `$3` (NULL: none).
        pub const MOVE_EMPLOYMENT: &str = "UPDATE employments SET team_id = $3 WHERE company_id = $1 AND id = $2";
        pub const TEAM_COMPANY: &str = "SELECT company_id FROM teams WHERE id = $1";
        /// User `$1` is no admin of the teams of company `$2` any more.
        pub const DROP_ADMIN: &str = "DELETE FROM team_admin_users WHERE user_id = $1 \
             AND team_id IN (SELECT id FROM teams WHERE company_id = $2)";
        pub const EMPLOYMENT_TEAM: &str = "SELECT team_id, user_id, company_id FROM employments WHERE id = $1";
    }
}

/// What `createTeam` and `updateTeam` set.
#[derive(Debug, Clone, Default)]
pub struct TeamInput {
    pub name: String,
    pub user_ids: Vec<i64>,
    pub admin_ids: Vec<i64>,
    pub vehicle_ids: Vec<i64>,
    /// Known addresses of the company (others, and terminated ones, are dropped).
    pub known_address_ids: Vec<i64>,
}

fn forbidden() -> AppError {
    AppError::authorization("Actor is not authorized to perform the operation: company admin rights are needed")
}

fn check_name(name: &str) -> AppResult<String> {
    let name = name.trim();
    if name.is_empty() || name.chars().count() > MAX_NAME {
        return Err(
            AppError::invalid_inputs(format!("A team name has 1 to {MAX_NAME} characters")).with("field", "name"),
        );
    }
    Ok(name.to_string())
}

async fn require_admin(conn: &mut AnyConnection, actor: Actor, company_id: i64) -> AppResult<()> {
    if permissions::is_admin_on(conn, actor, company_id).await? {
        Ok(())
    } else {
        Err(forbidden())
    }
}

/// `teams.createTeam`: answers the company's id.
pub async fn create(db: &Db, actor: Actor, company_id: i64, input: TeamInput, public_url: &str) -> AppResult<i64> {
    let name = check_name(&input.name)?;
    // Random identifiers can collide; a collision spoils the transaction on PostgreSQL, so each
    // attempt has its own.
    for _ in 0..5 {
        let mut tx = db.begin_write().await?;
        require_admin(&mut tx, actor, company_id).await?;
        let id = tokens::random_in(100_000_000, 999_999_999)?;
        let creation_time = now();
        let inserted = sqlx::query(sql::INSERT)
            .bind(id)
            .bind(company_id)
            .bind(&name)
            .bind(creation_time)
            .execute(&mut *tx)
            .await;
        match inserted {
            Ok(_) => {
                let team = TeamRow {
                    id,
                    company_id,
                    name,
                    creation_time,
                };
                replace(db, &mut tx, actor, &team, &input, public_url).await?;
                tx.commit().await?;
                return Ok(company_id);
            }
            Err(error) if is_unique_violation(&error) => continue,
            Err(error) => return Err(error.into()),
        }
    }
    Err(AppError::internal("could not allocate a team id"))
}

/// The team, for an admin of its company today; an unknown team looks the same as another
/// company's (AUTHORIZATION_ERROR), so ids cannot be probed.
async fn for_admin(tx: &mut WriteTx, actor: Actor, team_id: i64) -> AppResult<TeamRow> {
    let team = sqlx::query_as::<_, TeamRow>(super::sql::FIND)
        .bind(team_id)
        .fetch_optional(&mut **tx)
        .await?
        .ok_or_else(forbidden)?;
    require_admin(tx, actor, team.company_id).await?;
    Ok(team)
}

/// `teams.updateTeam`: replaces the team's name, admins, vehicles and members; answers the
/// company's id.
pub async fn update(db: &Db, actor: Actor, team_id: i64, input: TeamInput, public_url: &str) -> AppResult<i64> {
    let name = check_name(&input.name)?;
    let mut tx = db.begin_write().await?;
    let team = for_admin(&mut tx, actor, team_id).await?;
    sqlx::query(sql::RENAME)
        .bind(team_id)
        .bind(&name)
        .execute(&mut *tx)
        .await?;
    // The messages name the team as it is now called.
    let team = TeamRow { name, ..team };
    replace(db, &mut tx, actor, &team, &input, public_url).await?;
    tx.commit().await?;
    Ok(team.company_id)
}

/// `teams.deleteTeam`: its workers leave it (they stay employed), then it goes; answers the
/// company's id.
pub async fn delete(db: &Db, actor: Actor, team_id: i64) -> AppResult<i64> {
    let mut tx = db.begin_write().await?;
    let team = for_admin(&mut tx, actor, team_id).await?;
    sqlx::query(sql::DETACH_MEMBERS).bind(team_id).execute(&mut *tx).await?;
    // Admins and vehicles go with the team (ON DELETE CASCADE).
    sqlx::query(sql::DELETE).bind(team_id).execute(&mut *tx).await?;
    tx.commit().await?;
    Ok(team.company_id)
}

async fn admin_ids(conn: &mut AnyConnection, team_id: i64) -> AppResult<Vec<i64>> {
    let rows: Vec<(i64,)> = sqlx::query_as(sql::ADMINS).bind(team_id).fetch_all(conn).await?;
    Ok(rows.into_iter().map(|r| r.0).collect())
}

/// Sets the admins, vehicles, known addresses and members of a team, replacing the previous ones, and tells the
/// admins what changed for them.
async fn replace(
    db: &Db,
    tx: &mut WriteTx,
    actor: Actor,
    team: &TeamRow,
    input: &TeamInput,
    public_url: &str,
) -> AppResult<()> {
    let before = admin_ids(tx, team.id).await?;
    sqlx::query(sql::CLEAR_ADMINS).bind(team.id).execute(&mut **tx).await?;
    sqlx::query(db.sql(sql::ADD_ADMINS))
        .bind(team.company_id)
        .bind(id_list(&input.admin_ids))
        .bind(team.id)
        .execute(&mut **tx)
        .await?;
    sqlx::query(sql::CLEAR_VEHICLES)
        .bind(team.id)
        .execute(&mut **tx)
        .await?;
    sqlx::query(db.sql(sql::ADD_VEHICLES))
        .bind(team.company_id)
        .bind(id_list(&input.vehicle_ids))
        .bind(team.id)
        .execute(&mut **tx)
        .await?;
    sqlx::query(sql::CLEAR_KNOWN_ADDRESSES)
        .bind(team.id)
        .execute(&mut **tx)
        .await?;
    sqlx::query(db.sql(sql::ADD_KNOWN_ADDRESSES))
        .bind(team.company_id)
        .bind(id_list(&input.known_address_ids))
        .bind(team.id)
        .execute(&mut **tx)
        .await?;
    sqlx::query(sql::DETACH_MEMBERS)
        .bind(team.id)
        .execute(&mut **tx)
        .await?;
    sqlx::query(db.sql(sql::ATTACH_USERS))
        .bind(team.company_id)
        .bind(id_list(&input.user_ids))
        .bind(team.id)
        .execute(&mut **tx)
        .await?;
    let after = admin_ids(tx, team.id).await?;
    super::mails::notify_admins(tx, actor, team, (&before, &after), public_url).await
}

/// Whether `team_id` is a team of the company.
async fn belongs(conn: &mut AnyConnection, team_id: i64, company_id: i64) -> AppResult<bool> {
    let row: Option<(i64,)> = sqlx::query_as(sql::TEAM_COMPANY)
        .bind(team_id)
        .fetch_optional(conn)
        .await?;
    Ok(row.is_some_and(|(company,)| company == company_id))
}

/// The team a new employment of the company joins: the one asked for if it is the company's,
/// none otherwise (the reference ignores another company's team).
pub async fn for_new_employment(
    conn: &mut AnyConnection,
    company_id: i64,
    team_id: Option<i64>,
) -> AppResult<Option<i64>> {
    match team_id {
        Some(team) if belongs(conn, team, company_id).await? => Ok(Some(team)),
        _ => Ok(None),
    }
}

/// Who `changeEmployeeTeam` moves.
#[derive(Debug, Clone, Copy)]
pub enum Moved {
    /// Every employment of the user in the company.
    User(i64),
    /// One employment of the company.
    Employment(i64),
}

/// `employments.changeEmployeeTeam`: moves a worker to a team of the company, or out of any
/// team (`team_id` None). A team of another company, or none at all, is ignored: nothing
/// changes. Answers the company's id.
pub async fn change_employee_team(
    db: &Db,
    actor: Actor,
    company_id: i64,
    moved: Moved,
    team_id: Option<i64>,
) -> AppResult<i64> {
    let mut tx = db.begin_write().await?;
    require_admin(&mut tx, actor, company_id).await?;
    if let Some(team) = team_id
        && !belongs(&mut tx, team, company_id).await?
    {
        return Ok(company_id);
    }
    match moved {
        Moved::User(user_id) => {
            sqlx::query(sql::MOVE_USER)
                .bind(company_id)
                .bind(user_id)
                .bind(team_id)
                .execute(&mut *tx)
                .await?;
        }
        Moved::Employment(employment_id) => {
            let done = sqlx::query(sql::MOVE_EMPLOYMENT)
                .bind(company_id)
                .bind(employment_id)
                .bind(team_id)
                .execute(&mut *tx)
                .await?;
            if done.rows_affected() != 1 {
                // Another company's employment, or none: the same answer.
                return Err(forbidden());
            }
        }
    }
    tx.commit().await?;
    Ok(company_id)
}

/// When a user accepts an employment that names a team, all their employments in the company
/// join that team (the reference re-binds them).
pub async fn follow_accepted(conn: &mut AnyConnection, employment_id: i64) -> AppResult<()> {
    let row: Option<(Option<i64>, Option<i64>, i64)> = sqlx::query_as(sql::EMPLOYMENT_TEAM)
        .bind(employment_id)
        .fetch_optional(&mut *conn)
        .await?;
    if let Some((Some(team), Some(user), company)) = row {
        sqlx::query(sql::MOVE_USER)
            .bind(company)
            .bind(user)
            .bind(team)
            .execute(&mut *conn)
            .await?;
    }
    Ok(())
}

/// When an admin loses admin rights in a company, they no longer manage its teams.
pub async fn drop_admin(conn: &mut AnyConnection, user_id: i64, company_id: i64) -> AppResult<()> {
    sqlx::query(sql::DROP_ADMIN)
        .bind(user_id)
        .bind(company_id)
        .execute(conn)
        .await?;
    Ok(())
}
