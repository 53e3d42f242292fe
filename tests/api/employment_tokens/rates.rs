//! The per-client request rate: each vendor has one rate, shared by the doors it calls.

use super::*;

for_both_backends! {
    async fn each_vendor_has_one_request_rate_on_its_doors(backend) {
        // Thirty a minute, one at a time: one request every two seconds.
        let app = TestApp::spawn_with(backend, |s| s.vendor_rate_limit = 30).await;
        let pause = || tokio::time::sleep(std::time::Duration::from_millis(2100));
        let payroll = vendor(&app, "Payroll Plus").await;
        let fleet = vendor(&app, "Fleet").await;
        let company = register(&app, &payroll, "987654321", None).await["data"]["company"]["softwareRegistration"]["id"].as_i64().unwrap();
        pause().await;
        let employees = json!([{ "email": "bob@example.com", "firstName": "Bob", "lastName": "B" }]);
        let body = protected(&app, &payroll, SYNC, json!({ "c": company, "e": employees })).await;
        let employment = body["data"]["company"]["syncEmployment"][0]["id"].as_i64().unwrap_or_else(|| panic!("{body}"));
        let bob = app.new_user("bob@example.com").await;
        accept(&app, "bob@example.com").await;
        pause().await;
        let token = token_for(&app, &payroll, employment).await;
        pause().await;
        let client = payroll.0.to_string();
        let send = |path: &str, headers: Vec<(&str, String)>, body: Value| {
            let mut request = app.client.post(app.url(path)).json(&body);
            for (name, value) in headers {
                request = request.header(name, value);
            }
            request.send()
        };
        let as_vendor = || vec![("X-CLIENT-ID", client.clone()), ("X-EMPLOYMENT-TOKEN", token.clone())];
        let who = json!({ "query": "{ me { id } }" });
        let response = send("/api/graphql", as_vendor(), who.clone()).await.unwrap();
        assert_eq!(response.status(), StatusCode::OK);
        // Over the rate: 429 with Retry-After, on the API, on the export and on /protected alike.
        let response = send("/api/graphql", as_vendor(), who.clone()).await.unwrap();
        assert_eq!(response.status(), StatusCode::TOO_MANY_REQUESTS);
        assert!(response.headers()["retry-after"].to_str().unwrap().parse::<u64>().unwrap() >= 1);
        let body: Value = response.json().await.unwrap();
        assert!(message(&body).starts_with("Too many requests from this client"), "{body}");
        let export = json!({ "company_ids": [company], "min_date": today(), "max_date": today() });
        let response = send("/companies/generate_tachograph_files", as_vendor(), export).await.unwrap();
        assert_eq!(response.status(), StatusCode::TOO_MANY_REQUESTS);
        let body: Value = response.json().await.unwrap();
        assert_eq!(body["error_code"], "AUTHORIZATION_ERROR", "{body}");
        let keyed = vec![("X-CLIENT-ID", client.clone()), ("X-API-KEY", payroll.1.clone())];
        let response = send("/protected", keyed, json!({ "query": "{ employmentToken(clientId: 1, employmentId: 1) { id } }" })).await.unwrap();
        assert_eq!(response.status(), StatusCode::TOO_MANY_REQUESTS);
        // The employee's own login, and another vendor, are not affected.
        let body = call(&app, &Headers { client: Some(&client), token: None, bearer: Some(&bob.token) }, "{ me { id } }", json!({})).await;
        assert_eq!(body["data"]["me"]["id"], bob.id, "{body}");
        let body = protected(&app, &fleet, "{ employmentToken(clientId: 1, employmentId: 1) { id } }", json!({})).await;
        assert_eq!(codes(&body), ["AUTHORIZATION_ERROR"], "{body}");
        // After the pause, the vendor is served again.
        pause().await;
        let response = send("/api/graphql", as_vendor(), who).await.unwrap();
        assert_eq!(response.status(), StatusCode::OK);
        app.cleanup().await;
    }
}
