//! Invitations by e-mail: a pending employment with a single-use token, sent through the outbox.
//! The token is random, stored only as a hash, and expires; redeeming it attaches the employment
//! to the account that presents it and accepts it. The hash stays on the employment once the
//! invitation is used, declined or cancelled (no longer redeemable), so that the invitation page
//! can tell the person which of these happened rather than "unknown".

use sqlx::AnyConnection;

use crate::db::{Db, now};
use crate::domain::auth::{Actor, Scope, tokens};
use crate::errors::{AppError, AppResult, Code};
use crate::mail::outbox;

use super::date_text;
use super::employments::{self, NewEmployment};
use super::rules;

/// The page where the invited person accepts or declines: `{public_url}/invitations/accept?token=…`.
pub fn accept_link(public_url: &str, token: &str) -> String {
    let query: String = url::form_urlencoded::byte_serialize(token.as_bytes()).collect();
    format!("{}/invitations/accept?token={query}", public_url.trim_end_matches('/'))
}

/// How long an invitation can be redeemed.
pub const VALIDITY_SECONDS: i64 = 14 * 24 * 3600;

fn invalid_token() -> AppError {
    AppError::new(Code::InvalidToken, "Token does not match a valid employment")
}

/// Creates the pending employment of an invited e-mail and queues the invitation, inside the
/// caller's transaction. The primary choice, if any, is applied when the invitation is redeemed.
pub async fn invite(
    conn: &mut AnyConnection,
    email: &str,
    company_name: &str,
    submitter_id: i64,
    new: &NewEmployment,
    public_url: &str,
) -> AppResult<i64> {
    let (token, token_hash) = tokens::generate("rl_inv_")?;
    let (id,): (i64,) = sqlx::query_as(
        "INSERT INTO employments (email, company_id, submitter_id, reception_time, validation_status, start_date,
                                  end_date, has_admin_rights, is_primary, invite_token_hash, invite_expires_at, business_id,
                                  team_id, latest_invite_email_time)
         VALUES ($1, $2, $3, $4, 'pending', $5, $6, $7, $8, $9, $10,
                 (SELECT business_id FROM companies WHERE id = $2), $11, $4) RETURNING id",
    )
    .bind(email)
    .bind(new.company_id)
    .bind(submitter_id)
    .bind(now())
    .bind(date_text(new.period.start))
    .bind(new.period.end.map(date_text))
    .bind(i64::from(new.has_admin_rights))
    .bind(new.is_primary.map(i64::from))
    .bind(&token_hash)
    .bind(now() + VALIDITY_SECONDS)
    .bind(new.team_id)
    .fetch_one(&mut *conn)
    .await?;
    let link = accept_link(public_url, &token);
    let message = crate::mail::messages::invitation(company_name, new.has_admin_rights, &link, &token, public_url);
    outbox::enqueue(conn, email, &message.subject, &message.body, Some(new.company_id)).await?;
    Ok(id)
}

/// Attaches the invitation to `user_id` and accepts it, under the employment rules, inside the
/// caller's transaction; `scope` is how far the caller reaches (an employment token's cannot join
/// the employee to another company). Unknown, used, cancelled or expired tokens are INVALID_TOKEN.
/// The inviting admin is told (`employments::accepted`).
pub async fn redeem(
    conn: &mut AnyConnection,
    user_id: i64,
    scope: Scope,
    token: &str,
    public_url: &str,
) -> AppResult<i64> {
    let found: Option<employments::HeldRow> = sqlx::query_as(
        "SELECT id, company_id, start_date, end_date, is_primary FROM employments
         WHERE invite_token_hash = $1 AND user_id IS NULL AND validation_status = 'pending'
           AND dismissed_at IS NULL AND invite_expires_at > $2",
    )
    .bind(tokens::hash(token.trim()))
    .bind(now())
    .fetch_optional(&mut *conn)
    .await?;
    let Some((id, company_id, start, end, requested_primary)) = found else {
        return Err(invalid_token());
    };
    // Software acting with an employment token cannot join the employee to another company.
    scope.require(company_id)?;
    if !crate::domain::workers::lock_one(conn, user_id).await? {
        return Err(AppError::internal("the redeeming user does not exist"));
    }
    let period = rules::Period {
        start: super::parse_date(&start).ok_or_else(|| AppError::internal("stored date is invalid"))?,
        end: end.as_deref().and_then(super::parse_date),
    };
    let held = employments::held(conn, user_id).await?;
    let primary = rules::admit(&held, company_id, period, requested_primary.map(|p| p == 1))?;
    // The conditions repeat those of the lookup, so that two redemptions of one token cannot both
    // succeed: the second updates nothing.
    let done = sqlx::query(
        "UPDATE employments SET user_id = $2, is_primary = $3, validation_status = 'approved', validation_time = $4
         WHERE id = $1 AND user_id IS NULL AND validation_status = 'pending' AND dismissed_at IS NULL",
    )
    .bind(id)
    .bind(user_id)
    .bind(i64::from(primary))
    .bind(now())
    .execute(&mut *conn)
    .await?;
    if done.rows_affected() != 1 {
        return Err(invalid_token());
    }
    crate::domain::alerts::store::share_with_company(conn, user_id, company_id).await?;
    crate::domain::teams::follow_accepted(conn, id).await?;
    confirm_invited_address(conn, user_id, id).await?;
    super::employments::accepted::tell_inviter(conn, id, public_url).await?;
    Ok(id)
}

/// The invitation (or the vendor's sync link) reached the employment's address: accepting it as
/// the account of that same address proves the account's owner reads it, as the confirmation
/// link would.
async fn confirm_invited_address(conn: &mut AnyConnection, user_id: i64, employment_id: i64) -> AppResult<()> {
    sqlx::query(
        "UPDATE users SET email_confirmed_at = $3
         WHERE id = $1 AND email_confirmed_at IS NULL AND email = (SELECT email FROM employments WHERE id = $2)",
    )
    .bind(user_id)
    .bind(employment_id)
    .bind(now())
    .execute(&mut *conn)
    .await?;
    Ok(())
}

/// `signUp.redeemInvite`: redeems in its own transaction and answers the employment.
pub async fn redeem_by(
    db: &Db,
    actor: Actor,
    token: &str,
    public_url: &str,
) -> AppResult<super::employments::EmploymentRow> {
    let mut tx = db.begin_write().await?;
    let id = redeem(&mut tx, actor.user_id, actor.scope, token, public_url).await?;
    tx.commit().await?;
    let mut conn = db.pool.acquire().await?;
    super::employments::find(&mut conn, id)
        .await?
        .ok_or_else(|| AppError::internal("employment vanished"))
}

/// An invitation as its page shows it.
#[derive(Debug, Clone)]
pub struct InvitationView {
    pub company_name: String,
    pub admin: bool,
    /// The first day of the employment (`YYYY-MM-DD`).
    pub start_date: String,
    /// The address the invitation was sent to.
    pub email: String,
}

/// Where an invitation token stands.
#[derive(Debug, Clone)]
pub enum InvitationState {
    /// Can be accepted or declined.
    Open(InvitationView),
    /// Already accepted (by whoever held it).
    Used,
    /// Declined by the invited person.
    Declined,
    /// Withdrawn by the company.
    Cancelled,
    /// Past its validity.
    Expired,
    /// No invitation has this token.
    Unknown,
}

/// Reads what a token stands for, without changing anything.
pub async fn lookup(db: &Db, token: &str) -> AppResult<InvitationState> {
    type Row = (
        String,
        i64,
        String,
        Option<String>,
        String,
        Option<i64>,
        Option<i64>,
        Option<i64>,
    );
    let row: Option<Row> = sqlx::query_as(
        "SELECT c.usual_name, e.has_admin_rights, e.start_date, e.email, e.validation_status, e.dismissed_at,
                e.invite_expires_at, e.user_id
         FROM employments e JOIN companies c ON c.id = e.company_id WHERE e.invite_token_hash = $1",
    )
    .bind(tokens::hash(token.trim()))
    .fetch_optional(db)
    .await?;
    let Some((company_name, admin, start_date, email, status, dismissed_at, expires_at, user_id)) = row else {
        return Ok(InvitationState::Unknown);
    };
    Ok(match status.as_str() {
        "approved" => InvitationState::Used,
        "rejected" => InvitationState::Declined,
        _ if dismissed_at.is_some() => InvitationState::Cancelled,
        _ if user_id.is_some() => InvitationState::Used,
        _ if expires_at.is_none_or(|at| at <= now()) => InvitationState::Expired,
        _ => InvitationState::Open(InvitationView {
            company_name,
            admin: admin == 1,
            start_date,
            email: email.unwrap_or_default(),
        }),
    })
}

/// The invited person, logged in as `user_id`, declines: the employment is refused (as
/// `rejectEmployment` would) and the token stops working. The same conditions as a redemption,
/// in one statement, so that a decline and an acceptance cannot both succeed.
pub async fn decline(db: &Db, user_id: i64, token: &str) -> AppResult<()> {
    let mut tx = db.begin_write().await?;
    let done = sqlx::query(
        "UPDATE employments SET user_id = $2, validation_status = 'rejected'
         WHERE invite_token_hash = $1 AND user_id IS NULL AND validation_status = 'pending'
           AND dismissed_at IS NULL AND invite_expires_at > $3",
    )
    .bind(tokens::hash(token.trim()))
    .bind(user_id)
    .bind(now())
    .execute(&mut *tx)
    .await?;
    if done.rows_affected() != 1 {
        return Err(invalid_token());
    }
    tx.commit().await?;
    Ok(())
}

/// Accepts a pending employment for `user_id`, inside the caller's transaction: an employment
/// without user (an invitation by e-mail, or a software vendor's sync) is attached to the user,
/// one already naming the user is approved; the employment rules decide as for a redeemed
/// invitation. Anything else (dismissed, answered, another user's) is INVALID_TOKEN.
pub async fn accept_pending(conn: &mut AnyConnection, user_id: i64, employment_id: i64) -> AppResult<()> {
    let found: Option<employments::HeldRow> = sqlx::query_as(
        "SELECT id, company_id, start_date, end_date, is_primary FROM employments
         WHERE id = $1 AND (user_id IS NULL OR user_id = $2) AND validation_status = 'pending'
           AND dismissed_at IS NULL",
    )
    .bind(employment_id)
    .bind(user_id)
    .fetch_optional(&mut *conn)
    .await?;
    let Some((id, company_id, start, end, requested_primary)) = found else {
        return Err(invalid_token());
    };
    if !crate::domain::workers::lock_one(conn, user_id).await? {
        return Err(AppError::internal("the accepting user does not exist"));
    }
    let period = rules::Period {
        start: super::parse_date(&start).ok_or_else(|| AppError::internal("stored date is invalid"))?,
        end: end.as_deref().and_then(super::parse_date),
    };
    let held: Vec<_> = employments::held(conn, user_id)
        .await?
        .into_iter()
        .filter(|h| h.id != id)
        .collect();
    let primary = rules::admit(&held, company_id, period, requested_primary.map(|p| p == 1))?;
    let done = sqlx::query(
        "UPDATE employments SET user_id = $2, is_primary = $3, validation_status = 'approved', validation_time = $4,
                                submitter_id = COALESCE(submitter_id, $2)
         WHERE id = $1 AND (user_id IS NULL OR user_id = $2) AND validation_status = 'pending' AND dismissed_at IS NULL",
    )
    .bind(id)
    .bind(user_id)
    .bind(i64::from(primary))
    .bind(now())
    .execute(&mut *conn)
    .await?;
    if done.rows_affected() != 1 {
        return Err(invalid_token());
    }
    crate::domain::alerts::store::share_with_company(conn, user_id, company_id).await?;
    crate::domain::teams::follow_accepted(conn, id).await?;
    confirm_invited_address(conn, user_id, id).await
}
