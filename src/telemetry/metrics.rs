//! Metrics in the Prometheus text format, served at `GET /metrics` (or on `--metrics-bind`).
//!
//! Why one registry per server rather than the `prometheus` crate's global one: a process may
//! run several servers (the tests do), and each must count only its own requests.
//! Gauges that describe the database (pool, outbox backlog) are read when the metrics are
//! scraped, so they cost nothing between scrapes.

use prometheus::{Encoder, HistogramOpts, HistogramVec, IntCounterVec, IntGauge, Opts, Registry, TextEncoder};

/// Latency buckets, in seconds: from a cached read to a large export.
const LATENCY_BUCKETS: &[f64] = &[
    0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0,
];

/// Every metric of one server.
pub struct Metrics {
    registry: Registry,
    /// Requests answered, by route, method and status.
    pub requests: IntCounterVec,
    /// Time to the response head, by route.
    pub latency: HistogramVec,
    /// Requests being answered now.
    pub in_flight: IntGauge,
    /// The same count, for code that waits on it (a stopping server, tests).
    pub in_flight_watch: tokio::sync::watch::Sender<usize>,
    /// Open client connections.
    pub connections: IntGauge,
    /// Database connections held by the pool, and how many of them are idle.
    pub db_connections: IntGauge,
    pub db_idle_connections: IntGauge,
    /// E-mails waiting for delivery.
    pub outbox_backlog: IntGauge,
    /// C1B exports: duration, by outcome.
    pub export_seconds: HistogramVec,
    /// Attempts a rate limit could not count (the database failed), by limit.
    pub rate_limit_record_failures: IntCounterVec,
}

fn registered<T: prometheus::core::Collector + Clone + 'static>(registry: &Registry, metric: T) -> T {
    registry
        .register(Box::new(metric.clone()))
        .expect("metric names are unique");
    metric
}

impl Metrics {
    pub fn new() -> Metrics {
        let registry = Registry::new_custom(Some("roadlog".into()), None).expect("a valid prefix");
        let requests = registered(
            &registry,
            IntCounterVec::new(
                Opts::new("http_requests_total", "HTTP requests answered"),
                &["route", "method", "status"],
            )
            .expect("valid metric"),
        );
        let latency = registered(
            &registry,
            HistogramVec::new(
                HistogramOpts::new("http_request_duration_seconds", "Time to the response head")
                    .buckets(LATENCY_BUCKETS.to_vec()),
                &["route"],
            )
            .expect("valid metric"),
        );
        let gauge = |name: &str, help: &str| registered(&registry, IntGauge::new(name, help).expect("valid metric"));
        let in_flight = gauge("http_requests_in_flight", "Requests being answered");
        let connections = gauge("http_connections_open", "Open client connections");
        let db_connections = gauge("db_pool_connections", "Database connections held by the pool");
        let db_idle_connections = gauge("db_pool_idle_connections", "Idle database connections of the pool");
        let outbox_backlog = gauge("outbox_backlog", "E-mails waiting for delivery");
        let export_seconds = registered(
            &registry,
            HistogramVec::new(
                HistogramOpts::new("export_duration_seconds", "C1B exports, from request to last byte")
                    .buckets(LATENCY_BUCKETS.to_vec()),
                &["outcome"],
            )
            .expect("valid metric"),
        );
        let rate_limit_record_failures = registered(
            &registry,
            IntCounterVec::new(
                Opts::new(
                    "rate_limit_record_failures_total",
                    "Attempts a rate limit could not count in the database",
                ),
                &["limit"],
            )
            .expect("valid metric"),
        );
        Metrics {
            registry,
            requests,
            latency,
            in_flight,
            in_flight_watch: tokio::sync::watch::channel(0).0,
            connections,
            db_connections,
            db_idle_connections,
            outbox_backlog,
            export_seconds,
            rate_limit_record_failures,
        }
    }

    /// The text exposition of every metric.
    pub fn render(&self) -> String {
        let mut out = Vec::new();
        TextEncoder::new()
            .encode(&self.registry.gather(), &mut out)
            .expect("encoding into memory does not fail");
        String::from_utf8(out).expect("the text format is UTF-8")
    }

    /// A request starts being answered.
    pub fn request_started(&self) {
        self.in_flight.inc();
        self.in_flight_watch.send_modify(|n| *n += 1);
    }

    /// A request is answered (or abandoned).
    pub fn request_ended(&self) {
        self.in_flight.dec();
        self.in_flight_watch.send_modify(|n| *n = n.saturating_sub(1));
    }

    /// An attempt the rate limit `limit` could not count (the caller logs the error where it
    /// handles it).
    pub fn record_failed(&self, limit: &str) {
        self.rate_limit_record_failures.with_label_values(&[limit]).inc();
    }

    /// Records one export's duration.
    pub fn export_finished(&self, outcome: &str, seconds: f64) {
        self.export_seconds.with_label_values(&[outcome]).observe(seconds);
    }
}

impl Default for Metrics {
    fn default() -> Self {
        Metrics::new()
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_text_format_names_every_family() {
        let metrics = super::Metrics::new();
        metrics.requests.with_label_values(&["/health", "GET", "200"]).inc();
        metrics.export_finished("ok", 0.2);
        metrics.record_failed("signup");
        let text = metrics.render();
        assert!(text.contains("roadlog_http_requests_total{method=\"GET\",route=\"/health\",status=\"200\"} 1"));
        assert!(text.contains("# TYPE roadlog_export_duration_seconds histogram"));
        assert!(text.contains("roadlog_outbox_backlog 0"));
        assert!(text.contains("roadlog_rate_limit_record_failures_total{limit=\"signup\"} 1"));
    }
}
