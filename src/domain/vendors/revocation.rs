//! The employee's and the company's hold on software vendors, on the main API: an employee
//! withdraws a client's employment token (`dismissEmploymentToken`), an admin ends a client's
//! link to the company (`dismissCompanyToken`) or links an existing company to a client
//! (`generateCompanyToken`), and reads which clients are linked (`Company.authorizedClients`).
//!
//! A dismissal is one UPDATE: every request checks the database ([`super::employment_tokens`]),
//! so it is effective at once on every instance.

use crate::db::{Db, now};
use crate::domain::auth::Actor;
use crate::domain::auth::Scope;
use crate::domain::companies::permissions;
use crate::errors::{AppError, AppResult};

pub mod sql {
    crate::statements! {
        /// `$1` client, `$2` employment, `$3` now, `$4` the employee.
        pub const DISMISS_EMPLOYMENT_LINK: &str = "UPDATE client_employments SET dismissed_at = $3, dismiss_author_id = $4 \
             WHERE client_id = $1 AND employment_id = $2 AND dismissed_at IS NULL";
        /// `$1` client, `$2` company, `$3` now, `$4` the admin.
        pub const DISMISS_COMPANY_LINK: &str = "UPDATE client_companies SET dismissed_at = $3, dismiss_author_id = $4 \
             WHERE client_id = $1 AND company_id = $2 AND dismissed_at IS NULL";
        /// `$1` client, `$2` company, `$3` now: a new link, or a dismissed one made live again.
        pub const LINK_COMPANY: &str = "INSERT INTO client_companies (client_id, company_id, created_at) VALUES ($1, $2, $3) \
             ON CONFLICT (client_id, company_id) DO UPDATE SET created_at = excluded.created_at, dismissed_at = NULL, \
                 dismiss_author_id = NULL \
             WHERE client_companies.dismissed_at IS NOT NULL";
        /// `$1` client: whether it is registered and not revoked.
        pub const ACTIVE_CLIENT: &str = "SELECT 1 FROM oauth_clients WHERE id = $1 AND revoked_at IS NULL";
        /// `$1` company, `$2` now: the live links, with their use.
        pub const AUTHORIZED: &str = "SELECT c.id, c.name, cc.created_at, \
                 (SELECT MAX(a.created_at) FROM vendor_audit a WHERE a.client_id = c.id AND a.company_id = cc.company_id), \
                 (SELECT COUNT(*) FROM client_employments l JOIN employments e ON e.id = l.employment_id \
                  WHERE l.client_id = c.id AND e.company_id = cc.company_id AND l.dismissed_at IS NULL \
                    AND l.accepted_at IS NOT NULL AND (l.token_expires_at IS NULL OR l.token_expires_at > $2)) \
             FROM client_companies cc JOIN oauth_clients c ON c.id = cc.client_id \
             WHERE cc.company_id = $1 AND cc.dismissed_at IS NULL AND c.revoked_at IS NULL ORDER BY c.id";
        /// `$1` employment: the clients the employee gave a token.
        pub const OF_EMPLOYMENT: &str = "SELECT c.id, c.name FROM client_employments l \
             JOIN oauth_clients c ON c.id = l.client_id \
             WHERE l.employment_id = $1 AND l.dismissed_at IS NULL AND l.accepted_at IS NOT NULL \
               AND c.revoked_at IS NULL ORDER BY c.id";
    }
}

/// A client linked to a company, as its admins see it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AuthorizedClient {
    pub client_id: i64,
    pub name: String,
    pub company_id: i64,
    pub linked_at: i64,
    pub last_used_at: Option<i64>,
    /// Employees whose employment token still works (accepted, not dismissed, not expired).
    pub token_count: i64,
}

fn admin_needed() -> AppError {
    AppError::authorization("You need to be a company admin")
}

/// `dismissEmploymentToken`: the employment's own user withdraws the client's access to it.
pub async fn dismiss_employment_token(db: &Db, actor: Actor, client_id: i64, employment_id: i64) -> AppResult<()> {
    let mut conn = db.pool.acquire().await?;
    let employment = crate::domain::companies::employments::find(&mut conn, employment_id).await?;
    let own = employment
        .as_ref()
        .is_some_and(|e| e.user_id == Some(actor.user_id) && actor.scope.allows(e.company_id));
    if !own {
        return Err(AppError::authorization("Forbidden access"));
    }
    let done = sqlx::query(sql::DISMISS_EMPLOYMENT_LINK)
        .bind(client_id)
        .bind(employment_id)
        .bind(now())
        .bind(actor.user_id)
        .execute(&mut *conn)
        .await?;
    if done.rows_affected() == 0 {
        return Err(
            AppError::invalid_inputs("This software holds no access to the employment")
                .with("reason", "EMPLOYMENT_CLIENT_LINK_NOT_FOUND"),
        );
    }
    Ok(())
}

/// `dismissCompanyToken`: an admin ends the client's link to the company; answers the clients
/// still linked.
pub async fn dismiss_company_token(
    db: &Db,
    actor: Actor,
    client_id: i64,
    company_id: i64,
) -> AppResult<Vec<AuthorizedClient>> {
    if !permissions::is_admin(db, actor, company_id).await? {
        return Err(admin_needed());
    }
    let done = sqlx::query(sql::DISMISS_COMPANY_LINK)
        .bind(client_id)
        .bind(company_id)
        .bind(now())
        .bind(actor.user_id)
        .execute(db)
        .await?;
    if done.rows_affected() == 0 {
        return Err(AppError::invalid_inputs("This software is not linked to the company")
            .with("reason", "COMPANY_CLIENT_LINK_NOT_FOUND"));
    }
    authorized_clients(db, company_id).await
}

/// `generateCompanyToken`: an admin links the company to a registered client (nothing changes
/// when it is linked already); answers the clients linked.
pub async fn generate_company_token(
    db: &Db,
    actor: Actor,
    client_id: i64,
    company_id: i64,
) -> AppResult<Vec<AuthorizedClient>> {
    if !permissions::is_admin(db, actor, company_id).await? {
        return Err(admin_needed());
    }
    let mut tx = db.begin_write().await?;
    let known: Option<(i64,)> = sqlx::query_as(sql::ACTIVE_CLIENT)
        .bind(client_id)
        .fetch_optional(&mut *tx)
        .await?;
    if known.is_none() {
        return Err(AppError::invalid_inputs("Unknown client").with("field", "clientId"));
    }
    sqlx::query(sql::LINK_COMPANY)
        .bind(client_id)
        .bind(company_id)
        .bind(now())
        .execute(&mut *tx)
        .await?;
    tx.commit().await?;
    authorized_clients(db, company_id).await
}

/// The clients linked to the company, with their last use and live tokens (the caller checks
/// that the actor may read them).
pub async fn authorized_clients(db: &Db, company_id: i64) -> AppResult<Vec<AuthorizedClient>> {
    let rows: Vec<(i64, String, i64, Option<i64>, i64)> = sqlx::query_as(sql::AUTHORIZED)
        .bind(company_id)
        .bind(now())
        .fetch_all(db)
        .await?;
    Ok(rows
        .into_iter()
        .map(
            |(client_id, name, linked_at, last_used_at, token_count)| AuthorizedClient {
                client_id,
                name,
                company_id,
                linked_at,
                last_used_at,
                token_count,
            },
        )
        .collect())
}

/// `Employment.authorizedClients`: the clients the employee gave a token for the employment
/// (the caller checks that the actor is the employee); `(id, name)`. Software acting with an
/// employment token sees itself only among them.
pub async fn clients_of_employment(db: &Db, scope: Scope, employment_id: i64) -> AppResult<Vec<(i64, String)>> {
    let rows: Vec<(i64, String)> = sqlx::query_as(sql::OF_EMPLOYMENT)
        .bind(employment_id)
        .fetch_all(db)
        .await?;
    Ok(rows.into_iter().filter(|(id, _)| scope.allows_client(*id)).collect())
}
