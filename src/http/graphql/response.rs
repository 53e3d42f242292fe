//! What an executed operation answers, shaped as the interface words it: every error with a code,
//! the parent of a failed non-null field nulled, syntax errors readable.

use async_graphql::{ErrorExtensionValues, PathSegment, ServerError, Value as ConstValue};

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
pub(super) fn null_parents_of_failed_non_null_fields(response: &mut async_graphql::Response) {
    let paths: Vec<Vec<PathSegment>> = response
        .errors
        .iter()
        .filter(|e| !e.path.is_empty())
        .map(|e| e.path.clone())
        .collect();
    for path in paths {
        let Some((PathSegment::Field(last), parents)) = path.split_last() else {
            continue;
        };
        if let Some(parent) = value_at(&mut response.data, parents)
            && let ConstValue::Object(fields) = parent
            && !fields.contains_key(last.as_str())
        {
            *parent = ConstValue::Null;
        }
    }
}

/// The value at a response path, if there is one.
fn value_at<'a>(value: &'a mut ConstValue, path: &[PathSegment]) -> Option<&'a mut ConstValue> {
    let Some((first, rest)) = path.split_first() else {
        return Some(value);
    };
    let next = match (first, value) {
        (PathSegment::Field(key), ConstValue::Object(fields)) => fields.get_mut(key.as_str())?,
        (PathSegment::Index(i), ConstValue::List(items)) => items.get_mut(*i)?,
        _ => return None,
    };
    value_at(next, rest)
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
    use async_graphql::{PathSegment, Response, ServerError, Value};
    use serde_json::json;

    fn response(data: serde_json::Value, paths: &[&[PathSegment]]) -> Response {
        let mut response = Response::new(Value::from_json(data).unwrap());
        response.errors = paths
            .iter()
            .map(|path| {
                let mut error = ServerError::new("failed", None);
                error.path = path.to_vec();
                error
            })
            .collect();
        response
    }

    fn field(name: &str) -> PathSegment {
        PathSegment::Field(name.to_string())
    }

    #[test]
    fn failed_non_null_fields_null_their_parent() {
        let mut body = response(json!({"me": null}), &[&[field("checkAuth")], &[field("me")]]);
        super::null_parents_of_failed_non_null_fields(&mut body);
        assert_eq!(body.data, Value::Null);
        let mut body = response(
            json!({"a": {"b": 1}, "c": [{"d": 1}, {"e": 2}]}),
            &[&[field("c"), PathSegment::Index(1), field("d")]],
        );
        super::null_parents_of_failed_non_null_fields(&mut body);
        assert_eq!(
            body.data.into_json().unwrap(),
            json!({"a": {"b": 1}, "c": [{"d": 1}, null]})
        );
        let mut body = response(json!({"me": null}), &[&[field("me")]]);
        super::null_parents_of_failed_non_null_fields(&mut body);
        assert_eq!(body.data.into_json().unwrap(), json!({"me": null}));
    }
}
