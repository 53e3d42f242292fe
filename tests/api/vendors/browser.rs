//! The whole vendor journey with the accept in a real browser, then the vendor writing and
//! reading the employee's missions with the employment token.

use super::*;

tests! {
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
