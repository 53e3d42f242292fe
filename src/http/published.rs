//! The published contract, for API clients' tooling: `GET /schema.graphql` (the SDL file, byte for
//! byte), `GET /protected.graphql` (the software vendors' SDL file, byte for byte), `GET /openapi.yaml` (the OpenAPI file, byte for byte), `GET /openapi.json` (the same
//! document as JSON, converted once by the build script), the `/docs` page and the book's pages
//! for API clients under it (`/docs/PAGE`, see `http::book`). Each is built once, when first asked for,
//! with a strong `ETag` (a digest of its bytes), answered `304 Not Modified` to an
//! `If-None-Match` that names it, and revalidated by caches on each use (`Cache-Control:
//! no-cache`): a new deployment is seen at once, an unchanged contract costs a 304.
//! Like every route, each also answers under the `/api` prefix. A path under `/docs/` that names
//! no page is answered `404` with a page that leads to the index.

use std::sync::LazyLock;

use bytes::Bytes;
use sha2::{Digest, Sha256};
use warp::Filter;
use warp::http::{HeaderMap, HeaderValue, Method, StatusCode, header};

use super::media::json_response;

const SDL: &str = include_str!("../../schema/roadlog.graphql");
const PROTECTED_SDL: &str = include_str!("../../schema/protected.graphql");
const OPENAPI_YAML: &str = include_str!("../../openapi/roadlog.yaml");
const OPENAPI_JSON: &str = include_str!(concat!(env!("OUT_DIR"), "/openapi.json"));

/// The paths of the contract served here (the metrics name them as routes, and the book's pages
/// too).
pub const PATHS: [&str; 5] = [
    "/schema.graphql",
    "/openapi.yaml",
    "/openapi.json",
    "/docs",
    "/protected.graphql",
];

/// The methods of every path here.
const ALLOW: &str = "GET, HEAD, OPTIONS";

/// The headers of the `/docs` pages: those the console sends (a Content-Security-Policy, no
/// framing, no referrer), with a policy stricter than the console's since the pages run no
/// script and load nothing: their one style sheet is inline.
const PAGE_HEADERS: [(&str, &str); 3] = [
    (
        "content-security-policy",
        "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'; base-uri 'none'; \
         form-action 'none'",
    ),
    ("x-frame-options", "DENY"),
    ("referrer-policy", "no-referrer"),
];

/// One published document, built once: its bytes, media type and entity tag.
struct Document {
    path: &'static str,
    body: Bytes,
    content_type: &'static str,
    etag: String,
    page: bool,
}

impl Document {
    fn new(path: &'static str, body: impl Into<Bytes>, content_type: &'static str) -> Document {
        let body = body.into();
        let digest = Sha256::digest(&body);
        let etag = format!(
            "\"{}\"",
            digest[..16].iter().map(|b| format!("{b:02x}")).collect::<String>()
        );
        Document {
            path,
            body,
            content_type,
            etag,
            page: false,
        }
    }
}

static DOCUMENTS: LazyLock<Vec<Document>> = LazyLock::new(|| {
    let mut documents = vec![
        // There is no registered media type for SDL text: plain UTF-8 text, which browsers show
        // and every GraphQL tool reads (they go by the `.graphql` extension).
        Document::new(PATHS[0], SDL, "text/plain; charset=utf-8"),
        // RFC 9512.
        Document::new(PATHS[1], OPENAPI_YAML, "application/yaml"),
        Document::new(PATHS[2], OPENAPI_JSON, "application/json"),
        Document {
            page: true,
            ..Document::new(PATHS[3], super::docs_page::render(SDL), "text/html; charset=utf-8")
        },
        Document::new(PATHS[4], PROTECTED_SDL, "text/plain; charset=utf-8"),
    ];
    documents.extend(super::book::documents().into_iter().map(|(path, html)| Document {
        page: true,
        ..Document::new(path, html, "text/html; charset=utf-8")
    }));
    documents
});

/// The answer to a path under `/docs/` that names no page: a page, with the pages' headers.
static MISSING_PAGE: LazyLock<String> = LazyLock::new(|| {
    #[derive(askama::Template)]
    #[template(path = "docs/missing.html")]
    struct Missing;
    askama::Template::render(&Missing).unwrap_or_else(|_| "No such page.".to_string())
});

/// The routes of the published documents.
pub fn routes() -> warp::filters::BoxedFilter<(warp::reply::Response,)> {
    warp::path::full()
        .and_then(|path: warp::path::FullPath| async move {
            let bare = path.as_str().strip_prefix("/api").unwrap_or(path.as_str());
            match DOCUMENTS.iter().position(|document| document.path == bare) {
                Some(index) => Ok(Some(index)),
                None if bare.starts_with("/docs/") => Ok(None),
                None => Err(warp::reject::not_found()),
            }
        })
        .and(warp::method())
        .and(warp::header::headers_cloned())
        .map(|index: Option<usize>, method: Method, headers: HeaderMap| match index {
            Some(index) => serve(&DOCUMENTS[index], &method, &headers),
            None => missing_page(),
        })
        .boxed()
}

/// The paths of the book's pages (the metrics name them as routes).
pub fn page_paths() -> impl Iterator<Item = &'static str> {
    super::book::PAGES.iter().map(|page| page.path)
}

fn missing_page() -> warp::reply::Response {
    let mut response = warp::reply::Response::new(MISSING_PAGE.clone().into());
    *response.status_mut() = StatusCode::NOT_FOUND;
    let out = response.headers_mut();
    out.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/html; charset=utf-8"),
    );
    out.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    for (name, value) in PAGE_HEADERS {
        out.insert(name, HeaderValue::from_static(value));
    }
    response
}

fn serve(document: &Document, method: &Method, headers: &HeaderMap) -> warp::reply::Response {
    if method == Method::OPTIONS {
        let mut response = warp::reply::Response::default();
        *response.status_mut() = StatusCode::NO_CONTENT;
        response
            .headers_mut()
            .insert(header::ALLOW, HeaderValue::from_static(ALLOW));
        return response;
    }
    if method != Method::GET && method != Method::HEAD {
        let mut response = json_response(
            StatusCode::METHOD_NOT_ALLOWED,
            &serde_json::json!({ "error": "Method not allowed on this route", "error_code": "METHOD_NOT_ALLOWED" }),
        );
        response
            .headers_mut()
            .insert(header::ALLOW, HeaderValue::from_static(ALLOW));
        return response;
    }
    let if_none_match = headers.get(header::IF_NONE_MATCH).and_then(|v| v.to_str().ok());
    let (mut response, etag) = match if_none_match.and_then(|tags| matching_tag(tags, &document.etag)) {
        Some(matched) => {
            let mut response = warp::reply::Response::default();
            *response.status_mut() = StatusCode::NOT_MODIFIED;
            (response, matched)
        }
        None => {
            let mut response = warp::reply::Response::new(document.body.clone().into());
            response
                .headers_mut()
                .insert(header::CONTENT_TYPE, HeaderValue::from_static(document.content_type));
            (response, document.etag.clone())
        }
    };
    let out = response.headers_mut();
    if let Ok(etag) = HeaderValue::from_str(&etag) {
        out.insert(header::ETAG, etag);
    }
    out.insert(header::CACHE_CONTROL, HeaderValue::from_static("public, no-cache"));
    // Set on the 304 as well as on the 200: a cache keys the document by its encoding.
    out.insert(header::VARY, HeaderValue::from_static("accept-encoding"));
    if document.page {
        for (name, value) in PAGE_HEADERS {
            out.insert(name, HeaderValue::from_static(value));
        }
    }
    response
}

/// The entity tag of `If-None-Match` that names the document (weak comparison, RFC 9110 §13.1.2),
/// as the client wrote it without `W/`; `*` names any. The tag of a compressed form of the
/// document (`"…-br"`) names it too, and is the one a 304 echoes. `None` when none does.
fn matching_tag(if_none_match: &str, etag: &str) -> Option<String> {
    if if_none_match.trim() == "*" {
        return Some(etag.to_string());
    }
    if_none_match
        .split(',')
        .map(|tag| tag.trim())
        .map(|tag| tag.strip_prefix("W/").unwrap_or(tag))
        .find(|tag| super::compression::strip_coding(tag) == etag)
        .map(str::to_string)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn if_none_match_compares_weakly_and_accepts_lists_and_star() {
        let etag = "\"abc\"";
        assert_eq!(matching_tag("\"abc\"", etag).as_deref(), Some(etag));
        assert_eq!(matching_tag("W/\"abc\"", etag).as_deref(), Some(etag));
        assert_eq!(matching_tag("\"x\", \"abc\"", etag).as_deref(), Some(etag));
        assert_eq!(matching_tag("*", etag).as_deref(), Some(etag));
        assert_eq!(matching_tag("\"abcd\"", etag), None);
        assert_eq!(matching_tag("abc", etag), None);
        assert_eq!(matching_tag("\"abc-br\"", etag).as_deref(), Some("\"abc-br\""));
        assert_eq!(matching_tag("W/\"abc-gzip\"", etag).as_deref(), Some("\"abc-gzip\""));
    }

    #[test]
    fn documents_are_the_files_with_distinct_strong_tags() {
        assert_eq!(DOCUMENTS[0].body.as_ref(), SDL.as_bytes());
        assert_eq!(DOCUMENTS[1].body.as_ref(), OPENAPI_YAML.as_bytes());
        assert_eq!(DOCUMENTS[4].body.as_ref(), PROTECTED_SDL.as_bytes());
        let json: serde_json::Value = serde_json::from_slice(&DOCUMENTS[2].body).unwrap();
        assert_eq!(json["openapi"], "3.0.3");
        for (i, document) in DOCUMENTS.iter().enumerate() {
            assert!(
                document.etag.starts_with('"') && document.etag.len() == 34,
                "{}",
                document.etag
            );
            assert!(DOCUMENTS[i + 1..].iter().all(|other| other.etag != document.etag));
        }
    }
}
