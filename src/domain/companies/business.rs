//! The business of a company and of its employments (the transport and business type that set
//! the thresholds of the regulatory checks): read, changed by a company admin, and the one the
//! checks use for a worker.

use sqlx::AnyConnection;

use crate::db::Db;
use crate::domain::auth::Actor;
use crate::domain::regulation::business::BusinessType;
use crate::errors::{AppError, AppResult};

use super::employments::find;
use super::{date_text, permissions, today};

/// Reads a business type member name (`LONG_DISTANCE`, …): INVALID_INPUTS for any other text.
pub fn parse_name(name: &str, field: &str) -> AppResult<BusinessType> {
    BusinessType::from_name(name).ok_or_else(|| {
        AppError::invalid_inputs(format!("Business type {name} not found"))
            .with("field", field)
            .with(
                "allowed",
                BusinessType::ALL.iter().map(|b| b.name()).collect::<Vec<_>>(),
            )
    })
}

pub mod sql {
    crate::statements! {
        /// The business of each worker `$1` in company `$2` on day `$3`: that of their latest
        /// current acknowledged employment there (as [`super::for_worker`] reads it), null when
        /// none has one.
        pub const FOR_WORKERS: crate::db::PerBackend = crate::per_backend!(
            "SELECT u.id, (SELECT e.business_id FROM employments e WHERE e.user_id = u.id AND e.company_id = $2 \
               AND e.validation_status = 'approved' AND e.dismissed_at IS NULL AND e.start_date <= $3 \
               AND (e.end_date IS NULL OR e.end_date >= $3) ORDER BY e.id DESC LIMIT 1) \
             FROM users u WHERE ",
            ["u.id" in 1]
        );
    }
}

fn from_row(row: Option<(Option<i64>,)>) -> Option<BusinessType> {
    row.and_then(|(id,)| id).and_then(BusinessType::from_id)
}

/// A company's business; `None` when none was chosen (or no such company).
pub async fn of_company(db: &Db, company_id: i64) -> AppResult<Option<BusinessType>> {
    let row: Option<(Option<i64>,)> = sqlx::query_as("SELECT business_id FROM companies WHERE id = $1")
        .bind(company_id)
        .fetch_optional(db)
        .await?;
    Ok(from_row(row))
}

/// An employment's business; `None` when it has none.
pub async fn of_employment(db: &Db, employment_id: i64) -> AppResult<Option<BusinessType>> {
    let row: Option<(Option<i64>,)> = sqlx::query_as("SELECT business_id FROM employments WHERE id = $1")
        .bind(employment_id)
        .fetch_optional(db)
        .await?;
    Ok(from_row(row))
}

/// The business the checks use for a worker in a company: that of the worker's current
/// acknowledged employment there, else the default (SHIPPING).
pub async fn for_worker(conn: &mut AnyConnection, user_id: i64, company_id: i64) -> AppResult<BusinessType> {
    let row: Option<(Option<i64>,)> = sqlx::query_as(
        "SELECT business_id FROM employments WHERE user_id = $1 AND company_id = $2 AND validation_status = 'approved'
           AND dismissed_at IS NULL AND start_date <= $3 AND (end_date IS NULL OR end_date >= $3)
         ORDER BY id DESC LIMIT 1",
    )
    .bind(user_id)
    .bind(company_id)
    .bind(date_text(today()))
    .fetch_optional(conn)
    .await?;
    Ok(from_row(row).unwrap_or(BusinessType::DEFAULT))
}

/// [`for_worker`] for several workers in one statement (the rebuild).
pub async fn for_workers(
    conn: &mut AnyConnection,
    users: &[i64],
    company_id: i64,
) -> AppResult<std::collections::BTreeMap<i64, BusinessType>> {
    let rows: Vec<(i64, Option<i64>)> = sqlx::query_as(crate::db::Backend::of(conn).sql(sql::FOR_WORKERS))
        .bind(crate::db::id_list(users))
        .bind(company_id)
        .bind(date_text(today()))
        .fetch_all(&mut *conn)
        .await?;
    let found: std::collections::BTreeMap<i64, BusinessType> = rows
        .into_iter()
        .map(|(user, business)| (user, from_row(Some((business,))).unwrap_or(BusinessType::DEFAULT)))
        .collect();
    Ok(users
        .iter()
        .map(|user| (*user, found.get(user).copied().unwrap_or(BusinessType::DEFAULT)))
        .collect())
}

/// `updateCompanyDetails(newBusinessType, applyBusinessTypeToEmployees)`: a company admin
/// changes the company's business; when it changes and `apply` is set, every employment of the
/// company takes it. An absent or empty name changes nothing.
pub async fn update_company(db: &Db, actor: Actor, company_id: i64, name: Option<&str>, apply: bool) -> AppResult<()> {
    permissions::require_admin(db, actor, company_id).await?;
    let Some(name) = name.filter(|n| !n.is_empty()) else {
        return Ok(());
    };
    let business = parse_name(name, "newBusinessType")?;
    if of_company(db, company_id).await? == Some(business) {
        return Ok(());
    }
    let mut tx = db.begin_write().await?;
    sqlx::query("UPDATE companies SET business_id = $2 WHERE id = $1")
        .bind(company_id)
        .bind(business.id())
        .execute(&mut *tx)
        .await?;
    if apply {
        sqlx::query("UPDATE employments SET business_id = $2 WHERE company_id = $1")
            .bind(company_id)
            .bind(business.id())
            .execute(&mut *tx)
            .await?;
    }
    tx.commit().await?;
    Ok(())
}

/// `updateCompanyDetails(euDrivingTimeChecks)` (Roadlog extension): a company admin turns the EU
/// driving-time checks on or off.
pub async fn set_eu_driving_checks(db: &Db, actor: Actor, company_id: i64, on: bool) -> AppResult<()> {
    permissions::require_admin(db, actor, company_id).await?;
    sqlx::query("UPDATE companies SET eu_driving_checks = $2 WHERE id = $1")
        .bind(company_id)
        .bind(i64::from(on))
        .execute(db)
        .await?;
    Ok(())
}

/// `changeEmployeeBusinessType`: an admin of the employment's company changes its business;
/// returns the company id. An unknown employment looks like a forbidden one.
pub async fn change_employee(db: &Db, actor: Actor, employment_id: i64, name: &str) -> AppResult<i64> {
    let mut conn = db.pool.acquire().await?;
    let row = find(&mut conn, employment_id)
        .await?
        .ok_or_else(|| AppError::authorization("Actor is not authorized to change employee business type"))?;
    if !permissions::is_admin(db, actor, row.company_id).await? {
        return Err(AppError::authorization(
            "Actor is not authorized to change employee business type",
        ));
    }
    let business = parse_name(name, "businessType")?;
    sqlx::query("UPDATE employments SET business_id = $2 WHERE id = $1")
        .bind(employment_id)
        .bind(business.id())
        .execute(&mut *conn)
        .await?;
    Ok(row.company_id)
}
