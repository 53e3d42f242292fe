//! The pages people use in a browser besides the OAuth ones: sign-up with e-mail confirmation,
//! password reset, and the invitation page. Server-rendered from askama templates
//! (`templates/pages/`), in English or French by `Accept-Language` (`crate::i18n`), with the OAuth
//! pages' protections: CSRF tokens bound to the browser and its session (`crate::oauth::csrf`),
//! refused from another origin, the same
//! browser session (`rl_session`), rate limits on the forms that cost a password hash or send
//! mail, and headers that forbid framing, caching, referrers (links carry tokens) and any
//! external asset.
//!
//! | route | what |
//! |---|---|
//! | `GET, POST /account/signup?next=…` | create an account (then back to `next`: an authorization request or an invitation) |
//! | `GET, POST /account/confirm?token=…` | confirm the address; from an expired link, ask for a new one |
//! | `GET, POST /account/password/reset` | ask for a reset link |
//! | `GET, POST /account/password/new?token=…` | choose the new password |
//! | `GET, POST /invitations/accept?token=…` | see, then accept or decline an invitation |
//! | `GET, POST /mail/unsubscribe?token=…` | stop an optional type of e-mail, without logging in |
//!
//! These routes are pages for people, like the console, not operations for programs: they are
//! not in `openapi/roadlog.yaml`.

mod account;
mod invitation;
mod texts;
mod unsubscribe;

use std::net::IpAddr;
use std::sync::Arc;

use askama::Template;
use warp::Filter;
use warp::http::{HeaderMap, HeaderValue, Method, StatusCode, header};

use crate::app::App;
use crate::domain::auth::attempts::{self, Budget};
use crate::domain::users::browser_sessions;
use crate::http::cookies;
use crate::i18n::Lang;
use crate::oauth::csrf;

pub use texts::Texts;

/// Attempts per subject in the window on the forms that cost a password hash or send mail.
pub const PAGE_ATTEMPTS: i64 = 10;

/// The largest form accepted (a sign-up form is well under 2 KiB).
const MAX_FORM_BYTES: u64 = 16 * 1024;

/// The paths served here.
pub const PATHS: [&str; 6] = [
    "/account/signup",
    "/account/confirm",
    "/account/password/reset",
    "/account/password/new",
    "/invitations/accept",
    "/mail/unsubscribe",
];

const CONTENT_SECURITY_POLICY: &str =
    "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'";

/// One request to a page, read once.
pub(crate) struct Visit {
    pub app: Arc<App>,
    pub lang: Lang,
    /// The language `Accept-Language` names, if one of ours (what a sign-up stores).
    pub stated_lang: Option<Lang>,
    pub t: &'static Texts,
    /// The query's pairs (a key given twice makes the request ill-formed, see [`Visit::query`]).
    query: Vec<(String, String)>,
    /// The form's pairs (POST).
    form: Vec<(String, String)>,
    jar: Vec<(String, String)>,
    /// Whether the request's `Origin`, if it names one, is ours.
    origin_ok: bool,
    pub client_ip: Option<IpAddr>,
    /// Cookies to set with the answer.
    set_cookie: Vec<String>,
}

/// An answer: a page or a redirect.
pub(crate) enum Answer {
    Page(StatusCode, String),
    /// `303 See Other` to a path of this site.
    Redirect(String),
}

impl Visit {
    /// The single value of a query parameter; `Err` when it is repeated.
    pub fn query(&self, key: &str) -> Result<Option<&str>, ()> {
        single(&self.query, key)
    }

    /// The value of a form field (the last one when repeated, as for the OAuth forms: a browser
    /// never repeats one).
    pub fn field(&self, key: &str) -> &str {
        self.form
            .iter()
            .rev()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
            .unwrap_or("")
    }

    /// The CSRF token of the page's form ([`crate::oauth::csrf`]): bound to the browser's
    /// `rl_csrf` cookie (set with the answer when it had none) and to its login session.
    pub fn csrf(&mut self) -> Result<String, Answer> {
        let browser = csrf::browser(
            &self.jar,
            self.app.environment,
            crate::oauth::authorize::SESSION_SECONDS,
            &mut self.set_cookie,
        )
        .map_err(|error| {
            error.log_if_internal();
            self.problem(StatusCode::INTERNAL_SERVER_ERROR, self.t.retry)
        })?;
        // The jar holds the browser cookie the answer sets, for the rest of this request.
        if cookies::get(&self.jar, cookies::CSRF) != Some(browser.as_str()) {
            self.jar.retain(|(name, _)| name != cookies::CSRF);
            self.jar.insert(0, (cookies::CSRF.to_string(), browser.clone()));
        }
        Ok(self
            .app
            .csrf_key
            .token(&browser, cookies::get(&self.jar, cookies::SESSION)))
    }

    /// `Err` with the 403 page unless the form's token is this browser's and session's, and
    /// the request's `Origin`, if any, is ours.
    pub fn check_csrf(&self) -> Result<(), Answer> {
        let key = &self.app.csrf_key;
        if self.origin_ok
            && crate::oauth::csrf::passes(
                key,
                &self.app.public_url,
                &HeaderMap::new(),
                &self.jar,
                self.field("csrf_token"),
            )
        {
            Ok(())
        } else {
            Err(self.problem(StatusCode::FORBIDDEN, self.t.csrf_failed))
        }
    }

    /// The user of the browser session, with a display name.
    pub async fn session_user(&self) -> Option<(i64, String)> {
        let token = cookies::get(&self.jar, cookies::SESSION)?;
        match browser_sessions::user(&self.app.db, token).await {
            Ok(user) => user,
            Err(error) => {
                error.log_if_internal();
                None
            }
        }
    }

    /// Opens a browser session for the user (the cookie goes with the answer).
    pub async fn log_in(&mut self, user_id: i64) -> Result<(), Answer> {
        let seconds = crate::oauth::authorize::SESSION_SECONDS;
        match browser_sessions::open(&self.app.db, user_id, seconds).await {
            Ok(token) => {
                // The rest of this request sees the new session too.
                self.jar.retain(|(name, _)| name != cookies::SESSION);
                self.jar.insert(0, (cookies::SESSION.to_string(), token.clone()));
                self.set_cookie
                    .push(cookies::set(cookies::SESSION, token, seconds, self.app.environment));
                Ok(())
            }
            Err(error) => {
                error.log_if_internal();
                Err(self.problem(StatusCode::INTERNAL_SERVER_ERROR, self.t.retry))
            }
        }
    }

    /// The address rate limits count by (empty when unknown).
    pub fn address(&self) -> String {
        self.client_ip.map(|ip| ip.to_string()).unwrap_or_default()
    }

    /// `Err` with the 429 page when one of the subjects made [`PAGE_ATTEMPTS`] attempts in the
    /// window (`domain::auth::attempts`); otherwise the attempt is counted.
    pub async fn limit(&self, subjects: &[String]) -> Result<(), Answer> {
        let budgets: Vec<Budget> = subjects.iter().map(|s| Budget::new(s.clone(), PAGE_ATTEMPTS)).collect();
        self.limit_budgets(&budgets).await
    }

    /// [`Visit::limit`] with each subject's own budget.
    pub async fn limit_budgets(&self, budgets: &[Budget]) -> Result<(), Answer> {
        let db = &self.app.db;
        match attempts::retry_after(db, budgets).await {
            Ok(Some(seconds)) => {
                let minutes = ((seconds + 59) / 60).to_string();
                let message = texts::fill(self.t.too_many, &[("minutes", &minutes)]);
                return Err(self.message(StatusCode::TOO_MANY_REQUESTS, self.t.error_title, vec![message], true));
            }
            Ok(None) => {}
            Err(error) => {
                error.log_if_internal();
                return Err(self.problem(StatusCode::SERVICE_UNAVAILABLE, self.t.retry));
            }
        }
        if let Err(error) = attempts::record(db, budgets).await {
            error.log_if_internal();
            self.app.metrics.record_failed("page");
            return Err(self.problem(StatusCode::SERVICE_UNAVAILABLE, self.t.retry));
        }
        Ok(())
    }

    /// A page with a title and paragraphs (an error's when `alert`).
    pub fn message(&self, status: StatusCode, title: &str, paragraphs: Vec<String>, alert: bool) -> Answer {
        self.message_with(status, title, paragraphs, alert, Vec::new(), None)
    }

    /// [`Visit::message`] with a list and a link.
    pub fn message_with(
        &self,
        status: StatusCode,
        title: &str,
        paragraphs: Vec<String>,
        alert: bool,
        items: Vec<String>,
        link: Option<(String, String)>,
    ) -> Answer {
        self.render(
            status,
            &Message {
                lang: self.lang.tag(),
                title,
                paragraphs,
                alert,
                items,
                link,
            },
        )
    }

    /// An error page with one sentence.
    pub fn problem(&self, status: StatusCode, sentence: &str) -> Answer {
        self.message(status, self.t.error_title, vec![sentence.to_string()], true)
    }

    /// Renders a page; the templates are checked at compile time, so only a failing writer can
    /// fail, which leaves a plain sentence rather than no answer.
    pub fn render(&self, status: StatusCode, page: &impl Template) -> Answer {
        match page.render() {
            Ok(body) => Answer::Page(status, body),
            Err(error) => {
                tracing::error!(%error, "a page could not be rendered");
                Answer::Page(StatusCode::INTERNAL_SERVER_ERROR, self.t.retry.to_string())
            }
        }
    }

    /// The answer as HTTP, with the cookies set along the way and the protective headers.
    fn respond(self, answer: Answer) -> warp::reply::Response {
        let mut response = match answer {
            Answer::Page(status, body) => {
                let mut response = warp::reply::Response::new(body.into());
                *response.status_mut() = status;
                response.headers_mut().insert(
                    header::CONTENT_TYPE,
                    HeaderValue::from_static("text/html; charset=utf-8"),
                );
                response
            }
            Answer::Redirect(location) => {
                let mut response = warp::reply::Response::new(String::new().into());
                *response.status_mut() = StatusCode::SEE_OTHER;
                if let Ok(value) = HeaderValue::from_str(&location) {
                    response.headers_mut().insert(header::LOCATION, value);
                }
                response
            }
        };
        let headers = response.headers_mut();
        headers.insert(header::CONTENT_LANGUAGE, HeaderValue::from_static(self.lang.tag()));
        headers.insert(header::VARY, HeaderValue::from_static("Accept-Language, Cookie"));
        headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
        headers.insert(header::PRAGMA, HeaderValue::from_static("no-cache"));
        headers.insert(header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY"));
        headers.insert(header::X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff"));
        headers.insert(header::REFERRER_POLICY, HeaderValue::from_static("no-referrer"));
        headers.insert(
            header::CONTENT_SECURITY_POLICY,
            HeaderValue::from_static(CONTENT_SECURITY_POLICY),
        );
        for cookie in self.set_cookie {
            if let Ok(value) = HeaderValue::from_str(&cookie) {
                headers.append(header::SET_COOKIE, value);
            }
        }
        response
    }
}

#[derive(Template)]
#[template(path = "pages/message.html")]
struct Message<'a> {
    lang: &'a str,
    title: &'a str,
    paragraphs: Vec<String>,
    alert: bool,
    items: Vec<String>,
    link: Option<(String, String)>,
}

/// The single value of `key` among `pairs`; `Err` when it is given more than once.
fn single<'a>(pairs: &'a [(String, String)], key: &str) -> Result<Option<&'a str>, ()> {
    let mut values = pairs.iter().filter(|(k, _)| k == key).map(|(_, v)| v.as_str());
    match (values.next(), values.next()) {
        (value, None) => Ok(value),
        _ => Err(()),
    }
}

/// Encodes a value for a query string.
pub(crate) fn encode(value: &str) -> String {
    url::form_urlencoded::byte_serialize(value.as_bytes()).collect()
}

/// The page's routes. A request to one of [`PATHS`] with another method gets a 405 page with
/// `Allow`; any other path is left to the other routes.
pub fn routes(app: Arc<App>) -> warp::filters::BoxedFilter<(warp::reply::Response,)> {
    let get_api = app.clone();
    // The path first: for any other path these routes reject as "not found", never as "method
    // not allowed" (which warp would rank first among the rejections of every route).
    let ours = || {
        warp::path::full().and_then(|path: warp::path::FullPath| async move {
            if PATHS.contains(&path.as_str()) {
                Ok(path)
            } else {
                Err(warp::reject::not_found())
            }
        })
    };
    let get = ours()
        .and(warp::get())
        .and(warp::query::raw().or(warp::any().map(String::new)).unify())
        .and(warp::header::headers_cloned())
        .and(warp::ext::optional::<crate::http::middleware::ClientIp>())
        .and_then(
            move |path: warp::path::FullPath,
                  query: String,
                  headers: HeaderMap,
                  ip: Option<crate::http::middleware::ClientIp>| {
                let app = get_api.clone();
                async move {
                    if !PATHS.contains(&path.as_str()) {
                        return Err(warp::reject::not_found());
                    }
                    let visit = Visit::new(app, &query, &headers, ip.map(|ip| ip.0), Vec::new());
                    Ok::<_, warp::Rejection>(dispatch(visit, path.as_str(), Method::GET).await)
                }
            },
        );
    let post_api = app;
    let post = ours()
        .and(warp::post())
        .and(warp::query::raw().or(warp::any().map(String::new)).unify())
        .and(warp::header::headers_cloned())
        .and(warp::ext::optional::<crate::http::middleware::ClientIp>())
        .and(warp::body::content_length_limit(MAX_FORM_BYTES))
        .and(warp::body::bytes())
        .and_then(
            move |path: warp::path::FullPath,
                  query: String,
                  headers: HeaderMap,
                  ip: Option<crate::http::middleware::ClientIp>,
                  body: bytes::Bytes| {
                let app = post_api.clone();
                async move {
                    let form: Vec<(String, String)> = url::form_urlencoded::parse(&body).into_owned().collect();
                    let visit = Visit::new(app, &query, &headers, ip.map(|ip| ip.0), form);
                    Ok::<_, warp::Rejection>(dispatch(visit, path.as_str(), Method::POST).await)
                }
            },
        );
    let other = ours().and(warp::method()).and(warp::header::headers_cloned()).and_then(
        |_path: warp::path::FullPath, method: Method, headers: HeaderMap| async move {
            if method == Method::GET || method == Method::POST {
                return Err(warp::reject::not_found());
            }
            let lang = Lang::negotiate(headers.get(header::ACCEPT_LANGUAGE).and_then(|v| v.to_str().ok()));
            let mut response = warp::reply::Response::new(texts::of(lang).method_not_allowed.into());
            *response.status_mut() = StatusCode::METHOD_NOT_ALLOWED;
            response
                .headers_mut()
                .insert(header::ALLOW, HeaderValue::from_static("GET, POST"));
            response.headers_mut().insert(
                header::CONTENT_TYPE,
                HeaderValue::from_static("text/plain; charset=utf-8"),
            );
            Ok::<_, warp::Rejection>(response)
        },
    );
    get.or(post).unify().or(other).unify().boxed()
}

impl Visit {
    fn new(
        app: Arc<App>,
        query: &str,
        headers: &HeaderMap,
        client_ip: Option<IpAddr>,
        form: Vec<(String, String)>,
    ) -> Visit {
        let accept_language = headers.get(header::ACCEPT_LANGUAGE).and_then(|v| v.to_str().ok());
        let lang = Lang::negotiate(accept_language);
        Visit {
            lang,
            stated_lang: Lang::stated(accept_language),
            t: texts::of(lang),
            query: url::form_urlencoded::parse(query.as_bytes()).into_owned().collect(),
            form,
            jar: cookies::read(headers),
            origin_ok: csrf::origin_allowed(&app.public_url, headers),
            client_ip,
            set_cookie: Vec::new(),
            app,
        }
    }
}

async fn dispatch(mut visit: Visit, path: &str, method: Method) -> warp::reply::Response {
    let answer = match (path, method == Method::POST) {
        ("/account/signup", false) => account::signup_page(&mut visit).await,
        ("/account/signup", true) => account::signup_submit(&mut visit).await,
        ("/account/confirm", false) => account::confirm(&mut visit).await,
        ("/account/confirm", true) => account::confirm_resend(&mut visit).await,
        ("/account/password/reset", false) => account::reset_page(&mut visit).await,
        ("/account/password/reset", true) => account::reset_submit(&mut visit).await,
        ("/account/password/new", false) => account::new_password_page(&mut visit).await,
        ("/account/password/new", true) => account::new_password_submit(&mut visit).await,
        ("/invitations/accept", false) => invitation::page(&mut visit).await,
        ("/invitations/accept", true) => invitation::submit(&mut visit).await,
        ("/mail/unsubscribe", false) => unsubscribe::page(&mut visit).await,
        ("/mail/unsubscribe", true) => unsubscribe::submit(&mut visit).await,
        _ => Err(visit.problem(StatusCode::METHOD_NOT_ALLOWED, visit.t.method_not_allowed)),
    };
    let answer = answer.unwrap_or_else(|answer| answer);
    visit.respond(answer)
}
