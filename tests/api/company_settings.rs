//! Company settings over the real HTTP API, on both databases: `editCompanySettings` (the
//! reference's eight settings, their defaults, admins only, omitted = unchanged, the label's
//! bound) and `Company.settings`; and the two settings the server enforces: `requireExpenditures`
//! (logExpenditure refused) and `allowTeamMode` (a submitter recording a co-worker's time).

use serde_json::{Value, json};

use crate::support::{TestApp, TestUser, codes};

const EDIT: &str = "mutation($c: Int!, $tm: Boolean, $tr: Boolean, $km: Boolean, $ex: Boolean, $su: Boolean, $mn: Boolean, $ot: Boolean, $l: String) { \
     editCompanySettings(companyId: $c, allowTeamMode: $tm, allowTransfers: $tr, requireKilometerData: $km, requireExpenditures: $ex, \
       requireSupportActivity: $su, requireMissionName: $mn, allowOtherTask: $ot, otherTaskLabel: $l) { id settings { ...S } } } \
     fragment S on CompanySettings { allowTeamMode allowTransfers requireKilometerData requireExpenditures requireSupportActivity \
       requireMissionName allowOtherTask otherTaskLabel }";
const READ: &str = "query($c: Int!) { company(id: $c) { settings { allowTeamMode allowTransfers requireKilometerData \
     requireExpenditures requireSupportActivity requireMissionName allowOtherTask otherTaskLabel } } }";

/// The settings as stored, in the order of the reference's table.
type Stored = (i64, i64, i64, i64, i64, i64, Option<i64>, Option<String>);

async fn stored(app: &TestApp, company: i64) -> Stored {
    sqlx::query_as(
        "SELECT allow_team_mode, allow_transfers, require_kilometer_data, require_expenditures, \
         require_support_activity, require_mission_name, allow_other_task, other_task_label FROM companies WHERE id = $1",
    )
    .bind(company)
    .fetch_one(&app.server.db.pool)
    .await
    .unwrap()
}

async fn edit(app: &TestApp, user: &TestUser, company: i64, mut variables: Value) -> Value {
    variables["c"] = json!(company);
    app.as_user(user, EDIT, variables).await
}

on_both_backends! {
    async fn an_admin_edits_the_company_settings(app) {
        let admin = app.new_user("admin@example.com").await;
        let worker = app.new_user("worker@example.com").await;
        let stranger = app.new_user("stranger@example.com").await;
        let company = app.new_company(&admin, "Acme").await;
        let elsewhere = app.new_company(&stranger, "Other").await;
        app.hire(&admin, company, &worker).await;

        // The reference's defaults, read by an employee; allowOtherTask is null for a company
        // created without a business.
        let defaults = json!({
            "allowTeamMode": true, "allowTransfers": false, "requireKilometerData": true, "requireExpenditures": true,
            "requireSupportActivity": false, "requireMissionName": true, "allowOtherTask": null, "otherTaskLabel": ""
        });
        let body = app.as_user(&worker, READ, json!({ "c": company })).await;
        assert_eq!(body["data"]["company"]["settings"], defaults, "{body}");

        // Every setting at once: returned with the company and stored.
        let all = json!({ "tm": false, "tr": true, "km": false, "ex": false, "su": true, "mn": false, "ot": true, "l": "Chargement" });
        let body = edit(app, &admin, company, all).await;
        assert!(body["errors"].is_null(), "{body}");
        let changed = json!({
            "allowTeamMode": false, "allowTransfers": true, "requireKilometerData": false, "requireExpenditures": false,
            "requireSupportActivity": true, "requireMissionName": false, "allowOtherTask": true, "otherTaskLabel": "Chargement"
        });
        assert_eq!(body["data"]["editCompanySettings"], json!({ "id": company, "settings": changed }));
        assert_eq!(stored(app, company).await, (0, 1, 0, 0, 1, 0, Some(1), Some("Chargement".into())));

        // Omitted and null arguments change nothing; the empty label is a value.
        let body = edit(app, &admin, company, json!({ "tm": null, "ot": null })).await;
        assert_eq!(body["data"]["editCompanySettings"]["settings"], changed, "{body}");
        let body = edit(app, &admin, company, json!({ "tm": true, "ot": false, "l": "" })).await;
        assert_eq!(body["data"]["editCompanySettings"]["settings"]["allowTeamMode"], true, "{body}");
        assert_eq!(stored(app, company).await, (1, 1, 0, 0, 1, 0, Some(0), Some(String::new())));
        let before = stored(app, company).await;

        // A label of 25 characters is refused with a clear error (24 accented ones fit), and
        // nothing of the call is written.
        let body = edit(app, &admin, company, json!({ "ex": true, "l": "a".repeat(25) })).await;
        assert_eq!(codes(&body), ["INVALID_INPUTS"], "{body}");
        assert_eq!(body["errors"][0]["message"], "otherTaskLabel must have at most 24 characters");
        assert_eq!(body["data"]["editCompanySettings"], Value::Null);
        assert_eq!(stored(app, company).await, before);
        let body = edit(app, &admin, company, json!({ "l": "é".repeat(24) })).await;
        assert_eq!(body["data"]["editCompanySettings"]["settings"]["otherTaskLabel"], "é".repeat(24), "{body}");
        let before = stored(app, company).await;

        // Admins of the company only: a worker, another company's admin, an unknown company and
        // an anonymous caller are refused and change nothing.
        for user in [&worker, &stranger] {
            let body = edit(app, user, company, json!({ "tm": false, "ex": true })).await;
            assert_eq!(codes(&body), ["AUTHORIZATION_ERROR"], "{body}");
        }
        let body = edit(app, &admin, elsewhere, json!({ "tm": false })).await;
        assert_eq!(codes(&body), ["AUTHORIZATION_ERROR"], "{body}");
        let body = edit(app, &admin, 999_999, json!({ "tm": false })).await;
        assert_eq!(codes(&body), ["AUTHORIZATION_ERROR"], "{body}");
        let (_, body) = app.graphql(EDIT, json!({ "c": company, "tm": false }), None).await;
        assert_eq!(codes(&body), ["AUTHENTICATION_ERROR"], "{body}");
        assert_eq!(stored(app, company).await, before);
        assert_eq!(stored(app, elsewhere).await.0, 1);
    }

    async fn the_enforced_settings_change_what_is_accepted(app) {
        let admin = app.new_user("admin@example.com").await;
        let worker = app.new_user("worker@example.com").await;
        let mate = app.new_user("mate@example.com").await;
        let company = app.new_company(&admin, "Acme").await;
        app.hire(&admin, company, &worker).await;
        app.hire(&admin, company, &mate).await;
        sqlx::query("UPDATE employments SET start_date = '2020-01-01'")
            .execute(&app.server.db.pool)
            .await
            .unwrap();
        let day = (chrono::Utc::now().timestamp() / 86_400 - 3) * 86_400;
        let date = chrono::DateTime::from_timestamp(day, 0).unwrap().format("%Y-%m-%d").to_string();
        let body = app
            .as_user(&worker, "mutation($c: Int!) { activities { createMission(companyId: $c, name: \"M\") { id } } }", json!({ "c": company }))
            .await;
        let mission = body["data"]["activities"]["createMission"]["id"].as_i64().unwrap_or_else(|| panic!("{body}"));

        let log = "mutation($m: Int!, $u: Int!, $s: TimeStamp!, $e: TimeStamp!) { activities { logActivity(missionId: $m, userId: $u, type: \"drive\", startTime: $s, endTime: $e, switch: false) { id userId } } }";
        let hours = |h: i64| day + h * 3600;
        let body = app.as_user(&worker, log, json!({ "m": mission, "u": worker.id, "s": hours(6), "e": hours(8) })).await;
        assert!(body["errors"].is_null(), "{body}");

        // requireExpenditures false: logExpenditure is refused and nothing is written.
        let expense = "mutation($m: Int!, $d: Date!) { activities { logExpenditure(missionId: $m, type: \"snack\", spendingDate: $d) { id } } }";
        edit(app, &admin, company, json!({ "ex": false })).await;
        let body = app.as_user(&worker, expense, json!({ "m": mission, "d": date })).await;
        assert_eq!(codes(&body), ["AUTHORIZATION_ERROR"], "{body}");
        assert_eq!(body["errors"][0]["message"], "Expenditures have been disabled for this company");
        assert_eq!(app.scalar("SELECT COUNT(*) FROM expenditures").await, 0);
        edit(app, &admin, company, json!({ "ex": true })).await;
        let body = app.as_user(&worker, expense, json!({ "m": mission, "d": date })).await;
        assert!(body["data"]["activities"]["logExpenditure"]["id"].is_i64(), "{body}");

        // allowTeamMode false: the submitter may not record time for a co-worker who has none in
        // the mission; true again, he may.
        edit(app, &admin, company, json!({ "tm": false })).await;
        let body = app.as_user(&worker, log, json!({ "m": mission, "u": mate.id, "s": hours(6), "e": hours(8) })).await;
        assert_eq!(codes(&body), ["AUTHORIZATION_ERROR"], "{body}");
        assert_eq!(app.scalar(&format!("SELECT COUNT(*) FROM activities WHERE user_id = {}", mate.id)).await, 0);
        // Switched back on, he may; off again, he still may for the co-worker now in the mission,
        // not for another one.
        edit(app, &admin, company, json!({ "tm": true })).await;
        let body = app.as_user(&worker, log, json!({ "m": mission, "u": mate.id, "s": hours(9), "e": hours(10) })).await;
        assert_eq!(body["data"]["activities"]["logActivity"]["userId"], mate.id, "{body}");
        edit(app, &admin, company, json!({ "tm": false })).await;
        let body = app.as_user(&worker, log, json!({ "m": mission, "u": mate.id, "s": hours(6), "e": hours(8) })).await;
        assert_eq!(body["data"]["activities"]["logActivity"]["userId"], mate.id, "{body}");
        let third = app.new_user("third@example.com").await;
        app.hire(&admin, company, &third).await;
        sqlx::query("UPDATE employments SET start_date = '2020-01-01'")
            .execute(&app.server.db.pool)
            .await
            .unwrap();
        let body = app.as_user(&worker, log, json!({ "m": mission, "u": third.id, "s": hours(6), "e": hours(8) })).await;
        assert_eq!(codes(&body), ["AUTHORIZATION_ERROR"], "{body}");
        edit(app, &admin, company, json!({ "tm": true })).await;
        let body = app.as_user(&worker, log, json!({ "m": mission, "u": third.id, "s": hours(6), "e": hours(8) })).await;
        assert_eq!(body["data"]["activities"]["logActivity"]["userId"], third.id, "{body}");
    }
}
