//! Execution of the operations that passed the guard: the password-hashing permit, the caller
//! resolved once per HTTP request, each operation run with its request data, and the status of
//! the answer (the highest of its operations').

use serde_json::{Value, json};
use warp::http::{HeaderMap, HeaderValue, StatusCode, header};

use super::order::reorder;
use super::prepare::{Prepared, prepare};
use super::response::{ensure_code, null_parents_of_failed_non_null_fields, readable_syntax_message};
use super::{Batch, Door, error};
use crate::app::App;
use crate::db::Db;
use crate::domain::auth::Caller;
use crate::domain::auth::caller::Credentials;
use crate::domain::auth::password::Hashing;
use crate::domain::vendors::api_keys::{self, Vendor};
use crate::domain::vendors::audit;
use crate::graphql::loaders::Loaders;
use crate::graphql::loaders::regulation::AlertStash;
use crate::graphql::{Executors, RequestData};
use crate::http::media::json_bytes_response;
use crate::http::middleware::ClientIp;

#[allow(clippy::too_many_arguments)]
pub(super) async fn execute<E: async_graphql::Executor>(
    app: &App,
    schema: &Executors<E>,
    model: &crate::graphql::guard::SchemaModel,
    door: Door,
    headers: &HeaderMap,
    client_ip: Option<ClientIp>,
    batch: Batch,
    media: &str,
) -> warp::reply::Response {
    let (prepared, credential_fields) = prepare(model, batch.operations);
    // A password check costs a slow hash: take its permit before running anything, so that a
    // request that cannot have one soon is refused whole (503) rather than half run.
    let hashing = if credential_fields > 0 {
        match Hashing::permit().await {
            Ok(hashing) => hashing,
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
        Hashing::queued()
    };
    // Boxed: the operations' future is some ten kilobytes, which every layer above this one
    // (warp's boxed filters, the middleware, hyper's service call) would otherwise move.
    let run = Box::pin(run_all(
        app,
        schema,
        door,
        headers,
        client_ip,
        prepared,
        batch.is_batch,
        media,
        hashing,
    ));
    let mut response = run.await;
    // Answers may carry tokens (login, sign-up, refresh): never kept by a cache.
    response
        .headers_mut()
        .insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    response
}

#[allow(clippy::too_many_arguments)]
async fn run_all<E: async_graphql::Executor>(
    app: &App,
    schema: &Executors<E>,
    door: Door,
    headers: &HeaderMap,
    client_ip: Option<ClientIp>,
    prepared: Vec<Prepared>,
    is_batch: bool,
    media: &str,
    hashing: Hashing,
) -> warp::reply::Response {
    // Every statement of the request (its caller, resolvers, loaders, audit) on one connection.
    let db = app.db.for_request();
    // Credentials are resolved once per HTTP request, for every operation of a batch. A vendor
    // acts as no user: its identity goes in the request data instead.
    let (credentials, vendor) = match door {
        Door::Public => (crate::http::credentials::read(headers), None),
        Door::Vendors => match vendor(app, &db, headers).await {
            Ok(Ok(vendor)) => (Credentials::default(), Some(vendor)),
            Ok(Err(refusal)) => return refused_vendor(&prepared, is_batch, media, refusal),
            Err(cause) => {
                cause.log_if_internal();
                return error(StatusCode::SERVICE_UNAVAILABLE, media, "The database is unavailable");
            }
        },
    };
    let bearer = credentials.bearer.clone();
    let mut caller = match Caller::resolve(&db, &credentials).await {
        Ok(caller) => caller,
        Err(cause) => {
            cause.log_if_internal();
            return error(StatusCode::SERVICE_UNAVAILABLE, media, "The database is unavailable");
        }
    };
    // A software vendor's requests, with its API key or its employees' tokens, share one quota.
    let vendor_client = vendor
        .as_ref()
        .map(|v| v.client_id)
        .or(caller.employment().map(|g| g.client_id));
    if let (Some(client_id), Some(limiter)) = (vendor_client, &app.vendor_limiter)
        && let Err(seconds) = limiter.check_id(client_id)
    {
        return too_many_requests(media, seconds);
    }
    let mut status = StatusCode::OK;
    let mut bodies = Vec::with_capacity(prepared.len());
    for operation in prepared {
        let (op_status, body) = match operation {
            Prepared::Refused(body) => (StatusCode::BAD_REQUEST, Answer::Refused(body)),
            Prepared::Run(request, document) => {
                let request = *request;
                // The answer's order is rebuilt from the document (the executor does not keep it).
                let variables = request.variables.clone();
                let operation_name = request.operation_name.clone();
                // The user's row read with the token answers `me` until a mutation runs: from
                // then on, the request's operations read it again.
                let is_mutation = super::label::is_mutation(&document, operation_name.as_deref());
                if is_mutation {
                    caller = caller.without_account();
                }
                let refusals = crate::graphql::Refusals::default();
                // The language of the e-mails a mutation sends to the caller (sign-up).
                let accept_language = headers.get(header::ACCEPT_LANGUAGE).and_then(|v| v.to_str().ok());
                let request = request.data(RequestData {
                    db: db.clone(),
                    hashing: hashing.clone(),
                    caller: caller.clone(),
                    bearer: bearer.clone(),
                    refusals: refusals.clone(),
                    vendor: vendor.clone(),
                    client: client_ip.map(|ip| crate::graphql::ClientAddress(ip.0)),
                    lang: crate::i18n::Lang::negotiate(accept_language),
                    stated_lang: crate::i18n::Lang::stated(accept_language),
                    loaders: Loaders::new(&db, caller.actor().ok()),
                    alerts: AlertStash::default(),
                });
                let executor = schema.for_operation(is_mutation);
                let mut response = executor.execute(request).await;
                let started = executed(&response);
                // Software acting for an employee leaves a trace for the company's admins.
                if let (Some(grant), true) = (caller.employment(), started) {
                    let operation = super::label::operation(&document, operation_name.as_deref());
                    let credential = audit::Credential::EmploymentToken(grant.link_id);
                    audit::record_or_log(&db, grant.client_id, grant.company_id, credential, &operation).await;
                }
                response.errors.extend(refusals.take());
                if started {
                    for error in &mut response.errors {
                        ensure_code(error);
                    }
                    null_parents_of_failed_non_null_fields(&mut response);
                    reorder(&mut response.data, &document, operation_name.as_deref(), &variables);
                    (StatusCode::OK, Answer::Executed(response))
                } else {
                    for error in &mut response.errors {
                        error.message = readable_syntax_message(&error.message);
                    }
                    (
                        StatusCode::BAD_REQUEST,
                        Answer::Refused(json!({ "errors": response.errors })),
                    )
                }
            }
        };
        status = status.max(op_status);
        bodies.push(body);
    }
    let body = if is_batch {
        serde_json::to_vec(&bodies)
    } else {
        serde_json::to_vec(&bodies.pop().unwrap_or(Answer::Refused(Value::Null)))
    };
    json_bytes_response(status, media, body.unwrap_or_default())
}

/// Whether the executor began executing the operation. GraphQL says a request that fails before
/// execution (validation, an unknown operation) has no `data` at all, and we answer it with 400;
/// once execution began, errors are field errors and the answer is 200 with `data`. async-graphql
/// answers the first kind with errors that have no path and `data` null; once it executes, `data`
/// is the root object, or null because a non-null root field failed — whose error has a path
/// (every field error gets one). No extension needed to tell them apart (see `build_schema`).
fn executed(response: &async_graphql::Response) -> bool {
    !matches!(response.data, async_graphql::Value::Null) || response.errors.iter().any(|e| !e.path.is_empty())
}

/// What one operation answers. An executed operation is serialised straight from the executor's
/// response, its objects put in the order of the query's fields (`order`; GraphQL §7.1), never
/// through `serde_json::Value`, whose maps are sorted alphabetically: `data`, then `errors` and
/// `extensions` when there are any.
enum Answer {
    Executed(async_graphql::Response),
    Refused(Value),
}

impl serde::Serialize for Answer {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        match self {
            Answer::Refused(body) => body.serialize(serializer),
            Answer::Executed(response) => {
                let mut map = serializer.serialize_map(None)?;
                map.serialize_entry("data", &response.data)?;
                if !response.errors.is_empty() {
                    map.serialize_entry("errors", &response.errors)?;
                }
                if !response.extensions.is_empty() {
                    map.serialize_entry("extensions", &response.extensions)?;
                }
                map.end()
            }
        }
    }
}

/// 429 for a software vendor over its rate: nothing runs; `Retry-After` says when to retry.
fn too_many_requests(media: &str, seconds: u64) -> warp::reply::Response {
    let mut response = error(
        StatusCode::TOO_MANY_REQUESTS,
        media,
        &format!("Too many requests from this client: retry in {seconds} s"),
    );
    if let Ok(value) = HeaderValue::from_str(&seconds.to_string()) {
        response.headers_mut().insert(header::RETRY_AFTER, value);
    }
    response
}

/// The vendor that `X-CLIENT-ID` and `X-API-KEY` name, or the message of the refusal (the
/// reference's, in its order: both headers are required, then the key must be one of that
/// client's).
async fn vendor(
    app: &App,
    db: &Db,
    headers: &HeaderMap,
) -> Result<Result<Vendor, &'static str>, crate::errors::AppError> {
    let header = |name: &str| headers.get(name).and_then(|v| v.to_str().ok()).map(str::trim);
    let (Some(client), Some(key)) = (header("x-client-id"), header("x-api-key")) else {
        return Ok(Err("Missing X-CLIENT-ID or X-API-KEY header"));
    };
    if client.is_empty() || key.is_empty() {
        return Ok(Err("Missing X-CLIENT-ID or X-API-KEY header"));
    }
    Ok(api_keys::authenticate(db, app.environment, client, key)
        .await?
        .ok_or("Invalid API Key"))
}

/// The answer to operations without valid vendor credentials: as the reference, a GraphQL
/// error with HTTP 200 for each operation that passed the guard (nothing runs), 400 for the
/// others.
fn refused_vendor(prepared: &[Prepared], is_batch: bool, media: &str, message: &str) -> warp::reply::Response {
    let mut status = StatusCode::OK;
    let mut bodies: Vec<Value> = prepared
        .iter()
        .map(|operation| match operation {
            Prepared::Refused(body) => {
                status = StatusCode::BAD_REQUEST;
                body.clone()
            }
            Prepared::Run(..) => json!({
                "data": null,
                "errors": [{ "message": message, "extensions": { "code": "AUTHENTICATION_ERROR" } }],
            }),
        })
        .collect();
    let body = if is_batch {
        serde_json::to_vec(&bodies)
    } else {
        serde_json::to_vec(&bodies.pop().unwrap_or(Value::Null))
    };
    json_bytes_response(status, media, body.unwrap_or_default())
}
