//! `POST /users/generate_tachograph_file`, the worker's own C1B file, over the real HTTP API on
//! both databases: the file and its name, its signatures (on by default), the period's rules, a
//! worker without employment, and the 401.

use reqwest::StatusCode;
use roadlog::domain::export::c1b::{self, SignatureStatus};
use serde_json::{Value, json};

use crate::export::{Setup, recorded, root_key, setup};
use crate::support::{TestApp, TestUser};

async fn own(app: &TestApp, user: Option<&TestUser>, body: Value) -> reqwest::Response {
    let mut request = app
        .client
        .post(app.url("/api/users/generate_tachograph_file"))
        .json(&body);
    if let Some(user) = user {
        request = request.bearer_auth(&user.token);
    }
    request.send().await.unwrap()
}

on_both_backends! {
    async fn a_worker_downloads_their_own_file(app) {
        let Setup { worker, .. } = setup(app).await;
        let response = own(app, Some(&worker), json!({})).await;
        assert_eq!(response.status(), StatusCode::OK);
        assert_eq!(response.headers()["content-type"], "application/octet-stream");
        let card = c1b::roadlog_card_number(worker.id as u64, 0).unwrap();
        let disposition = response.headers()["content-disposition"].to_str().unwrap().to_string();
        assert!(
            disposition.starts_with("attachment; filename=C_") && disposition.ends_with(&format!("_E_MULLER_{card}.C1B")),
            "{disposition}"
        );
        let bytes = response.bytes().await.unwrap();
        // Signed by default, with the environment's chain.
        let report = c1b::inspect(&bytes, Some(&root_key(app).await)).expect("a valid driver-card file");
        let signed: Vec<_> = report.files.iter().filter(|ef| ef.signature != SignatureStatus::Unsigned).collect();
        assert!(signed.len() >= 10 && signed.iter().all(|ef| ef.signature == SignatureStatus::Valid), "{:?}", report.files);
        let intervals: Vec<(i64, i64)> = c1b::activity_intervals(&report).into_iter().map(|(_, s, e)| (s, e)).collect();
        assert_eq!(intervals, recorded().into_iter().map(|(_, s, e)| (s, e)).collect::<Vec<_>>());

        // Unsigned when asked; the period excludes the recorded days.
        let response = own(app, Some(&worker), json!({ "with_digital_signatures": false })).await;
        let report = c1b::inspect(&response.bytes().await.unwrap(), None).unwrap();
        assert!(report.files.iter().all(|ef| ef.signature == SignatureStatus::Unsigned));
        let today = chrono::Utc::now().date_naive().format("%Y-%m-%d").to_string();
        let response = own(app, Some(&worker), json!({ "min_date": today, "max_date": today })).await;
        assert_eq!(response.status(), StatusCode::OK);
        let report = c1b::inspect(&response.bytes().await.unwrap(), None).unwrap();
        assert!(c1b::activity_intervals(&report).is_empty());
    }

    async fn a_personal_export_checks_its_request(app) {
        let Setup { worker, .. } = setup(app).await;
        for body in [
            json!({ "min_date": "2026-01-10", "max_date": "2026-01-01" }),
            json!({ "min_date": "2026-01-01", "max_date": "2026-03-07" }),
            json!({ "max_date": "yesterday" }),
            json!({ "with_digital_signatures": "yes" }),
        ] {
            let response = own(app, Some(&worker), body.clone()).await;
            assert_eq!(response.status(), StatusCode::NOT_FOUND, "{body}");
            let answer: Value = response.json().await.unwrap();
            assert_eq!(answer["error_code"], "INVALID_INPUTS", "{answer}");
        }
        let response = own(app, None, json!({})).await;
        assert_eq!(response.status(), StatusCode::UNAUTHORIZED);
        // A user employed nowhere gets a file without activity.
        let loner = app.new_user("loner@example.com").await;
        let response = own(app, Some(&loner), json!({ "with_digital_signatures": false })).await;
        assert_eq!(response.status(), StatusCode::OK);
        let report = c1b::inspect(&response.bytes().await.unwrap(), None).unwrap();
        assert!(c1b::activity_intervals(&report).is_empty());
    }
}
