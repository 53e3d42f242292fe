//! Counts the SQL statements each request runs: sqlx reports every statement as an event of
//! target `sqlx::query`, and the server runs each request inside a `request` span that carries
//! its request id, so a statement is attributed to the request whose span encloses it. Other
//! tests' requests, running at the same time in this process, do not disturb the count.

use std::collections::HashMap;
use std::sync::{Mutex, OnceLock};

use tracing::Subscriber;
use tracing::field::{Field, Visit};
use tracing::span::{Attributes, Id};
use tracing_subscriber::layer::{Context, SubscriberExt};
use tracing_subscriber::registry::LookupSpan;
use tracing_subscriber::util::SubscriberInitExt;
use tracing_subscriber::{EnvFilter, Layer, Registry};

/// Statements per request id.
static COUNTS: Mutex<Option<HashMap<String, usize>>> = Mutex::new(None);

struct RequestIdOf(String);

struct FieldReader<'a>(&'a str, Option<String>);

impl Visit for FieldReader<'_> {
    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        if field.name() == self.0 {
            self.1 = Some(format!("{value:?}"));
        }
    }
    fn record_str(&mut self, field: &Field, value: &str) {
        if field.name() == self.0 {
            self.1 = Some(value.to_string());
        }
    }
}

struct Counter;

impl<S: Subscriber + for<'a> LookupSpan<'a>> Layer<S> for Counter {
    fn on_new_span(&self, attrs: &Attributes<'_>, id: &Id, ctx: Context<'_, S>) {
        if attrs.metadata().name() != "request" {
            return;
        }
        let mut reader = FieldReader("request_id", None);
        attrs.record(&mut reader);
        if let (Some(request_id), Some(span)) = (reader.1, ctx.span(id)) {
            span.extensions_mut().insert(RequestIdOf(request_id));
        }
    }

    fn on_event(&self, event: &tracing::Event<'_>, ctx: Context<'_, S>) {
        if event.metadata().target() != "sqlx::query" {
            return;
        }
        // Opening a pool connection runs set-up statements (SQLite PRAGMAs) inside whichever
        // request needed the connection: not that request's work.
        let mut summary = FieldReader("summary", None);
        event.record(&mut summary);
        if summary
            .1
            .as_deref()
            .unwrap_or("")
            .trim_start_matches('"')
            .to_lowercase()
            .starts_with("pragma")
        {
            return;
        }
        let Some(scope) = ctx.event_scope(event) else { return };
        for span in scope {
            if let Some(RequestIdOf(id)) = span.extensions().get::<RequestIdOf>() {
                *COUNTS
                    .lock()
                    .unwrap()
                    .get_or_insert_with(HashMap::new)
                    .entry(id.clone())
                    .or_default() += 1;
                return;
            }
        }
    }
}

/// Installs the process's subscriber once: the counter, and the server's logs in the test
/// output when `RUST_LOG` asks for them.
pub fn install() {
    static ONCE: OnceLock<()> = OnceLock::new();
    ONCE.get_or_init(|| {
        let counted = tracing_subscriber::filter::Targets::new()
            .with_target("sqlx::query", tracing::Level::TRACE)
            .with_target("roadlog", tracing::Level::INFO);
        let logs = std::env::var_os("RUST_LOG").map(|_| {
            tracing_subscriber::fmt::layer()
                .with_test_writer()
                .with_filter(EnvFilter::from_default_env())
        });
        Registry::default().with(Counter.with_filter(counted)).with(logs).init();
    });
}

/// Statements counted for a request id so far.
pub fn count(request_id: &str) -> usize {
    COUNTS
        .lock()
        .unwrap()
        .as_ref()
        .and_then(|c| c.get(request_id).copied())
        .unwrap_or(0)
}
