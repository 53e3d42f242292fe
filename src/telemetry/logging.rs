//! Logs go to standard error, never standard output (which belongs to the commands' results,
//! e.g. `roadlog client list --json`). On a terminal they are human-readable with colours;
//! redirected, colours are off; `--log-format json` writes one JSON object a line with the
//! current request's span (request id, method, route).
//!
//! The default level writes at most one line per request (the access line of
//! `http::middleware`); `RUST_LOG` changes it (`RUST_LOG=debug`, `RUST_LOG=roadlog=trace`).
//!
//! Lines are written by a thread of their own ([`super::batched`]), not by the request that
//! logs them: a request formats its line and appends it to a buffer; the writer takes the whole
//! buffer every 50 ms and writes it in one call. Under load that is one `write` for many lines
//! and no thread woken per line, and a slow reader of standard error (a full pipe to a log
//! collector) stalls no request until the buffer itself is full (4 MiB), when loggers wait:
//! lines are never dropped. [`init`]'s guard writes out what is buffered when the command ends;
//! a process killed outright (`SIGKILL`) may lose its last 50 ms of lines.

use std::io::IsTerminal;

use tracing_subscriber::EnvFilter;

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

/// Keeps the log writer running: dropped (at the end of `main`'s command), it writes out what
/// is queued and stops the writer.
#[must_use = "the log writer stops when its guard is dropped"]
pub struct LogGuard {
    _writer: Option<super::batched::Flusher>,
}

/// Installs the global subscriber. The guard holds nothing when one was already installed
/// (tests that start several servers in one process).
pub fn init(format: LogFormat) -> LogGuard {
    let filter = EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new(DEFAULT_FILTER));
    // Without a thread (none can be started), lines are written by the request that logs them.
    let Ok((writer, guard)) = super::batched::batched(std::io::stderr(), "roadlog-log") else {
        return init_with(format, filter, std::io::stderr, None);
    };
    init_with(format, filter, writer, Some(guard))
}

fn init_with<W>(format: LogFormat, filter: EnvFilter, writer: W, guard: Option<super::batched::Flusher>) -> LogGuard
where
    W: for<'w> tracing_subscriber::fmt::MakeWriter<'w> + Send + Sync + 'static,
{
    let builder = tracing_subscriber::fmt().with_env_filter(filter).with_writer(writer);
    let installed = match format {
        // Colours for a person at a terminal, by the crate's formatter; otherwise the same text
        // without colours, written by `text` at a fraction of the cost (a line per request).
        LogFormat::Human if std::io::stderr().is_terminal() => builder.with_ansi(true).try_init().is_ok(),
        LogFormat::Human => builder
            .with_ansi(false)
            .fmt_fields(super::text::Fields)
            .event_format(super::text::Line)
            .try_init()
            .is_ok(),
        // The crate's JSON format (event fields flattened, the current span, no span list),
        // written by `json` at a fraction of the cost.
        LogFormat::Json => builder
            .with_ansi(false)
            .fmt_fields(super::json::Fields)
            .event_format(super::json::Line)
            .try_init()
            .is_ok(),
    };
    LogGuard {
        _writer: if installed { guard } else { None },
    }
}
