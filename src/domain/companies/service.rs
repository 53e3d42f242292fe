//! The employment services that a company admin calls: creating one employment, or a batch of
//! them all or nothing. Each runs in one write transaction (the worker locks are taken inside,
//! by the employment rules).

use sqlx::AnyConnection;

use crate::db::Db;
use crate::domain::auth::Actor;
use crate::errors::{AppError, AppResult};

use super::company::{self, CompanyRow};
use super::employments::{self, EmploymentRow, NewEmployment, Target};
use super::{invitations, permissions};

/// Most employments one batch may create.
pub const MAX_BATCH: usize = 100;

/// The company, for an admin of it today (the company row is read once).
pub async fn admin_company(db: &Db, actor: Actor, company_id: i64) -> AppResult<CompanyRow> {
    permissions::require_admin(db, actor, company_id).await?;
    company::find(db, company_id)
        .await?
        .ok_or_else(|| AppError::internal("company vanished"))
}

async fn read(db: &Db, id: i64) -> AppResult<EmploymentRow> {
    let mut conn = db.pool.acquire().await?;
    employments::find(&mut conn, id)
        .await?
        .ok_or_else(|| AppError::internal("employment vanished"))
}

/// What `createEmployment` receives besides its target.
pub struct EmploymentInput {
    pub company_id: i64,
    pub start: Option<chrono::NaiveDate>,
    pub end: Option<chrono::NaiveDate>,
    pub has_admin_rights: bool,
    pub is_primary: Option<bool>,
    /// A team of the company; another company's team is ignored, as the reference does.
    pub team_id: Option<i64>,
}

/// `createEmployment`: a pending employment of a user or an invited e-mail; `public_url` goes
/// into the message.
pub async fn create(
    db: &Db,
    actor: Actor,
    target: Target,
    input: EmploymentInput,
    public_url: &str,
) -> AppResult<EmploymentRow> {
    let company = admin_company(db, actor, input.company_id).await?;
    let mut new = NewEmployment {
        company_id: company.id,
        period: employments::period(input.start, input.end)?,
        has_admin_rights: input.has_admin_rights,
        is_primary: input.is_primary,
        status: "pending",
        team_id: None,
    };
    let mut tx = db.begin_write().await?;
    new.team_id = crate::domain::teams::for_new_employment(&mut tx, company.id, input.team_id).await?;
    let id = create_in(&mut tx, actor, &company.usual_name, target, &new, public_url).await?;
    tx.commit().await?;
    read(db, id).await
}

/// `batchCreateWorkerEmployments`: all or nothing, a refused item named by its index.
pub async fn create_batch(
    db: &Db,
    actor: Actor,
    company_id: i64,
    targets: Vec<Target>,
    public_url: &str,
) -> AppResult<Vec<EmploymentRow>> {
    if targets.len() > MAX_BATCH {
        return Err(AppError::invalid_inputs(format!(
            "A batch may create at most {MAX_BATCH} employments (received {})",
            targets.len()
        )));
    }
    let company = admin_company(db, actor, company_id).await?;
    let new = NewEmployment {
        company_id: company.id,
        period: employments::period(None, None)?,
        has_admin_rights: false,
        is_primary: None,
        status: "pending",
        team_id: None,
    };
    let mut tx = db.begin_write().await?;
    let mut ids = Vec::with_capacity(targets.len());
    for (index, target) in targets.into_iter().enumerate() {
        let id = create_in(&mut tx, actor, &company.usual_name, target, &new, public_url)
            .await
            .map_err(|e| employments::for_item(e, index))?;
        ids.push(id);
    }
    tx.commit().await?;
    let mut created = Vec::with_capacity(ids.len());
    for id in ids {
        created.push(read(db, id).await?);
    }
    Ok(created)
}

/// Creates a pending employment for a user or an e-mail and queues the message that tells them,
/// inside the caller's transaction. An e-mail that belongs to an account becomes an employment of
/// that account; any other gets an invitation.
async fn create_in(
    conn: &mut AnyConnection,
    actor: Actor,
    company_name: &str,
    target: Target,
    new: &NewEmployment,
    public_url: &str,
) -> AppResult<i64> {
    let user = match target {
        Target::User(id) => Some(id),
        Target::Email(email) => {
            let found: Option<(i64,)> = sqlx::query_as("SELECT id FROM users WHERE email = $1")
                .bind(&email)
                .fetch_optional(&mut *conn)
                .await?;
            match found {
                Some((id,)) => Some(id),
                None => return invitations::invite(conn, &email, company_name, actor.user_id, new, public_url).await,
            }
        }
    };
    let user_id = user.unwrap_or_default();
    let id = employments::insert_for_user(conn, user_id, actor.user_id, new).await?;
    sqlx::query(employments::sql::INVITED)
        .bind(id)
        .bind(crate::db::now())
        .execute(&mut *conn)
        .await?;
    // The account's own address, in its language: not the company's to read, even in the sandbox.
    crate::domain::mails::send_required(
        conn,
        user_id,
        crate::mail::kinds::MailType::EmploymentInvitation,
        |to| crate::mail::messages::employment_invitation(to.lang, company_name, id, public_url, false),
    )
    .await?;
    Ok(id)
}
