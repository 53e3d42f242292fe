//! `405 Method Not Allowed` for the REST operations' paths, with the `Allow` header HTTP requires
//! (RFC 9110 §15.5.6): the methods the OpenAPI file documents for that path. The GraphQL route
//! and the published contract files answer their own 405s, with `Allow` too.

use warp::Filter;
use warp::http::{HeaderValue, Method, StatusCode, header};

use super::contract::ROUTES;
use super::media::json_response;

/// The methods of a REST path, with or without the `/api` prefix (every route answers both).
pub fn methods_of(path: &str) -> Vec<&'static str> {
    let bare = |p: &str| p.strip_prefix("/api").unwrap_or(p).to_string();
    let wanted = bare(path);
    let mut methods: Vec<&'static str> = ROUTES
        .iter()
        .filter(|(_, _, route)| bare(route) == wanted)
        .map(|(_, method, _)| *method)
        .collect();
    methods.sort_unstable();
    methods.dedup();
    methods
}

/// Answers a request to a REST path with a method the path does not have. Any other request is
/// rejected as not found, so that the rejection of the route that did match the method (if any)
/// is the one answered.
pub fn method_not_allowed() -> warp::filters::BoxedFilter<(warp::reply::Response,)> {
    warp::path::full()
        .and(warp::method())
        .and_then(|path: warp::path::FullPath, method: Method| async move {
            let methods = methods_of(path.as_str());
            if methods.is_empty() || methods.contains(&method.as_str()) {
                return Err(warp::reject::not_found());
            }
            let mut response = json_response(
                StatusCode::METHOD_NOT_ALLOWED,
                &serde_json::json!({ "error": "Method not allowed on this route", "error_code": "METHOD_NOT_ALLOWED" }),
            );
            if let Ok(allow) = HeaderValue::from_str(&methods.join(", ")) {
                response.headers_mut().insert(header::ALLOW, allow);
            }
            Ok(response)
        })
        .boxed()
}

#[cfg(test)]
mod tests {
    #[test]
    fn methods_are_found_with_and_without_the_prefix() {
        assert_eq!(super::methods_of("/oauth/authorize"), ["GET", "POST"]);
        assert_eq!(super::methods_of("/api/oauth/authorize"), ["GET", "POST"]);
        assert_eq!(super::methods_of("/oauth/token"), ["POST"]);
        assert_eq!(super::methods_of("/api/health"), ["GET"]);
        assert!(super::methods_of("/nowhere").is_empty());
    }
}
