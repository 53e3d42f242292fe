//! The HTTP server: GraphQL over HTTP, the REST operations of the OpenAPI file, and the JSON
//! answers for requests that match no route.

pub mod body;
mod fallback;
pub mod graphql;
pub mod media;
mod rest;

/// REST handler trait, request type and routes generated from `openapi/roadlog.yaml`.
#[allow(clippy::all, missing_docs)]
pub mod contract {
    include!(concat!(env!("OUT_DIR"), "/rest_server.rs"));
}

use std::sync::Arc;

use warp::Filter;

use crate::graphql::Api;
use crate::graphql::contract::ContractSchema;

pub use rest::RestHandlers;

/// Every route of the service.
pub fn routes(
    api: Arc<Api>,
    schema: ContractSchema,
) -> impl Filter<Extract = (impl warp::Reply,), Error = std::convert::Infallible> + Clone {
    let rest = contract::routes(Arc::new(RestHandlers { api: api.clone() }));
    graphql::routes(api, schema)
        .or(rest)
        .unify()
        .recover(fallback::recover)
        .unify()
        .with(warp::trace::request())
}
