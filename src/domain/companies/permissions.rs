//! Who may read or manage a company: its admins today manage it, whoever it employs today
//! (a pending invitation included) reads it, as in the reference service. These are the
//! predicates every resolver asks before it touches company data. Unknown ids and forbidden ones
//! give the same answer, so ids cannot be probed. An actor confined to one company (an
//! employment token's [`Scope`](crate::domain::auth::Scope)) sees no other.

use sqlx::AnyConnection;

use crate::db::Db;
use crate::domain::auth::Actor;
use crate::errors::{AppError, AppResult};

use super::{date_text, today};

/// The conditions of [`is_admin`] and [`is_employed`], shared with the statements that fold
/// them into a read (a company read with its permission: one round trip instead of two).
pub mod sql {
    /// An employment in company `$company` covering `$day` of user `$user`, with admin rights,
    /// each given as a parameter or a column of the enclosing statement.
    macro_rules! admin_on {
        ($company:literal, $day:literal, $user:literal) => {
            ::const_format::concatcp!(
                "SELECT 1 FROM employments WHERE company_id = ",
                $company,
                " AND user_id = ",
                $user,
                " AND validation_status = 'approved' AND dismissed_at IS NULL AND has_admin_rights = 1 AND start_date <= ",
                $day,
                " AND (end_date IS NULL OR end_date >= ",
                $day,
                ")"
            )
        };
    }
    pub(crate) use admin_on;

    /// An employment in company `$1` covering `$2` (today) of user `$3`, with admin rights.
    pub const ADMIN_TODAY: &str = admin_on!("$1", "$2", "$3");
    /// An employment of user `$1` in company `$2` covering `$3` (today), pending included.
    pub const EMPLOYED_TODAY: &str = "SELECT 1 FROM employments WHERE user_id = $1 AND company_id = $2 \
         AND validation_status <> 'rejected' AND dismissed_at IS NULL \
         AND start_date <= $3 AND (end_date IS NULL OR end_date >= $3)";
}

/// Admin of the company today: an accepted, not dismissed employment covering today, with admin
/// rights.
pub async fn is_admin(db: &Db, actor: Actor, company_id: i64) -> AppResult<bool> {
    admin_check(db, actor, company_id).await
}

/// [`is_admin`] on a given connection (inside a transaction).
pub async fn is_admin_on(conn: &mut AnyConnection, actor: Actor, company_id: i64) -> AppResult<bool> {
    admin_check(conn, actor, company_id).await
}

async fn admin_check<'c, E>(executor: E, actor: Actor, company_id: i64) -> AppResult<bool>
where
    E: sqlx::Executor<'c, Database = sqlx::Any>,
{
    if !actor.scope.allows(company_id) {
        return Ok(false);
    }
    let row: Option<(i64,)> = sqlx::query_as(const_format::concatcp!(sql::ADMIN_TODAY, " LIMIT 1"))
        .bind(company_id)
        .bind(date_text(today()))
        .bind(actor.user_id)
        .fetch_optional(executor)
        .await?;
    Ok(row.is_some())
}

/// Employed by the company today, an invitation still pending included (the reference's
/// `is_employed_by_company_over_period`).
pub async fn is_employed(db: &Db, actor: Actor, company_id: i64) -> AppResult<bool> {
    if !actor.scope.allows(company_id) {
        return Ok(false);
    }
    let row: Option<(i64,)> = sqlx::query_as(const_format::concatcp!(sql::EMPLOYED_TODAY, " LIMIT 1"))
        .bind(actor.user_id)
        .bind(company_id)
        .bind(date_text(today()))
        .fetch_optional(db)
        .await?;
    Ok(row.is_some())
}

/// AUTHORIZATION_ERROR unless the user is an admin of the company today.
pub async fn require_admin(db: &Db, actor: Actor, company_id: i64) -> AppResult<()> {
    if is_admin(db, actor, company_id).await? {
        Ok(())
    } else {
        Err(AppError::authorization(
            "Actor is not authorized to perform the operation: company admin rights are needed",
        ))
    }
}

/// The denial of an admin-only field, worded as the reference.
pub fn admin_only_field(field: &str) -> AppError {
    AppError::authorization(format!(
        "Forbidden access to field '{field}' of company object. Actor must be company admin."
    ))
}

/// Has, or had, an employment in the company that was neither rejected nor dismissed (the
/// reference's rule for vehicles and known addresses).
pub async fn has_any_employment(db: &Db, actor: Actor, company_id: i64) -> AppResult<bool> {
    if !actor.scope.allows(company_id) {
        return Ok(false);
    }
    let row: Option<(i64,)> = sqlx::query_as(
        "SELECT 1 FROM employments WHERE user_id = $1 AND company_id = $2 AND validation_status <> 'rejected'
           AND dismissed_at IS NULL LIMIT 1",
    )
    .bind(actor.user_id)
    .bind(company_id)
    .fetch_optional(db)
    .await?;
    Ok(row.is_some())
}
