//! The HTTP transport: the listener, the middleware, GraphQL over HTTP, the REST contract
//! generated from the OpenAPI file, the export handler, body limits, media types and the
//! answers for requests that match no route, and the interactive console. The routes are put together in `crate::routes`.

pub mod body;
pub mod console;
pub mod export;
pub mod fallback;
pub mod graphql;
pub mod listener;
pub mod media;
pub mod middleware;

/// REST handler trait, request type and routes generated from `openapi/roadlog.yaml`.
#[allow(clippy::all, missing_docs)]
pub mod contract {
    include!(concat!(env!("OUT_DIR"), "/rest_server.rs"));
}

use std::sync::LazyLock;

/// The paths metrics and logs name as routes: the REST operations and GraphQL.
pub(crate) static KNOWN_ROUTES: LazyLock<Vec<&'static str>> = LazyLock::new(|| {
    let mut routes: Vec<&'static str> = contract::ROUTES.iter().map(|(_, _, path)| *path).collect();
    routes.push("/api/graphql");
    routes.sort_unstable();
    routes.dedup();
    routes
});
