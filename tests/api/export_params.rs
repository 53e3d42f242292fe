//! `POST /companies/validate_export_params` from outside, on both databases: the reference's
//! cases (its `test_validate_export_params.py`) and the statuses around them.

use reqwest::StatusCode;
use serde_json::{Value, json};

use crate::support::{TestApp, TestUser};

/// A company with its admin and five workers (named `Jean Driver0` … `Driver4`) employed since
/// 2020.
struct Company {
    admin: TestUser,
    id: i64,
    workers: Vec<i64>,
}

async fn company(app: &TestApp, workers: i64) -> Company {
    let admin = app.new_user("admin@example.com").await;
    let id = app.new_company(&admin, "Transports Martin").await;
    let mut tx = app.server.db.pool.begin().await.unwrap();
    let workers = crate::support::employments::insert_bare_employees(&mut tx, id, 500_000_000, workers).await;
    tx.commit().await.unwrap();
    Company { admin, id, workers }
}

async fn validate(app: &TestApp, user: Option<&TestUser>, body: Value) -> (StatusCode, Value) {
    let mut request = app
        .client
        .post(app.url("/companies/validate_export_params"))
        .json(&body);
    if let Some(user) = user {
        request = request.bearer_auth(&user.token);
    }
    let response = request.send().await.unwrap();
    let status = response.status();
    (status, response.json().await.unwrap())
}

on_both_backends! {
    async fn a_short_period_is_one_consolidated_file_of_every_worker(app) {
        let c = company(app, 5).await;
        let (status, body) = validate(
            app,
            Some(&c.admin),
            json!({ "company_ids": [c.id], "min_date": "2026-01-01", "max_date": "2026-01-15", "detailed": true }),
        )
        .await;
        assert_eq!(status, StatusCode::OK, "{body}");
        assert_eq!(body["strategy"], "single_or_consolidated");
        assert_eq!(body["can_choose_consolidated"], true);
        assert!(body["message"].as_str().unwrap().contains("one_file_by_employee"));
        assert_eq!(body["num_chunks"], 1);
        let chunk = &body["chunks"][0];
        // The admin has no employment of a worker: the five workers.
        assert_eq!(chunk["user_ids"], json!(c.workers));
        assert_eq!((chunk["min_date"].as_str(), chunk["max_date"].as_str()), (Some("2026-01-01"), Some("2026-01-15")));
        assert_eq!(chunk["file_suffix"], "consolide");
        // Without `detailed`, no chunks; with two workers named, those two.
        let (_, body) = validate(app, Some(&c.admin), json!({ "company_ids": [c.id], "min_date": "2026-01-01", "max_date": "2026-01-15" })).await;
        assert!(body.get("chunks").is_none(), "{body}");
        let two = &c.workers[1..3];
        let (_, body) = validate(
            app,
            Some(&c.admin),
            json!({ "company_ids": [c.id], "user_ids": two, "min_date": "2026-01-01", "max_date": "2026-01-15", "detailed": true, "one_file_by_employee": true }),
        )
        .await;
        let files: Vec<(&Value, &Value)> = body["chunks"].as_array().unwrap().iter().map(|c| (&c["user_ids"], &c["file_suffix"])).collect();
        assert_eq!(files, [(&json!([two[0]]), &json!("Driver1_Jean")), (&json!([two[1]]), &json!("Driver2_Jean"))]);
    }

    async fn long_periods_are_split_per_month_or_per_year(app) {
        let c = company(app, 5).await;
        let (_, body) = validate(app, Some(&c.admin), json!({ "company_ids": [c.id], "min_date": "2025-01-01", "max_date": "2025-03-15", "detailed": true })).await;
        assert_eq!(body["strategy"], "over_31_days");
        assert_eq!(body["can_choose_consolidated"], false);
        assert!(body["message"].as_str().unwrap().contains("31 jours"));
        let suffixes: Vec<&str> = body["chunks"].as_array().unwrap().iter().map(|c| c["file_suffix"].as_str().unwrap()).collect();
        assert_eq!(suffixes, ["2025-01_janvier_2025", "2025-02_fevrier_2025", "2025-03_mars_2025"]);
        assert_eq!(body["chunks"][2]["max_date"], "2025-03-15");
        let (_, body) = validate(app, Some(&c.admin), json!({ "company_ids": [c.id], "min_date": "2023-01-01", "max_date": "2025-12-31" })).await;
        assert_eq!(body["strategy"], "over_365_days");
        assert!(body["message"].as_str().unwrap().contains("1 an"));
        assert_eq!(body["num_chunks"], 15, "five workers, three years");
        // Only `max_date`, today: a year back from today.
        let today = chrono::Utc::now().date_naive().to_string();
        let (_, body) = validate(app, Some(&c.admin), json!({ "company_ids": [c.id], "max_date": today })).await;
        assert_eq!(body["strategy"], "over_365_days");
    }

    async fn more_than_a_hundred_workers_are_batched(app) {
        let c = company(app, 107).await;
        let (status, body) = validate(app, Some(&c.admin), json!({ "company_ids": [c.id], "min_date": "2026-01-01", "max_date": "2026-01-15", "detailed": true })).await;
        assert_eq!(status, StatusCode::OK, "{body}");
        assert_eq!(body["strategy"], "over_100_users");
        assert!(body["message"].as_str().unwrap().contains("tranche"));
        let sizes: Vec<usize> = body["chunks"].as_array().unwrap().iter().map(|c| c["user_ids"].as_array().unwrap().len()).collect();
        assert_eq!(sizes, [100, 7]);
        assert_eq!(body["chunks"][1]["file_suffix"], "batch_2");
    }

    async fn only_admins_of_every_company_may_ask(app) {
        let c = company(app, 1).await;
        let other = app.new_user("other@example.com").await;
        let elsewhere = app.new_company(&other, "Ailleurs").await;
        let body = json!({ "company_ids": [c.id], "min_date": "2026-01-01", "max_date": "2026-01-15" });
        let (status, answer) = validate(app, None, body.clone()).await;
        assert_eq!((status, answer["error_code"].as_str()), (StatusCode::UNAUTHORIZED, Some("AUTHENTICATION_ERROR")));
        let (status, answer) = validate(app, Some(&other), body).await;
        assert_eq!((status, answer["error_code"].as_str()), (StatusCode::FORBIDDEN, Some("AUTHORIZATION_ERROR")));
        let (status, _) = validate(app, Some(&c.admin), json!({ "company_ids": [c.id, elsewhere] })).await;
        assert_eq!(status, StatusCode::FORBIDDEN);
        let (status, _) = validate(app, Some(&c.admin), json!({ "company_ids": [987_654] })).await;
        assert_eq!(status, StatusCode::FORBIDDEN);
    }

    async fn ill_formed_requests_are_422_per_field(app) {
        let c = company(app, 1).await;
        for (body, field) in [
            (json!({}), "company_ids"),
            (json!({ "company_ids": [] }), "company_ids"),
            (json!({ "company_ids": [c.id], "min_date": "01/01/2026" }), "min_date"),
            (json!({ "company_ids": [c.id], "detailed": "maybe" }), "detailed"),
        ] {
            let (status, answer) = validate(app, Some(&c.admin), body.clone()).await;
            assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{body}: {answer}");
            assert_eq!(answer["error_code"], "INVALID_INPUTS");
            assert!(answer["details"][field].is_array(), "{body}: {answer}");
        }
        // A misspelt field is refused, not ignored, as the reference refuses it.
        let (status, answer) = validate(app, Some(&c.admin), json!({ "company_ids": [c.id], "one_file_per_employee": true })).await;
        assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{answer}");
        assert_eq!(answer["details"], json!({ "one_file_per_employee": ["Unknown field."] }), "{answer}");
        // A split into too many files is refused before it is listed: one worker over 9,999
        // years is 9,999 files, two (the admin's own employment overlaps that period) 19,998.
        let (status, answer) = validate(app, Some(&c.admin), json!({ "company_ids": [c.id], "user_ids": c.workers, "min_date": "0001-01-01", "max_date": "9999-12-31" })).await;
        assert_eq!((status, &answer["num_chunks"]), (StatusCode::OK, &json!(9999)), "{answer}");
        let (status, answer) = validate(app, Some(&c.admin), json!({ "company_ids": [c.id], "min_date": "0001-01-01", "max_date": "9999-12-31" })).await;
        assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{answer}");
        assert!(answer["details"]["max_date"][0].as_str().unwrap().contains("19998 files"), "{answer}");
    }
}
