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
//!
//! The headers are written by tower-http's `CorsLayer`, configured to this policy. The layer
//! alone would answer every `OPTIONS` request itself (200, whatever the origin, with the allowed
//! methods and headers) and show an unlisted origin the exposed headers; so only the requests of
//! a granted origin that are not a bare `OPTIONS` go through it, the others straight to the
//! routes.

use std::convert::Infallible;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use futures::TryFutureExt;
use futures::future::{Either, MapOk};
use http::{HeaderName, HeaderValue, Method, Request, Response, StatusCode, header};
use tower::util::Oneshot;
use tower::{Layer, ServiceExt};
use tower_http::cors::{AllowOrigin, CorsLayer};

/// Methods a page may use across origins.
const ALLOW_METHODS: [Method; 3] = [Method::GET, Method::HEAD, Method::POST];
const REQUEST_ID: HeaderName = HeaderName::from_static("x-request-id");
/// Request headers a page may send beyond the safelisted ones (`Content-Type: application/json`
/// is not safelisted; `If-None-Match` revalidates the contract files).
const ALLOW_HEADERS: [HeaderName; 4] = [
    header::AUTHORIZATION,
    header::CONTENT_TYPE,
    header::IF_NONE_MATCH,
    REQUEST_ID,
];
/// Response headers a page may read beyond the safelisted ones.
const EXPOSE_HEADERS: [HeaderName; 5] = [
    header::CONTENT_DISPOSITION,
    header::ETAG,
    header::RETRY_AFTER,
    header::WWW_AUTHENTICATE,
    REQUEST_ID,
];
/// How long a browser may keep a preflight's answer (Chromium keeps at most two hours).
const MAX_AGE: Duration = Duration::from_secs(600);

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

    /// Whether a request's `Origin` is granted.
    fn grants(&self, origin: Option<&HeaderValue>) -> bool {
        origin.is_some_and(|origin| self.any || self.origins.contains(origin))
    }

    /// The layer writing this policy's headers (credentials are off by the layer's default).
    fn layer(&self) -> CorsLayer {
        let origins = if self.any {
            AllowOrigin::any()
        } else {
            AllowOrigin::list(self.origins.clone())
        };
        CorsLayer::new()
            .allow_origin(origins)
            .allow_methods(ALLOW_METHODS)
            .allow_headers(ALLOW_HEADERS)
            .expose_headers(EXPOSE_HEADERS)
            .max_age(MAX_AGE)
    }
}

/// Wraps the routes.
#[derive(Clone)]
pub struct Cors<S> {
    routes: S,
    granted: tower_http::cors::Cors<S>,
    policy: Arc<CorsPolicy>,
}

impl<S: Clone> Cors<S> {
    pub fn new(routes: S, policy: CorsPolicy) -> Cors<S> {
        Cors {
            granted: policy.layer().layer(routes.clone()),
            routes,
            policy: Arc::new(policy),
        }
    }
}

type Finish<RB> = fn(Response<RB>) -> Response<RB>;

fn unchanged<RB>(response: Response<RB>) -> Response<RB> {
    response
}

/// A preflight's answer has no content.
fn no_content<RB>(mut response: Response<RB>) -> Response<RB> {
    *response.status_mut() = StatusCode::NO_CONTENT;
    response
}

/// The answer depends on the origin, granted or not: caches keep one per origin.
fn vary_origin<RB>(mut response: Response<RB>) -> Response<RB> {
    response
        .headers_mut()
        .append(header::VARY, HeaderValue::from_static("origin"));
    response
}

impl<S, B, RB> tower::Service<Request<B>> for Cors<S>
where
    S: tower::Service<Request<B>, Response = Response<RB>, Error = Infallible> + Clone,
    RB: Default,
{
    type Response = Response<RB>;
    type Error = Infallible;
    type Future = Either<
        MapOk<Oneshot<S, Request<B>>, Finish<RB>>,
        MapOk<Oneshot<tower_http::cors::Cors<S>, Request<B>>, Finish<RB>>,
    >;

    fn poll_ready(&mut self, _: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        // Each call takes a clone of the service it goes to and waits for that one to be ready.
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, request: Request<B>) -> Self::Future {
        let policy = &self.policy;
        let is_options = request.method() == Method::OPTIONS;
        let preflight = is_options && request.headers().contains_key(header::ACCESS_CONTROL_REQUEST_METHOD);
        if policy.grants(request.headers().get(header::ORIGIN)) && (preflight || !is_options) {
            let finish: Finish<RB> = if preflight { no_content } else { unchanged };
            return Either::Right(self.granted.clone().oneshot(request).map_ok(finish));
        }
        let finish: Finish<RB> = if policy.any || policy.is_off() {
            unchanged
        } else {
            vary_origin
        };
        Either::Left(self.routes.clone().oneshot(request).map_ok(finish))
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
        assert!(policy.grants(Some(&a)));
        assert!(!policy.grants(Some(&b)));
        assert!(!policy.grants(None));
        assert!(CorsPolicy::new(&[]).is_off());
        let any = CorsPolicy::new(&["*".to_string()]);
        assert!(any.grants(Some(&b)));
        assert!(!any.grants(None));
    }
}
