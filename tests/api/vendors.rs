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

async fn count(app: &TestApp, sql: &str) -> i64 {
    let (n,): (i64,) = sqlx::query_as(sqlx::AssertSqlSafe(sql.to_string()))
        .fetch_one(&app.server.db.pool)
        .await
        .unwrap();
    n
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
        assert_eq!(count(app, "SELECT COUNT(*) FROM client_api_keys").await, 2);
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
        assert_eq!(count(app, "SELECT COUNT(*) FROM employments").await, 0);
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
        assert_eq!(count(app, "SELECT COUNT(*) FROM companies").await, 3);
        assert_eq!(count(app, "SELECT COUNT(*) FROM client_companies").await, 3);
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
        assert_eq!(count(app, "SELECT COUNT(*) FROM employments").await, 0);
        assert_eq!(count(app, "SELECT COUNT(*) FROM emails").await, 0);
    }

    async fn employees_accept_or_decline_and_the_vendor_gets_its_token(app) {
        let existing = app.new_user("known@example.com").await;
        let payroll = vendor(app, "Payroll Plus").await;
        let company = register(app, &payroll, "123456789", None).await["data"]["company"]["softwareRegistration"]["id"].as_i64().unwrap();
        let employees = json!([
            { "email": "new@example.com", "firstName": "Nina", "lastName": "Neuf", "hasAdminRights": true },
            { "email": "KNOWN@example.com", "firstName": "Karl", "lastName": "Known" },
            { "email": "no@example.com", "firstName": "Noe", "lastName": "Non" },
        ]);
        let body = protected(app, &payroll, SYNC, json!({ "c": company, "e": employees })).await;
        assert_eq!(body["errors"], Value::Null, "{body}");
        let synced = body["data"]["company"]["syncEmployment"].as_array().unwrap().clone();
        assert_eq!(synced.len(), 3);
        // Only what the vendor sent: no user, whether or not the e-mail had an account.
        for (employment, (email, admin)) in synced.iter().zip([("new@example.com", true), ("known@example.com", false), ("no@example.com", false)]) {
            assert_eq!(employment["email"], email);
            assert_eq!(employment["hasAdminRights"], admin);
            assert_eq!(employment["companyId"], company);
            assert_eq!(employment["validationStatus"], "pending");
            assert_eq!(employment["userId"], Value::Null);
            assert_eq!(employment["user"], Value::Null);
        }
        let ids: Vec<i64> = synced.iter().map(|e| e["id"].as_i64().unwrap()).collect();
        // The known account is not attached before it accepts.
        let (attached,): (Option<i64>,) = sqlx::query_as("SELECT user_id FROM employments WHERE id = $1").bind(ids[1]).fetch_one(&app.server.db.pool).await.unwrap();
        assert_eq!(attached, None);
        let token_of = |id: i64| json!({ "c": payroll.0, "e": id });
        let body = protected(app, &payroll, TOKEN, token_of(ids[0])).await;
        let link = &body["data"]["employmentToken"];
        assert_eq!(link["accessToken"], Value::Null, "{body}");
        assert_eq!(link["clientName"], "Payroll Plus");
        assert_eq!(link["employment"]["company"]["name"], "Transports Martin");

        // A new account: the password is chosen on the page.
        let mut browser = Browser::new();
        let page = browser.get(&app.url(&mailed_link(app, "new@example.com").await)).await;
        assert_eq!(page.status, StatusCode::OK, "{}", page.body);
        assert!(page.body.contains("Payroll Plus") && page.body.contains("Transports Martin"));
        assert!(page.body.contains("with the rights of a company admin"));
        let action = forms::action(&app.url(""), &page.body);
        let csrf = forms::field(&page.body, "csrf_token");
        // Without the CSRF token nothing is done.
        let refused = browser.post(&action, &[("action", "accept"), ("password", "a new secret"), ("password_confirmation", "a new secret")]).await;
        assert_eq!(refused.status, StatusCode::FORBIDDEN);
        let refused = browser.post(&action, &[("csrf_token", &csrf), ("action", "accept"), ("password", "short"), ("password_confirmation", "short")]).await;
        assert_eq!(refused.status, StatusCode::BAD_REQUEST, "{}", refused.body);
        let refused = browser.post(&action, &[("csrf_token", &csrf), ("action", "accept"), ("password", "a new secret"), ("password_confirmation", "another one")]).await;
        assert_eq!(refused.status, StatusCode::BAD_REQUEST);
        assert_eq!(count(app, "SELECT COUNT(*) FROM users").await, 1);
        let done = browser.post(&action, &[("csrf_token", &csrf), ("action", "accept"), ("password", "a new secret"), ("password_confirmation", "a new secret")]).await;
        assert_eq!(done.status, StatusCode::OK, "{}", done.body);
        assert!(done.body.contains("Request accepted"));
        // The link is used now.
        assert_eq!(browser.get(&action).await.status, StatusCode::CONFLICT);
        // The vendor gets the token once; only its hash is kept.
        let body = protected(app, &payroll, TOKEN, token_of(ids[0])).await;
        let link = &body["data"]["employmentToken"];
        let token = link["accessToken"].as_str().unwrap_or_else(|| panic!("{body}")).to_string();
        assert!(token.starts_with("rl_et_"));
        assert_eq!(link["employment"]["validationStatus"], "approved");
        let new_user = link["employment"]["userId"].as_i64().unwrap();
        let (hash,): (String,) = sqlx::query_as("SELECT access_token_hash FROM client_employments WHERE employment_id = $1").bind(ids[0]).fetch_one(&app.server.db.pool).await.unwrap();
        assert_eq!(hash, roadlog::domain::auth::tokens::hash(&token));
        assert_eq!(protected(app, &payroll, TOKEN, token_of(ids[0])).await["data"]["employmentToken"]["accessToken"], Value::Null);
        // The new account signs in with the chosen password and is the company's admin.
        let (_, login) = app.graphql("mutation { auth { login(email: \"new@example.com\", password: \"a new secret\") { accessToken } } }", json!({}), None).await;
        let access = login["data"]["auth"]["login"]["accessToken"].as_str().unwrap_or_else(|| panic!("{login}")).to_string();
        let (_, me) = app.graphql("{ me { id firstName lastName currentEmployments { id companyId hasAdminRights } } }", json!({}), Some(&access)).await;
        assert_eq!(me["data"]["me"]["id"], new_user);
        assert_eq!(me["data"]["me"]["firstName"], "Nina");
        assert_eq!(me["data"]["me"]["currentEmployments"], json!([{ "id": ids[0], "companyId": company, "hasAdminRights": true }]));
        // The admin sees the pending synced employee without their account.
        let (_, seen) = app.graphql("query($c: Int!) { company(id: $c) { employments { id userId email validationStatus user { id } } } }", json!({ "c": company }), Some(&access)).await;
        let pending = seen["data"]["company"]["employments"].as_array().unwrap().iter().find(|e| e["id"] == ids[1]).cloned().unwrap_or_else(|| panic!("{seen}"));
        assert_eq!(pending["userId"], Value::Null);
        assert_eq!(pending["user"], Value::Null);

        // An existing account signs in with its password.
        let mut browser = Browser::new();
        let page = browser.get(&app.url(&mailed_link(app, "known@example.com").await)).await;
        assert!(page.body.contains("An account exists for this e-mail"));
        let action = forms::action(&app.url(""), &page.body);
        let csrf = forms::field(&page.body, "csrf_token");
        let wrong = browser.post(&action, &[("csrf_token", &csrf), ("action", "accept"), ("password", "not the password")]).await;
        assert_eq!(wrong.status, StatusCode::UNAUTHORIZED);
        let done = browser.post(&action, &[("csrf_token", &csrf), ("action", "accept"), ("password", "long enough secret")]).await;
        assert_eq!(done.status, StatusCode::OK, "{}", done.body);
        let body = protected(app, &payroll, TOKEN, token_of(ids[1])).await;
        assert_eq!(body["data"]["employmentToken"]["employment"]["userId"], existing.id);
        assert!(body["data"]["employmentToken"]["accessToken"].is_string());

        // The third declines: the employment is rejected, no token ever.
        let mut browser = Browser::new();
        let page = browser.get(&app.url(&mailed_link(app, "no@example.com").await)).await;
        let action = forms::action(&app.url(""), &page.body);
        let csrf = forms::field(&page.body, "csrf_token");
        let done = browser.post(&action, &[("csrf_token", &csrf), ("action", "decline")]).await;
        assert_eq!(done.status, StatusCode::OK);
        assert!(done.body.contains("Request declined"));
        let body = protected(app, &payroll, TOKEN, token_of(ids[2])).await;
        assert_eq!(body["data"]["employmentToken"]["accessToken"], Value::Null);
        assert_eq!(body["data"]["employmentToken"]["employment"]["validationStatus"], "rejected");
        let again = browser.post(&action, &[("csrf_token", &csrf), ("action", "accept"), ("password", "whatever123"), ("password_confirmation", "whatever123")]).await;
        assert_eq!(again.status, StatusCode::CONFLICT);
        assert_eq!(count(app, "SELECT COUNT(*) FROM users").await, 2);

        // Unknown links; another vendor's employment is not readable.
        assert_eq!(Browser::new().get(&app.url("/sync_employee?token=rl_sync_unknown")).await.status, StatusCode::NOT_FOUND);
        assert_eq!(Browser::new().get(&app.url("/sync_employee")).await.status, StatusCode::BAD_REQUEST);
        assert_eq!(Browser::new().get(&app.url("/sync_employee?token=a&token=b")).await.status, StatusCode::BAD_REQUEST);
        let fleet = vendor(app, "Fleet").await;
        assert_eq!(protected(app, &fleet, TOKEN, json!({ "c": fleet.0, "e": ids[0] })).await["data"]["employmentToken"], Value::Null);
    }

    async fn the_sandbox_outbox_hides_the_employees_links_from_their_admin(app) {
        let payroll = vendor(app, "Payroll Plus").await;
        let company = register(app, &payroll, "123456789", None).await["data"]["company"]["softwareRegistration"]["id"].as_i64().unwrap();
        let employees = json!([
            { "email": "boss@example.com", "firstName": "Bea", "lastName": "Boss", "hasAdminRights": true },
            { "email": "emp@example.com", "firstName": "Emil", "lastName": "Emp" },
        ]);
        let body = protected(app, &payroll, SYNC, json!({ "c": company, "e": employees })).await;
        assert_eq!(body["errors"], Value::Null, "{body}");
        // The admin-to-be accepts and sets a password through their own link.
        let mut browser = Browser::new();
        let page = browser.get(&app.url(&mailed_link(app, "boss@example.com").await)).await;
        let form = [("csrf_token", forms::field(&page.body, "csrf_token")), ("action", "accept".into()), ("password", "the boss secret".into()), ("password_confirmation", "the boss secret".into())];
        let form: Vec<(&str, &str)> = form.iter().map(|(k, v)| (*k, v.as_str())).collect();
        let done = browser.post(&forms::action(&app.url(""), &page.body), &form).await;
        assert_eq!(done.status, StatusCode::OK, "{}", done.body);
        let (_, login) = app.graphql("mutation { auth { login(email: \"boss@example.com\", password: \"the boss secret\") { accessToken } } }", json!({}), None).await;
        let boss = login["data"]["auth"]["login"]["accessToken"].as_str().unwrap_or_else(|| panic!("{login}")).to_string();

        // The admin reads the company's mail: the employee's link is masked, their own is not.
        let employee_link = mailed_link(app, "emp@example.com").await;
        let employee_token = employee_link.split("token=").nth(1).unwrap().to_string();
        let response = app.client.get(app.url("/sandbox/outbox")).bearer_auth(&boss).send().await.unwrap();
        assert_eq!(response.status(), StatusCode::OK);
        let mails: Vec<Value> = response.json().await.unwrap();
        let to = |address: &str| mails.iter().find(|m| m["to"].as_str().unwrap().eq_ignore_ascii_case(address)).unwrap_or_else(|| panic!("{mails:?}"))["body"].as_str().unwrap().to_string();
        let employee_mail = to("emp@example.com");
        assert!(!employee_mail.contains(&employee_token), "{employee_mail}");
        assert!(employee_mail.contains("/sync_employee?token=rl_sync_[hidden: only the recipient sees this token]"), "{employee_mail}");
        let own_link = mailed_link(app, "boss@example.com").await;
        assert!(to("boss@example.com").contains(&own_link), "the recipient sees their own link");

        // The link still works for the employee, who gets it from their own mail.
        let mut browser = Browser::new();
        let page = browser.get(&app.url(&employee_link)).await;
        assert_eq!(page.status, StatusCode::OK, "{}", page.body);
        let form = [("csrf_token", forms::field(&page.body, "csrf_token")), ("action", "accept".into()), ("password", "the emp secret".into()), ("password_confirmation", "the emp secret".into())];
        let form: Vec<(&str, &str)> = form.iter().map(|(k, v)| (*k, v.as_str())).collect();
        let done = browser.post(&forms::action(&app.url(""), &page.body), &form).await;
        assert_eq!(done.status, StatusCode::OK, "{}", done.body);
        assert!(done.body.contains("Request accepted"));
    }

    async fn expired_links_get_a_page_and_a_new_sync_mails_a_new_one(app) {
        let payroll = vendor(app, "Payroll").await;
        let company = register(app, &payroll, "123456789", None).await["data"]["company"]["softwareRegistration"]["id"].as_i64().unwrap();
        let employee = json!({ "c": company, "e": [{ "email": "late@example.com", "firstName": "L", "lastName": "Ate" }] });
        protected(app, &payroll, SYNC, employee.clone()).await;
        let first = mailed_link(app, "late@example.com").await;
        // Syncing again within 7 days mails nothing new.
        protected(app, &payroll, SYNC, employee.clone()).await;
        assert_eq!(outbox(app, "late@example.com").await.len(), 1);
        sqlx::query("UPDATE client_employments SET invitation_expires_at = $1").bind(chrono::Utc::now().timestamp() - 1).execute(&app.server.db.pool).await.unwrap();
        let mut browser = Browser::new();
        let page = browser.get(&app.url(&first)).await;
        assert_eq!(page.status, StatusCode::GONE);
        assert!(page.body.contains("Ask Payroll to send you a new one"));
        protected(app, &payroll, SYNC, employee).await;
        assert_eq!(outbox(app, "late@example.com").await.len(), 2);
        let second = mailed_link(app, "late@example.com").await;
        assert_ne!(first, second);
        assert_eq!(browser.get(&app.url(&first)).await.status, StatusCode::NOT_FOUND);
        assert_eq!(browser.get(&app.url(&second)).await.status, StatusCode::OK);
        assert_eq!(count(app, "SELECT COUNT(*) FROM employments").await, 1);
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

    #[needs(Browser)]
    async fn the_whole_vendor_journey_with_a_real_browser() {
        journey_in_a_browser(Backend::Sqlite).await;
        // PostgreSQL too where it runs (mandatory in CI, with TEST_DATABASE_URL).
        if crate::support::app::postgres_url().is_some() {
            journey_in_a_browser(Backend::Postgres).await;
        }
    }
}

/// Registers a company, syncs three employees, one accepts in Chromium (choosing a password),
/// and the vendor gets its employment token.
async fn journey_in_a_browser(backend: Backend) {
    use crate::support::browser::Driver;
    let app = TestApp::spawn(backend).await;
    let payroll = vendor(&app, "Payroll Plus").await;
    let company = register(&app, &payroll, "123456789", None).await["data"]["company"]["softwareRegistration"]["id"]
        .as_i64()
        .unwrap();
    let employees = json!([
        { "email": "ana@example.com", "firstName": "Ana", "lastName": "A" },
        { "email": "bob@example.com", "firstName": "Bob", "lastName": "B" },
        { "email": "cyd@example.com", "firstName": "Cyd", "lastName": "C" },
    ]);
    let body = protected(&app, &payroll, SYNC, json!({ "c": company, "e": employees })).await;
    let ids: Vec<i64> = body["data"]["company"]["syncEmployment"]
        .as_array()
        .unwrap_or_else(|| panic!("{body}"))
        .iter()
        .map(|e| e["id"].as_i64().unwrap())
        .collect();
    assert_eq!(ids.len(), 3);
    let driver = Driver::start().await;
    driver.go(&app.url(&mailed_link(&app, "bob@example.com").await)).await;
    driver.find("button[value=accept]").await;
    driver.keep_screenshot("vendor_accept").await;
    driver.type_into("#password", "bob's new secret").await;
    driver.type_into("#password_confirmation", "bob's new secret").await;
    driver.click("button[value=accept]").await;
    driver.find_xpath("//h1[text()='Request accepted']").await;
    driver.quit().await;
    let body = protected(&app, &payroll, TOKEN, json!({ "c": payroll.0, "e": ids[1] })).await;
    let token = &body["data"]["employmentToken"];
    assert!(
        token["accessToken"].as_str().is_some_and(|t| t.starts_with("rl_et_")),
        "{body}"
    );
    assert_eq!(token["employment"]["validationStatus"], "approved");
    // The vendor now writes and reads Bob's time on the main API with the token.
    let bob = (
        payroll.0.to_string(),
        token["accessToken"].as_str().unwrap().to_string(),
    );
    let created = with_employment_token(
        &app,
        &bob,
        "mutation($c: Int!) { activities { createMission(companyId: $c, name: \"Tour\") { id companyId } } }",
        json!({ "c": company }),
    )
    .await;
    let mission = created["data"]["activities"]["createMission"]["id"]
        .as_i64()
        .unwrap_or_else(|| panic!("{created}"));
    // The employment starts today (UTC) and the vendor logs an hour ago: started long ago, it
    // covers that hour at any time of day.
    sqlx::query("UPDATE employments SET start_date = '2020-01-01' WHERE company_id = $1")
        .bind(company)
        .execute(&app.server.db.pool)
        .await
        .unwrap();
    let now = chrono::Utc::now().timestamp();
    let logged = with_employment_token(
        &app,
        &bob,
        "mutation($m: Int!, $s: TimeStamp!) { activities { logActivity(missionId: $m, type: \"drive\", startTime: $s) { id userId } } }",
        json!({ "m": mission, "s": now - now % 60 - 3600 }),
    )
    .await;
    let bob_id = logged["data"]["activities"]["logActivity"]["userId"]
        .as_i64()
        .unwrap_or_else(|| panic!("{logged}"));
    let read = with_employment_token(
        &app,
        &bob,
        "{ me { id missions { edges { node { id companyId } } } } }",
        json!({}),
    )
    .await;
    assert_eq!(read["data"]["me"]["id"], bob_id, "{read}");
    assert_eq!(
        read["data"]["me"]["missions"]["edges"],
        json!([{ "node": { "id": mission, "companyId": company } }])
    );
    for other in [ids[0], ids[2]] {
        let body = protected(&app, &payroll, TOKEN, json!({ "c": payroll.0, "e": other })).await;
        assert_eq!(body["data"]["employmentToken"]["accessToken"], Value::Null);
        assert_eq!(
            body["data"]["employmentToken"]["employment"]["validationStatus"],
            "pending"
        );
    }
    app.cleanup().await;
}

/// A GraphQL request to the main API with a vendor's client id and an employment token.
async fn with_employment_token(
    app: &TestApp,
    (client, token): &(String, String),
    query: &str,
    variables: Value,
) -> Value {
    let response = app
        .client
        .post(app.url("/api/graphql"))
        .header("X-CLIENT-ID", client)
        .header("X-EMPLOYMENT-TOKEN", token)
        .json(&json!({ "query": query, "variables": variables }))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    response.json().await.unwrap()
}
