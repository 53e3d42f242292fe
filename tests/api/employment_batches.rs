//! `employments.batchTerminateEmployments` and `employments.sendInvitationsReminders` over the
//! real HTTP API, on both databases: each item answered on its own, the permission over every
//! company listed (nothing changes when it fails), the database state and the e-mails.

use serde_json::{Value, json};

use crate::regulation::{day, mission};
use crate::support::employments::{ROLE, outbox, today};
use crate::support::{TestApp, TestUser, codes};

const BATCH: &str = "mutation($l: [TerminateEmploymentInput]!) { employments { batchTerminateEmployments(employments: $l) { employmentId success error } } }";
const REMIND: &str = "mutation($l: [Int]!) { employments { sendInvitationsReminders(employmentIds: $l) { success sentToEmploymentIds } } }";
const INVITE: &str =
    "mutation($c: Int!, $m: Email!) { employments { createEmployment(companyId: $c, mail: $m) { id } } }";

async fn end_dates(app: &TestApp, ids: &[i64]) -> Vec<Option<String>> {
    let mut out = Vec::new();
    for id in ids {
        let (end,): (Option<String>,) = sqlx::query_as("SELECT end_date FROM employments WHERE id = $1")
            .bind(id)
            .fetch_one(&app.server.db.pool)
            .await
            .unwrap();
        out.push(end);
    }
    out
}

async fn own_employment(app: &TestApp, user: &TestUser, company: i64) -> i64 {
    let (id,): (i64,) = sqlx::query_as("SELECT id FROM employments WHERE user_id = $1 AND company_id = $2")
        .bind(user.id)
        .bind(company)
        .fetch_one(&app.server.db.pool)
        .await
        .unwrap();
    id
}

fn token_of(mail: &Value) -> String {
    mail["body"]
        .as_str()
        .unwrap()
        .split_whitespace()
        .find(|w| w.starts_with("rl_inv_"))
        .expect("a token in the e-mail")
        .to_string()
}

on_both_backends! {
    async fn a_batch_of_terminations_answers_each_item(app) {
        let admin = app.new_user("admin@example.com").await;
        let ended = app.new_user("ended@example.com").await;
        let busy = app.new_user("busy@example.com").await;
        let late = app.new_user("late@example.com").await;
        let waiting = app.new_user("waiting@example.com").await;
        let company = app.new_company(&admin, "Acme").await;
        let ended_id = app.hire(&admin, company, &ended).await;
        let busy_id = app.hire(&admin, company, &busy).await;
        let late_id = app.hire(&admin, company, &late).await;
        let body = app.employ(&admin, company, waiting.id, "").await;
        let waiting_id = body["data"]["employments"]["createEmployment"]["id"].as_i64().unwrap();
        let own_id = own_employment(app, &admin, company).await;
        sqlx::query("UPDATE employments SET start_date = '2020-01-01' WHERE id = $1")
            .bind(busy_id)
            .execute(&app.server.db.pool)
            .await
            .unwrap();
        // The busy worker has time recorded two days ago.
        mission(app, &busy, company, &[("drive", day(2) + 8 * 3600, day(2) + 10 * 3600)]).await;
        let five_days_ago = crate::regulation::date(day(5));

        let body = app
            .as_user(
                &admin,
                BATCH,
                json!({ "l": [
                    { "employmentId": ended_id },
                    { "employmentId": own_id },
                    { "employmentId": waiting_id },
                    { "employmentId": ended_id },
                    { "employmentId": 987_654_321 },
                    { "employmentId": late_id, "endDate": "2000-01-01" },
                    { "employmentId": busy_id, "endDate": five_days_ago },
                ] }),
            )
            .await;
        assert!(body["errors"].is_null(), "{body}");
        assert_eq!(
            body["data"]["employments"]["batchTerminateEmployments"],
            json!([
                { "employmentId": ended_id, "success": true, "error": null },
                { "employmentId": own_id, "success": false, "error": "Cannot terminate your own employment" },
                { "employmentId": waiting_id, "success": false, "error": "Employment is inactive or already terminated" },
                { "employmentId": ended_id, "success": false, "error": "Employment is inactive or already terminated" },
                { "employmentId": 987_654_321, "success": false, "error": "Employment not found" },
                { "employmentId": late_id, "success": false, "error": "End date is before the employment start date" },
                { "employmentId": busy_id, "success": false, "error": "User has logged activities after this end date" },
            ])
        );
        assert_eq!(
            end_dates(app, &[ended_id, own_id, waiting_id, late_id, busy_id]).await,
            [Some(today()), None, None, None, None]
        );
        // The ended employee is told, at their own address; no one else is.
        let mails = outbox(app, "ended@example.com").await;
        assert!(mails.iter().any(|m| m["subject"].as_str().unwrap().contains("Compte Roadlog détaché")), "{mails:?}");
        assert!(!outbox(app, "late@example.com").await.iter().any(|m| m["subject"].as_str().unwrap().contains("détaché")));

        // An empty batch answers an empty list.
        let body = app.as_user(&admin, BATCH, json!({ "l": [] })).await;
        assert_eq!(body["data"]["employments"]["batchTerminateEmployments"], json!([]));
    }

    async fn a_batch_of_terminations_needs_admin_rights_over_every_company(app) {
        let admin = app.new_user("admin@example.com").await;
        let other_admin = app.new_user("other@example.com").await;
        let worker = app.new_user("worker@example.com").await;
        let other_worker = app.new_user("other.worker@example.com").await;
        let company = app.new_company(&admin, "Acme").await;
        let other_company = app.new_company(&other_admin, "Other").await;
        let ours = app.hire(&admin, company, &worker).await;
        let theirs = app.hire(&other_admin, other_company, &other_worker).await;

        // One employment of another company refuses the whole batch, and changes nothing.
        let body = app
            .as_user(&admin, BATCH, json!({ "l": [{ "employmentId": ours }, { "employmentId": theirs }] }))
            .await;
        assert_eq!(codes(&body), ["AUTHORIZATION_ERROR"], "{body}");
        assert_eq!(body["data"]["employments"]["batchTerminateEmployments"], Value::Null);
        assert_eq!(end_dates(app, &[ours, theirs]).await, [None, None]);
        // A worker is no admin.
        let body = app.as_user(&worker, BATCH, json!({ "l": [{ "employmentId": ours }] })).await;
        assert_eq!(codes(&body), ["AUTHORIZATION_ERROR"]);
        // A null item, or too many, is refused before anything.
        let body = app.as_user(&admin, BATCH, json!({ "l": [{ "employmentId": ours }, null] })).await;
        assert_eq!(codes(&body), ["INVALID_INPUTS"]);
        let many: Vec<Value> = (0..101).map(|_| json!({ "employmentId": ours })).collect();
        let body = app.as_user(&admin, BATCH, json!({ "l": many })).await;
        assert_eq!(codes(&body), ["INVALID_INPUTS"]);
        assert_eq!(end_dates(app, &[ours]).await, [None]);
        // Without a token.
        let (_, body) = app.graphql(BATCH, json!({ "l": [{ "employmentId": ours }] }), None).await;
        assert_eq!(codes(&body), ["AUTHENTICATION_ERROR"]);
    }

    async fn invitation_reminders_wait_twelve_hours_and_renew_the_token(app) {
        let admin = app.new_user("admin@example.com").await;
        let worker = app.new_user("worker@example.com").await;
        let company = app.new_company(&admin, "Acme").await;
        let body = app.as_user(&admin, INVITE, json!({ "c": company, "m": "new@example.com" })).await;
        let invited = body["data"]["employments"]["createEmployment"]["id"].as_i64().unwrap();
        let body = app.employ(&admin, company, worker.id, "").await;
        let pending = body["data"]["employments"]["createEmployment"]["id"].as_i64().unwrap();
        let first_token = token_of(&outbox(app, "new@example.com").await[0]);
        let worker_mails = outbox(app, "worker@example.com").await.len();

        // Just invited: nothing is sent again.
        let body = app.as_user(&admin, REMIND, json!({ "l": [invited, pending] })).await;
        assert_eq!(body["data"]["employments"]["sendInvitationsReminders"], json!({ "success": true, "sentToEmploymentIds": [] }));
        assert_eq!(outbox(app, "new@example.com").await.len(), 1);

        // Thirteen hours later, both are reminded, once.
        sqlx::query("UPDATE employments SET latest_invite_email_time = latest_invite_email_time - 13 * 3600")
            .execute(&app.server.db.pool)
            .await
            .unwrap();
        let body = app.as_user(&admin, REMIND, json!({ "l": [pending, invited] })).await;
        assert_eq!(
            body["data"]["employments"]["sendInvitationsReminders"],
            json!({ "success": true, "sentToEmploymentIds": [pending, invited] })
        );
        let body = app.as_user(&admin, REMIND, json!({ "l": [pending, invited] })).await;
        assert_eq!(body["data"]["employments"]["sendInvitationsReminders"]["sentToEmploymentIds"], json!([]));
        let mails = outbox(app, "new@example.com").await;
        assert_eq!(mails.len(), 2);
        assert_eq!(outbox(app, "worker@example.com").await.len(), worker_mails + 1);
        let body = app
            .as_user(&admin, "query($c: Int!) { company(id: $c) { employments { id latestInviteEmailTime } } }", json!({ "c": company }))
            .await;
        let times: Vec<i64> = body["data"]["company"]["employments"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|e| e["id"] == invited || e["id"] == pending)
            .map(|e| e["latestInviteEmailTime"].as_i64().unwrap())
            .collect();
        let now = chrono::Utc::now().timestamp();
        assert!(times.len() == 2 && times.iter().all(|t| now - t < 600), "{body}");

        // The reminder's token replaces the first one.
        let second_token = token_of(mails.iter().find(|m| m["subject"].as_str().unwrap().starts_with("Reminder")).unwrap());
        assert_ne!(first_token, second_token);
        let newcomer = app.new_user("new@example.com").await;
        let redeem = "mutation($t: String!) { signUp { redeemInvite(token: $t) { id status } } }";
        let body = app.as_user(&newcomer, redeem, json!({ "t": first_token })).await;
        assert_eq!(codes(&body), ["INVALID_TOKEN"]);
        let body = app.as_user(&newcomer, redeem, json!({ "t": second_token })).await;
        assert_eq!(body["data"]["signUp"]["redeemInvite"]["id"], invited, "{body}");

        // An accepted employment is not reminded any more, whatever the delay.
        sqlx::query("UPDATE employments SET latest_invite_email_time = 0")
            .execute(&app.server.db.pool)
            .await
            .unwrap();
        let body = app.as_user(&admin, REMIND, json!({ "l": [invited] })).await;
        assert_eq!(body["data"]["employments"]["sendInvitationsReminders"]["sentToEmploymentIds"], json!([]));
    }

    async fn invitation_reminders_need_admin_rights_over_every_employment(app) {
        let admin = app.new_user("admin@example.com").await;
        let other_admin = app.new_user("other@example.com").await;
        let worker = app.new_user("worker@example.com").await;
        let company = app.new_company(&admin, "Acme").await;
        let other_company = app.new_company(&other_admin, "Other").await;
        let body = app.as_user(&admin, INVITE, json!({ "c": company, "m": "new@example.com" })).await;
        let ours = body["data"]["employments"]["createEmployment"]["id"].as_i64().unwrap();
        let body = app.as_user(&other_admin, INVITE, json!({ "c": other_company, "m": "theirs@example.com" })).await;
        let theirs = body["data"]["employments"]["createEmployment"]["id"].as_i64().unwrap();
        sqlx::query("UPDATE employments SET latest_invite_email_time = 0")
            .execute(&app.server.db.pool)
            .await
            .unwrap();
        for ids in [json!([ours, theirs]), json!([ours, 987_654_321])] {
            let body = app.as_user(&admin, REMIND, json!({ "l": ids })).await;
            assert_eq!(codes(&body), ["AUTHORIZATION_ERROR"], "{body}");
        }
        let body = app.as_user(&worker, REMIND, json!({ "l": [ours] })).await;
        assert_eq!(codes(&body), ["AUTHORIZATION_ERROR"]);
        let body = app.as_user(&admin, REMIND, json!({ "l": [ours, null] })).await;
        assert_eq!(codes(&body), ["INVALID_INPUTS"]);
        // Nothing was sent by the refused calls.
        assert_eq!(outbox(app, "new@example.com").await.len(), 1);
        assert_eq!(outbox(app, "theirs@example.com").await.len(), 1);
        // A second admin of the company may remind.
        let second = app.new_user("second@example.com").await;
        let employment = app.hire(&admin, company, &second).await;
        let body = app.as_user(&admin, ROLE, json!({ "e": employment, "a": true })).await;
        assert!(body["errors"].is_null(), "{body}");
        let body = app.as_user(&second, REMIND, json!({ "l": [ours] })).await;
        assert_eq!(body["data"]["employments"]["sendInvitationsReminders"]["sentToEmploymentIds"], json!([ours]));
    }
}
