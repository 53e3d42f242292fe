//! Detachment and reattachment over the real HTTP API, on both databases:
//! `employments.requestDetachment` (the employee only, the admins written to, a 48-hour
//! cooldown, reminders that keep the first date), `Employment.detachmentRequest`, and
//! `employments.reattachEmployment` in each of its cases, with the database's state and the
//! mail queued.

use serde_json::{Value, json};

use crate::support::employments::{CANCEL, TERMINATE, VALIDATE, today};
use crate::support::{TestApp, TestUser, codes};

const REQUEST: &str = "mutation($e: Int!) { employments { requestDetachment(employmentId: $e) { id status detachmentRequest { requestedAt lastSentAt } } } }";
const REATTACH: &str = "mutation($c: Int!, $u: Int!) { employments { reattachEmployment(companyId: $c, userId: $u) { emailSent employment { id userId validationStatus status startDate endDate hasAdminRights hideEmail submitterId detachmentRequest { requestedAt } } } } }";
const COOLDOWN: i64 = 48 * 3600;

fn now() -> i64 {
    chrono::Utc::now().timestamp()
}

/// The subjects of the mail queued for `to`, oldest first.
async fn subjects(app: &TestApp, to: &str) -> Vec<String> {
    let mut mails = roadlog::mail::outbox::latest(&app.server.db, Some(to), 50)
        .await
        .unwrap();
    mails.reverse();
    mails.into_iter().map(|m| m.subject).collect()
}

/// Those about a detachment request.
async fn requests(app: &TestApp, to: &str) -> Vec<String> {
    subjects(app, to)
        .await
        .into_iter()
        .filter(|s| s.contains("détachement de"))
        .collect()
}

async fn latest_body(app: &TestApp, to: &str) -> String {
    roadlog::mail::outbox::latest(&app.server.db, Some(to), 1)
        .await
        .unwrap()[0]
        .body
        .clone()
}

/// `(requested_at, last_sent_at)` as stored.
async fn stored(app: &TestApp, employment: i64) -> (Option<i64>, Option<i64>) {
    sqlx::query_as("SELECT detachment_requested_at, detachment_last_sent_at FROM employments WHERE id = $1")
        .bind(employment)
        .fetch_one(&app.server.db.pool)
        .await
        .unwrap()
}

async fn execute(app: &TestApp, sql: &'static str, id: i64) {
    sqlx::query(sql).bind(id).execute(&app.server.db.pool).await.unwrap();
}

async fn reattach(app: &TestApp, admin: &TestUser, company: i64, user: i64) -> Value {
    app.as_user(admin, REATTACH, json!({ "c": company, "u": user })).await
}

on_both_backends! {
    async fn an_employee_asks_to_be_detached_and_the_admins_are_told(app) {
        let admin = app.new_user("admin@example.com").await;
        let second = app.new_user("second@example.com").await;
        let worker = app.new_user("worker@example.com").await;
        let company = app.new_company(&admin, "Acme").await;
        let body = app.employ(&admin, company, second.id, ", hasAdminRights: true").await;
        let second_employment = body["data"]["employments"]["createEmployment"]["id"].as_i64().unwrap();
        assert!(app.as_user(&second, VALIDATE, json!({ "e": second_employment })).await["errors"].is_null());
        let employment = app.hire(&admin, company, &worker).await;
        let read = "query($c: Int!) { company(id: $c) { employments { id detachmentRequest { requestedAt lastSentAt } } } }";
        let body = app.as_user(&admin, read, json!({ "c": company })).await;
        assert!(body["data"]["company"]["employments"].as_array().unwrap().iter().all(|e| e["detachmentRequest"].is_null()), "{body}");

        // Only the employee asks; an unknown id answers the same.
        for (user, id) in [(&admin, employment), (&worker, 987_654)] {
            let body = app.as_user(user, REQUEST, json!({ "e": id })).await;
            assert_eq!(codes(&body), ["AUTHORIZATION_ERROR"], "{body}");
            assert_eq!(body["errors"][0]["message"], "Only the employee can request detachment");
        }
        assert_eq!(stored(app, employment).await, (None, None));

        let before = now();
        let body = app.as_user(&worker, REQUEST, json!({ "e": employment })).await;
        let answer = &body["data"]["employments"]["requestDetachment"];
        assert_eq!((answer["id"].as_i64(), answer["status"].as_str()), (Some(employment), Some("ACTIVE")), "{body}");
        let first = answer["detachmentRequest"]["requestedAt"].as_i64().unwrap();
        assert!(first >= before && first <= now());
        assert_eq!(answer["detachmentRequest"]["lastSentAt"], first);
        assert_eq!(stored(app, employment).await, (Some(first), Some(first)));
        // Each current admin is written to once; the employee is not.
        for to in ["admin@example.com", "second@example.com"] {
            let subjects = requests(app, to).await;
            assert_eq!(subjects.len(), 1, "{to}: {subjects:?}");
            assert!(subjects[0].starts_with("Demande de détachement de Jeanne Martin du compte Roadlog de votre entreprise Acme"), "{subjects:?}");
        }
        assert!(latest_body(app, "admin@example.com").await.contains(&format!("terminateEmployment(employmentId: {employment})")));
        assert_eq!(subjects(app, "worker@example.com").await, ["L'entreprise Acme vous a ajouté(e) comme salarié(e)"]);

        // Within 48 hours: refused, nothing sent.
        let body = app.as_user(&worker, REQUEST, json!({ "e": employment })).await;
        assert_eq!(codes(&body), ["INVALID_INPUTS"], "{body}");
        assert_eq!(body["errors"][0]["message"], "A request was already sent recently, please wait 48 hours");
        let wait = body["errors"][0]["extensions"]["retryAfter"].as_i64().unwrap();
        assert!(wait > COOLDOWN - 60 && wait <= COOLDOWN, "{wait}");
        assert_eq!(requests(app, "admin@example.com").await.len(), 1);

        // 49 hours later: a reminder, which keeps the first request's time and quotes its date.
        execute(app, "UPDATE employments SET detachment_requested_at = detachment_requested_at - 176400, detachment_last_sent_at = detachment_last_sent_at - 176400 WHERE id = $1", employment).await;
        let first = first - 176_400;
        let body = app.as_user(&worker, REQUEST, json!({ "e": employment })).await;
        let request = &body["data"]["employments"]["requestDetachment"]["detachmentRequest"];
        assert_eq!(request["requestedAt"], first, "{body}");
        assert!(request["lastSentAt"].as_i64().unwrap() >= before);
        let subjects = requests(app, "second@example.com").await;
        assert_eq!(subjects.len(), 2);
        assert!(subjects[1].starts_with("Relance : détachement de Jeanne Martin"), "{subjects:?}");
        let day = chrono::DateTime::from_timestamp(first, 0).unwrap().date_naive();
        let body = latest_body(app, "second@example.com").await;
        assert!(body.contains(&format!("La première demande date du {}.", day.format("%d/%m/%Y"))), "{body}");

        // The admins read it; ending the employment keeps it.
        let body = app.as_user(&admin, TERMINATE, json!({ "e": employment })).await;
        assert!(body["errors"].is_null(), "{body}");
        let body = app.as_user(&admin, read, json!({ "c": company })).await;
        let listed = body["data"]["company"]["employments"].as_array().unwrap().iter().find(|e| e["id"] == employment).cloned().unwrap();
        assert_eq!(listed["detachmentRequest"]["requestedAt"], first, "{body}");

        // An employment that is not active cannot be the object of a request.
        let other = app.new_company(&second, "Other").await;
        let body = app.employ(&second, other, worker.id, "").await;
        let pending = body["data"]["employments"]["createEmployment"]["id"].as_i64().unwrap();
        let body = app.as_user(&worker, REQUEST, json!({ "e": pending })).await;
        assert_eq!(codes(&body), ["INVALID_INPUTS"], "{body}");
        assert_eq!(body["errors"][0]["message"], "Employment is not active");
        assert_eq!(stored(app, pending).await, (None, None));
    }

    async fn a_former_employee_is_attached_again_case_by_case(app) {
        let admin = app.new_user("admin@example.com").await;
        let worker = app.new_user("worker@example.com").await;
        let invited = app.new_user("invited@example.com").await;
        let company = app.new_company(&admin, "Acme").await;

        // Admins only; an unknown user; a user never ended in the company.
        let body = reattach(app, &worker, company, worker.id).await;
        assert_eq!(codes(&body), ["AUTHORIZATION_ERROR"], "{body}");
        assert_eq!(body["errors"][0]["message"], "Actor is not authorized to reattach employee");
        let body = reattach(app, &admin, company, 999_999_999).await;
        assert_eq!(codes(&body), ["INVALID_RESOURCE"], "{body}");
        assert_eq!(body["errors"][0]["message"], "User not found");
        let no_ended = "No terminated employment found for this user and company";
        let body = reattach(app, &admin, company, worker.id).await;
        assert_eq!(body["errors"][0]["message"], no_ended, "{body}");

        // Ended today (with a detachment request): the termination is cancelled, same id.
        let employment = app.hire(&admin, company, &worker).await;
        assert!(app.as_user(&worker, REQUEST, json!({ "e": employment })).await["errors"].is_null());
        assert!(app.as_user(&admin, TERMINATE, json!({ "e": employment })).await["errors"].is_null());
        let body = reattach(app, &admin, company, worker.id).await;
        let answer = &body["data"]["employments"]["reattachEmployment"];
        assert_eq!(answer["emailSent"], true, "{body}");
        assert_eq!(answer["employment"]["id"], employment);
        assert_eq!((answer["employment"]["endDate"].is_null(), answer["employment"]["detachmentRequest"].is_null()), (true, true), "{body}");
        assert_eq!(stored(app, employment).await, (None, None));
        let mails = subjects(app, "worker@example.com").await;
        assert_eq!(mails.len(), 3, "added, ended, attached again: {mails:?}");
        assert!(mails[2].starts_with("L'entreprise Acme a réactivé votre rattachement"), "{mails:?}");

        // An open employment and none ended: nothing to attach again, as the reference answers.
        let body = reattach(app, &admin, company, worker.id).await;
        assert_eq!(body["errors"][0]["message"], no_ended, "{body}");

        // Ended before today: a new employment from today, with the old one's e-mail visibility.
        execute(app, "UPDATE employments SET start_date = '2025-01-01', end_date = '2025-06-30', hide_email = 1 WHERE id = $1", employment).await;
        let body = reattach(app, &admin, company, worker.id).await;
        let new = &body["data"]["employments"]["reattachEmployment"]["employment"];
        let new_id = new["id"].as_i64().unwrap_or_else(|| panic!("{body}"));
        assert_ne!(new_id, employment);
        assert_eq!(
            new,
            &json!({ "id": new_id, "userId": worker.id, "validationStatus": "approved", "status": "ACTIVE", "startDate": today(),
                     "endDate": null, "hasAdminRights": false, "hideEmail": true, "submitterId": admin.id, "detachmentRequest": null })
        );
        let body = reattach(app, &admin, company, worker.id).await;
        assert_eq!(codes(&body), ["INVALID_INPUTS"], "{body}");
        assert_eq!(body["errors"][0]["message"], "An active employment already exists for this user and company");

        // A cancelled invitation, never accepted, is not turned into an accepted employment.
        let body = app.employ(&admin, company, invited.id, "").await;
        let invitation = body["data"]["employments"]["createEmployment"]["id"].as_i64().unwrap();
        assert!(app.as_user(&admin, CANCEL, json!({ "e": invitation })).await["errors"].is_null());
        let body = reattach(app, &admin, company, invited.id).await;
        assert_eq!(body["errors"][0]["message"], no_ended, "{body}");
        let (status, dismissed): (String, Option<i64>) = sqlx::query_as("SELECT validation_status, dismissed_at FROM employments WHERE id = $1")
            .bind(invitation)
            .fetch_one(&app.server.db.pool)
            .await
            .unwrap();
        assert_eq!((status.as_str(), dismissed.is_some()), ("pending", true));
        // One that was accepted before it was cancelled is restored, same id.
        execute(app, "UPDATE employments SET validation_status = 'approved' WHERE id = $1", invitation).await;
        let body = reattach(app, &admin, company, invited.id).await;
        let restored = &body["data"]["employments"]["reattachEmployment"]["employment"];
        assert_eq!((restored["id"].as_i64(), restored["status"].as_str()), (Some(invitation), Some("ACTIVE")), "{body}");
        assert!(subjects(app, "invited@example.com").await.last().unwrap().starts_with("L'entreprise Acme a réactivé"));
    }
}
