//! The graceful stop, during a long export: within its deadline the running request finishes
//! and new connections are refused; past it the connection is cut, never a partial archive, and
//! the database is left consistent.

use serde_json::json;

use crate::support::{Backend, TestApp};

/// A company with `n` employees who worked yesterday, and its admin's token.
async fn company_with_work(app: &TestApp, n: usize) -> (String, i64) {
    let admin = app.new_user("admin@example.com").await;
    let company = app.new_company(&admin, "Slow Export").await;
    let start = chrono::Utc::now().timestamp() / 86_400 * 86_400 - 86_400 + 6 * 3600;
    for k in 0..n {
        let worker = app.new_user(&format!("w{k}@example.com")).await;
        app.hire(&admin, company, &worker).await;
        let body = app
            .as_user(
                &worker,
                "mutation($c: Int!) { activities { createMission(companyId: $c) { id } } }",
                json!({ "c": company }),
            )
            .await;
        let mission = body["data"]["activities"]["createMission"]["id"].as_i64().unwrap();
        app.as_user(
            &worker,
            "mutation($m: Int!, $s: TimeStamp!, $e: TimeStamp!) { activities { logActivity(type: \"drive\", missionId: $m, startTime: $s, endTime: $e, switch: false) { id } } }",
            json!({ "m": mission, "s": start, "e": start + 3600 }),
        )
        .await;
    }
    (admin.token, company)
}

async fn export(app: &TestApp, token: &str, company: i64) -> reqwest::Result<reqwest::Response> {
    app.client
        .post(app.url("/companies/generate_tachograph_files"))
        .bearer_auth(token)
        .json(&json!({ "company_ids": [company], "with_digital_signatures": true }))
        .send()
        .await
}

/// Starts an export and begins the server's stop once the export is in flight.
async fn export_while_stopping(app: &TestApp, token: &str, company: i64) -> reqwest::Result<reqwest::Response> {
    let mut in_flight = app.server.requests_in_flight();
    let stop = async {
        in_flight.wait_for(|n| *n >= 1).await.unwrap();
        app.server.begin_stop();
    };
    let (response, ()) = tokio::join!(export(app, token, company), stop);
    response
}

tests! {
    async fn a_stop_lets_a_running_export_finish_within_the_deadline() {
        let app = TestApp::spawn_with(Backend::Sqlite, |s| s.shutdown_timeout = 60).await;
        let (token, company) = company_with_work(&app, 6).await;
        let response = export_while_stopping(&app, &token, company).await;
        let response = response.expect("the export answers although the server is stopping");
        assert_eq!(response.status(), 200);
        let bytes = response.bytes().await.unwrap();
        let archive = zip::ZipArchive::new(std::io::Cursor::new(bytes)).expect("a whole ZIP");
        assert_eq!(archive.len(), 7, "one file per employee, the admin included");
        // New connections are refused once the stop began.
        app.server.accepting().wait_for(|accepting| !*accepting).await.unwrap();
        assert!(reqwest::get(app.url("/health")).await.is_err(), "no new connection after the stop");
        app.cleanup().await;
    }

    async fn a_stop_past_its_deadline_cuts_the_export_cleanly() {
        let app = TestApp::spawn_with(Backend::Sqlite, |s| s.shutdown_timeout = 0).await;
        // Signed, first time: a card key is generated for each employee, far longer than the
        // zero deadline.
        let (token, company) = company_with_work(&app, 6).await;
        let response = export_while_stopping(&app, &token, company).await;
        // Cut: no answer at all, never a partial archive presented as complete.
        assert!(response.is_err(), "the connection was cut: {:?}", response.map(|r| r.status()));
        // The database is left consistent: every card key stored is whole.
        let (keys, empty): (i64, i64) = sqlx::query_as(
            "SELECT COUNT(*), COUNT(*) - COUNT(NULLIF(LENGTH(key_bytes), 0)) FROM tachograph_card_keys",
        )
        .fetch_one(&app.server.db.pool)
        .await
        .unwrap();
        assert!(keys <= 7 && empty == 0, "{keys} keys, {empty} empty");
        app.cleanup().await;
    }
}
