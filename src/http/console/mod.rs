//! The interactive API console: GraphiQL 3 (vendored from npm, see `assets/console/README.md`)
//! at `/console`, and at `GET /api/graphql` (or `/graphql`) when a browser asks for HTML.
//!
//! | request | answer |
//! |---|---|
//! | `GET /console` | the page: `text/html`, the console's Content-Security-Policy, `ETag`, `Cache-Control: no-cache` |
//! | `GET /api/graphql` whose `Accept` prefers `text/html` to every JSON type | the same page, with `Vary: Accept` |
//! | `GET /console/assets/NAME.FINGERPRINT.EXT` | an embedded file, `ETag`, cached for a year as immutable |
//! | `GET /console/assets/NAME.EXT` | the same file, `Cache-Control: no-cache` |
//! | `If-None-Match` naming the current `ETag` | 304, no body |
//!
//! The console is on in both environments; `--console=false` (`ROADLOG_CONSOLE=false`) turns it
//! off, and then `/console` is 404 and `GET /api/graphql` answers JSON whatever `Accept` says.
//! The page talks to `/api/graphql` only; the console's script wraps a 400 answer in an extra
//! `error` field, as the interface contract says.

mod assets;
mod page;

use std::sync::Arc;

use sha2::{Digest, Sha256};
use warp::Filter;
use warp::http::{HeaderMap, HeaderValue, StatusCode, header};

use crate::app::App;

pub use page::CONTENT_SECURITY_POLICY;

/// Where the console is served.
pub const PATH: &str = "/console";

/// The console's routes; every request is refused as not found when the console is off.
pub fn routes(app: Arc<App>) -> warp::filters::BoxedFilter<(warp::reply::Response,)> {
    let enabled = {
        let on = app.console;
        warp::any()
            .and_then(move || async move { if on { Ok(()) } else { Err(warp::reject::not_found()) } })
            .untuple_one()
    };
    let environment = app.environment;
    let page = warp::path("console")
        .and(warp::path::end())
        .and(warp::get())
        .and(warp::header::headers_cloned())
        .map(move |headers: HeaderMap| page_response(environment, &headers));
    let graphql_html = warp::path("api")
        .and(warp::path("graphql"))
        .and(warp::path::end())
        .or(warp::path("graphql").and(warp::path::end()))
        .unify()
        .and(warp::get())
        .and(warp::header::headers_cloned())
        .and_then(move |headers: HeaderMap| async move {
            let accept = headers.get(header::ACCEPT).and_then(|v| v.to_str().ok());
            if !prefers_html(accept) {
                return Err(warp::reject::not_found());
            }
            let mut response = page_response(environment, &headers);
            response
                .headers_mut()
                .insert(header::VARY, HeaderValue::from_static("Accept"));
            Ok(response)
        });
    let asset = warp::path("console")
        .and(warp::path("assets"))
        .and(warp::path::param::<String>())
        .and(warp::path::end())
        .and(warp::get())
        .and(warp::header::headers_cloned())
        .and_then(|name: String, headers: HeaderMap| async move {
            let Some((asset, fingerprinted)) = assets::find(&name) else {
                return Err(warp::reject::not_found());
            };
            let cache = if fingerprinted {
                "public, max-age=31536000, immutable"
            } else {
                "no-cache"
            };
            Ok(cached(
                &headers,
                asset.etag(),
                cache,
                asset.content_type,
                asset.bytes.to_vec(),
            ))
        });
    enabled.and(page.or(graphql_html).unify().or(asset).unify()).boxed()
}

/// The page, with its security headers; 304 when the client holds it already.
fn page_response(environment: crate::config::Environment, headers: &HeaderMap) -> warp::reply::Response {
    let body = page::render(environment, "/api/graphql");
    let digest = Sha256::digest(body.as_bytes());
    let etag = format!(
        "\"{}\"",
        digest[..8].iter().map(|b| format!("{b:02x}")).collect::<String>()
    );
    let mut response = cached(headers, etag, "no-cache", "text/html; charset=utf-8", body.into_bytes());
    let out = response.headers_mut();
    out.insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static(CONTENT_SECURITY_POLICY),
    );
    out.insert(header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY"));
    out.insert(header::REFERRER_POLICY, HeaderValue::from_static("no-referrer"));
    response
}

/// A 200 with the body, or a 304 without it when `If-None-Match` names `etag`.
fn cached(
    headers: &HeaderMap,
    etag: String,
    cache_control: &'static str,
    content_type: &'static str,
    body: Vec<u8>,
) -> warp::reply::Response {
    let matches = headers
        .get_all(header::IF_NONE_MATCH)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .map(|tag| tag.trim())
        .any(|tag| tag == "*" || tag.strip_prefix("W/").unwrap_or(tag) == etag);
    let mut response = if matches {
        let mut r = warp::reply::Response::new(Vec::new().into());
        *r.status_mut() = StatusCode::NOT_MODIFIED;
        r
    } else {
        let mut r = warp::reply::Response::new(body.into());
        r.headers_mut()
            .insert(header::CONTENT_TYPE, HeaderValue::from_static(content_type));
        r
    };
    let out = response.headers_mut();
    if let Ok(value) = HeaderValue::from_str(&etag) {
        out.insert(header::ETAG, value);
    }
    out.insert(header::CACHE_CONTROL, HeaderValue::from_static(cache_control));
    response
}

/// Whether an `Accept` header asks for HTML rather than JSON: `text/html` listed with a
/// quality above that of every JSON type it lists (`*/*` counts for neither). Browsers
/// navigating to the endpoint send `text/html,…,*/*;q=0.8`; API clients send no `Accept`, `*/*`
/// or a JSON type, and keep getting JSON.
pub fn prefers_html(accept: Option<&str>) -> bool {
    let Some(accept) = accept else {
        return false;
    };
    let mut html = 0.0f32;
    let mut json = 0.0f32;
    for range in accept.split(',') {
        let mut parts = range.split(';').map(str::trim);
        let media = parts.next().unwrap_or("").to_ascii_lowercase();
        let quality = parts
            .filter_map(|p| p.strip_prefix("q=").and_then(|q| q.parse::<f32>().ok()))
            .next()
            .unwrap_or(1.0);
        match media.as_str() {
            "text/html" => html = html.max(quality),
            crate::http::media::JSON | crate::http::media::GRAPHQL_RESPONSE => json = json.max(quality),
            _ => {}
        }
    }
    html > 0.0 && html > json
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn browsers_get_the_console_and_api_clients_json() {
        let chromium = "text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,image/apng,*/*;q=0.8,application/signed-exchange;v=b3;q=0.7";
        let firefox = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8";
        assert!(prefers_html(Some(chromium)));
        assert!(prefers_html(Some(firefox)));
        assert!(prefers_html(Some("text/html")));
        assert!(!prefers_html(None));
        assert!(!prefers_html(Some("*/*")));
        assert!(!prefers_html(Some("application/json")));
        assert!(!prefers_html(Some(
            "application/graphql-response+json, application/json;q=0.9"
        )));
        assert!(!prefers_html(Some("application/json, text/html")), "a tie goes to JSON");
        assert!(prefers_html(Some("application/json;q=0.5, text/html")));
        assert!(!prefers_html(Some("text/html;q=0")));
    }
}
