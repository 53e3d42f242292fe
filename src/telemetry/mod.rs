//! What the service tells its operator: logs (standard error, human or JSON) and metrics
//! (Prometheus text format). Both are set up once at start; nothing here knows about HTTP
//! routes or the domain.

pub mod batched;
#[cfg(test)]
mod captured;
pub mod json;
pub mod logging;
pub mod metrics;
pub mod text;

pub use logging::LogFormat;
pub use metrics::Metrics;
