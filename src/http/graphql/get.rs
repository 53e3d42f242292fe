//! A GET: `?query=`, `variables` and `operationName` from the query string, queries only (a
//! mutation is 405 with `Allow: POST`).

use async_graphql::parser::types::{DocumentOperations, OperationType};
use serde_json::Value;
use warp::http::{HeaderValue, StatusCode, header};

use super::post::operation_from_json;
use super::{Batch, Rejected, error, reject};
use crate::graphql::guard;

pub(super) fn from_query_string(query: &str, media: &str) -> Result<Batch, Rejected> {
    let mut document = None;
    let mut variables = None;
    let mut operation_name = None;
    for (key, value) in url::form_urlencoded::parse(query.as_bytes()) {
        match key.as_ref() {
            "query" => document = Some(value.into_owned()),
            "variables" => variables = Some(Value::String(value.into_owned())),
            "operationName" => operation_name = Some(Value::String(value.into_owned())),
            _ => {}
        }
    }
    let Some(document) = document else {
        return Err(reject(StatusCode::BAD_REQUEST, media, "Must provide query string."));
    };
    if is_mutation(&document, operation_name.as_ref().and_then(Value::as_str)) {
        let mut r = error(
            StatusCode::METHOD_NOT_ALLOWED,
            media,
            "Can only perform a mutation operation from a POST request.",
        );
        r.headers_mut().insert(header::ALLOW, HeaderValue::from_static("POST"));
        return Err(Box::new(r));
    }
    let mut fields = serde_json::Map::new();
    fields.insert("query".into(), Value::String(document));
    if let Some(v) = variables {
        fields.insert("variables".into(), v);
    }
    if let Some(n) = operation_name {
        fields.insert("operationName".into(), n);
    }
    Ok(Batch {
        is_batch: false,
        operations: vec![operation_from_json(Value::Object(fields))],
    })
}

/// Whether the operation a GET would run is a mutation. A document that does not parse is left to
/// the executor, which reports the syntax error.
fn is_mutation(document: &str, operation_name: Option<&str>) -> bool {
    // The guard's linear scan first: the parser recurses, and this runs before the guard.
    if guard::prescan(document).is_err() {
        return false;
    }
    let Ok(doc) = guard::parsed::parse(document) else {
        return false;
    };
    match (&doc.operations, operation_name) {
        (DocumentOperations::Single(op), _) => op.node.ty == OperationType::Mutation,
        (DocumentOperations::Multiple(ops), Some(name)) => ops
            .iter()
            .any(|(n, op)| n.as_str() == name && op.node.ty == OperationType::Mutation),
        (DocumentOperations::Multiple(ops), None) => ops.values().any(|op| op.node.ty == OperationType::Mutation),
    }
}
