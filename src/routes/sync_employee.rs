//! `GET|POST /sync_employee`: the page of the link mailed to an employee synced by a software
//! vendor, where they accept or decline (see `domain::vendors::acceptance`). Server-rendered
//! from askama templates (`templates/vendors/`), with the CSRF protection of the authorization
//! pages (a form token bound to the browser and its session, no POST from another origin).

use askama::Template;
use warp::http::StatusCode;

use crate::app::App;
use crate::domain::auth::password;
use crate::domain::vendors::acceptance::{self, Accepted, Credentials, Invitation, Lookup};
use crate::errors::AppError;
use crate::http::contract::{
    SyncEmployeeRequest, SyncEmployeeResponse, SyncEmployeeSubmitRequest, SyncEmployeeSubmitResponse,
};
use crate::http::cookies;
use crate::i18n::Lang;
use crate::oauth::csrf;
use crate::oauth::pages::{Texts, texts};

/// How long the CSRF cookie of the page lives.
const CSRF_SECONDS: i64 = 8 * 3600;

#[derive(Template)]
#[template(path = "vendors/invitation.html")]
struct InvitationPage<'a> {
    /// The shared base's texts: the vendors' pages are in English only.
    t: &'static Texts,
    action: &'a str,
    csrf: &'a str,
    client: &'a str,
    company: &'a str,
    email: &'a str,
    first_name: &'a str,
    last_name: &'a str,
    admin: bool,
    has_account: bool,
    /// The challenge of a right password for an account with a second factor: the page then
    /// asks for the code.
    challenge: Option<&'a str>,
    error: Option<&'a str>,
}

#[derive(Template)]
#[template(path = "vendors/outcome.html")]
struct OutcomePage<'a> {
    t: &'static Texts,
    title: &'a str,
    message: &'a str,
}

fn render(page: &impl Template) -> String {
    page.render().unwrap_or_else(|error| {
        tracing::error!(%error, "a sync_employee page could not be rendered");
        "This page could not be shown. Please retry.".to_string()
    })
}

fn outcome(title: &str, message: &str) -> String {
    render(&OutcomePage {
        t: texts(Lang::En),
        title,
        message,
    })
}

/// A page and its status, before it becomes the operation's documented variant.
struct Page {
    status: StatusCode,
    body: String,
    set_cookie: Vec<String>,
}

impl Page {
    fn plain(status: StatusCode, title: &str, message: &str) -> Page {
        Page {
            status,
            body: outcome(title, message),
            set_cookie: Vec::new(),
        }
    }

    fn retry() -> Page {
        Page::plain(
            StatusCode::INTERNAL_SERVER_ERROR,
            "Something went wrong",
            "Your answer could not be recorded. Please retry in a moment.",
        )
    }
}

/// The page of a link that cannot be answered, or `None` for an open one.
fn closed(lookup: &Lookup) -> Option<Page> {
    match lookup {
        Lookup::Open(_) => None,
        Lookup::Unknown => Some(Page::plain(
            StatusCode::NOT_FOUND,
            "Unknown link",
            "This link is not valid. Check that you opened the whole link of the e-mail.",
        )),
        Lookup::Used { accepted, client_name } => Some(Page::plain(
            StatusCode::CONFLICT,
            "Link already used",
            &if *accepted {
                format!("You already accepted {client_name}'s request. Nothing more to do.")
            } else {
                format!("You already declined {client_name}'s request.")
            },
        )),
        Lookup::Expired { client_name } => Some(Page::plain(
            StatusCode::GONE,
            "Link expired",
            &format!("This link is older than 7 days. Ask {client_name} to send you a new one."),
        )),
    }
}

/// The one token of the query (a repeated or missing one is an unknown link).
fn token(values: &[String]) -> &str {
    match values {
        [one] => one,
        _ => "",
    }
}

fn action_url(token: &str) -> String {
    let query = url::form_urlencoded::Serializer::new(String::new())
        .append_pair("token", token)
        .finish();
    format!("/sync_employee?{query}")
}

/// The CSRF token of the page's form ([`crate::oauth::csrf`]), the browser's cookie set with
/// the answer when it had none.
fn csrf(app: &App, headers: &warp::http::HeaderMap, set_cookie: &mut Vec<String>) -> Result<String, AppError> {
    let jar = cookies::read(headers);
    let browser = csrf::browser(&jar, app.environment, CSRF_SECONDS, set_cookie)?;
    Ok(app.csrf_key.token(&browser, cookies::get(&jar, cookies::SESSION)))
}

fn form_page(
    app: &App,
    headers: &warp::http::HeaderMap,
    token: &str,
    invitation: &Invitation,
    status: StatusCode,
    error: Option<&str>,
) -> Page {
    step_page(app, headers, token, invitation, None, status, error)
}

/// The form, asking for the password, or with `challenge` for the second factor's code.
fn step_page(
    app: &App,
    headers: &warp::http::HeaderMap,
    token: &str,
    invitation: &Invitation,
    challenge: Option<&str>,
    status: StatusCode,
    error: Option<&str>,
) -> Page {
    let mut set_cookie = Vec::new();
    let Ok(csrf) = csrf(app, headers, &mut set_cookie) else {
        return Page::retry();
    };
    let action = action_url(token);
    Page {
        status,
        body: render(&InvitationPage {
            t: texts(Lang::En),
            action: &action,
            csrf: &csrf,
            client: &invitation.client_name,
            company: &invitation.company_name,
            email: &invitation.email,
            first_name: &invitation.first_name,
            last_name: &invitation.last_name,
            admin: invitation.has_admin_rights,
            has_account: invitation.has_account,
            challenge,
            error,
        }),
        set_cookie,
    }
}

/// `GET /sync_employee`.
pub async fn serve_get(app: &App, request: SyncEmployeeRequest) -> SyncEmployeeResponse {
    if request.token.len() != 1 {
        return SyncEmployeeResponse::BadRequest(outcome(
            "Incomplete link",
            "This link has no token, or several: open the whole link of the e-mail.",
        ));
    }
    let token = token(&request.token);
    let page = match acceptance::lookup(&app.db, token).await {
        Err(error) => {
            error.log_if_internal();
            Page::retry()
        }
        Ok(lookup) => match closed(&lookup) {
            Some(page) => page,
            None => match &lookup {
                Lookup::Open(invitation) => form_page(app, &request.headers, token, invitation, StatusCode::OK, None),
                _ => Page::retry(),
            },
        },
    };
    match page.status.as_u16() {
        200 => SyncEmployeeResponse::Ok {
            body: page.body,
            set_cookie: page.set_cookie,
        },
        404 => SyncEmployeeResponse::NotFound(page.body),
        409 => SyncEmployeeResponse::Conflict(page.body),
        410 => SyncEmployeeResponse::Gone(page.body),
        _ => SyncEmployeeResponse::InternalServerError(page.body),
    }
}

/// `POST /sync_employee`.
pub async fn serve_post(app: &App, request: SyncEmployeeSubmitRequest) -> SyncEmployeeSubmitResponse {
    let page = submit(app, &request).await;
    let (body, set_cookie) = (page.body, page.set_cookie);
    match page.status.as_u16() {
        200 => SyncEmployeeSubmitResponse::Ok { body, set_cookie },
        400 => SyncEmployeeSubmitResponse::BadRequest { body, set_cookie },
        401 => SyncEmployeeSubmitResponse::Unauthorized { body, set_cookie },
        403 => SyncEmployeeSubmitResponse::Forbidden { body, set_cookie },
        404 => SyncEmployeeSubmitResponse::NotFound(body),
        409 => SyncEmployeeSubmitResponse::Conflict(body),
        410 => SyncEmployeeSubmitResponse::Gone(body),
        429 => SyncEmployeeSubmitResponse::TooManyRequests { body, set_cookie },
        503 => SyncEmployeeSubmitResponse::ServiceUnavailable { body, set_cookie },
        _ => SyncEmployeeSubmitResponse::InternalServerError(body),
    }
}

async fn submit(app: &App, request: &SyncEmployeeSubmitRequest) -> Page {
    // A field sent twice counts once, its last value (as a browser's form never does).
    let field = |values: &Vec<String>| values.last().cloned().unwrap_or_default();
    let form = &request.body;
    let jar = cookies::read(&request.headers);
    if !crate::oauth::csrf::passes(
        &app.csrf_key,
        &app.public_url,
        &request.headers,
        &jar,
        &field(&form.csrf_token),
    ) {
        return Page::plain(
            StatusCode::FORBIDDEN,
            "Form expired",
            "This form has expired or did not come from this site. Go back and reload the page.",
        );
    }
    let token = token(&request.token);
    let invitation = match acceptance::lookup(&app.db, token).await {
        Err(error) => {
            error.log_if_internal();
            return Page::retry();
        }
        Ok(Lookup::Open(invitation)) => invitation,
        Ok(lookup) => return closed(&lookup).unwrap_or_else(Page::retry),
    };
    let again =
        |status: StatusCode, message: &str| form_page(app, &request.headers, token, &invitation, status, Some(message));
    match field(&form.action).as_str() {
        "decline" => match acceptance::decline(&app.db, &invitation).await {
            Ok(()) => Page::plain(
                StatusCode::OK,
                "Request declined",
                &format!(
                    "You declined {}'s request. It cannot act for you, and your employment in {} was not approved.",
                    invitation.client_name, invitation.company_name
                ),
            ),
            Err(error) => answer_error(error, &again),
        },
        "accept" => {
            let given = field(&form.password);
            let credentials = if invitation.has_account {
                Credentials::SignIn {
                    password: given,
                    address: request.client_ip.map(|ip| ip.to_string()).unwrap_or_default(),
                }
            } else {
                if given != field(&form.password_confirmation) {
                    return again(StatusCode::BAD_REQUEST, "The two passwords differ.");
                }
                Credentials::NewPassword { password: given }
            };
            // One password hash at a time per core, as for the API and the login page.
            let Ok(hashing) = password::Hashing::permit().await else {
                return again(
                    StatusCode::SERVICE_UNAVAILABLE,
                    "The service is busy. Retry in a moment.",
                );
            };
            let accepted = acceptance::accept(&app.db, &app.key_sealer, &invitation, credentials, &hashing).await;
            match accepted {
                Ok(Accepted::User(_)) => accepted_page(&invitation),
                Ok(Accepted::CodeNeeded(challenge)) => step_page(
                    app,
                    &request.headers,
                    token,
                    &invitation,
                    Some(&challenge),
                    StatusCode::OK,
                    None,
                ),
                Err(error) => answer_error(error, &again),
            }
        }
        "totp" => {
            let challenge = field(&form.challenge);
            let code = Credentials::SecondFactor {
                challenge: challenge.clone(),
                code: field(&form.code),
            };
            // No password is hashed here: the code step needs no hashing turn.
            let accepted = acceptance::accept(
                &app.db,
                &app.key_sealer,
                &invitation,
                code,
                &password::Hashing::default(),
            )
            .await;
            let code_again = |status: StatusCode, message: &str| {
                step_page(
                    app,
                    &request.headers,
                    token,
                    &invitation,
                    Some(&challenge),
                    status,
                    Some(message),
                )
            };
            match accepted {
                Ok(_) => accepted_page(&invitation),
                Err(error) => code_error(error, &again, &code_again),
            }
        }
        _ => again(StatusCode::BAD_REQUEST, "Choose Accept or Decline."),
    }
}

fn accepted_page(invitation: &Invitation) -> Page {
    Page::plain(
        StatusCode::OK,
        "Request accepted",
        &format!(
            "{} can now record your working time in {} for you. Your employment in {} is approved.",
            invitation.client_name, invitation.company_name, invitation.company_name
        ),
    )
}

/// The page of a refused code: the code form again for a wrong code (or too many), the password
/// form when the sign-in's challenge expired or was spent.
fn code_error(
    error: AppError,
    again: &dyn Fn(StatusCode, &str) -> Page,
    code_again: &dyn Fn(StatusCode, &str) -> Page,
) -> Page {
    use crate::errors::Code;
    let reason = error.extension("reason").and_then(serde_json::Value::as_str);
    match (error.code, reason) {
        (_, Some("TOO_MANY_ATTEMPTS")) => answer_error(error, code_again),
        (Code::InvalidInputs, None) | (_, Some("BAD_TOTP_CODE")) => code_again(StatusCode::UNAUTHORIZED, "Wrong code."),
        (Code::AuthenticationError, _) => again(
            StatusCode::UNAUTHORIZED,
            "Your sign-in expired. Enter your password again.",
        ),
        _ => answer_error(error, again),
    }
}

/// The page of a refused answer.
fn answer_error(error: AppError, again: &dyn Fn(StatusCode, &str) -> Page) -> Page {
    use crate::errors::Code;
    let reason = error.extension("reason").and_then(serde_json::Value::as_str);
    match (error.code, reason) {
        (_, Some("EMPLOYMENT_CLIENT_LINK_NOT_FOUND")) => Page::plain(
            StatusCode::CONFLICT,
            "Link already used",
            "This link was answered already, or has just expired.",
        ),
        (_, Some("TOO_MANY_ATTEMPTS")) => {
            let minutes = error
                .extension("retryAfter")
                .and_then(serde_json::Value::as_i64)
                .map(|s| (s + 59) / 60)
                .unwrap_or(15);
            again(
                StatusCode::TOO_MANY_REQUESTS,
                &format!("Too many failed attempts. Try again in {minutes} minutes."),
            )
        }
        (Code::AuthenticationError, _) => again(StatusCode::UNAUTHORIZED, "Wrong password."),
        (Code::InternalError, _) => {
            error.log_if_internal();
            Page::retry()
        }
        _ => again(StatusCode::BAD_REQUEST, &error.message),
    }
}
