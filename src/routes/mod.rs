//! The service's routes, put together: GraphQL over HTTP, the REST operations (the
//! implementation of the generated handler trait, dispatching to the export, OAuth and service
//! handlers) and the fallback, inside the middleware. This is the composition root of the
//! transports: `http` and `oauth` do not know each other, this module knows both.

mod rest;
mod sync_employee;

use std::convert::Infallible;
use std::sync::Arc;

use warp::Filter;

use crate::app::App;
use crate::graphql::Executors;
use crate::graphql::contract::ContractSchema;

pub use rest::RestHandlers;

use crate::http::{allow, compression, console, contract, cors, fallback, graphql, middleware, published};

/// Every route of the service.
pub fn routes(
    app: Arc<App>,
    schema: Executors<ContractSchema>,
) -> impl Filter<Extract = (impl warp::Reply,), Error = Infallible> + Clone {
    let rest = contract::routes(Arc::new(RestHandlers { app: app.clone() }));
    let app_pages = app.clone();
    let protected = graphql::protected_routes(app.clone(), crate::graphql::protected::build_executors(app.clone()));
    // The console first: it takes `GET /api/graphql` from browsers asking for HTML.
    console::routes(app.clone())
        .or(graphql::routes(app, schema))
        .unify()
        .or(protected)
        .unify()
        .or(rest)
        .unify()
        .or(published::routes())
        .unify()
        .or(crate::pages::routes(app_pages))
        .unify()
        .or(allow::method_not_allowed())
        .unify()
        .recover(fallback::recover)
        .unify()
}

/// The service the listener runs: the routes behind the CORS policy, inside the middleware,
/// their answers compressed as the client accepts.
pub fn service(
    app: Arc<App>,
    schema: Executors<ContractSchema>,
) -> impl tower::Service<
    http::Request<hyper::body::Incoming>,
    Response = http::Response<
        impl http_body::Body<Data = bytes::Bytes, Error = impl Into<Box<dyn std::error::Error + Send + Sync>>>
        + Send
        + 'static,
    >,
    Error = Infallible,
    Future = impl Send,
> + Clone
+ Send
+ 'static {
    let metrics = app.metrics.clone();
    let body_timeout = app.body_timeout;
    let proxies = Arc::new(app.trusted_proxies.clone());
    let cors = cors::CorsPolicy::new(&app.cors_origins);
    compression::compress(middleware::around(
        cors::Cors::new(warp::service(routes(app, schema)), cors),
        metrics,
        body_timeout,
        proxies,
    ))
}

/// The service of `--metrics-bind`: `GET /metrics` only.
pub fn metrics_service(
    app: Arc<App>,
) -> impl tower::Service<
    http::Request<hyper::body::Incoming>,
    Response = http::Response<middleware::Body>,
    Error = Infallible,
    Future = impl Send,
> + Clone
+ Send
+ 'static {
    let metrics = app.metrics.clone();
    let body_timeout = app.body_timeout;
    let route = warp::path("metrics")
        .and(warp::path::end())
        .and(warp::get())
        .then(move || {
            let app = app.clone();
            async move { rest::metrics_text(&app).await }
        })
        .recover(fallback::recover)
        .unify();
    middleware::around(warp::service(route), metrics, body_timeout, Arc::new(Vec::new()))
}
