//! The e-mails that follow what others do to a user's time and employments, over the real HTTP
//! API on both databases: an admin's validation (`new_mission_information`,
//! `mission_changes_warning`), a holiday recorded by an admin, an accepted invitation, an ended
//! employment; each in the recipient's language (`User.language`, `account.changeLanguage`),
//! the optional ones stopped by `account.changeEmailOptOut` or by the unsubscribe link without
//! logging in, and none for a change that fails.

use chrono::TimeZone;
use serde_json::{Value, json};

use crate::regulation::{company, day, mission, validate};
use crate::support::{TestApp, TestUser, codes};

const HOUR: i64 = 3600;
const CREATE: &str = "mutation($c: Int!) { activities { createMission(companyId: $c, name: \"Round\") { id } } }";
const LOG_FOR: &str = "mutation($m: Int!, $s: TimeStamp!, $e: TimeStamp!, $u: Int) { activities { logActivity(missionId: $m, type: \"drive\", startTime: $s, endTime: $e, switch: false, userId: $u) { id } } }";
const VALIDATE_WITH_EDIT: &str = "mutation($m: Int!, $u: [Int]!, $a: Int!, $e: TimeStamp!) { activities { validateMission(missionId: $m, usersIds: $u, activityItems: [{ edit: { activityId: $a, endTime: $e } }]) { id } } }";
const HOLIDAY: &str = "mutation($c: Int!, $s: TimeStamp!, $e: TimeStamp!, $t: String!, $u: Int) { activities { logHoliday(companyId: $c, startTime: $s, endTime: $e, title: $t, userId: $u) { id } } }";
const LANGUAGE: &str = "mutation($l: String!) { account { changeLanguage(language: $l) { id language } } }";
const OPT_OUT: &str = "mutation($t: String!, $o: Boolean!) { account { changeEmailOptOut(emailType: $t, optOut: $o) { id emailOptOuts } } }";
const PREFERENCES: &str = "query($u: Int!) { user(id: $u) { language emailOptOuts } }";
const TERMINATE: &str =
    "mutation($e: Int!, $d: Date) { employments { terminateEmployment(employmentId: $e, endDate: $d) { id } } }";
const ACCEPT: &str = "mutation($e: Int!) { employments { validateEmployment(employmentId: $e) { id } } }";

/// The (subject, body) of the mail queued for `to`, oldest first, but the employment's (the
/// companies of these tests hire their workers).
async fn mails(app: &TestApp, to: &str) -> Vec<(String, String)> {
    let mut all = roadlog::mail::outbox::latest(&app.server.db, Some(to), 100)
        .await
        .unwrap();
    all.reverse();
    all.into_iter()
        .map(|m| (m.subject, m.body))
        .filter(|(subject, _)| !subject.contains("vous a ajouté(e) comme salarié(e)"))
        .collect()
}

async fn set_language(app: &TestApp, user: &TestUser, language: &str) {
    let body = app.as_user(user, LANGUAGE, json!({ "l": language })).await;
    assert_eq!(
        body["data"]["account"]["changeLanguage"]["language"], language,
        "{body}"
    );
}

/// Local (Paris) time of an instant, in a chrono format.
fn paris(t: i64, format: &str) -> String {
    chrono_tz::Europe::Paris
        .timestamp_opt(t, 0)
        .unwrap()
        .format(format)
        .to_string()
}

/// The unsubscribe link at the end of a body.
fn unsubscribe_link(body: &str) -> String {
    let at = body
        .find("/mail/unsubscribe?token=")
        .unwrap_or_else(|| panic!("no link: {body}"));
    let start = body[..at].rfind(char::is_whitespace).unwrap() + 1;
    let end = at + body[at..].find(char::is_whitespace).unwrap();
    body[start..end].to_string()
}

/// A mission the admin records for the worker (a drive from `start` for `hours`).
async fn mission_for(app: &TestApp, admin: &TestUser, company: i64, worker: &TestUser, start: i64, hours: i64) -> i64 {
    let body = app.as_user(admin, CREATE, json!({ "c": company })).await;
    let mission = body["data"]["activities"]["createMission"]["id"].as_i64().unwrap();
    let vars = json!({ "m": mission, "s": start, "e": start + hours * HOUR, "u": worker.id });
    let body = app.as_user(admin, LOG_FOR, vars).await;
    assert!(body["errors"].is_null(), "{body}");
    mission
}

async fn activity_of(app: &TestApp, mission: i64) -> i64 {
    let (id,): (i64,) = sqlx::query_as("SELECT id FROM activities WHERE mission_id = $1")
        .bind(mission)
        .fetch_one(&app.server.db.pool)
        .await
        .unwrap();
    id
}

on_both_backends! {
    async fn an_admins_validation_mails_the_worker_in_their_language(app) {
        let c = company(app).await;
        let admin_before = mails(app, "admin@example.com").await.len();
        // New to the worker (French, the default): the mission, its times and the admin.
        let start = day(4) + 7 * HOUR;
        let by_admin = mission_for(app, &c.admin, c.id, &c.worker, start, 3).await;
        validate(app, &c.admin, by_admin, &c.worker).await;
        let told = mails(app, "worker@example.com").await;
        assert_eq!(told.len(), 1, "{told:?}");
        let (subject, body) = &told[0];
        assert_eq!(subject, &format!("La mission Round du {} a été rajoutée à votre historique", paris(start, "%d/%m")));
        assert!(body.contains(&format!("    Début : {}\n", paris(start, "%H:%M"))), "{body}");
        assert!(body.contains("    Temps de travail : 3h00\n"), "{body}");
        assert!(body.contains("validée par Jeanne Martin, gestionnaire de l'entreprise TRANSPORTS MARTIN"), "{body}");
        assert!(body.contains("/mail/unsubscribe?token="), "an optional e-mail ends with its link: {body}");
        // The admin who validated is not told.
        assert_eq!(mails(app, "admin@example.com").await.len(), admin_before);

        // In English once the worker says so: a change since the worker's validation.
        set_language(app, &c.worker, "en").await;
        let start = day(2) + 8 * HOUR;
        let changed = mission(app, &c.worker, c.id, &[("work", start, start + 4 * HOUR)]).await;
        validate(app, &c.worker, changed, &c.worker).await;
        tokio::time::sleep(std::time::Duration::from_millis(1100)).await;
        let vars = json!({ "m": changed, "u": [c.worker.id], "a": activity_of(app, changed).await, "e": start + 3 * HOUR });
        let body = app.as_user(&c.admin, VALIDATE_WITH_EDIT, vars).await;
        assert!(body["errors"].is_null(), "{body}");
        let told = mails(app, "worker@example.com").await;
        assert_eq!(told.len(), 2, "{told:?}");
        let (subject, body) = &told[1];
        assert_eq!(subject, &format!("Changes to your mission Tour of {}", paris(start, "%Y-%m-%d")));
        let end_line = format!("End: {} → {}\n", paris(start + 4 * HOUR, "%H:%M"), paris(start + 3 * HOUR, "%H:%M"));
        assert!(body.contains(&end_line), "{body}");
        assert!(body.contains("Work time: 4h00 → 3h00 (shorter)\n"), "{body}");
        assert!(body.contains(&format!("Start: {} (unchanged)\n", paris(start, "%H:%M"))), "{body}");

        // The link stops that type without logging in: the page asks, the POST stops it.
        let link = unsubscribe_link(&told[0].1);
        let page = app.client.get(&link).header("accept-language", "en").send().await.unwrap();
        assert_eq!(page.status(), 200);
        let text = page.text().await.unwrap();
        assert!(text.contains("Stop the e-mails about missions an administrator added to your history?"), "{text}");
        let body = app.as_user(&c.worker, PREFERENCES, json!({ "u": c.worker.id })).await;
        assert_eq!(body["data"]["user"]["emailOptOuts"], json!([]), "a GET stops nothing: {body}");
        let done = app.client.post(&link).form(&[("List-Unsubscribe", "One-Click")]).send().await.unwrap();
        assert_eq!(done.status(), 200);
        let body = app.as_user(&c.worker, PREFERENCES, json!({ "u": c.worker.id })).await;
        assert_eq!(body["data"]["user"], json!({ "language": "en", "emailOptOuts": ["new_mission_information"] }), "{body}");
        // Then no such e-mail, but the notification still.
        let other = mission_for(app, &c.admin, c.id, &c.worker, day(5) + 7 * HOUR, 2).await;
        validate(app, &c.admin, other, &c.worker).await;
        assert_eq!(mails(app, "worker@example.com").await.len(), 2);
        assert_eq!(app.scalar("SELECT COUNT(*) FROM notifications WHERE type = 'new_mission_by_admin'").await, 2);

        // A tampered link stops nothing.
        let forged = link.replace(&format!("u{}.", c.worker.id), &format!("u{}.", c.admin.id));
        let refused = app.client.post(&forged).form(&[("List-Unsubscribe", "One-Click")]).send().await.unwrap();
        assert_eq!(refused.status(), 404);
        let last = if link.ends_with('A') { "B" } else { "A" };
        let altered = format!("{}{last}", &link[..link.len() - 1]);
        assert_eq!(app.client.get(&altered).send().await.unwrap().status(), 404);
        assert_eq!(app.scalar("SELECT COUNT(*) FROM mail_opt_outs").await, 1);
    }

    async fn a_failed_validation_mails_nothing(app) {
        let c = company(app).await;
        let start = day(3) + 8 * HOUR;
        let by_admin = mission_for(app, &c.admin, c.id, &c.worker, start, 3).await;
        // An edit that ends the activity before it starts fails the whole validation.
        let vars = json!({ "m": by_admin, "u": [c.worker.id], "a": activity_of(app, by_admin).await, "e": start - HOUR });
        let body = app.as_user(&c.admin, VALIDATE_WITH_EDIT, vars).await;
        assert!(!codes(&body).is_empty(), "{body}");
        assert!(mails(app, "worker@example.com").await.is_empty());
        assert_eq!(app.scalar("SELECT COUNT(*) FROM notifications").await, 0);
        // The same validation without the bad edit mails once.
        validate(app, &c.admin, by_admin, &c.worker).await;
        assert_eq!(mails(app, "worker@example.com").await.len(), 1);
    }

    async fn a_holiday_recorded_by_an_admin_is_told_in_the_workers_language(app) {
        let c = company(app).await;
        let start = day(10) + 7 * HOUR;
        let vars = json!({ "c": c.id, "s": start, "e": start + 9 * HOUR, "t": "Congé payé", "u": c.worker.id });
        let body = app.as_user(&c.admin, HOLIDAY, vars).await;
        assert!(body["errors"].is_null(), "{body}");
        let told = mails(app, "worker@example.com").await;
        assert_eq!(told.len(), 1, "{told:?}");
        assert_eq!(told[0].0, "Enregistrement d’un congé ou d’une absence par votre gestionnaire");
        let line = format!(
            "le {}, une absence de type « congé payé » de {} à {}",
            paris(start, "%d/%m/%Y"),
            paris(start, "%H:%M"),
            paris(start + 9 * HOUR, "%H:%M")
        );
        assert!(told[0].1.contains(&line), "{}", told[0].1);

        set_language(app, &c.worker, "en").await;
        let start = day(20) + 7 * HOUR;
        let vars = json!({ "c": c.id, "s": start, "e": start + 9 * HOUR, "t": "Training", "u": c.worker.id });
        assert!(app.as_user(&c.admin, HOLIDAY, vars).await["errors"].is_null());
        let told = mails(app, "worker@example.com").await;
        assert_eq!(told[1].0, "Your administrator recorded a holiday or an absence for you");
        assert!(told[1].1.contains(&format!("on {}, an absence \"training\" from", paris(start, "%Y-%m-%d"))), "{}", told[1].1);

        // Stopped through the API: no more; resumed: again.
        let body = app.as_user(&c.worker, OPT_OUT, json!({ "t": "holiday_logging_by_admin", "o": true })).await;
        assert_eq!(body["data"]["account"]["changeEmailOptOut"]["emailOptOuts"], json!(["holiday_logging_by_admin"]), "{body}");
        let vars = json!({ "c": c.id, "s": day(30) + 7 * HOUR, "e": day(30) + 9 * HOUR, "t": "Leave", "u": c.worker.id });
        assert!(app.as_user(&c.admin, HOLIDAY, vars).await["errors"].is_null());
        assert_eq!(mails(app, "worker@example.com").await.len(), 2);
        let body = app.as_user(&c.worker, OPT_OUT, json!({ "t": "holiday_logging_by_admin", "o": false })).await;
        assert_eq!(body["data"]["account"]["changeEmailOptOut"]["emailOptOuts"], json!([]), "{body}");
        let vars = json!({ "c": c.id, "s": day(40) + 7 * HOUR, "e": day(40) + 9 * HOUR, "t": "Leave", "u": c.worker.id });
        assert!(app.as_user(&c.admin, HOLIDAY, vars).await["errors"].is_null());
        assert_eq!(mails(app, "worker@example.com").await.len(), 3);

        // The mandatory ones cannot be stopped, unknown types and languages are refused.
        for kind in ["employment_terminated", "email_changed", "reset_password", "nothing"] {
            let body = app.as_user(&c.worker, OPT_OUT, json!({ "t": kind, "o": true })).await;
            assert_eq!(codes(&body), ["INVALID_INPUTS"], "{kind}: {body}");
            assert_eq!(body["errors"][0]["extensions"]["field"], "emailType");
        }
        let body = app.as_user(&c.worker, LANGUAGE, json!({ "l": "de" })).await;
        assert_eq!(codes(&body), ["INVALID_INPUTS"], "{body}");
        assert_eq!(app.scalar("SELECT COUNT(*) FROM mail_opt_outs").await, 0);
        // Another user's preferences are not readable.
        let body = app.as_user(&c.admin, PREFERENCES, json!({ "u": c.worker.id })).await;
        assert_eq!(codes(&body), ["AUTHORIZATION_ERROR", "AUTHORIZATION_ERROR"], "{body}");
        assert_eq!(body["data"]["user"], json!({ "language": null, "emailOptOuts": null }), "{body}");
    }

    async fn an_accepted_invitation_tells_the_inviting_admin(app) {
        let admin = app.new_user("admin@example.com").await;
        let worker = app.new_user("worker@example.com").await;
        let second = app.new_user("second@example.com").await;
        let company = app.new_company(&admin, "Acme").await;
        let body = app.employ(&admin, company, worker.id, "").await;
        let employment = body["data"]["employments"]["createEmployment"]["id"].as_i64().unwrap();
        assert!(mails(app, "admin@example.com").await.is_empty());
        assert!(app.as_user(&worker, ACCEPT, json!({ "e": employment })).await["errors"].is_null());
        let told = mails(app, "admin@example.com").await;
        assert_eq!(told.len(), 1, "{told:?}");
        assert_eq!(told[0].0, "Jeanne Martin a rejoint l'entreprise Acme sur Roadlog");
        assert!(told[0].1.contains(&format!("(salarié, rattachement {employment})")), "{}", told[0].1);
        // Accepting again fails and tells no one.
        let body = app.as_user(&worker, ACCEPT, json!({ "e": employment })).await;
        assert!(!codes(&body).is_empty(), "{body}");
        assert_eq!(mails(app, "admin@example.com").await.len(), 1);

        // In English for an admin who chose it.
        set_language(app, &admin, "en").await;
        let body = app.employ(&admin, company, second.id, ", hasAdminRights: true").await;
        let employment = body["data"]["employments"]["createEmployment"]["id"].as_i64().unwrap();
        assert!(app.as_user(&second, ACCEPT, json!({ "e": employment })).await["errors"].is_null());
        let told = mails(app, "admin@example.com").await;
        assert_eq!(told[1].0, "Jeanne Martin joined Acme on Roadlog");
        assert!(told[1].1.contains("(an administrator, employment"), "{}", told[1].1);
        assert!(told[1].1.contains("To stop receiving\nmessages of this type"), "{}", told[1].1);
    }

    async fn an_ended_employment_is_told_in_the_employees_language(app) {
        let c = company(app).await;
        let (employment,): (i64,) = sqlx::query_as("SELECT id FROM employments WHERE user_id = $1")
            .bind(c.worker.id)
            .fetch_one(&app.server.db.pool)
            .await
            .unwrap();
        // A refused termination (before the start) sends nothing.
        let body = app.as_user(&c.admin, TERMINATE, json!({ "e": employment, "d": "2019-01-01" })).await;
        assert_eq!(codes(&body), ["INVALID_INPUTS"], "{body}");
        let before = mails(app, "worker@example.com").await.len();
        let body = app.as_user(&c.admin, TERMINATE, json!({ "e": employment, "d": "2099-03-31" })).await;
        assert!(body["errors"].is_null(), "{body}");
        let told = mails(app, "worker@example.com").await;
        assert_eq!(told.len(), before + 1, "{told:?}");
        let (subject, body) = told.last().unwrap();
        assert_eq!(subject, "Compte Roadlog détaché de l'entreprise Transports Martin");
        assert!(body.contains("son dernier jour est le\n31/03/2099"), "{body}");
        assert!(!body.contains("/mail/unsubscribe"), "a mandatory e-mail has no link: {body}");
    }
}

for_both_backends! {
    async fn a_sign_up_stores_the_language_of_its_request(backend) {
        let app = TestApp::spawn(backend).await;
        const SIGN_UP: &str = "mutation($e: Email!) { signUp { user(email: $e, password: \"a long passphrase\", firstName: \"Léa\", lastName: \"Roux\") { accessToken } } }";
        for (email, header, expected) in [
            ("en@example.com", Some("en-GB,en;q=0.9"), "en"),
            ("fr@example.com", Some("fr-FR"), "fr"),
            ("none@example.com", Some("de"), "fr"),
            ("absent@example.com", None, "fr"),
        ] {
            let mut request = app.client.post(app.url("/api/graphql")).json(&json!({ "query": SIGN_UP, "variables": { "e": email } }));
            if let Some(header) = header {
                request = request.header("accept-language", header);
            }
            let body: Value = request.send().await.unwrap().json().await.unwrap();
            let token = body["data"]["signUp"]["user"]["accessToken"].as_str().unwrap_or_else(|| panic!("{body}")).to_string();
            let (_, me) = app.graphql("{ me { language emailOptOuts } }", json!({}), Some(&token)).await;
            assert_eq!(me["data"]["me"], json!({ "language": expected, "emailOptOuts": [] }), "{email}: {me}");
        }
        app.cleanup().await;
    }
}
