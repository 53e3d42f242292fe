//! Hostile GraphQL requests: each is refused before anything runs (400, no `data`, nothing
//! written), the process stays up and keeps answering. The heavy floods (connections, memory)
//! are in `stress`, run on demand.

use reqwest::StatusCode;
use serde_json::{Value, json};

use crate::support::TestApp;

const LOGIN: &str = "login(email: \"jeanne@example.com\", password: \"a long passphrase\") { accessToken }";

async fn alive(app: &TestApp) {
    let response = app
        .client
        .get(app.url("/health"))
        .send()
        .await
        .expect("the process is alive");
    assert_eq!(response.status(), StatusCode::OK);
}

fn assert_refused(status: StatusCode, body: &Value, fragment: &str) {
    assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
    assert!(body.get("data").is_none(), "nothing executed: {body}");
    let message = body["errors"][0]["message"].as_str().unwrap_or_default();
    assert!(message.contains(fragment), "{fragment:?} in {body}");
}

on_both_backends! {
    async fn deep_values_are_refused_without_crashing(app) {
        let depth = 2000;
        let list = format!("{}1{}", "[".repeat(depth), "]".repeat(depth));
        let object = format!("{}1{}", "{a: ".repeat(depth), "}".repeat(depth));
        for value in [&list, &object] {
            let query = format!("{{ me {{ missions(first: {value}) {{ edges {{ node {{ id }} }} }} }} }}");
            let (status, body) = app.graphql(&query, json!({}), None).await;
            assert_refused(status, &body, "nests deeper than 64 levels");
            assert_eq!(body["errors"][0]["locations"][0]["line"], 1);
            // The same over GET.
            let response = app.client.get(app.url("/api/graphql")).query(&[("query", &query)]).send().await.unwrap();
            let status = response.status();
            assert_refused(status, &response.json().await.unwrap(), "nests deeper than 64 levels");
        }
        // In a variable's default value.
        let query = format!("query($x: Int = {list}) {{ __typename }}");
        let (status, body) = app.graphql(&query, json!({}), None).await;
        assert_refused(status, &body, "nests deeper");
        // JSON variables are bounded by the JSON parser's depth (128): within it, a value for a
        // scalar that takes any JSON is accepted as it is; past it, the body is invalid JSON.
        let deep_json: Value = serde_json::from_str(&format!("{}1{}", "[".repeat(120), "]".repeat(120))).unwrap();
        let admin = app.new_user("deep@example.com").await;
        let company = app.new_company(&admin, "Deep").await;
        const CREATE: &str = "mutation($c: Int!, $x: GenericScalar) { activities { createMission(companyId: $c, context: $x) { id } } }";
        let (status, body) = app.graphql(CREATE, json!({ "c": company, "x": deep_json }), Some(&admin.token)).await;
        assert_eq!(status, StatusCode::OK, "{body}");
        assert!(body["data"]["activities"]["createMission"]["id"].is_i64(), "{body}");
        let deeper = format!(
            r#"{{"query":"{CREATE}","variables":{{"c":{company},"x":{}1{}}}}}"#,
            "[".repeat(200),
            "]".repeat(200)
        );
        let response = app
            .client
            .post(app.url("/api/graphql"))
            .bearer_auth(&admin.token)
            .header("content-type", "application/json")
            .body(deeper)
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), StatusCode::BAD_REQUEST);
        let body: Value = response.json().await.unwrap();
        assert!(body.get("data").is_none() && body["errors"][0]["message"].is_string(), "{body}");
        let (missions,): (i64,) = sqlx::query_as("SELECT COUNT(*) FROM missions WHERE company_id = $1")
            .bind(company)
            .fetch_one(&app.server.db.pool)
            .await
            .unwrap();
        assert_eq!(missions, 1, "the refused body created nothing");
        alive(app).await;
    }

    async fn a_fragment_doubling_chain_is_refused_at_once(app) {
        let mut query = String::from("query { ...F30 }\nfragment F0 on Queries { __typename }\n");
        for i in 1..=30 {
            query.push_str(&format!("fragment F{i} on Queries {{ ...F{} ...F{} }}\n", i - 1, i - 1));
        }
        let (status, body) = app.graphql(&query, json!({}), None).await;
        assert_refused(status, &body, "more than 5000 fields once its fragments are expanded");
        let cycle = "query { ...A } fragment A on Queries { ...B } fragment B on Queries { ...A __typename }";
        let (status, body) = app.graphql(cycle, json!({}), None).await;
        assert_refused(status, &body, "within itself");
        alive(app).await;
    }

    async fn one_password_check_per_http_request(app) {
        app.sign_up("jeanne@example.com", "a long passphrase").await;
        let sessions = app.scalar("SELECT COUNT(*) FROM sessions").await;
        let aliased: String = (0..128).map(|i| format!("a{i}: {LOGIN} ")).collect();
        let (status, body) = app.graphql(&format!("mutation {{ auth {{ {aliased} }} }}"), json!({}), None).await;
        assert_refused(status, &body, "At most 1 field that checks a password");
        // Through a fragment as well.
        let query = format!("mutation {{ auth {{ ...L ...L2 }} }} fragment L on Auth {{ a: {LOGIN} }} fragment L2 on Auth {{ b: {LOGIN} }}");
        let (status, body) = app.graphql(&query, json!({}), None).await;
        assert_refused(status, &body, "At most 1 field");
        // A batch counts as one request: the first login runs, the second is refused.
        let one = json!({ "query": format!("mutation {{ auth {{ {LOGIN} }} }}") });
        let response = app.client.post(app.url("/api/graphql")).json(&json!([one, one])).send().await.unwrap();
        assert_eq!(response.status(), StatusCode::BAD_REQUEST);
        let answers: Value = response.json().await.unwrap();
        assert!(answers[0]["data"]["auth"]["login"]["accessToken"].is_string(), "{answers}");
        assert!(answers[1].get("data").is_none(), "{answers}");
        assert_eq!(app.scalar("SELECT COUNT(*) FROM sessions").await, sessions + 1, "one login ran");
    }

    async fn variables_are_coerced_before_anything_runs(app) {
        let user = app.new_user("admin@example.com").await;
        let companies = app.scalar("SELECT COUNT(*) FROM companies").await;
        // The first field would write; the second's variable is missing: nothing runs.
        let query = "mutation($n: String!) { a: signUp { company(usualName: \"First\", siren: \"123456789\") { company { id } } } b: signUp { company(usualName: $n, siren: \"987654321\") { company { id } } } }";
        let (status, body) = app.graphql(query, json!({}), Some(&user.token)).await;
        assert_refused(status, &body, "Variable \"$n\" of required type \"String!\" was not provided.");
        assert_eq!(app.scalar("SELECT COUNT(*) FROM companies").await, companies, "nothing written");
        let (status, body) = app.graphql(query, json!({ "n": null }), Some(&user.token)).await;
        assert_refused(status, &body, "must not be null");
        let (status, body) = app.graphql(query, json!({ "n": 12 }), Some(&user.token)).await;
        assert_refused(status, &body, "String cannot represent a non string value: 12");
        // Int is 32 bits, in variables and in literals.
        let (status, body) = app.graphql("query($c: Int!) { company(id: $c) { id } }", json!({ "c": 3_000_000_000i64 }), Some(&user.token)).await;
        assert_refused(status, &body, "Int cannot represent non 32-bit signed integer value: 3000000000");
        let (status, body) = app.graphql("{ company(id: 3000000000) { id } }", json!({}), Some(&user.token)).await;
        assert_refused(status, &body, "Argument \"id\" has invalid value 3000000000: Int cannot represent non 32-bit signed integer value");
        // Custom scalars parse with their own rules.
        let (status, body) = app.graphql("query($d: Date) { __typename }", json!({ "d": "25/11/2026" }), None).await;
        assert_refused(status, &body, "Variable \"$d\" got invalid value \"25/11/2026\"");
        assert_eq!(app.scalar("SELECT COUNT(*) FROM companies").await, companies, "nothing written");
    }

    async fn directives_and_meta_fields_are_validated(app) {
        let (status, body) = app.graphql("{ __typename @include(if: [[true]]) }", json!({}), None).await;
        assert_refused(status, &body, "Boolean! expected");
        let (status, body) = app.graphql("{ __typename(x: 1) }", json!({}), None).await;
        assert_refused(status, &body, "Unknown argument \"x\" on field \"__typename\".");
        let (status, body) = app.graphql("{ __schema(x: 1) { queryType { name } } }", json!({}), None).await;
        assert_refused(status, &body, "Unknown argument \"x\"");
        let (status, body) = app.graphql("query($s: Int) { __typename @skip(if: $s) }", json!({}), None).await;
        assert_refused(status, &body, "expecting type \"Boolean!\"");
        let (status, body) = app.graphql("query($s: Boolean!) { a: __typename me @skip(if: $s) { id } }", json!({ "s": true }), None).await;
        assert_eq!((status, &body["data"]), (StatusCode::OK, &json!({ "a": "Queries" })));
    }

    async fn nul_characters_are_invalid_inputs_and_nothing_is_stored(app) {
        let users = app.scalar("SELECT COUNT(*) FROM users").await;
        let sign_up = "mutation($e: Email!, $p: String!, $f: String!) { signUp { user(email: $e, password: $p, firstName: $f, lastName: \"Martin\") { accessToken } } }";
        let (status, body) = app.graphql(sign_up, json!({ "e": "nul@example.com", "p": "a long passphrase", "f": "Jea\u{0}nne" }), None).await;
        assert_refused(status, &body, "NUL character");
        assert_eq!(body["errors"][0]["extensions"]["code"], "INVALID_INPUTS");
        let literal = "mutation { signUp { user(email: \"nul@example.com\", password: \"a long passphrase\", firstName: \"Jea\\u0000nne\", lastName: \"M\") { accessToken } } }";
        let (status, body) = app.graphql(literal, json!({}), None).await;
        assert_refused(status, &body, "NUL character");
        assert_eq!(body["errors"][0]["extensions"]["code"], "INVALID_INPUTS");
        assert_eq!(app.scalar("SELECT COUNT(*) FROM users").await, users, "nothing stored");
    }
}

on_both_backends! {
    async fn every_answer_carries_the_protective_headers(app) {
        let header = |r: &reqwest::Response, name: &str| r.headers().get(name).map(|v| v.to_str().unwrap().to_string());
        let graphql = app.client.post(app.url("/api/graphql")).json(&json!({ "query": "{ __typename }" })).send().await.unwrap();
        let token = app.client.post(app.url("/api/oauth/token")).form(&[("grant_type", "authorization_code")]).send().await.unwrap();
        let page = app.client.get(app.url("/oauth/authorize?client_id=1&response_type=code")).send().await.unwrap();
        let missing = app.client.get(app.url("/no/such/thing")).send().await.unwrap();
        let health = app.client.get(app.url("/health")).send().await.unwrap();
        for response in [&graphql, &token, &page, &missing, &health] {
            assert_eq!(header(response, "x-content-type-options").as_deref(), Some("nosniff"), "{}", response.url());
            assert!(header(response, "x-request-id").is_some());
        }
        for response in [&graphql, &token] {
            assert!(header(response, "cache-control").unwrap().contains("no-store"), "{}", response.url());
        }
        assert_eq!(header(&page, "referrer-policy").as_deref(), Some("no-referrer"));
        assert_eq!(header(&page, "x-frame-options").as_deref(), Some("DENY"));
    }
}

for_both_backends! {
    async fn silent_and_slow_clients_are_cut_off(backend) {
        use tokio::io::{AsyncReadExt, AsyncWriteExt};
        let app = TestApp::spawn_with(backend, |s| {
            s.header_read_timeout = 1;
            s.body_timeout = 1;
        })
        .await;
        let addr = app.server.addr;
        // A connection that sends nothing is closed by the server (the read sees the end).
        let mut silent = tokio::net::TcpStream::connect(addr).await.unwrap();
        let mut buffer = [0u8; 256];
        assert_eq!(silent.read(&mut buffer).await.unwrap_or(0), 0, "closed without an answer");
        // So is one that never finishes its request head.
        let mut partial = tokio::net::TcpStream::connect(addr).await.unwrap();
        partial.write_all(b"GET /health HTTP/1.1\r\nHost: x\r\n").await.unwrap();
        let mut answer = Vec::new();
        let _ = partial.read_to_end(&mut answer).await;
        assert!(!String::from_utf8_lossy(&answer).contains("200 OK"), "{}", String::from_utf8_lossy(&answer));
        // A body that does not arrive in time: 408, in the documented shape.
        let mut slow = tokio::net::TcpStream::connect(addr).await.unwrap();
        slow.write_all(b"POST /api/graphql HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"query\":").await.unwrap();
        let mut answer = Vec::new();
        let _ = slow.read_to_end(&mut answer).await;
        let text = String::from_utf8_lossy(&answer);
        assert!(text.starts_with("HTTP/1.1 408"), "{text}");
        assert!(text.contains("did not arrive in time"), "{text}");
        // Meanwhile, and after, others are served.
        alive(&app).await;
        app.cleanup().await;
    }
}
