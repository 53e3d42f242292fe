//! The invitation page, `/invitations/accept?token=…`, where the e-mail leads: the company and the
//! role, a login form (or a link to create an account and come back), then accept or decline.
//! Expired, used, declined, cancelled and unknown tokens each get a page that says so. Accepting
//! is the API's `signUp.redeemInvite`; declining refuses the employment as `rejectEmployment`.

use askama::Template;
use warp::http::StatusCode;

use crate::domain::auth::{Actor, password};
use crate::domain::companies::invitations::{self, InvitationState, InvitationView};
use crate::domain::users::{sessions, totp};
use crate::errors::Code;
use crate::graphql::scalars::normalize_email;

use super::texts::{Texts, fill};
use super::{Answer, Visit, encode};

#[derive(Template)]
#[template(path = "pages/invitation.html")]
struct Page<'a> {
    lang: &'a str,
    title: &'a str,
    t: &'a Texts,
    action: String,
    csrf: String,
    role: &'a str,
    start: String,
    sent_to: String,
    email: &'a str,
    error: Option<&'a str>,
    /// "Logged in as …" when the browser has a session.
    user: Option<String>,
    signup: String,
}

/// The token of the query, with what it stands for.
async fn invitation(visit: &Visit) -> Result<(String, InvitationView), Answer> {
    let t = visit.t;
    let token = match visit.query("token") {
        Ok(Some(token)) if !token.is_empty() && token.len() <= 256 => token.to_string(),
        Ok(_) => return Err(state_page(visit, &InvitationState::Unknown)),
        Err(()) => return Err(visit.problem(StatusCode::BAD_REQUEST, t.bad_request)),
    };
    match invitations::lookup(&visit.app.db, &token).await {
        Ok(InvitationState::Open(view)) => Ok((token, view)),
        Ok(state) => Err(state_page(visit, &state)),
        Err(error) => {
            error.log_if_internal();
            Err(visit.problem(StatusCode::INTERNAL_SERVER_ERROR, t.retry))
        }
    }
}

/// The page of an invitation that cannot be answered: 404 unknown, 410 otherwise.
fn state_page(visit: &Visit, state: &InvitationState) -> Answer {
    let t = visit.t;
    let (status, sentence) = match state {
        InvitationState::Used => (StatusCode::GONE, t.invitation_used),
        InvitationState::Declined => (StatusCode::GONE, t.invitation_declined),
        InvitationState::Cancelled => (StatusCode::GONE, t.invitation_cancelled),
        InvitationState::Expired => (StatusCode::GONE, t.invitation_expired),
        InvitationState::Unknown | InvitationState::Open(_) => (StatusCode::NOT_FOUND, t.invitation_unknown),
    };
    visit.message(status, t.invitation_problem_title, vec![sentence.into()], true)
}

/// The invitation with the login form, or with the buttons when someone is logged in.
async fn show(
    visit: &mut Visit,
    token: &str,
    view: &InvitationView,
    status: StatusCode,
    error: Option<&str>,
) -> Result<Answer, Answer> {
    let t = visit.t;
    let csrf = visit.csrf()?;
    let user = visit
        .session_user()
        .await
        .map(|(_, name)| fill(t.logged_in_as, &[("name", &name)]));
    let action = format!("/invitations/accept?token={}", encode(token));
    let signup = format!("/account/signup?next={}&email={}", encode(&action), encode(&view.email));
    let typed = visit.field("email").to_string();
    let email = if typed.is_empty() { view.email.clone() } else { typed };
    Ok(visit.render(
        status,
        &Page {
            lang: visit.lang.tag(),
            title: &fill(t.invitation_heading, &[("company", &view.company_name)]),
            t,
            action,
            csrf,
            role: if view.admin { t.role_admin } else { t.role_worker },
            start: fill(t.invitation_start, &[("date", &view.start_date)]),
            sent_to: fill(t.invitation_sent_to, &[("email", &view.email)]),
            email: &email,
            error,
            user,
            signup,
        },
    ))
}

/// `GET /invitations/accept?token=…`.
pub async fn page(visit: &mut Visit) -> Result<Answer, Answer> {
    let (token, view) = invitation(visit).await?;
    show(visit, &token, &view, StatusCode::OK, None).await
}

/// `POST /invitations/accept?token=…`: `action` is `login` (with `email` and `password`),
/// `accept` or `decline` (for the browser's session user).
pub async fn submit(visit: &mut Visit) -> Result<Answer, Answer> {
    visit.check_csrf()?;
    let (token, view) = invitation(visit).await?;
    let t = visit.t;
    match visit.field("action") {
        "login" => {
            let email = normalize_email(visit.field("email")).unwrap_or_default();
            let given = visit.field("password").to_string();
            let address = visit.address();
            let Ok(hashing) = password::Hashing::permit().await else {
                return Err(visit.problem(StatusCode::SERVICE_UNAVAILABLE, t.busy));
            };
            let checked = sessions::verify_credentials(&visit.app.db, &email, given, &address, &hashing).await;
            match checked {
                // A password alone opens no browser session for an account with a second
                // factor: that session would reach the OAuth consent page.
                Ok(user_id) => match totp::is_enabled(&visit.app.db, user_id).await {
                    Ok(false) => {
                        visit.log_in(user_id).await?;
                        show(visit, &token, &view, StatusCode::OK, None).await
                    }
                    Ok(true) => {
                        show(
                            visit,
                            &token,
                            &view,
                            StatusCode::UNAUTHORIZED,
                            Some(t.second_factor_needed),
                        )
                        .await
                    }
                    Err(error) => {
                        error.log_if_internal();
                        Err(visit.problem(StatusCode::INTERNAL_SERVER_ERROR, t.retry))
                    }
                },
                Err(error) if error.extension("reason") == Some(&serde_json::json!("TOO_MANY_ATTEMPTS")) => {
                    let minutes = error
                        .extension("retryAfter")
                        .and_then(serde_json::Value::as_i64)
                        .map_or(15, |s| (s + 59) / 60)
                        .to_string();
                    let message = fill(t.too_many, &[("minutes", &minutes)]);
                    show(visit, &token, &view, StatusCode::TOO_MANY_REQUESTS, Some(&message)).await
                }
                Err(error) if error.code == Code::AuthenticationError => {
                    show(
                        visit,
                        &token,
                        &view,
                        StatusCode::UNAUTHORIZED,
                        Some(t.wrong_credentials),
                    )
                    .await
                }
                Err(error) => {
                    error.log_if_internal();
                    Err(visit.problem(StatusCode::INTERNAL_SERVER_ERROR, t.retry))
                }
            }
        }
        action @ ("accept" | "decline") => {
            let Some((user_id, _)) = visit.session_user().await else {
                // The session ended meanwhile: log in again.
                return show(
                    visit,
                    &token,
                    &view,
                    StatusCode::UNAUTHORIZED,
                    Some(t.invitation_login_intro),
                )
                .await;
            };
            let db = &visit.app.db;
            let done = if action == "accept" {
                invitations::redeem_by(db, Actor::unconfined(user_id), &token, &visit.app.public_url)
                    .await
                    .map(|_| ())
            } else {
                invitations::decline(db, user_id, &token).await
            };
            let company = &view.company_name;
            match done {
                Ok(()) if action == "accept" => Ok(visit.message(
                    StatusCode::OK,
                    t.accepted_title,
                    vec![fill(t.accepted_body, &[("company", company)])],
                    false,
                )),
                Ok(()) => Ok(visit.message(
                    StatusCode::OK,
                    t.declined_title,
                    vec![fill(t.declined_body, &[("company", company)])],
                    false,
                )),
                // Answered by someone else meanwhile, or cancelled: say which.
                Err(error) if error.code == Code::InvalidToken => {
                    let state = invitations::lookup(db, &token)
                        .await
                        .unwrap_or(InvitationState::Unknown);
                    Err(state_page(visit, &state))
                }
                Err(error) if error.code == Code::InternalError => {
                    error.log_if_internal();
                    Err(visit.problem(StatusCode::INTERNAL_SERVER_ERROR, t.retry))
                }
                // The employment rules refuse it (an overlapping employment in the company…):
                // the rule's own sentence.
                Err(error) => {
                    let message = fill(t.invitation_refused, &[("reason", &error.message)]);
                    show(visit, &token, &view, StatusCode::CONFLICT, Some(&message)).await
                }
            }
        }
        _ => Err(visit.problem(StatusCode::BAD_REQUEST, t.bad_request)),
    }
}
