//! The reference's simpler state fields and mutations, on both databases: the employment state
//! fields (`isActive`, `isTerminated`, `isInactive`, `lastActiveAt`, `latestInviteEmailTime`,
//! `hideEmail`), `updateHideEmail`, `updateCompanyDetails(newName, newPhoneNumber,
//! newNbWorkers)` with `Company.numberWorkers`, and `Vehicle.creationTime / terminatedAt`.

use serde_json::{Value, json};

use crate::support::employments::TERMINATE;
use crate::support::{TestApp, codes};

const STATE: &str = "query($c: Int!) { company(id: $c) { employments { id userId email hideEmail isActive isTerminated isInactive lastActiveAt latestInviteEmailTime status user { email } } } }";
const HIDE: &str = "mutation($e: Int!, $h: Boolean!) { employments { updateHideEmail(employmentId: $e, hideEmail: $h) { id email hideEmail } } }";
const DETAILS: &str = "mutation($c: Int!, $n: String, $p: String, $w: Int, $b: String) { updateCompanyDetails(companyId: $c, newName: $n, newPhoneNumber: $p, newNbWorkers: $w, newBusinessType: $b) { id name phoneNumber numberWorkers business { businessType } } }";

async fn employment_of(app: &TestApp, admin: &crate::support::TestUser, company: i64, user: i64) -> Value {
    let body = app.as_user(admin, STATE, json!({ "c": company })).await;
    body["data"]["company"]["employments"]
        .as_array()
        .unwrap_or_else(|| panic!("{body}"))
        .iter()
        .find(|e| e["userId"] == user)
        .cloned()
        .unwrap()
}

on_both_backends! {
    async fn employment_state_fields_and_hidden_emails(app) {
        let admin = app.new_user("admin@example.com").await;
        let worker = app.new_user("worker@example.com").await;
        let company = app.new_company(&admin, "Acme").await;
        let before = chrono::Utc::now().timestamp();
        let body = app.employ(&admin, company, worker.id, "").await;
        let id = body["data"]["employments"]["createEmployment"]["id"].as_i64().unwrap();

        // Pending: not active, the invitation e-mail's time known, nothing hidden.
        let pending = employment_of(app, &admin, company, worker.id).await;
        assert_eq!(pending["isActive"], false);
        assert_eq!(pending["isTerminated"], false);
        assert_eq!(pending["isInactive"], false);
        assert_eq!(pending["hideEmail"], false);
        assert!(pending["lastActiveAt"].is_null());
        assert!(pending["latestInviteEmailTime"].as_i64().unwrap() >= before, "{pending}");

        // Only the employee hides their e-mail.
        let body = app.as_user(&admin, HIDE, json!({ "e": id, "h": true })).await;
        assert_eq!(codes(&body), ["AUTHORIZATION_ERROR"]);
        let body = app.as_user(&worker, HIDE, json!({ "e": 999_999_999, "h": true })).await;
        assert_eq!(codes(&body), ["AUTHORIZATION_ERROR"]);
        let (hidden,): (i64,) = sqlx::query_as("SELECT hide_email FROM employments WHERE id = $1")
            .bind(id)
            .fetch_one(&app.server.db.pool)
            .await
            .unwrap();
        assert_eq!(hidden, 0, "nothing changed");
        let body = app.as_user(&worker, "mutation($e: Int!) { employments { validateEmployment(employmentId: $e) { id } } }", json!({ "e": id })).await;
        assert!(body["errors"].is_null(), "{body}");
        let shown = employment_of(app, &admin, company, worker.id).await;
        assert_eq!(shown["email"], "worker@example.com");
        assert_eq!(shown["user"]["email"], "worker@example.com");
        assert_eq!(shown["isActive"], true);
        assert_eq!(shown["status"], "ACTIVE");
        let body = app.as_user(&worker, HIDE, json!({ "e": id, "h": true })).await;
        assert_eq!(body["data"]["employments"]["updateHideEmail"], json!({ "id": id, "email": "***", "hideEmail": true }), "{body}");
        let hidden = employment_of(app, &admin, company, worker.id).await;
        assert_eq!(hidden["email"], "***");
        assert_eq!(hidden["user"]["email"], "***");
        assert_eq!(hidden["hideEmail"], true);
        let body = app.as_user(&worker, HIDE, json!({ "e": id, "h": false })).await;
        assert_eq!(body["data"]["employments"]["updateHideEmail"]["email"], "worker@example.com");

        // lastActiveAt: the end of the latest ended activity in the company (two hours ago: the
        // employment, made today, is backdated so that it covers them at any time of day).
        sqlx::query("UPDATE employments SET start_date = '2020-01-01' WHERE id = $1")
            .bind(id)
            .execute(&app.server.db.pool)
            .await
            .unwrap();
        let start = (chrono::Utc::now().timestamp() / 60 - 120) * 60;
        let body = app.as_user(&worker, "mutation($c: Int!) { activities { createMission(companyId: $c, name: \"M\") { id } } }", json!({ "c": company })).await;
        let mission = body["data"]["activities"]["createMission"]["id"].as_i64().unwrap();
        let body = app.as_user(&worker, "mutation($m: Int!, $s: TimeStamp!, $e: TimeStamp) { activities { logActivity(missionId: $m, type: \"drive\", startTime: $s, endTime: $e, switch: false) { id } } }", json!({ "m": mission, "s": start, "e": start + 3600 })).await;
        assert!(body["errors"].is_null(), "{body}");
        let active = employment_of(app, &admin, company, worker.id).await;
        assert_eq!(active["lastActiveAt"], start + 3600);

        // Ended before today: terminated, not active.
        sqlx::query("UPDATE employments SET start_date = '2020-01-01', end_date = '2020-12-31' WHERE id = $1")
            .bind(id)
            .execute(&app.server.db.pool)
            .await
            .unwrap();
        let ended = employment_of(app, &admin, company, worker.id).await;
        assert_eq!((ended["isActive"].clone(), ended["isTerminated"].clone()), (json!(false), json!(true)));
        let body = app.as_user(&admin, TERMINATE, json!({ "e": id })).await;
        assert_eq!(codes(&body), ["INVALID_RESOURCE"]);
    }

    async fn company_details_are_changed_by_admins_only(app) {
        let admin = app.new_user("admin@example.com").await;
        let worker = app.new_user("worker@example.com").await;
        let company = app.new_company(&admin, "Acme").await;
        app.hire(&admin, company, &worker).await;

        let body = app.as_user(&admin, DETAILS, json!({ "c": company, "n": " Acme Transports ", "p": "+33 1 23 45 67 89", "w": 12 })).await;
        assert_eq!(
            body["data"]["updateCompanyDetails"],
            json!({ "id": company, "name": "Acme Transports", "phoneNumber": "+33 1 23 45 67 89", "numberWorkers": 12, "business": null }),
            "{body}"
        );
        // Omitted, null or empty: unchanged.
        let body = app.as_user(&admin, DETAILS, json!({ "c": company, "n": "", "p": null })).await;
        assert_eq!(body["data"]["updateCompanyDetails"]["name"], "Acme Transports");
        assert_eq!(body["data"]["updateCompanyDetails"]["numberWorkers"], 12);

        // Refused: nothing at all changes, the valid arguments of the call included.
        let snapshot = || async {
            sqlx::query_as::<_, (String, Option<String>, Option<i64>, Option<i64>)>(
                "SELECT usual_name, phone_number, number_workers, business_id FROM companies WHERE id = $1",
            )
            .bind(company)
            .fetch_one(&app.server.db.pool)
            .await
            .unwrap()
        };
        let before = snapshot().await;
        for variables in [
            json!({ "c": company, "n": "New", "w": 0 }),
            json!({ "c": company, "n": "New", "w": -3 }),
            json!({ "c": company, "n": "   ", "w": 5 }),
            json!({ "c": company, "n": "x".repeat(256) }),
            json!({ "c": company, "p": "1".repeat(31), "n": "New" }),
            json!({ "c": company, "n": "New", "b": "NOT_A_BUSINESS" }),
        ] {
            let body = app.as_user(&admin, DETAILS, variables.clone()).await;
            assert_eq!(codes(&body), ["INVALID_INPUTS"], "{variables}: {body}");
        }
        let body = app.as_user(&worker, DETAILS, json!({ "c": company, "n": "Mine" })).await;
        assert_eq!(codes(&body), ["AUTHORIZATION_ERROR"]);
        assert_eq!(snapshot().await, before, "nothing changed");
    }

    async fn vehicles_carry_their_creation_and_termination_times(app) {
        let admin = app.new_user("admin@example.com").await;
        let company = app.new_company(&admin, "Acme").await;
        let body = app.as_user(&admin, "mutation($c: Int!) { activities { createMission(companyId: $c, vehicleRegistrationNumber: \"ab-123-cd\") { vehicle { id creationTime terminatedAt } } } }", json!({ "c": company })).await;
        let vehicle = &body["data"]["activities"]["createMission"]["vehicle"];
        let id = vehicle["id"].as_i64().unwrap_or_else(|| panic!("{body}"));
        // A JSON-encoded naive UTC time, as the reference's JSONString.
        let created: String = serde_json::from_str(vehicle["creationTime"].as_str().unwrap()).unwrap();
        let (stored,): (i64,) = sqlx::query_as("SELECT creation_time FROM vehicles WHERE id = $1")
            .bind(id)
            .fetch_one(&app.server.db.pool)
            .await
            .unwrap();
        let expected = chrono::DateTime::from_timestamp(stored, 0).unwrap().naive_utc().format("%Y-%m-%dT%H:%M:%S").to_string();
        assert_eq!(created, expected);
        assert!(vehicle["terminatedAt"].is_null());
    }
}
