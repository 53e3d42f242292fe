//! `GET|POST /oauth/authorize` (RFC 6749 §4.1.1): oxide-auth's authorization flow over our
//! primitives, with a login page (the same accounts as the API, and their second factor:
//! [`super::login_step`]), a consent page naming the
//! application, CSRF protection (a form token bound to the browser and its session, and no POST
//! from another origin: [`super::csrf`]), and a browser session kept in the database. An unknown client or an unregistered redirect URI is
//! an HTML error page, never a redirect; other errors (a repeated parameter included) redirect
//! with `error` and `state`.

use oxide_auth::endpoint::{NormalizedParameter, OwnerConsent, Solicitation};
use oxide_auth_async::endpoint::OwnerSolicitor;
use oxide_auth_async::endpoint::authorization::AuthorizationFlow;
use warp::http::StatusCode;

use crate::app::App;
use crate::db::Db;
use crate::domain::users::browser_sessions;
use crate::http::contract::{
    AuthorizeRequest, AuthorizeResponse, AuthorizeSubmitForm, AuthorizeSubmitRequest, AuthorizeSubmitResponse,
};
use crate::i18n::Lang;

use super::csrf;
use super::endpoint::FlowEndpoint;
use super::login_step::{self, Step};
use super::pages;
use super::primitives::{DbAuthorizer, DbRegistrar, SharedState};
use super::web::{self, OAuthRequest, OAuthResponse};
use crate::http::cookies;

/// How long a browser stays logged in on the authorization pages.
pub const SESSION_SECONDS: i64 = 8 * 3600;

/// Decides the consent of the resource owner from what the request carried.
struct Solicitor {
    db: Db,
    user: Option<(i64, String)>,
    decision: Option<bool>,
    login_error: Option<(StatusCode, String)>,
    /// The login's challenge after a right password, when the account has a second factor, and
    /// why the last code was refused.
    second_factor: Option<(String, Option<(StatusCode, String)>)>,
    csrf: String,
    action: String,
    lang: Lang,
}

impl Solicitor {
    /// The registered name of the client, shown on the pages (its id if it has none or the
    /// database cannot say).
    async fn client_name(&self, client_id: &str) -> String {
        match super::clients::name(&self.db, client_id).await {
            Ok(Some(name)) => name,
            Ok(None) => client_id.to_string(),
            Err(error) => {
                error.log_if_internal();
                client_id.to_string()
            }
        }
    }
}

#[async_trait::async_trait]
impl OwnerSolicitor<OAuthRequest> for Solicitor {
    async fn check_consent(
        &mut self,
        _req: &mut OAuthRequest,
        solicitation: Solicitation<'_>,
    ) -> OwnerConsent<OAuthResponse> {
        let client = self.client_name(&solicitation.pre_grant().client_id).await;
        match (&self.user, self.decision) {
            (None, _) if let Some((challenge, error)) = &self.second_factor => {
                let (status, error) = match error {
                    Some((status, message)) => (*status, Some(message.as_str())),
                    None => (StatusCode::OK, None),
                };
                OwnerConsent::InProgress(OAuthResponse::html(
                    status,
                    pages::second_factor(self.lang, &self.action, &self.csrf, &client, challenge, error),
                ))
            }
            (None, _) => {
                let (status, error) = match &self.login_error {
                    Some((status, message)) => (*status, Some(message.as_str())),
                    None => (StatusCode::OK, None),
                };
                OwnerConsent::InProgress(OAuthResponse::html(
                    status,
                    pages::login(self.lang, &self.action, &self.csrf, &client, error),
                ))
            }
            (Some((_, name)), None) => OwnerConsent::InProgress(OAuthResponse::html(
                StatusCode::OK,
                pages::consent(self.lang, &self.action, &self.csrf, &client, name),
            )),
            (Some((id, _)), Some(true)) => OwnerConsent::Authorized(id.to_string()),
            (Some(_), Some(false)) => OwnerConsent::Denied,
        }
    }
}

/// The user of the browser session the cookie names, if it is live. A database failure counts
/// as no session (the login page is shown again) and is logged.
async fn session_user(db: &Db, token: Option<&str>) -> Option<(i64, String)> {
    match browser_sessions::user(db, token?).await {
        Ok(user) => user,
        Err(error) => {
            error.log_if_internal();
            None
        }
    }
}

/// A page or a redirect of the authorization endpoint, before it becomes the documented answer
/// of its operation. The generated responses add the protective headers (no framing, no
/// referrer, nothing loaded from elsewhere, no caching).
struct Page {
    status: StatusCode,
    body: String,
    location: Option<String>,
    set_cookie: Vec<String>,
}

fn html_error(lang: Lang, status: StatusCode, message: &str) -> Page {
    Page {
        status,
        body: pages::error(lang, message),
        location: None,
        set_cookie: Vec::new(),
    }
}

impl Page {
    fn from_answer(answer: OAuthResponse, set_cookie: Vec<String>) -> Page {
        Page {
            status: answer.status,
            body: answer.body,
            location: answer.location.map(|l| l.to_string()),
            set_cookie,
        }
    }
}

/// The documented parameters of an authorization request, every occurrence, as oxide-auth reads them.
fn query_pairs(parameters: [(&str, &Vec<String>); 6]) -> Vec<(String, String)> {
    parameters
        .into_iter()
        .flat_map(|(key, values)| values.iter().map(move |value| (key.to_string(), value.clone())))
        .collect()
}

/// `GET /oauth/authorize`: the login or consent page, or a redirect.
pub async fn serve_get(app: &App, request: AuthorizeRequest) -> AuthorizeResponse {
    let query = query_pairs([
        ("client_id", &request.client_id),
        ("response_type", &request.response_type),
        ("redirect_uri", &request.redirect_uri),
        ("state", &request.state),
        ("code_challenge", &request.code_challenge),
        ("code_challenge_method", &request.code_challenge_method),
    ]);
    let page = serve(app, query, &request.headers, request.client_ip, None).await;
    match (page.status.as_u16(), page.location) {
        (200, _) => AuthorizeResponse::Ok {
            body: page.body,
            set_cookie: page.set_cookie,
        },
        (302, Some(location)) => AuthorizeResponse::Found {
            location,
            set_cookie: page.set_cookie,
        },
        (400, _) => AuthorizeResponse::BadRequest(page.body),
        _ => {
            let lang = language(&request.headers);
            AuthorizeResponse::InternalServerError(pages::error(lang, pages::texts(lang).retry))
        }
    }
}

/// `POST /oauth/authorize`: the login or consent form.
pub async fn serve_post(app: &App, request: AuthorizeSubmitRequest) -> AuthorizeSubmitResponse {
    let query = query_pairs([
        ("client_id", &request.client_id),
        ("response_type", &request.response_type),
        ("redirect_uri", &request.redirect_uri),
        ("state", &request.state),
        ("code_challenge", &request.code_challenge),
        ("code_challenge_method", &request.code_challenge_method),
    ]);
    let page = serve(app, query, &request.headers, request.client_ip, Some(&request.body)).await;
    let (body, set_cookie) = (page.body, page.set_cookie);
    match (page.status.as_u16(), page.location) {
        (200, _) => AuthorizeSubmitResponse::Ok { body, set_cookie },
        (302, Some(location)) => AuthorizeSubmitResponse::Found { location, set_cookie },
        (400, _) => AuthorizeSubmitResponse::BadRequest(body),
        (401, _) => AuthorizeSubmitResponse::Unauthorized { body, set_cookie },
        (403, _) => AuthorizeSubmitResponse::Forbidden { body, set_cookie },
        (429, _) => AuthorizeSubmitResponse::TooManyRequests { body, set_cookie },
        (503, _) => AuthorizeSubmitResponse::ServiceUnavailable { body, set_cookie },
        _ => {
            let lang = language(&request.headers);
            AuthorizeSubmitResponse::InternalServerError(pages::error(lang, pages::texts(lang).retry))
        }
    }
}

/// Serves the authorization endpoint (GET shows a page, POST submits the login or the consent
/// `form`).
async fn serve(
    app: &App,
    query: Vec<(String, String)>,
    headers: &warp::http::HeaderMap,
    client_ip: Option<std::net::IpAddr>,
    form: Option<&AuthorizeSubmitForm>,
) -> Page {
    let db = &app.db;
    let lang = language(headers);
    let t = pages::texts(lang);
    if let Some(name) = repeated(&query) {
        return repeated_error(db, lang, &query, name).await;
    }
    let jar = cookies::read(headers);
    let mut set_cookies: Vec<String> = Vec::new();
    let browser = match csrf::browser(&jar, app.environment, SESSION_SECONDS, &mut set_cookies) {
        Ok(browser) => browser,
        Err(error) => {
            error.log_if_internal();
            return html_error(lang, StatusCode::INTERNAL_SERVER_ERROR, t.retry);
        }
    };
    // The session the forms of the answer are bound to: the browser's, or the one this request opens.
    let mut session = cookies::get(&jar, cookies::SESSION).map(str::to_string);
    let query_string = url::form_urlencoded::Serializer::new(String::new())
        .extend_pairs(&query)
        .finish();
    let action = format!("/oauth/authorize?{query_string}");
    let get = |key: &str| query.iter().find(|(k, _)| k == key).map(|(_, v)| v.clone());

    let state = SharedState::default();
    let challenge = get("code_challenge");
    let method = get("code_challenge_method");
    if let Ok(mut s) = state.lock() {
        s.code_challenge = challenge.clone();
        s.redirect_uri_given = get("redirect_uri").is_some();
    }
    let mut user = session_user(db, cookies::get(&jar, cookies::SESSION)).await;
    let mut decision = None;
    let mut login_error = None;
    let mut second_factor = None;
    if let Some(form) = form {
        // A field sent twice counts once, its last value (as a browser's form never does).
        let field = |values: &Vec<String>| values.last().cloned();
        let token = field(&form.csrf_token).unwrap_or_default();
        if !csrf::passes(&app.csrf_key, &app.public_url, headers, &jar, &token) {
            return html_error(lang, StatusCode::FORBIDDEN, t.form_expired);
        }
        match field(&form.action).as_deref() {
            Some(action @ ("login" | "totp")) => {
                let step = if action == "login" {
                    let email = crate::graphql::scalars::normalize_email(field(&form.email).as_deref().unwrap_or(""))
                        .unwrap_or_default();
                    let address = client_ip.map(|ip| ip.to_string()).unwrap_or_default();
                    let password = field(&form.password).unwrap_or_default();
                    login_step::password(app, lang, &email, password, &address).await
                } else {
                    let code = field(&form.code).unwrap_or_default();
                    login_step::code(app, lang, field(&form.challenge).unwrap_or_default(), &code).await
                };
                match step {
                    Step::User(user_id) => match browser_sessions::open(db, user_id, SESSION_SECONDS).await {
                        Ok(token) => {
                            user = session_user(db, Some(&token)).await;
                            session = Some(token.clone());
                            set_cookies.push(cookies::set(cookies::SESSION, token, SESSION_SECONDS, app.environment));
                        }
                        Err(error) => {
                            error.log_if_internal();
                            return html_error(lang, StatusCode::INTERNAL_SERVER_ERROR, t.retry);
                        }
                    },
                    Step::Code { challenge, error } => second_factor = Some((challenge, error)),
                    Step::Login(status, message) => login_error = Some((status, message)),
                    Step::Failed(status) if status == StatusCode::SERVICE_UNAVAILABLE => {
                        return html_error(lang, status, t.busy);
                    }
                    Step::Failed(status) => return html_error(lang, status, t.retry),
                }
            }
            Some("allow") if user.is_some() => decision = Some(true),
            Some("deny") if user.is_some() => decision = Some(false),
            _ => {}
        }
    }

    // PKCE: only S256 (plain would give the verifier away). Checked after the client and its
    // redirect URI are known good, so the error can go back to the application.
    let pkce_refused = challenge.is_some() && method.as_deref() != Some("S256")
        || challenge.as_ref().is_some_and(|c| c.len() < 43 || c.len() > 128);
    let registrar = DbRegistrar {
        db: db.clone(),
        state: state.clone(),
        limiter: None,
    };
    if pkce_refused {
        return invalid_request(
            &registrar,
            lang,
            get("client_id"),
            get("redirect_uri"),
            get("state"),
            "code_challenge_method must be S256, with a 43 to 128 character code_challenge",
        )
        .await;
    }
    let csrf = app.csrf_key.token(&browser, session.as_deref());
    let solicitor = Solicitor {
        db: db.clone(),
        user,
        decision,
        login_error,
        second_factor,
        csrf,
        action,
        lang,
    };
    let bad_request = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let endpoint = FlowEndpoint {
        registrar,
        authorizer: DbAuthorizer {
            db: db.clone(),
            state: state.clone(),
        },
        issuer: None,
        solicitor: Some(Box::new(solicitor)),
        state: state.clone(),
        bad_request: bad_request.clone(),
    };
    let query: NormalizedParameter = web::form(&query);
    let oauth_request = OAuthRequest {
        auth: None,
        query,
        body: NormalizedParameter::new(),
    };
    let Ok(mut flow) = AuthorizationFlow::prepare(endpoint) else {
        return html_error(lang, StatusCode::INTERNAL_SERVER_ERROR, t.retry);
    };
    let answer = match flow.execute(oauth_request).await {
        Ok(answer) => answer,
        Err(_) if FlowEndpoint::was_bad_request(&bad_request) => {
            return html_error(lang, StatusCode::BAD_REQUEST, pages::texts(lang).unknown_client);
        }
        Err(error) => {
            let cause = state.lock().ok().and_then(|mut s| s.error.take());
            tracing::error!(?error, ?cause, "the authorization endpoint failed");
            return html_error(lang, StatusCode::INTERNAL_SERVER_ERROR, t.retry);
        }
    };
    if answer.status == StatusCode::BAD_REQUEST && answer.location.is_none() {
        return html_error(lang, StatusCode::BAD_REQUEST, pages::texts(lang).unknown_client);
    }
    Page::from_answer(answer, set_cookies)
}

/// The language of the pages, from the request's `Accept-Language`.
fn language(headers: &warp::http::HeaderMap) -> Lang {
    Lang::negotiate(
        headers
            .get(warp::http::header::ACCEPT_LANGUAGE)
            .and_then(|v| v.to_str().ok()),
    )
}

/// The first parameter the request carries more than once, if any. RFC 6749 §3.1: "Request and
/// response parameters MUST NOT be included more than once."
fn repeated(query: &[(String, String)]) -> Option<&str> {
    let mut seen = std::collections::HashSet::new();
    query.iter().map(|(key, _)| key.as_str()).find(|key| !seen.insert(*key))
}

/// A request with a repeated parameter: `invalid_request` back to the application when its
/// client and redirect URI are each given once and registered (or the URI left out and the
/// client has one), an HTML page otherwise. The state goes back only when it was given once.
async fn repeated_error(db: &Db, lang: Lang, query: &[(String, String)], name: &str) -> Page {
    let once = |key: &str| {
        let mut values = query.iter().filter(|(k, _)| k == key).map(|(_, v)| v.clone());
        match (values.next(), values.next()) {
            (Some(value), None) => Some(value),
            _ => None,
        }
    };
    let count = |key: &str| query.iter().filter(|(k, _)| k == key).count();
    if count("client_id") != 1 || count("redirect_uri") > 1 {
        return html_error(lang, StatusCode::BAD_REQUEST, pages::texts(lang).unknown_client);
    }
    let registrar = DbRegistrar {
        db: db.clone(),
        state: SharedState::default(),
        limiter: None,
    };
    let description = format!("The parameter {name} was sent more than once");
    invalid_request(
        &registrar,
        lang,
        once("client_id"),
        once("redirect_uri"),
        once("state"),
        &description,
    )
    .await
}

/// A request we refuse as `invalid_request`: back to the application when its client and
/// redirect URI are registered, an HTML page otherwise.
async fn invalid_request(
    registrar: &DbRegistrar,
    lang: Lang,
    client_id: Option<String>,
    redirect_uri: Option<String>,
    state: Option<String>,
    description: &str,
) -> Page {
    use oxide_auth_async::primitives::Registrar;
    let exact = redirect_uri
        .as_deref()
        .and_then(|r| oxide_auth::primitives::registrar::ExactUrl::new(r.to_string()).ok());
    let bound = registrar
        .bound_redirect(oxide_auth::primitives::registrar::ClientUrl {
            client_id: std::borrow::Cow::Owned(client_id.unwrap_or_default()),
            redirect_uri: exact.map(std::borrow::Cow::Owned),
        })
        .await;
    let bound = match bound {
        Ok(bound) => bound,
        Err(oxide_auth::primitives::registrar::RegistrarError::PrimitiveError) => {
            let cause = registrar.state.lock().ok().and_then(|mut s| s.error.take());
            tracing::error!(?cause, "the client's redirect URIs could not be read");
            return html_error(lang, StatusCode::INTERNAL_SERVER_ERROR, pages::texts(lang).retry);
        }
        Err(_) => return html_error(lang, StatusCode::BAD_REQUEST, pages::texts(lang).unknown_client),
    };
    let Ok(mut url) = url::Url::parse(&bound.redirect_uri.to_string()) else {
        return html_error(lang, StatusCode::BAD_REQUEST, pages::texts(lang).unknown_client);
    };
    url.query_pairs_mut()
        .append_pair("error", "invalid_request")
        .append_pair("error_description", description);
    if let Some(state) = state {
        url.query_pairs_mut().append_pair("state", &state);
    }
    Page {
        status: StatusCode::FOUND,
        body: String::new(),
        location: Some(url.to_string()),
        set_cookie: Vec::new(),
    }
}
