//! What the account and invitation pages say, in English and in French. Placeholders in braces
//! (`{company}`) are replaced before rendering; the templates escape the result.

use crate::i18n::Lang;

/// Every sentence of the pages, in one language.
pub struct Texts {
    pub email: &'static str,
    pub password: &'static str,
    pub password_again: &'static str,
    pub first_name: &'static str,
    pub last_name: &'static str,
    pub log_in: &'static str,
    pub forgot_password: &'static str,
    pub create_account: &'static str,

    pub signup_title: &'static str,
    pub signup_intro: &'static str,
    pub signup_submit: &'static str,
    pub signup_have_account: &'static str,
    pub email_taken: &'static str,
    pub email_invalid: &'static str,
    pub password_length: &'static str,
    pub fields_invalid: &'static str,
    pub check_inbox_title: &'static str,
    pub check_inbox_body: &'static str,

    pub confirmed_title: &'static str,
    pub confirmed_body: &'static str,
    pub confirm_expired_body: &'static str,
    pub confirm_resend: &'static str,
    pub confirm_resent_body: &'static str,

    pub reset_title: &'static str,
    pub reset_intro: &'static str,
    pub reset_submit: &'static str,
    pub reset_sent_title: &'static str,
    pub reset_sent_body: &'static str,
    pub new_password_title: &'static str,
    pub new_password_intro: &'static str,
    pub new_password_submit: &'static str,
    pub passwords_differ: &'static str,
    pub reset_done_title: &'static str,
    pub reset_done_body: &'static str,
    pub reset_done_apps: &'static str,
    pub reset_done_no_apps: &'static str,

    pub link_problem_title: &'static str,
    pub link_expired: &'static str,
    pub link_used: &'static str,
    pub link_unknown: &'static str,

    pub invitation_title: &'static str,
    pub invitation_heading: &'static str,
    pub role_admin: &'static str,
    pub role_worker: &'static str,
    pub invitation_start: &'static str,
    pub invitation_sent_to: &'static str,
    pub invitation_login_intro: &'static str,
    pub invitation_no_account: &'static str,
    pub logged_in_as: &'static str,
    pub accept: &'static str,
    pub decline: &'static str,
    pub accepted_title: &'static str,
    pub accepted_body: &'static str,
    pub declined_title: &'static str,
    pub declined_body: &'static str,
    pub invitation_problem_title: &'static str,
    pub invitation_used: &'static str,
    pub invitation_declined: &'static str,
    pub invitation_cancelled: &'static str,
    pub invitation_expired: &'static str,
    pub invitation_unknown: &'static str,
    pub invitation_refused: &'static str,

    pub error_title: &'static str,
    pub csrf_failed: &'static str,
    pub too_many: &'static str,
    pub busy: &'static str,
    pub retry: &'static str,
    pub wrong_credentials: &'static str,
    /// An account with a second factor cannot log in here with its password alone.
    pub second_factor_needed: &'static str,
    pub bad_request: &'static str,
    pub method_not_allowed: &'static str,
}

const EN: Texts = Texts {
    email: "E-mail",
    password: "Password",
    password_again: "The same password again",
    first_name: "First name",
    last_name: "Last name",
    log_in: "Log in",
    forgot_password: "Forgot your password?",
    create_account: "Create an account",

    signup_title: "Create your Roadlog account",
    signup_intro: "Record your working time, and let the software of your company read it with your consent.",
    signup_submit: "Create my account",
    signup_have_account: "Already have an account? Log in",
    email_taken: "An account already exists with this e-mail address. Log in, or reset its password.",
    email_invalid: "This e-mail address is not valid.",
    password_length: "The password must be between 8 and 1024 characters long.",
    fields_invalid: "Check the fields: first and last names are required (at most 255 characters).",
    check_inbox_title: "Check your inbox",
    check_inbox_body: "Your account is created. We sent a link to {email}: open it to confirm your address. Until then, your account cannot act on a company's data.",

    confirmed_title: "Your address is confirmed",
    confirmed_body: "Thank you. Your account can now act on the data of your companies.",
    confirm_expired_body: "This confirmation link has expired (links work for 7 days).",
    confirm_resend: "Send a new link",
    confirm_resent_body: "We sent a new confirmation link to the address of the account. It is valid for 7 days.",

    reset_title: "Reset your password",
    reset_intro: "Type the e-mail address of your account. We will send a link to choose a new password.",
    reset_submit: "Send the link",
    reset_sent_title: "Check your inbox",
    reset_sent_body: "If an account exists for {email}, we sent it a link to choose a new password. The link is valid for one hour and works once.",
    new_password_title: "Choose a new password",
    new_password_intro: "Choosing a new password logs your account out everywhere. Applications you authorized keep their access until you revoke it.",
    new_password_submit: "Save the new password",
    passwords_differ: "The two passwords are different.",
    reset_done_title: "Your password is changed",
    reset_done_body: "Your account is logged out everywhere: log in again with the new password.",
    reset_done_apps: "These applications still have access to your account. If you do not recognise one, revoke its access (auth.revokeAuthorizedClient in the API, or in the application):",
    reset_done_no_apps: "No application has access to your account.",

    link_problem_title: "This link cannot be used",
    link_expired: "This link has expired. Ask for a new one.",
    link_used: "This link has already been used. Ask for a new one if you need it.",
    link_unknown: "This link is not valid. Check that you copied it whole, or ask for a new one.",

    invitation_title: "Invitation",
    invitation_heading: "{company} invites you to Roadlog",
    role_admin: "Role: administrator",
    role_worker: "Role: worker",
    invitation_start: "From {date}",
    invitation_sent_to: "Invitation sent to {email}",
    invitation_login_intro: "Log in to accept or decline this invitation.",
    invitation_no_account: "No account yet? Create one",
    logged_in_as: "Logged in as {name}.",
    accept: "Accept",
    decline: "Decline",
    accepted_title: "Invitation accepted",
    accepted_body: "You now work for {company} on Roadlog.",
    declined_title: "Invitation declined",
    declined_body: "You declined the invitation of {company}. It can no longer be used.",
    invitation_problem_title: "This invitation cannot be used",
    invitation_used: "This invitation has already been accepted.",
    invitation_declined: "This invitation has been declined.",
    invitation_cancelled: "The company has cancelled this invitation. Ask it for a new one if needed.",
    invitation_expired: "This invitation has expired (invitations are valid for 14 days). Ask the company for a new one.",
    invitation_unknown: "This invitation link is not valid. Check that you copied it whole.",
    invitation_refused: "The invitation could not be accepted: {reason}",

    error_title: "Error",
    csrf_failed: "This form has expired or did not come from this site. Go back and reload the page.",
    too_many: "Too many attempts. Try again in {minutes} minutes.",
    busy: "The service is busy. Retry in a moment.",
    retry: "Something went wrong on our side. Please retry.",
    wrong_credentials: "Wrong e-mail or password.",
    second_factor_needed: "This account logs in with a second factor, which this page does not ask for: accept the invitation in your application (or on the authorization page of an application, once logged in there with your code).",
    bad_request: "This request is not valid.",
    method_not_allowed: "This page does not accept this method.",
};

const FR: Texts = Texts {
    email: "E-mail",
    password: "Mot de passe",
    password_again: "Le même mot de passe à nouveau",
    first_name: "Prénom",
    last_name: "Nom",
    log_in: "Se connecter",
    forgot_password: "Mot de passe oublié ?",
    create_account: "Créer un compte",

    signup_title: "Créez votre compte Roadlog",
    signup_intro: "Enregistrez votre temps de travail, et laissez les logiciels de votre entreprise le lire avec votre accord.",
    signup_submit: "Créer mon compte",
    signup_have_account: "Déjà un compte ? Connectez-vous",
    email_taken: "Un compte existe déjà avec cette adresse e-mail. Connectez-vous, ou réinitialisez son mot de passe.",
    email_invalid: "Cette adresse e-mail n'est pas valide.",
    password_length: "Le mot de passe doit faire entre 8 et 1024 caractères.",
    fields_invalid: "Vérifiez les champs : le prénom et le nom sont obligatoires (255 caractères au plus).",
    check_inbox_title: "Consultez votre boîte de réception",
    check_inbox_body: "Votre compte est créé. Nous avons envoyé un lien à {email} : ouvrez-le pour confirmer votre adresse. D'ici là, votre compte ne peut pas agir sur les données d'une entreprise.",

    confirmed_title: "Votre adresse est confirmée",
    confirmed_body: "Merci. Votre compte peut maintenant agir sur les données de vos entreprises.",
    confirm_expired_body: "Ce lien de confirmation a expiré (les liens sont valables 7 jours).",
    confirm_resend: "Envoyer un nouveau lien",
    confirm_resent_body: "Nous avons envoyé un nouveau lien de confirmation à l'adresse du compte. Il est valable 7 jours.",

    reset_title: "Réinitialisez votre mot de passe",
    reset_intro: "Saisissez l'adresse e-mail de votre compte. Nous vous enverrons un lien pour choisir un nouveau mot de passe.",
    reset_submit: "Envoyer le lien",
    reset_sent_title: "Consultez votre boîte de réception",
    reset_sent_body: "Si un compte existe pour {email}, nous lui avons envoyé un lien pour choisir un nouveau mot de passe. Le lien est valable une heure et ne sert qu'une fois.",
    new_password_title: "Choisissez un nouveau mot de passe",
    new_password_intro: "Choisir un nouveau mot de passe déconnecte votre compte partout. Les applications que vous avez autorisées gardent leur accès jusqu'à ce que vous le retiriez.",
    new_password_submit: "Enregistrer le mot de passe",
    passwords_differ: "Les deux mots de passe sont différents.",
    reset_done_title: "Votre mot de passe est changé",
    reset_done_body: "Votre compte est déconnecté partout : connectez-vous à nouveau avec le nouveau mot de passe.",
    reset_done_apps: "Ces applications ont toujours accès à votre compte. Si vous n'en reconnaissez pas une, retirez-lui l'accès (auth.revokeAuthorizedClient dans l'API, ou dans l'application) :",
    reset_done_no_apps: "Aucune application n'a accès à votre compte.",

    link_problem_title: "Ce lien ne peut pas servir",
    link_expired: "Ce lien a expiré. Demandez-en un nouveau.",
    link_used: "Ce lien a déjà servi. Demandez-en un nouveau si besoin.",
    link_unknown: "Ce lien n'est pas valide. Vérifiez que vous l'avez copié en entier, ou demandez-en un nouveau.",

    invitation_title: "Invitation",
    invitation_heading: "{company} vous invite sur Roadlog",
    role_admin: "Rôle : gestionnaire",
    role_worker: "Rôle : salarié",
    invitation_start: "À partir du {date}",
    invitation_sent_to: "Invitation envoyée à {email}",
    invitation_login_intro: "Connectez-vous pour accepter ou refuser cette invitation.",
    invitation_no_account: "Pas encore de compte ? Créez-en un",
    logged_in_as: "Connecté en tant que {name}.",
    accept: "Accepter",
    decline: "Refuser",
    accepted_title: "Invitation acceptée",
    accepted_body: "Vous travaillez désormais pour {company} sur Roadlog.",
    declined_title: "Invitation refusée",
    declined_body: "Vous avez refusé l'invitation de {company}. Elle ne peut plus servir.",
    invitation_problem_title: "Cette invitation ne peut pas servir",
    invitation_used: "Cette invitation a déjà été acceptée.",
    invitation_declined: "Cette invitation a été refusée.",
    invitation_cancelled: "L'entreprise a annulé cette invitation. Demandez-lui en une nouvelle si besoin.",
    invitation_expired: "Cette invitation a expiré (les invitations sont valables 14 jours). Demandez-en une nouvelle à l'entreprise.",
    invitation_unknown: "Ce lien d'invitation n'est pas valide. Vérifiez que vous l'avez copié en entier.",
    invitation_refused: "L'invitation n'a pas pu être acceptée : {reason}",

    error_title: "Erreur",
    csrf_failed: "Ce formulaire a expiré ou ne vient pas de ce site. Revenez en arrière et rechargez la page.",
    too_many: "Trop de tentatives. Réessayez dans {minutes} minutes.",
    busy: "Le service est occupé. Réessayez dans un instant.",
    retry: "Une erreur est survenue de notre côté. Veuillez réessayer.",
    wrong_credentials: "E-mail ou mot de passe incorrect.",
    second_factor_needed: "Ce compte se connecte avec un second facteur, que cette page ne demande pas : acceptez l'invitation dans votre application (ou sur la page d'autorisation d'une application, une fois connecté avec votre code).",
    bad_request: "Cette requête n'est pas valide.",
    method_not_allowed: "Cette page n'accepte pas cette méthode.",
};

/// The texts of a language.
pub fn of(lang: Lang) -> &'static Texts {
    match lang {
        Lang::En => &EN,
        Lang::Fr => &FR,
    }
}

/// A text with its placeholders filled, in one pass: a value that itself contains braces (a
/// company named "{email}") is copied as it is.
pub fn fill(text: &str, values: &[(&str, &str)]) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(start) = rest.find('{') {
        out.push_str(&rest[..start]);
        let after = &rest[start + 1..];
        match after.find('}').and_then(|end| {
            values
                .iter()
                .find(|(key, _)| *key == &after[..end])
                .map(|(_, value)| (end, value))
        }) {
            Some((end, value)) => {
                out.push_str(value);
                rest = &after[end + 1..];
            }
            None => {
                out.push('{');
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn placeholders_are_filled_once() {
        assert_eq!(
            fill(
                "{company} invites {email} {x}",
                &[("company", "{email}"), ("email", "a@b")]
            ),
            "{email} invites a@b {x}"
        );
        assert!(of(Lang::Fr).accept.starts_with("Accepter"));
    }
}
