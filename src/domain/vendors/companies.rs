//! `softwareRegistration`: a client registers a company (SIREN, optionally one establishment's
//! SIRET) and is linked to it; and the link checks of every vendor operation on a company.

use crate::db::{Db, now};
use crate::domain::companies::company::{self, CompanyRow};
use crate::errors::{AppError, AppResult};

/// What a client sends to register a company.
pub struct Registration<'a> {
    pub usual_name: &'a str,
    pub siren: &'a str,
    pub siret: Option<&'a str>,
    pub nb_workers: i64,
}

/// Checks a SIRET: 14 digits, the first nine being the company's SIREN.
pub fn validate_siret(raw: &str, siren: &str) -> AppResult<String> {
    let siret: String = raw.chars().filter(|c| !c.is_whitespace()).collect();
    if siret.chars().count() != 14 || !siret.chars().all(|c| c.is_ascii_digit()) {
        return Err(AppError::invalid_inputs("SIRET must be exactly 14 digits").with("field", "siret"));
    }
    if !siret.starts_with(siren) {
        return Err(AppError::invalid_inputs("SIRET must start with the SIREN").with("field", "siret"));
    }
    Ok(siret)
}

/// Registers a company for `client_id` and links the client to it, in one transaction. A SIREN
/// registered without SIRET covers every establishment: it is refused when any company of that
/// SIREN exists (SIREN_ALREADY_SIGNED_UP); an establishment is refused when its SIRET is
/// registered (SIRET_ALREADY_SIGNED_UP) or its SIREN was registered whole.
pub async fn register(db: &Db, client_id: i64, registration: Registration<'_>) -> AppResult<CompanyRow> {
    let usual_name = company::validate_name(registration.usual_name)?;
    let siren = company::validate_siren(registration.siren)?;
    let siret = registration
        .siret
        .filter(|s| !s.trim().is_empty())
        .map(|s| validate_siret(s, &siren))
        .transpose()?;
    if registration.nb_workers <= 0 {
        return Err(AppError::invalid_inputs("nbWorkers must be greater than 0").with("field", "nbWorkers"));
    }
    let mut tx = db.begin_write().await?;
    // Two registrations of one SIREN must not both pass the checks below.
    company::lock_siren(&mut tx, &siren).await?;
    let existing = company::registered_sirets(&mut tx, &siren).await?;
    match &siret {
        None if !existing.is_empty() => {
            return Err(company::already_registered(
                "SIREN_ALREADY_SIGNED_UP",
                "A company with this SIREN is already registered",
            ));
        }
        Some(siret) if existing.iter().any(|s| s.as_deref() == Some(siret.as_str())) => {
            return Err(company::already_registered(
                "SIRET_ALREADY_SIGNED_UP",
                "This SIRET is already registered",
            ));
        }
        Some(_) if existing.iter().any(Option::is_none) => {
            return Err(company::already_registered(
                "SIREN_ALREADY_SIGNED_UP",
                "A company with this SIREN is already registered",
            ));
        }
        _ => {}
    }
    // The vendor API's registration names no legal name (the reference's takes none either).
    let new = company::NewCompany {
        usual_name: &usual_name,
        legal_name: None,
        siren: &siren,
        phone_number: None,
    };
    let company_id = company::insert(&mut tx, new).await?;
    sqlx::query("UPDATE companies SET siret = $2, number_workers = $3 WHERE id = $1")
        .bind(company_id)
        .bind(&siret)
        .bind(registration.nb_workers)
        .execute(&mut *tx)
        .await?;
    sqlx::query("INSERT INTO client_companies (client_id, company_id, created_at) VALUES ($1, $2, $3)")
        .bind(client_id)
        .bind(company_id)
        .bind(now())
        .execute(&mut *tx)
        .await?;
    tx.commit().await?;
    company::find(db, company_id)
        .await?
        .ok_or_else(|| AppError::internal("company vanished"))
}

/// The reference's refusal when a client acts on a company it is not linked to.
pub fn no_access_to_company() -> AppError {
    AppError::authorization("You do not have access to the provided company id")
}

/// Whether the client holds an active link to the company.
pub async fn is_linked(conn: &mut sqlx::AnyConnection, client_id: i64, company_id: i64) -> AppResult<bool> {
    let row: Option<(i64,)> = sqlx::query_as(
        "SELECT 1 FROM client_companies WHERE client_id = $1 AND company_id = $2 AND dismissed_at IS NULL",
    )
    .bind(client_id)
    .bind(company_id)
    .fetch_optional(&mut *conn)
    .await?;
    Ok(row.is_some())
}

#[cfg(test)]
mod tests {
    #[test]
    fn sirets_are_fourteen_digits_starting_with_the_siren() {
        assert_eq!(
            super::validate_siret("123 456 789 00012", "123456789").unwrap(),
            "12345678900012"
        );
        for bad in ["1234567890001", "1234567890001A", "98765432100012", ""] {
            assert!(super::validate_siret(bad, "123456789").is_err(), "{bad}");
        }
    }
}
