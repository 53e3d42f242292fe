//! Compressed answers: brotli or gzip as `Accept-Encoding` asks, for GraphQL answers and the
//! contract files above a kilobyte, decoding to the very bytes of the uncompressed answer; small
//! answers, answers to clients that accept no coding, and the C1B ZIP are sent as they are.

use std::io::Read;

use reqwest::StatusCode;
use reqwest::header::HeaderMap;
use serde_json::{Value, json};

use crate::export::{Setup, setup};
use crate::support::{Backend, TestApp};

/// Large enough to be compressed, and needs no data: every type of the schema with its fields.
const LARGE: &str = "{ __schema { types { name description fields { name description } } } }";

fn decode(coding: Option<&str>, body: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    match coding {
        None => out.extend_from_slice(body),
        Some("br") => {
            brotli::Decompressor::new(body, 4096).read_to_end(&mut out).unwrap();
        }
        Some("gzip") => {
            flate2::read::GzDecoder::new(body).read_to_end(&mut out).unwrap();
        }
        Some(other) => panic!("unexpected coding {other}"),
    }
    out
}

fn coding(headers: &HeaderMap) -> Option<&str> {
    headers.get("content-encoding").map(|v| v.to_str().unwrap())
}

fn varies_on_encoding(headers: &HeaderMap) -> bool {
    headers
        .get_all("vary")
        .iter()
        .any(|v| v.to_str().unwrap().to_ascii_lowercase().contains("accept-encoding"))
}

async fn graphql(app: &TestApp, query: &str, accept_encoding: Option<&str>) -> (StatusCode, HeaderMap, Vec<u8>) {
    let mut request = app
        .client
        .post(app.url("/api/graphql"))
        .json(&json!({ "query": query }));
    if let Some(accept) = accept_encoding {
        request = request.header("accept-encoding", accept);
    }
    let response = request.send().await.unwrap();
    let status = response.status();
    let headers = response.headers().clone();
    (status, headers, response.bytes().await.unwrap().to_vec())
}

tests! {
async fn large_graphql_answers_are_compressed_as_the_client_prefers() {
    let app = TestApp::spawn(Backend::Sqlite).await;
    let (status, headers, plain) = graphql(&app, LARGE, None).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(coding(&headers), None, "no Accept-Encoding, no coding");
    assert!(varies_on_encoding(&headers), "caches must know the answer depends on Accept-Encoding");
    assert!(plain.len() > 10 * 1024, "a large answer: {} bytes", plain.len());
    let plain_json: Value = serde_json::from_slice(&plain).unwrap();
    for (accept, expected) in [
        ("br", "br"),
        ("gzip", "gzip"),
        ("gzip, deflate, br", "br"),
        ("br;q=0.5, gzip", "gzip"),
        ("gzip;q=0, br", "br"),
    ] {
        let (status, headers, body) = graphql(&app, LARGE, Some(accept)).await;
        assert_eq!(status, StatusCode::OK);
        assert_eq!(coding(&headers), Some(expected), "Accept-Encoding: {accept}");
        assert!(varies_on_encoding(&headers));
        assert!(headers.get("content-length").is_none_or(|l| l.to_str().unwrap() != plain.len().to_string()));
        assert!(body.len() * 3 < plain.len(), "{accept}: {} bytes for {}", body.len(), plain.len());
        let decoded = decode(Some(expected), &body);
        assert_eq!(decoded, plain, "{accept}: the same bytes once decoded");
        assert_eq!(serde_json::from_slice::<Value>(&decoded).unwrap(), plain_json);
        assert_eq!(headers["cache-control"], "no-store", "GraphQL's own headers are kept");
        assert!(headers.contains_key("x-request-id"));
    }
    let (_, headers, _) = graphql(&app, LARGE, Some("identity")).await;
    assert_eq!(coding(&headers), None, "identity only");
    app.cleanup().await;
}

async fn small_answers_are_not_compressed() {
    let app = TestApp::spawn(Backend::Sqlite).await;
    let (status, headers, body) = graphql(&app, "{ __typename }", Some("br, gzip")).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(coding(&headers), None);
    assert_eq!(serde_json::from_slice::<Value>(&body).unwrap(), json!({ "data": { "__typename": "Queries" } }));
    let response = app.client.get(app.url("/health")).header("accept-encoding", "br").send().await.unwrap();
    assert_eq!(coding(response.headers()), None);
    app.cleanup().await;
}

async fn contract_files_are_compressed_with_a_tag_of_their_own() {
    let app = TestApp::spawn(Backend::Sqlite).await;
    let plain = app.client.get(app.url("/schema.graphql")).send().await.unwrap();
    let plain_tag = plain.headers()["etag"].to_str().unwrap().to_string();
    let plain = plain.bytes().await.unwrap().to_vec();
    for coding_name in ["br", "gzip"] {
        let response = app
            .client
            .get(app.url("/schema.graphql"))
            .header("accept-encoding", coding_name)
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), StatusCode::OK);
        let headers = response.headers().clone();
        assert_eq!(coding(&headers), Some(coding_name));
        assert!(varies_on_encoding(&headers));
        let tag = headers["etag"].to_str().unwrap().to_string();
        assert_eq!(tag, format!("{}-{coding_name}\"", plain_tag.trim_end_matches('"')), "another representation, another strong tag");
        let body = response.bytes().await.unwrap();
        assert_eq!(decode(Some(coding_name), &body), plain);
        // Revalidating the compressed form: 304, echoing its tag.
        let response = app
            .client
            .get(app.url("/schema.graphql"))
            .header("accept-encoding", coding_name)
            .header("if-none-match", &tag)
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), StatusCode::NOT_MODIFIED);
        assert_eq!(response.headers()["etag"].to_str().unwrap(), tag);
        assert!(varies_on_encoding(response.headers()));
    }
    app.cleanup().await;
}
}

on_both_backends! {
    async fn the_c1b_zip_is_never_compressed(app) {
        let Setup { admin, company, .. } = setup(app).await;
        let response = app
            .client
            .post(app.url("/companies/generate_tachograph_files"))
            .bearer_auth(&admin.token)
            .header("accept-encoding", "br, gzip")
            .json(&json!({ "company_ids": [company], "with_digital_signatures": true }))
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), StatusCode::OK);
        assert_eq!(response.headers()["content-type"], "application/zip");
        assert_eq!(coding(response.headers()), None);
        let body = response.bytes().await.unwrap();
        assert!(body.len() > 1024, "large enough to be compressed if it were text: {}", body.len());
        assert!(body.starts_with(b"PK\x03\x04"), "the ZIP itself");
        assert!(!crate::export::unzip(&body).is_empty());
    }
}
