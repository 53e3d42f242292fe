//! The guard on each operation of a request (against the model of the endpoint's schema), before anything executes: an operation it refuses
//! answers 400 without running, and the fields that check a password are counted for the whole
//! HTTP request.

use std::sync::Arc;

use async_graphql::parser::types::ExecutableDocument;
use serde_json::{Value, json};

use super::response::readable_syntax_message;
use crate::graphql::guard;

/// An operation ready to run (with its document, which the answer's order and the audit read),
/// or refused before execution.
pub(super) enum Prepared {
    Run(Box<async_graphql::Request>, Arc<ExecutableDocument>),
    Refused(Value),
}

/// Runs the guard on every operation of the batch: a refused operation answers 400 without
/// running; the fields that check a password count for the whole HTTP request.
pub(super) fn prepare(
    model: &guard::SchemaModel,
    batch: Vec<Result<async_graphql::Request, String>>,
) -> (Vec<Prepared>, usize) {
    let limits = &guard::Limits::DEFAULT;
    let mut credential_fields = 0;
    let prepared = batch
        .into_iter()
        .map(|operation| match operation {
            Err(message) => Prepared::Refused(json!({ "errors": [{ "message": message }] })),
            Ok(mut request) => {
                let checked = guard::check(
                    model,
                    limits,
                    &request.query,
                    &request.variables,
                    request.operation_name.as_deref(),
                );
                match checked {
                    Err(refusals) => Prepared::Refused(refused(&refusals)),
                    Ok(checked) if credential_fields + checked.credential_fields > limits.credential_fields => {
                        Prepared::Refused(refused(&[guard::Refusal::new(format!(
                            "At most {} field that checks a password (such as auth.login or signUp.user) may be sent per HTTP request, batches included.",
                            limits.credential_fields
                        ))]))
                    }
                    Ok(checked) => {
                        credential_fields += checked.credential_fields;
                        request.set_parsed_query(ExecutableDocument::clone(&checked.document));
                        Prepared::Run(Box::new(request), checked.document)
                    }
                }
            }
        })
        .collect();
    (prepared, credential_fields)
}

fn refused(refusals: &[guard::Refusal]) -> Value {
    let errors: Vec<Value> = refusals
        .iter()
        .map(|r| {
            let mut error = r.to_json();
            if let Some(message) = error["message"].as_str() {
                error["message"] = Value::String(readable_syntax_message(message));
            }
            error
        })
        .collect();
    json!({ "errors": errors })
}
