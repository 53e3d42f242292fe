//! The interactive console (GraphiQL) on the wire: the page and its Content-Security-Policy,
//! the embedded files (types, checksums, `ETag`, 304, cache lifetimes), `GET /api/graphql`
//! answering HTML to browsers and JSON to API clients, and the flag that turns it off, through
//! the real binary. The console in a real browser is in `console_browser.rs`.

use reqwest::StatusCode;
use serde_json::{Value, json};
use sha2::{Digest, Sha256};

use crate::support::process::ServerProcess;
use crate::support::{Backend, TestApp, cleanup};

/// What Chromium sends when it navigates to a page.
pub const BROWSER_ACCEPT: &str = "text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,image/apng,*/*;q=0.8,application/signed-exchange;v=b3;q=0.7";

const SHA256SUMS: &str = include_str!("../../assets/console/vendor/SHA256SUMS");

fn header<'a>(response: &'a reqwest::Response, name: &str) -> &'a str {
    response
        .headers()
        .get(name)
        .and_then(|v| v.to_str().ok())
        .unwrap_or_else(|| panic!("no {name} header in {:?}", response.headers()))
}

/// The `src` and `href` values of a page.
fn links(page: &str) -> Vec<String> {
    let mut found = Vec::new();
    for attribute in ["src=\"", "href=\""] {
        for (start, _) in page.match_indices(attribute) {
            let rest = &page[start + attribute.len()..];
            found.push(rest[..rest.find('"').unwrap()].to_string());
        }
    }
    found
}

async fn get(app_url: &str, accept: Option<&str>) -> reqwest::Response {
    let mut request = reqwest::Client::new().get(app_url);
    if let Some(accept) = accept {
        request = request.header("accept", accept);
    }
    request.send().await.unwrap()
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

tests! {
    async fn console_page_is_served_with_a_policy_that_allows_this_origin_only() {
        let app = TestApp::spawn(Backend::Sqlite).await;
        let response = get(&app.url("/console"), Some(BROWSER_ACCEPT)).await;
        assert_eq!(response.status(), StatusCode::OK);
        assert_eq!(header(&response, "content-type"), "text/html; charset=utf-8");
        let policy = header(&response, "content-security-policy").to_string();
        let directives: Vec<&str> = policy.split(';').map(str::trim).collect();
        for directive in [
            "default-src 'none'",
            "script-src 'self'",
            "connect-src 'self'",
            "img-src 'self' data:",
            "font-src 'self' data:",
            "frame-ancestors 'none'",
            "base-uri 'none'",
            "form-action 'none'",
        ] {
            assert!(directives.contains(&directive), "{directive} missing from {policy}");
        }
        // Nothing but this origin (and data: URLs for GraphiQL's fonts and icons) anywhere.
        for directive in &directives {
            for source in directive.split_whitespace().skip(1) {
                assert!(
                    ["'self'", "'none'", "data:", "'unsafe-inline'"].contains(&source),
                    "{source} in {policy}"
                );
            }
            if directive.contains("'unsafe-inline'") {
                assert!(directive.starts_with("style-src "), "inline code only for styles: {policy}");
            }
        }
        assert_eq!(header(&response, "x-frame-options"), "DENY");
        assert_eq!(header(&response, "referrer-policy"), "no-referrer");
        assert_eq!(header(&response, "cache-control"), "no-cache");
        let etag = header(&response, "etag").to_string();
        let page = response.text().await.unwrap();
        assert!(page.contains(">SANDBOX<"), "{page}");
        assert!(page.contains("id=\"roadlog-token\""), "the token field: {page}");
        assert!(page.contains("data-endpoint=\"/api/graphql\""), "{page}");
        assert!(!page.contains("<script>") && !page.contains("<style"), "no inline code: {page}");
        let links = links(&page);
        assert!(links.len() >= 6, "{links:?}");
        for link in &links {
            assert!((link.starts_with('/') && !link.starts_with("//")) || link.starts_with("data:"), "{link}");
        }
        // The page again, with its ETag: 304 and no body.
        let again = reqwest::Client::new()
            .get(app.url("/console"))
            .header("if-none-match", &etag)
            .send()
            .await
            .unwrap();
        assert_eq!(again.status(), StatusCode::NOT_MODIFIED);
        assert_eq!(header(&again, "etag"), etag);
        assert!(again.bytes().await.unwrap().is_empty());
        app.cleanup().await;
    }

    async fn console_page_names_the_production_environment() {
        let app = TestApp::spawn_in(Backend::Sqlite, roadlog::config::Environment::Production)
            .await;
        let page = get(&app.url("/console"), None).await.text().await.unwrap();
        assert!(page.contains(">PRODUCTION<") && !page.contains("SANDBOX"), "{page}");
        app.cleanup().await;
    }

    async fn console_files_have_their_types_checksums_etags_and_cache_lifetimes() {
        let app = TestApp::spawn(Backend::Sqlite).await;
        let page = get(&app.url("/console"), None).await.text().await.unwrap();
        let assets: Vec<String> = links(&page)
            .into_iter()
            .filter(|l| l.starts_with("/console/assets/"))
            .collect();
        let mut checked = 0;
        for link in &assets {
            let response = get(&app.url(link), None).await;
            assert_eq!(response.status(), StatusCode::OK, "{link}");
            let expected_type = if link.ends_with(".js") {
                "text/javascript; charset=utf-8"
            } else if link.ends_with(".css") {
                "text/css; charset=utf-8"
            } else {
                "text/plain; charset=utf-8"
            };
            assert_eq!(header(&response, "content-type"), expected_type, "{link}");
            assert_eq!(header(&response, "cache-control"), "public, max-age=31536000, immutable", "{link}");
            let etag = header(&response, "etag").to_string();
            let body = response.bytes().await.unwrap();
            let sum = hex(&Sha256::digest(&body));
            // NAME.FINGERPRINT.EXT: the fingerprint is the start of the SHA-256 of what is served,
            // and so is the ETag.
            let fingerprint = link.rsplit('.').nth(1).unwrap();
            assert!(sum.starts_with(fingerprint) && fingerprint.len() == 16, "{link}: {sum}");
            assert_eq!(etag, format!("\"{fingerprint}\""));
            // A vendored file is served byte for byte as SHA256SUMS records it.
            let plain = link.trim_start_matches("/console/assets/").replace(&format!(".{fingerprint}"), "");
            if let Some(line) = SHA256SUMS.lines().find(|l| l.ends_with(&format!("  {plain}"))) {
                assert_eq!(line.split_whitespace().next(), Some(sum.as_str()), "{plain}");
                checked += 1;
            }
            let revalidated = reqwest::Client::new()
                .get(app.url(link))
                .header("if-none-match", format!("W/{etag}, \"other\""))
                .send()
                .await
                .unwrap();
            assert_eq!(revalidated.status(), StatusCode::NOT_MODIFIED, "{link}");
            assert!(revalidated.bytes().await.unwrap().is_empty());
            // The plain name serves the same bytes, revalidated at each use.
            let plain_response = get(&app.url(&format!("/console/assets/{plain}")), None).await;
            assert_eq!(plain_response.status(), StatusCode::OK, "{plain}");
            assert_eq!(header(&plain_response, "cache-control"), "no-cache");
            assert_eq!(header(&plain_response, "etag"), etag);
            assert_eq!(plain_response.bytes().await.unwrap(), body);
        }
        // GraphiQL's script and style sheet, React, ReactDOM and the licences.
        assert_eq!(checked, 5, "{assets:?}");
        for missing in [
            "/console/assets/graphiql.min.0000000000000000.js",
            "/console/assets/SHA256SUMS",
            "/console/assets/..%2F..%2FCargo.toml",
            "/console/nothing",
        ] {
            assert_eq!(get(&app.url(missing), None).await.status(), StatusCode::NOT_FOUND, "{missing}");
        }
        app.cleanup().await;
    }

    async fn graphql_get_serves_the_console_to_browsers_and_json_to_clients() {
        let app = TestApp::spawn(Backend::Sqlite).await;
        for path in ["/api/graphql", "/graphql"] {
            let response = get(&app.url(path), Some(BROWSER_ACCEPT)).await;
            assert_eq!(response.status(), StatusCode::OK, "{path}");
            assert_eq!(header(&response, "content-type"), "text/html; charset=utf-8");
            assert_eq!(header(&response, "vary"), "Accept");
            assert!(header(&response, "content-security-policy").starts_with("default-src 'none'"));
            assert!(response.text().await.unwrap().contains("id=\"graphiql\""));
        }
        // A browser opening a GET query gets the console (which opens that query).
        let with_query = get(&app.url("/api/graphql?query=%7B__typename%7D"), Some(BROWSER_ACCEPT)).await;
        assert_eq!(header(&with_query, "content-type"), "text/html; charset=utf-8");
        // API clients keep getting JSON, whatever their Accept.
        for accept in [None, Some("*/*"), Some("application/json"), Some("application/graphql-response+json"), Some("application/json, text/html")] {
            let response = get(&app.url("/api/graphql?query=%7B__typename%7D"), accept).await;
            assert_eq!(response.status(), StatusCode::OK, "{accept:?}");
            assert!(header(&response, "content-type").contains("json"), "{accept:?}");
            let body: Value = response.json().await.unwrap();
            assert_eq!(body, json!({ "data": { "__typename": "Queries" } }), "{accept:?}");
        }
        let (status, body) = app.graphql("{ __typename }", json!({}), None).await;
        assert_eq!((status, body), (StatusCode::OK, json!({ "data": { "__typename": "Queries" } })));
        app.cleanup().await;
    }

    async fn console_is_off_with_the_flag() {
        let app = TestApp::spawn_with(Backend::Sqlite, |settings| settings.console = false)
            .await;
        let page = get(&app.url("/console"), Some(BROWSER_ACCEPT)).await;
        assert_eq!(page.status(), StatusCode::NOT_FOUND);
        let asset = get(&app.url("/console/assets/graphiql.min.js"), None).await;
        assert_eq!(asset.status(), StatusCode::NOT_FOUND);
        // A browser on the endpoint gets the endpoint's JSON answers.
        let endpoint = get(&app.url("/api/graphql"), Some(BROWSER_ACCEPT)).await;
        assert_eq!(endpoint.status(), StatusCode::BAD_REQUEST);
        let body: Value = endpoint.json().await.unwrap();
        assert_eq!(body, json!({ "errors": [{ "message": "Must provide query string." }] }));
        let query = get(&app.url("/api/graphql?query=%7B__typename%7D"), Some(BROWSER_ACCEPT)).await;
        assert_eq!(query.json::<Value>().await.unwrap(), json!({ "data": { "__typename": "Queries" } }));
        app.cleanup().await;
    }

    async fn console_flag_and_variable_of_the_binary() {
        let database = format!("sqlite://{}/roadlog.db?mode=rwc", cleanup::new_dir().display());
        for (args, envs, on) in [
            (vec![], vec![], true),
            (vec!["--console=false"], vec![], false),
            (vec![], vec![("ROADLOG_CONSOLE", "false")], false),
            (vec!["--console=true"], vec![("ROADLOG_CONSOLE", "false")], true),
        ] {
            let mut envs = envs;
            envs.push(("DATABASE_URL", database.as_str()));
            let server = ServerProcess::start(&args, &envs);
            let status = get(&server.url("/console"), None).await.status();
            let expected = if on { StatusCode::OK } else { StatusCode::NOT_FOUND };
            assert_eq!(status, expected, "{args:?} {envs:?}");
            let (exit, _, _) = server.terminate();
            assert!(exit.success());
        }
    }
}
