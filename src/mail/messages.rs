//! The texts of the e-mails sent to people: subject and body, from askama text templates
//! (`templates/mail/`, checked at compile time, not HTML-escaped: they are plain text).
//! Confirmation and reset e-mails are in the language of the page or request that caused them;
//! an invitation is in English and French together, because the language of the invited person
//! is unknown (the request that invites is an administrator's, often from a program).

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

/// Renders a text; the templates are checked at compile time, so only a failing writer can fail,
/// which leaves the link alone rather than no message.
fn render(text: &impl Template, link: &str) -> String {
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
    }
}
