//! Generated documents and JSON bodies thrown at the GraphQL handler: whatever they are, the
//! service answers with the documented statuses and shapes, never panics, hangs or dies. The
//! cases are generated with a fixed seed, so a failure reproduces; the fuzz targets in `fuzz/`
//! explore further with coverage guidance.

use proptest::prelude::*;
use proptest::strategy::ValueTree;
use proptest::test_runner::{Config, TestRunner};
use reqwest::StatusCode;
use serde_json::{Value, json};

/// Pieces of GraphQL, valid and broken, to assemble documents from.
const TOKENS: &[&str] = &[
    "{",
    "}",
    "(",
    ")",
    "[",
    "]",
    "...",
    ":",
    "=",
    "!",
    "$x",
    "$y",
    "@include(if: true)",
    "@skip(if: $x)",
    "@skip",
    "query",
    "mutation",
    "fragment F on Queries",
    "fragment G on User",
    "...F",
    "...G",
    "on",
    "__typename",
    "__schema { types { name } }",
    "__type(name: \"User\") { name }",
    "me",
    "id",
    "email",
    "firstName",
    "missions(first: 5)",
    "edges { node { id } }",
    "company(id: 1)",
    "auth",
    "signUp",
    "login(email: \"a@b.c\", password: \"pw\")",
    "\"text\"",
    "\"nul\\u0000\"",
    "\"\"\"block\"\"\"",
    "1",
    "-7",
    "3000000000",
    "1.5e3",
    "true",
    "null",
    "#comment\n",
    "a1: __typename",
    "query($x: Int!)",
    "($x: Boolean = false)",
    "[[[[[[",
    "]]]]]]",
    "{{{{{{",
    "}}}}}}",
    "é",
    "\u{0}",
];

fn document() -> impl Strategy<Value = String> {
    prop::collection::vec(prop::sample::select(TOKENS), 0..80).prop_map(|tokens| tokens.join(" "))
}

fn variables() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(|n| json!(n)),
        any::<f64>()
            .prop_filter("finite", |f| f.is_finite())
            .prop_map(|f| json!(f)),
        "[a-z\\u{0}-\\u{7f}]{0,12}".prop_map(Value::String),
    ];
    let value = leaf.prop_recursive(4, 32, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            prop::collection::btree_map("[a-z]{1,3}", inner, 0..4).prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    });
    prop::collection::btree_map(prop::sample::select(vec!["x", "y", "z"]), value, 0..3)
        .prop_map(|m| Value::Object(m.into_iter().map(|(k, v)| (k.to_string(), v)).collect()))
}

/// A body: one operation, a batch, or JSON that is not an operation at all.
fn operation() -> impl Strategy<Value = Value> {
    (document(), variables(), prop::option::of("[A-Za-z]{1,4}"))
        .prop_map(|(query, variables, name)| json!({ "query": query, "variables": variables, "operationName": name }))
}

fn body() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        4 => operation().prop_map(|o| o.to_string().into_bytes()),
        1 => prop::collection::vec(operation(), 0..12).prop_map(|ops| Value::Array(ops).to_string().into_bytes()),
        1 => prop::collection::vec(any::<u8>(), 0..200),
    ]
}

fn cases(n: usize) -> Vec<Vec<u8>> {
    let mut runner = TestRunner::new_with_rng(
        Config::default(),
        proptest::test_runner::TestRng::deterministic_rng(proptest::test_runner::RngAlgorithm::ChaCha),
    );
    let strategy = body();
    (0..n)
        .map(|_| strategy.new_tree(&mut runner).unwrap().current())
        .collect()
}

tests! {
    fn the_pre_execution_path_takes_any_body() {
        for body in cases(3000) {
            // No panic, and a whole-body refusal is one of the documented statuses.
            if let Err(status) = roadlog::http::graphql::preflight(&body) {
                assert_eq!(status, StatusCode::BAD_REQUEST, "{}", String::from_utf8_lossy(&body));
            }
        }
    }
}

on_both_backends! {
    async fn the_handler_answers_any_body_with_a_documented_shape(app) {
        for body in cases(250) {
            let response = app
                .client
                .post(app.url("/api/graphql"))
                .header("content-type", "application/json")
                .body(body.clone())
                .send()
                .await
                .expect("the server answers");
            let status = response.status();
            let text = String::from_utf8_lossy(&body).into_owned();
            assert!(
                [StatusCode::OK, StatusCode::BAD_REQUEST, StatusCode::SERVICE_UNAVAILABLE].contains(&status),
                "{status} for {text}"
            );
            if status == StatusCode::SERVICE_UNAVAILABLE {
                assert!(response.headers().contains_key("retry-after"), "503 without Retry-After for {text}");
            }
            let answer: Value = response.json().await.unwrap_or_else(|_| panic!("JSON for {text}"));
            let answers = match &answer {
                Value::Array(items) => items.clone(),
                one => vec![one.clone()],
            };
            // A batch's status is the highest of its operations': a 200 has only executed
            // operations, a single operation's 400 none.
            for one in answers {
                check_shape(&one, &text);
                if status == StatusCode::OK {
                    assert!(one.get("data").is_some(), "200 without data: {one} for {text}");
                }
                if status == StatusCode::BAD_REQUEST && !answer.is_array() {
                    assert!(one.get("data").is_none(), "400 with data: {one} for {text}");
                }
            }
        }
        let health = app.client.get(app.url("/health")).send().await.unwrap();
        assert_eq!(health.status(), StatusCode::OK, "alive after the generated bodies");
    }
}

/// `extensions.code` of an application error: the sixteen codes of the contract.
const CODES: &[&str] = &[
    "INVALID_INPUTS",
    "AUTHENTICATION_ERROR",
    "AUTHORIZATION_ERROR",
    "INVALID_TOKEN",
    "OVERLAPPING_MISSIONS",
    "OVERLAPPING_ACTIVITIES",
    "INVALID_ACTIVITY_SWITCH",
    "MISSION_ALREADY_ENDED",
    "DUPLICATE_EXPENDITURES",
    "OVERLAPPING_EMPLOYMENTS",
    "NO_PRIMARY_EMPLOYMENT",
    "INVALID_RESOURCE",
    "NO_SIREN_API_CREDENTIALS",
    "INACCESSIBLE_SIREN",
    "UNAVAILABLE_SIREN_API",
    "INTERNAL_ERROR",
];

/// The documented shape of one operation's answer: executed (`data` present; each error with a
/// `message`, a `path` and one of the codes), or refused before execution (no `data`; each error
/// with a `message`, and `locations` of lines and columns counted from 1 when it has any).
fn check_shape(one: &Value, text: &str) {
    let object = one
        .as_object()
        .unwrap_or_else(|| panic!("an answer is an object: {one} for {text}"));
    let errors = match object.get("errors") {
        None => {
            assert!(object.contains_key("data"), "neither data nor errors: {one} for {text}");
            return;
        }
        Some(errors) => errors
            .as_array()
            .unwrap_or_else(|| panic!("errors is a list: {one} for {text}")),
    };
    assert!(!errors.is_empty(), "an empty errors list: {one} for {text}");
    let executed = object.contains_key("data");
    for error in errors {
        assert!(
            error["message"].as_str().is_some_and(|m| !m.is_empty()),
            "{error} for {text}"
        );
        if let Some(locations) = error.get("locations") {
            let locations = locations.as_array().unwrap_or_else(|| panic!("{error} for {text}"));
            assert!(
                locations.iter().all(|l| l["line"].as_u64().is_some_and(|n| n >= 1)
                    && l["column"].as_u64().is_some_and(|n| n >= 1)),
                "{error} for {text}"
            );
        }
        if executed {
            assert!(
                error["path"].is_array(),
                "an executed operation's error without a path: {error} for {text}"
            );
            let code = error["extensions"]["code"].as_str().unwrap_or_default();
            assert!(CODES.contains(&code), "undocumented code {code:?}: {error} for {text}");
        } else if let Some(code) = error["extensions"].get("code") {
            // Refused before execution: only a NUL character carries a code.
            assert_eq!(code, "INVALID_INPUTS", "{error} for {text}");
        }
    }
}
