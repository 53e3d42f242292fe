//! `signUp.companies`: one sign-up of several establishments (SIRETs) of one SIREN, each its own
//! company with the caller as admin. What the reference reads from the company register (the
//! legal name, whether the company ceased activity, the NAF code that changes two settings'
//! defaults) is taken when the register answers and left as by default otherwise; everything
//! else comes from the caller.
//!
//! Unlike the reference, which creates each establishment on its own and silently leaves out
//! those that fail (a missing SIRET, one registered already), every establishment is checked
//! before any is created and the whole sign-up is one transaction: it creates them all, or
//! refuses with the first problem and creates nothing.

use crate::db::Db;
use crate::domain::auth::Actor;
use crate::domain::regulation::business::BusinessType;
use crate::errors::{AppError, AppResult};

use super::company::{self, NewCompany};

/// The most establishments one sign-up takes.
pub const MAX_ESTABLISHMENTS: usize = 100;

/// One establishment as the caller gives it (`CompanySiret`).
#[derive(Debug, Clone, Default)]
pub struct Establishment {
    pub siret: Option<String>,
    pub usual_name: Option<String>,
    pub phone_number: Option<String>,
    pub business_type: Option<String>,
    pub nb_workers: Option<i64>,
}

/// An establishment once checked.
struct Checked {
    siret: String,
    usual_name: String,
    phone_number: Option<String>,
    business: Option<BusinessType>,
    nb_workers: Option<i64>,
}

/// The refusal of the establishment at `index` (from 0), prefixed as the reference's.
fn numbered(index: usize, error: AppError) -> AppError {
    AppError {
        message: format!("Company {}: {}", index + 1, error.message),
        ..error
    }
    .with("index", index as i64)
}

fn check(siren: &str, item: &Establishment) -> AppResult<Checked> {
    let usual_name = item.usual_name.as_deref().map(str::trim).unwrap_or("");
    if usual_name.is_empty() {
        return Err(AppError::invalid_inputs("Company usual name is required").with("field", "usualName"));
    }
    let usual_name = company::validate_name(usual_name)?;
    let siret: String = item
        .siret
        .as_deref()
        .unwrap_or("")
        .chars()
        .filter(|c| !c.is_whitespace())
        .collect();
    if siret.is_empty() {
        // The reference leaves such an establishment out without a word; an establishment
        // without a SIRET would stand for the whole SIREN, which signUp.company registers.
        return Err(AppError::invalid_inputs("SIRET is required").with("field", "siret"));
    }
    if siret.chars().count() != 14 || !siret.chars().all(|c| c.is_ascii_digit()) {
        return Err(AppError::invalid_inputs("SIRET must be exactly 14 digits").with("field", "siret"));
    }
    if !siret.starts_with(siren) {
        return Err(AppError::invalid_inputs("SIRET must start with the company SIREN").with("field", "siret"));
    }
    if item.nb_workers.is_some_and(|n| n <= 0) {
        return Err(AppError::invalid_inputs("Number of workers must be greater than 0").with("field", "nbWorkers"));
    }
    let business = item
        .business_type
        .as_deref()
        .filter(|b| !b.is_empty())
        .map(|b| super::business::parse_name(b, "businessType"))
        .transpose()?;
    Ok(Checked {
        siret,
        usual_name,
        phone_number: item
            .phone_number
            .as_deref()
            .map(str::trim)
            .filter(|p| !p.is_empty())
            .map(str::to_string),
        business,
        nb_workers: item.nb_workers,
    })
}

/// `signUp.companies(siren, companies)`: answers the `(company, employment)` ids created, in the
/// order given.
pub async fn sign_up(
    db: &Db,
    register: &dyn super::register::CompanyRegister,
    actor: Actor,
    siren: &str,
    items: &[Establishment],
) -> AppResult<Vec<(i64, i64)>> {
    // Software acting with an employment token stays inside its one company: it creates none.
    if actor.scope.company().is_some() {
        return Err(crate::domain::auth::scope::out_of_scope());
    }
    let siren = company::validate_siren(siren)?;
    if items.is_empty() {
        return Err(AppError::invalid_inputs("Companies list cannot be empty").with("field", "companies"));
    }
    if items.len() > MAX_ESTABLISHMENTS {
        return Err(AppError::invalid_inputs(format!(
            "At most {MAX_ESTABLISHMENTS} companies can be signed up at once"
        ))
        .with("field", "companies"));
    }
    let mut checked = Vec::with_capacity(items.len());
    for (index, item) in items.iter().enumerate() {
        let establishment = check(&siren, item).map_err(|e| numbered(index, e))?;
        if checked.iter().any(|c: &Checked| c.siret == establishment.siret) {
            return Err(numbered(
                index,
                company::already_registered("SIRET_ALREADY_SIGNED_UP", "SIRET given twice"),
            ));
        }
        checked.push(establishment);
    }
    // The register's legal name when it has one (best effort, as for signUp.company).
    let legal_name = super::register::legal_name_for_sign_up(register, &siren).await?;
    let mut tx = db.begin_write().await?;
    company::lock_siren(&mut tx, &siren).await?;
    let registered = company::registered_sirets(&mut tx, &siren).await?;
    if registered.iter().any(Option::is_none) {
        return Err(company::already_registered(
            "SIREN_ALREADY_SIGNED_UP",
            "Company already registered globally for this SIREN (representing all establishments). Cannot create SIRET-specific establishments.",
        ));
    }
    for (index, establishment) in checked.iter().enumerate() {
        if registered
            .iter()
            .any(|s| s.as_deref() == Some(establishment.siret.as_str()))
        {
            return Err(numbered(
                index,
                company::already_registered("SIRET_ALREADY_SIGNED_UP", "SIRET already registered"),
            ));
        }
    }
    let mut created = Vec::with_capacity(checked.len());
    for establishment in &checked {
        let new = NewCompany {
            usual_name: &establishment.usual_name,
            legal_name: legal_name.as_deref(),
            siren: &siren,
            phone_number: establishment.phone_number.as_deref(),
        };
        let company_id = company::insert(&mut tx, new).await?;
        // "Other task" is offered by default to every business but shipping, as the reference's.
        let allow_other_task = establishment.business.map(|b| i64::from(b != BusinessType::Shipping));
        sqlx::query(
            "UPDATE companies SET siret = $2, number_workers = $3, business_id = $4, allow_other_task = $5 WHERE id = $1",
        )
        .bind(company_id)
        .bind(&establishment.siret)
        .bind(establishment.nb_workers)
        .bind(establishment.business.map(BusinessType::id))
        .bind(allow_other_task)
        .execute(&mut *tx)
        .await?;
        let employment_id = company::insert_admin(&mut tx, actor.user_id, company_id).await?;
        created.push((company_id, employment_id));
    }
    tx.commit().await?;
    Ok(created)
}
