//! Businesses over the real HTTP API, on both databases: a company's and an employment's
//! business, `updateCompanyDetails`' business arguments, `changeEmployeeBusinessType`, the
//! copy to new employments and the permissions.

use serde_json::json;

use crate::support::codes;

const UPDATE: &str = "mutation($c: Int!, $b: String, $a: Boolean) { updateCompanyDetails(companyId: $c, newBusinessType: $b, applyBusinessTypeToEmployees: $a) { id business { id transportType businessType } } }";
const CHANGE: &str = "mutation($e: Int!, $b: String!) { employments { changeEmployeeBusinessType(employmentId: $e, businessType: $b) { id } } }";
const READ: &str = "query($c: Int!) { company(id: $c) { business { businessType } employments { id business { businessType transportType } } } }";

async fn business_of(app: &crate::support::TestApp, employment: i64) -> Option<i64> {
    let (id,): (Option<i64>,) = sqlx::query_as("SELECT business_id FROM employments WHERE id = $1")
        .bind(employment)
        .fetch_one(&app.server.db.pool)
        .await
        .unwrap();
    id
}

on_both_backends! {
    async fn company_and_employment_businesses(app) {
        let admin = app.new_user("admin@example.com").await;
        let worker = app.new_user("worker@example.com").await;
        let company = app.new_company(&admin, "Acme").await;
        let first = app.hire(&admin, company, &worker).await;

        // None chosen yet: null, and the checks will use SHIPPING.
        let body = app.as_user(&admin, READ, json!({ "c": company })).await;
        assert!(body["data"]["company"]["business"].is_null(), "{body}");
        assert!(body["data"]["company"]["employments"][0]["business"].is_null());

        // The company takes a business; existing employments keep theirs.
        let body = app.as_user(&admin, UPDATE, json!({ "c": company, "b": "LONG_DISTANCE" })).await;
        assert_eq!(
            body["data"]["updateCompanyDetails"]["business"],
            json!({ "id": 1, "transportType": "TRM", "businessType": "LONG_DISTANCE" })
        );
        assert_eq!(business_of(app, first).await, None);

        // A new employment copies the company's business.
        let other = app.new_user("other@example.com").await;
        let second = app.hire(&admin, company, &other).await;
        assert_eq!(business_of(app, second).await, Some(1));

        // With applyBusinessTypeToEmployees, every employment takes the new business.
        let body = app.as_user(&admin, UPDATE, json!({ "c": company, "b": "FREQUENT", "a": true })).await;
        assert_eq!(body["data"]["updateCompanyDetails"]["business"]["transportType"], "TRV");
        let body = app.as_user(&admin, READ, json!({ "c": company })).await;
        let employments = body["data"]["company"]["employments"].as_array().unwrap();
        assert!(employments.len() >= 3, "{body}");
        for employment in employments {
            assert_eq!(employment["business"], json!({ "businessType": "FREQUENT", "transportType": "TRV" }));
        }

        // An empty or omitted business changes nothing.
        let body = app.as_user(&admin, UPDATE, json!({ "c": company, "b": "" })).await;
        assert_eq!(body["data"]["updateCompanyDetails"]["business"]["businessType"], "FREQUENT");

        // One employment changes alone.
        let body = app.as_user(&admin, CHANGE, json!({ "e": first, "b": "VTC" })).await;
        assert_eq!(body["data"]["employments"]["changeEmployeeBusinessType"]["id"], company);
        assert_eq!(business_of(app, first).await, Some(8));
        assert_eq!(business_of(app, second).await, Some(4));
        let body = app.as_user(&worker, "{ me { currentEmployments { business { businessType } } } }", json!({})).await;
        assert_eq!(body["data"]["me"]["currentEmployments"][0]["business"]["businessType"], "VTC");
    }

    async fn business_changes_are_for_admins_with_known_names(app) {
        let admin = app.new_user("admin@example.com").await;
        let worker = app.new_user("worker@example.com").await;
        let company = app.new_company(&admin, "Acme").await;
        let employment = app.hire(&admin, company, &worker).await;

        let body = app.as_user(&worker, UPDATE, json!({ "c": company, "b": "SHIPPING" })).await;
        assert_eq!(codes(&body), ["AUTHORIZATION_ERROR"]);
        assert!(body["data"]["updateCompanyDetails"].is_null());
        let body = app.as_user(&admin, UPDATE, json!({ "c": company, "b": "shipping" })).await;
        assert_eq!(codes(&body), ["INVALID_INPUTS"]);
        let body = app.as_user(&admin, UPDATE, json!({ "c": company + 1000, "b": "SHIPPING" })).await;
        assert_eq!(codes(&body), ["AUTHORIZATION_ERROR"]);

        let body = app.as_user(&worker, CHANGE, json!({ "e": employment, "b": "LOTI" })).await;
        assert_eq!(codes(&body), ["AUTHORIZATION_ERROR"]);
        let body = app.as_user(&admin, CHANGE, json!({ "e": employment + 1000, "b": "LOTI" })).await;
        assert_eq!(codes(&body), ["AUTHORIZATION_ERROR"]);
        let body = app.as_user(&admin, CHANGE, json!({ "e": employment, "b": "BUS" })).await;
        assert_eq!(codes(&body), ["INVALID_INPUTS"]);
        assert_eq!(business_of(app, employment).await, None);

        let (status, body) = app.graphql(CHANGE, json!({ "e": employment, "b": "LOTI" }), None).await;
        assert_eq!(status, reqwest::StatusCode::OK);
        assert_eq!(codes(&body), ["AUTHENTICATION_ERROR"]);
    }
}
