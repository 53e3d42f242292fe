//! The HTTP server: GraphQL over HTTP, the REST operations of the OpenAPI file, the JSON
//! answers for requests that match no route, and the middleware and listener around them.

pub mod body;
pub mod export;
mod fallback;
pub mod graphql;
pub mod listener;
pub mod media;
pub mod middleware;
mod rest;

/// REST handler trait, request type and routes generated from `openapi/roadlog.yaml`.
#[allow(clippy::all, missing_docs)]
pub mod contract {
    include!(concat!(env!("OUT_DIR"), "/rest_server.rs"));
}

use std::convert::Infallible;
use std::sync::{Arc, LazyLock};

use warp::Filter;

use crate::graphql::Api;
use crate::graphql::contract::ContractSchema;

pub use rest::RestHandlers;

/// The paths metrics and logs name as routes: the REST operations and GraphQL.
pub(crate) static KNOWN_ROUTES: LazyLock<Vec<&'static str>> = LazyLock::new(|| {
    let mut routes: Vec<&'static str> = contract::ROUTES.iter().map(|(_, _, path)| *path).collect();
    routes.push("/api/graphql");
    routes.sort_unstable();
    routes.dedup();
    routes
});

/// Every route of the service.
pub fn routes(
    api: Arc<Api>,
    schema: ContractSchema,
) -> impl Filter<Extract = (impl warp::Reply,), Error = Infallible> + Clone {
    let rest = contract::routes(Arc::new(RestHandlers { api: api.clone() }));
    graphql::routes(api, schema)
        .or(rest)
        .unify()
        .recover(fallback::recover)
        .unify()
}

/// The service the listener runs: the routes inside the middleware.
pub fn service(
    api: Arc<Api>,
    schema: ContractSchema,
) -> impl tower::Service<
    http::Request<hyper::body::Incoming>,
    Response = warp::reply::Response,
    Error = Infallible,
    Future = impl Send,
> + Clone
+ Send
+ 'static {
    let metrics = api.metrics.clone();
    let body_timeout = api.body_timeout;
    let proxies = Arc::new(api.trusted_proxies.clone());
    middleware::Observe::new(warp::service(routes(api, schema)), metrics, body_timeout, proxies)
}

/// The service of `--metrics-bind`: `GET /metrics` only.
pub fn metrics_service(
    api: Arc<Api>,
) -> impl tower::Service<
    http::Request<hyper::body::Incoming>,
    Response = warp::reply::Response,
    Error = Infallible,
    Future = impl Send,
> + Clone
+ Send
+ 'static {
    let metrics = api.metrics.clone();
    let body_timeout = api.body_timeout;
    let route = warp::path("metrics")
        .and(warp::path::end())
        .and(warp::get())
        .then(move || {
            let api = api.clone();
            async move { rest::metrics_text(&api).await }
        })
        .recover(fallback::recover)
        .unify();
    middleware::Observe::new(warp::service(route), metrics, body_timeout, Arc::new(Vec::new()))
}
