//! Cross-origin requests from browser applications (CORS, the Fetch standard): only the origins
//! the operator lists (`--cors-origin`) are granted; none by default.
//!
//! For a listed origin, a preflight (`OPTIONS` with `Origin` and `Access-Control-Request-Method`)
//! is answered here, 204, with the methods and request headers the API uses; other answers to
//! that origin carry `Access-Control-Allow-Origin` and the response headers a client may read.
//! Credentials (cookies) are never allowed: the API authenticates with `Authorization: Bearer`,
//! which needs none, and `*` (any origin, when listed) is therefore never combined with them.
//! An unlisted origin gets no `Access-Control-*` header at all: its preflight goes to the routes
//! like any `OPTIONS` request (a 405 with `Allow`, or the route's own answer), so the browser
//! refuses the call.

use std::convert::Infallible;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use http::{HeaderValue, Method, Request, Response, StatusCode, header};

/// Methods a page may use across origins.
const ALLOW_METHODS: &str = "GET, HEAD, POST";
/// Request headers a page may send beyond the safelisted ones (`Content-Type: application/json`
/// is not safelisted; `If-None-Match` revalidates the contract files).
const ALLOW_HEADERS: &str = "authorization, content-type, if-none-match, x-request-id";
/// Response headers a page may read beyond the safelisted ones.
const EXPOSE_HEADERS: &str = "content-disposition, etag, retry-after, www-authenticate, x-request-id";
/// How long a browser may keep a preflight's answer (Chromium keeps at most two hours).
const MAX_AGE_SECS: &str = "600";

/// The origins granted, from the settings.
#[derive(Clone, Debug, Default)]
pub struct CorsPolicy {
    any: bool,
    origins: Vec<HeaderValue>,
}

impl CorsPolicy {
    /// Origins as the settings give them (checked there): `scheme://host[:port]`, or `*`.
    pub fn new(origins: &[String]) -> CorsPolicy {
        CorsPolicy {
            any: origins.iter().any(|o| o == "*"),
            origins: origins
                .iter()
                .filter(|o| *o != "*")
                .filter_map(|o| HeaderValue::from_str(o).ok())
                .collect(),
        }
    }

    fn is_off(&self) -> bool {
        !self.any && self.origins.is_empty()
    }

    /// The `Access-Control-Allow-Origin` value for a request's `Origin`, or `None`: no grant.
    fn grant(&self, origin: Option<&HeaderValue>) -> Option<HeaderValue> {
        let origin = origin?;
        if self.any {
            return Some(HeaderValue::from_static("*"));
        }
        self.origins.iter().find(|allowed| *allowed == origin).cloned()
    }
}

/// Wraps the routes.
#[derive(Clone)]
pub struct Cors<S> {
    inner: S,
    policy: Arc<CorsPolicy>,
}

impl<S> Cors<S> {
    pub fn new(inner: S, policy: CorsPolicy) -> Cors<S> {
        Cors {
            inner,
            policy: Arc::new(policy),
        }
    }
}

impl<S, B, RB> tower::Service<Request<B>> for Cors<S>
where
    S: tower::Service<Request<B>, Response = Response<RB>, Error = Infallible> + Clone + Send + 'static,
    S::Future: Send + 'static,
    B: Send + 'static,
    RB: Default + Send + 'static,
{
    type Response = Response<RB>;
    type Error = Infallible;
    type Future = Pin<Box<dyn Future<Output = Result<Response<RB>, Infallible>> + Send>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, request: Request<B>) -> Self::Future {
        // The service that was made ready is the one to call (tower's contract).
        let clone = self.inner.clone();
        let mut inner = std::mem::replace(&mut self.inner, clone);
        if self.policy.is_off() {
            return Box::pin(inner.call(request));
        }
        let grant = self.policy.grant(request.headers().get(header::ORIGIN));
        // The answer depends on the origin, unless every origin gets the same.
        let vary_origin = !self.policy.any;
        let preflight = request.method() == Method::OPTIONS
            && request.headers().contains_key(header::ACCESS_CONTROL_REQUEST_METHOD);
        if let (true, Some(origin)) = (preflight, &grant) {
            let mut response = Response::new(RB::default());
            *response.status_mut() = StatusCode::NO_CONTENT;
            let headers = response.headers_mut();
            headers.insert(header::ACCESS_CONTROL_ALLOW_ORIGIN, origin.clone());
            headers.insert(
                header::ACCESS_CONTROL_ALLOW_METHODS,
                HeaderValue::from_static(ALLOW_METHODS),
            );
            headers.insert(
                header::ACCESS_CONTROL_ALLOW_HEADERS,
                HeaderValue::from_static(ALLOW_HEADERS),
            );
            headers.insert(header::ACCESS_CONTROL_MAX_AGE, HeaderValue::from_static(MAX_AGE_SECS));
            if vary_origin {
                headers.append(
                    header::VARY,
                    HeaderValue::from_static("origin, access-control-request-method, access-control-request-headers"),
                );
            }
            return Box::pin(std::future::ready(Ok(response)));
        }
        Box::pin(async move {
            let mut response = inner.call(request).await?;
            let headers = response.headers_mut();
            if let Some(origin) = grant {
                headers.insert(header::ACCESS_CONTROL_ALLOW_ORIGIN, origin);
                headers.insert(
                    header::ACCESS_CONTROL_EXPOSE_HEADERS,
                    HeaderValue::from_static(EXPOSE_HEADERS),
                );
            }
            if vary_origin {
                headers.append(header::VARY, HeaderValue::from_static("origin"));
            }
            Ok(response)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn origins_are_written_as_browsers_send_them() {
        assert_eq!(
            crate::config::parse_origin("https://app.example.com").unwrap(),
            "https://app.example.com"
        );
        assert_eq!(
            crate::config::parse_origin("http://localhost:3000").unwrap(),
            "http://localhost:3000"
        );
        assert_eq!(crate::config::parse_origin("*").unwrap(), "*");
        for bad in [
            "https://app.example.com/",
            "https://app.example.com/path",
            "https://App.example.com",
            "https://app.example.com:443",
            "app.example.com",
            "ftp://files.example.com",
            "",
        ] {
            assert!(crate::config::parse_origin(bad).is_err(), "{bad:?} must be refused");
        }
    }

    #[test]
    fn only_listed_origins_are_granted() {
        let policy = CorsPolicy::new(&["https://a.example".to_string()]);
        let a = HeaderValue::from_static("https://a.example");
        let b = HeaderValue::from_static("https://b.example");
        assert_eq!(policy.grant(Some(&a)), Some(a.clone()));
        assert_eq!(policy.grant(Some(&b)), None);
        assert_eq!(policy.grant(None), None);
        assert!(CorsPolicy::new(&[]).is_off());
        let any = CorsPolicy::new(&["*".to_string()]);
        assert_eq!(any.grant(Some(&b)), Some(HeaderValue::from_static("*")));
        assert_eq!(any.grant(None), None);
    }
}
