//! A POST: the media type, then the JSON body, one operation or a batch of at most
//! [`MAX_BATCH`], each operation read from `{"query", "variables", "operationName"}`.

use async_graphql::Variables;
use bytes::Bytes;
use serde_json::Value;
use warp::http::{HeaderMap, StatusCode, header};

use super::{Batch, MAX_BATCH, Rejected, reject};
use crate::http::media;

pub(super) fn from_post(headers: &HeaderMap, body: Bytes, media: &str) -> Result<Batch, Rejected> {
    let content_type = headers.get(header::CONTENT_TYPE).and_then(|v| v.to_str().ok());
    if !content_type.is_some_and(media::is_json_content_type) {
        return Err(reject(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            media,
            "Unsupported Content-Type: send the request as application/json",
        ));
    }
    parse_body(&body).map_err(|(status, message)| reject(status, media, &message))
}

/// A JSON body: one operation or a batch of at most [`MAX_BATCH`].
pub(super) fn parse_body(body: &[u8]) -> Result<Batch, (StatusCode, String)> {
    let Ok(value) = serde_json::from_slice::<Value>(body) else {
        return Err((StatusCode::BAD_REQUEST, "POST body sent invalid JSON.".into()));
    };
    match value {
        Value::Array(items) => {
            if items.is_empty() {
                return Err((StatusCode::BAD_REQUEST, "Batch request contains no operation.".into()));
            }
            if items.len() > MAX_BATCH {
                return Err((
                    StatusCode::BAD_REQUEST,
                    format!("Batch request contains too many operations. Maximum allowed is {MAX_BATCH}."),
                ));
            }
            Ok(Batch {
                is_batch: true,
                operations: items.into_iter().map(operation_from_json).collect(),
            })
        }
        other => Ok(Batch {
            is_batch: false,
            operations: vec![operation_from_json(other)],
        }),
    }
}

/// Reads `{"query", "variables", "operationName"}`. As in the reference, `variables` may also be
/// a JSON-encoded string.
pub(super) fn operation_from_json(value: Value) -> Result<async_graphql::Request, String> {
    let Value::Object(mut fields) = value else {
        return Err("A GraphQL request must be a JSON object with a \"query\" string.".into());
    };
    let query = match fields.remove("query") {
        Some(Value::String(q)) if !q.trim().is_empty() => q,
        _ => return Err("Must provide query string.".into()),
    };
    let mut request = async_graphql::Request::new(query);
    match fields.remove("variables") {
        None | Some(Value::Null) => {}
        Some(Value::String(s)) if s.trim().is_empty() => {}
        Some(Value::String(s)) => match serde_json::from_str::<Value>(&s) {
            Ok(v @ Value::Object(_)) => request = request.variables(Variables::from_json(v)),
            _ => return Err("Variables are invalid JSON.".into()),
        },
        Some(v @ Value::Object(_)) => request = request.variables(Variables::from_json(v)),
        Some(_) => return Err("Variables must be a JSON object.".into()),
    }
    match fields.remove("operationName") {
        None | Some(Value::Null) => {}
        Some(Value::String(name)) => request = request.operation_name(name),
        Some(_) => return Err("operationName must be a string.".into()),
    }
    Ok(request)
}
