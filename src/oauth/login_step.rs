//! The login of the authorization pages: the password, then, for an account with a second
//! factor, the code. Between the two the login's challenge (`domain::users::totp::challenge`)
//! travels in a hidden field of the code form: it proves the password only, expires in minutes
//! and is spent by the login it completes, so the browser holds no session before the code.

use warp::http::StatusCode;

use crate::app::App;
use crate::domain::auth::password::Hashing;
use crate::domain::users::{sessions, totp};
use crate::errors::{AppError, Code};
use crate::i18n::Lang;

use super::pages;

/// Where a login form leads.
pub enum Step {
    /// Logged in: the browser session to open for this user.
    User(i64),
    /// The code page, with the challenge, and why the last code was refused.
    Code {
        challenge: String,
        error: Option<(StatusCode, String)>,
    },
    /// The login page again, and why.
    Login(StatusCode, String),
    /// An error page: the service is busy (503) or failed (500).
    Failed(StatusCode),
}

/// The wait before the next attempt, when `error` is a refusal of the throttle.
fn throttled(lang: Lang, error: &AppError) -> Option<(StatusCode, String)> {
    if error.extension("reason") != Some(&serde_json::json!("TOO_MANY_ATTEMPTS")) {
        return None;
    }
    let minutes = error
        .extension("retryAfter")
        .and_then(serde_json::Value::as_i64)
        .map(|s| (s + 59) / 60)
        .unwrap_or(15);
    Some((
        StatusCode::TOO_MANY_REQUESTS,
        pages::texts(lang).too_many.replace("{minutes}", &minutes.to_string()),
    ))
}

fn failed(error: AppError) -> Step {
    error.log_if_internal();
    Step::Failed(StatusCode::INTERNAL_SERVER_ERROR)
}

/// The e-mail and password of the login form.
pub async fn password(app: &App, lang: Lang, email: &str, given: String, address: &str) -> Step {
    let t = pages::texts(lang);
    // One password check at a time per core, as for the API: a page that cannot get its turn
    // soon says so instead of queueing without end.
    let Ok(hashing) = Hashing::permit().await else {
        return Step::Failed(StatusCode::SERVICE_UNAVAILABLE);
    };
    let user_id = match sessions::verify_credentials(&app.db, email, given, address, &hashing).await {
        Ok(user_id) => user_id,
        Err(error) => {
            return match throttled(lang, &error) {
                Some((status, message)) => Step::Login(status, message),
                None if error.code == Code::AuthenticationError => {
                    Step::Login(StatusCode::UNAUTHORIZED, t.wrong_credentials.to_string())
                }
                None => failed(error),
            };
        }
    };
    match totp::is_enabled(&app.db, user_id).await {
        Ok(false) => Step::User(user_id),
        Ok(true) => match totp::challenge::issue(&app.db, user_id).await {
            Ok(challenge) => Step::Code { challenge, error: None },
            Err(error) => failed(error),
        },
        Err(error) => failed(error),
    }
}

/// The code form: the challenge of the password step and the code typed.
pub async fn code(app: &App, lang: Lang, challenge: String, code: &str) -> Step {
    let t = pages::texts(lang);
    match totp::challenge::complete(&app.db, &app.key_sealer, &challenge, code).await {
        Ok(user_id) => Step::User(user_id),
        Err(error) => {
            let wrong = error.code == Code::InvalidInputs
                || error.extension("reason") == Some(&serde_json::json!("BAD_TOTP_CODE"));
            match throttled(lang, &error) {
                Some(refusal) => Step::Code {
                    challenge,
                    error: Some(refusal),
                },
                None if wrong => Step::Code {
                    challenge,
                    error: Some((StatusCode::UNAUTHORIZED, t.wrong_code.to_string())),
                },
                None if error.code == Code::AuthenticationError => {
                    Step::Login(StatusCode::UNAUTHORIZED, t.login_expired.to_string())
                }
                None => failed(error),
            }
        }
    }
}
