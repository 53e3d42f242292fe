//! `sendInvitationsReminders`: the invitation e-mail of pending employments sent again, at most
//! once every 12 hours per employment (the reference's `MIN_DELAY_BETWEEN_INVITATION_EMAILS`).
//!
//! An invitation by e-mail is stored as a token hash only, so its reminder carries a new token
//! (valid 14 days again) that replaces the previous one. An employment of an existing account is
//! reminded with the "added you as an employee" message.

use sqlx::AnyConnection;

use crate::db::{Db, now};
use crate::domain::auth::Actor;
use crate::domain::auth::tokens;
use crate::errors::{AppError, AppResult};
use crate::mail::outbox;

use super::employments::{self, EmploymentRow};
use super::{invitations, permissions};

/// The least time between two invitation e-mails of one employment.
pub const MIN_DELAY_SECONDS: i64 = 12 * 3600;

/// Most employments one call may remind.
pub const MAX_BATCH: usize = 100;

/// Reminds the pending employments of `ids` whose latest invitation e-mail is old enough, and
/// answers their ids in the order given. The actor must administer the company of every listed
/// employment; an unknown id is refused the same way, so ids cannot be probed.
pub async fn send(db: &Db, actor: Actor, ids: &[i64], public_url: &str) -> AppResult<Vec<i64>> {
    if ids.len() > MAX_BATCH {
        return Err(AppError::invalid_inputs(format!(
            "At most {MAX_BATCH} employments may be reminded at once (received {})",
            ids.len()
        )));
    }
    let mut rows = Vec::with_capacity(ids.len());
    {
        let mut conn = db.pool.acquire().await?;
        for id in ids {
            let row = employments::find(&mut conn, *id).await?;
            rows.push(row.ok_or_else(|| AppError::authorization("Forbidden access"))?);
        }
    }
    let mut companies: Vec<i64> = rows.iter().map(|r| r.company_id).collect();
    companies.sort_unstable();
    companies.dedup();
    for company in companies {
        permissions::require_admin(db, actor, company).await?;
    }
    let mut sent = Vec::new();
    for row in rows {
        if remind(db, &row, public_url).await? {
            sent.push(row.id);
        }
    }
    Ok(sent)
}

/// Sends one reminder in its own transaction, if the employment is still pending and its latest
/// e-mail old enough. The update that records the new sending time carries both conditions, so
/// concurrent calls send one reminder, not two.
async fn remind(db: &Db, row: &EmploymentRow, public_url: &str) -> AppResult<bool> {
    let mut tx = db.begin_write().await?;
    let at = now();
    let claimed = sqlx::query(sql::CLAIM)
        .bind(row.id)
        .bind(at)
        .bind(at - MIN_DELAY_SECONDS)
        .execute(&mut *tx)
        .await?;
    if claimed.rows_affected() != 1 {
        return Ok(false);
    }
    let (company_name,): (String,) = sqlx::query_as("SELECT usual_name FROM companies WHERE id = $1")
        .bind(row.company_id)
        .fetch_one(&mut *tx)
        .await?;
    match row.user_id {
        Some(user_id) => to_account(&mut tx, row.id, user_id, &company_name, public_url).await?,
        None => to_invited(&mut tx, row, &company_name, public_url).await?,
    }
    tx.commit().await?;
    Ok(true)
}

/// The reminder of an invitation by e-mail: a new token replaces the previous one.
async fn to_invited(
    conn: &mut AnyConnection,
    row: &EmploymentRow,
    company_name: &str,
    public_url: &str,
) -> AppResult<()> {
    let Some(email) = row.email.as_deref() else {
        return Err(AppError::internal("an invitation without an e-mail"));
    };
    let (token, token_hash) = tokens::generate("rl_inv_")?;
    sqlx::query(sql::NEW_TOKEN)
        .bind(row.id)
        .bind(&token_hash)
        .bind(now() + invitations::VALIDITY_SECONDS)
        .execute(&mut *conn)
        .await?;
    // The invitation e-mail again (its page's link, and the token for API clients), marked as a
    // reminder: the new token replaces the one of earlier e-mails.
    let link = invitations::accept_link(public_url, &token);
    let message = crate::mail::messages::invitation(company_name, row.has_admin_rights == 1, &link, &token, public_url);
    outbox::enqueue(
        conn,
        email,
        &format!("Reminder / Rappel : {}", message.subject),
        &message.body,
        Some(row.company_id),
    )
    .await
}

/// The reminder of an employment of an existing account, at the account's own address.
async fn to_account(
    conn: &mut AnyConnection,
    employment_id: i64,
    user_id: i64,
    company_name: &str,
    public_url: &str,
) -> AppResult<()> {
    crate::domain::mails::send_required(
        conn,
        user_id,
        crate::mail::kinds::MailType::EmploymentInvitationReminder,
        |to| crate::mail::messages::employment_invitation(to.lang, company_name, employment_id, public_url, true),
    )
    .await?;
    Ok(())
}

/// Reminder statements.
pub mod sql {
    crate::statements! {
        /// Records that employment `$1` is reminded at `$2`, if it is pending and its latest
        /// e-mail (or its creation) is not after `$3`.
        pub const CLAIM: &str = "UPDATE employments SET latest_invite_email_time = $2
             WHERE id = $1 AND validation_status = 'pending' AND dismissed_at IS NULL
               AND COALESCE(latest_invite_email_time, reception_time) <= $3";
        /// The new invitation token of employment `$1` (`$2` its hash) and its expiry `$3`; only
        /// while the invitation is unanswered.
        pub const NEW_TOKEN: &str = "UPDATE employments SET invite_token_hash = $2, invite_expires_at = $3
             WHERE id = $1 AND user_id IS NULL";
    }
}
