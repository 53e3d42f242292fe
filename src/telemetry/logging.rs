//! Logs go to standard error, never standard output (which belongs to the commands' results,
//! e.g. `roadlog client list --json`). On a terminal they are human-readable with colours;
//! redirected, colours are off; `--log-format json` writes one JSON object a line with the
//! current request's span (request id, method, route). Both formats are `tracing-subscriber`'s
//! own.
//!
//! The default level writes at most one line per request (the access line of
//! `http::middleware`); `RUST_LOG` changes it (`RUST_LOG=debug`, `RUST_LOG=roadlog=trace`).
//!
//! Lines are written by a thread of their own (`tracing-appender`'s non-blocking writer): a
//! request formats its line and queues it, so a slow reader of standard error (a full pipe to a
//! log collector) stalls no request until the queue itself is full, when loggers wait: lines are
//! never dropped. [`init`]'s guard writes out what is queued when the command ends.
//!
//! What keeps secrets and terminal controls out of the lines is what is logged, not how: the
//! access line names the path (never the query string) and no header, the request id is a
//! client's only when it is a plain token (`http::middleware`), and no code logs a password,
//! token or cookie.

use std::io::IsTerminal;

use tracing::Dispatch;
use tracing_appender::non_blocking::{NonBlockingBuilder, WorkerGuard};
use tracing_subscriber::EnvFilter;
use tracing_subscriber::fmt::MakeWriter;
use tracing_subscriber::util::SubscriberInitExt;

/// How log lines are written.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum LogFormat {
    /// Text for people: colours on a terminal, plain otherwise.
    #[default]
    Human,
    /// One JSON object a line: time, level, target, message, fields, and the request span.
    Json,
}

/// The filter when `RUST_LOG` is unset: our own information, only warnings from libraries.
pub const DEFAULT_FILTER: &str = "info,sqlx=warn,hyper=warn,warp=warn,oxide_auth=warn";

/// Lines queued for the writer before loggers wait (the writer's own default).
const QUEUED_LINES: usize = tracing_appender::non_blocking::DEFAULT_BUFFERED_LINES_LIMIT;

/// Keeps the log writer running: dropped (at the end of `main`'s command), it writes out what
/// is queued and stops the writer.
#[must_use = "the log writer stops when its guard is dropped"]
pub struct LogGuard {
    _writer: Option<WorkerGuard>,
}

/// Installs the global subscriber. The guard holds nothing when one was already installed
/// (tests that start several servers in one process).
pub fn init(format: LogFormat) -> LogGuard {
    let filter = EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new(DEFAULT_FILTER));
    let (writer, guard) = NonBlockingBuilder::default()
        .lossy(false)
        .buffered_lines_limit(QUEUED_LINES)
        .thread_name("roadlog-log")
        .finish(std::io::stderr());
    let installed = subscriber(format, std::io::stderr().is_terminal(), filter, writer)
        .try_init()
        .is_ok();
    LogGuard {
        _writer: installed.then_some(guard),
    }
}

/// The subscriber writing `format` to `writer`; colours only for a terminal.
fn subscriber<W>(format: LogFormat, terminal: bool, filter: EnvFilter, writer: W) -> Dispatch
where
    W: for<'w> MakeWriter<'w> + Send + Sync + 'static,
{
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(writer)
        .with_ansi(terminal && format == LogFormat::Human);
    match format {
        LogFormat::Human => builder.finish().into(),
        // The event's fields at the top of the object, next to the current span (request id,
        // method, route) under `span`: a line reads without walking a list of spans.
        LogFormat::Json => builder
            .json()
            .flatten_event(true)
            .with_current_span(true)
            .with_span_list(false)
            .finish()
            .into(),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::Value;
    use tracing::{info, info_span};

    use super::*;
    use crate::telemetry::captured::Captured;

    /// What `events` writes in `format`, through the subscriber `init` installs.
    fn lines(format: LogFormat, events: impl FnOnce()) -> String {
        let captured = Captured::default();
        let dispatch = subscriber(format, false, EnvFilter::new("trace"), captured.clone());
        tracing::dispatcher::with_default(&dispatch, events);
        captured.text()
    }

    fn access_line() {
        let request = info_span!("request", request_id = %"4d31890a4677-1", method = %"POST", route = "/api/graphql");
        let _entered = request.enter();
        info!(target: "roadlog::access", status = 200u16, latency_ms = 0.766, "request");
    }

    #[test]
    fn a_json_line_carries_the_request_span_and_the_access_fields() {
        let text = lines(LogFormat::Json, access_line);
        let line: Value = serde_json::from_str(text.trim_end()).unwrap();
        assert_eq!(line["level"], "INFO");
        assert_eq!(line["target"], "roadlog::access");
        assert_eq!(line["message"], "request");
        assert_eq!(
            (line["status"].as_u64(), line["latency_ms"].as_f64()),
            (Some(200), Some(0.766))
        );
        assert_eq!(line["span"]["request_id"], "4d31890a4677-1");
        assert_eq!(
            (line["span"]["method"].as_str(), line["span"]["route"].as_str()),
            (Some("POST"), Some("/api/graphql"))
        );
        let stamp = line["timestamp"].as_str().unwrap();
        assert!(chrono::DateTime::parse_from_rfc3339(stamp).is_ok(), "{stamp}");
        assert!(line.get("spans").is_none(), "no span list: {line}");
    }

    #[test]
    fn json_lines_stay_parseable_whatever_the_values() {
        let text = lines(LogFormat::Json, || {
            let span = info_span!("request", route = %"/\"quoted\"\n\x1b[2J");
            let _entered = span.enter();
            info!(shown = %"a\x07b\u{9b}c\nnext", "bell\x07 and \x1b[31mred");
        });
        assert_eq!(text.lines().count(), 1, "{text}");
        let line: Value = serde_json::from_str(text.trim_end()).unwrap();
        assert_eq!(line["span"]["route"], "/\"quoted\"\n\x1b[2J");
        assert_eq!(line["shown"], "a\x07b\u{9b}c\nnext");
        assert!(!text.contains(['\x1b', '\x07']), "{text:?}");
    }

    #[test]
    fn a_plain_line_names_the_request_in_its_span_and_has_no_colour() {
        let text = lines(LogFormat::Human, access_line);
        let (stamp, rest) = text.trim_end().split_once(' ').unwrap();
        assert!(chrono::DateTime::parse_from_rfc3339(stamp).is_ok(), "{stamp}");
        assert_eq!(
            rest,
            r#" INFO request{request_id=4d31890a4677-1 method=POST route="/api/graphql"}: roadlog::access: request status=200 latency_ms=0.766"#
        );
        assert!(!text.contains('\x1b'), "{text:?}");
    }
}
