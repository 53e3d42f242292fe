//! Sign-up (then back to where the person came from), the confirmation link, and the password
//! reset (request, then the new password). The domain rules are in `domain::users`.

use askama::Template;
use warp::http::StatusCode;

use crate::domain::auth::password;
use crate::domain::auth::{Actor, Scope, oauth_tokens};
use crate::domain::users::account_tokens::LinkState;
use crate::domain::users::accounts::{self, NewUser};
use crate::domain::users::{confirmation, password_reset, signup_limit};
use crate::errors::Code;
use crate::graphql::scalars::normalize_email;

use super::texts::{Texts, fill};
use super::{Answer, Visit, encode};

#[derive(Template)]
#[template(path = "pages/signup.html")]
struct SignUp<'a> {
    lang: &'a str,
    title: &'a str,
    t: &'a Texts,
    action: String,
    csrf: String,
    error: Option<&'a str>,
    email: &'a str,
    first_name: &'a str,
    last_name: &'a str,
    /// Where "already have an account" leads: the page the person came from.
    back: Option<&'a str>,
}

#[derive(Template)]
#[template(path = "pages/confirm_expired.html")]
struct ConfirmExpired<'a> {
    lang: &'a str,
    title: &'a str,
    t: &'a Texts,
    action: String,
    csrf: String,
}

#[derive(Template)]
#[template(path = "pages/reset_request.html")]
struct ResetRequest<'a> {
    lang: &'a str,
    title: &'a str,
    t: &'a Texts,
    csrf: String,
    error: Option<&'a str>,
}

#[derive(Template)]
#[template(path = "pages/reset_new.html")]
struct NewPassword<'a> {
    lang: &'a str,
    title: &'a str,
    t: &'a Texts,
    action: String,
    csrf: String,
    error: Option<&'a str>,
}

/// Where a sign-up may send the browser back to: an authorization request or an invitation of
/// this site, as a path. Anything else (another site, `//host`, a scheme) is ignored, so that
/// the page cannot be used to redirect elsewhere.
fn safe_next(next: Option<&str>) -> Option<&str> {
    let next = next?;
    let allowed = ["/oauth/authorize?", "/invitations/accept?"];
    let clean = !next.chars().any(|c| c.is_control() || c == '\\') && next.len() <= 2048;
    (allowed.iter().any(|prefix| next.starts_with(prefix)) && clean).then_some(next)
}

/// The query value `next`, or the ill-formed request page when it is repeated.
fn next_of(visit: &Visit) -> Result<Option<String>, Answer> {
    match visit.query("next") {
        Ok(next) => Ok(safe_next(next).map(str::to_string)),
        Err(()) => Err(visit.problem(StatusCode::BAD_REQUEST, visit.t.bad_request)),
    }
}

/// The sign-up form, filled with what was typed (never the password).
fn signup_form(
    visit: &mut Visit,
    status: StatusCode,
    error: Option<&str>,
    next: Option<&str>,
) -> Result<Answer, Answer> {
    let csrf = visit.csrf()?;
    let action = match next {
        Some(next) => format!("/account/signup?next={}", encode(next)),
        None => "/account/signup".to_string(),
    };
    let (email, first_name, last_name) = (
        visit.field("email").to_string(),
        visit.field("first_name").to_string(),
        visit.field("last_name").to_string(),
    );
    // An invitation's page suggests the invited address.
    let suggested = visit.query("email").ok().flatten().unwrap_or("").to_string();
    let email = if email.is_empty() { suggested } else { email };
    Ok(visit.render(
        status,
        &SignUp {
            lang: visit.lang.tag(),
            title: visit.t.signup_title,
            t: visit.t,
            action,
            csrf,
            error,
            email: &email,
            first_name: &first_name,
            last_name: &last_name,
            back: next,
        },
    ))
}

/// `GET /account/signup`.
pub async fn signup_page(visit: &mut Visit) -> Result<Answer, Answer> {
    let next = next_of(visit)?;
    signup_form(visit, StatusCode::OK, None, next.as_deref())
}

/// `POST /account/signup`: creates the account, queues the confirmation e-mail, logs the browser
/// in, and goes back to `next` (or says to check the inbox).
pub async fn signup_submit(visit: &mut Visit) -> Result<Answer, Answer> {
    let next = next_of(visit)?;
    visit.check_csrf()?;
    // Each attempt counts, on one counter with `signUp.user`: an address cannot create accounts
    // (and send mail) without end.
    visit.limit_budgets(&[signup_limit::budget(&visit.address())]).await?;
    let t = visit.t;
    let Some(email) = normalize_email(visit.field("email")) else {
        return signup_form(
            visit,
            StatusCode::UNPROCESSABLE_ENTITY,
            Some(t.email_invalid),
            next.as_deref(),
        );
    };
    let new = NewUser {
        email: email.clone(),
        password: visit.field("password").to_string(),
        first_name: visit.field("first_name").to_string(),
        last_name: visit.field("last_name").to_string(),
        timezone_name: None,
        invite_token: None,
        lang: visit.lang,
        language: visit.stated_lang.unwrap_or(crate::i18n::Lang::Fr),
    };
    // One password hash at a time per core, as for the logins.
    let Ok(hashing) = password::Hashing::permit().await else {
        return Err(visit.problem(StatusCode::SERVICE_UNAVAILABLE, t.busy));
    };
    let created = accounts::create(&visit.app.db, new, Scope::Unconfined, &visit.app.public_url, &hashing).await;
    let user_id = match created {
        Ok(user_id) => user_id,
        Err(error) if error.code == Code::InvalidInputs => {
            let message = match error.extension("field").and_then(|f| f.as_str()) {
                Some("email") => t.email_taken,
                Some("password") => t.password_length,
                _ => t.fields_invalid,
            };
            return signup_form(visit, StatusCode::UNPROCESSABLE_ENTITY, Some(message), next.as_deref());
        }
        Err(error) => {
            error.log_if_internal();
            return Err(visit.problem(StatusCode::INTERNAL_SERVER_ERROR, t.retry));
        }
    };
    visit.log_in(user_id).await?;
    if let Some(next) = next {
        return Ok(Answer::Redirect(next));
    }
    Ok(visit.message(
        StatusCode::OK,
        t.check_inbox_title,
        vec![fill(t.check_inbox_body, &[("email", &email)])],
        false,
    ))
}

/// The token of a confirmation link, or the page saying it is not one.
fn confirmation_token(visit: &Visit) -> Result<String, Answer> {
    let t = visit.t;
    match visit.query("token") {
        Ok(Some(token)) if !token.is_empty() && token.len() <= 256 => Ok(token.to_string()),
        Ok(_) => Err(visit.message(
            StatusCode::NOT_FOUND,
            t.link_problem_title,
            vec![t.link_unknown.into()],
            true,
        )),
        Err(()) => Err(visit.problem(StatusCode::BAD_REQUEST, t.bad_request)),
    }
}

/// `POST /account/confirm?token=…`, from the page of an expired link: a new link to the
/// account's own address while it is unconfirmed.
pub async fn confirm_resend(visit: &mut Visit) -> Result<Answer, Answer> {
    visit.check_csrf()?;
    let token = confirmation_token(visit)?;
    // Each request sends mail: counted per client address.
    visit.limit(&[format!("confirm-resend:{}", visit.address())]).await?;
    let t = visit.t;
    match confirmation::resend(&visit.app.db, &token, visit.lang, &visit.app.public_url).await {
        Ok(confirmation::Resent::Sent) => Ok(visit.message(
            StatusCode::OK,
            t.check_inbox_title,
            vec![t.confirm_resent_body.into()],
            false,
        )),
        Ok(confirmation::Resent::AlreadyConfirmed) => {
            Ok(visit.message(StatusCode::OK, t.confirmed_title, vec![t.confirmed_body.into()], false))
        }
        Ok(confirmation::Resent::Unknown) => Ok(visit.message(
            StatusCode::NOT_FOUND,
            t.link_problem_title,
            vec![t.link_unknown.into()],
            true,
        )),
        Err(error) => {
            error.log_if_internal();
            Err(visit.problem(StatusCode::INTERNAL_SERVER_ERROR, t.retry))
        }
    }
}

/// `GET /account/confirm?token=…`.
pub async fn confirm(visit: &mut Visit) -> Result<Answer, Answer> {
    let t = visit.t;
    let token = confirmation_token(visit)?;
    match confirmation::confirm(&visit.app.db, &token).await {
        Ok(confirmation::Outcome::Confirmed) => {
            Ok(visit.message(StatusCode::OK, t.confirmed_title, vec![t.confirmed_body.into()], false))
        }
        Ok(confirmation::Outcome::Expired) => {
            let csrf = visit.csrf()?;
            Ok(visit.render(
                StatusCode::GONE,
                &ConfirmExpired {
                    lang: visit.lang.tag(),
                    title: t.link_problem_title,
                    t,
                    action: format!("/account/confirm?token={}", encode(&token)),
                    csrf,
                },
            ))
        }
        Ok(confirmation::Outcome::Unknown) => Ok(visit.message(
            StatusCode::NOT_FOUND,
            t.link_problem_title,
            vec![t.link_unknown.into()],
            true,
        )),
        Err(error) => {
            error.log_if_internal();
            Err(visit.problem(StatusCode::INTERNAL_SERVER_ERROR, t.retry))
        }
    }
}

fn reset_form(visit: &mut Visit, status: StatusCode, error: Option<&str>) -> Result<Answer, Answer> {
    let csrf = visit.csrf()?;
    Ok(visit.render(
        status,
        &ResetRequest {
            lang: visit.lang.tag(),
            title: visit.t.reset_title,
            t: visit.t,
            csrf,
            error,
        },
    ))
}

/// `GET /account/password/reset`.
pub async fn reset_page(visit: &mut Visit) -> Result<Answer, Answer> {
    reset_form(visit, StatusCode::OK, None)
}

/// `POST /account/password/reset`: the same page whether or not an account has the address.
pub async fn reset_submit(visit: &mut Visit) -> Result<Answer, Answer> {
    visit.check_csrf()?;
    let t = visit.t;
    let Some(email) = normalize_email(visit.field("email")) else {
        return reset_form(visit, StatusCode::UNPROCESSABLE_ENTITY, Some(t.email_invalid));
    };
    // Counted per address typed (existing or not, alike) and per client address.
    visit
        .limit(&[format!("reset:{email}"), format!("reset-from:{}", visit.address())])
        .await?;
    if let Err(error) = password_reset::request(&visit.app.db, &email, visit.lang, &visit.app.public_url).await {
        error.log_if_internal();
        return Err(visit.problem(StatusCode::INTERNAL_SERVER_ERROR, t.retry));
    }
    Ok(visit.message(
        StatusCode::OK,
        t.reset_sent_title,
        vec![fill(t.reset_sent_body, &[("email", &email)])],
        false,
    ))
}

/// The page of a reset link that cannot be used.
fn link_problem(visit: &Visit, state: LinkState) -> Answer {
    let t = visit.t;
    let (status, sentence) = match state {
        LinkState::Expired => (StatusCode::GONE, t.link_expired),
        LinkState::Used(_) => (StatusCode::GONE, t.link_used),
        LinkState::Unknown | LinkState::Valid(_) => (StatusCode::NOT_FOUND, t.link_unknown),
    };
    visit.message_with(
        status,
        t.link_problem_title,
        vec![sentence.into()],
        true,
        Vec::new(),
        Some(("/account/password/reset".into(), t.forgot_password.into())),
    )
}

/// The reset token of the query, or the page saying why there is none usable.
async fn reset_token(visit: &Visit) -> Result<String, Answer> {
    let token = match visit.query("token") {
        Ok(Some(token)) if !token.is_empty() && token.len() <= 256 => token.to_string(),
        Ok(_) => return Err(link_problem(visit, LinkState::Unknown)),
        Err(()) => return Err(visit.problem(StatusCode::BAD_REQUEST, visit.t.bad_request)),
    };
    match password_reset::state(&visit.app.db, &token).await {
        Ok(LinkState::Valid(_)) => Ok(token),
        Ok(state) => Err(link_problem(visit, state)),
        Err(error) => {
            error.log_if_internal();
            Err(visit.problem(StatusCode::INTERNAL_SERVER_ERROR, visit.t.retry))
        }
    }
}

fn new_password_form(
    visit: &mut Visit,
    token: &str,
    status: StatusCode,
    error: Option<&str>,
) -> Result<Answer, Answer> {
    let csrf = visit.csrf()?;
    Ok(visit.render(
        status,
        &NewPassword {
            lang: visit.lang.tag(),
            title: visit.t.new_password_title,
            t: visit.t,
            action: format!("/account/password/new?token={}", encode(token)),
            csrf,
            error,
        },
    ))
}

/// `GET /account/password/new?token=…`.
pub async fn new_password_page(visit: &mut Visit) -> Result<Answer, Answer> {
    let token = reset_token(visit).await?;
    new_password_form(visit, &token, StatusCode::OK, None)
}

/// `POST /account/password/new?token=…`: sets the password, revokes the sessions, lists the
/// applications that keep their access.
pub async fn new_password_submit(visit: &mut Visit) -> Result<Answer, Answer> {
    visit.check_csrf()?;
    let token = reset_token(visit).await?;
    let t = visit.t;
    let given = visit.field("password").to_string();
    if given != visit.field("password_again") {
        return new_password_form(
            visit,
            &token,
            StatusCode::UNPROCESSABLE_ENTITY,
            Some(t.passwords_differ),
        );
    }
    let Ok(hashing) = password::Hashing::permit().await else {
        return Err(visit.problem(StatusCode::SERVICE_UNAVAILABLE, t.busy));
    };
    let done = password_reset::complete(&visit.app.db, &token, given, &hashing).await;
    let user_id = match done {
        Ok(user_id) => user_id,
        Err(password_reset::Refused::Link(state)) => return Err(link_problem(visit, state)),
        Err(password_reset::Refused::Error(error)) if error.code == Code::InvalidInputs => {
            return new_password_form(visit, &token, StatusCode::UNPROCESSABLE_ENTITY, Some(t.password_length));
        }
        Err(password_reset::Refused::Error(error)) => {
            error.log_if_internal();
            return Err(visit.problem(StatusCode::INTERNAL_SERVER_ERROR, t.retry));
        }
    };
    let applications = match oauth_tokens::authorized_clients(
        &visit.app.db,
        Actor {
            user_id,
            scope: Scope::Unconfined,
        },
    )
    .await
    {
        Ok(clients) => clients.into_iter().map(|(_, name)| name).collect::<Vec<_>>(),
        Err(error) => {
            error.log_if_internal();
            Vec::new()
        }
    };
    let apps_sentence = if applications.is_empty() {
        t.reset_done_no_apps
    } else {
        t.reset_done_apps
    };
    Ok(visit.message_with(
        StatusCode::OK,
        t.reset_done_title,
        vec![t.reset_done_body.into(), apps_sentence.into()],
        false,
        applications,
        None,
    ))
}

#[cfg(test)]
mod tests {
    #[test]
    fn next_stays_on_this_site() {
        use super::safe_next;
        assert_eq!(
            safe_next(Some("/oauth/authorize?client_id=1")),
            Some("/oauth/authorize?client_id=1")
        );
        assert_eq!(
            safe_next(Some("/invitations/accept?token=x")),
            Some("/invitations/accept?token=x")
        );
        for bad in [
            "https://evil.example/",
            "//evil.example/oauth/authorize?",
            "/account/confirm?x",
            "/oauth/authorize?\\",
        ] {
            assert_eq!(safe_next(Some(bad)), None, "{bad}");
        }
        assert_eq!(safe_next(None), None);
    }
}
