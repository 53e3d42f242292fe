//! Known addresses, as the reference service has them: a company's address book. Admins create, rename (alias) and
//! terminate them; anyone with an employment in the company (ever, neither rejected nor
//! cancelled) reads them; logLocation(companyKnownAddressId) copies one into a mission; teams
//! list the ones they use.
//!
//! One entry per company and address, terminated ones included: creating a terminated address
//! again revives it with the new alias. The unique index enforces it under concurrency.

use sqlx::AnyConnection;

use crate::db::{Db, is_unique_violation, now};
use crate::domain::addresses::Address;
use crate::domain::auth::Actor;
use crate::errors::{AppError, AppResult};

use super::permissions;

/// A known address as stored.
#[derive(sqlx::FromRow, Debug, Clone)]
pub struct KnownAddressRow {
    pub id: i64,
    pub company_id: i64,
    pub name: String,
    pub city: Option<String>,
    pub postal_code: Option<String>,
    pub alias: Option<String>,
    pub dismissed_at: Option<i64>,
}

/// Longest alias.
pub const MAX_ALIAS: usize = 255;

/// Known address statements.
pub mod sql {
    use const_format::concatcp;

    const SELECT: &str =
        "SELECT id, company_id, name, city, postal_code, alias, dismissed_at FROM company_known_addresses";
    crate::statements! {
        pub const FIND: &str = concatcp!(SELECT, " WHERE id = $1");
        /// The company's entry for an address (`$2` name, `$3` city, `$4` postal code).
        pub const FIND_ADDRESS: &str = concatcp!(
            SELECT,
            " WHERE company_id = $1 AND name = $2 AND COALESCE(city, '') = COALESCE($3, '') \
              AND COALESCE(postal_code, '') = COALESCE($4, '')"
        );
        /// The company's addresses that are not terminated.
        pub const OF_COMPANY: &str = concatcp!(SELECT, " WHERE company_id = $1 AND dismissed_at IS NULL ORDER BY id");
        /// The team's addresses that are not terminated.
        pub const OF_TEAM: &str = "SELECT k.id, k.company_id, k.name, k.city, k.postal_code, k.alias, k.dismissed_at \
             FROM team_known_addresses t JOIN company_known_addresses k ON k.id = t.known_address_id \
             WHERE t.team_id = $1 AND k.dismissed_at IS NULL ORDER BY k.id";
        pub const INSERT: &str = "INSERT INTO company_known_addresses (company_id, name, city, postal_code, alias, creation_time)
             VALUES ($1, $2, $3, $4, $5, $6) RETURNING id";
        /// Revives terminated entry `$1` with alias `$2`.
        pub const REVIVE: &str = "UPDATE company_known_addresses SET alias = $2, dismissed_at = NULL, dismiss_author_id = NULL
             WHERE id = $1 AND dismissed_at IS NOT NULL";
        pub const SET_ALIAS: &str =
            "UPDATE company_known_addresses SET alias = $2 WHERE id = $1 AND dismissed_at IS NULL";
        /// Terminates entry `$1` by `$3` at `$2`.
        pub const TERMINATE: &str = "UPDATE company_known_addresses SET dismissed_at = $2, dismiss_author_id = $3
             WHERE id = $1 AND dismissed_at IS NULL";
        pub const LEAVE_TEAMS: &str = "DELETE FROM team_known_addresses WHERE known_address_id = $1";
    }
}

fn already_registered() -> AppError {
    AppError::invalid_resource("This address is already registered for the company")
        .with("reason", "COMPANY_ADDRESS_ALREADY_REGISTERED")
}

/// An alias as stored: trimmed, blank = none, at most [`MAX_ALIAS`] characters.
fn alias(alias: Option<&str>) -> AppResult<Option<String>> {
    let alias = alias.map(str::trim).filter(|a| !a.is_empty());
    if alias.is_some_and(|a| a.chars().count() > MAX_ALIAS) {
        return Err(
            AppError::invalid_inputs(format!("alias must have at most {MAX_ALIAS} characters")).with("field", "alias"),
        );
    }
    Ok(alias.map(str::to_string))
}

async fn find(conn: &mut AnyConnection, id: i64) -> AppResult<Option<KnownAddressRow>> {
    Ok(sqlx::query_as::<_, KnownAddressRow>(sql::FIND)
        .bind(id)
        .fetch_optional(conn)
        .await?)
}

/// `Company.knownAddresses`: the addresses that are not terminated, for anyone who has (or had)
/// an employment in the company that was neither rejected nor cancelled.
pub async fn of_company(db: &Db, actor: Actor, company_id: i64) -> AppResult<Vec<KnownAddressRow>> {
    if !permissions::has_any_employment(db, actor, company_id).await? {
        return Err(AppError::authorization(
            "Forbidden access to field 'knownAddresses' of company object. Actor must be an employee of the company.",
        ));
    }
    Ok(sqlx::query_as::<_, KnownAddressRow>(sql::OF_COMPANY)
        .bind(company_id)
        .fetch_all(db)
        .await?)
}

/// `Team.knownAddresses` (whoever reads the team).
pub async fn of_team(db: &Db, team_id: i64) -> AppResult<Vec<KnownAddressRow>> {
    Ok(sqlx::query_as::<_, KnownAddressRow>(sql::OF_TEAM)
        .bind(team_id)
        .fetch_all(db)
        .await?)
}

/// `locations.createKnownAddress` (company admins).
pub async fn create(
    db: &Db,
    actor: Actor,
    company_id: i64,
    address: Address,
    given_alias: Option<&str>,
) -> AppResult<KnownAddressRow> {
    permissions::require_admin(db, actor, company_id).await?;
    let alias = alias(given_alias)?;
    let mut tx = db.begin_write().await?;
    let existing = sqlx::query_as::<_, KnownAddressRow>(sql::FIND_ADDRESS)
        .bind(company_id)
        .bind(&address.name)
        .bind(&address.city)
        .bind(&address.postal_code)
        .fetch_optional(&mut *tx)
        .await?;
    let id = match existing {
        Some(row) if row.dismissed_at.is_none() => return Err(already_registered()),
        Some(row) => {
            let revived = sqlx::query(sql::REVIVE)
                .bind(row.id)
                .bind(&alias)
                .execute(&mut *tx)
                .await?;
            if revived.rows_affected() != 1 {
                return Err(already_registered());
            }
            row.id
        }
        None => {
            let inserted: Result<(i64,), sqlx::Error> = sqlx::query_as(sql::INSERT)
                .bind(company_id)
                .bind(&address.name)
                .bind(&address.city)
                .bind(&address.postal_code)
                .bind(&alias)
                .bind(now())
                .fetch_one(&mut *tx)
                .await;
            match inserted {
                Ok((id,)) => id,
                Err(e) if is_unique_violation(&e) => return Err(already_registered()),
                Err(e) => return Err(e.into()),
            }
        }
    };
    let row = find(&mut tx, id)
        .await?
        .ok_or_else(|| AppError::internal("known address vanished"))?;
    tx.commit().await?;
    Ok(row)
}

/// Loads an address for a change by an admin of its company: AUTHORIZATION_ERROR otherwise (an
/// unknown id alike), INVALID_RESOURCE when it is terminated.
async fn for_admin(db: &Db, actor: Actor, id: i64) -> AppResult<KnownAddressRow> {
    let mut conn = db.pool.acquire().await?;
    let row = find(&mut conn, id)
        .await?
        .ok_or_else(|| AppError::authorization("Forbidden access"))?;
    drop(conn);
    permissions::require_admin(db, actor, row.company_id).await?;
    if row.dismissed_at.is_some() {
        return Err(terminated());
    }
    Ok(row)
}

fn terminated() -> AppError {
    AppError::invalid_resource("This known address is terminated").with("reason", "KNOWN_ADDRESS_TERMINATED")
}

/// `locations.editKnownAddress`: changes the alias (null or blank removes it).
pub async fn edit(db: &Db, actor: Actor, id: i64, given_alias: Option<&str>) -> AppResult<KnownAddressRow> {
    let row = for_admin(db, actor, id).await?;
    let alias = alias(given_alias)?;
    let mut tx = db.begin_write().await?;
    let done = sqlx::query(sql::SET_ALIAS)
        .bind(row.id)
        .bind(&alias)
        .execute(&mut *tx)
        .await?;
    if done.rows_affected() != 1 {
        return Err(terminated());
    }
    let row = find(&mut tx, id)
        .await?
        .ok_or_else(|| AppError::internal("known address vanished"))?;
    tx.commit().await?;
    Ok(row)
}

/// `locations.terminateKnownAddress`: the address leaves the book and the teams; the locations
/// already logged from it keep their address.
pub async fn terminate(db: &Db, actor: Actor, id: i64) -> AppResult<()> {
    let row = for_admin(db, actor, id).await?;
    let mut tx = db.begin_write().await?;
    let done = sqlx::query(sql::TERMINATE)
        .bind(row.id)
        .bind(now())
        .bind(actor.user_id)
        .execute(&mut *tx)
        .await?;
    if done.rows_affected() != 1 {
        return Err(terminated());
    }
    sqlx::query(sql::LEAVE_TEAMS).bind(row.id).execute(&mut *tx).await?;
    tx.commit().await?;
    Ok(())
}

/// The address of known address `id` of the company, for logLocation: INVALID_INPUTS when it is
/// not one of the company's addresses in use.
pub async fn for_location(conn: &mut AnyConnection, company_id: i64, id: i64) -> AppResult<Address> {
    match find(conn, id).await? {
        Some(row) if row.company_id == company_id && row.dismissed_at.is_none() => Ok(Address {
            name: row.name,
            city: row.city,
            postal_code: row.postal_code,
            known: Some(row.id),
        }),
        _ => Err(
            AppError::invalid_inputs("Invalid companyKnownAddressId: not an address of the mission's company")
                .with("field", "companyKnownAddressId"),
        ),
    }
}
