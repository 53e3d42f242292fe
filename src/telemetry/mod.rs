//! What the service tells its operator: logs (standard error, human or JSON) and metrics
//! (Prometheus text format). Both are set up once at start; nothing here knows about HTTP
//! routes or the domain.

pub mod logging;
pub mod metrics;

pub use logging::LogFormat;
pub use metrics::Metrics;

/// Spawns a task that stays inside the current span, so that the work a request hands to
/// another task (data loaders' batches) is logged and counted as that request's.
pub fn spawn_in_span<F>(future: F) -> tokio::task::JoinHandle<F::Output>
where
    F: Future + Send + 'static,
    F::Output: Send + 'static,
{
    use tracing::Instrument;
    tokio::spawn(future.in_current_span())
}
