//! What an executed operation answers, shaped as the interface words it: every error with a code,
//! the parent of a failed non-null field nulled, syntax errors readable.

use async_graphql::{ErrorExtensionValues, ServerError};
use serde_json::Value;

use crate::errors::{AppError, Code};

/// Every execution error carries one of the interface's codes: a resolver's [`AppError`] (kept
/// by async-graphql as the error's source) gives its code and extensions, and is logged here,
/// once, when it is internal. Errors raised by async-graphql itself during execution get
/// INTERNAL_ERROR.
pub(super) fn ensure_code(error: &mut ServerError) {
    if let Some(app) = error.source::<AppError>().cloned() {
        app.log_if_internal();
        let extensions = error.extensions.get_or_insert_with(ErrorExtensionValues::default);
        extensions.set("code", app.code.as_str());
        for (key, value) in &app.extensions {
            if let Ok(value) = async_graphql::Value::from_json(value.clone()) {
                extensions.set(*key, value);
            }
        }
        return;
    }
    let has_code = error.extensions.as_ref().is_some_and(|e| e.get("code").is_some());
    if !has_code {
        tracing::error!(message = %error.message, "execution error without a code");
        error
            .extensions
            .get_or_insert_with(ErrorExtensionValues::default)
            .set("code", Code::InternalError.as_str());
    }
}

/// GraphQL nulls the parent of a failed non-null field (§6.4.4 "Handling Field Errors").
/// async-graphql 7 leaves the field out instead. Our generated wrappers turn every failure of a
/// nullable field into `null`, so a key missing at an error's path is a failed non-null field:
/// its parent becomes `null` (the whole `data` when the parent is the root). Every field that
/// returns an object in our schema is nullable, so the propagation stops there.
pub(super) fn null_parents_of_failed_non_null_fields(body: &mut Value) {
    let paths: Vec<Vec<Value>> = body
        .get("errors")
        .and_then(Value::as_array)
        .map(|errors| {
            errors
                .iter()
                .filter_map(|e| e.get("path").and_then(Value::as_array).cloned())
                .collect()
        })
        .unwrap_or_default();
    let Some(data) = body.get_mut("data") else { return };
    for path in paths {
        let Some((Value::String(last), parents)) = path.split_last() else {
            continue;
        };
        let mut pointer = String::new();
        for segment in parents {
            match segment {
                Value::String(key) => pointer.push_str(&format!("/{}", key.replace('~', "~0").replace('/', "~1"))),
                Value::Number(i) => pointer.push_str(&format!("/{i}")),
                _ => {}
            }
        }
        if let Some(parent @ Value::Object(_)) = data.pointer_mut(&pointer)
            && parent.get(last.as_str()).is_none()
        {
            *parent = Value::Null;
        }
    }
}

/// async-graphql words syntax errors as a parser trace (` --> 1:9 … = expected …`); clients
/// get the expectation, and the position stays in `locations`.
pub(super) fn readable_syntax_message(message: &str) -> String {
    if message.trim_start().starts_with("-->")
        && let Some((_, expected)) = message.rsplit_once("= ")
    {
        format!("Syntax Error: {}", expected.trim())
    } else {
        message.to_string()
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    #[test]
    fn failed_non_null_fields_null_their_parent() {
        let mut body = json!({"data": {"me": null}, "errors": [{"path": ["checkAuth"]}, {"path": ["me"]}]});
        super::null_parents_of_failed_non_null_fields(&mut body);
        assert_eq!(body["data"], json!(null));
        let mut body = json!({"data": {"a": {"b": 1}, "c": [{"d": 1}, {"e": 2}]}, "errors": [{"path": ["c", 1, "d"]}]});
        super::null_parents_of_failed_non_null_fields(&mut body);
        assert_eq!(body["data"], json!({"a": {"b": 1}, "c": [{"d": 1}, null]}));
        let mut body = json!({"data": {"me": null}, "errors": [{"path": ["me"]}]});
        super::null_parents_of_failed_non_null_fields(&mut body);
        assert_eq!(body["data"], json!({"me": null}));
    }
}
