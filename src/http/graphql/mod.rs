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
//!
//! The software vendors' endpoint `/protected` (and `/api/protected`) follows the same rules with
//! its own schema, and authenticates the vendor (`X-CLIENT-ID` + `X-API-KEY`) instead of a user
//! (see [`Door`]).
//!
//! This module holds the routes, which read the request by method (`get`, `post`) and hands it to
//! `execute`; `prepare` runs the guard on each operation, `response` shapes what the executor
//! answers and `order` puts its keys in the order of the query.

mod execute;
mod get;
mod label;
mod order;
mod post;
mod prepare;
mod response;

use std::sync::Arc;

use serde_json::json;
use warp::Filter;
use warp::http::{HeaderMap, HeaderValue, Method, StatusCode, header};

use super::middleware::ClientIp;
use crate::app::App;
use crate::graphql::Executors;
use crate::graphql::contract::ContractSchema;

use super::body::{MAX_BODY, read_limited};
use super::media::{self, json_bytes_response};
use execute::execute;
use get::from_query_string;
use post::{from_post, parse_body};
use prepare::{Prepared, prepare};

/// Most operations in one batch, as the reference.
pub const MAX_BATCH: usize = 10;

/// Which credentials an endpoint takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Door {
    /// `/api/graphql`: a user's access token (`Authorization: Bearer`), or none.
    Public,
    /// `/protected`: a software vendor's `X-CLIENT-ID` and `X-API-KEY`, on every call.
    Vendors,
}

/// The GraphQL routes.
pub fn routes(
    app: Arc<App>,
    schema: Executors<ContractSchema>,
) -> warp::filters::BoxedFilter<(warp::reply::Response,)> {
    let path = warp::path("api")
        .and(warp::path("graphql"))
        .and(warp::path::end())
        .or(warp::path("graphql").and(warp::path::end()))
        .unify();
    endpoint(path.boxed(), app, schema, &crate::graphql::GUARD_MODEL, Door::Public)
}

/// The software vendors' GraphQL routes, `/protected` and `/api/protected`.
pub fn protected_routes(
    app: Arc<App>,
    schema: Executors<crate::graphql::protected::ProtectedSchema>,
) -> warp::filters::BoxedFilter<(warp::reply::Response,)> {
    let path = warp::path("api")
        .and(warp::path("protected"))
        .and(warp::path::end())
        .or(warp::path("protected").and(warp::path::end()))
        .unify();
    endpoint(
        path.boxed(),
        app,
        schema,
        &crate::graphql::protected::GUARD_MODEL,
        Door::Vendors,
    )
}

fn endpoint<E: async_graphql::Executor + Clone>(
    path: warp::filters::BoxedFilter<()>,
    app: Arc<App>,
    schema: Executors<E>,
    model: &'static crate::graphql::guard::SchemaModel,
    door: Door,
) -> warp::filters::BoxedFilter<(warp::reply::Response,)> {
    path.and(warp::method())
        .and(warp::query::raw().or(warp::any().map(String::new)).unify())
        .and(warp::header::headers_cloned())
        .and(warp::ext::optional::<ClientIp>())
        .and(super::body::deadline())
        .and(warp::body::stream())
        .then(move |method: Method, query: String, headers: HeaderMap, client_ip: Option<ClientIp>, deadline, body| {
            let app = app.clone();
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
                    Ok(batch) => execute(&app, &schema, model, door, &headers, client_ip, batch, media).await,
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

/// What a JSON POST body leads to before anything executes: refused whole (the status), or, per
/// operation, whether it would run. Needs no database: the fuzz target and the property test
/// of the suite drive it with arbitrary bytes.
pub fn preflight(body: &[u8]) -> Result<Vec<bool>, StatusCode> {
    let batch = parse_body(body).map_err(|(status, _)| status)?;
    let (prepared, _) = prepare(&crate::graphql::GUARD_MODEL, batch.operations);
    Ok(prepared.iter().map(|p| matches!(p, Prepared::Run(..))).collect())
}
