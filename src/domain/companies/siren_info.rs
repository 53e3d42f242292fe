//! `sirenInfo`: what the company register says of a SIREN, and how far Roadlog has registered it.
//! The register answers first, as the reference's does: without one (the [`Offline`] register of
//! this server), the query fails with `NO_SIREN_API_CREDENTIALS` and tells nothing, not even the
//! registration status.
//!
//! [`Offline`]: super::register::Offline

use std::collections::BTreeSet;

use serde_json::{Map, Value};

use crate::db::Db;
use crate::errors::{AppError, AppResult, Code};

use super::company;
use super::register::{CompanyRegister, RegisterError, SirenRecord};

/// How far the establishments of a SIREN are registered in Roadlog.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Registration {
    /// No company has this SIREN.
    Unregistered,
    /// A company stands for every establishment of the SIREN.
    Fully,
    /// Companies stand for these establishments (SIRETs) only.
    Partially(BTreeSet<String>),
}

/// The answer of `sirenInfo`.
#[derive(Debug, Clone, PartialEq)]
pub struct SirenInfo {
    pub registration: Registration,
    pub legal_unit: Map<String, Value>,
    /// Each open establishment, with `registered` when the SIREN is partially registered.
    pub facilities: Vec<Map<String, Value>>,
}

/// The registration of a SIREN, from the SIRETs of its companies.
pub fn registration(sirets: &[Option<String>]) -> Registration {
    if sirets.is_empty() {
        Registration::Unregistered
    } else if sirets.iter().any(Option::is_none) {
        Registration::Fully
    } else {
        Registration::Partially(sirets.iter().flatten().cloned().collect())
    }
}

/// The register's record with Roadlog's registration: each facility says whether it is
/// registered only when some establishments are and others may not be, as the reference's.
pub fn assemble(record: SirenRecord, registration: Registration) -> SirenInfo {
    let facilities = record
        .facilities
        .into_iter()
        .map(|facility| {
            let mut details = facility.details;
            details.insert("siret".into(), Value::String(facility.siret.clone()));
            if let Registration::Partially(registered) = &registration {
                details.insert("registered".into(), Value::Bool(registered.contains(&facility.siret)));
            }
            details
        })
        .collect();
    SirenInfo {
        registration,
        legal_unit: record.legal_unit,
        facilities,
    }
}

/// The error `sirenInfo` answers when the register does not.
pub fn register_error(siren: &str, error: RegisterError) -> AppError {
    match error {
        RegisterError::NotConfigured => AppError::new(
            Code::NoSirenApiCredentials,
            "No company register is configured on this server: SIRENs cannot be looked up",
        ),
        RegisterError::NotFound => AppError::new(Code::InaccessibleSiren, format!("SIREN {siren} was not found")),
        RegisterError::Unavailable(why) => AppError::new(
            Code::UnavailableSirenApi,
            format!("Request to get info of SIREN {siren} failed: {why}"),
        ),
    }
}

/// `sirenInfo(siren)`: needs no authentication, as the reference's.
pub async fn siren_info(db: &Db, register: &dyn CompanyRegister, siren: &str) -> AppResult<SirenInfo> {
    let siren = company::validate_siren(siren)?;
    let record = register
        .siren_record(&siren)
        .await
        .map_err(|error| register_error(&siren, error))?;
    let mut conn = db.pool.acquire().await?;
    let sirets = company::registered_sirets(&mut conn, &siren).await?;
    Ok(assemble(record, registration(&sirets)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::companies::register::Facility;

    fn record() -> SirenRecord {
        let facility = |siret: &str| Facility {
            siret: siret.into(),
            details: Map::from_iter([("name".to_string(), Value::String("Dépôt".into()))]),
        };
        SirenRecord {
            legal_unit: Map::from_iter([("siren".to_string(), Value::String("123456789".into()))]),
            facilities: vec![facility("12345678900012"), facility("12345678900020")],
        }
    }

    #[test]
    fn registration_follows_the_companies_of_the_siren() {
        assert_eq!(registration(&[]), Registration::Unregistered);
        assert_eq!(
            registration(&[Some("12345678900012".into()), None]),
            Registration::Fully
        );
        assert_eq!(
            registration(&[Some("12345678900012".into())]),
            Registration::Partially(BTreeSet::from(["12345678900012".to_string()]))
        );
    }

    #[test]
    fn facilities_say_whether_they_are_registered_only_when_partially() {
        let partial = assemble(
            record(),
            Registration::Partially(BTreeSet::from(["12345678900020".to_string()])),
        );
        let registered: Vec<_> = partial.facilities.iter().map(|f| f["registered"].clone()).collect();
        assert_eq!(registered, [Value::Bool(false), Value::Bool(true)]);
        assert_eq!(partial.facilities[0]["siret"], "12345678900012");
        let full = assemble(record(), Registration::Fully);
        assert!(full.facilities.iter().all(|f| !f.contains_key("registered")));
        assert_eq!(full.legal_unit["siren"], "123456789");
    }

    #[test]
    fn register_failures_have_the_reference_codes() {
        assert_eq!(
            register_error("123456789", RegisterError::NotConfigured).code,
            Code::NoSirenApiCredentials
        );
        assert_eq!(
            register_error("123456789", RegisterError::NotFound).code,
            Code::InaccessibleSiren
        );
        let unavailable = register_error("123456789", RegisterError::Unavailable("HTTP 503".into()));
        assert_eq!(unavailable.code, Code::UnavailableSirenApi);
        assert!(unavailable.message.contains("HTTP 503"));
    }
}
