//! The book's pages for API clients at `/docs/PAGE`, on the wire: the index lists every page of
//! the summary's part for API clients, each page answers HTML with the headers of the `/docs`
//! page, shows no raw mdBook directive and links only to pages that answer; the export's `curl`
//! walk-through is there; an unknown page is 404; the console leads to `/docs`.

use std::collections::BTreeSet;

use reqwest::StatusCode;
use reqwest::header::HeaderMap;

use crate::support::{Backend, TestApp};

const SUMMARY: &str = include_str!("../../docs/src/SUMMARY.md");

/// The `(title, page)` of each entry of the summary's part for API clients: `clients/x.md` is `x`.
fn client_pages() -> Vec<(String, String)> {
    let part = SUMMARY
        .split("\n# ")
        .find(|p| p.starts_with("For API clients"))
        .unwrap();
    part.lines()
        .filter_map(|line| line.trim().strip_prefix("- ["))
        .map(|entry| {
            let (title, rest) = entry.split_once("](clients/").unwrap();
            (title.to_string(), rest.trim_end_matches(".md)").to_string())
        })
        .collect()
}

fn header<'a>(headers: &'a HeaderMap, name: &str) -> &'a str {
    headers
        .get(name)
        .map(|v| v.to_str().unwrap())
        .unwrap_or_else(|| panic!("no {name} header in {headers:?}"))
}

async fn get(app: &TestApp, path: &str) -> (StatusCode, HeaderMap, String) {
    let response = app.client.get(app.url(path)).send().await.unwrap();
    let status = response.status();
    let headers = response.headers().clone();
    (status, headers, response.text().await.unwrap())
}

/// The `href` and `src` values of a page, entities decoded.
fn links(page: &str) -> Vec<String> {
    let mut found = Vec::new();
    for attribute in ["href=\"", "src=\""] {
        for (start, _) in page.match_indices(attribute) {
            let rest = &page[start + attribute.len()..];
            found.push(html_escape::decode_html_entities(&rest[..rest.find('"').unwrap()]).to_string());
        }
    }
    found
}

/// The headers the console's page sends, on a page of `/docs`: a Content-Security-Policy that
/// allows no script and no other origin, no framing, no referrer.
fn assert_page_headers(path: &str, headers: &HeaderMap) {
    assert_eq!(header(headers, "content-type"), "text/html; charset=utf-8", "{path}");
    let policy = header(headers, "content-security-policy");
    let directives: Vec<&str> = policy.split(';').map(str::trim).collect();
    for directive in [
        "default-src 'none'",
        "frame-ancestors 'none'",
        "base-uri 'none'",
        "form-action 'none'",
    ] {
        assert!(
            directives.contains(&directive),
            "{path}: {directive} missing from {policy}"
        );
    }
    assert!(!policy.contains("script-src"), "{path}: no script: {policy}");
    assert_eq!(header(headers, "x-frame-options"), "DENY", "{path}");
    assert_eq!(header(headers, "referrer-policy"), "no-referrer", "{path}");
}

tests! {
async fn docs_serves_the_books_pages_for_api_clients() {
    let app = TestApp::spawn(Backend::Sqlite).await;
    let pages = client_pages();
    assert!(pages.len() >= 10, "{pages:?}");

    // The index lists every page, with its title.
    let (status, headers, index) = get(&app, "/docs").await;
    assert_eq!(status, StatusCode::OK);
    assert_page_headers("/docs", &headers);
    let index = html_escape::decode_html_entities(&index);
    for (title, page) in &pages {
        let item = format!("<a href=\"/docs/{page}\">{title}</a>");
        assert!(index.contains(&item), "/docs does not list {item}");
    }
    assert!(index.contains("<a href=\"/docs/activity-reports\">Excel activity reports</a>"));

    // Every page: HTML with the pages' headers and its title, no raw directive, and every link
    // to a page of this server answers.
    let mut served_links = BTreeSet::new();
    for (title, page) in &pages {
        for path in [format!("/docs/{page}"), format!("/api/docs/{page}")] {
            let (status, headers, body) = get(&app, &path).await;
            assert_eq!(status, StatusCode::OK, "{path}");
            assert_page_headers(&path, &headers);
            assert!(header(&headers, "etag").starts_with('"'), "{path}");
            let text = html_escape::decode_html_entities(&body);
            assert!(text.contains(&format!("<title>{title} – Roadlog API</title>")), "{path}");
            assert!(!body.contains("{{#"), "{path} shows a raw mdBook directive");
            assert!(!body.contains("<script"), "{path} has a script");
            for link in links(&body) {
                assert!(!link.ends_with(".md") && !link.contains(".md#"), "{path}: a link to a file: {link}");
                if link.starts_with('/') {
                    served_links.insert(link.split('#').next().unwrap().to_string());
                } else {
                    assert!(
                        link == "data:,"
                            || link.starts_with('#')
                            || link.starts_with("https://")
                            || link.starts_with("http://127.0.0.1"),
                        "{path}: {link}"
                    );
                }
            }
        }
    }
    assert!(served_links.contains("/docs/activity-reports"), "{served_links:?}");
    for link in &served_links {
        let (status, _, _) = get(&app, link).await;
        assert_eq!(status, StatusCode::OK, "a page links to {link}");
    }

    // The export's walk-through: queue, poll, download.
    let (_, _, reports) = get(&app, "/docs/activity-reports").await;
    let reports = html_escape::decode_html_entities(&reports);
    for text in [
        "curl -s -X POST http://127.0.0.1:8080/companies/download_activity_report",
        "curl -s -X POST http://127.0.0.1:8080/exports/checkout",
        "curl -s -OJ \"$LINK\"",
        "<h2 id=\"queue-poll-download\">Queue, poll, download</h2>",
    ] {
        assert!(reports.contains(text), "/docs/activity-reports lacks {text}");
    }
    // The included file of a page is shown, not its directive.
    let (_, _, api) = get(&app, "/docs/api").await;
    assert!(api.contains("TimeStamp: number"), "api.md's included codegen.yml");
    app.cleanup().await;
}

async fn an_unknown_docs_page_is_404_and_the_console_links_to_docs() {
    let app = TestApp::spawn(Backend::Sqlite).await;
    for path in ["/docs/no-such-page", "/docs/operators", "/docs/activity-reports.md", "/api/docs/x/y"] {
        let (status, headers, body) = get(&app, path).await;
        assert_eq!(status, StatusCode::NOT_FOUND, "{path}");
        assert_page_headers(path, &headers);
        assert!(body.contains("<a href=\"/docs\">"), "{path}: the 404 leads to the index");
    }
    let (status, _, console) = get(&app, "/console").await;
    assert_eq!(status, StatusCode::OK);
    assert!(console.contains("<a href=\"/docs\">docs</a>"), "{console}");
    app.cleanup().await;
}
}
