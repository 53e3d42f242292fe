//! Software vendors (issue 18): API keys (`roadlog client api-key`), `POST /protected` with its
//! credential checks and error codes, `softwareRegistration`, `syncEmployment`, the employee's
//! answer on `/sync_employee` (accept, decline, used, expired and unknown links, CSRF), and
//! `employmentToken`, on both databases; the whole journey with the accept in a real browser, then
//! the vendor writing and reading the employee's missions with the employment token.

use reqwest::StatusCode;
use serde_json::{Value, json};

use crate::support::employments::outbox;
use crate::support::forms::{self, Browser};
use crate::support::{Backend, TestApp, codes};

mod browser;
mod employees;
mod second_factor;

fn roadlog(app: &TestApp, args: &[&str]) -> std::process::Output {
    crate::support::process::command(args, &[("DATABASE_URL", &app.database_url)])
        .output()
        .unwrap()
}

/// A registered client with one API key: `(client id, key)`.
pub(crate) async fn vendor(app: &TestApp, name: &str) -> (i64, String) {
    let env = roadlog::config::Environment::Sandbox;
    let client = roadlog::oauth::clients::create(&app.server.db, env, name, &["https://vendor.example.com/cb".into()])
        .await
        .unwrap();
    let key = roadlog::domain::vendors::api_keys::create(&app.server.db, env, &client.client_id)
        .await
        .unwrap();
    (client.client_id.parse().unwrap(), key.api_key)
}

/// A call to `/protected` with the given credential headers.
async fn protected_with(app: &TestApp, headers: &[(&str, &str)], query: &str, variables: Value) -> (StatusCode, Value) {
    let mut request = app
        .client
        .post(app.url("/protected"))
        .json(&json!({ "query": query, "variables": variables }));
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    let response = request.send().await.unwrap();
    let status = response.status();
    (status, response.json().await.unwrap())
}

pub(crate) async fn protected(app: &TestApp, vendor: &(i64, String), query: &str, variables: Value) -> Value {
    let id = vendor.0.to_string();
    let (status, body) = protected_with(app, &[("x-client-id", &id), ("x-api-key", &vendor.1)], query, variables).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    body
}

const REGISTER: &str = "mutation($c: Int!, $n: String!, $s: String!, $t: String, $w: Int!) { company { softwareRegistration(clientId: $c, usualName: $n, siren: $s, siret: $t, nbWorkers: $w) { id name siren numberWorkers settings { allowTeamMode allowTransfers requireKilometerData requireMissionName } } } }";
pub(crate) const SYNC: &str = "mutation($c: Int!, $e: [ThirdPartyEmployee]!) { company { syncEmployment(companyId: $c, employees: $e) { id companyId email hasAdminRights userId validationStatus user { id } } } }";
pub(crate) const TOKEN: &str = "query($c: Int!, $e: Int!) { employmentToken(clientId: $c, employmentId: $e) { id employmentId clientId clientName accessToken employment { id userId validationStatus email company { id name } } } }";

pub(crate) async fn register(app: &TestApp, vendor: &(i64, String), siren: &str, siret: Option<&str>) -> Value {
    protected(
        app,
        vendor,
        REGISTER,
        json!({ "c": vendor.0, "n": "Transports Martin", "s": siren, "t": siret, "w": 12 }),
    )
    .await
}

pub(crate) fn reason(body: &Value) -> Option<&str> {
    body["errors"][0]["extensions"]["reason"].as_str()
}

/// The link of the invitation mailed to `to` (the latest), as a path of the server.
pub(crate) async fn mailed_link(app: &TestApp, to: &str) -> String {
    let mails = outbox(app, to).await;
    let body = mails[0]["body"].as_str().unwrap();
    let start = body
        .find("/sync_employee?token=")
        .unwrap_or_else(|| panic!("no link in {body}"));
    body[start..].split_whitespace().next().unwrap().to_string()
}

on_both_backends! {
    async fn api_keys_are_created_listed_used_and_revoked(app) {
        let client = roadlog::oauth::clients::create(&app.server.db, roadlog::config::Environment::Sandbox, "Payroll", &["https://payroll.example.com/cb".into()]).await.unwrap();
        let output = roadlog(app, &["client", "api-key", "create", "--client", &client.client_id]);
        assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
        let created: Value = serde_json::from_slice(&output.stdout).unwrap();
        let key = created["api_key"].as_str().unwrap().to_string();
        assert!(key.starts_with("roadlog_test_") && key.len() == 13 + 43, "{key}");
        // A second key for the same client, for rotation.
        let second: Value = serde_json::from_slice(&roadlog(app, &["client", "api-key", "create", "--client", &client.client_id]).stdout).unwrap();
        assert_ne!(second["api_key"], created["api_key"]);
        // Only SHA-256 hashes are stored.
        let (hash,): (String,) = sqlx::query_as("SELECT key_hash FROM client_api_keys WHERE id = $1").bind(created["id"].as_i64().unwrap()).fetch_one(&app.server.db.pool).await.unwrap();
        assert_eq!(hash, roadlog::domain::auth::tokens::hash(&key));

        let output = roadlog(app, &["client", "api-key", "list", "--json"]);
        let text = String::from_utf8_lossy(&output.stdout).to_string();
        assert!(!text.contains(&key), "a key is shown once");
        let listed: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(listed.as_array().unwrap().len(), 2);
        assert_eq!(listed[0]["starts_with"], json!(&key[..19]));
        assert_eq!(listed[0]["last_used_at"], Value::Null);

        // A use is recorded (at most once a minute).
        let id: i64 = client.client_id.parse().unwrap();
        let body = protected(app, &(id, key.clone()), "{ employmentToken(clientId: 1, employmentId: 1) { id } }", json!({})).await;
        assert_eq!(codes(&body), ["AUTHORIZATION_ERROR"], "{body}");
        let listed: Value = serde_json::from_slice(&roadlog(app, &["client", "api-key", "list", "--json", "--client", &client.client_id]).stdout).unwrap();
        assert!(listed[0]["last_used_at"].is_i64(), "{listed}");
        assert_eq!(listed[1]["last_used_at"], Value::Null);

        // Revoked: refused at once; revoking twice, or a key for an unknown client, fails.
        let key_id = created["id"].as_i64().unwrap().to_string();
        assert!(roadlog(app, &["client", "api-key", "revoke", &key_id]).status.success());
        let (status, body) = protected_with(app, &[("x-client-id", &client.client_id), ("x-api-key", &key)], "{ employmentToken(clientId: 1, employmentId: 1) { id } }", json!({})).await;
        assert_eq!((status, codes(&body)), (StatusCode::OK, vec!["AUTHENTICATION_ERROR".to_string()]));
        assert_eq!(body["errors"][0]["message"], "Invalid API Key");
        assert!(!roadlog(app, &["client", "api-key", "revoke", &key_id]).status.success());
        assert!(!roadlog(app, &["client", "api-key", "create", "--client", "123456789"]).status.success());
        assert_eq!(app.scalar("SELECT COUNT(*) FROM client_api_keys").await, 2);
    }

    async fn protected_checks_credentials_in_the_reference_order(app) {
        let payroll = vendor(app, "Payroll").await;
        let fleet = vendor(app, "Fleet").await;
        let query = "{ employmentToken(clientId: 1, employmentId: 1) { id } }";
        let id = payroll.0.to_string();
        let live_key = payroll.1.replace("roadlog_test_", "roadlog_live_");
        let cases: Vec<(Vec<(&str, &str)>, &str)> = vec![
            (vec![], "Missing X-CLIENT-ID or X-API-KEY header"),
            (vec![("x-client-id", &id)], "Missing X-CLIENT-ID or X-API-KEY header"),
            (vec![("x-api-key", &payroll.1)], "Missing X-CLIENT-ID or X-API-KEY header"),
            (vec![("x-client-id", "not-a-number"), ("x-api-key", &payroll.1)], "Invalid API Key"),
            (vec![("x-client-id", &id), ("x-api-key", "roadlog_test_wrong")], "Invalid API Key"),
            // Another client's key, and a key of the other environment's form.
            (vec![("x-client-id", &id), ("x-api-key", &fleet.1)], "Invalid API Key"),
            (vec![("x-client-id", &id), ("x-api-key", &live_key)], "Invalid API Key"),
            // A bearer token is no vendor credential.
            (vec![("authorization", "Bearer rl_at_x")], "Missing X-CLIENT-ID or X-API-KEY header"),
        ];
        for (headers, message) in cases {
            let (status, body) = protected_with(app, &headers, query, json!({})).await;
            assert_eq!(status, StatusCode::OK, "{headers:?}: {body}");
            assert_eq!(body["data"], Value::Null, "{headers:?}");
            assert_eq!(codes(&body), ["AUTHENTICATION_ERROR"], "{headers:?}: {body}");
            assert_eq!(body["errors"][0]["message"], message, "{headers:?}");
        }
        // A document the guard refuses is 400 before the credentials matter.
        let (status, _) = protected_with(app, &[], "{ employmentToken(", json!({})).await;
        assert_eq!(status, StatusCode::BAD_REQUEST);
        // The clientId argument must be the caller's.
        let body = protected(app, &payroll, REGISTER, json!({ "c": fleet.0, "n": "X", "s": "123456789", "w": 3 })).await;
        assert_eq!(codes(&body), ["AUTHORIZATION_ERROR"]);
        assert_eq!(body["errors"][0]["message"], "You do not have access to the provided client id");
        // A company registered by another client is out of reach.
        let company = register(app, &fleet, "123456789", None).await["data"]["company"]["softwareRegistration"]["id"].as_i64().unwrap();
        let body = protected(app, &payroll, SYNC, json!({ "c": company, "e": [{ "email": "a@example.com", "firstName": "A", "lastName": "B" }] })).await;
        assert_eq!(codes(&body), ["AUTHORIZATION_ERROR"]);
        assert_eq!(body["errors"][0]["message"], "You do not have access to the provided company id");
        assert_eq!(app.scalar("SELECT COUNT(*) FROM employments").await, 0);
        // A revoked client's keys stop working.
        assert!(roadlog::oauth::clients::revoke(&app.server.db, &id).await.unwrap());
        let (_, body) = protected_with(app, &[("x-client-id", &id), ("x-api-key", &payroll.1)], query, json!({})).await;
        assert_eq!(body["errors"][0]["message"], "Invalid API Key");
    }

    async fn software_registration_validates_and_refuses_duplicates(app) {
        let payroll = vendor(app, "Payroll").await;
        let body = register(app, &payroll, "123456789", None).await;
        assert_eq!(body["errors"], Value::Null, "{body}");
        let company = &body["data"]["company"]["softwareRegistration"];
        assert_eq!(company["name"], "Transports Martin");
        assert_eq!(company["siren"], "123456789");
        assert_eq!(company["numberWorkers"], 12);
        assert_eq!(company["settings"], json!({ "allowTeamMode": true, "allowTransfers": false, "requireKilometerData": true, "requireMissionName": true }));
        // Refused inputs, each named, changing nothing.
        for (siren, siret, workers, field) in [
            ("12345678", None, 3, "siren"),
            ("12345678A", None, 3, "siren"),
            ("555555555", Some("12345678900012"), 3, "siret"),
            ("555555555", Some("5555555550001"), 3, "siret"),
            ("555555555", None, 0, "nbWorkers"),
        ] {
            let body = protected(app, &payroll, REGISTER, json!({ "c": payroll.0, "n": "X", "s": siren, "t": siret, "w": workers })).await;
            assert_eq!(codes(&body), ["INVALID_INPUTS"], "{siren} {siret:?}: {body}");
            assert_eq!(body["errors"][0]["extensions"]["field"], field, "{body}");
        }
        let body = protected(app, &payroll, REGISTER, json!({ "c": payroll.0, "n": " ", "s": "555555555", "w": 3 })).await;
        assert_eq!(codes(&body), ["INVALID_INPUTS"]);
        // Duplicates: a SIREN registered whole covers its establishments.
        assert_eq!(reason(&register(app, &payroll, "123456789", None).await), Some("SIREN_ALREADY_SIGNED_UP"));
        assert_eq!(reason(&register(app, &payroll, "123456789", Some("12345678900012")).await), Some("SIREN_ALREADY_SIGNED_UP"));
        assert_eq!(register(app, &payroll, "987654321", Some("98765432100012")).await["errors"], Value::Null);
        assert_eq!(reason(&register(app, &payroll, "987654321", Some("98765432100012")).await), Some("SIRET_ALREADY_SIGNED_UP"));
        assert_eq!(register(app, &payroll, "987654321", Some("98765432100020")).await["errors"], Value::Null);
        assert_eq!(reason(&register(app, &payroll, "987654321", None).await), Some("SIREN_ALREADY_SIGNED_UP"));
        assert_eq!(app.scalar("SELECT COUNT(*) FROM companies").await, 3);
        assert_eq!(app.scalar("SELECT COUNT(*) FROM client_companies").await, 3);
    }

    async fn sync_refuses_bad_lists_whole(app) {
        let payroll = vendor(app, "Payroll").await;
        let company = register(app, &payroll, "123456789", None).await["data"]["company"]["softwareRegistration"]["id"].as_i64().unwrap();
        let twice = json!([
            { "email": "a@example.com", "firstName": "A", "lastName": "B" },
            { "email": "A@example.com ", "firstName": "A", "lastName": "B" },
        ]);
        let body = protected(app, &payroll, SYNC, json!({ "c": company, "e": twice })).await;
        assert_eq!(codes(&body), ["INVALID_INPUTS"], "{body}");
        let many: Vec<Value> = (0..101).map(|i| json!({ "email": format!("w{i}@example.com"), "firstName": "A", "lastName": "B" })).collect();
        assert_eq!(codes(&protected(app, &payroll, SYNC, json!({ "c": company, "e": many })).await), ["INVALID_INPUTS"]);
        let body = protected(app, &payroll, SYNC, json!({ "c": company, "e": [{ "email": "a@example.com", "firstName": "", "lastName": "B" }] })).await;
        assert_eq!(codes(&body), ["INVALID_INPUTS"]);
        let body = protected(app, &payroll, SYNC, json!({ "c": company, "e": [{ "email": "a@example.com", "firstName": "A", "lastName": "B", "timezoneName": "Mars/Olympus" }] })).await;
        assert_eq!(codes(&body), ["INVALID_INPUTS"]);
        // A malformed e-mail is refused before execution.
        let (status, _) = protected_with(app, &[("x-client-id", &payroll.0.to_string()), ("x-api-key", &payroll.1)], SYNC, json!({ "c": company, "e": [{ "email": "nope", "firstName": "A", "lastName": "B" }] })).await;
        assert_eq!(status, StatusCode::BAD_REQUEST);
        assert_eq!(app.scalar("SELECT COUNT(*) FROM employments").await, 0);
        assert_eq!(app.scalar("SELECT COUNT(*) FROM emails").await, 0);
    }
}

tests! {
    async fn the_vendors_sdl_is_served() {
        let app = TestApp::spawn(Backend::Sqlite).await;
        let file = std::fs::read_to_string(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("schema/protected.graphql")).unwrap();
        for path in ["/protected.graphql", "/api/protected.graphql"] {
            let response = app.client.get(app.url(path)).send().await.unwrap();
            assert_eq!(response.status(), StatusCode::OK);
            assert_eq!(response.headers()["content-type"], "text/plain; charset=utf-8");
            assert!(response.headers().contains_key("etag"));
            assert_eq!(response.text().await.unwrap(), file);
        }
        app.cleanup().await;
    }
}
