//! What every request goes through before its route: a request id, a tracing span, one access
//! line, the metrics, the headers every answer carries, and a panic turned into a 500.
//!
//! Why a tower service around warp's: warp filters cannot see the final status of a response
//! produced by another filter, nor catch a panic; a service around the whole router sees both.

use std::convert::Infallible;
use std::future::Future;
use std::net::IpAddr;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use futures::FutureExt;
use http::{HeaderValue, Request, Response, header};
use tracing::Instrument;

use crate::telemetry::Metrics;

/// The id of one request: the client's `X-Request-Id` when it is a sane token, a new one
/// otherwise. Echoed in the `X-Request-Id` response header and in every log line of the request.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RequestId(pub String);

const REQUEST_ID: &str = "x-request-id";

impl RequestId {
    /// Keeps a client's id only when it is 1 to 64 characters of `[A-Za-z0-9._:-]`, so that a
    /// header cannot inject text into logs.
    fn from_header(value: Option<&HeaderValue>) -> RequestId {
        let given = value.and_then(|v| v.to_str().ok()).filter(|v| {
            (1..=64).contains(&v.len())
                && v.bytes()
                    .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b':' | b'-'))
        });
        match given {
            Some(id) => RequestId(id.to_string()),
            None => RequestId::new(),
        }
    }

    /// A new id: a random prefix drawn once per process (so instances sharing a database do not
    /// collide) and a counter.
    fn new() -> RequestId {
        static PREFIX: std::sync::OnceLock<String> = std::sync::OnceLock::new();
        static NEXT: AtomicU64 = AtomicU64::new(1);
        let prefix = PREFIX.get_or_init(|| {
            let mut bytes = [0u8; 6];
            getrandom::fill(&mut bytes).expect("the system has a random source");
            bytes.iter().map(|b| format!("{b:02x}")).collect()
        });
        RequestId(format!("{prefix}-{}", NEXT.fetch_add(1, Ordering::Relaxed)))
    }
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

/// Wraps the router.
#[derive(Clone)]
pub struct Observe<S> {
    inner: S,
    metrics: Arc<Metrics>,
    body_timeout: Duration,
    trusted_proxies: Arc<Vec<ipnet::IpNet>>,
}

impl<S> Observe<S> {
    pub fn new(
        inner: S,
        metrics: Arc<Metrics>,
        body_timeout: Duration,
        trusted_proxies: Arc<Vec<ipnet::IpNet>>,
    ) -> Observe<S> {
        Observe {
            inner,
            metrics,
            body_timeout,
            trusted_proxies,
        }
    }
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
    RB: From<String> + Send + 'static,
{
    type Response = Response<RB>;
    type Error = Infallible;
    type Future = Pin<Box<dyn Future<Output = Result<Response<RB>, Infallible>> + Send>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, mut request: Request<B>) -> Self::Future {
        let id = RequestId::from_header(request.headers().get(REQUEST_ID));
        let route = route_label(request.uri().path());
        let method = request.method().clone();
        let span = tracing::info_span!("request", request_id = %id.0, %method, route);
        if route == "other" {
            let path: String = request.uri().path().chars().take(200).collect();
            span.record("route", path.as_str());
        }
        request.extensions_mut().insert(id.clone());
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
            let answer = std::panic::AssertUnwindSafe(inner.call(request)).catch_unwind().await;
            let mut response = match answer {
                Ok(Ok(response)) => response,
                Err(panic) => {
                    let what = panic
                        .downcast_ref::<&str>()
                        .map(|s| s.to_string())
                        .or_else(|| panic.downcast_ref::<String>().cloned())
                        .unwrap_or_default();
                    tracing::error!(panic = %what, "a handler panicked");
                    internal_error()
                }
            };
            drop(in_flight);
            let latency = started.elapsed();
            let status = response.status();
            let headers = response.headers_mut();
            if let Ok(value) = HeaderValue::from_str(&id.0) {
                headers.insert(REQUEST_ID, value);
            }
            headers.insert(header::X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff"));
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

fn internal_error<RB: From<String>>() -> Response<RB> {
    let body = serde_json::json!({ "error": "Internal error", "error_code": "INTERNAL_ERROR" }).to_string();
    let mut response = Response::new(RB::from(body));
    *response.status_mut() = http::StatusCode::INTERNAL_SERVER_ERROR;
    response
        .headers_mut()
        .insert(header::CONTENT_TYPE, HeaderValue::from_static("application/json"));
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn client_ids_are_kept_only_when_sane() {
        let keep = HeaderValue::from_static("abc-123_x.y:z");
        assert_eq!(RequestId::from_header(Some(&keep)).0, "abc-123_x.y:z");
        let injected = HeaderValue::from_static("a b\"c");
        assert_ne!(RequestId::from_header(Some(&injected)).0, "a b\"c");
        let long = HeaderValue::from_str(&"a".repeat(65)).unwrap();
        assert!(RequestId::from_header(Some(&long)).0.len() < 65);
        assert_ne!(RequestId::new(), RequestId::new());
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
