//! The browser pages of the authorization endpoint: login, second factor, consent and error. Server-rendered
//! from askama templates (`templates/oauth/`, checked at compile time, HTML-escaped by
//! default), plain, accessible (labels, headings, language, contrast), usable on a phone (mobile
//! workers authorize applications from their phones), and without any external asset. In
//! English or French, as the request's `Accept-Language` prefers (see `crate::i18n`).

use askama::Template;

use crate::i18n::Lang;

/// Every sentence of the authorization pages, in one language.
pub struct Texts {
    /// The `<html lang>` of the page (also read by the vendors' pages, which extend this base).
    pub lang: &'static str,
    log_in: &'static str,
    log_in_heading: &'static str,
    asks_access: &'static str,
    email: &'static str,
    password: &'static str,
    no_account: &'static str,
    forgot_password: &'static str,
    authorize_title: &'static str,
    authorize_before: &'static str,
    authorize_after: &'static str,
    logged_in_as: &'static str,
    will_act: &'static str,
    scope_profile: &'static str,
    scope_time: &'static str,
    scope_admin: &'static str,
    never_password: &'static str,
    allow: &'static str,
    deny: &'static str,
    error_title: &'static str,
    error_heading: &'static str,
    /// Sentences of the login's errors and of the error page.
    pub wrong_credentials: &'static str,
    pub too_many: &'static str,
    pub form_expired: &'static str,
    pub busy: &'static str,
    pub retry: &'static str,
    pub unknown_client: &'static str,
    code_title: &'static str,
    code_heading: &'static str,
    code_label: &'static str,
    code_hint: &'static str,
    code_submit: &'static str,
    /// Sentences of the second factor's errors.
    pub wrong_code: &'static str,
    pub login_expired: &'static str,
}

const EN: Texts = Texts {
    lang: "en",
    log_in: "Log in",
    log_in_heading: "Log in to Roadlog",
    asks_access: " asks to access your Roadlog account. Log in first.",
    email: "E-mail",
    password: "Password",
    no_account: "No account yet? Create one",
    forgot_password: "Forgot your password?",
    authorize_title: "Authorize",
    authorize_before: "Authorize ",
    authorize_after: "?",
    logged_in_as: "Logged in as",
    will_act: " will be able to act on your Roadlog account with your rights:",
    scope_profile: "read your profile, your employments and your companies;",
    scope_time: "read and record your missions, activities and expenses;",
    scope_admin: "for companies you administer: manage employments and export working time.",
    never_password: "It will never see your password. You can withdraw this access at any time.",
    allow: "Allow",
    deny: "Deny",
    error_title: "Error",
    error_heading: "This authorization request cannot be served",
    wrong_credentials: "Wrong e-mail or password.",
    too_many: "Too many failed attempts. Try again in {minutes} minutes.",
    form_expired: "This form has expired or did not come from this site. Go back and reload the page.",
    busy: "The service is busy. Retry in a moment.",
    retry: "Please retry.",
    unknown_client: "The application that sent you here is unknown, or asked to send you back to an address it did not register.",
    code_title: "Code",
    code_heading: "Enter the code of your authenticator",
    code_label: "Code (6 digits)",
    code_hint: "Lost your authenticator? Enter one of your recovery codes instead.",
    code_submit: "Verify",
    wrong_code: "Wrong code.",
    login_expired: "This login has expired: log in again.",
};

const FR: Texts = Texts {
    lang: "fr",
    log_in: "Se connecter",
    log_in_heading: "Connexion à Roadlog",
    asks_access: " demande à accéder à votre compte Roadlog. Connectez-vous d'abord.",
    email: "E-mail",
    password: "Mot de passe",
    no_account: "Pas encore de compte ? Créez-en un",
    forgot_password: "Mot de passe oublié ?",
    authorize_title: "Autoriser",
    authorize_before: "Autoriser ",
    authorize_after: " ?",
    logged_in_as: "Connecté en tant que",
    will_act: " pourra agir sur votre compte Roadlog avec vos droits :",
    scope_profile: "lire votre profil, vos rattachements et vos entreprises ;",
    scope_time: "lire et enregistrer vos missions, activités et frais ;",
    scope_admin: "pour les entreprises que vous gérez : gérer les rattachements et exporter le temps de travail.",
    never_password: "Elle ne verra jamais votre mot de passe. Vous pouvez retirer cet accès à tout moment.",
    allow: "Autoriser",
    deny: "Refuser",
    error_title: "Erreur",
    error_heading: "Cette demande d'autorisation ne peut pas aboutir",
    wrong_credentials: "E-mail ou mot de passe incorrect.",
    too_many: "Trop de tentatives échouées. Réessayez dans {minutes} minutes.",
    form_expired: "Ce formulaire a expiré ou ne vient pas de ce site. Revenez en arrière et rechargez la page.",
    busy: "Le service est occupé. Réessayez dans un instant.",
    retry: "Veuillez réessayer.",
    unknown_client: "L'application qui vous a envoyé ici est inconnue, ou demande à vous renvoyer vers une adresse qu'elle n'a pas enregistrée.",
    code_title: "Code",
    code_heading: "Saisissez le code de votre application d'authentification",
    code_label: "Code (6 chiffres)",
    code_hint: "Application perdue ? Saisissez plutôt l'un de vos codes de secours.",
    code_submit: "Vérifier",
    wrong_code: "Code incorrect.",
    login_expired: "Cette connexion a expiré : connectez-vous à nouveau.",
};

/// The texts of a language.
pub fn texts(lang: Lang) -> &'static Texts {
    match lang {
        Lang::En => &EN,
        Lang::Fr => &FR,
    }
}

#[derive(Template)]
#[template(path = "oauth/login.html")]
struct Login<'a> {
    t: &'a Texts,
    action: &'a str,
    csrf: &'a str,
    client: &'a str,
    error: Option<&'a str>,
    /// The sign-up page, which comes back to this authorization request afterwards.
    signup: String,
}

#[derive(Template)]
#[template(path = "oauth/second_factor.html")]
struct SecondFactor<'a> {
    t: &'a Texts,
    action: &'a str,
    csrf: &'a str,
    client: &'a str,
    challenge: &'a str,
    error: Option<&'a str>,
}

#[derive(Template)]
#[template(path = "oauth/consent.html")]
struct Consent<'a> {
    t: &'a Texts,
    action: &'a str,
    csrf: &'a str,
    client: &'a str,
    user: &'a str,
}

#[derive(Template)]
#[template(path = "oauth/error.html")]
struct Error<'a> {
    t: &'a Texts,
    message: &'a str,
}

/// Renders a page. The templates are checked when the crate compiles; rendering fails only if
/// writing to the string fails, which leaves a plain sentence rather than no answer.
fn render(page: &impl Template) -> String {
    page.render().unwrap_or_else(|error| {
        tracing::error!(%error, "an authorization page could not be rendered");
        "This page could not be shown. Please retry.".to_string()
    })
}

/// The login form; it posts back to the authorization request's own URL, and links to the
/// sign-up page (which returns here) and to the password reset.
pub fn login(lang: Lang, action: &str, csrf: &str, client: &str, error: Option<&str>) -> String {
    let next: String = url::form_urlencoded::byte_serialize(action.as_bytes()).collect();
    render(&Login {
        t: texts(lang),
        action,
        csrf,
        client,
        error,
        signup: format!("/account/signup?next={next}"),
    })
}

/// The second step of the login of an account with a second factor: the code, with the login's
/// challenge in a hidden field (it proves the password only, and expires in minutes).
pub fn second_factor(
    lang: Lang,
    action: &str,
    csrf: &str,
    client: &str,
    challenge: &str,
    error: Option<&str>,
) -> String {
    render(&SecondFactor {
        t: texts(lang),
        action,
        csrf,
        client,
        challenge,
        error,
    })
}

/// The consent page: who asks, for whom, and what it will be able to do.
pub fn consent(lang: Lang, action: &str, csrf: &str, client: &str, user: &str) -> String {
    render(&Consent {
        t: texts(lang),
        action,
        csrf,
        client,
        user,
    })
}

/// An error that must not be sent back to the application (unknown client, unregistered
/// redirect URI, expired form).
pub fn error(lang: Lang, message: &str) -> String {
    render(&Error {
        t: texts(lang),
        message,
    })
}

#[cfg(test)]
mod tests {
    use crate::i18n::Lang;

    #[test]
    fn text_is_escaped() {
        let page = super::consent(Lang::En, "/oauth/authorize?x=1&y=2", "t", "<script>", "Jeanne");
        assert!(!page.contains("<script>") && page.contains("Authorize &#60;script&#62;?"));
        assert!(page.contains("action=\"/oauth/authorize?x=1&#38;y=2\""));
        let page = super::login(Lang::En, "/a", "t", "\"quoted\"", Some("<b>wrong</b>"));
        assert!(page.contains("<strong>&#34;quoted&#34;</strong>"));
        assert!(page.contains("role=\"alert\">&#60;b&#62;wrong&#60;/b&#62;</p>"));
        assert!(!super::login(Lang::En, "/a", "t", "c", None).contains("role=\"alert\""));
        let page = super::login(Lang::En, "/oauth/authorize?client_id=1&state=x", "t", "c", None);
        assert!(page.contains("href=\"/account/signup?next=%2Foauth%2Fauthorize%3Fclient_id%3D1%26state%3Dx\""));
        assert!(page.contains("href=\"/account/password/reset\""));
    }

    #[test]
    fn the_code_page_carries_the_challenge_escaped() {
        let page = super::second_factor(Lang::En, "/a?x=1&y=2", "t", "<Fleet>", "rl_tc_\"x", Some("Wrong code."));
        assert!(page.contains("name=\"challenge\" value=\"rl_tc_&#34;x\""), "{page}");
        assert!(page.contains("name=\"action\" value=\"totp\"") && page.contains("&#60;Fleet&#62;"));
        assert!(page.contains("role=\"alert\">Wrong code.</p>"));
        let page = super::second_factor(Lang::Fr, "/a", "t", "Fleet", "c", None);
        assert!(
            page.contains("codes de secours") && !page.contains("role=\"alert\""),
            "{page}"
        );
    }

    #[test]
    fn pages_speak_french_when_asked() {
        let page = super::consent(Lang::Fr, "/a", "t", "Fleet", "Jeanne");
        assert!(
            page.contains("<html lang=\"fr\">") && page.contains("Autoriser Fleet ?"),
            "{page}"
        );
        let page = super::login(Lang::Fr, "/a", "t", "Fleet", None);
        assert!(
            page.contains("Connexion à Roadlog") && page.contains("Mot de passe oublié ?"),
            "{page}"
        );
        assert!(super::error(Lang::En, "x").contains("<html lang=\"en\">"));
    }
}
