//! `POST /api/oauth/token` (RFC 6749 §4.1.3): oxide-auth's access-token flow over our
//! primitives, with the adapter fixes its gaps need (each has a regression test):
//!
//! * client credentials in the form body are allowed (`client_secret_post`);
//! * Basic credentials are form-url-decoded after base64, as RFC 6749 §2.3.1 says;
//! * Basic together with a `client_id` naming the same client in the body is accepted (many
//!   libraries send both); Basic with a `client_secret` in the body is `invalid_request`;
//! * an unknown, expired, reused or PKCE-failing code is `invalid_grant`, not `invalid_request`;
//! * the answer is exactly `{"token_type":"Bearer","access_token":…}`, with no-store headers;
//! * failed client authentications are rate-limited per client at an address and per address,
//!   and authenticated clients per request rate (429); a database failure is a 500
//!   `server_error`, never another answer.

use base64::Engine;
use oxide_auth::endpoint::NormalizedParameter;
use oxide_auth_async::endpoint::access_token::AccessTokenFlow;
use serde_json::Value;
use warp::http::{StatusCode, header};

use crate::app::App;
use crate::errors::AppError;
use crate::http::contract::{FromRequestError, RevokeTokenResponse, TokenRequest, TokenResponse, types};

use crate::domain::auth::attempts::{self, Budget};

use super::endpoint::FlowEndpoint;
use super::limits;
use super::primitives::{DbAuthorizer, DbIssuer, DbRegistrar, SharedState};
use super::web::{self, OAuthRequest, OAuthResponse};

/// An OAuth error body (RFC 6749 §5.2).
pub fn oauth_error(error: types::OAuthErrorError, description: &str) -> types::OAuthError {
    types::OAuthError {
        error,
        error_description: Some(description.to_string()),
    }
}

/// Why a token-endpoint or revocation request is refused before its flow runs (the answers
/// both endpoints document).
#[derive(Debug)]
pub enum Refusal {
    /// 400: the form is well-typed but not acceptable (NUL character, two authentication methods).
    BadRequest(types::OAuthError),
    /// 401 `invalid_client`, with a Basic challenge when Basic was used.
    Unauthorized { body: types::OAuthError, basic_used: bool },
    /// 429, with the seconds to wait.
    TooManyRequests(types::OAuthError, i64),
    /// 500: the database failed.
    ServerError(types::OAuthError),
}

impl From<Refusal> for TokenResponse {
    fn from(refusal: Refusal) -> Self {
        match refusal {
            Refusal::BadRequest(body) => TokenResponse::BadRequest(body),
            Refusal::Unauthorized { body, basic_used } => TokenResponse::Unauthorized {
                body,
                www_authenticate: basic_used.then(basic_challenge),
            },
            Refusal::TooManyRequests(body, seconds) => TokenResponse::TooManyRequests {
                body,
                retry_after: seconds,
            },
            Refusal::ServerError(body) => TokenResponse::InternalServerError(body),
        }
    }
}

impl From<Refusal> for RevokeTokenResponse {
    fn from(refusal: Refusal) -> Self {
        match refusal {
            Refusal::BadRequest(body) => RevokeTokenResponse::BadRequest(body),
            Refusal::Unauthorized { body, basic_used } => RevokeTokenResponse::Unauthorized {
                body,
                www_authenticate: basic_used.then(basic_challenge),
            },
            Refusal::TooManyRequests(body, seconds) => RevokeTokenResponse::TooManyRequests {
                body,
                retry_after: seconds,
            },
            Refusal::ServerError(body) => RevokeTokenResponse::InternalServerError(body),
        }
    }
}

/// The `WWW-Authenticate` of a failed Basic authentication (RFC 6749 §5.2).
pub fn basic_challenge() -> String {
    "Basic realm=\"roadlog\"".to_string()
}

/// `id:secret` of a Basic header, each form-url-decoded (RFC 6749 §2.3.1).
fn basic_credentials(header_value: &str) -> Option<(String, String)> {
    let (scheme, encoded) = header_value.trim().split_once(' ')?;
    if !scheme.eq_ignore_ascii_case("basic") {
        return None;
    }
    let decoded = base64::engine::general_purpose::STANDARD.decode(encoded.trim()).ok()?;
    let text = String::from_utf8(decoded).ok()?;
    let (id, secret) = text.split_once(':')?;
    let unescape = |s: &str| {
        url::form_urlencoded::parse(format!("x={s}").as_bytes())
            .next()
            .map(|(_, v)| v.into_owned())
    };
    Some((unescape(id)?, unescape(secret)?))
}

/// A form request authenticated as a client: its parameters (the body `client_id` dropped when
/// Basic names the same client), its Basic credentials if any, and the counters its failure
/// goes to.
pub struct ClientForm {
    pub pairs: Vec<(String, String)>,
    pub basic: Option<(String, String)>,
    pub budgets: Vec<Budget>,
}

/// Why a token-endpoint form is refused: status, OAuth `error`, description.
pub type FormRefusal = (StatusCode, &'static str, String);

/// The parameters of a token-endpoint form (the body `client_id` dropped when Basic names the
/// same client), its Basic credentials if any, and the client it names. Pure: the generated
/// validation of `TokenRequest` (media type, types, required and repeated parameters), then
/// [`client_auth`] (fuzzed in `fuzz/`).
pub fn parse_form(content_type: &str, body: &[u8], authorization: Option<&str>) -> Result<ParsedForm, FormRefusal> {
    let form = types::TokenRequest::from_form(Some(content_type), body).map_err(|error| {
        let body = types::OAuthError::from_request_error(error);
        (
            StatusCode::BAD_REQUEST,
            body.error.as_str(),
            body.error_description.unwrap_or_default(),
        )
    })?;
    client_auth(token_pairs(&form), authorization)
}

/// The parameters of a validated token request, as oxide-auth reads them.
pub fn token_pairs(form: &types::TokenRequest) -> Vec<(String, String)> {
    let mut pairs = vec![
        ("grant_type".to_string(), form.grant_type.as_str().to_string()),
        ("code".to_string(), form.code.clone()),
    ];
    for (key, value) in [
        ("redirect_uri", &form.redirect_uri),
        ("client_id", &form.client_id),
        ("client_secret", &form.client_secret),
        ("code_verifier", &form.code_verifier),
    ] {
        if let Some(value) = value {
            pairs.push((key.to_string(), value.clone()));
        }
    }
    pairs
}

/// The client authentication rules of a validated form: no NUL character, one authentication
/// method (Basic, or `client_id` and `client_secret` in the form), the same client when both
/// name one.
pub fn client_auth(mut pairs: Vec<(String, String)>, authorization: Option<&str>) -> Result<ParsedForm, FormRefusal> {
    let refuse = |status, error: &'static str, description: &str| Err((status, error, description.to_string()));
    if pairs.iter().any(|(k, v)| k.contains('\0') || v.contains('\0')) {
        return refuse(
            StatusCode::BAD_REQUEST,
            "invalid_request",
            "parameters must not contain the NUL character",
        );
    }
    let get = |key: &str| pairs.iter().find(|(k, _)| k == key).map(|(_, v)| v.clone());
    let basic = authorization.and_then(basic_credentials);
    if authorization.is_some() && basic.is_none() {
        return refuse(
            StatusCode::BAD_REQUEST,
            "invalid_request",
            "the Authorization header must use the Basic scheme",
        );
    }
    if let Some((id, _)) = &basic {
        if get("client_secret").is_some() {
            return refuse(
                StatusCode::BAD_REQUEST,
                "invalid_request",
                "use one client authentication method, not two",
            );
        }
        match get("client_id") {
            Some(body_id) if &body_id != id => {
                return refuse(
                    StatusCode::BAD_REQUEST,
                    "invalid_request",
                    "client_id differs from the Basic credentials",
                );
            }
            // The same client named twice: oxide-auth would refuse it as duplicate credentials.
            Some(_) => pairs.retain(|(k, _)| k != "client_id"),
            None => {}
        }
    }
    let get = |key: &str| pairs.iter().find(|(k, _)| k == key).map(|(_, v)| v.clone());
    let client_id = basic
        .as_ref()
        .map(|(id, _)| id.clone())
        .or_else(|| get("client_id"))
        .unwrap_or_default();
    Ok(ParsedForm {
        pairs,
        basic,
        client_id,
    })
}

/// A well-formed token-endpoint form.
#[derive(Debug)]
pub struct ParsedForm {
    pub pairs: Vec<(String, String)>,
    pub basic: Option<(String, String)>,
    pub client_id: String,
}

impl ClientForm {
    /// Checks the client authentication rules of a validated form ([`client_auth`]), then the
    /// rate limit of failed client authentications for the client at this address and for the
    /// address (429); a `client_id` that cannot name a client is refused (401) before any lookup.
    /// The request rate of a client is checked once it has authenticated (`DbRegistrar`).
    pub async fn read(
        app: &App,
        pairs: Vec<(String, String)>,
        headers: &warp::http::HeaderMap,
        client_ip: Option<std::net::IpAddr>,
    ) -> Result<ClientForm, Refusal> {
        let authorization = headers.get(header::AUTHORIZATION).and_then(|v| v.to_str().ok());
        let ParsedForm {
            pairs,
            basic,
            client_id,
        } = client_auth(pairs, authorization).map_err(|(_, _, description)| {
            Refusal::BadRequest(oauth_error(types::OAuthErrorError::InvalidRequest, &description))
        })?;
        let address = client_ip.map(|ip| ip.to_string()).unwrap_or_default();
        let client = limits::client_id(&client_id);
        let budgets = limits::budgets(client, &address);
        match attempts::retry_after(&app.db, &budgets).await {
            Ok(Some(seconds)) => {
                return Err(Refusal::TooManyRequests(
                    oauth_error(
                        types::OAuthErrorError::InvalidClient,
                        "too many failed client authentications: retry later",
                    ),
                    seconds,
                ));
            }
            Ok(None) => {}
            Err(error) => {
                return Err(Refusal::ServerError(logged(
                    error,
                    oauth_error(types::OAuthErrorError::ServerError, "the database is unavailable"),
                )));
            }
        }
        if client.is_none() && !client_id.is_empty() {
            limits::record_failure(app, &budgets).await;
            return Err(Refusal::Unauthorized {
                body: oauth_error(types::OAuthErrorError::InvalidClient, "client authentication failed"),
                basic_used: basic.is_some(),
            });
        }
        Ok(ClientForm { pairs, basic, budgets })
    }

    /// The client id and secret, from Basic or the form.
    pub fn credentials(&self) -> (String, Option<String>) {
        let get = |key: &str| self.pairs.iter().find(|(k, _)| k == key).map(|(_, v)| v.clone());
        match &self.basic {
            Some((id, secret)) => (id.clone(), Some(secret.clone())),
            None => (get("client_id").unwrap_or_default(), get("client_secret")),
        }
    }
}

/// The 429 of an authenticated client over its request rate (`--client-rate-limit`).
pub fn over_rate(seconds: u64) -> Refusal {
    Refusal::TooManyRequests(
        oauth_error(
            types::OAuthErrorError::InvalidRequest,
            "too many token requests for this client: retry later",
        ),
        i64::try_from(seconds).unwrap_or(i64::MAX),
    )
}

/// The 500 of a database failure, logged once here: the primitives keep the error they met.
pub fn database_failed(state: &SharedState, what: &str) -> Refusal {
    match state.lock().ok().and_then(|mut s| s.error.take()) {
        Some(error) => error.log_if_internal(),
        None => tracing::error!("{what}"),
    }
    Refusal::ServerError(oauth_error(
        types::OAuthErrorError::ServerError,
        "the database is unavailable",
    ))
}

/// Serves the token endpoint (the form arrives validated against `TokenRequest`).
pub async fn serve(app: &App, request: TokenRequest) -> TokenResponse {
    let form = match ClientForm::read(app, token_pairs(&request.body), &request.headers, request.client_ip).await {
        Ok(form) => form,
        Err(refusal) => return refusal.into(),
    };
    let get = |key: &str| form.pairs.iter().find(|(k, _)| k == key).map(|(_, v)| v.clone());
    let (basic, budgets, mut body) = (form.basic.clone(), form.budgets.clone(), form.pairs.clone());
    // oxide-auth always wants redirect_uri; RFC 6749 §4.1.3 only when the authorization request
    // named it. When it did not, the registered URI the code is bound to stands in.
    if get("redirect_uri").is_none()
        && let Some(code) = get("code")
    {
        let stored: Result<Option<(String, i64)>, _> =
            sqlx::query_as("SELECT redirect_uri, redirect_uri_given FROM oauth_codes WHERE code_hash = $1")
                .bind(crate::domain::auth::tokens::hash(&code))
                .fetch_optional(&app.db)
                .await;
        match stored {
            Ok(Some((uri, 0))) => body.push(("redirect_uri".to_string(), uri)),
            Ok(_) => {}
            Err(error) => {
                return Refusal::ServerError(logged(
                    error.into(),
                    oauth_error(types::OAuthErrorError::ServerError, "the database is unavailable"),
                ))
                .into();
            }
        }
    }

    let state = SharedState::default();
    if let Ok(mut s) = state.lock() {
        s.code_verifier = get("code_verifier");
    }
    let auth = basic.as_ref().map(|(id, secret)| {
        format!(
            "Basic {}",
            base64::engine::general_purpose::STANDARD.encode(format!("{id}:{secret}"))
        )
    });
    let endpoint = FlowEndpoint {
        registrar: DbRegistrar {
            db: app.db.clone(),
            state: state.clone(),
            limiter: app.client_limiter.clone(),
        },
        authorizer: DbAuthorizer {
            db: app.db.clone(),
            state: state.clone(),
        },
        issuer: Some(DbIssuer {
            db: app.db.clone(),
            state: state.clone(),
            lifetime: app.oauth_token_lifetime,
        }),
        solicitor: None,
        state: state.clone(),
        bad_request: Default::default(),
    };
    let Ok(mut flow) = AccessTokenFlow::prepare(endpoint) else {
        tracing::error!("the token endpoint is misconfigured");
        return TokenResponse::InternalServerError(oauth_error(
            types::OAuthErrorError::ServerError,
            "the token endpoint is misconfigured",
        ));
    };
    flow.allow_credentials_in_body(true);
    let oauth_request = OAuthRequest {
        auth,
        query: NormalizedParameter::new(),
        body: web::form(&body),
    };
    let answer = flow.execute(oauth_request).await;
    let (client_failed, over) = state
        .lock()
        .map(|s| (s.client_failed, s.client_over_rate))
        .unwrap_or((false, None));
    if client_failed {
        limits::record_failure(app, &budgets).await;
    }
    if let Some(seconds) = over {
        return over_rate(seconds).into();
    }
    match answer {
        Ok(answer) => finish(answer, basic.is_some()),
        // The issuer found the code spent by a concurrent exchange: a replay, not our failure.
        Err(_) if state.lock().map(|s| s.code_refused).unwrap_or(false) => {
            TokenResponse::BadRequest(oauth_error(types::OAuthErrorError::InvalidGrant, INVALID_GRANT))
        }
        Err(error) => database_failed(&state, &format!("the token endpoint failed: {error:?}")).into(),
    }
}

const INVALID_GRANT: &str =
    "the code is unknown, expired, already used, issued to another client or redirect URI, or failed PKCE";

/// Our wire shape: `{"token_type":"Bearer","access_token":…}` on success, `{"error":…}` with
/// RFC 6749 §5.2 statuses otherwise (`WWW-Authenticate: Basic` only when Basic was used).
fn finish(answer: OAuthResponse, basic_used: bool) -> TokenResponse {
    let parsed: Value = serde_json::from_str(&answer.body).unwrap_or(Value::Null);
    if answer.status == StatusCode::OK {
        return match parsed.get("access_token").and_then(Value::as_str) {
            Some(token) => TokenResponse::Ok(types::TokenResponse {
                token_type: types::TokenResponseTokenType::Bearer,
                access_token: token.to_string(),
            }),
            None => TokenResponse::InternalServerError(oauth_error(
                types::OAuthErrorError::ServerError,
                "no token was issued",
            )),
        };
    }
    let error = parsed
        .get("error")
        .and_then(Value::as_str)
        .and_then(types::OAuthErrorError::from_wire)
        .unwrap_or(types::OAuthErrorError::InvalidRequest);
    let description = match error {
        types::OAuthErrorError::InvalidGrant => INVALID_GRANT,
        types::OAuthErrorError::InvalidClient => "client authentication failed",
        types::OAuthErrorError::UnsupportedGrantType => "only grant_type=authorization_code is supported",
        _ => "the request is missing a parameter or is malformed",
    };
    if error == types::OAuthErrorError::InvalidClient {
        TokenResponse::Unauthorized {
            body: oauth_error(error, description),
            www_authenticate: basic_used.then(basic_challenge),
        }
    } else {
        TokenResponse::BadRequest(oauth_error(error, description))
    }
}

/// Logs an internal error where the token endpoint handles it, and answers `answer`.
fn logged<T>(error: AppError, answer: T) -> T {
    error.log_if_internal();
    answer
}

#[cfg(test)]
mod tests {
    use super::basic_credentials;

    #[test]
    fn basic_credentials_are_form_url_decoded() {
        // "my%3Aid:s%2Bcret%20x" → id "my:id"? No: the id may not contain ':'; the secret may.
        let header = format!(
            "Basic {}",
            base64::Engine::encode(&base64::engine::general_purpose::STANDARD, "123456789:a%2Bb%20c")
        );
        assert_eq!(basic_credentials(&header), Some(("123456789".into(), "a+b c".into())));
        assert_eq!(basic_credentials("Bearer x"), None);
    }
}
