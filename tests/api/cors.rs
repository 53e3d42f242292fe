//! Cross-origin access (CORS) and `Allow`: no origin is granted by default; a listed origin's
//! preflight is answered with the methods and headers the API uses and its answers are readable,
//! never with credentials; an unlisted origin gets no `Access-Control-*` header; `--cors-origin`
//! is repeatable and read from `ROADLOG_CORS_ORIGINS`, and refuses what is not an origin. Every
//! 405 names the allowed methods in `Allow`.

use reqwest::header::HeaderMap;
use reqwest::{Method, StatusCode};
use serde_json::json;

use crate::support::process::command;
use crate::support::{Backend, TestApp};

const APP: &str = "https://fleet.example.com";
const OTHER: &str = "https://evil.example.net";

async fn with_origins(origins: &[&str]) -> TestApp {
    let origins: Vec<String> = origins.iter().map(|o| o.to_string()).collect();
    TestApp::spawn_with(Backend::Sqlite, move |s| s.cors_origins = origins).await
}

async fn preflight(app: &TestApp, path: &str, origin: &str) -> (StatusCode, HeaderMap) {
    let response = app
        .client
        .request(Method::OPTIONS, app.url(path))
        .header("origin", origin)
        .header("access-control-request-method", "POST")
        .header("access-control-request-headers", "authorization, content-type")
        .send()
        .await
        .unwrap();
    (response.status(), response.headers().clone())
}

async fn cross_origin_query(app: &TestApp, origin: &str) -> HeaderMap {
    let response = app
        .client
        .post(app.url("/api/graphql"))
        .header("origin", origin)
        .json(&json!({ "query": "{ __typename }" }))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    response.headers().clone()
}

fn cors_headers(headers: &HeaderMap) -> Vec<String> {
    headers
        .keys()
        .map(|k| k.as_str().to_string())
        .filter(|k| k.starts_with("access-control-"))
        .collect()
}

fn list(headers: &HeaderMap, name: &str) -> Vec<String> {
    headers
        .get_all(name)
        .iter()
        .flat_map(|v| {
            v.to_str()
                .unwrap()
                .split(',')
                .map(|s| s.trim().to_ascii_lowercase())
                .collect::<Vec<_>>()
        })
        .collect()
}

tests! {
async fn no_origin_is_granted_by_default() {
    let app = TestApp::spawn(Backend::Sqlite).await;
    let (status, headers) = preflight(&app, "/api/graphql", APP).await;
    assert_eq!(status, StatusCode::METHOD_NOT_ALLOWED, "a preflight is an OPTIONS request like another");
    assert_eq!(headers["allow"], "GET, POST");
    assert!(cors_headers(&headers).is_empty(), "{headers:?}");
    let headers = cross_origin_query(&app, APP).await;
    assert!(cors_headers(&headers).is_empty(), "{headers:?}");
    app.cleanup().await;
}

async fn a_listed_origin_gets_its_preflight_answered_and_its_answers_readable() {
    let app = with_origins(&[APP, "http://localhost:3000"]).await;
    for path in ["/api/graphql", "/graphql", "/companies/generate_tachograph_files", "/schema.graphql"] {
        let (status, headers) = preflight(&app, path, APP).await;
        assert!(status == StatusCode::NO_CONTENT, "{path}: {status}");
        assert_eq!(headers["access-control-allow-origin"], APP, "{path}");
        let methods = list(&headers, "access-control-allow-methods");
        for method in ["get", "post"] {
            assert!(methods.contains(&method.to_string()), "{path}: {methods:?}");
        }
        let allowed = list(&headers, "access-control-allow-headers");
        for header in ["authorization", "content-type"] {
            assert!(allowed.contains(&header.to_string()), "{path}: {allowed:?}");
        }
        assert!(headers.contains_key("access-control-max-age"));
        assert!(!headers.contains_key("access-control-allow-credentials"), "never credentials");
        assert!(list(&headers, "vary").contains(&"origin".to_string()), "{headers:?}");
    }
    let headers = cross_origin_query(&app, APP).await;
    assert_eq!(headers["access-control-allow-origin"], APP);
    assert!(list(&headers, "access-control-expose-headers").contains(&"x-request-id".to_string()));
    assert!(!headers.contains_key("access-control-allow-credentials"));
    assert!(list(&headers, "vary").contains(&"origin".to_string()));
    let (_, headers) = preflight(&app, "/api/graphql", "http://localhost:3000").await;
    assert_eq!(headers["access-control-allow-origin"], "http://localhost:3000");
    app.cleanup().await;
}

async fn an_unlisted_origin_gets_no_grant() {
    let app = with_origins(&[APP]).await;
    for origin in [OTHER, "https://fleet.example.com.evil.example.net", "null", "http://fleet.example.com"] {
        let (status, headers) = preflight(&app, "/api/graphql", origin).await;
        assert_eq!(status, StatusCode::METHOD_NOT_ALLOWED, "{origin}");
        assert!(cors_headers(&headers).is_empty(), "{origin}: {headers:?}");
        let headers = cross_origin_query(&app, origin).await;
        assert!(cors_headers(&headers).is_empty(), "{origin}: {headers:?}");
        assert!(list(&headers, "vary").contains(&"origin".to_string()), "the answer depends on the origin");
    }
    app.cleanup().await;
}

async fn any_origin_is_granted_without_credentials_when_star_is_listed() {
    let app = with_origins(&["*"]).await;
    let (status, headers) = preflight(&app, "/api/graphql", OTHER).await;
    assert_eq!(status, StatusCode::NO_CONTENT);
    assert_eq!(headers["access-control-allow-origin"], "*");
    assert!(!headers.contains_key("access-control-allow-credentials"));
    let headers = cross_origin_query(&app, OTHER).await;
    assert_eq!(headers["access-control-allow-origin"], "*");
    assert!(!headers.contains_key("access-control-allow-credentials"));
    app.cleanup().await;
}

async fn every_405_carries_allow() {
    let app = TestApp::spawn(Backend::Sqlite).await;
    let mut paths: Vec<&str> = roadlog::http::contract::ROUTES.iter().map(|(_, _, p)| *p).collect();
    paths.dedup();
    for path in paths {
        let mut documented: Vec<&str> = roadlog::http::contract::ROUTES
            .iter()
            .filter(|(_, _, p)| *p == path)
            .map(|(_, m, _)| *m)
            .collect();
        documented.sort_unstable();
        let bare = path.strip_prefix("/api").unwrap_or(path);
        for url in [bare.to_string(), format!("/api{bare}")] {
            for method in [Method::PUT, Method::DELETE, Method::PATCH, Method::OPTIONS] {
                let response = app.client.request(method.clone(), app.url(&url)).send().await.unwrap();
                assert_eq!(response.status(), StatusCode::METHOD_NOT_ALLOWED, "{method} {url}");
                assert_eq!(response.headers()["allow"], documented.join(", "), "{method} {url}");
                let body: serde_json::Value = response.json().await.unwrap();
                assert_eq!(body["error_code"], "METHOD_NOT_ALLOWED", "{method} {url}");
            }
        }
    }
    for (method, url, allow) in [
        (Method::PUT, "/api/graphql", "GET, POST"),
        (Method::DELETE, "/graphql", "GET, POST"),
        (Method::POST, "/schema.graphql", "GET, HEAD, OPTIONS"),
        (Method::DELETE, "/api/openapi.json", "GET, HEAD, OPTIONS"),
    ] {
        let response = app.client.request(method.clone(), app.url(url)).send().await.unwrap();
        assert_eq!(response.status(), StatusCode::METHOD_NOT_ALLOWED, "{method} {url}");
        assert_eq!(response.headers()["allow"], allow, "{method} {url}");
    }
    let response = app
        .client
        .get(app.url("/api/graphql"))
        .query(&[("query", "mutation { auth { logout } }")])
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::METHOD_NOT_ALLOWED);
    assert_eq!(response.headers()["allow"], "POST");
    app.cleanup().await;
}

fn cors_origins_are_repeatable_read_from_the_environment_and_checked() {
    let text = |bytes: &[u8]| String::from_utf8_lossy(bytes).into_owned();
    let line = |stdout: &str| {
        stdout
            .lines()
            .find(|l| l.starts_with("--cors-origin "))
            .unwrap_or_else(|| panic!("no --cors-origin in {stdout}"))
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ")
    };
    let output = command(&["config"], &[]).output().unwrap();
    assert!(output.status.success(), "{}", text(&output.stderr));
    assert_eq!(line(&text(&output.stdout)), "--cors-origin (not set) default");
    let output = command(&["config", "--cors-origin", APP, "--cors-origin", "http://localhost:3000"], &[])
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", text(&output.stderr));
    assert_eq!(
        line(&text(&output.stdout)),
        format!("--cors-origin {APP},http://localhost:3000 flag")
    );
    let output = command(&["config"], &[("ROADLOG_CORS_ORIGINS", "https://a.example,https://b.example")])
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", text(&output.stderr));
    assert_eq!(
        line(&text(&output.stdout)),
        "--cors-origin https://a.example,https://b.example environment (ROADLOG_CORS_ORIGINS)"
    );
    let output = command(&["config", "--cors-origin", "https://fleet.example.com/"], &[]).output().unwrap();
    assert!(!output.status.success());
    let stderr = text(&output.stderr);
    assert!(stderr.contains("write \"https://fleet.example.com\""), "{stderr}");
}
}
