//! The published contract: `/schema.graphql` and `/openapi.yaml` are the repository's files byte
//! for byte, `/openapi.json` the same document as JSON, each with a strong `ETag` honoured by
//! `If-None-Match`; the `/docs` page they and the OAuth metadata link to describes every custom
//! scalar the SDL points it at.

use std::path::Path;

use reqwest::StatusCode;
use reqwest::header::{HeaderMap, HeaderValue};
use serde_json::Value;

use crate::support::{Backend, TestApp};

fn repo_file(path: &str) -> Vec<u8> {
    std::fs::read(Path::new(env!("CARGO_MANIFEST_DIR")).join(path)).unwrap()
}

fn header<'a>(headers: &'a HeaderMap, name: &str) -> &'a str {
    headers
        .get(name)
        .map(|v| v.to_str().unwrap())
        .unwrap_or_else(|| panic!("no {name} header in {headers:?}"))
}

async fn get(app: &TestApp, path: &str, if_none_match: Option<&str>) -> (StatusCode, HeaderMap, Vec<u8>) {
    let mut request = app.client.get(app.url(path));
    if let Some(tag) = if_none_match {
        request = request.header("if-none-match", tag);
    }
    let response = request.send().await.unwrap();
    let status = response.status();
    let headers = response.headers().clone();
    (status, headers, response.bytes().await.unwrap().to_vec())
}

tests! {
async fn contract_files_are_served_byte_for_byte_with_strong_etags() {
    let app = TestApp::spawn(Backend::Sqlite).await;
    let json_text = std::fs::read(Path::new(env!("OUT_DIR")).join("openapi.json")).unwrap();
    let cases = [
        ("/schema.graphql", repo_file("schema/roadlog.graphql"), "text/plain; charset=utf-8"),
        ("/openapi.yaml", repo_file("openapi/roadlog.yaml"), "application/yaml"),
        ("/openapi.json", json_text, "application/json"),
    ];
    let mut tags = Vec::new();
    for (path, expected, content_type) in cases {
        for url in [path.to_string(), format!("/api{path}")] {
            let (status, headers, body) = get(&app, &url, None).await;
            assert_eq!(status, StatusCode::OK, "{url}");
            assert!(body == expected, "{url} is not the published file");
            assert_eq!(header(&headers, "content-type"), content_type, "{url}");
            assert_eq!(header(&headers, "cache-control"), "public, no-cache", "{url}");
            assert_eq!(header(&headers, "vary").to_ascii_lowercase(), "accept-encoding", "{url}");
            let etag = header(&headers, "etag").to_string();
            assert!(etag.starts_with('"') && etag.ends_with('"') && etag.len() > 20, "strong tag: {etag}");
            tags.push(etag);
        }
    }
    assert_eq!(tags[0], tags[1], "the same document under /api");
    assert!(tags[0] != tags[2] && tags[2] != tags[4] && tags[0] != tags[4], "{tags:?}");

    // The JSON form: the document's keys in the file's order, every path of the contract.
    let (_, _, body) = get(&app, "/openapi.json", None).await;
    let text = String::from_utf8(body).unwrap();
    assert!(text.trim_start().starts_with("{\n  \"openapi\": \"3.0.3\",\n  \"info\""), "{}", &text[..80]);
    let json: Value = serde_json::from_str(&text).unwrap();
    for (operation, method, path) in roadlog::http::contract::ROUTES {
        assert!(
            json["paths"][path][method.to_ascii_lowercase()]["operationId"].is_string(),
            "{operation}: {method} {path} missing from /openapi.json"
        );
    }
    app.cleanup().await;
}

async fn if_none_match_with_the_etag_answers_304_without_a_body() {
    let app = TestApp::spawn(Backend::Sqlite).await;
    for path in ["/schema.graphql", "/openapi.yaml", "/openapi.json", "/docs"] {
        let (_, headers, _) = get(&app, path, None).await;
        let etag = header(&headers, "etag").to_string();
        for tag in [etag.clone(), format!("W/{etag}"), format!("\"other\", {etag}"), "*".to_string()] {
            let (status, headers, body) = get(&app, path, Some(&tag)).await;
            assert_eq!(status, StatusCode::NOT_MODIFIED, "{path} with {tag}");
            assert!(body.is_empty(), "{path}: a 304 has no body");
            assert_eq!(header(&headers, "etag"), etag, "{path} with {tag}");
            assert_eq!(header(&headers, "cache-control"), "public, no-cache");
            assert_eq!(header(&headers, "vary").to_ascii_lowercase(), "accept-encoding");
        }
        let (status, _, body) = get(&app, path, Some("\"stale\"")).await;
        assert_eq!(status, StatusCode::OK, "{path}: another tag gets the document");
        assert!(!body.is_empty());
    }
    app.cleanup().await;
}

async fn contract_routes_answer_head_and_options_and_refuse_other_methods_with_allow() {
    let app = TestApp::spawn(Backend::Sqlite).await;
    let response = app.client.head(app.url("/schema.graphql")).send().await.unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    assert!(response.headers().contains_key("etag"));
    assert!(response.bytes().await.unwrap().is_empty());
    let response = app
        .client
        .request(reqwest::Method::OPTIONS, app.url("/openapi.json"))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::NO_CONTENT);
    assert_eq!(header(response.headers(), "allow"), "GET, HEAD, OPTIONS");
    for method in [reqwest::Method::POST, reqwest::Method::PUT, reqwest::Method::DELETE] {
        let response = app.client.request(method.clone(), app.url("/openapi.yaml")).send().await.unwrap();
        assert_eq!(response.status(), StatusCode::METHOD_NOT_ALLOWED, "{method}");
        assert_eq!(header(response.headers(), "allow"), "GET, HEAD, OPTIONS", "{method}");
        let body: Value = response.json().await.unwrap();
        assert_eq!(body["error_code"], "METHOD_NOT_ALLOWED");
    }
    app.cleanup().await;
}

async fn docs_page_describes_every_scalar_and_the_oauth_metadata_links_it() {
    let app = TestApp::spawn(Backend::Sqlite).await;
    let metadata: Value = app
        .client
        .get(app.url("/.well-known/oauth-authorization-server"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(metadata["service_documentation"], app.url("/docs"));

    let (status, headers, body) = get(&app, "/docs", None).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(header(&headers, "content-type"), "text/html; charset=utf-8");
    assert!(header(&headers, "content-security-policy").contains("default-src 'none'"));
    assert_eq!(headers.get("x-frame-options"), Some(&HeaderValue::from_static("DENY")));
    let page = String::from_utf8(body).unwrap();
    for link in ["href=\"/schema.graphql\"", "href=\"/openapi.yaml\"", "href=\"/openapi.json\""] {
        assert!(page.contains(link), "{link}");
    }
    // Every custom scalar has a @specifiedBy URL: a standard's, or an anchor of this page that
    // exists and describes it.
    let sdl = String::from_utf8(repo_file("schema/roadlog.graphql")).unwrap();
    let document = async_graphql::parser::parse_schema(&sdl).unwrap();
    let mut scalars = 0;
    for definition in document.definitions {
        let async_graphql::parser::types::TypeSystemDefinition::Type(ty) = definition else {
            continue;
        };
        let ty = ty.node;
        if !matches!(ty.kind, async_graphql::parser::types::TypeKind::Scalar) {
            continue;
        }
        scalars += 1;
        let name = ty.name.node.to_string();
        let url = ty
            .directives
            .iter()
            .find(|d| d.node.name.node == "specifiedBy")
            .and_then(|d| d.node.get_argument("url"))
            .map(|v| v.node.to_string())
            .unwrap_or_else(|| panic!("{name} has no @specifiedBy"));
        let url = url.trim_matches('"');
        assert!(
            url.starts_with("https://") || url == format!("/docs#{name}"),
            "{name}: {url}"
        );
        assert!(page.contains(&format!("<h3 id=\"{name}\">")), "{name} is not described on /docs");
        assert!(ty.description.is_some_and(|d| d.node.len() > 40), "{name} has no description");
    }
    assert_eq!(scalars, 17);
    assert!(page.contains("<code>drive</code>"), "the descriptions' values are shown as code");
    app.cleanup().await;
}
}
