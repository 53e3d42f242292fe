//! Answers for requests that no route took: JSON errors in the REST shape, never warp's plain
//! text.

use std::convert::Infallible;

use warp::http::StatusCode;

use super::media::json_response;

pub async fn recover(rejection: warp::Rejection) -> Result<warp::reply::Response, Infallible> {
    let (status, code, message) = if rejection.is_not_found() {
        (StatusCode::NOT_FOUND, "NOT_FOUND", "No such route".to_string())
    } else if rejection.find::<warp::reject::MethodNotAllowed>().is_some() {
        (
            StatusCode::METHOD_NOT_ALLOWED,
            "METHOD_NOT_ALLOWED",
            "Method not allowed on this route".to_string(),
        )
    } else {
        tracing::warn!(?rejection, "unhandled rejection");
        (StatusCode::BAD_REQUEST, "BAD_REQUEST", "Bad request".to_string())
    };
    Ok(json_response(
        status,
        &serde_json::json!({ "error": message, "error_code": code }),
    ))
}
