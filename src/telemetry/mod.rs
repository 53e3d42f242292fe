//! What the service tells its operator: logs (standard error, human or JSON) and metrics
//! (Prometheus text format). Both are set up once at start; nothing here knows about HTTP
//! routes or the domain.

#[cfg(test)]
mod captured;
pub mod logging;
pub mod metrics;

pub use logging::LogFormat;
pub use metrics::Metrics;
