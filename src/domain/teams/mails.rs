//! The reference's three e-mails of a change of a team's admins (`createTeam`, `updateTeam`):
//! to a new admin of the team (but the actor) that they manage it (`team_affectation`), to the
//! admins who stay that a colleague joined them (`team_new_colleague`), to a removed admin that
//! they no longer manage it (`team_affectation`). Optional, in each admin's language
//! (`domain::mails`), at the accounts' own addresses, so never listed by the company's sandbox
//! outbox.

use sqlx::AnyConnection;

use crate::domain::auth::Actor;
use crate::domain::mails;
use crate::errors::AppResult;
use crate::i18n::Lang;
use crate::mail::kinds::MailType;
use crate::mail::messages::Message;

use super::TeamRow;

/// What happened to an admin of the team.
#[derive(Clone, Copy)]
enum Change {
    Added,
    ColleagueAdded,
    Removed,
}

fn message(lang: Lang, change: Change, team: &str, company: &str) -> Message {
    let (subject, body) = match (lang, change) {
        (Lang::En, Change::Added) => (
            format!("You now manage the team {team}"),
            format!("You were made an admin of the team {team} of {company} on Roadlog.\n"),
        ),
        (Lang::En, Change::ColleagueAdded) => (
            format!("A colleague now manages the team {team} with you"),
            format!("Another admin of {company} now manages the team {team} with you on Roadlog.\n"),
        ),
        (Lang::En, Change::Removed) => (
            format!("You no longer manage the team {team}"),
            format!("You are no longer an admin of the team {team} of {company} on Roadlog.\n"),
        ),
        (Lang::Fr, Change::Added) => (
            format!("Vous gérez désormais le groupe {team}"),
            format!("Vous avez reçu la gestion du groupe {team} de l'entreprise {company} sur Roadlog.\n"),
        ),
        (Lang::Fr, Change::ColleagueAdded) => (
            format!("Ajout d'un responsable dans votre groupe {team}"),
            format!(
                "Un autre gestionnaire de l'entreprise {company} gère désormais avec vous le groupe {team} sur Roadlog.\n"
            ),
        ),
        (Lang::Fr, Change::Removed) => (
            format!("Vous ne gérez plus le groupe {team}"),
            format!("La gestion du groupe {team} de l'entreprise {company} vous a été retirée sur Roadlog.\n"),
        ),
    };
    Message { subject, body }
}

/// Tells the team's admins what changed between `before` and `after` (their ids), inside the
/// change's transaction.
pub(super) async fn notify_admins(
    conn: &mut AnyConnection,
    actor: Actor,
    team: &TeamRow,
    (before, after): (&[i64], &[i64]),
    public_url: &str,
) -> AppResult<()> {
    let added: Vec<i64> = after.iter().copied().filter(|u| !before.contains(u)).collect();
    let removed: Vec<i64> = before.iter().copied().filter(|u| !after.contains(u)).collect();
    let stayed: Vec<i64> = after.iter().copied().filter(|u| before.contains(u)).collect();
    if added.is_empty() && removed.is_empty() {
        return Ok(());
    }
    let (company,): (String,) = sqlx::query_as("SELECT usual_name FROM companies WHERE id = $1")
        .bind(team.company_id)
        .fetch_one(&mut *conn)
        .await?;
    let mut changes: Vec<(i64, Change)> = added.iter().map(|&u| (u, Change::Added)).collect();
    if !added.is_empty() {
        changes.extend(stayed.iter().map(|&u| (u, Change::ColleagueAdded)));
    }
    changes.extend(removed.iter().map(|&u| (u, Change::Removed)));
    for (user, change) in changes.into_iter().filter(|&(u, _)| u != actor.user_id) {
        let kind = match change {
            Change::ColleagueAdded => MailType::TeamNewColleague,
            Change::Added | Change::Removed => MailType::TeamAffectation,
        };
        mails::send(conn, user, kind, public_url, |to| {
            message(to.lang, change, &team.name, &company)
        })
        .await?;
    }
    Ok(())
}
