//! `updateCompanyDetails(newName, newPhoneNumber, newNbWorkers, newLegalName)`: a company admin
//! changes the company's usual name, phone number, declared number of workers and (a Roadlog
//! extension) legal name. An omitted or
//! empty argument changes nothing; every value is checked before anything is written, and the
//! changes are written together.

use crate::db::Db;
use crate::domain::auth::Actor;
use crate::errors::{AppError, AppResult};

use super::company::validate_name;
use super::permissions;

/// Longest phone number kept (the reference stores any text; a bound keeps hostile input small).
pub const MAX_PHONE: usize = 30;

pub mod sql {
    crate::statements! {
        pub const SET_NAME: &str = "UPDATE companies SET usual_name = $2 WHERE id = $1";
        pub const SET_PHONE: &str = "UPDATE companies SET phone_number = $2 WHERE id = $1";
        pub const SET_NB_WORKERS: &str = "UPDATE companies SET number_workers = $2 WHERE id = $1";
        pub const SET_LEGAL_NAME: &str = "UPDATE companies SET legal_name = $2 WHERE id = $1";
    }
}

/// What `updateCompanyDetails` changes besides the business.
#[derive(Debug, Default, Clone)]
pub struct Details<'a> {
    pub name: Option<&'a str>,
    pub phone_number: Option<&'a str>,
    pub nb_workers: Option<i64>,
    /// Roadlog extension: the legal name.
    pub legal_name: Option<&'a str>,
}

/// The checked values to write; `None` leaves a column as it is.
#[derive(Debug, Default, PartialEq)]
struct Checked {
    name: Option<String>,
    phone: Option<String>,
    nb_workers: Option<i64>,
    legal_name: Option<String>,
}

/// Checks the details, with the reference's rules; answers what to write.
fn check(details: &Details<'_>) -> AppResult<Checked> {
    let name = match details.name.filter(|n| !n.is_empty()) {
        Some(raw) => Some(validate_name(raw).map_err(|_| {
            AppError::invalid_inputs("newName must be between 1 and 255 characters").with("field", "newName")
        })?),
        None => None,
    };
    let phone = match details.phone_number.filter(|p| !p.is_empty()) {
        Some(raw) => {
            let phone = raw.trim();
            if phone.is_empty() || phone.chars().count() > MAX_PHONE {
                return Err(AppError::invalid_inputs(format!(
                    "newPhoneNumber must be between 1 and {MAX_PHONE} characters"
                ))
                .with("field", "newPhoneNumber"));
            }
            Some(phone.to_string())
        }
        None => None,
    };
    if details.nb_workers.is_some_and(|n| n <= 0) {
        return Err(AppError::invalid_inputs("Number of workers must be greater than 0").with("field", "newNbWorkers"));
    }
    let legal_name = super::company::validate_legal_name(details.legal_name, "newLegalName")?;
    Ok(Checked {
        name,
        phone,
        nb_workers: details.nb_workers,
        legal_name,
    })
}

/// Changes the company's details, for an admin of it: all or nothing.
pub async fn update(db: &Db, actor: Actor, company_id: i64, details: Details<'_>) -> AppResult<()> {
    permissions::require_admin(db, actor, company_id).await?;
    let checked = check(&details)?;
    if checked == Checked::default() {
        return Ok(());
    }
    let Checked {
        name,
        phone,
        nb_workers,
        legal_name,
    } = checked;
    let mut tx = db.begin_write().await?;
    for (statement, value) in [
        (sql::SET_NAME, name),
        (sql::SET_PHONE, phone),
        (sql::SET_LEGAL_NAME, legal_name),
    ] {
        if let Some(value) = value {
            sqlx::query(statement)
                .bind(company_id)
                .bind(value)
                .execute(&mut *tx)
                .await?;
        }
    }
    if let Some(count) = nb_workers {
        sqlx::query(sql::SET_NB_WORKERS)
            .bind(company_id)
            .bind(count)
            .execute(&mut *tx)
            .await?;
    }
    tx.commit().await?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::{Checked, Details, check};

    #[test]
    fn empty_arguments_change_nothing_and_bad_ones_are_refused() {
        assert_eq!(check(&Details::default()).unwrap(), Checked::default());
        let empty = Details {
            name: Some(""),
            phone_number: Some(""),
            nb_workers: None,
            legal_name: Some("  "),
        };
        assert_eq!(check(&empty).unwrap(), Checked::default());
        let good = Details {
            name: Some(" Acme "),
            phone_number: Some("+33 1 23 45 67 89"),
            nb_workers: Some(12),
            legal_name: Some(" ACME TRANSPORTS SAS "),
        };
        assert_eq!(
            check(&good).unwrap(),
            Checked {
                name: Some("Acme".into()),
                phone: Some("+33 1 23 45 67 89".into()),
                nb_workers: Some(12),
                legal_name: Some("ACME TRANSPORTS SAS".into()),
            }
        );
        for bad in [
            Details {
                name: Some("   "),
                ..Details::default()
            },
            Details {
                phone_number: Some(&"1".repeat(31)),
                ..Details::default()
            },
            Details {
                nb_workers: Some(0),
                ..Details::default()
            },
            Details {
                legal_name: Some(&"L".repeat(256)),
                ..Details::default()
            },
        ] {
            assert!(check(&bad).is_err(), "{bad:?}");
        }
    }
}
