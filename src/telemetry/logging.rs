//! Logs go to standard error, never standard output (which belongs to the commands' results,
//! e.g. `roadlog client list --json`). On a terminal they are human-readable with colours;
//! redirected, colours are off; `--log-format json` writes one JSON object a line with the
//! current request's span (request id, method, route).
//!
//! The default level writes at most one line per request (the access line of
//! `http::middleware`); `RUST_LOG` changes it (`RUST_LOG=debug`, `RUST_LOG=roadlog=trace`).
//!
//! Lines are written by a thread of their own (`tracing-appender`'s non-blocking writer), not
//! by the request that logs them: a request formats its line and queues it; the writer takes
//! every line queued, writes them in one go and flushes when the queue is empty. Under load that
//! is one `write` for many lines instead of one each, and a slow reader of standard error (a
//! full pipe to a log collector) no longer stalls the runtime's threads until the queue itself
//! is full, when loggers wait: lines are never dropped. [`init`]'s guard writes out what is
//! queued when the command ends; a process killed outright (`SIGKILL`) may lose the lines of
//! its last moments, which a direct write would have had time to write.

use std::io::IsTerminal;

use tracing_appender::non_blocking::{NonBlockingBuilder, WorkerGuard};
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

/// Lines queued for the writer before loggers wait for it (some 3 MB of 200-byte lines).
const QUEUE_LINES: usize = 16_384;

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
        .buffered_lines_limit(QUEUE_LINES)
        .thread_name("roadlog-log")
        .finish(std::io::BufWriter::new(std::io::stderr()));
    let builder = tracing_subscriber::fmt().with_env_filter(filter).with_writer(writer);
    let installed = match format {
        LogFormat::Human => builder.with_ansi(std::io::stderr().is_terminal()).try_init().is_ok(),
        LogFormat::Json => builder
            .json()
            .flatten_event(true)
            .with_current_span(true)
            .with_span_list(false)
            .try_init()
            .is_ok(),
    };
    LogGuard {
        _writer: installed.then_some(guard),
    }
}
