//! An admin's dashboard and the company's registry fields over the real HTTP API, on both
//! databases: `Company.dashboardSummary` (each count, in the admin's time zone, admins only),
//! `Company.hasNoActivity`, `Company.sirets`, `Employment.shouldForceNbWorkerInfo` with
//! `snoozeNbWorkerInfo`, and `Queries.output`, the dry run that keeps nothing.

use serde_json::{Value, json};

use crate::support::{TestApp, TestUser, codes};

const SUMMARY: &str = "query($c: Int!) { company(id: $c) { hasNoActivity sirets dashboardSummary { activeMissionsCount pendingValidationsCount pendingInvitationsCount inactiveEmployeesCount autoValidatedMissionsCount pendingInvitationEmploymentIds hasAnyMissionThisWeek } } }";
const MISSION: &str = "mutation($c: Int!) { activities { createMission(companyId: $c, name: \"Tournée\") { id } } }";
const LOG: &str = "mutation($m: Int!, $s: TimeStamp!, $e: TimeStamp) { activities { logActivity(missionId: $m, type: \"drive\", startTime: $s, endTime: $e, switch: false) { id } } }";
const OUTPUT: &str =
    "query($i: [BulkActivityItem]) { output(items: $i) { id type startTime endTime userId missionId } }";

fn minute_now() -> i64 {
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs() as i64;
    now - now % 60
}

/// A fixed-offset zone in which it is now about noon, so that "today" and "this week" hold the
/// last hour whenever the test runs (`Etc/GMT-N` is N hours east of UTC).
fn noon_zone() -> String {
    let hour = (minute_now() % 86_400) / 3600;
    let east = 12 - hour;
    if east >= 0 {
        format!("Etc/GMT-{east}")
    } else {
        format!("Etc/GMT+{}", -east)
    }
}

async fn mission(app: &TestApp, user: &TestUser, company: i64) -> i64 {
    let body = app.as_user(user, MISSION, json!({ "c": company })).await;
    body["data"]["activities"]["createMission"]["id"]
        .as_i64()
        .unwrap_or_else(|| panic!("{body}"))
}

async fn log(app: &TestApp, user: &TestUser, mission: i64, start: i64, end: Option<i64>) -> i64 {
    let body = app
        .as_user(user, LOG, json!({ "m": mission, "s": start, "e": end }))
        .await;
    body["data"]["activities"]["logActivity"]["id"]
        .as_i64()
        .unwrap_or_else(|| panic!("{body}"))
}

async fn activities(app: &TestApp) -> i64 {
    app.scalar("SELECT COUNT(*) FROM activities").await
}

on_both_backends! {
    async fn the_dashboard_counts_what_the_admin_has_to_do_today(app) {
        let admin = app.new_user("admin@example.com").await;
        let busy = app.new_user("busy@example.com").await;
        let idle = app.new_user("idle@example.com").await;
        let invited = app.new_user("invited@example.com").await;
        let company = app.new_company(&admin, "Acme").await;
        let empty = app.new_company(&admin, "Empty").await;
        sqlx::query("UPDATE users SET timezone_name = $1 WHERE id = $2")
            .bind(noon_zone())
            .bind(admin.id)
            .execute(&app.server.db.pool)
            .await
            .unwrap();
        app.hire_a_week_ago(&admin, company, &busy).await;
        app.hire(&admin, company, &idle).await;
        let body = app.employ(&admin, company, invited.id, "").await;
        let pending = body["data"]["employments"]["createEmployment"]["id"].as_i64().unwrap();

        // A company with nothing yet.
        let body = app.as_user(&admin, SUMMARY, json!({ "c": empty })).await;
        assert_eq!(body["data"]["company"], json!({ "hasNoActivity": true, "sirets": [], "dashboardSummary": {
            "activeMissionsCount": 0, "pendingValidationsCount": 0, "pendingInvitationsCount": 0, "inactiveEmployeesCount": 0,
            "autoValidatedMissionsCount": 0, "pendingInvitationEmploymentIds": [], "hasAnyMissionThisWeek": false } }), "{body}");

        // `busy` ended and validated a first mission, and works in a second one.
        let now = minute_now();
        let done = mission(app, &busy, company).await;
        log(app, &busy, done, now - 1800, Some(now - 1200)).await;
        let body = app.as_user(&busy, "mutation($m: Int!, $e: TimeStamp!) { activities { endMission(missionId: $m, endTime: $e) { id } } }", json!({ "m": done, "e": now - 1200 })).await;
        assert!(body["errors"].is_null(), "{body}");
        let body = app.as_user(&busy, "mutation($m: Int!, $u: [Int]!) { activities { validateMission(missionId: $m, usersIds: $u) { id } } }", json!({ "m": done, "u": [busy.id] })).await;
        assert!(body["errors"].is_null(), "{body}");
        let running = mission(app, &busy, company).await;
        log(app, &busy, running, now - 600, None).await;

        let body = app.as_user(&admin, SUMMARY, json!({ "c": company })).await;
        assert_eq!(body["data"]["company"], json!({ "hasNoActivity": false, "sirets": [], "dashboardSummary": {
            "activeMissionsCount": 1, "pendingValidationsCount": 1, "pendingInvitationsCount": 1, "inactiveEmployeesCount": 1,
            "autoValidatedMissionsCount": 0, "pendingInvitationEmploymentIds": [pending], "hasAnyMissionThisWeek": true } }), "{body}");

        // An admin's validation ends the wait; an automatic one of today is counted.
        let body = app.as_user(&admin, "mutation($m: Int!, $u: [Int]!) { activities { validateMission(missionId: $m, usersIds: $u) { id } } }", json!({ "m": done, "u": [busy.id] })).await;
        assert!(body["errors"].is_null(), "{body}");
        sqlx::query("INSERT INTO mission_validations (mission_id, submitter_id, user_id, is_admin, is_auto, reception_time, creation_time) VALUES ($1, NULL, $2, 1, 1, $3, $3)")
            .bind(running).bind(busy.id).bind(now).execute(&app.server.db.pool).await.unwrap();
        let body = app.as_user(&admin, SUMMARY, json!({ "c": company })).await;
        let summary = &body["data"]["company"]["dashboardSummary"];
        assert_eq!(summary["pendingValidationsCount"], 0, "{body}");
        assert_eq!(summary["autoValidatedMissionsCount"], 1, "{body}");

        // A worker reads the company, not the dashboard.
        let body = app.as_user(&busy, SUMMARY, json!({ "c": company })).await;
        assert_eq!(body["data"]["company"]["dashboardSummary"], Value::Null, "{body}");
        assert_eq!(body["data"]["company"]["hasNoActivity"], false, "{body}");
        assert_eq!(codes(&body), ["AUTHORIZATION_ERROR"], "{body}");
        assert!(body["errors"][0]["message"].as_str().unwrap().contains("Actor must be company admin"), "{body}");
    }

    async fn sirets_are_the_establishment_a_company_stands_for(app) {
        let admin = app.new_user("admin@example.com").await;
        let company = app.new_company(&admin, "Acme").await;
        sqlx::query("UPDATE companies SET siret = '12345678900017' WHERE id = $1")
            .bind(company).execute(&app.server.db.pool).await.unwrap();
        let body = app.as_user(&admin, "query($c: Int!) { company(id: $c) { sirets } }", json!({ "c": company })).await;
        assert_eq!(body["data"]["company"]["sirets"], json!(["12345678900017"]), "{body}");
    }

    async fn an_admin_who_put_off_the_number_of_workers_is_asked_again_after_15_days(app) {
        let admin = app.new_user("admin@example.com").await;
        let worker = app.new_user("worker@example.com").await;
        let company = app.new_company(&admin, "Acme").await;
        app.hire(&admin, company, &worker).await;
        let own: i64 = app.scalar(&format!("SELECT id FROM employments WHERE user_id = {}", admin.id)).await;
        let read = || async {
            let body = app.as_user(&admin, "query($c: Int!) { company(id: $c) { employments { id shouldForceNbWorkerInfo } } }", json!({ "c": company })).await;
            body["data"]["company"]["employments"].as_array().unwrap_or_else(|| panic!("{body}"))
                .iter().find(|e| e["id"] == own).unwrap()["shouldForceNbWorkerInfo"].clone()
        };
        let snooze = "mutation($e: Int!) { snoozeNbWorkerInfo(employmentId: $e) { success } }";
        let stored = || async {
            let (date,): (Option<String>,) = sqlx::query_as("SELECT nb_worker_info_snooze_date FROM employments WHERE id = $1")
                .bind(own).fetch_one(&app.server.db.pool).await.unwrap();
            date
        };
        assert_eq!(read().await, false);

        // Someone else's employment: refused, nothing stored.
        let body = app.as_user(&worker, snooze, json!({ "e": own })).await;
        assert_eq!(codes(&body), ["AUTHORIZATION_ERROR"], "{body}");
        assert_eq!(stored().await, None);

        let body = app.as_user(&admin, snooze, json!({ "e": own })).await;
        assert_eq!(body["data"]["snoozeNbWorkerInfo"], json!({ "success": true }), "{body}");
        let today = chrono::Utc::now().date_naive();
        assert_eq!(stored().await, Some(today.to_string()));
        assert_eq!(read().await, false);

        let old = today - chrono::Days::new(15);
        sqlx::query("UPDATE employments SET nb_worker_info_snooze_date = $1 WHERE id = $2")
            .bind(old.to_string()).bind(own).execute(&app.server.db.pool).await.unwrap();
        assert_eq!(read().await, true);
        // Once the number is given, the question is settled.
        sqlx::query("UPDATE companies SET number_workers = 4 WHERE id = $1")
            .bind(company).execute(&app.server.db.pool).await.unwrap();
        assert_eq!(read().await, false);
    }

    async fn the_dry_run_answers_as_the_mutations_and_keeps_nothing(app) {
        let admin = app.new_user("admin@example.com").await;
        let worker = app.new_user("worker@example.com").await;
        let stranger = app.new_user("stranger@example.com").await;
        let company = app.new_company(&admin, "Acme").await;
        app.hire_a_week_ago(&admin, company, &worker).await;
        let now = minute_now();
        let m = mission(app, &worker, company).await;
        let kept = log(app, &worker, m, now - 7200, Some(now - 3600)).await;
        let before = activities(app).await;
        let versions = app.scalar("SELECT COUNT(*) FROM activity_versions").await;

        // A new activity, then an edit of the kept one: the last item's activity as it would be.
        let items = json!([
            { "log": { "type": "work", "missionId": m, "startTime": now - 3000, "endTime": now - 2400, "switch": false } },
            { "edit": { "activityId": kept, "endTime": now - 3300 } }
        ]);
        let body = app.as_user(&worker, OUTPUT, json!({ "i": items })).await;
        assert_eq!(body["data"]["output"], json!({ "id": kept, "type": "drive", "startTime": now - 7200, "endTime": now - 3300, "userId": worker.id, "missionId": m }), "{body}");
        let body = app.as_user(&worker, OUTPUT, json!({ "i": [{ "log": { "type": "work", "missionId": m, "startTime": now - 3000, "endTime": now - 2400, "switch": false } }] })).await;
        assert_eq!(body["data"]["output"]["type"], "work", "{body}");
        assert_eq!(activities(app).await, before);
        assert_eq!(app.scalar("SELECT COUNT(*) FROM activity_versions").await, versions);
        let (end,): (Option<i64>,) = sqlx::query_as("SELECT end_time FROM activities WHERE id = $1")
            .bind(kept).fetch_one(&app.server.db.pool).await.unwrap();
        assert_eq!(end, Some(now - 3600));

        // A failing item is the answer, as the mutation's; nothing of the items before it stays.
        let items = json!([
            { "log": { "type": "work", "missionId": m, "startTime": now - 3000, "endTime": now - 2400, "switch": false } },
            { "log": { "type": "work", "missionId": m, "startTime": now - 2700, "endTime": now - 2000, "switch": false } }
        ]);
        let body = app.as_user(&worker, OUTPUT, json!({ "i": items })).await;
        assert_eq!(body["data"]["output"], Value::Null, "{body}");
        assert!(!codes(&body).is_empty(), "{body}");
        assert_eq!(activities(app).await, before);

        // Someone outside the company may not try a correction of its time.
        let body = app.as_user(&stranger, OUTPUT, json!({ "i": [{ "cancel": { "activityId": kept } }] })).await;
        assert_eq!(codes(&body), ["AUTHORIZATION_ERROR"], "{body}");
        let (dismissed,): (Option<i64>,) = sqlx::query_as("SELECT dismissed_at FROM activities WHERE id = $1")
            .bind(kept).fetch_one(&app.server.db.pool).await.unwrap();
        assert_eq!(dismissed, None);

        // No items: null; too many: refused before any work.
        let body = app.as_user(&worker, OUTPUT, json!({ "i": [] })).await;
        assert_eq!(body, json!({ "data": { "output": null } }));
        let many: Vec<Value> = (0..101).map(|_| json!({ "cancel": { "activityId": kept } })).collect();
        let body = app.as_user(&worker, OUTPUT, json!({ "i": many })).await;
        assert_eq!(codes(&body), ["INVALID_INPUTS"], "{body}");
        assert_eq!(activities(app).await, before);
    }
}
