//! A company's vehicles: the one rule that matches a registration number to a vehicle
//! (find-or-create, used by `vehicles.createVehicle` and by missions'
//! `vehicleRegistrationNumber`), their reads, and their management by admins (`manage.rs`).
//!
//! Plates are stored normalised (upper case, no spaces or dashes: [`normalize`]) and unique per
//! company, terminated vehicles included, so "ab-123 cd" and "AB123CD" are one vehicle and a
//! lookup is one index probe. The reference matches with a SQL `LIKE` whose pattern is the
//! caller's input (`ab%` matched AB123CD), and stores the last spelling typed.
//!
//! A terminated vehicle leaves `Company.vehicles` and the teams, but missions keep it
//! (`Mission.vehicle`, the C1B files) and `createMission(vehicleId)` may still name it; matching
//! its plate again brings it back into service, with the same id.

pub mod manage;

use sqlx::AnyConnection;

use crate::db::{Db, is_unique_violation, now};
use crate::errors::{AppError, AppResult};

/// A vehicle as stored.
#[derive(sqlx::FromRow, Debug, Clone)]
pub struct VehicleRow {
    pub id: i64,
    pub company_id: i64,
    pub registration_number: String,
    pub alias: Option<String>,
    pub last_kilometer_reading: Option<i64>,
    pub creation_time: i64,
    /// When the vehicle was taken out of service; None while in service.
    pub terminated_at: Option<i64>,
}

/// Vehicle statements.
pub mod sql {
    use crate::db::PerBackend;
    use const_format::concatcp;

    const SELECT: &str = "SELECT id, company_id, registration_number, alias, last_kilometer_reading, creation_time, \
         terminated_at FROM vehicles";
    crate::statements! {
        pub const FIND: &str = concatcp!(SELECT, " WHERE id = $1");
        pub const FIND_MANY: PerBackend = crate::per_backend!(SELECT, " WHERE ", ["id" in 1]);
        /// `$1` id, `$2` company.
        pub const OF_COMPANY_BY_ID: &str = concatcp!(SELECT, " WHERE id = $1 AND company_id = $2");
        /// `$1` company, `$2` normalized plate.
        pub const BY_REGISTRATION: &str = concatcp!(SELECT, " WHERE company_id = $1 AND registration_number = $2");
        /// Adds vehicle `$3` to the team of user `$1`'s latest current (`$4`) accepted employment
        /// in company `$2`, when that team lists vehicles and not this one.
        pub const JOIN_TEAM_OF: &str = "INSERT INTO team_vehicles (team_id, vehicle_id) \
             SELECT c.team_id, CAST($3 AS BIGINT) FROM (SELECT e.team_id FROM employments e \
               WHERE e.user_id = $1 AND e.company_id = $2 AND e.validation_status = 'approved' \
                 AND e.dismissed_at IS NULL AND e.start_date <= $4 AND (e.end_date IS NULL OR e.end_date >= $4) \
               ORDER BY e.id DESC LIMIT 1) c \
             WHERE c.team_id IS NOT NULL \
               AND EXISTS (SELECT 1 FROM team_vehicles t WHERE t.team_id = c.team_id) \
               AND NOT EXISTS (SELECT 1 FROM team_vehicles t WHERE t.team_id = c.team_id AND t.vehicle_id = $3) \
             ON CONFLICT DO NOTHING";
        /// Brings vehicle `$1` back into service; `$2` replaces its alias when not null.
        pub const REVIVE: &str = "UPDATE vehicles SET terminated_at = NULL, alias = COALESCE($2, alias) WHERE id = $1";
        pub const OF_COMPANY: &str = concatcp!(
            SELECT,
            " WHERE company_id = $1 AND terminated_at IS NULL ORDER BY registration_number"
        );
    }
}

/// Upper case without spaces or dashes: "ab-123 cd" and "AB123CD" are the same plate.
pub fn normalize(registration: &str) -> Option<String> {
    let plate: String = registration
        .chars()
        .filter(|c| !c.is_whitespace() && *c != '-')
        .flat_map(char::to_uppercase)
        .collect();
    (!plate.is_empty() && plate.chars().count() <= 32).then_some(plate)
}

/// The company's vehicle with this id, if it is the company's.
pub async fn of_company_by_id(conn: &mut AnyConnection, company_id: i64, id: i64) -> AppResult<Option<VehicleRow>> {
    Ok(sqlx::query_as::<_, VehicleRow>(sql::OF_COMPANY_BY_ID)
        .bind(id)
        .bind(company_id)
        .fetch_optional(conn)
        .await?)
}

/// The plate to match, or INVALID_INPUTS naming `field`.
pub fn plate(registration: &str, field: &str) -> AppResult<String> {
    normalize(registration)
        .ok_or_else(|| AppError::invalid_inputs("Invalid vehicle registration number").with("field", field))
}

/// Finds the company's vehicle with this registration, or creates it, as the reference does: a
/// terminated one is brought back into service (same id), and `alias`, when given, replaces
/// the stored one. Inside the caller's transaction.
pub async fn find_or_create(
    conn: &mut AnyConnection,
    company_id: i64,
    registration: &str,
    alias: Option<&str>,
) -> AppResult<VehicleRow> {
    let plate = plate(registration, "vehicleRegistrationNumber")?;
    let found = sqlx::query_as::<_, VehicleRow>(sql::BY_REGISTRATION)
        .bind(company_id)
        .bind(&plate)
        .fetch_optional(&mut *conn)
        .await?;
    match found {
        Some(found) if found.terminated_at.is_none() && alias.is_none() => return Ok(found),
        Some(found) => {
            sqlx::query(sql::REVIVE)
                .bind(found.id)
                .bind(alias)
                .execute(&mut *conn)
                .await?;
        }
        None => {
            let inserted = sqlx::query(
                "INSERT INTO vehicles (company_id, registration_number, alias, creation_time) VALUES ($1, $2, $3, $4)
                 ON CONFLICT (company_id, registration_number) DO NOTHING",
            )
            .bind(company_id)
            .bind(&plate)
            .bind(alias)
            .bind(now())
            .execute(&mut *conn)
            .await;
            if let Err(e) = inserted
                && !is_unique_violation(&e)
            {
                return Err(e.into());
            }
        }
    }
    sqlx::query_as::<_, VehicleRow>(sql::BY_REGISTRATION)
        .bind(company_id)
        .bind(&plate)
        .fetch_optional(&mut *conn)
        .await?
        .ok_or_else(|| AppError::internal("vehicle vanished"))
}

/// Resolves `vehicleId | vehicleRegistrationNumber` for a company, for the mission of `actor`
/// (a user id). An id of another company gives no vehicle, as in the reference; an id names a
/// terminated vehicle as it is, while a registration number goes through [`find_or_create`]
/// and then joins the actor's team ([`join_team_of`]).
pub async fn resolve(
    conn: &mut AnyConnection,
    company_id: i64,
    actor: i64,
    vehicle_id: Option<i32>,
    registration: Option<&str>,
) -> AppResult<Option<VehicleRow>> {
    match (vehicle_id, registration) {
        (Some(_), Some(_)) => Err(AppError::invalid_inputs(
            "Either vehicleId or vehicleRegistrationNumber should be set, not both",
        )),
        (Some(id), None) => of_company_by_id(conn, company_id, id.into()).await,
        (None, Some(plate)) => {
            let vehicle = find_or_create(conn, company_id, plate, None).await?;
            join_team_of(conn, company_id, actor, vehicle.id).await?;
            Ok(Some(vehicle))
        }
        (None, None) => Ok(None),
    }
}

/// As the reference: a vehicle a worker names by its plate joins the team of the worker's
/// current employment in the company when that team already lists vehicles (a team without any
/// is left alone: it does not manage vehicles). A team it is in already is unchanged.
pub async fn join_team_of(conn: &mut AnyConnection, company_id: i64, user_id: i64, vehicle_id: i64) -> AppResult<()> {
    let today = crate::domain::companies::date_text(crate::domain::companies::today());
    sqlx::query(sql::JOIN_TEAM_OF)
        .bind(user_id)
        .bind(company_id)
        .bind(vehicle_id)
        .bind(today)
        .execute(conn)
        .await?;
    Ok(())
}

/// The company's vehicles still in service.
pub async fn of_company(db: &Db, company_id: i64) -> AppResult<Vec<VehicleRow>> {
    Ok(sqlx::query_as::<_, VehicleRow>(sql::OF_COMPANY)
        .bind(company_id)
        .fetch_all(db)
        .await?)
}

/// Reads a vehicle.
pub async fn find(db: &Db, id: i64) -> AppResult<Option<VehicleRow>> {
    Ok(sqlx::query_as::<_, VehicleRow>(sql::FIND)
        .bind(id)
        .fetch_optional(db)
        .await?)
}

#[cfg(test)]
mod tests {
    #[test]
    fn plates_are_normalised() {
        assert_eq!(super::normalize("ab-123 cd").as_deref(), Some("AB123CD"));
        assert_eq!(super::normalize(" - "), None);
    }
}
