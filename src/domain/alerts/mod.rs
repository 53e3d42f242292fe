//! Regulatory alerts as stored (reference §1.8–1.9): the computations of the pure engine
//! ([`crate::domain::regulation`]) run on a worker's validated missions, stored per worker, day
//! and check, separately for the worker's own validations (`employee`) and the admins'
//! (`admin`); the triggers (a mission validated, a mission cancelled by an admin, the operator's
//! rebuild) and the reads of the API.

pub mod last_mission;
pub mod load;
pub mod read;
pub mod recap;
pub mod store;
pub mod triggers;

/// Reads the one row of a statement built with [`crate::db::sql::ROWS_AS_JSON`]: its rows as a
/// JSON array of arrays.
fn json_rows<T: serde::de::DeserializeOwned>(rows: &str) -> crate::errors::AppResult<T> {
    serde_json::from_str(rows)
        .map_err(|e| crate::errors::AppError::internal(format!("rows read as JSON not readable: {e}")))
}
