//! GraphQL over HTTP at `/api/graphql` (and `/graphql`), with the interface's status rules:
//!
//! | request | answer |
//! |---|---|
//! | body is not JSON | 400 `{"errors":[{"message"}]}` |
//! | syntax, validation, variable or limit error (execution never began) | 400 `{"errors":[…]}`, no `data` |
//! | executed, with or without field errors | 200 `{"data", "errors"}`, every error with `extensions.code` |
//! | JSON array | a batch of at most 10 operations; status = the highest of its operations' |
//! | GET `?query=` | queries only; a mutation is 405 with `Allow: POST` |
//! | other methods | 405 with `Allow: GET, POST` |
//! | body over 10 MiB | 413 |
//! | `Content-Type` not JSON | 415; `Accept` allowing no JSON form: 406 |
//!
//! async-graphql decides none of this by itself, so this module owns it.

use std::sync::Arc;

use async_graphql::parser::types::{DocumentOperations, OperationType};
use async_graphql::{ErrorExtensionValues, ServerError, Variables};
use bytes::Bytes;
use serde_json::{Value, json};
use warp::Filter;
use warp::http::{HeaderMap, HeaderValue, Method, StatusCode, header};

use super::middleware::ClientIp;
use crate::domain::auth::Caller;
use crate::errors::{AppError, Code};
use crate::graphql::contract::ContractSchema;
use crate::graphql::{Api, ExecutionStarted, GUARD_MODEL, guard};

use super::body::{MAX_BODY, read_limited};
use super::media::{self, json_bytes_response};

/// Most operations in one batch, as the reference.
pub const MAX_BATCH: usize = 10;

/// The GraphQL routes.
pub fn routes(api: Arc<Api>, schema: ContractSchema) -> warp::filters::BoxedFilter<(warp::reply::Response,)> {
    let path = warp::path("api")
        .and(warp::path("graphql"))
        .and(warp::path::end())
        .or(warp::path("graphql").and(warp::path::end()))
        .unify();
    path.and(warp::method())
        .and(warp::query::raw().or(warp::any().map(String::new)).unify())
        .and(warp::header::headers_cloned())
        .and(warp::ext::optional::<ClientIp>())
        .and(super::body::deadline())
        .and(warp::body::stream())
        .then(move |method: Method, query: String, headers: HeaderMap, client_ip: Option<ClientIp>, deadline, body| {
            let api = api.clone();
            let schema = schema.clone();
            async move {
                let media = media::negotiate(headers.get(header::ACCEPT).and_then(|v| v.to_str().ok()));
                let Some(media) = media else {
                    return error(StatusCode::NOT_ACCEPTABLE, media::JSON, "Unacceptable Accept header: this endpoint answers application/graphql-response+json or application/json");
                };
                let operations = match method {
                    Method::GET => from_query_string(&query, media),
                    Method::POST => match read_limited(body, MAX_BODY, deadline).await {
                        Ok(body) => from_post(&headers, body, media),
                        Err(e) => {
                            let (status, message) = e.describe();
                            Err(reject(status, media, &message))
                        }
                    },
                    _ => {
                        let mut r = error(StatusCode::METHOD_NOT_ALLOWED, media, "GraphQL only supports GET and POST requests.");
                        r.headers_mut().insert(header::ALLOW, HeaderValue::from_static("GET, POST"));
                        Err(Box::new(r))
                    }
                };
                match operations {
                    Ok(batch) => execute(&api, &schema, &headers, client_ip, batch, media).await,
                    Err(response) => *response,
                }
            }
        })
        .boxed()
}

/// An answer given before any operation runs (boxed: responses are large).
type Rejected = Box<warp::reply::Response>;

/// What the client sent: one operation or a batch, each parsed or refused.
struct Batch {
    is_batch: bool,
    operations: Vec<Result<async_graphql::Request, String>>,
}

fn reject(status: StatusCode, media: &str, message: &str) -> Rejected {
    Box::new(error(status, media, message))
}

fn error(status: StatusCode, media: &str, message: &str) -> warp::reply::Response {
    let body = json!({ "errors": [{ "message": message }] });
    json_bytes_response(status, media, serde_json::to_vec(&body).unwrap_or_default())
}

fn from_post(headers: &HeaderMap, body: Bytes, media: &str) -> Result<Batch, Rejected> {
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
fn parse_body(body: &[u8]) -> Result<Batch, (StatusCode, String)> {
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

/// What a JSON POST body leads to before anything executes: refused whole (the status), or, per
/// operation, whether it would run. Needs no database: the fuzz target and the property test
/// of the suite drive it with arbitrary bytes.
pub fn preflight(body: &[u8]) -> Result<Vec<bool>, StatusCode> {
    let batch = parse_body(body).map_err(|(status, _)| status)?;
    let (prepared, _) = prepare(batch.operations);
    Ok(prepared.iter().map(|p| matches!(p, Prepared::Run(_))).collect())
}

/// Reads `{"query", "variables", "operationName"}`. As in the reference, `variables` may also be
/// a JSON-encoded string.
fn operation_from_json(value: Value) -> Result<async_graphql::Request, String> {
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

fn from_query_string(query: &str, media: &str) -> Result<Batch, Rejected> {
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
    let Ok(doc) = async_graphql::parser::parse_query(document) else {
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

/// An operation ready to run, or refused before execution.
enum Prepared {
    Run(Box<async_graphql::Request>),
    Refused(Value),
}

/// Runs the guard on every operation of the batch: a refused operation answers 400 without
/// running; the fields that check a password count for the whole HTTP request.
fn prepare(batch: Vec<Result<async_graphql::Request, String>>) -> (Vec<Prepared>, usize) {
    let limits = &guard::Limits::DEFAULT;
    let mut credential_fields = 0;
    let prepared = batch
        .into_iter()
        .map(|operation| match operation {
            Err(message) => Prepared::Refused(json!({ "errors": [{ "message": message }] })),
            Ok(mut request) => {
                let checked = guard::check(
                    &GUARD_MODEL,
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
                        request.set_parsed_query(checked.document);
                        Prepared::Run(Box::new(request))
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

async fn execute(
    api: &Api,
    schema: &ContractSchema,
    headers: &HeaderMap,
    client_ip: Option<ClientIp>,
    batch: Batch,
    media: &str,
) -> warp::reply::Response {
    let (prepared, credential_fields) = prepare(batch.operations);
    // A password check costs a slow hash: take its permit before running anything, so that a
    // request that cannot have one soon is refused whole (503) rather than half run.
    let permit = if credential_fields > 0 {
        match crate::domain::auth::password::permit().await {
            Ok(permit) => Some(permit),
            Err(_) => {
                let mut response = error(
                    StatusCode::SERVICE_UNAVAILABLE,
                    media,
                    "The service is busy checking passwords: retry in a moment.",
                );
                response
                    .headers_mut()
                    .insert(header::RETRY_AFTER, HeaderValue::from_static("1"));
                return response;
            }
        }
    } else {
        None
    };
    let run = run_all(api, schema, headers, client_ip, prepared, batch.is_batch, media);
    let mut response = match permit {
        Some(permit) => crate::domain::auth::password::under_permit(permit, run).await,
        None => run.await,
    };
    // Answers may carry tokens (login, sign-up, refresh): never kept by a cache.
    response
        .headers_mut()
        .insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    response
}

async fn run_all(
    api: &Api,
    schema: &ContractSchema,
    headers: &HeaderMap,
    client_ip: Option<ClientIp>,
    prepared: Vec<Prepared>,
    is_batch: bool,
    media: &str,
) -> warp::reply::Response {
    let bearer = Caller::bearer(headers.get(header::AUTHORIZATION).and_then(|v| v.to_str().ok()));
    // Credentials are resolved once per HTTP request, for every operation of a batch.
    let caller = match Caller::resolve(&api.db, &bearer).await {
        Ok(caller) => caller,
        Err(cause) => {
            cause.log_if_internal();
            return error(StatusCode::SERVICE_UNAVAILABLE, media, "The database is unavailable");
        }
    };
    let mut status = StatusCode::OK;
    let mut bodies = Vec::with_capacity(prepared.len());
    for operation in prepared {
        let (op_status, body) = match operation {
            Prepared::Refused(body) => (StatusCode::BAD_REQUEST, body),
            Prepared::Run(request) => {
                let request = *request;
                let started = ExecutionStarted::default();
                let users = crate::graphql::loaders::users::new_loader(&api.db);
                let mut request = request
                    .data(caller.clone())
                    .data(bearer.clone())
                    .data(started.clone())
                    .data(users);
                if let Some(ip) = client_ip {
                    request = request.data(crate::graphql::ClientAddress(ip.0));
                }
                let viewer = caller.user_id().unwrap_or_default();
                let request = crate::graphql::loaders::missions::attach(request, &api.db, viewer);
                let mut response = schema.execute(request).await;
                if started.get() {
                    for error in &mut response.errors {
                        ensure_code(error);
                    }
                    let mut body = serde_json::to_value(&response).unwrap_or(Value::Null);
                    null_parents_of_failed_non_null_fields(&mut body);
                    (StatusCode::OK, body)
                } else {
                    for error in &mut response.errors {
                        error.message = readable_syntax_message(&error.message);
                    }
                    (StatusCode::BAD_REQUEST, json!({ "errors": response.errors }))
                }
            }
        };
        status = status.max(op_status);
        bodies.push(body);
    }
    let body = if is_batch {
        Value::Array(bodies)
    } else {
        bodies.pop().unwrap_or(Value::Null)
    };
    json_bytes_response(status, media, serde_json::to_vec(&body).unwrap_or_default())
}

/// Every execution error carries one of the interface's codes: a resolver's [`AppError`] (kept
/// by async-graphql as the error's source) gives its code and extensions, and is logged here,
/// once, when it is internal. Errors raised by async-graphql itself during execution get
/// INTERNAL_ERROR.
fn ensure_code(error: &mut ServerError) {
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
fn null_parents_of_failed_non_null_fields(body: &mut Value) {
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
fn readable_syntax_message(message: &str) -> String {
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
