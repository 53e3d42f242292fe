//! Software vendors on the main API (issue 18 items 4 and 5), on both databases: the whole
//! journey (register a company, sync three employees, one accepts on the page, the vendor reads
//! and writes that employee's missions with the employment token while the employee's other
//! company stays invisible), the order of credential checks, revocation by the employee and by
//! an admin effective at once, rotation and expiry, the audit trail and the per-client rate
//! limit. The accept in a real browser is covered in `vendors`.

use reqwest::StatusCode;
use serde_json::{Value, json};

use crate::support::employments::today;
use crate::support::forms::{self, Browser};
use crate::support::{TestApp, TestUser, codes};
use crate::vendors::{SYNC, TOKEN, mailed_link, protected, reason, register, vendor};

mod rates;

/// Credentials of a request to the main API.
#[derive(Default, Clone)]
pub(crate) struct Headers<'a> {
    pub(crate) client: Option<&'a str>,
    pub(crate) token: Option<&'a str>,
    pub(crate) bearer: Option<&'a str>,
}

impl Headers<'_> {
    /// A GraphQL request to the main API carrying these credentials.
    pub(crate) fn post(&self, app: &TestApp, body: &Value) -> reqwest::RequestBuilder {
        let mut request = app.client.post(app.url("/api/graphql")).json(body);
        if let Some(client) = self.client {
            request = request.header("X-CLIENT-ID", client);
        }
        if let Some(token) = self.token {
            request = request.header("X-EMPLOYMENT-TOKEN", token);
        }
        if let Some(bearer) = self.bearer {
            request = request.bearer_auth(bearer);
        }
        request
    }
}

pub(crate) async fn call(app: &TestApp, headers: &Headers<'_>, query: &str, variables: Value) -> Value {
    let request = headers.post(app, &json!({ "query": query, "variables": variables }));
    let response = request.send().await.unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    response.json().await.unwrap()
}

fn message(body: &Value) -> &str {
    body["errors"][0]["message"].as_str().unwrap_or_default()
}

/// A whole minute, `minutes` ago.
/// Employments start on the day they are made (UTC), and the journey logs hours in the past:
/// started long ago, they cover those hours whatever the time of day the test runs at.
async fn backdate_employments(app: &TestApp) {
    sqlx::query("UPDATE employments SET start_date = '2020-01-01'")
        .execute(&app.server.db.pool)
        .await
        .unwrap();
}

pub(crate) fn minutes_ago(minutes: i64) -> i64 {
    let now = chrono::Utc::now().timestamp();
    now - now % 60 - minutes * 60
}

const ME: &str = "{ me { id currentEmployments { companyId } employments(includePending: true) { companyId } adminedCompanies { id } missions { edges { node { id companyId } } } } }";
const CREATE: &str =
    "mutation($c: Int!) { activities { createMission(companyId: $c, name: \"Tour\") { id companyId submitterId } } }";
const LOG: &str = "mutation($m: Int!, $s: TimeStamp!) { activities { logActivity(missionId: $m, type: \"drive\", startTime: $s) { id userId } } }";
pub(crate) const LOG_ENDED: &str = "mutation($m: Int!, $s: TimeStamp!, $e: TimeStamp!) { activities { logActivity(missionId: $m, type: \"work\", startTime: $s, endTime: $e, switch: false) { id userId } } }";
const ROTATE: &str =
    "mutation($c: Int!, $e: Int!) { rotateEmploymentToken(clientId: $c, employmentId: $e) { accessToken expiresAt } }";
const DISMISS_EMPLOYMENT: &str =
    "mutation($c: Int!, $e: Int!) { dismissEmploymentToken(clientId: $c, employmentId: $e) { success } }";
const DISMISS_COMPANY: &str =
    "mutation($c: Int!, $co: Int!) { dismissCompanyToken(clientId: $c, companyId: $co) { id name } }";
const LINK_COMPANY: &str =
    "mutation($c: Int!, $co: Int!) { generateCompanyToken(clientId: $c, companyId: $co) { id name } }";

/// Accepts the employee's latest invitation on the page, over HTTP, with their password.
async fn accept(app: &TestApp, email: &str) {
    let mut browser = Browser::new();
    let page = browser.get(&app.url(&mailed_link(app, email).await)).await;
    assert_eq!(page.status, StatusCode::OK, "{}", page.body);
    let action = forms::action(&app.url(""), &page.body);
    let csrf = forms::field(&page.body, "csrf_token");
    let done = browser
        .post(
            &action,
            &[
                ("csrf_token", &csrf),
                ("action", "accept"),
                ("password", "long enough secret"),
            ],
        )
        .await;
    assert_eq!(done.status, StatusCode::OK, "{}", done.body);
}

/// The vendor's employment token for the employment (after acceptance).
pub(crate) async fn token_for(app: &TestApp, vendor: &(i64, String), employment: i64) -> String {
    let body = protected(app, vendor, TOKEN, json!({ "c": vendor.0, "e": employment })).await;
    body["data"]["employmentToken"]["accessToken"]
        .as_str()
        .unwrap_or_else(|| panic!("{body}"))
        .to_string()
}

/// The journey's cast: the vendor, its company, Bob employed there and in another company.
pub(crate) struct Journey {
    pub(crate) payroll: (i64, String),
    pub(crate) client: String,
    pub(crate) company: i64,
    pub(crate) other: i64,
    pub(crate) other_admin: TestUser,
    pub(crate) bob: TestUser,
    pub(crate) bob_employment: i64,
    pub(crate) other_mission: i64,
}

pub(crate) async fn journey(app: &TestApp) -> Journey {
    // Bob already works for another company, where he recorded a mission.
    let other_admin = app.new_user("boss@other.example.com").await;
    let other = app.new_company(&other_admin, "Other Co").await;
    let bob = app.new_user("bob@example.com").await;
    app.hire(&other_admin, other, &bob).await;
    backdate_employments(app).await;
    let body = app.as_user(&bob, CREATE, json!({ "c": other })).await;
    let other_mission = body["data"]["activities"]["createMission"]["id"].as_i64().unwrap();
    let body = app
        .as_user(
            &bob,
            LOG_ENDED,
            json!({ "m": other_mission, "s": minutes_ago(600), "e": minutes_ago(540) }),
        )
        .await;
    assert!(body["errors"].is_null(), "{body}");

    // The vendor registers a company and syncs three employees; Bob accepts.
    let payroll = vendor(app, "Payroll Plus").await;
    let company = register(app, &payroll, "987654321", None).await["data"]["company"]["softwareRegistration"]["id"]
        .as_i64()
        .unwrap();
    let employees = json!([
        { "email": "ana@example.com", "firstName": "Ana", "lastName": "A" },
        { "email": "bob@example.com", "firstName": "Bob", "lastName": "B", "hasAdminRights": true },
        { "email": "cyd@example.com", "firstName": "Cyd", "lastName": "C" },
    ]);
    let body = protected(app, &payroll, SYNC, json!({ "c": company, "e": employees })).await;
    let synced = body["data"]["company"]["syncEmployment"]
        .as_array()
        .unwrap_or_else(|| panic!("{body}"));
    assert_eq!(synced.len(), 3);
    let bob_employment = synced[1]["id"].as_i64().unwrap();
    accept(app, "bob@example.com").await;
    backdate_employments(app).await;
    let client = payroll.0.to_string();
    Journey {
        payroll,
        client,
        company,
        other,
        other_admin,
        bob,
        bob_employment,
        other_mission,
    }
}

on_both_backends! {
    async fn a_vendor_acts_for_the_employee_inside_one_company_only(app) {
        let j = journey(app).await;
        let token = token_for(app, &j.payroll, j.bob_employment).await;
        let as_vendor = Headers { client: Some(&j.client), token: Some(&token), bearer: None };

        // Bob, seen through the token: the vendor's company only.
        let body = call(app, &as_vendor, ME, json!({})).await;
        assert!(body["errors"].is_null(), "{body}");
        let me = &body["data"]["me"];
        assert_eq!(me["id"], j.bob.id);
        assert_eq!(me["currentEmployments"], json!([{ "companyId": j.company }]));
        assert_eq!(me["employments"], json!([{ "companyId": j.company }]));
        assert_eq!(me["adminedCompanies"], json!([{ "id": j.company }]));
        assert_eq!(me["missions"]["edges"], json!([]), "the other company's mission is invisible");
        // Bob himself, with his login, sees both.
        let body = app.as_user(&j.bob, ME, json!({})).await;
        assert_eq!(body["data"]["me"]["currentEmployments"].as_array().unwrap().len(), 2, "{body}");

        // The other company's ids are refused.
        let denied = [
            ("query($id: Int!) { company(id: $id) { id name } }", j.other),
            ("query($id: Int!) { mission(id: $id) { id } }", j.other_mission),
            // A co-worker of the other company only.
            ("query($id: Int!) { user(id: $id) { id } }", j.other_admin.id),
        ];
        for (query, id) in denied {
            let body = call(app, &as_vendor, query, json!({ "id": id })).await;
            assert_eq!(codes(&body), ["AUTHORIZATION_ERROR"], "{query}: {body}");
        }
        let body = call(app, &as_vendor, CREATE, json!({ "c": j.other })).await;
        assert_eq!(codes(&body), ["AUTHORIZATION_ERROR"], "{body}");
        let body = call(app, &as_vendor, LOG, json!({ "m": j.other_mission, "s": minutes_ago(30) })).await;
        assert_eq!(codes(&body), ["AUTHORIZATION_ERROR"], "{body}");
        let body = call(app, &as_vendor, "mutation { signUp { company(usualName: \"New\", siren: \"111222333\") { company { id } } } }", json!({})).await;
        assert_eq!(codes(&body), ["AUTHORIZATION_ERROR"], "{body}");
        let (missions,): (i64,) = sqlx::query_as("SELECT COUNT(*) FROM missions WHERE company_id = $1").bind(j.other).fetch_one(&app.server.db.pool).await.unwrap();
        assert_eq!(missions, 1, "nothing was written in the other company");

        // Reads and writes inside the vendor's company.
        let body = call(app, &as_vendor, "query($id: Int!) { company(id: $id) { id name } }", json!({ "id": j.company })).await;
        assert_eq!(body["data"]["company"]["name"], "Transports Martin", "{body}");
        let body = call(app, &as_vendor, CREATE, json!({ "c": j.company })).await;
        let mission = &body["data"]["activities"]["createMission"];
        assert_eq!(mission["submitterId"], j.bob.id, "{body}");
        let mission = mission["id"].as_i64().unwrap();
        let body = call(app, &as_vendor, LOG, json!({ "m": mission, "s": minutes_ago(120) })).await;
        assert_eq!(body["data"]["activities"]["logActivity"]["userId"], j.bob.id, "{body}");
        let body = call(app, &as_vendor, ME, json!({})).await;
        assert_eq!(body["data"]["me"]["missions"]["edges"], json!([{ "node": { "id": mission, "companyId": j.company } }]));
        let body = call(app, &as_vendor, "{ me { activities { edges { node { missionId } } } } }", json!({})).await;
        assert_eq!(body["data"]["me"]["activities"]["edges"], json!([{ "node": { "missionId": mission } }]), "{body}");
        let body = app.as_user(&j.bob, "query($id: Int!) { user(id: $id) { id } }", json!({ "id": j.other_admin.id })).await;
        assert_eq!(body["data"]["user"]["id"], j.other_admin.id, "Bob himself reads his co-worker: {body}");
        // Bob's time in the other company still counts (no overlap), but the refusal tells
        // nothing of it.
        let body = call(app, &as_vendor, LOG_ENDED, json!({ "m": mission, "s": minutes_ago(580), "e": minutes_ago(560) })).await;
        assert_eq!(codes(&body), ["OVERLAPPING_ACTIVITIES"], "{body}");
        assert_eq!(body["errors"][0]["extensions"].get("conflictingActivity"), None, "{body}");
        let body = app.as_user(&j.bob, LOG_ENDED, json!({ "m": mission, "s": minutes_ago(580), "e": minutes_ago(560) })).await;
        assert_eq!(body["errors"][0]["extensions"]["conflictingActivity"]["missionId"], j.other_mission, "{body}");

        // The export: the other company is refused (403), the vendor's is served.
        let export = |companies: Vec<i64>| {
            app.client
                .post(app.url("/companies/generate_tachograph_files"))
                .header("X-CLIENT-ID", &j.client)
                .header("X-EMPLOYMENT-TOKEN", &token)
                .json(&json!({ "company_ids": companies, "min_date": today(), "max_date": today() }))
                .send()
        };
        assert_eq!(export(vec![j.other]).await.unwrap().status(), StatusCode::FORBIDDEN);
        assert_eq!(export(vec![j.company, j.other]).await.unwrap().status(), StatusCode::FORBIDDEN);
        assert_eq!(export(vec![j.company]).await.unwrap().status(), StatusCode::OK);
        let response = app
            .client
            .post(app.url("/companies/generate_tachograph_files"))
            .header("X-CLIENT-ID", &j.client)
            .header("X-EMPLOYMENT-TOKEN", "rl_et_unknown")
            .json(&json!({ "company_ids": [j.company], "min_date": today(), "max_date": today() }))
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), StatusCode::UNAUTHORIZED);

        // The company's admin (Bob, logged in) sees the software, its use and its actions.
        let query = "query($id: Int!) { company(id: $id) { authorizedClients { id name linkedAt lastUsedAt employmentTokenCount } vendorActions(first: 50) { clientId clientName operation credential employmentId userId } } }";
        let body = app.as_user(&j.bob, query, json!({ "id": j.company })).await;
        let company = &body["data"]["company"];
        let clients = company["authorizedClients"].as_array().unwrap_or_else(|| panic!("{body}"));
        assert_eq!(clients.len(), 1);
        assert_eq!(clients[0]["id"], j.payroll.0);
        assert_eq!(clients[0]["employmentTokenCount"], 1);
        assert!(clients[0]["lastUsedAt"].is_i64() && clients[0]["linkedAt"].is_i64(), "{body}");
        let actions = company["vendorActions"].as_array().unwrap();
        let operations: Vec<(&str, &str)> = actions.iter().map(|a| (a["operation"].as_str().unwrap(), a["credential"].as_str().unwrap())).collect();
        assert!(operations.contains(&("mutation activities.createMission", "EMPLOYMENT_TOKEN")), "{operations:?}");
        assert!(operations.contains(&("POST /companies/generate_tachograph_files", "EMPLOYMENT_TOKEN")), "{operations:?}");
        assert!(operations.contains(&("mutation company.syncEmployment", "API_KEY")), "{operations:?}");
        assert!(operations.contains(&("mutation company.softwareRegistration", "API_KEY")), "{operations:?}");
        let by_token = actions.iter().find(|a| a["credential"] == "EMPLOYMENT_TOKEN").unwrap();
        assert_eq!((by_token["userId"].clone(), by_token["employmentId"].clone()), (json!(j.bob.id), json!(j.bob_employment)));
        assert!(!body.to_string().contains(&token), "no token in the trail");
        // Another company's admin reads none of it.
        let body = app.as_user(&j.other_admin, query, json!({ "id": j.company })).await;
        assert_eq!(codes(&body), ["AUTHORIZATION_ERROR"], "{body}");
        let body = app.as_user(&j.bob, "query($id: Int!) { company(id: $id) { vendorActions(first: 201) { operation } } }", json!({ "id": j.company })).await;
        assert_eq!(codes(&body), ["INVALID_INPUTS"], "{body}");
    }

    async fn credentials_are_checked_in_the_reference_order(app) {
        let j = journey(app).await;
        let token = token_for(app, &j.payroll, j.bob_employment).await;
        let who = "{ me { id } }";
        let id_of = |body: &Value| body["data"]["me"]["id"].clone();
        // A valid login token sent alongside wins.
        let both = Headers { client: Some(&j.client), token: Some(&token), bearer: Some(&j.other_admin.token) };
        assert_eq!(id_of(&call(app, &both, who, json!({})).await), json!(j.other_admin.id));
        // An invalid login token does not: the employment token is next.
        let body = call(app, &Headers { bearer: Some("rl_at_not_a_session"), ..both.clone() }, who, json!({})).await;
        assert_eq!(id_of(&body), json!(j.bob.id), "{body}");
        // The employment token comes before a bearer looked up as an OAuth client's token: its
        // refusal is the answer.
        let body = call(app, &Headers { token: Some("rl_et_unknown"), bearer: Some("some-oauth-token"), ..both.clone() }, who, json!({})).await;
        assert_eq!((codes(&body), message(&body)), (vec!["AUTHENTICATION_ERROR".to_string()], "Invalid token"));
        // Each refusal.
        let fleet = vendor(app, "Fleet").await.0.to_string();
        let cases: Vec<(Headers, &str)> = vec![
            (Headers { client: Some(&fleet), token: Some(&token), bearer: None }, "Invalid token"),
            (Headers { client: Some("not-a-number"), token: Some(&token), bearer: None }, "Invalid token"),
            (Headers { client: Some(&j.client), token: Some("rl_et_unknown"), bearer: None }, "Invalid token"),
            (Headers { client: Some(&j.client), token: Some("no prefix"), bearer: None }, "Invalid token"),
            (Headers { client: None, token: Some(&token), bearer: None }, "X-EMPLOYMENT-TOKEN needs the X-CLIENT-ID header"),
            (Headers::default(), "Unable to find a valid cookie or authorization header"),
        ];
        for (headers, expected) in cases {
            let body = call(app, &headers, who, json!({})).await;
            assert_eq!(codes(&body), ["AUTHENTICATION_ERROR"], "{body}");
            assert_eq!(message(&body), expected);
        }
        // X-CLIENT-ID alone changes nothing for a login token.
        let body = call(app, &Headers { client: Some(&j.client), token: None, bearer: Some(&j.bob.token) }, who, json!({})).await;
        assert_eq!(id_of(&body), json!(j.bob.id));
    }

    async fn the_employee_and_the_admin_revoke_at_once(app) {
        let j = journey(app).await;
        let token = token_for(app, &j.payroll, j.bob_employment).await;
        let as_vendor = Headers { client: Some(&j.client), token: Some(&token), bearer: None };
        let who = "{ me { id } }";
        let vars = |client: i64, employment: i64| json!({ "c": client, "e": employment });

        // The employee sees which software holds a token for the employment; no one else does.
        let clients = "query($id: Int!) { me { currentEmployments { id authorizedClients { id name } } } company(id: $id) { employments { id authorizedClients { id } } } }";
        let body = app.as_user(&j.bob, clients, json!({ "id": j.company })).await;
        let mine: Vec<&Value> = body["data"]["me"]["currentEmployments"].as_array().unwrap().iter().filter(|e| e["id"] == j.bob_employment).collect();
        assert_eq!(mine[0]["authorizedClients"], json!([{ "id": j.payroll.0, "name": "Payroll Plus" }]), "{body}");
        assert_eq!(codes(&body), ["AUTHORIZATION_ERROR", "AUTHORIZATION_ERROR"], "the two other employees' are refused: {body}");
        // dismissEmploymentToken: the employee's own employment only, an active link only.
        let body = app.as_user(&j.other_admin, DISMISS_EMPLOYMENT, vars(j.payroll.0, j.bob_employment)).await;
        assert_eq!(codes(&body), ["AUTHORIZATION_ERROR"], "{body}");
        let body = app.as_user(&j.bob, DISMISS_EMPLOYMENT, vars(123456789, j.bob_employment)).await;
        assert_eq!((codes(&body), reason(&body)), (vec!["INVALID_INPUTS".to_string()], Some("EMPLOYMENT_CLIENT_LINK_NOT_FOUND")), "{body}");
        assert_eq!(call(app, &as_vendor, who, json!({})).await["data"]["me"]["id"], j.bob.id);
        let body = app.as_user(&j.bob, DISMISS_EMPLOYMENT, vars(j.payroll.0, j.bob_employment)).await;
        assert_eq!(body["data"]["dismissEmploymentToken"]["success"], true, "{body}");
        let body = call(app, &as_vendor, who, json!({})).await;
        assert_eq!((codes(&body), message(&body)), (vec!["AUTHENTICATION_ERROR".to_string()], "Invalid token"));
        let body = app.as_user(&j.bob, DISMISS_EMPLOYMENT, vars(j.payroll.0, j.bob_employment)).await;
        assert_eq!(reason(&body), Some("EMPLOYMENT_CLIENT_LINK_NOT_FOUND"), "{body}");
        let body = app.as_user(&j.bob, "{ me { currentEmployments { id authorizedClients { id } } } }", json!({})).await;
        assert!(body["data"]["me"]["currentEmployments"].as_array().unwrap().iter().all(|e| e["authorizedClients"] == json!([])), "{body}");

        // A new sync invites Bob again; he accepts and the vendor gets a new token.
        let employees = json!([{ "email": "bob@example.com", "firstName": "Bob", "lastName": "B", "hasAdminRights": true }]);
        let body = protected(app, &j.payroll, SYNC, json!({ "c": j.company, "e": employees })).await;
        assert!(body["errors"].is_null(), "{body}");
        accept(app, "bob@example.com").await;
        let token = token_for(app, &j.payroll, j.bob_employment).await;
        let as_vendor = Headers { client: Some(&j.client), token: Some(&token), bearer: None };
        assert_eq!(call(app, &as_vendor, who, json!({})).await["data"]["me"]["id"], j.bob.id);

        // dismissCompanyToken: company admins only, an active link only.
        let company_vars = |client: i64| json!({ "c": client, "co": j.company });
        let body = app.as_user(&j.other_admin, DISMISS_COMPANY, company_vars(j.payroll.0)).await;
        assert_eq!((codes(&body), message(&body)), (vec!["AUTHORIZATION_ERROR".to_string()], "You need to be a company admin"));
        let body = app.as_user(&j.bob, DISMISS_COMPANY, company_vars(123456789)).await;
        assert_eq!(reason(&body), Some("COMPANY_CLIENT_LINK_NOT_FOUND"), "{body}");
        let body = app.as_user(&j.bob, DISMISS_COMPANY, company_vars(j.payroll.0)).await;
        assert_eq!(body["data"]["dismissCompanyToken"], json!([]), "{body}");
        let body = call(app, &as_vendor, who, json!({})).await;
        assert_eq!((codes(&body), message(&body)), (vec!["AUTHENTICATION_ERROR".to_string()], "Company token has been revoked"));
        // The vendor can no longer sync the company either.
        let body = protected(app, &j.payroll, SYNC, json!({ "c": j.company, "e": [] })).await;
        assert_eq!(codes(&body), ["AUTHORIZATION_ERROR"], "{body}");

        // generateCompanyToken: an admin links the company again (a known, active client).
        let body = app.as_user(&j.bob, LINK_COMPANY, company_vars(123456789)).await;
        assert_eq!(codes(&body), ["INVALID_INPUTS"], "{body}");
        let body = app.as_user(&j.other_admin, LINK_COMPANY, company_vars(j.payroll.0)).await;
        assert_eq!(codes(&body), ["AUTHORIZATION_ERROR"], "{body}");
        let body = app.as_user(&j.bob, LINK_COMPANY, company_vars(j.payroll.0)).await;
        assert_eq!(body["data"]["generateCompanyToken"], json!([{ "id": j.payroll.0, "name": "Payroll Plus" }]), "{body}");
        let again = app.as_user(&j.bob, LINK_COMPANY, company_vars(j.payroll.0)).await;
        assert_eq!(again["data"], body["data"], "linking twice changes nothing");
        // As in the reference, the employees' tokens work again with the link.
        assert_eq!(call(app, &as_vendor, who, json!({})).await["data"]["me"]["id"], j.bob.id);
        // The other company links the vendor too; the token still reaches only its own company.
        let body = app.as_user(&j.other_admin, LINK_COMPANY, json!({ "c": j.payroll.0, "co": j.other })).await;
        assert!(body["errors"].is_null(), "{body}");
        let body = call(app, &as_vendor, "query($id: Int!) { company(id: $id) { id } }", json!({ "id": j.other })).await;
        assert_eq!(codes(&body), ["AUTHORIZATION_ERROR"], "{body}");
    }

    async fn tokens_rotate_and_expire(app) {
        let j = journey(app).await;
        let token = token_for(app, &j.payroll, j.bob_employment).await;
        let as_vendor = Headers { client: Some(&j.client), token: Some(&token), bearer: None };
        let who = "{ me { id } }";
        let link = json!({ "c": j.payroll.0, "e": j.bob_employment });
        // Rotation needs the token itself, for its own link.
        let body = app.as_user(&j.bob, ROTATE, link.clone()).await;
        assert_eq!(codes(&body), ["AUTHORIZATION_ERROR"], "{body}");
        let body = call(app, &as_vendor, ROTATE, json!({ "c": j.payroll.0, "e": j.bob_employment + 1 })).await;
        assert_eq!(codes(&body), ["AUTHORIZATION_ERROR"], "{body}");
        let body = call(app, &as_vendor, ROTATE, link.clone()).await;
        let rotated = &body["data"]["rotateEmploymentToken"];
        let fresh = rotated["accessToken"].as_str().unwrap_or_else(|| panic!("{body}")).to_string();
        assert!(fresh.starts_with("rl_et_") && fresh != token);
        assert_eq!(rotated["expiresAt"], Value::Null, "no lifetime set: no expiry");
        // The old token is dead at once, the new one works.
        let body = call(app, &as_vendor, who, json!({})).await;
        assert_eq!(message(&body), "Invalid token");
        let as_fresh = Headers { client: Some(&j.client), token: Some(&fresh), bearer: None };
        assert_eq!(call(app, &as_fresh, who, json!({})).await["data"]["me"]["id"], j.bob.id);

        // With a lifetime set by the operator, a rotated token expires.
        let output = crate::support::process::command(
            &["client", "employment-token-lifetime", &j.client, "3600"],
            &[("DATABASE_URL", &app.database_url)],
        )
        .output()
        .unwrap();
        assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
        let body = call(app, &as_fresh, ROTATE, link.clone()).await;
        let rotated = &body["data"]["rotateEmploymentToken"];
        let expires = rotated["expiresAt"].as_i64().unwrap_or_else(|| panic!("{body}"));
        let now = chrono::Utc::now().timestamp();
        assert!((now + 3590..=now + 3610).contains(&expires), "{expires} vs {now}");
        let last = rotated["accessToken"].as_str().unwrap().to_string();
        let as_last = Headers { client: Some(&j.client), token: Some(&last), bearer: None };
        assert_eq!(call(app, &as_last, who, json!({})).await["data"]["me"]["id"], j.bob.id);
        sqlx::query("UPDATE client_employments SET token_expires_at = $1 WHERE employment_id = $2")
            .bind(now - 1)
            .bind(j.bob_employment)
            .execute(&app.server.db.pool)
            .await
            .unwrap();
        let body = call(app, &as_last, who, json!({})).await;
        assert_eq!((codes(&body), message(&body)), (vec!["AUTHENTICATION_ERROR".to_string()], "Expired employment token"));
        // Unset: `none`; an invalid lifetime is refused.
        let set = |value: &str| {
            crate::support::process::command(
                &["client", "employment-token-lifetime", &j.client, value],
                &[("DATABASE_URL", &app.database_url)],
            )
            .output()
            .unwrap()
        };
        assert!(set("none").status.success());
        assert!(!set("0").status.success());
        assert!(!set("soon").status.success());
        let (lifetime,): (Option<i64>,) = sqlx::query_as("SELECT employment_token_lifetime FROM oauth_clients WHERE id = $1")
            .bind(j.payroll.0)
            .fetch_one(&app.server.db.pool)
            .await
            .unwrap();
        assert_eq!(lifetime, None);
    }
}
