//! The life cycle of an existing employment: its user answers it (pending → approved or
//! rejected), an admin cancels a pending one or changes its role (ending one is in `terminate`).

use sqlx::AnyConnection;

use super::{EmploymentRow, find, forbidden};
use crate::db::{Backend, Db, PerBackend, now};
use crate::domain::auth::Actor;
use crate::domain::companies::{date_text, permissions, today};
use crate::errors::{AppError, AppResult};

/// Loads an employment for an admin action: AUTHORIZATION_ERROR unless the actor is an admin of
/// its company today (an unknown id looks the same).
/// Reads on `conn`, so that a caller in a transaction checks and writes on one snapshot.
pub(super) async fn for_admin(conn: &mut AnyConnection, actor: Actor, employment_id: i64) -> AppResult<EmploymentRow> {
    let row = find(conn, employment_id).await?.ok_or_else(forbidden)?;
    if !permissions::is_admin_on(conn, actor, row.company_id).await? {
        return Err(forbidden());
    }
    Ok(row)
}

fn state_error(row: &EmploymentRow) -> AppError {
    let message = if row.dismissed_at.is_some() {
        "Employment is already dismissed"
    } else if row.validation_status == "rejected" {
        "Employment is already rejected"
    } else {
        "Employment is already validated"
    };
    AppError::invalid_resource(message).with("status", row.status(&date_text(today())))
}

/// `validateEmployment` / `rejectEmployment`: the employment's own user answers a pending one.
/// An acceptance tells the inviting admin (`accepted`).
pub async fn answer(
    db: &Db,
    actor: Actor,
    employment_id: i64,
    accept: bool,
    public_url: &str,
) -> AppResult<EmploymentRow> {
    let mut conn = db.begin_write().await?;
    let row = find(&mut conn, employment_id).await?.ok_or_else(forbidden)?;
    if row.user_id != Some(actor.user_id) || !actor.scope.allows(row.company_id) {
        return Err(forbidden());
    }
    let (status, time) = if accept {
        ("approved", Some(now()))
    } else {
        ("rejected", None)
    };
    let done = sqlx::query(
        "UPDATE employments SET validation_status = $3, validation_time = $4
         WHERE id = $1 AND user_id = $2 AND validation_status = 'pending' AND dismissed_at IS NULL",
    )
    .bind(employment_id)
    .bind(actor.user_id)
    .bind(status)
    .bind(time)
    .execute(&mut *conn)
    .await?;
    if done.rows_affected() != 1 {
        return Err(state_error(&row));
    }
    if accept {
        crate::domain::teams::follow_accepted(&mut conn, employment_id).await?;
        super::accepted::tell_inviter(&mut conn, employment_id, public_url).await?;
    }
    let row = find(&mut conn, employment_id)
        .await?
        .ok_or_else(|| AppError::internal("employment vanished"))?;
    conn.commit().await?;
    Ok(row)
}

/// `cancelEmployment`: an admin withdraws a pending employment (its invitation stops working).
pub async fn cancel(db: &Db, actor: Actor, employment_id: i64) -> AppResult<()> {
    let mut conn = db.pool.acquire().await?;
    let row = for_admin(&mut conn, actor, employment_id).await?;
    let done = sqlx::query(
        // The invitation's token hash stays: the invitation page tells its holder it was cancelled.
        "UPDATE employments SET dismissed_at = $2, dismiss_author_id = $3
         WHERE id = $1 AND validation_status = 'pending' AND dismissed_at IS NULL",
    )
    .bind(employment_id)
    .bind(now())
    .bind(actor.user_id)
    .execute(&mut *conn)
    .await?;
    if done.rows_affected() != 1 {
        let message = if row.validation_status == "approved" && row.dismissed_at.is_none() {
            "Only a pending employment can be cancelled: this one is accepted, terminate it instead"
        } else {
            "Only a pending employment can be cancelled"
        };
        return Err(AppError::invalid_resource(message).with("status", row.status(&date_text(today()))));
    }
    Ok(())
}

/// `changeEmployeeRole`: an admin grants or removes admin rights of someone else; returns the
/// company id. The permission check and the write share one transaction, after the company's
/// admin lock: two admins removing each other's rights at once are served one after the other,
/// and the second is refused, so the company keeps an admin.
pub async fn change_role(db: &Db, actor: Actor, employment_id: i64, has_admin_rights: bool) -> AppResult<i64> {
    let mut tx = db.begin_write().await?;
    let Some(company_id) = find(&mut tx, employment_id).await?.map(|row| row.company_id) else {
        return Err(forbidden());
    };
    lock_admins(&mut tx, company_id).await?;
    let row = for_admin(&mut tx, actor, employment_id).await?;
    if row.user_id == Some(actor.user_id) {
        return Err(
            AppError::authorization("An admin cannot change their own role").with("reason", "USER_SELF_CHANGE_ROLE")
        );
    }
    if row.validation_status == "rejected" || row.dismissed_at.is_some() {
        return Err(state_error(&row));
    }
    sqlx::query("UPDATE employments SET has_admin_rights = $2 WHERE id = $1")
        .bind(employment_id)
        .bind(i64::from(has_admin_rights))
        .execute(&mut *tx)
        .await?;
    if let (false, Some(user_id)) = (has_admin_rights, row.user_id) {
        crate::domain::teams::drop_admin(&mut tx, user_id, row.company_id).await?;
    }
    tx.commit().await?;
    Ok(row.company_id)
}

crate::statements! {
    /// Serialises the role changes of one company. On PostgreSQL a row lock on the company (`FOR
    /// NO KEY UPDATE`: the key-share locks of foreign keys that name it still pass); on SQLite
    /// the write transaction already holds the database's single write lock.
    const LOCK_ADMINS: PerBackend = PerBackend {
        sqlite: "SELECT id FROM companies WHERE id = $1",
        postgres: "SELECT id FROM companies WHERE id = $1 FOR NO KEY UPDATE",
    };
}

async fn lock_admins(conn: &mut AnyConnection, company_id: i64) -> AppResult<()> {
    let sql = Backend::of(conn).sql(LOCK_ADMINS);
    sqlx::query(sql).bind(company_id).execute(conn).await?;
    Ok(())
}

/// `updateHideEmail`: the employee hides (or shows again) their e-mail from the company; only
/// the employment's own user may (AUTHORIZATION_ERROR otherwise, an unknown id alike).
pub async fn hide_email(db: &Db, actor: Actor, employment_id: i64, hide: bool) -> AppResult<EmploymentRow> {
    let mut conn = db.pool.acquire().await?;
    let in_scope = find(&mut conn, employment_id)
        .await?
        .is_some_and(|row| actor.scope.allows(row.company_id));
    if !in_scope {
        return Err(forbidden());
    }
    let done = sqlx::query(super::sql::HIDE_EMAIL)
        .bind(employment_id)
        .bind(actor.user_id)
        .bind(i64::from(hide))
        .execute(&mut *conn)
        .await?;
    if done.rows_affected() != 1 {
        return Err(forbidden());
    }
    find(&mut conn, employment_id)
        .await?
        .ok_or_else(|| AppError::internal("employment vanished"))
}
