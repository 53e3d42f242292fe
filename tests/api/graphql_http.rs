//! GraphQL over HTTP: every row of the interface's error conventions, checked on the wire
//! (status, exact body keys, `locations`, `path`, `extensions.code`) on both databases.

use reqwest::StatusCode;
use serde_json::{Value, json};

use crate::support::{TestApp, codes};

fn keys(value: &Value) -> Vec<&str> {
    let mut keys: Vec<&str> = value
        .as_object()
        .map(|o| o.keys().map(String::as_str).collect())
        .unwrap_or_default();
    keys.sort();
    keys
}

async fn post_raw(app: &TestApp, content_type: &str, body: impl Into<reqwest::Body>) -> (StatusCode, Value) {
    let response = app
        .client
        .post(app.url("/api/graphql"))
        .header("content-type", content_type)
        .body(body)
        .send()
        .await
        .unwrap();
    let status = response.status();
    (status, response.json().await.unwrap())
}

/// A request error: 400, only `errors`, each with `message` and `locations`.
fn assert_request_error(status: StatusCode, body: &Value, fragment: &str) {
    assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
    assert_eq!(keys(body), ["errors"], "no data key on request errors: {body}");
    let error = &body["errors"][0];
    assert!(error["message"].as_str().unwrap().contains(fragment), "{body}");
    let location = &error["locations"][0];
    assert!(
        location["line"].as_u64().unwrap() >= 1 && location["column"].as_u64().unwrap() >= 1,
        "{body}"
    );
    assert!(error.get("path").is_none(), "{body}");
}

on_both_backends! {
    async fn typename_answers(app) {
        let (status, body) = app.graphql("{ __typename }", json!({}), None).await;
        assert_eq!(status, StatusCode::OK);
        assert_eq!(body, json!({ "data": { "__typename": "Queries" } }));
    }

    async fn invalid_json_is_400_with_message_only(app) {
        let (status, body) = post_raw(app, "application/json", "{\"query\": ").await;
        assert_eq!(status, StatusCode::BAD_REQUEST);
        assert_eq!(body, json!({ "errors": [{ "message": "POST body sent invalid JSON." }] }));
    }

    async fn syntax_error_is_400_without_data(app) {
        let (status, body) = app.graphql("{ me { id ", json!({}), None).await;
        assert_request_error(status, &body, "Syntax Error");
        assert_eq!(body["errors"][0]["locations"], json!([{ "line": 1, "column": 11 }]));
    }

    async fn unknown_field_is_400_without_data(app) {
        let (status, body) = app.graphql("{ me { idd } }", json!({}), None).await;
        assert_request_error(status, &body, "Unknown field \"idd\" on type \"User\"");
        assert_eq!(body["errors"][0]["locations"], json!([{ "line": 1, "column": 8 }]));
    }

    async fn wrong_argument_type_is_400_without_data(app) {
        let (status, body) = app.graphql("{ user(id: \"seven\") { id } }", json!({}), None).await;
        assert_request_error(status, &body, "id");
        let (status, body) = app.graphql("{ user { id } }", json!({}), None).await;
        assert_request_error(status, &body, "id");
    }

    async fn variable_coercion_errors_are_400(app) {
        let query = "query($id: Int!) { user(id: $id) { id } }";
        let (status, body) = app.graphql(query, json!({ "id": "abc" }), None).await;
        assert_request_error(status, &body, "id");
        let login = "mutation($e: Email!) { auth { login(email: $e, password: \"x\") { accessToken } } }";
        let (status, body) = app.graphql(login, json!({ "e": "not an e-mail" }), None).await;
        assert_request_error(status, &body, "");
        let log = "mutation($t: ActivityTypeEnum!) { activities { logActivity(missionId: 1, startTime: 0, type: $t) { id } } }";
        let (status, body) = app.graphql(log, json!({ "t": "rest" }), None).await;
        assert_request_error(status, &body, "");
    }

    async fn operations_that_cannot_run_are_400_without_data(app) {
        // These fail before execution, so no field runs and the answer has no `data`: named
        // operations that are not in the document or not chosen, and a subscription (the
        // schema has none).
        let cases = [
            json!({ "query": "query A { __typename }", "operationName": "B" }),
            json!({ "query": "query A { __typename } query B { __typename }" }),
            json!({ "query": "subscription { __typename }" }),
        ];
        for case in cases {
            let (status, body) = post_raw(app, "application/json", serde_json::to_vec(&case).unwrap()).await;
            assert_eq!(status, StatusCode::BAD_REQUEST, "{case}: {body}");
            assert_eq!(keys(&body), ["errors"], "{case}: {body}");
            assert!(body["errors"][0]["message"].as_str().is_some_and(|m| !m.is_empty()), "{body}");
            assert!(body["errors"][0].get("path").is_none(), "{body}");
        }
    }

    async fn application_error_is_200_with_partial_data(app) {
        let (status, body) = app.graphql("query Q { me { id } __typename }", json!({}), None).await;
        assert_eq!(status, StatusCode::OK);
        assert_eq!(body["data"], json!({ "me": null, "__typename": "Queries" }));
        let error = &body["errors"][0];
        assert_eq!(keys(error), ["extensions", "locations", "message", "path"]);
        assert_eq!(error["path"], json!(["me"]));
        assert_eq!(error["locations"], json!([{ "line": 1, "column": 11 }]));
        assert_eq!(error["extensions"]["code"], "AUTHENTICATION_ERROR");
    }

    async fn failed_non_null_field_nulls_its_parent(app) {
        let (status, body) = app.graphql("{ me { id } checkAuth { success } }", json!({}), None).await;
        assert_eq!(status, StatusCode::OK);
        assert_eq!(body["data"], Value::Null, "{body}");
        assert_eq!(codes(&body), ["AUTHENTICATION_ERROR", "AUTHENTICATION_ERROR"]);
        assert!(body["errors"].as_array().unwrap().iter().any(|e| e["path"] == json!(["checkAuth"])));
    }

    async fn invalid_token_is_authentication_error(app) {
        let (status, body) = app.graphql("{ me { id } }", json!({}), Some("rl_at_forged")).await;
        assert_eq!(status, StatusCode::OK);
        assert_eq!(body["data"], json!({ "me": null }));
        assert_eq!(codes(&body), ["AUTHENTICATION_ERROR"]);
        assert_eq!(body["errors"][0]["message"], "Invalid token");
    }

    async fn batches_hold_at_most_ten_operations(app) {
        let five: Vec<Value> = (0..5).map(|_| json!({ "query": "{ __typename }" })).collect();
        let (status, body) = post_raw(app, "application/json", serde_json::to_vec(&five).unwrap()).await;
        assert_eq!(status, StatusCode::OK);
        assert_eq!(body.as_array().unwrap().len(), 5);
        assert!(body.as_array().unwrap().iter().all(|b| b == &json!({ "data": { "__typename": "Queries" } })));
        let fifteen: Vec<Value> = (0..15).map(|_| json!({ "query": "{ __typename }" })).collect();
        let (status, body) = post_raw(app, "application/json", serde_json::to_vec(&fifteen).unwrap()).await;
        assert_eq!(status, StatusCode::BAD_REQUEST);
        assert!(body["errors"][0]["message"].as_str().unwrap().contains("too many"), "{body}");
    }

    async fn batch_status_is_the_highest_of_its_operations(app) {
        let batch = json!([{ "query": "{ __typename }" }, { "query": "{ nope }" }, { "query": "{ me { id } }" }]);
        let (status, body) = post_raw(app, "application/json", serde_json::to_vec(&batch).unwrap()).await;
        assert_eq!(status, StatusCode::BAD_REQUEST);
        let answers = body.as_array().unwrap();
        assert_eq!(answers[0], json!({ "data": { "__typename": "Queries" } }));
        assert_eq!(keys(&answers[1]), ["errors"]);
        assert_eq!(answers[2]["data"], json!({ "me": null }));
    }

    async fn get_serves_queries_but_not_mutations(app) {
        let response = app.client.get(app.url("/api/graphql")).query(&[("query", "{ __typename }")]).send().await.unwrap();
        assert_eq!(response.status(), StatusCode::OK);
        assert_eq!(response.json::<Value>().await.unwrap(), json!({ "data": { "__typename": "Queries" } }));
        let response = app
            .client
            .get(app.url("/api/graphql"))
            .query(&[("query", "mutation { auth { logout { success } } }")])
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), StatusCode::METHOD_NOT_ALLOWED);
        assert_eq!(response.headers()["allow"], "POST");
        let body: Value = response.json().await.unwrap();
        assert_eq!(body["errors"][0]["message"], "Can only perform a mutation operation from a POST request.");
    }

    async fn other_methods_are_405(app) {
        let response = app.client.put(app.url("/api/graphql")).send().await.unwrap();
        assert_eq!(response.status(), StatusCode::METHOD_NOT_ALLOWED);
        assert_eq!(response.headers()["allow"], "GET, POST");
    }

    async fn bodies_over_ten_mebibytes_are_413(app) {
        let padding = " ".repeat(11 * 1024 * 1024);
        let body = format!("{{\"query\": \"{{ __typename }}\"{padding}}}");
        let (status, body) = post_raw(app, "application/json", body).await;
        assert_eq!(status, StatusCode::PAYLOAD_TOO_LARGE);
        assert!(body["errors"][0]["message"].is_string());
    }

    async fn media_types_are_negotiated(app) {
        let (status, body) = post_raw(app, "text/plain", "{ __typename }").await;
        assert_eq!(status, StatusCode::UNSUPPORTED_MEDIA_TYPE);
        assert!(body["errors"][0]["message"].as_str().unwrap().contains("application/json"));

        let request = || app.client.post(app.url("/api/graphql")).json(&json!({ "query": "{ __typename }" }));
        let response = request().header("accept", "text/html").send().await.unwrap();
        assert_eq!(response.status(), StatusCode::NOT_ACCEPTABLE);

        let response = request().header("accept", "application/graphql-response+json").send().await.unwrap();
        assert_eq!(response.status(), StatusCode::OK);
        assert_eq!(response.headers()["content-type"], "application/graphql-response+json; charset=utf-8");

        let response = request().send().await.unwrap();
        assert_eq!(response.headers()["content-type"], "application/json; charset=utf-8");
    }

    async fn depth_and_size_limits_are_400(app) {
        let mut deep = String::from("__typename");
        for _ in 0..20 {
            deep = format!("me {{ {deep} }}");
        }
        // Too deep for the schema and for the limit: refused before execution either way.
        let (status, body) = app.graphql(&format!("{{ {deep} }}"), json!({}), None).await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
        assert!(body.get("data").is_none());

        let wide: String = (0..3000).map(|i| format!(" f{i}")).collect();
        let (status, body) = app.graphql(&format!("{{ {wide} }}"), json!({}), None).await;
        assert_eq!(status, StatusCode::BAD_REQUEST);
        assert_eq!(body["errors"][0]["message"], "The document has 3000 fields; the limit is 2000.");
    }

    async fn deep_valid_nesting_hits_the_depth_limit(app) {
        // A valid selection deeper than the limit through the schema's own cycles.
        let mut inner = String::from("id");
        for _ in 0..10 {
            inner = format!("company {{ employments {{ user {{ {inner} }} }} }}");
        }
        let query = format!("{{ me {{ currentEmployments {{ {inner} }} }} }}");
        let (status, body) = app.graphql(&query, json!({}), None).await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
        assert!(body["errors"][0]["message"].as_str().unwrap().contains("levels deep; the limit is 15"), "{body}");
    }

    async fn unprefixed_path_is_the_same_endpoint(app) {
        let response = app.client.post(app.url("/graphql")).json(&json!({ "query": "{ __typename }" })).send().await.unwrap();
        assert_eq!(response.status(), StatusCode::OK);
        assert_eq!(response.json::<Value>().await.unwrap(), json!({ "data": { "__typename": "Queries" } }));
    }

    async fn variables_may_be_a_json_string(app) {
        let body = json!({ "query": "query($id: Int!) { user(id: $id) { id } }", "variables": "{\"id\": 5}" });
        let (status, body) = post_raw(app, "application/json", serde_json::to_vec(&body).unwrap()).await;
        assert_eq!(status, StatusCode::OK);
        assert_eq!(codes(&body), ["AUTHENTICATION_ERROR"]);
    }

    async fn missing_query_is_400(app) {
        let (status, body) = post_raw(app, "application/json", "{\"variables\": {}}").await;
        assert_eq!(status, StatusCode::BAD_REQUEST);
        assert_eq!(body, json!({ "errors": [{ "message": "Must provide query string." }] }));
    }
}

on_both_backends! {
    async fn response_keys_follow_the_query_order_nested_and_aliased(app) {
        let user = app.new_user("order@example.com").await;
        let company = app.new_company(&user, "Zeta Transports").await;
        let body = app.as_user(&user, "{ me { currentEmployments { id } } }", json!({})).await;
        let employment = body["data"]["me"]["currentEmployments"][0]["id"].as_i64().unwrap();
        let query = "{ me { lastName zz: firstName email id currentEmployments { hasAdminRights companyId id company { name id } } aa: id } checkAuth { userId success } __typename }";
        let expected = format!(
            concat!(
                r#"{{"data":{{"me":{{"lastName":"Martin","zz":"Jeanne","email":"order@example.com","id":{user},"#,
                r#""currentEmployments":[{{"hasAdminRights":true,"companyId":{company},"id":{employment},"company":{{"name":"Zeta Transports","id":{company}}}}}],"aa":{user}}},"#,
                r#""checkAuth":{{"userId":{user},"success":true}},"__typename":"Queries"}}}}"#
            ),
            user = user.id,
            company = company,
            employment = employment,
        );
        let token = user.token.as_str();
        let send = |request: reqwest::RequestBuilder| async move {
            let response = request.bearer_auth(token).send().await.unwrap();
            assert_eq!(response.status(), StatusCode::OK);
            response.text().await.unwrap()
        };
        let post = send(app.client.post(app.url("/api/graphql")).json(&json!({ "query": query }))).await;
        assert_eq!(post, expected, "POST: keys in the order of the query");
        let get = send(app.client.get(app.url("/api/graphql")).query(&[("query", query)])).await;
        assert_eq!(get, expected, "GET: keys in the order of the query");
        let batch = send(
            app.client
                .post(app.url("/api/graphql"))
                .json(&json!([{ "query": query }, { "query": "{ checkAuth { success userId } }" }])),
        )
        .await;
        let second = format!(r#"{{"data":{{"checkAuth":{{"success":true,"userId":{}}}}}}}"#, user.id);
        assert_eq!(batch, format!("[{expected},{second}]"), "batch: each answer in its query's order");

        // With an error: the other fields keep their order, `data` comes before `errors`.
        let failing = send(
            app.client
                .post(app.url("/api/graphql"))
                .json(&json!({ "query": "{ zulu: checkAuth { userId } user(id: 999999) { id } alpha: __typename }" })),
        )
        .await;
        let prefix = format!(r#"{{"data":{{"zulu":{{"userId":{}}},"user":null,"alpha":"Queries"}},"errors":[{{"message":"#, user.id);
        assert!(failing.starts_with(&prefix), "{failing}");
    }
}
