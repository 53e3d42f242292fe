//! Logs go to standard error, never standard output (which belongs to the commands' results,
//! e.g. `roadlog client list --json`). On a terminal they are human-readable with colours;
//! redirected, colours are off; `--log-format json` writes one JSON object a line with the
//! current request's span (request id, method, route).
//!
//! The default level writes at most one line per request (the access line of
//! `http::middleware`); `RUST_LOG` changes it (`RUST_LOG=debug`, `RUST_LOG=roadlog=trace`).

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

/// Installs the global subscriber. Returns `false` when one was already installed (tests that
/// start several servers in one process).
pub fn init(format: LogFormat) -> bool {
    let filter = EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new(DEFAULT_FILTER));
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr);
    match format {
        LogFormat::Human => builder.with_ansi(std::io::stderr().is_terminal()).try_init().is_ok(),
        LogFormat::Json => builder
            .json()
            .flatten_event(true)
            .with_current_span(true)
            .with_span_list(false)
            .try_init()
            .is_ok(),
    }
}
