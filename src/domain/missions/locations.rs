//! Where a mission starts and ends, with the odometer reading (used by the C1B export for the
//! distance driven).

use sqlx::AnyConnection;

use crate::db::{is_unique_violation, now};
use crate::domain::auth::Actor;
use crate::domain::kinds::LocationEntryType;
use crate::errors::{AppError, AppResult};

use super::permissions;

pub use crate::domain::addresses::Address;

/// A location entry as stored.
#[derive(sqlx::FromRow, Debug, Clone)]
pub struct LocationRow {
    pub id: i64,
    pub mission_id: i64,
    #[sqlx(rename = "type")]
    pub kind: String,
    pub submitter_id: i64,
    pub reception_time: i64,
    pub name: String,
    pub city: Option<String>,
    pub postal_code: Option<String>,
    pub kilometer_reading: Option<i64>,
    /// The alias of the known address it was logged from, if any.
    pub alias: Option<String>,
}

/// Location statements.
pub mod sql {
    use crate::db::PerBackend;
    use const_format::concatcp;

    const SELECT: &str = "SELECT id, mission_id, type, submitter_id, reception_time, name, city, postal_code, kilometer_reading, \
         (SELECT k.alias FROM company_known_addresses k WHERE k.id = location_entries.company_known_address_id) AS alias \
         FROM location_entries";
    crate::statements! {
        /// `$1` mission, `$2` type.
        pub const OF_TYPE: &str = concatcp!(SELECT, " WHERE mission_id = $1 AND type = $2");
        pub const OF_MISSIONS: PerBackend = crate::per_backend!(SELECT, " WHERE ", ["mission_id" in 1]);
        pub const FIND: &str = concatcp!(SELECT, " WHERE id = $1");
        pub const SET_KILOMETERS: &str = "UPDATE location_entries SET kilometer_reading = $2 WHERE id = $1";
    }
}

/// Reads `manualAddress | geoApiData | companyKnownAddressId` (exactly one).
pub fn address(manual: Option<String>, geo: Option<serde_json::Value>, known: Option<i32>) -> AppResult<Address> {
    match (manual, geo, known) {
        (Some(manual), None, None) => {
            let name = manual.trim().to_string();
            if name.is_empty() || name.chars().count() > 500 {
                return Err(AppError::invalid_inputs(
                    "manualAddress must have between 1 and 500 characters",
                ));
            }
            Ok(Address {
                name,
                city: None,
                postal_code: None,
                known: None,
            })
        }
        (None, Some(geo), None) => {
            let properties = geo.get("properties").unwrap_or(&geo);
            let text = |key: &str| properties.get(key).and_then(|v| v.as_str()).map(str::to_string);
            let name = text("label").or_else(|| text("name")).ok_or_else(|| {
                AppError::invalid_inputs("geoApiData must be an address feature with properties.label")
            })?;
            Ok(Address {
                name,
                city: text("city"),
                postal_code: text("postcode"),
                known: None,
            })
        }
        // Read from the company's book by `log`, which knows the mission's company.
        (None, None, Some(known)) => Ok(Address {
            name: String::new(),
            city: None,
            postal_code: None,
            known: Some(i64::from(known)),
        }),
        _ => Err(AppError::invalid_inputs(
            "Exactly one of companyKnownAddressId or geoApiData or manualAddress should be set",
        )),
    }
}

async fn of_type(conn: &mut AnyConnection, mission_id: i64, kind: &str) -> AppResult<Option<LocationRow>> {
    Ok(sqlx::query_as::<_, LocationRow>(sql::OF_TYPE)
        .bind(mission_id)
        .bind(kind)
        .fetch_optional(conn)
        .await?)
}

/// `logLocation`.
pub async fn log(
    conn: &mut AnyConnection,
    actor: Actor,
    mission_id: i64,
    kind: LocationEntryType,
    address: Address,
    kilometer_reading: Option<i32>,
    override_existing: bool,
) -> AppResult<LocationRow> {
    let access = permissions::writable(conn, actor, mission_id, actor.user_id, now(), None).await?;
    if override_existing && !access.actor_is_admin {
        return Err(AppError::authorization("Only a company admin may override a location"));
    }
    let address = match address.known {
        Some(known) => {
            crate::domain::companies::known_addresses::for_location(conn, access.mission.company_id, known).await?
        }
        None => address,
    };
    let km = kilometer_reading.map(i64::from);
    if let Some(km) = km {
        if km < 0 {
            return Err(AppError::invalid_inputs("kilometerReading must not be negative"));
        }
        if access.mission.vehicle_id.is_none() {
            return Err(AppError::invalid_inputs(
                "kilometerReading can only be specified if the mission has an associated vehicle",
            ));
        }
        let other = match kind {
            LocationEntryType::MissionStartLocation => "mission_end_location",
            LocationEntryType::MissionEndLocation => "mission_start_location",
        };
        if let Some(other_km) = of_type(conn, mission_id, other)
            .await?
            .and_then(|o| o.kilometer_reading)
        {
            let (start, end) = if other == "mission_start_location" {
                (other_km, km)
            } else {
                (km, other_km)
            };
            if end < start {
                return Err(AppError::invalid_inputs(
                    "Kilometer reading at end of mission should be superior to kilometer reading at start",
                ));
            }
        }
    }
    let received = now();
    match of_type(conn, mission_id, kind.as_str()).await? {
        Some(existing) if existing.name == address.name || override_existing => {
            sqlx::query(
                "UPDATE location_entries SET name = $2, city = $3, postal_code = $4,
                        kilometer_reading = COALESCE($5, kilometer_reading), submitter_id = $6, reception_time = $7,
                        company_known_address_id = $8
                 WHERE id = $1",
            )
            .bind(existing.id)
            .bind(&address.name)
            .bind(&address.city)
            .bind(&address.postal_code)
            .bind(km)
            .bind(actor.user_id)
            .bind(received)
            .bind(address.known)
            .execute(&mut *conn)
            .await?;
        }
        Some(_) => {
            return Err(
                AppError::invalid_resource("A different location is already set for this end of the mission")
                    .with("reason", "LOCATION_ALREADY_SET"),
            );
        }
        None => {
            let inserted = sqlx::query(
                "INSERT INTO location_entries (mission_id, type, submitter_id, reception_time, creation_time, name, city,
                                               postal_code, kilometer_reading, company_known_address_id)
                 VALUES ($1, $2, $3, $4, $4, $5, $6, $7, $8, $9)",
            )
            .bind(mission_id)
            .bind(kind.as_str())
            .bind(actor.user_id)
            .bind(received)
            .bind(&address.name)
            .bind(&address.city)
            .bind(&address.postal_code)
            .bind(km)
            .bind(address.known)
            .execute(&mut *conn)
            .await;
            if let Err(e) = inserted {
                return Err(if is_unique_violation(&e) {
                    AppError::invalid_resource("A location is already set for this end of the mission")
                        .with("reason", "LOCATION_ALREADY_SET")
                } else {
                    e.into()
                });
            }
        }
    }
    if let (Some(km), Some(vehicle)) = (km, access.mission.vehicle_id) {
        sqlx::query(
            "UPDATE vehicles SET last_kilometer_reading = $2
             WHERE id = $1 AND (last_kilometer_reading IS NULL OR last_kilometer_reading < $2)",
        )
        .bind(vehicle)
        .bind(km)
        .execute(&mut *conn)
        .await?;
    }
    of_type(conn, mission_id, kind.as_str())
        .await?
        .ok_or_else(|| AppError::internal("location vanished"))
}

/// `registerKilometerAtLocation`: sets the odometer reading of a location entry, under the
/// mission's write rules. A reading of 0 changes nothing (as the reference); the start reading
/// must not exceed the end one. An unknown entry is refused like a forbidden one.
pub async fn register_kilometer(conn: &mut AnyConnection, actor: Actor, location_id: i64, km: i64) -> AppResult<()> {
    let found = sqlx::query_as::<_, LocationRow>(sql::FIND)
        .bind(location_id)
        .fetch_optional(&mut *conn)
        .await?;
    let location = found.ok_or_else(|| AppError::authorization("Forbidden access"))?;
    let access = permissions::writable(conn, actor, location.mission_id, actor.user_id, now(), None).await?;
    if km == 0 {
        return Ok(());
    }
    if km < 0 {
        return Err(AppError::invalid_inputs("kilometerReading must not be negative").with("field", "kilometerReading"));
    }
    if access.mission.vehicle_id.is_none() {
        return Err(AppError::invalid_inputs(
            "kilometerReading can only be specified if the mission has an associated vehicle",
        ));
    }
    let other = if location.kind == "mission_start_location" {
        "mission_end_location"
    } else {
        "mission_start_location"
    };
    if let Some(other_km) = of_type(conn, location.mission_id, other)
        .await?
        .and_then(|o| o.kilometer_reading)
    {
        let (start, end) = if other == "mission_start_location" {
            (other_km, km)
        } else {
            (km, other_km)
        };
        if end < start {
            return Err(AppError::invalid_inputs(
                "Kilometer reading at end of mission should be superior to kilometer reading at start",
            ));
        }
    }
    sqlx::query(sql::SET_KILOMETERS)
        .bind(location.id)
        .bind(km)
        .execute(&mut *conn)
        .await?;
    Ok(())
}
