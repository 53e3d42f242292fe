//! `vehicles.createVehicle`, `editVehicle` and `terminateVehicle`: a company's admins manage its
//! vehicles, as the reference does. Creating goes through the one matching rule
//! ([`super::find_or_create`]): a plate the company already has answers that vehicle (brought
//! back into service when terminated) rather than a second one. Terminating takes the vehicle
//! out of the company's list and out of every team; missions keep it. Rows are never deleted.

use crate::db::{Db, now};
use crate::domain::auth::Actor;
use crate::domain::companies::permissions;
use crate::errors::{AppError, AppResult};

use super::VehicleRow;

/// Longest alias, in characters (the reference has no bound; one keeps hostile input small).
pub const MAX_ALIAS: usize = 255;

pub mod sql {
    crate::statements! {
        pub const SET_ALIAS: &str = "UPDATE vehicles SET alias = $2 WHERE id = $1";
        /// Terminates vehicle `$1` at `$2`; a terminated one keeps its first date.
        pub const TERMINATE: &str =
            "UPDATE vehicles SET terminated_at = COALESCE(terminated_at, $2) WHERE id = $1";
        pub const LEAVE_TEAMS: &str = "DELETE FROM team_vehicles WHERE vehicle_id = $1";
    }
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

/// `vehicles.createVehicle` (company admins): the company's vehicle with this plate, found or
/// created; a given alias replaces the stored one, a blank or missing one keeps it.
pub async fn create(
    db: &Db,
    actor: Actor,
    company_id: i64,
    registration: &str,
    given_alias: Option<&str>,
) -> AppResult<VehicleRow> {
    permissions::require_admin(db, actor, company_id).await?;
    super::plate(registration, "registrationNumber")?;
    let alias = alias(given_alias)?;
    let mut tx = db.begin_write().await?;
    let row = super::find_or_create(&mut tx, company_id, registration, alias.as_deref()).await?;
    tx.commit().await?;
    Ok(row)
}

/// Loads a vehicle for a change by an admin of its company: AUTHORIZATION_ERROR otherwise, an
/// unknown id alike (ids cannot be probed).
async fn for_admin(db: &Db, actor: Actor, id: i64) -> AppResult<VehicleRow> {
    let row = super::find(db, id)
        .await?
        .ok_or_else(|| AppError::authorization("Forbidden operation"))?;
    permissions::require_admin(db, actor, row.company_id).await?;
    Ok(row)
}

/// `vehicles.editVehicle`: sets the alias; a missing, null or blank one removes it. A terminated
/// vehicle may be renamed (it still shows in the missions that used it).
pub async fn edit(db: &Db, actor: Actor, id: i64, given_alias: Option<&str>) -> AppResult<VehicleRow> {
    let row = for_admin(db, actor, id).await?;
    let alias = alias(given_alias)?;
    let mut tx = db.begin_write().await?;
    sqlx::query(sql::SET_ALIAS)
        .bind(row.id)
        .bind(&alias)
        .execute(&mut *tx)
        .await?;
    tx.commit().await?;
    super::find(db, id)
        .await?
        .ok_or_else(|| AppError::internal("vehicle vanished"))
}

/// `vehicles.terminateVehicle`: the vehicle leaves the company's list and every team; missions
/// keep it. Terminating it again changes nothing (its first date stays).
pub async fn terminate(db: &Db, actor: Actor, id: i64) -> AppResult<()> {
    let row = for_admin(db, actor, id).await?;
    let mut tx = db.begin_write().await?;
    sqlx::query(sql::TERMINATE)
        .bind(row.id)
        .bind(now())
        .execute(&mut *tx)
        .await?;
    sqlx::query(sql::LEAVE_TEAMS).bind(row.id).execute(&mut *tx).await?;
    tx.commit().await?;
    Ok(())
}

#[cfg(test)]
mod tests {
    #[test]
    fn aliases_are_trimmed_blank_is_none_and_bounded() {
        assert_eq!(super::alias(Some("  Le gros  ")).unwrap().as_deref(), Some("Le gros"));
        assert_eq!(super::alias(Some("   ")).unwrap(), None);
        assert_eq!(super::alias(None).unwrap(), None);
        assert!(super::alias(Some(&"é".repeat(255))).is_ok());
        assert_eq!(
            super::alias(Some(&"a".repeat(256))).unwrap_err().message,
            "alias must have at most 255 characters"
        );
    }
}
