//! Companies: creation at sign-up and reading.

use sqlx::AnyConnection;

use crate::db::{Db, now};
use crate::domain::auth::Actor;
use crate::errors::{AppError, AppResult};

/// A company as stored.
#[derive(sqlx::FromRow, Debug, Clone)]
pub struct CompanyRow {
    pub id: i64,
    pub usual_name: String,
    pub siren: String,
    pub phone_number: Option<String>,
    pub has_ceased_activity: i64,
    pub allow_team_mode: i64,
    pub allow_transfers: i64,
    pub require_kilometer_data: i64,
    pub require_expenditures: i64,
    pub require_support_activity: i64,
    pub require_mission_name: i64,
    /// Whether "other task" (`work`) activities are offered: NULL for a company created without a
    /// business (every company created here), as the reference leaves it.
    pub allow_other_task: Option<i64>,
    /// The subtitle of "other task", at most 24 characters; `Some("")` by default.
    pub other_task_label: Option<String>,
    /// Roadlog extension: the EU driving-time checks (0/1).
    pub eu_driving_checks: i64,
    /// The number of workers the company declares.
    pub number_workers: Option<i64>,
    /// The legal name, as given at sign-up or by an admin; `None` until given.
    pub legal_name: Option<String>,
}

pub const COMPANY_COLUMNS: &str = "id, usual_name, siren, phone_number, has_ceased_activity, allow_team_mode, \
     allow_transfers, require_kilometer_data, require_expenditures, require_support_activity, require_mission_name, \
     allow_other_task, other_task_label, eu_driving_checks, number_workers, legal_name";

/// Company statements.
pub mod sql {
    use super::COMPANY_COLUMNS;
    use crate::db::PerBackend;
    use const_format::concatcp;

    crate::statements! {
        pub const FIND: &str = concatcp!("SELECT ", COMPANY_COLUMNS, " FROM companies WHERE id = $1");
        /// Company `$2` when user `$1` is employed by it on `$3` (today), pending invitations
        /// included: the permission and the read in one round trip.
        pub const FIND_FOR_EMPLOYEE: &str = concatcp!(
            "SELECT ",
            COMPANY_COLUMNS,
            " FROM companies WHERE id = $2 AND EXISTS (",
            crate::domain::companies::permissions::sql::EMPLOYED_TODAY,
            ")"
        );
        /// `$1` user, `$2` today.
        pub const ADMINED_BY: &str = concatcp!(
            "SELECT ",
            COMPANY_COLUMNS,
            " FROM companies WHERE id IN ( \
                SELECT e.company_id FROM employments e WHERE e.user_id = $1 AND e.validation_status = 'approved' \
                  AND e.dismissed_at IS NULL AND e.has_admin_rights = 1 AND e.start_date <= $2 \
                  AND (e.end_date IS NULL OR e.end_date >= $2)) \
             ORDER BY id"
        );
        pub const FIND_MANY: PerBackend = crate::per_backend!("SELECT ", COMPANY_COLUMNS, " FROM companies WHERE ", ["id" in 1]);
        /// `$1` the SIREN as a number: holds the registrations of that SIREN until the transaction
        /// ends (PostgreSQL: a transaction-scoped advisory lock; SQLite runs one write transaction
        /// at a time already, so it only reads the parameter).
        pub const LOCK_SIREN: PerBackend = PerBackend {
            sqlite: "SELECT $1",
            postgres: "SELECT 1 FROM (SELECT pg_advisory_xact_lock($1)) AS held",
        };
    }
}

/// Holds the registrations of a (checked, 9-digit) SIREN until the transaction ends, so that two
/// registrations of one SIREN do not both pass their checks.
pub async fn lock_siren(conn: &mut AnyConnection, siren: &str) -> AppResult<()> {
    let key: i64 = siren.parse().map_err(AppError::internal)?;
    sqlx::query(crate::db::Backend::of(conn).sql(sql::LOCK_SIREN))
        .bind(key)
        .execute(conn)
        .await?;
    Ok(())
}

/// The SIRETs registered for a SIREN, one per company (`None`: a company standing for every
/// establishment of the SIREN).
pub async fn registered_sirets(conn: &mut AnyConnection, siren: &str) -> AppResult<Vec<Option<String>>> {
    let rows: Vec<(Option<String>,)> = sqlx::query_as("SELECT siret FROM companies WHERE siren = $1 ORDER BY id")
        .bind(siren)
        .fetch_all(conn)
        .await?;
    Ok(rows.into_iter().map(|(siret,)| siret).collect())
}

/// The refusal of a registration that a company registered already stands in the way of:
/// `INVALID_INPUTS` with `extensions.reason` (`SIREN_ALREADY_SIGNED_UP`, `SIRET_ALREADY_SIGNED_UP`),
/// the same for every way of registering a company.
pub fn already_registered(reason: &'static str, message: &str) -> AppError {
    AppError::invalid_inputs(message).with("reason", reason)
}

/// Checks a SIREN (the 9-digit French company number), with the reference's messages.
pub fn validate_siren(raw: &str) -> AppResult<String> {
    let siren: String = raw.chars().filter(|c| !c.is_whitespace()).collect();
    if siren.chars().count() != 9 {
        return Err(AppError::invalid_inputs(format!(
            "SIREN must be exactly 9 characters (received: {})",
            siren.chars().count()
        ))
        .with("field", "siren"));
    }
    if !siren.chars().all(|c| c.is_ascii_digit()) {
        return Err(AppError::invalid_inputs("SIREN must contain only digits").with("field", "siren"));
    }
    Ok(siren)
}

/// Checks the name shown for a company.
pub fn validate_name(raw: &str) -> AppResult<String> {
    let name = raw.trim();
    if name.is_empty() || name.chars().count() > 255 {
        return Err(
            AppError::invalid_inputs("usualName must be between 1 and 255 characters").with("field", "usualName"),
        );
    }
    Ok(name.to_string())
}

/// A legal name as given (`legalName`, `newLegalName`): trimmed, 1 to 255 characters; `None`
/// for an omitted or blank one.
pub fn validate_legal_name(raw: Option<&str>, field: &str) -> AppResult<Option<String>> {
    let Some(name) = raw.map(str::trim).filter(|n| !n.is_empty()) else {
        return Ok(None);
    };
    if name.chars().count() > 255 {
        return Err(
            AppError::invalid_inputs(format!("{field} must be between 1 and 255 characters")).with("field", field),
        );
    }
    Ok(Some(name.to_string()))
}

/// What a new company is given.
#[derive(Debug, Clone, Copy)]
pub struct NewCompany<'a> {
    pub usual_name: &'a str,
    pub legal_name: Option<&'a str>,
    pub siren: &'a str,
    pub phone_number: Option<&'a str>,
}

/// Inserts a company (its values checked already), inside the caller's transaction.
pub async fn insert(conn: &mut AnyConnection, company: NewCompany<'_>) -> AppResult<i64> {
    let (id,): (i64,) = sqlx::query_as(
        "INSERT INTO companies (usual_name, legal_name, siren, phone_number, creation_time) \
         VALUES ($1, $2, $3, $4, $5) RETURNING id",
    )
    .bind(company.usual_name)
    .bind(company.legal_name)
    .bind(company.siren)
    .bind(company.phone_number)
    .bind(now())
    .fetch_one(conn)
    .await?;
    Ok(id)
}

/// Reads a company.
pub async fn find(db: &Db, id: i64) -> AppResult<Option<CompanyRow>> {
    Ok(sqlx::query_as::<_, CompanyRow>(sql::FIND)
        .bind(id)
        .fetch_optional(db)
        .await?)
}

/// A company, when `user` is employed by it today (a pending invitation included: the rule of
/// [`is_employed`](super::permissions::is_employed)); `None` for an unknown company and a
/// forbidden one alike.
pub async fn find_for_employee(db: &Db, actor: Actor, id: i64) -> AppResult<Option<CompanyRow>> {
    if !actor.scope.allows(id) {
        return Ok(None);
    }
    Ok(sqlx::query_as::<_, CompanyRow>(sql::FIND_FOR_EMPLOYEE)
        .bind(actor.user_id)
        .bind(id)
        .bind(super::date_text(super::today()))
        .fetch_optional(db)
        .await?)
}

/// `signUp.company`: creates the company (its legal name from `register` when the caller gives
/// none and the register has one) unless a company of its SIREN exists already
/// (`SIREN_ALREADY_SIGNED_UP`), and makes the caller its admin (an accepted employment
/// from today, primary unless the caller already has a primary employment), in one transaction.
pub async fn sign_up(
    db: &Db,
    register: &dyn super::register::CompanyRegister,
    actor: Actor,
    company: NewCompany<'_>,
) -> AppResult<(i64, i64)> {
    // Software acting with an employment token stays inside its one company: it creates none.
    if actor.scope.company().is_some() {
        return Err(crate::domain::auth::scope::out_of_scope());
    }
    let actor = actor.user_id;
    let usual_name = validate_name(company.usual_name)?;
    let legal_name = validate_legal_name(company.legal_name, "legalName")?;
    let siren = validate_siren(company.siren)?;
    let phone_number = company.phone_number.map(str::trim).filter(|p| !p.is_empty());
    // A legal name given by the caller wins; otherwise the register's, when it gives one.
    let legal_name = match legal_name {
        Some(name) => Some(name),
        None => super::register::legal_name_for_sign_up(register, &siren).await?,
    };
    let mut tx = db.begin_write().await?;
    // A company signed up without SIRET stands for the whole SIREN: refused when any company of
    // that SIREN exists, whatever its establishments, and two sign-ups of one SIREN must not both
    // pass this check.
    lock_siren(&mut tx, &siren).await?;
    if !registered_sirets(&mut tx, &siren).await?.is_empty() {
        return Err(already_registered(
            "SIREN_ALREADY_SIGNED_UP",
            "SIREN already registered",
        ));
    }
    let new = NewCompany {
        usual_name: &usual_name,
        legal_name: legal_name.as_deref(),
        siren: &siren,
        phone_number,
    };
    let company_id = insert(&mut tx, new).await?;
    let employment_id = insert_admin(&mut tx, actor, company_id).await?;
    tx.commit().await?;
    Ok((company_id, employment_id))
}

/// The employment of the user who signs a new company up: approved, with admin rights, from
/// today, primary unless the user already has a primary employment.
pub async fn insert_admin(conn: &mut AnyConnection, user_id: i64, company_id: i64) -> AppResult<i64> {
    let new = super::employments::NewEmployment {
        company_id,
        period: super::rules::Period {
            start: super::today(),
            end: None,
        },
        has_admin_rights: true,
        is_primary: None,
        status: "approved",
        team_id: None,
    };
    super::employments::insert_for_user(conn, user_id, user_id, &new).await
}

/// The companies the actor administers today (only the company of their scope, when they are
/// confined to one).
pub async fn admined_by(db: &Db, actor: Actor) -> AppResult<Vec<CompanyRow>> {
    let rows = sqlx::query_as::<_, CompanyRow>(sql::ADMINED_BY)
        .bind(actor.user_id)
        .bind(super::date_text(super::today()))
        .fetch_all(db)
        .await?;
    Ok(actor.scope.keep(rows, |c| c.id))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sirens_are_nine_digits() {
        assert_eq!(validate_siren("123 456 789").unwrap(), "123456789");
        let e = validate_siren("12345").unwrap_err();
        assert_eq!(e.message, "SIREN must be exactly 9 characters (received: 5)");
        assert_eq!(
            validate_siren("12345678A").unwrap_err().message,
            "SIREN must contain only digits"
        );
    }
}
