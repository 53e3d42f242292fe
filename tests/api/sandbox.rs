//! Sandbox on day one: `Mutations.seedSandboxCompany` and `roadlog sandbox seed` fill a company
//! with demo workers and 30 days of data, on both databases; the mission history, the
//! regulatory alerts (one at least per rule the seed claims to break) and the C1B export show
//! it; demo workers can log in and receive no mail; only an admin of the company seeds it, only
//! once, and never in production.

use std::collections::{BTreeSet, HashMap};

use reqwest::StatusCode;
use roadlog::domain::export::c1b;
use serde_json::{Value, json};

use crate::export::{export, unzip};
use crate::support::process::command;
use crate::support::{Backend, TestApp, TestUser, codes};

const SEED: &str = "mutation($c: Int!) { seedSandboxCompany(companyId: $c) { companyId firstDay lastDay \
    workers { id email firstName lastName password profile } nbMissions nbActivities nbExpenditures nbComments \
    nbVehicles nbWorkerValidations nbAdminValidations nbAlerts breaches { userId day type } } }";
const RECAP: &str = "query($c: Int!, $m: ShortMonth!, $f: Date, $t: Date) { company(id: $c) { \
    regulatoryAlertsRecap(month: $m, fromDate: $f, toDate: $t) { hasAnyComputation totalNbAlerts \
    dailyAlerts { alertsType nbAlerts days } weeklyAlerts { alertsType nbAlerts days } } } }";
const COMPUTATIONS: &str = "query($u: Int!, $f: Date, $t: Date) { user(id: $u) { \
    regulationComputationsByDay(submitterType: \"admin\", fromDate: $f, toDate: $t) { day \
    regulationComputations { regulationChecks { type alert { id explanation { summaryEn } } } } } } }";
const HISTORY: &str = "{ me { missions(first: 200) { edges { node { id name vehicle { registrationNumber } \
    startLocation { kilometerReading } endLocation { kilometerReading } validations { isAdmin userId } \
    comments { text } expenditures { type } activities { type startTime endTime } } } } } }";

fn date_minus(date: &str, days: i64) -> String {
    let d = chrono::NaiveDate::parse_from_str(date, "%Y-%m-%d").unwrap();
    (d - chrono::Duration::days(days)).format("%Y-%m-%d").to_string()
}

/// Rows of the tables a seed writes, to check that a refusal wrote nothing.
async fn footprint(app: &TestApp) -> Vec<i64> {
    let mut rows = Vec::new();
    for table in [
        "users",
        "employments",
        "missions",
        "activities",
        "sandbox_seeds",
        "regulatory_alerts",
        "emails",
    ] {
        rows.push(app.scalar(&format!("SELECT COUNT(*) FROM {table}")).await);
    }
    rows
}

/// The recap's alert kinds that stand for a check (enoughBreak is split in two halves).
fn recap_kinds(check: &str) -> &'static [&'static str] {
    match check {
        "enoughBreak" => &["not_enough_break", "too_much_uninterrupted_work_time"],
        "minimumDailyRest" => &["minimumDailyRest"],
        "maximumWorkDayTime" => &["maximumWorkDayTime", "maximumNightWorkDayTime"],
        "maximumWorkedDaysInWeek" => &["maximumWorkedDaysInWeek"],
        "maximumWorkInCalendarWeek" => &["maximumWorkInCalendarWeek"],
        other => panic!("unexpected breach {other}"),
    }
}

/// Seeds through the API and checks the answer's shape; returns the answer.
async fn seed_and_check_answer(app: &TestApp, admin: &TestUser, company: i64) -> Value {
    let started = std::time::Instant::now();
    let body = app.as_user(admin, SEED, json!({ "c": company })).await;
    println!("seedSandboxCompany on {:?}: {:?}", app.backend, started.elapsed());
    let seeded = body["data"]["seedSandboxCompany"].clone();
    assert!(body["errors"].is_null(), "{body}");
    assert_eq!(seeded["companyId"], company);
    let (first, last) = (
        seeded["firstDay"].as_str().unwrap(),
        seeded["lastDay"].as_str().unwrap(),
    );
    assert_eq!(date_minus(last, 29), first, "30 days");
    let workers = seeded["workers"].as_array().unwrap();
    assert_eq!(workers.len(), 6);
    let emails: BTreeSet<&str> = workers.iter().map(|w| w["email"].as_str().unwrap()).collect();
    assert_eq!(emails.len(), 6);
    assert!(
        emails.iter().all(|e| e.ends_with("@demo.roadlog.invalid")),
        "{emails:?}"
    );
    assert!(workers.iter().all(|w| w["password"].as_str().unwrap().len() >= 20));
    let missions = seeded["nbMissions"].as_i64().unwrap();
    assert!(missions >= 100, "six workers over 30 days: {seeded}");
    assert!(seeded["nbActivities"].as_i64().unwrap() >= 4 * missions);
    assert!(
        seeded["nbExpenditures"].as_i64().unwrap() >= missions,
        "expenditures are on by default"
    );
    assert!(seeded["nbComments"].as_i64().unwrap() >= 5);
    assert_eq!(seeded["nbVehicles"], 6);
    assert_eq!(
        seeded["nbWorkerValidations"].as_i64().unwrap(),
        missions - 1,
        "one day left to its worker"
    );
    let by_admin = seeded["nbAdminValidations"].as_i64().unwrap();
    assert!(by_admin > missions - 6 * 3 && by_admin < missions, "{seeded}");
    let breaches = seeded["breaches"].as_array().unwrap();
    let kinds: BTreeSet<&str> = breaches.iter().map(|b| b["type"].as_str().unwrap()).collect();
    assert_eq!(
        kinds,
        BTreeSet::from([
            "enoughBreak",
            "maximumWorkDayTime",
            "maximumWorkInCalendarWeek",
            "maximumWorkedDaysInWeek",
            "minimumDailyRest"
        ])
    );
    assert!(
        seeded["nbAlerts"].as_i64().unwrap() >= breaches.len() as i64,
        "{seeded}"
    );

    // What the database holds: passwords only as argon2id hashes, and no mail to demo workers.
    for worker in workers {
        let (hash,): (String,) = sqlx::query_as("SELECT password_hash FROM users WHERE id = $1")
            .bind(worker["id"].as_i64().unwrap())
            .fetch_one(&app.server.db.pool)
            .await
            .unwrap();
        assert!(hash.starts_with("$argon2id$"));
        assert!(!hash.contains(worker["password"].as_str().unwrap()));
    }
    assert_eq!(
        app.scalar("SELECT COUNT(*) FROM emails WHERE recipient LIKE '%.invalid'")
            .await,
        0
    );
    assert_eq!(app.scalar("SELECT COUNT(*) FROM emails").await, 0, "no mail at all");
    seeded
}

async fn login(app: &TestApp, email: &str, password: &str) -> String {
    let (_, body) = app
        .graphql(
            "mutation($e: Email!, $p: String!) { auth { login(email: $e, password: $p) { accessToken } } }",
            json!({ "e": email, "p": password }),
            None,
        )
        .await;
    body["data"]["auth"]["login"]["accessToken"]
        .as_str()
        .unwrap_or_else(|| panic!("the demo worker logs in: {body}"))
        .to_string()
}

/// The recap of the seeded period (weekly alerts dated on Mondays up to 6 days before it): each
/// claimed breach shows on its day.
async fn check_recap(app: &TestApp, admin: &TestUser, seeded: &Value) {
    let (first, last) = (
        seeded["firstDay"].as_str().unwrap(),
        seeded["lastDay"].as_str().unwrap(),
    );
    let from = date_minus(first, 6);
    let to = date_minus(last, -1);
    let body = app
        .as_user(
            admin,
            RECAP,
            json!({ "c": seeded["companyId"], "m": &last[..7], "f": from, "t": to }),
        )
        .await;
    let recap = &body["data"]["company"]["regulatoryAlertsRecap"];
    assert_eq!(recap["hasAnyComputation"], true, "{body}");
    let mut shown: HashMap<String, BTreeSet<String>> = HashMap::new();
    for group in recap["dailyAlerts"]
        .as_array()
        .unwrap()
        .iter()
        .chain(recap["weeklyAlerts"].as_array().unwrap())
    {
        let days = group["days"]
            .as_array()
            .unwrap()
            .iter()
            .map(|d| d.as_str().unwrap().to_string());
        shown
            .entry(group["alertsType"].as_str().unwrap().to_string())
            .or_default()
            .extend(days);
    }
    println!("recap of the seeded month: {shown:?}");
    for breach in seeded["breaches"].as_array().unwrap() {
        let day = breach["day"].as_str().unwrap();
        let kinds = recap_kinds(breach["type"].as_str().unwrap());
        assert!(
            kinds
                .iter()
                .any(|k| shown.get(*k).is_some_and(|days| days.contains(day))),
            "{breach} is in the recap: {shown:?}"
        );
    }
    assert!(recap["totalNbAlerts"].as_i64().unwrap() >= seeded["breaches"].as_array().unwrap().len() as i64);
}

/// Each breach is an alert of the worker's admin computations of that day, with its explanation.
async fn check_computations(app: &TestApp, admin: &TestUser, seeded: &Value) {
    for breach in seeded["breaches"].as_array().unwrap() {
        let day = breach["day"].as_str().unwrap();
        let body = app
            .as_user(
                admin,
                COMPUTATIONS,
                json!({ "u": breach["userId"], "f": day, "t": day }),
            )
            .await;
        let days = body["data"]["user"]["regulationComputationsByDay"]
            .as_array()
            .unwrap_or_else(|| panic!("{body}"));
        let alert = days
            .iter()
            .flat_map(|d| d["regulationComputations"].as_array().unwrap())
            .flat_map(|c| c["regulationChecks"].as_array().unwrap())
            .find(|check| check["type"] == breach["type"] && !check["alert"].is_null());
        let alert = alert.unwrap_or_else(|| panic!("{breach} has its alert: {body}"));
        assert!(!alert["alert"]["explanation"]["summaryEn"].as_str().unwrap().is_empty());
    }
}

/// A demo worker logs in and reads their mission history.
async fn check_history(app: &TestApp, seeded: &Value) {
    let workers = seeded["workers"].as_array().unwrap();
    let mut total = 0;
    for worker in workers {
        let token = login(
            app,
            worker["email"].as_str().unwrap(),
            worker["password"].as_str().unwrap(),
        )
        .await;
        let (status, body) = app.graphql(HISTORY, json!({}), Some(&token)).await;
        assert_eq!(status, StatusCode::OK);
        let missions = body["data"]["me"]["missions"]["edges"]
            .as_array()
            .unwrap_or_else(|| panic!("{body}"));
        assert!(missions.len() >= 8, "{} worked: {}", worker["email"], missions.len());
        total += missions.len();
        for edge in missions {
            let mission = &edge["node"];
            assert!(mission["vehicle"]["registrationNumber"].is_string(), "{mission}");
            let (start, end) = (
                &mission["startLocation"]["kilometerReading"],
                &mission["endLocation"]["kilometerReading"],
            );
            assert!(
                end.as_i64().unwrap() > start.as_i64().unwrap(),
                "kilometres are required by default: {mission}"
            );
            assert!(!mission["activities"].as_array().unwrap().is_empty());
            assert!(!mission["expenditures"].as_array().unwrap().is_empty());
        }
    }
    assert_eq!(total as i64, seeded["nbMissions"].as_i64().unwrap());
    // The activity kinds and the validations of both sides appear in the history.
    let token = login(
        app,
        workers[0]["email"].as_str().unwrap(),
        workers[0]["password"].as_str().unwrap(),
    )
    .await;
    let (_, body) = app.graphql(HISTORY, json!({}), Some(&token)).await;
    let text = body.to_string();
    for kind in ["\"drive\"", "\"work\"", "\"support\"", "\"transfer\""] {
        assert!(text.contains(kind), "{kind} in the history");
    }
    assert!(text.contains("\"isAdmin\":true") && text.contains("\"isAdmin\":false"));
}

/// The export of the seeded period: one C1B per demo worker, each clean.
async fn check_export(app: &TestApp, admin: &TestUser, seeded: &Value) {
    let body = json!({
        "company_ids": [seeded["companyId"]],
        "min_date": seeded["firstDay"],
        "max_date": seeded["lastDay"],
    });
    let response = export(app, Some(admin), body).await;
    assert_eq!(response.status(), StatusCode::OK);
    let files = unzip(&response.bytes().await.unwrap());
    // The admin's employment starts on the day of the company's sign-up (UTC), the seeded days
    // end yesterday in Paris: the same date between midnight in Paris and midnight UTC, when the
    // admin is in the period too.
    let (admin_start,): (String,) = sqlx::query_as("SELECT start_date FROM employments WHERE user_id = $1")
        .bind(admin.id)
        .fetch_one(&app.server.db.pool)
        .await
        .unwrap();
    let admin_in_period = admin_start.as_str() <= seeded["lastDay"].as_str().unwrap();
    assert_eq!(
        files.len(),
        6 + usize::from(admin_in_period),
        "one file per demo worker"
    );
    for worker in seeded["workers"].as_array().unwrap() {
        let card = c1b::roadlog_card_number(worker["id"].as_u64().unwrap(), 0).unwrap();
        let (name, content) = files
            .iter()
            .find(|(n, _)| n.contains(&card))
            .expect("the worker's file");
        let report = c1b::inspect(content, None).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(report.findings, Vec::<String>::new(), "{name}");
        assert!(c1b::activity_intervals(&report).len() >= 40, "{name}");
    }
}

on_both_backends! {
    async fn a_seeded_company_shows_history_alerts_and_export_at_once(app) {
        let admin = app.new_user("admin@example.com").await;
        let company = app.new_company(&admin, "Transports Démo").await;
        let seeded = seed_and_check_answer(app, &admin, company).await;
        check_recap(app, &admin, &seeded).await;
        check_computations(app, &admin, &seeded).await;
        check_history(app, &seeded).await;
        check_export(app, &admin, &seeded).await;

        // A second seed is refused and changes nothing, through the API and the command.
        let before = footprint(app).await;
        let body = app.as_user(&admin, SEED, json!({ "c": company })).await;
        assert_eq!(codes(&body), ["INVALID_RESOURCE"], "{body}");
        assert_eq!(body["errors"][0]["extensions"]["reason"], "SANDBOX_ALREADY_SEEDED");
        assert_eq!(body["data"]["seedSandboxCompany"], Value::Null);
        let output = command(&["sandbox", "seed", "--company", &company.to_string()], &[("DATABASE_URL", &app.database_url)])
            .output()
            .unwrap();
        assert!(!output.status.success());
        assert!(String::from_utf8_lossy(&output.stderr).contains("already has its demo data"));
        assert_eq!(footprint(app).await, before);
    }

    async fn only_an_admin_of_the_company_seeds_it(app) {
        let admin = app.new_user("admin@example.com").await;
        let company = app.new_company(&admin, "Mine").await;
        let worker = app.new_user("worker@example.com").await;
        app.hire(&admin, company, &worker).await;
        let other_admin = app.new_user("other@example.com").await;
        app.new_company(&other_admin, "Theirs").await;
        let before = footprint(app).await;
        for user in [&worker, &other_admin] {
            let body = app.as_user(user, SEED, json!({ "c": company })).await;
            assert_eq!(codes(&body), ["AUTHORIZATION_ERROR"], "{body}");
        }
        let (_, body) = app.graphql(SEED, json!({ "c": company }), None).await;
        assert_eq!(codes(&body), ["AUTHENTICATION_ERROR"], "{body}");
        let body = app.as_user(&admin, SEED, json!({ "c": 999_999 })).await;
        assert_eq!(codes(&body), ["AUTHORIZATION_ERROR"], "an unknown company looks the same: {body}");
        assert_eq!(footprint(app).await, before);
    }

    async fn the_operator_command_seeds_and_prints_a_summary(app) {
        let admin = app.new_user("admin@example.com").await;
        let company = app.new_company(&admin, "Transports Démo").await;
        let env = [("DATABASE_URL", app.database_url.as_str())];
        let output = command(&["sandbox", "seed", "--company", &company.to_string(), "--json"], &env).output().unwrap();
        assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
        let report: Value = serde_json::from_slice(&output.stdout).unwrap();
        assert_eq!(report["company_id"], company);
        assert_eq!(report["admin_id"], admin.id, "the company's admin validates");
        assert_eq!(report["workers"].as_array().unwrap().len(), 6);
        assert_eq!(report["breaches"].as_array().unwrap().len(), 5);
        assert!(report["alerts"].as_i64().unwrap() >= 5);
        // The API shows the same data.
        let body = app.as_user(&admin, "query($c: Int!) { company(id: $c) { missions(first: 1000) { edges { node { id } } } } }", json!({ "c": company })).await;
        assert_eq!(body["data"]["company"]["missions"]["edges"].as_array().unwrap().len() as i64, report["missions"].as_i64().unwrap());

        // The summary without --json, on another company; an unknown company is refused.
        let second = app.new_company(&admin, "Transports Démo 2").await;
        let output = command(&["sandbox", "seed", "--company", &second.to_string()], &env).output().unwrap();
        assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
        let text = String::from_utf8_lossy(&output.stdout);
        println!("{text}");
        assert!(text.starts_with(&format!("company {second}, ")), "{text}");
        assert!(text.contains("6 demo workers") && text.contains("@demo.roadlog.invalid"), "{text}");
        assert!(text.contains("maximumWorkedDaysInWeek"), "{text}");
        let output = command(&["sandbox", "seed", "--company", "999999"], &env).output().unwrap();
        assert!(!output.status.success());
        assert!(String::from_utf8_lossy(&output.stderr).contains("no company 999999"));
    }
}

tests! {
    async fn production_refuses_demo_data() {
        let app = TestApp::spawn_in(Backend::Sqlite, roadlog::config::Environment::Production)
            .await;
        let admin = app.new_user("admin@example.com").await;
        let company = app.new_company(&admin, "Real company").await;
        let before = footprint(&app).await;
        let body = app.as_user(&admin, SEED, json!({ "c": company })).await;
        assert_eq!(codes(&body), ["AUTHORIZATION_ERROR"], "{body}");
        assert_eq!(body["errors"][0]["extensions"]["reason"], "SANDBOX_ONLY");
        let env = [("DATABASE_URL", app.database_url.as_str()), ("ROADLOG_ENV", "production"), ("ROADLOG_ALLOW_SQLITE_IN_PRODUCTION", "true")];
        let output = command(&["sandbox", "seed", "--company", &company.to_string()], &env).output().unwrap();
        assert!(!output.status.success(), "the operator command refuses production");
        assert!(String::from_utf8_lossy(&output.stderr).contains("only in the sandbox"));
        assert_eq!(footprint(&app).await, before);
        app.cleanup().await;
    }

    fn the_command_has_its_own_help() {
        let help = |args: &[&str]| {
            let output = command(args, &[]).output().unwrap();
            assert!(output.status.success());
            String::from_utf8_lossy(&output.stdout).into_owned()
        };
        let seed = help(&["sandbox", "seed", "--help"]);
        assert!(seed.contains("--company") && seed.contains("--json") && seed.contains("demo"), "{seed}");
        let sandbox = help(&["sandbox", "--help"]);
        assert!(sandbox.contains("--database-url") && sandbox.contains("seed"), "{sandbox}");
        assert!(!sandbox.contains("--bind") && !seed.contains("--bind"), "no server option: {sandbox}");
    }
}
