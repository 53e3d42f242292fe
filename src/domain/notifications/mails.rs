//! The e-mails that follow an admin's validation of a worker's time (the reference's
//! `warn_if_mission_changes_since_latest_user_action`): `new_mission_information` when the
//! worker never acted on the mission (not for a holiday: the reference's computation fails on
//! one and sends nothing), `mission_changes_warning` (`holiday_changes_warning` for a holiday)
//! when the admin changed the worker's time since their last action. Both are optional
//! (`domain::mails`), in the worker's language, queued with the validation.

use sqlx::AnyConnection;

use crate::domain::alerts::load;
use crate::domain::mails;
use crate::errors::AppResult;
use crate::mail::kinds::MailType;
use crate::mail::notices::{self, MissionMail, Span};

use super::outcome::{Measures, Outcome};

pub mod sql {
    crate::statements! {
        /// The mission's name and its company's usual name.
        pub const MISSION_AND_COMPANY: &str = "SELECT m.name, c.usual_name FROM missions m \
             JOIN companies c ON c.id = m.company_id WHERE m.id = $1";
        /// A user's first and last names.
        pub const NAMES: &str = "SELECT first_name, last_name FROM users WHERE id = $1";
    }
}

fn span(measures: &Measures, at: i64) -> Span {
    Span {
        start: measures.start.unwrap_or(at),
        end: measures.end,
        work: measures.work,
    }
}

/// Queues the e-mail of `outcome` to `user`, about `admin`'s validation of the mission.
pub(super) async fn tell(
    conn: &mut AnyConnection,
    mission_id: i64,
    user: i64,
    admin: i64,
    outcome: &Outcome,
    at: i64,
    public_url: &str,
) -> AppResult<()> {
    let kind = match outcome {
        Outcome::New { holiday: true, .. } => return Ok(()),
        Outcome::New { .. } => MailType::NewMissionInformation,
        Outcome::Changed { holiday: true, .. } => MailType::HolidayChangesWarning,
        Outcome::Changed { .. } => MailType::MissionChangesWarning,
    };
    let (mission_name, company): (Option<String>, String) = sqlx::query_as(sql::MISSION_AND_COMPANY)
        .bind(mission_id)
        .fetch_one(&mut *conn)
        .await?;
    let (first, last): (String, String) = sqlx::query_as(sql::NAMES).bind(admin).fetch_one(&mut *conn).await?;
    let admin_name = format!("{first} {last}");
    let tz = load::zone(conn, user).await?;
    mails::send(conn, user, kind, public_url, |to| {
        let mail = MissionMail {
            recipient: &to.name,
            mission_id,
            mission_name: mission_name.as_deref(),
            admin: &admin_name,
            company: &company,
            tz,
        };
        match outcome {
            Outcome::New { now, .. } => notices::new_mission(to.lang, &mail, span(now, at)),
            Outcome::Changed { then, now, holiday } => {
                notices::mission_changes(to.lang, &mail, span(then, at), span(now, at), *holiday)
            }
        }
    })
    .await?;
    Ok(())
}
