//! The page an optional e-mail's unsubscribe link opens, `/mail/unsubscribe?token=…`
//! (`domain::mails::unsubscribe`): it works without logging in, as the signed token names the
//! user and the type. `GET` only asks (mail scanners open links), `POST` stops the type. The
//! `POST` needs no CSRF token: the signed token is the authority, and all a forged request can do
//! is stop e-mails its sender already could stop with the link; mail clients also send it alone
//! (`List-Unsubscribe=One-Click`, RFC 8058), without cookies.

use askama::Template;
use warp::http::StatusCode;

use crate::domain::mails::unsubscribe;
use crate::i18n::Lang;
use crate::mail::kinds::MailType;

use super::{Answer, Visit, encode};

#[derive(Template)]
#[template(path = "pages/unsubscribe.html")]
struct Page<'a> {
    lang: &'a str,
    title: &'a str,
    question: String,
    action: String,
    token: &'a str,
    submit: &'a str,
    note: &'a str,
}

/// What the e-mails of an optional type are about, for the sentences of the page.
fn described(lang: Lang, kind: MailType) -> &'static str {
    match (lang, kind) {
        (Lang::Fr, MailType::InvitationAccepted) => "les invitations acceptées",
        (Lang::Fr, MailType::NewMissionInformation) => "les missions ajoutées à votre historique par un gestionnaire",
        (Lang::Fr, MailType::MissionChangesWarning) => "les modifications de vos missions par un gestionnaire",
        (Lang::Fr, MailType::HolidayChangesWarning) => "les modifications de vos congés par un gestionnaire",
        (Lang::Fr, MailType::HolidayLoggingByAdmin) => "les congés et absences enregistrés par un gestionnaire",
        (Lang::Fr, MailType::TeamAffectation) => "la gestion de vos groupes",
        (Lang::Fr, MailType::TeamNewColleague) => "les nouveaux responsables de vos groupes",
        (Lang::Fr, _) => "ce type",
        (Lang::En, MailType::InvitationAccepted) => "accepted invitations",
        (Lang::En, MailType::NewMissionInformation) => "missions an administrator added to your history",
        (Lang::En, MailType::MissionChangesWarning) => "changes an administrator made to your missions",
        (Lang::En, MailType::HolidayChangesWarning) => "changes an administrator made to your holidays",
        (Lang::En, MailType::HolidayLoggingByAdmin) => "holidays and absences an administrator recorded",
        (Lang::En, MailType::TeamAffectation) => "the teams you manage",
        (Lang::En, MailType::TeamNewColleague) => "new managers of your teams",
        (Lang::En, _) => "this type",
    }
}

/// The token of the query, or of the form.
fn given_token(visit: &Visit) -> Result<String, Answer> {
    let from_query = visit
        .query("token")
        .map_err(|()| visit.problem(StatusCode::BAD_REQUEST, visit.t.bad_request))?;
    let token = from_query.unwrap_or_else(|| visit.field("token"));
    Ok(token.to_string())
}

fn unknown(visit: &Visit) -> Answer {
    let sentence = match visit.lang {
        Lang::Fr => "Ce lien de désabonnement n'est pas valide : copiez-le en entier depuis l'e-mail.",
        Lang::En => "This unsubscribe link is not valid: copy it whole from the e-mail.",
    };
    visit.problem(StatusCode::NOT_FOUND, sentence)
}

/// `GET`: what the link stops, and the button that stops it.
pub async fn page(visit: &mut Visit) -> Result<Answer, Answer> {
    let token = given_token(visit)?;
    let kind = match unsubscribe::lookup(&visit.app.db, &token).await {
        Ok(Some((_, kind))) => kind,
        Ok(None) => return Err(unknown(visit)),
        Err(error) => {
            error.log_if_internal();
            return Err(visit.problem(StatusCode::INTERNAL_SERVER_ERROR, visit.t.retry));
        }
    };
    let about = described(visit.lang, kind);
    let (title, question, submit, note) = match visit.lang {
        Lang::Fr => (
            "Se désabonner",
            format!("Ne plus recevoir les e-mails sur {about} ?"),
            "Ne plus les recevoir",
            "Les e-mails de sécurité et ceux qui concernent votre compte continuent d'arriver.",
        ),
        Lang::En => (
            "Unsubscribe",
            format!("Stop the e-mails about {about}?"),
            "Stop them",
            "Security e-mails and those about your account keep coming.",
        ),
    };
    let page = Page {
        lang: visit.lang.tag(),
        title,
        question,
        action: format!("/mail/unsubscribe?token={}", encode(&token)),
        token: &token,
        submit,
        note,
    };
    Ok(visit.render(StatusCode::OK, &page))
}

/// `POST`: stops the type for the token's user.
pub async fn submit(visit: &mut Visit) -> Result<Answer, Answer> {
    let token = given_token(visit)?;
    let kind = match unsubscribe::stop(&visit.app.db, &token).await {
        Ok(Some((_, kind))) => kind,
        Ok(None) => return Err(unknown(visit)),
        Err(error) => {
            error.log_if_internal();
            return Err(visit.problem(StatusCode::INTERNAL_SERVER_ERROR, visit.t.retry));
        }
    };
    let about = described(visit.lang, kind);
    let (title, sentence, again) = match visit.lang {
        Lang::Fr => (
            "Désabonnement enregistré",
            format!("Vous ne recevrez plus les e-mails sur {about}."),
            "Pour les recevoir de nouveau : account.changeEmailOptOut.",
        ),
        Lang::En => (
            "Unsubscribed",
            format!("You will no longer receive the e-mails about {about}."),
            "To receive them again: account.changeEmailOptOut.",
        ),
    };
    Ok(visit.message(StatusCode::OK, title, vec![sentence, again.to_string()], false))
}
