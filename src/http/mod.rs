//! The HTTP transport: the listener, the middleware, GraphQL over HTTP, the REST contract
//! generated from the OpenAPI file, the export handler, the published contract files and the
//! book's pages for API clients, body limits, media types, the answers for requests that match no
//! route, and the interactive console. The routes are put together in `crate::routes`.

pub mod allow;
pub mod api_error;
pub mod attachment;
pub mod body;
mod book;
pub mod compression;
pub mod console;
pub mod cookies;
pub mod cors;
pub mod credentials;
mod docs_page;
pub mod export;
pub mod fallback;
pub mod graphql;
pub mod listener;
pub mod media;
pub mod middleware;
pub mod pdf_exports;
pub mod published;
pub mod refused_cgu;
pub mod report_jobs;
pub mod reports;
pub mod session_tokens;
pub mod signature_check;
pub mod streamed;

/// REST handler trait, request type and routes generated from `openapi/roadlog.yaml`.
#[allow(clippy::all, missing_docs)]
pub mod contract {
    include!(concat!(env!("OUT_DIR"), "/rest_server.rs"));
}

use std::sync::LazyLock;

/// The paths metrics and logs name as routes: the REST operations, GraphQL, the published
/// contract and the pages of `/docs`.
pub(crate) static KNOWN_ROUTES: LazyLock<Vec<&'static str>> = LazyLock::new(|| {
    let mut routes: Vec<&'static str> = contract::ROUTES.iter().map(|(_, _, path)| *path).collect();
    routes.push("/api/graphql");
    routes.push("/protected");
    routes.extend(published::PATHS);
    routes.extend(published::page_paths());
    routes.sort_unstable();
    routes.dedup();
    routes
});
