//! The `ApiError` bodies (`{"error", "error_code"}`) of the REST routes other than OAuth's, built
//! in one place.

use crate::http::contract::types;

/// `{"error", "error_code"}` without details.
pub fn api_error(error: impl Into<String>, error_code: &str) -> types::ApiError {
    types::ApiError {
        error: error.into(),
        error_code: error_code.to_string(),
        details: None,
    }
}

/// The answer of a failure the client can do nothing about (the cause is logged, not sent).
pub fn internal_error() -> types::ApiError {
    api_error("An internal error occurred", "INTERNAL_ERROR")
}
