//! What every request goes through before its route: a request id, a tracing span, one access
//! line, the metrics, the headers every answer carries, and a panic turned into a 500
//! ([`around`]).
//!
//! The request id, the `X-Content-Type-Options` header and the panic guard are tower-http's
//! layers. What no layer does is [`Observe`]: the span that carries the request id into every log
//! line of the request, the access line and the metrics (all three need the route's name, the
//! final status and the time taken), the client's address and the body's deadline for the routes.
//!
//! Why tower services around warp's: warp filters cannot see the final status of a response
//! produced by another filter, nor catch a panic; a service around the whole router sees both.

use std::any::Any;
use std::convert::Infallible;
use std::future::Future;
use std::net::IpAddr;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use bytes::Bytes;
use http::{HeaderValue, Request, Response, header};
use http_body_util::Full;
use tower::ServiceBuilder;
use tower_http::catch_panic::CatchPanicLayer;
use tower_http::request_id::{MakeRequestId, PropagateRequestIdLayer, RequestId, SetRequestIdLayer};
use tower_http::set_header::SetResponseHeaderLayer;
use tracing::Instrument;

use crate::telemetry::Metrics;

/// The body of every answer once through [`around`] (the panic guard's).
pub type Body = tower_http::body::UnsyncBoxBody<Bytes, tower_http::BoxError>;

/// Wraps the routes in the middleware: outermost the request id (a client's `X-Request-Id` when
/// it is a sane token, a new one otherwise; echoed in the answer), then the `nosniff` header,
/// then [`Observe`], then the panic guard.
pub fn around<S, B, RB>(
    routes: S,
    metrics: Arc<Metrics>,
    body_timeout: Duration,
    trusted_proxies: Arc<Vec<ipnet::IpNet>>,
) -> impl tower::Service<Request<B>, Response = Response<Body>, Error = Infallible, Future = impl Send>
+ Clone
+ Send
+ 'static
where
    S: tower::Service<Request<B>, Response = Response<RB>, Error = Infallible> + Clone + Send + 'static,
    S::Future: Send + 'static,
    B: Send + 'static,
    RB: http_body::Body<Data = Bytes> + Send + 'static,
    RB::Error: Into<tower_http::BoxError>,
{
    ServiceBuilder::new()
        .map_request(drop_unsafe_id::<B>)
        .layer(SetRequestIdLayer::x_request_id(NewRequestId))
        .layer(PropagateRequestIdLayer::x_request_id())
        .layer(SetResponseHeaderLayer::overriding(
            header::X_CONTENT_TYPE_OPTIONS,
            HeaderValue::from_static("nosniff"),
        ))
        .layer_fn(move |inner| Observe {
            inner,
            metrics: metrics.clone(),
            body_timeout,
            trusted_proxies: trusted_proxies.clone(),
        })
        .layer(CatchPanicLayer::custom(answer_panic))
        .service(routes)
}

const REQUEST_ID: &str = "x-request-id";

/// A client's `X-Request-Id` is kept only when it is one header of 1 to 64 characters of
/// `[A-Za-z0-9._:-]`, so that a header cannot inject text into logs; otherwise it is removed,
/// and the request gets a new id.
fn drop_unsafe_id<B>(mut request: Request<B>) -> Request<B> {
    let mut given = request.headers().get_all(REQUEST_ID).iter();
    let sane = match (given.next(), given.next()) {
        (None, _) => return request,
        (Some(value), None) => {
            (1..=64).contains(&value.len())
                && value
                    .as_bytes()
                    .iter()
                    .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b':' | b'-'))
        }
        (Some(_), Some(_)) => false,
    };
    if !sane {
        request.headers_mut().remove(REQUEST_ID);
    }
    request
}

/// A new request id: a random prefix drawn once per process (so instances sharing a database do
/// not collide) and a counter.
#[derive(Clone, Copy, Debug)]
struct NewRequestId;

impl MakeRequestId for NewRequestId {
    fn make_request_id<B>(&mut self, _: &Request<B>) -> Option<RequestId> {
        static PREFIX: std::sync::OnceLock<String> = std::sync::OnceLock::new();
        static NEXT: AtomicU64 = AtomicU64::new(1);
        let prefix = PREFIX.get_or_init(|| {
            let mut bytes = [0u8; 6];
            getrandom::fill(&mut bytes).expect("the system has a random source");
            bytes.iter().map(|b| format!("{b:02x}")).collect()
        });
        let id = format!("{prefix}-{}", NEXT.fetch_add(1, Ordering::Relaxed));
        HeaderValue::try_from(id).ok().map(RequestId::new)
    }
}

/// The answer to a request whose handler panicked: a 500 with the API's error body; the panic's
/// message is logged (in the request's span), never sent.
fn answer_panic(panic: Box<dyn Any + Send + 'static>) -> Response<Full<Bytes>> {
    let what = panic
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| panic.downcast_ref::<String>().cloned())
        .unwrap_or_default();
    tracing::error!(panic = %what, "a handler panicked");
    let body = serde_json::json!({ "error": "Internal error", "error_code": "INTERNAL_ERROR" }).to_string();
    let mut response = Response::new(Full::from(body));
    *response.status_mut() = http::StatusCode::INTERNAL_SERVER_ERROR;
    response
        .headers_mut()
        .insert(header::CONTENT_TYPE, HeaderValue::from_static("application/json"));
    response
}

/// The client's address: the connection's peer, or, when the peer is a trusted proxy, the
/// address it forwarded (`X-Forwarded-For`, else `Forwarded: for=`), read from the right: the
/// right-most address that is not itself a trusted proxy. Rate limits count by this address.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ClientIp(pub IpAddr);

fn client_ip(peer: Option<IpAddr>, headers: &http::HeaderMap, trusted: &[ipnet::IpNet]) -> Option<IpAddr> {
    let peer = peer?;
    let is_trusted = |ip: &IpAddr| trusted.iter().any(|net| net.contains(ip));
    if !is_trusted(&peer) {
        return Some(peer);
    }
    let forwarded: Vec<IpAddr> = if let Some(list) = headers.get("x-forwarded-for").and_then(|v| v.to_str().ok()) {
        list.split(',').filter_map(|a| parse_ip(a.trim())).collect()
    } else if let Some(list) = headers.get(header::FORWARDED).and_then(|v| v.to_str().ok()) {
        list.split(',')
            .flat_map(|element| element.split(';'))
            .filter_map(|pair| {
                pair.trim()
                    .strip_prefix("for=")
                    .or_else(|| pair.trim().strip_prefix("For="))
            })
            .filter_map(|value| parse_ip(value.trim_matches('"')))
            .collect()
    } else {
        Vec::new()
    };
    Some(forwarded.into_iter().rev().find(|ip| !is_trusted(ip)).unwrap_or(peer))
}

/// An address as forwarding headers write it: `1.2.3.4`, `1.2.3.4:567`, `[::1]`, `[::1]:567`.
fn parse_ip(text: &str) -> Option<IpAddr> {
    if let Ok(ip) = text.parse::<IpAddr>() {
        return Some(ip);
    }
    if let Ok(socket) = text.parse::<std::net::SocketAddr>() {
        return Some(socket.ip());
    }
    text.strip_prefix('[')?.split(']').next()?.parse().ok()
}

/// The routes named in metrics; any other path counts as `other`, so that random paths cannot
/// grow the number of time series.
fn route_label(path: &str) -> &'static str {
    // Every route answers with and without the `/api` prefix; the label is the documented path.
    let bare = path.strip_prefix("/api").unwrap_or(path);
    super::KNOWN_ROUTES
        .iter()
        .find(|route| route.strip_prefix("/api").unwrap_or(route) == bare)
        .copied()
        .unwrap_or("other")
}

/// The span, access line and metrics of a request, and what the routes read from its
/// extensions (the client's address, the body's deadline).
#[derive(Clone)]
pub struct Observe<S> {
    inner: S,
    metrics: Arc<Metrics>,
    body_timeout: Duration,
    trusted_proxies: Arc<Vec<ipnet::IpNet>>,
}

/// Counts a request in flight until the answer (or the cancelled future) is dropped.
struct InFlight(Arc<Metrics>);

impl InFlight {
    fn new(metrics: Arc<Metrics>) -> InFlight {
        metrics.request_started();
        InFlight(metrics)
    }
}

impl Drop for InFlight {
    fn drop(&mut self) {
        self.0.request_ended();
    }
}

impl<S, B, RB> tower::Service<Request<B>> for Observe<S>
where
    S: tower::Service<Request<B>, Response = Response<RB>, Error = Infallible> + Clone + Send + 'static,
    S::Future: Send + 'static,
    B: Send + 'static,
    RB: Send + 'static,
{
    type Response = Response<RB>;
    type Error = Infallible;
    type Future = Pin<Box<dyn Future<Output = Result<Response<RB>, Infallible>> + Send>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, mut request: Request<B>) -> Self::Future {
        let route = route_label(request.uri().path());
        // An unknown route is named by its path: no query string and, as `http` parses it, only
        // visible ASCII; the filter keeps it so whatever parses the request.
        let shown: std::borrow::Cow<'static, str> = match route {
            "other" => request
                .uri()
                .path()
                .chars()
                .filter(char::is_ascii_graphic)
                .take(200)
                .collect::<String>()
                .into(),
            known => known.into(),
        };
        let method = request.method().clone();
        let id = request
            .extensions()
            .get::<RequestId>()
            .and_then(|id| id.header_value().to_str().ok())
            .unwrap_or_default();
        let span = tracing::info_span!("request", request_id = %id, %method, route = &*shown);
        let peer = request
            .extensions()
            .get::<super::listener::PeerAddr>()
            .map(|p| p.0.ip());
        if let Some(ip) = client_ip(peer, request.headers(), &self.trusted_proxies) {
            request.extensions_mut().insert(ClientIp(ip));
        }
        request
            .extensions_mut()
            .insert(super::body::BodyDeadline(Instant::now() + self.body_timeout));
        // The service that was made ready is the one to call (tower's contract).
        let clone = self.inner.clone();
        let mut inner = std::mem::replace(&mut self.inner, clone);
        let metrics = self.metrics.clone();
        let work = async move {
            let started = Instant::now();
            let in_flight = InFlight::new(metrics.clone());
            let Ok(response) = inner.call(request).await;
            drop(in_flight);
            let latency = started.elapsed();
            let status = response.status();
            metrics
                .requests
                .with_label_values(&[route, method.as_str(), status.as_str()])
                .inc();
            metrics
                .latency
                .with_label_values(&[route])
                .observe(latency.as_secs_f64());
            let latency_ms = (latency.as_secs_f64() * 1000.0 * 1000.0).round() / 1000.0;
            if status.is_server_error() {
                tracing::warn!(target: "roadlog::access", status = status.as_u16(), latency_ms, "request");
            } else {
                tracing::info!(target: "roadlog::access", status = status.as_u16(), latency_ms, "request");
            }
            Ok(response)
        };
        Box::pin(work.instrument(span))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use http_body_util::BodyExt;
    use tower::ServiceExt;

    /// A request to the middleware around a route answering `ok`, or panicking on `/panic`.
    async fn answer(ids: &[&str], path: &str) -> Response<Body> {
        let routes = tower::service_fn(|request: Request<String>| async move {
            assert!(request.extensions().get::<super::super::body::BodyDeadline>().is_some());
            if request.uri().path() == "/panic" {
                panic!("the handler broke");
            }
            Ok::<_, Infallible>(Response::new(Full::from("ok")))
        });
        let service = around(
            routes,
            Arc::new(Metrics::new()),
            Duration::from_secs(5),
            Arc::new(Vec::new()),
        );
        let mut request = Request::builder().uri(path);
        for id in ids {
            request = request.header(REQUEST_ID, *id);
        }
        service.oneshot(request.body(String::new()).unwrap()).await.unwrap()
    }

    fn id_of(response: &Response<Body>) -> String {
        response.headers()[REQUEST_ID].to_str().unwrap().to_string()
    }

    #[tokio::test]
    async fn client_ids_are_kept_only_when_sane() {
        let kept = answer(&["abc-123_x.y:z"], "/").await;
        assert_eq!(id_of(&kept), "abc-123_x.y:z");
        assert_eq!(kept.headers()[header::X_CONTENT_TYPE_OPTIONS], "nosniff");
        let long = "a".repeat(65);
        for refused in [&["a b\"c"][..], &[long.as_str()], &["one", "two"], &[""], &["a\tb"]] {
            let id = id_of(&answer(refused, "/").await);
            assert!(!refused.contains(&id.as_str()), "{refused:?} kept");
            let (prefix, count) = id.split_once('-').unwrap();
            assert!(
                prefix.len() == 12 && prefix.bytes().all(|b| b.is_ascii_hexdigit()),
                "{id}"
            );
            assert!(count.parse::<u64>().is_ok(), "{id}");
        }
        assert_ne!(id_of(&answer(&[], "/").await), id_of(&answer(&[], "/").await));
    }

    #[tokio::test]
    async fn a_panic_is_answered_500_with_the_apis_error_body() {
        let response = answer(&["before-the-panic"], "/panic").await;
        assert_eq!(response.status(), http::StatusCode::INTERNAL_SERVER_ERROR);
        assert_eq!(id_of(&response), "before-the-panic");
        assert_eq!(response.headers()[header::CONTENT_TYPE], "application/json");
        assert_eq!(response.headers()[header::X_CONTENT_TYPE_OPTIONS], "nosniff");
        let body = response.into_body().collect().await.unwrap().to_bytes();
        let body: serde_json::Value = serde_json::from_slice(&body).unwrap();
        assert_eq!(body["error_code"], "INTERNAL_ERROR");
        assert!(
            !body.to_string().contains("broke"),
            "the panic's message is not sent: {body}"
        );
    }

    #[test]
    fn forwarded_addresses_count_only_behind_trusted_proxies() {
        let proxy: IpAddr = "10.0.0.5".parse().unwrap();
        let trusted: Vec<ipnet::IpNet> = vec!["10.0.0.0/8".parse().unwrap()];
        let mut headers = http::HeaderMap::new();
        headers.insert(
            "x-forwarded-for",
            HeaderValue::from_static("6.6.6.6, 203.0.113.7, 10.0.0.9"),
        );
        // From an untrusted peer the header is ignored.
        let stranger: IpAddr = "198.51.100.1".parse().unwrap();
        assert_eq!(client_ip(Some(stranger), &headers, &trusted), Some(stranger));
        // Behind the proxies: the right-most address that is not a proxy (the left part is
        // whatever the client wrote).
        assert_eq!(
            client_ip(Some(proxy), &headers, &trusted),
            Some("203.0.113.7".parse().unwrap())
        );
        assert_eq!(client_ip(Some(proxy), &headers, &[]), Some(proxy), "no proxy trusted");
        let mut forwarded = http::HeaderMap::new();
        forwarded.insert(
            header::FORWARDED,
            HeaderValue::from_static("for=\"[2001:db8::1]:4711\";proto=https"),
        );
        assert_eq!(
            client_ip(Some(proxy), &forwarded, &trusted),
            Some("2001:db8::1".parse().unwrap())
        );
        assert_eq!(client_ip(Some(proxy), &http::HeaderMap::new(), &trusted), Some(proxy));
    }

    #[test]
    fn routes_are_named_with_or_without_the_api_prefix() {
        assert_eq!(route_label("/graphql"), "/api/graphql");
        assert_eq!(route_label("/api/graphql"), "/api/graphql");
        assert_eq!(route_label("/api/health"), "/health");
        assert_eq!(route_label("/oauth/token"), "/api/oauth/token");
        assert_eq!(route_label("/wp-admin.php"), "other");
    }
}
