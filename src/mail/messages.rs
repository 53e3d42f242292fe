//! The texts of the e-mails sent to people: subject and body, from askama text templates
//! (`templates/mail/`, checked at compile time, not HTML-escaped: they are plain text).
//! Confirmation and reset e-mails are in the language of the page or request that caused them;
//! the e-mails to an account in the account's language (`domain::mails`); an invitation is in
//! English and French together, because the language of the invited person is unknown (the
//! request that invites is an administrator's, often from a program).

use askama::Template;

use crate::i18n::Lang;

/// A message to queue.
pub struct Message {
    pub subject: String,
    pub body: String,
}

#[derive(Template)]
#[template(path = "mail/confirm_email.en.txt")]
struct ConfirmEn<'a> {
    name: &'a str,
    link: &'a str,
}

#[derive(Template)]
#[template(path = "mail/confirm_email.fr.txt")]
struct ConfirmFr<'a> {
    name: &'a str,
    link: &'a str,
}

#[derive(Template)]
#[template(path = "mail/confirm_new_email.en.txt")]
struct ConfirmNewEn<'a> {
    name: &'a str,
    link: &'a str,
}

#[derive(Template)]
#[template(path = "mail/confirm_new_email.fr.txt")]
struct ConfirmNewFr<'a> {
    name: &'a str,
    link: &'a str,
}

#[derive(Template)]
#[template(path = "mail/email_changed.en.txt")]
struct ChangedEn<'a> {
    name: &'a str,
    new_email: &'a str,
    public_url: &'a str,
}

#[derive(Template)]
#[template(path = "mail/email_changed.fr.txt")]
struct ChangedFr<'a> {
    name: &'a str,
    new_email: &'a str,
    public_url: &'a str,
}

#[derive(Template)]
#[template(path = "mail/reset_password.en.txt")]
struct ResetEn<'a> {
    link: &'a str,
}

#[derive(Template)]
#[template(path = "mail/reset_password.fr.txt")]
struct ResetFr<'a> {
    link: &'a str,
}

#[derive(Template)]
#[template(path = "mail/invitation.txt")]
struct Invitation<'a> {
    company: &'a str,
    role_en: &'a str,
    role_fr: &'a str,
    link: &'a str,
    token: &'a str,
    public_url: &'a str,
}

#[derive(Template)]
#[template(path = "mail/detachment_request.txt")]
struct DetachmentRequest<'a> {
    fr: bool,
    employee: &'a str,
    company: &'a str,
    employment_id: i64,
    /// The date of the first request, for a reminder (`YYYY-MM-DD`, and `dd/mm/YYYY` in French).
    first_request: Option<&'a str>,
    first_fr: &'a str,
}

#[derive(Template)]
#[template(path = "mail/reattachment.txt")]
struct Reattachment<'a> {
    fr: bool,
    company: &'a str,
    public_url: &'a str,
}

/// Renders a text; the templates are checked at compile time, so only a failing writer can fail,
/// which leaves the link alone rather than no message.
pub(crate) fn render(text: &impl Template, link: &str) -> String {
    text.render().unwrap_or_else(|error| {
        tracing::error!(%error, "an e-mail could not be rendered");
        format!("{link}\n")
    })
}

/// The e-mail with the link that confirms an account's address.
pub fn confirm_email(lang: Lang, name: &str, link: &str) -> Message {
    match lang {
        Lang::En => Message {
            subject: "Confirm your e-mail address".into(),
            body: render(&ConfirmEn { name, link }, link),
        },
        Lang::Fr => Message {
            subject: "Confirmez votre adresse e-mail".into(),
            body: render(&ConfirmFr { name, link }, link),
        },
    }
}

/// The e-mail with the link that confirms the new address of an account (`account.changeEmail`).
pub fn confirm_new_email(lang: Lang, name: &str, link: &str) -> Message {
    match lang {
        Lang::En => Message {
            subject: "Confirm the new e-mail address of your Roadlog account".into(),
            body: render(&ConfirmNewEn { name, link }, link),
        },
        Lang::Fr => Message {
            subject: "Confirmez la nouvelle adresse e-mail de votre compte Roadlog".into(),
            body: render(&ConfirmNewFr { name, link }, link),
        },
    }
}

/// The e-mail that tells the previous address of an account that the account moved to
/// `new_email`, so that an owner who did not ask for it learns of it.
pub fn email_changed(lang: Lang, name: &str, new_email: &str, public_url: &str) -> Message {
    match lang {
        Lang::En => Message {
            subject: "The e-mail address of your Roadlog account changed".into(),
            body: render(
                &ChangedEn {
                    name,
                    new_email,
                    public_url,
                },
                new_email,
            ),
        },
        Lang::Fr => Message {
            subject: "L'adresse e-mail de votre compte Roadlog a changé".into(),
            body: render(
                &ChangedFr {
                    name,
                    new_email,
                    public_url,
                },
                new_email,
            ),
        },
    }
}

/// The e-mail with the link that lets the owner of an address choose a new password. It names
/// nobody: it is written before anyone knows whether an account has this address.
pub fn reset_password(lang: Lang, link: &str) -> Message {
    match lang {
        Lang::En => Message {
            subject: "Reset your Roadlog password".into(),
            body: render(&ResetEn { link }, link),
        },
        Lang::Fr => Message {
            subject: "Réinitialisez votre mot de passe Roadlog".into(),
            body: render(&ResetFr { link }, link),
        },
    }
}

/// The invitation to join a company: the page's link and the token for API clients.
pub fn invitation(company: &str, admin: bool, link: &str, token: &str, public_url: &str) -> Message {
    let (role_en, role_fr) = if admin {
        ("an administrator", "gestionnaire")
    } else {
        ("a worker", "salarié")
    };
    Message {
        subject: format!("Invitation from {company} / Invitation de {company}"),
        body: render(
            &Invitation {
                company,
                role_en,
                role_fr,
                link,
                token,
                public_url,
            },
            link,
        ),
    }
}

/// The e-mail to a company's admin that an employee asks to be detached, or, with the date of
/// the first request (`YYYY-MM-DD`), its reminder; in the admin's language.
pub fn detachment_request(
    lang: Lang,
    employee: &str,
    company: &str,
    employment_id: i64,
    first_request: Option<&str>,
) -> Message {
    let first_fr = first_request
        .and_then(|day| chrono::NaiveDate::parse_from_str(day, "%Y-%m-%d").ok())
        .map(|day| day.format("%d/%m/%Y").to_string())
        .unwrap_or_default();
    let subject = match (lang, first_request) {
        (Lang::En, None) => format!("{employee} asks to be detached from {company}"),
        (Lang::En, Some(_)) => format!("Reminder: {employee} asks to be detached from {company}"),
        (Lang::Fr, None) => {
            format!("Demande de détachement de {employee} du compte Roadlog de votre entreprise {company}")
        }
        (Lang::Fr, Some(_)) => {
            format!("Relance : détachement de {employee} du compte Roadlog de votre entreprise {company}")
        }
    };
    Message {
        subject,
        body: render(
            &DetachmentRequest {
                fr: lang == Lang::Fr,
                employee,
                company,
                employment_id,
                first_request,
                first_fr: &first_fr,
            },
            company,
        ),
    }
}

/// The e-mail to an employee whom a company attached again (`reattachEmployment`), in the
/// employee's language.
pub fn reattachment(lang: Lang, company: &str, public_url: &str) -> Message {
    let subject = match lang {
        Lang::En => format!("{company} attached you again"),
        Lang::Fr => format!("L'entreprise {company} a réactivé votre rattachement à son compte Roadlog"),
    };
    Message {
        subject,
        body: render(
            &Reattachment {
                fr: lang == Lang::Fr,
                company,
                public_url,
            },
            public_url,
        ),
    }
}

/// The e-mail to an existing account that a company added it as an employee (or, `reminder`,
/// its reminder), in the account's language: it answers through the API.
pub fn employment_invitation(
    lang: Lang,
    company: &str,
    employment_id: i64,
    public_url: &str,
    reminder: bool,
) -> Message {
    match lang {
        Lang::En => {
            let again = if reminder { "Reminder: " } else { "" };
            Message {
                subject: format!("{again}{company} added you as an employee"),
                body: format!(
                    "{again}{company} added you as an employee on Roadlog.\n\n\
                     Accept the employment (employments.validateEmployment, employment {employment_id}) or refuse it\n\
                     (employments.rejectEmployment). Service: {public_url}\n"
                ),
            }
        }
        Lang::Fr => {
            let again = if reminder { "Rappel : " } else { "" };
            Message {
                subject: format!("{again}L'entreprise {company} vous a ajouté(e) comme salarié(e)"),
                body: format!(
                    "{again}L'entreprise {company} vous a ajouté(e) comme salarié(e) sur Roadlog.\n\n\
                     Acceptez le rattachement (employments.validateEmployment, rattachement {employment_id}) ou\n\
                     refusez-le (employments.rejectEmployment). Service : {public_url}\n"
                ),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn texts_carry_their_link_unescaped() {
        let link = "https://r.example/account/password/new?token=a&b";
        let en = reset_password(Lang::En, link);
        assert!(en.body.contains(link) && en.body.contains("one hour"), "{}", en.body);
        let fr = reset_password(Lang::Fr, link);
        assert!(fr.body.contains(link) && fr.body.contains("une heure"));
        let confirm = confirm_email(Lang::Fr, "Jeanne <Martin>", link);
        assert!(confirm.body.starts_with("Bonjour Jeanne <Martin>,"));
        let invitation = invitation("Société & Fils", true, link, "rl_inv_x", "https://r.example");
        assert!(invitation.body.contains("Société & Fils invites you"));
        assert!(invitation.body.contains("as an administrator") && invitation.body.contains("gestionnaire"));
        assert!(invitation.body.contains("\n    rl_inv_x\n"));
        let reminder = detachment_request(Lang::En, "Léa Dupont", "Acme", 42, Some("2026-03-01"));
        assert!(
            reminder.subject.starts_with("Reminder: Léa Dupont"),
            "{}",
            reminder.subject
        );
        assert!(reminder.body.contains("made on 2026-03-01"));
        let rappel = detachment_request(Lang::Fr, "Léa Dupont", "Acme", 42, Some("2026-03-01"));
        assert!(rappel.subject.starts_with("Relance : détachement de Léa Dupont"));
        assert!(rappel.body.contains("date du 01/03/2026"), "{}", rappel.body);
        assert!(reminder.body.contains("terminateEmployment(employmentId: 42)"));
        let first = detachment_request(Lang::En, "Léa Dupont", "Acme", 42, None);
        assert!(
            !first.body.contains("Reminder") && !first.body.contains("first request"),
            "{}",
            first.body
        );
    }
}
