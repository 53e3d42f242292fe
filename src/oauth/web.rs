//! The warp adapter of oxide-auth (there is no oxide-auth-warp crate): the request as oxide-auth
//! reads it, and the response it writes, turned into a warp response with the headers RFC 6749
//! §5.1 requires (`Cache-Control: no-store`, `Pragma: no-cache`) on every answer.

use std::borrow::Cow;

use oxide_auth::endpoint::{NormalizedParameter, QueryParameter, WebRequest, WebResponse};
use url::Url;
use warp::http::{HeaderValue, StatusCode, header};

/// What a flow failed on that is not an OAuth error (our database, the request's encoding).
#[derive(Debug)]
pub struct WebError;

/// An OAuth request: its query, its form body, its `Authorization` header.
pub struct OAuthRequest {
    pub auth: Option<String>,
    pub query: NormalizedParameter,
    pub body: NormalizedParameter,
}

impl WebRequest for OAuthRequest {
    type Error = WebError;
    type Response = OAuthResponse;

    fn query(&mut self) -> Result<Cow<'_, dyn QueryParameter + 'static>, WebError> {
        Ok(Cow::Borrowed(&self.query))
    }

    fn urlbody(&mut self) -> Result<Cow<'_, dyn QueryParameter + 'static>, WebError> {
        Ok(Cow::Borrowed(&self.body))
    }

    fn authheader(&mut self) -> Result<Option<Cow<'_, str>>, WebError> {
        Ok(self.auth.as_deref().map(Cow::Borrowed))
    }
}

/// What oxide-auth writes. The prototype is 200: on success the token flow never calls `ok()`.
#[derive(Debug, Clone)]
pub struct OAuthResponse {
    pub status: StatusCode,
    pub location: Option<Url>,
    pub www_authenticate: Option<String>,
    pub content_type: &'static str,
    pub body: String,
}

impl Default for OAuthResponse {
    fn default() -> Self {
        OAuthResponse {
            status: StatusCode::OK,
            location: None,
            www_authenticate: None,
            content_type: "application/json",
            body: String::new(),
        }
    }
}

impl WebResponse for OAuthResponse {
    type Error = WebError;

    fn ok(&mut self) -> Result<(), WebError> {
        self.status = StatusCode::OK;
        Ok(())
    }

    fn redirect(&mut self, url: Url) -> Result<(), WebError> {
        self.status = StatusCode::FOUND;
        self.location = Some(url);
        Ok(())
    }

    fn client_error(&mut self) -> Result<(), WebError> {
        self.status = StatusCode::BAD_REQUEST;
        Ok(())
    }

    fn unauthorized(&mut self, header_value: &str) -> Result<(), WebError> {
        self.status = StatusCode::UNAUTHORIZED;
        self.www_authenticate = Some(header_value.to_string());
        Ok(())
    }

    fn body_text(&mut self, text: &str) -> Result<(), WebError> {
        self.content_type = "text/plain; charset=utf-8";
        self.body = text.to_string();
        Ok(())
    }

    fn body_json(&mut self, data: &str) -> Result<(), WebError> {
        self.content_type = "application/json";
        self.body = data.to_string();
        Ok(())
    }
}

/// Reads `application/x-www-form-urlencoded` pairs; repeated keys poison the parameter, which
/// oxide-auth answers with `invalid_request` as RFC 6749 §3.2 requires.
pub fn form(pairs: &[(String, String)]) -> NormalizedParameter {
    let mut parameter = NormalizedParameter::new();
    for (key, value) in pairs {
        parameter.insert_or_poison(Cow::Owned(key.clone()), Cow::Owned(value.clone()));
    }
    parameter
}

/// The headers every OAuth answer carries.
pub fn no_store(response: &mut warp::reply::Response) {
    response
        .headers_mut()
        .insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    response
        .headers_mut()
        .insert(header::PRAGMA, HeaderValue::from_static("no-cache"));
}

/// A JSON OAuth answer.
pub fn json(status: StatusCode, body: &serde_json::Value) -> warp::reply::Response {
    let mut response = crate::http::media::json_response(status, body);
    no_store(&mut response);
    response
}

impl OAuthResponse {
    /// An HTML page.
    pub fn html(status: StatusCode, body: String) -> OAuthResponse {
        OAuthResponse {
            status,
            location: None,
            www_authenticate: None,
            content_type: "text/html; charset=utf-8",
            body,
        }
    }

    /// The warp response, with no-store headers.
    pub fn into_reply(self) -> warp::reply::Response {
        let mut response = warp::reply::Response::new(self.body.into());
        *response.status_mut() = self.status;
        let headers = response.headers_mut();
        headers.insert(header::CONTENT_TYPE, HeaderValue::from_static(self.content_type));
        if let Some(location) = self.location
            && let Ok(value) = HeaderValue::from_str(location.as_str())
        {
            headers.insert(header::LOCATION, value);
        }
        if let Some(challenge) = self.www_authenticate
            && let Ok(value) = HeaderValue::from_str(&challenge)
        {
            headers.insert(header::WWW_AUTHENTICATE, value);
        }
        no_store(&mut response);
        response
    }
}
