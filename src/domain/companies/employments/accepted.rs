//! The e-mail to the admin who invited someone, once the invitation is accepted
//! (`invitation_accepted`, optional, in the admin's language): by the invitation's token
//! (`signUp.redeemInvite`, a sign-up with the token, the invitation page) or by
//! `validateEmployment`. It is queued with the acceptance, and only while the inviting admin is
//! still an admin of the company (and is not the employee). The reference tells the employee
//! instead; the admin is the one waiting for the answer.

use sqlx::AnyConnection;

use crate::domain::companies::{date_text, today};
use crate::domain::mails;
use crate::errors::AppResult;
use crate::mail::kinds::MailType;
use crate::mail::notices;

pub mod sql {
    crate::statements! {
        /// The inviting admin of employment `$1`, while admin of its company on `$2`, with the
        /// employee's names, the company's name and whether the employment gives admin rights.
        pub const INVITER: &str = "SELECT e.submitter_id, u.first_name, u.last_name, c.usual_name, e.has_admin_rights \
             FROM employments e JOIN users u ON u.id = e.user_id JOIN companies c ON c.id = e.company_id \
             WHERE e.id = $1 AND e.submitter_id IS NOT NULL AND e.submitter_id <> e.user_id \
               AND EXISTS (SELECT 1 FROM employments a WHERE a.user_id = e.submitter_id AND a.company_id = e.company_id \
                 AND a.validation_status = 'approved' AND a.dismissed_at IS NULL AND a.has_admin_rights = 1 \
                 AND a.start_date <= $2 AND (a.end_date IS NULL OR a.end_date >= $2))";
    }
}

/// Queues the e-mail about accepted employment `employment_id`, inside the acceptance's
/// transaction.
pub async fn tell_inviter(conn: &mut AnyConnection, employment_id: i64, public_url: &str) -> AppResult<()> {
    let found: Option<(i64, String, String, String, i64)> = sqlx::query_as(sql::INVITER)
        .bind(employment_id)
        .bind(date_text(today()))
        .fetch_optional(&mut *conn)
        .await?;
    let Some((admin, first, last, company, admin_rights)) = found else {
        return Ok(());
    };
    let employee = format!("{first} {last}");
    mails::send(conn, admin, MailType::InvitationAccepted, public_url, |to| {
        notices::invitation_accepted(to.lang, &to.name, &employee, &company, admin_rights == 1, employment_id)
    })
    .await?;
    Ok(())
}
