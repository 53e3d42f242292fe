//! A hidden e-mail is hidden everywhere (issue 43 item 4), on both databases: once an employee
//! hides their e-mail (`employments.updateHideEmail`), every path that shows the employee to an
//! admin or a co-worker of the company reads `***` — `user(id)`, `Company.users`,
//! `currentUsers`, `currentAdmins`, `Employment.user`, `Team.users`, the users of missions and
//! activities — while the employee still reads their own.

use serde_json::{Value, json};

use crate::support::{TestApp, TestUser};

const HIDE: &str =
    "mutation($e: Int!, $h: Boolean!) { employments { updateHideEmail(employmentId: $e, hideEmail: $h) { id } } }";
const PROMOTE: &str =
    "mutation($e: Int!) { employments { changeEmployeeRole(employmentId: $e, hasAdminRights: true) { id } } }";
const CREATE_TEAM: &str =
    "mutation($c: Int!, $u: [Int]) { teams { createTeam(companyId: $c, name: \"North\", userIds: $u) { id } } }";
const CREATE: &str = "mutation($c: Int!) { activities { createMission(companyId: $c, name: \"Tour\") { id } } }";
const LOG: &str = "mutation($m: Int!, $s: TimeStamp!, $e: TimeStamp!) { activities { logActivity(missionId: $m, type: \"work\", startTime: $s, endTime: $e, switch: false) { id } } }";

/// Every path that shows a user of the company, with the e-mail of each user it shows.
fn paths(company: i64, user: i64, mission: i64) -> Vec<(&'static str, String)> {
    vec![
        ("user(id)", format!("{{ user(id: {user}) {{ id email }} }}")),
        (
            "Company.users",
            format!("{{ company(id: {company}) {{ users {{ id email }} }} }}"),
        ),
        (
            "Company.currentUsers",
            format!("{{ company(id: {company}) {{ currentUsers {{ id email }} }} }}"),
        ),
        (
            "Company.currentAdmins",
            format!("{{ company(id: {company}) {{ currentAdmins {{ id email }} }} }}"),
        ),
        (
            "Employment.user",
            format!("{{ company(id: {company}) {{ employments {{ user {{ id email }} }} }} }}"),
        ),
        (
            "Team.users",
            format!("{{ company(id: {company}) {{ teams {{ users {{ id email }} adminUsers {{ id email }} }} }} }}"),
        ),
        (
            "Mission.submitter",
            format!("{{ mission(id: {mission}) {{ submitter {{ id email }} }} }}"),
        ),
        (
            "Activity.user",
            format!("{{ mission(id: {mission}) {{ activities {{ user {{ id email }} submitter {{ id email }} }} }} }}"),
        ),
    ]
}

/// The e-mails the answer shows for the user `id`, wherever it shows them.
fn emails_of(value: &Value, id: i64, found: &mut Vec<String>) {
    match value {
        Value::Object(map) => {
            if map.get("id").and_then(Value::as_i64) == Some(id)
                && let Some(email) = map.get("email").and_then(Value::as_str)
            {
                found.push(email.to_string());
            }
            map.values().for_each(|v| emails_of(v, id, found));
        }
        Value::Array(items) => items.iter().for_each(|v| emails_of(v, id, found)),
        _ => {}
    }
}

/// What each path shows of `target`'s e-mail to `reader` (each path must show it at least once).
async fn seen(
    app: &TestApp,
    reader: &TestUser,
    target: &TestUser,
    company: i64,
    mission: i64,
) -> Vec<(&'static str, Vec<String>)> {
    let mut all = vec![];
    for (path, query) in paths(company, target.id, mission) {
        let body = app.as_user(reader, &query, json!({})).await;
        assert!(body["errors"].is_null(), "{path}: {body}");
        let mut found = vec![];
        emails_of(&body["data"], target.id, &mut found);
        assert!(!found.is_empty(), "{path} shows the user: {body}");
        all.push((path, found));
    }
    all
}

fn all_read(seen: &[(&str, Vec<String>)], expected: &str) {
    for (path, emails) in seen {
        assert!(
            emails.iter().all(|e| e == expected),
            "{path}: {emails:?}, expected {expected}"
        );
    }
}

on_both_backends! {
    async fn a_hidden_email_is_hidden_on_every_path_but_from_its_user(app) {
        let admin = app.new_user("admin@example.com").await;
        let ana = app.new_user("ana@example.com").await;
        let colleague = app.new_user("colleague@example.com").await;
        let company = app.new_company(&admin, "Acme").await;
        let employment = app.hire_a_week_ago(&admin, company, &ana).await;
        app.hire(&admin, company, &colleague).await;
        // Ana is an admin (currentAdmins), in a team, and recorded a mission.
        let body = app.as_user(&admin, PROMOTE, json!({ "e": employment })).await;
        assert!(body["errors"].is_null(), "{body}");
        let body = app.as_user(&admin, CREATE_TEAM, json!({ "c": company, "u": [ana.id] })).await;
        assert!(body["errors"].is_null(), "{body}");
        let body = app.as_user(&ana, CREATE, json!({ "c": company })).await;
        let mission = body["data"]["activities"]["createMission"]["id"].as_i64().unwrap_or_else(|| panic!("{body}"));
        let now = chrono::Utc::now().timestamp();
        let body = app.as_user(&ana, LOG, json!({ "m": mission, "s": now - 7200, "e": now - 3600 })).await;
        assert!(body["errors"].is_null(), "{body}");

        // Shown, until Ana hides it.
        all_read(&seen(app, &admin, &ana, company, mission).await, "ana@example.com");
        let body = app.as_user(&ana, HIDE, json!({ "e": employment, "h": true })).await;
        assert!(body["errors"].is_null(), "{body}");
        all_read(&seen(app, &admin, &ana, company, mission).await, "***");
        // A co-worker reads her as the admin does (the paths open to him).
        let body = app.as_user(&colleague, &format!("{{ user(id: {}) {{ email }} company(id: {company}) {{ currentUsers {{ id email }} }} }}", ana.id), json!({})).await;
        let mut found = vec![];
        emails_of(&body["data"], ana.id, &mut found);
        assert_eq!(body["data"]["user"]["email"], "***", "{body}");
        assert!(found.iter().all(|e| e == "***"), "{body}");
        // Ana herself reads her own e-mail (as herself: Employment.user follows the employment's
        // flag, as in the reference).
        let body = app.as_user(&ana, &format!("{{ me {{ email }} user(id: {}) {{ email }} company(id: {company}) {{ users {{ id email }} }} }}", ana.id), json!({})).await;
        assert_eq!(body["data"]["me"]["email"], "ana@example.com", "{body}");
        assert_eq!(body["data"]["user"]["email"], "ana@example.com", "{body}");
        let mut found = vec![];
        emails_of(&body["data"]["company"], ana.id, &mut found);
        assert_eq!(found, ["ana@example.com"], "{body}");
        // The others' e-mails are not hidden.
        let body = app.as_user(&ana, &format!("{{ user(id: {}) {{ email }} }}", admin.id), json!({})).await;
        assert_eq!(body["data"]["user"]["email"], "admin@example.com", "{body}");

        // Shown again once she stops hiding it.
        let body = app.as_user(&ana, HIDE, json!({ "e": employment, "h": false })).await;
        assert!(body["errors"].is_null(), "{body}");
        all_read(&seen(app, &admin, &ana, company, mission).await, "ana@example.com");
    }
}
