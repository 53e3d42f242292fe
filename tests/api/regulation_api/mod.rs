//! The regulation fields of the API on both databases: `User.regulationComputationsByDay`,
//! `Company.regulatoryAlertsRecap`, `Company.adminRegulationComputationsByUserAndByDay`, their
//! output types, quirks (`extra` as a JSON string), Roadlog's explanation, and permissions.

use std::collections::BTreeMap;

use serde_json::{Value, json};

use crate::regulation::{company, date, day, mission, validate};
use crate::support::employments::outbox;
use crate::support::{TestApp, TestUser, codes};

mod companies;
mod recap;

const HOUR: i64 = 3600;

const BY_DAY: &str = "query($u: Int!, $s: SubmitterTypeEnum, $f: Date, $t: Date) { user(id: $u) { regulationComputationsByDay(submitterType: $s, fromDate: $f, toDate: $t) { day regulationComputations { id day submitterType userId creationTime user { id } regulationChecks(unit: \"day\") { id type label regulationRule unit description variables alert { id extra explanation { summaryEn summaryFr thresholdEn thresholdFr evidence { startTime endTime activityIds descriptionEn descriptionFr } } } } weekly: regulationChecks(unit: \"week\") { type alert { id } } } } } }";
const RECAP: &str = "query($c: Int!, $m: ShortMonth!, $u: Int) { company(id: $c) { regulatoryAlertsRecap(month: $m, uniqueUserId: $u) { hasAnyComputation month totalNbAlerts totalNbAlertsPreviousMonth dailyAlerts { alertsType nbAlerts days dayDetails { day userName userId otherCompanyRelation } } weeklyAlerts { alertsType nbAlerts days } } } }";
const ADMIN_DAYS: &str = "query($c: Int!, $f: Date, $t: Date, $u: [Int]) { company(id: $c) { adminRegulationComputationsByUserAndByDay(fromDate: $f, toDate: $t, userIds: $u) { day userId nbAlertsDailyAdmin nbAlertsWeeklyAdmin } } }";

fn month_of(day: &str) -> String {
    day[..7].to_string()
}

const CANCEL: &str = "mutation($m: Int!, $u: Int!) { activities { cancelMission(missionId: $m, userId: $u) { id } } }";

/// The weekly groups' alerts of a recap.
fn weekly_total(recap: &Value) -> i64 {
    recap["weeklyAlerts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| g["nbAlerts"].as_i64().unwrap())
        .sum()
}

/// The recap's month rows (`company_alert_months`, migration 0059) are the alerts summarised:
/// for each company in which the worker has an employment that was not rejected, a row per
/// worker, side, month, check and flags, with how many alerts and on which days (bit d-1: day d).
async fn month_rows_summarise_the_alerts(app: &TestApp) {
    type Key = (i64, String, String, i64, String, i64, i64, i64);
    // A stored row: company, side, month, worker, check, the three flags, alerts, days.
    type MonthRow = (i64, String, String, i64, String, i64, i64, i64, i64, i64);
    let pool = &app.server.db.pool;
    let alerts: Vec<(i64, String, String, String, i64, i64, i64)> = sqlx::query_as(
        "SELECT user_id, submitter_type, day, check_type, night_work, not_enough_break, \
         too_much_uninterrupted_work_time FROM regulatory_alerts",
    )
    .fetch_all(pool)
    .await
    .unwrap();
    let employments: Vec<(i64, i64)> = sqlx::query_as(
        "SELECT DISTINCT company_id, user_id FROM employments WHERE user_id IS NOT NULL AND validation_status <> 'rejected'",
    )
    .fetch_all(pool)
    .await
    .unwrap();
    let mut expected: BTreeMap<Key, (i64, i64)> = BTreeMap::new();
    for (user, side, day, check, night, few, long) in alerts {
        let bit = 1_i64 << (day[8..].parse::<i64>().unwrap() - 1);
        for &(company, _) in employments.iter().filter(|e| e.1 == user) {
            let key = (
                company,
                side.clone(),
                day[..7].to_string(),
                user,
                check.clone(),
                night,
                few,
                long,
            );
            let (count, days) = expected.entry(key).or_default();
            *count += 1;
            *days |= bit;
        }
    }
    let rows: Vec<MonthRow> = sqlx::query_as(
        "SELECT company_id, submitter_type, month, user_id, check_type, night_work, not_enough_break, \
         too_much_uninterrupted_work_time, alerts, days FROM company_alert_months",
    )
    .fetch_all(pool)
    .await
    .unwrap();
    let found: BTreeMap<Key, (i64, i64)> = rows
        .into_iter()
        .map(|(company, side, month, user, check, night, few, long, count, days)| {
            ((company, side, month, user, check, night, few, long), (count, days))
        })
        .collect();
    assert!(!expected.is_empty(), "some alerts");
    assert_eq!(found, expected);
    day_counts_count_the_month_rows(app).await;
}

/// The companies' day counts (`company_alert_days`, migration 0066) are the admin month rows
/// counted per company, day, check and flags: how many workers were alerted.
async fn day_counts_count_the_month_rows(app: &TestApp) {
    type Key = (i64, String, String, i64, i64, i64);
    let pool = &app.server.db.pool;
    let rows: Vec<(i64, String, String, i64, i64, i64, i64)> = sqlx::query_as(
        "SELECT company_id, month, check_type, night_work, not_enough_break, too_much_uninterrupted_work_time, days \
         FROM company_alert_months WHERE submitter_type = 'admin'",
    )
    .fetch_all(pool)
    .await
    .unwrap();
    let mut expected: BTreeMap<Key, i64> = BTreeMap::new();
    for (company, month, check, night, few, long, days) in rows {
        for bit in (0..31).filter(|bit| (days >> bit) & 1 == 1) {
            let day = format!("{month}-{:02}", bit + 1);
            *expected
                .entry((company, day, check.clone(), night, few, long))
                .or_default() += 1;
        }
    }
    let counts: Vec<(i64, String, String, i64, i64, i64, i64)> = sqlx::query_as(
        "SELECT company_id, day, check_type, night_work, not_enough_break, too_much_uninterrupted_work_time, workers \
         FROM company_alert_days WHERE workers <> 0",
    )
    .fetch_all(pool)
    .await
    .unwrap();
    let found: BTreeMap<Key, i64> = counts
        .into_iter()
        .map(|(company, day, check, night, few, long, workers)| ((company, day, check, night, few, long), workers))
        .collect();
    assert_eq!(found, expected, "the day counts are not the month rows counted");
}

/// A company's recap over `period` (`m`, `f`, `t`), as its admin reads it, counted from the month
/// summaries; checked against the same recap counted from the alerts (with the day details).
async fn counted(app: &TestApp, admin: &TestUser, company: i64, period: &Value, unique: Option<i64>) -> Value {
    let counts = "query($c: Int!, $m: ShortMonth!, $f: Date, $t: Date, $u: Int) { company(id: $c) { \
        regulatoryAlertsRecap(month: $m, fromDate: $f, toDate: $t, uniqueUserId: $u) { hasAnyComputation \
        totalNbAlerts dailyAlerts { alertsType nbAlerts days } weeklyAlerts { alertsType nbAlerts days } } } }";
    let detailed = "query($c: Int!, $m: ShortMonth!, $f: Date, $t: Date, $u: Int) { company(id: $c) { \
        regulatoryAlertsRecap(month: $m, fromDate: $f, toDate: $t, uniqueUserId: $u) { hasAnyComputation \
        totalNbAlerts dailyAlerts { alertsType nbAlerts days dayDetails { day } } \
        weeklyAlerts { alertsType nbAlerts days dayDetails { day } } } } }";
    let mut variables = period.clone();
    variables["c"] = json!(company);
    variables["u"] = json!(unique);
    let plain = app.as_user(admin, counts, variables.clone()).await;
    let mut full = app.as_user(admin, detailed, variables).await;
    assert!(plain["errors"].is_null() && full["errors"].is_null(), "{plain} {full}");
    for kind in ["dailyAlerts", "weeklyAlerts"] {
        for group in full["data"]["company"]["regulatoryAlertsRecap"][kind]
            .as_array_mut()
            .unwrap()
        {
            group.as_object_mut().unwrap().remove("dayDetails");
        }
    }
    assert_eq!(plain, full, "summaries and alerts disagree");
    plain["data"]["company"]["regulatoryAlertsRecap"].clone()
}

on_both_backends! {
    async fn computations_by_day_with_checks_alerts_and_explanations(app) {
        let c = company(app).await;
        let d = day(8);
        // 13 h of driving without a break.
        let long = mission(app, &c.worker, c.id, &[("drive", d + 5 * HOUR, d + 18 * HOUR)]).await;
        validate(app, &c.worker, long, &c.worker).await;

        let body = app.as_user(&c.worker, BY_DAY, json!({ "u": c.worker.id, "f": date(d), "t": date(d) })).await;
        assert!(body["errors"].is_null(), "{body}");
        let days = body["data"]["user"]["regulationComputationsByDay"].as_array().unwrap();
        assert_eq!(days.len(), 1, "{body}");
        assert_eq!(days[0]["day"], date(d));
        let computation = &days[0]["regulationComputations"][0];
        assert_eq!(computation["submitterType"], "employee");
        assert_eq!(computation["userId"], c.worker.id);
        assert_eq!(computation["user"]["id"], c.worker.id);
        // creationTime: a JSON-encoded UTC time.
        let created: String = serde_json::from_str(computation["creationTime"].as_str().unwrap()).unwrap();
        assert_eq!(created.len(), 19, "{created}");
        let checks = computation["regulationChecks"].as_array().unwrap();
        let types: Vec<&str> = checks.iter().map(|c| c["type"].as_str().unwrap()).collect();
        assert_eq!(types, ["minimumDailyRest", "maximumWorkDayTime", "noLic", "enoughBreak"]);
        let weekly: Vec<&str> = computation["weekly"].as_array().unwrap().iter().map(|c| c["type"].as_str().unwrap()).collect();
        assert_eq!(weekly, ["maximumWorkedDaysInWeek", "maximumWorkInCalendarWeek"]);
        assert!(checks[0]["alert"].is_null());
        let work_day = &checks[1];
        assert_eq!(work_day["id"], 2);
        assert_eq!(work_day["label"], "Dépassement(s) de la durée maximale du travail quotidien");
        assert_eq!(work_day["regulationRule"], "dailyWork");
        assert_eq!(work_day["unit"], "day");
        assert!(work_day["description"].as_str().unwrap().contains("limitée à 12h"));
        assert!(work_day["variables"].as_str().unwrap().starts_with("{\"DESCRIPTION\": {\"TRM\": "));
        // `extra` is a JSON string, as in the reference.
        let extra = work_day["alert"]["extra"].as_str().expect("extra is a string");
        let parsed: Value = serde_json::from_str(extra).unwrap();
        assert_eq!(parsed["sanction_code"], "NATINF 11292");
        assert_eq!(parsed["work_range_in_seconds"], 46800.0);
        assert_eq!(parsed["max_work_range_in_hours"], 12);
        let explanation = &work_day["alert"]["explanation"];
        assert!(explanation["summaryEn"].as_str().unwrap().starts_with("13 h 00 min of work between"), "{explanation}");
        assert!(explanation["summaryFr"].as_str().unwrap().contains("plus que les 12 h autorisées"));
        assert_eq!(explanation["evidence"][0]["startTime"], d + 5 * HOUR);
        assert_eq!(explanation["evidence"][0]["endTime"], d + 18 * HOUR);
        assert_eq!(explanation["evidence"][0]["activityIds"].as_array().unwrap().len(), 1);
        let breaks: Value = serde_json::from_str(checks[3]["alert"]["extra"].as_str().unwrap()).unwrap();
        assert_eq!(breaks["not_enough_break"], true);
        assert_eq!(breaks["too_much_uninterrupted_work_time"], true);
        assert_eq!(breaks["sanction_code"], "NATINF 35187");

        // Filters: no admin computation yet; other days not listed.
        let body = app.as_user(&c.worker, BY_DAY, json!({ "u": c.worker.id, "s": "admin" })).await;
        assert_eq!(body["data"]["user"]["regulationComputationsByDay"], json!([]));
        let body = app.as_user(&c.worker, BY_DAY, json!({ "u": c.worker.id, "s": "employee", "f": date(d + 86_400), "t": date(d + 86_400) })).await;
        assert_eq!(body["data"]["user"]["regulationComputationsByDay"], json!([]));
        let (status, _) = app.graphql(BY_DAY, json!({ "u": c.worker.id, "s": "boss" }), Some(&c.worker.token)).await;
        assert_eq!(status, reqwest::StatusCode::BAD_REQUEST);

        // The admin of the worker's company reads them; nobody else does.
        let body = app.as_user(&c.admin, BY_DAY, json!({ "u": c.worker.id, "f": date(d), "t": date(d) })).await;
        assert_eq!(body["data"]["user"]["regulationComputationsByDay"].as_array().unwrap().len(), 1, "{body}");
        let stranger = app.new_user("stranger@example.com").await;
        let other_company = app.new_company(&stranger, "Other").await;
        assert!(other_company > 0);
        let body = app.as_user(&stranger, "query($u: Int!) { user(id: $u) { id } }", json!({ "u": c.worker.id })).await;
        assert_eq!(codes(&body), ["AUTHORIZATION_ERROR"]);
        let body = app.as_user(&c.worker, BY_DAY, json!({ "u": c.admin.id })).await;
        assert_eq!(codes(&body), ["AUTHORIZATION_ERROR"]);
        assert!(body["data"]["user"]["regulationComputationsByDay"].is_null());
    }

    async fn the_admin_recap_and_days(app) {
        let c = company(app).await;
        let d = day(8);
        let long = mission(app, &c.worker, c.id, &[("drive", d + 5 * HOUR, d + 18 * HOUR)]).await;
        validate(app, &c.worker, long, &c.worker).await;
        let month = month_of(&date(d));

        // Only admin computations count: nothing yet.
        let body = app.as_user(&c.admin, RECAP, json!({ "c": c.id, "m": month })).await;
        let recap = &body["data"]["company"]["regulatoryAlertsRecap"];
        assert_eq!(recap["hasAnyComputation"], false, "{body}");
        assert_eq!(recap["month"], format!("{month}-01"));
        assert_eq!(recap["dailyAlerts"], json!([]));

        validate(app, &c.admin, long, &c.worker).await;
        let body = app.as_user(&c.admin, RECAP, json!({ "c": c.id, "m": month })).await;
        let recap = &body["data"]["company"]["regulatoryAlertsRecap"];
        assert_eq!(recap["hasAnyComputation"], true, "{body}");
        // maximumWorkDayTime, and enoughBreak with both halves failed (counted twice).
        assert_eq!(recap["totalNbAlerts"], 3);
        assert_eq!(recap["totalNbAlertsPreviousMonth"], 0);
        let daily: Vec<(String, i64)> = recap["dailyAlerts"]
            .as_array()
            .unwrap()
            .iter()
            .map(|g| (g["alertsType"].as_str().unwrap().to_string(), g["nbAlerts"].as_i64().unwrap()))
            .collect();
        let expected: Vec<(String, i64)> = [
            ("minimumDailyRest", 0),
            ("maximumWorkDayTime", 1),
            ("maximumNightWorkDayTime", 0),
            ("not_enough_break", 1),
            ("too_much_uninterrupted_work_time", 1),
        ]
        .iter()
        .map(|(t, n)| (t.to_string(), *n))
        .collect();
        assert_eq!(daily, expected);
        let group = &recap["dailyAlerts"][1];
        assert_eq!(group["days"], json!([date(d)]));
        assert_eq!(
            group["dayDetails"],
            json!([{ "day": date(d), "userName": "Jeanne Martin", "userId": c.worker.id, "otherCompanyRelation": null }])
        );
        let weekly: Vec<&str> = recap["weeklyAlerts"].as_array().unwrap().iter().map(|g| g["alertsType"].as_str().unwrap()).collect();
        assert_eq!(weekly, ["maximumWorkedDaysInWeek", "maximumWorkInCalendarWeek"]);

        // One worker; a stranger to the company is refused; a bad month is a request error.
        let body = app.as_user(&c.admin, RECAP, json!({ "c": c.id, "m": month, "u": c.worker.id })).await;
        assert_eq!(body["data"]["company"]["regulatoryAlertsRecap"]["totalNbAlerts"], 3);
        let stranger = app.new_user("stranger@example.com").await;
        let body = app.as_user(&c.admin, RECAP, json!({ "c": c.id, "m": month, "u": stranger.id })).await;
        assert_eq!(codes(&body), ["AUTHORIZATION_ERROR"]);
        let (status, _) = app.graphql(RECAP, json!({ "c": c.id, "m": "2025-13" }), Some(&c.admin.token)).await;
        assert_eq!(status, reqwest::StatusCode::BAD_REQUEST);
        let body = app.as_user(&c.worker, RECAP, json!({ "c": c.id, "m": month })).await;
        assert_eq!(codes(&body), ["AUTHORIZATION_ERROR"]);
        assert!(body["data"]["company"]["regulatoryAlertsRecap"].is_null());

        // Per worker and day: the day's alerts (enoughBreak once per failed half).
        let body = app.as_user(&c.admin, ADMIN_DAYS, json!({ "c": c.id, "f": date(d), "t": date(d) })).await;
        assert_eq!(
            body["data"]["company"]["adminRegulationComputationsByUserAndByDay"],
            json!([{ "day": date(d), "userId": c.worker.id, "nbAlertsDailyAdmin": 3, "nbAlertsWeeklyAdmin": 0 }])
        );
        let body = app.as_user(&c.admin, ADMIN_DAYS, json!({ "c": c.id, "u": [stranger.id] })).await;
        assert_eq!(body["data"]["company"]["adminRegulationComputationsByUserAndByDay"], json!([]));
        let body = app.as_user(&c.admin, ADMIN_DAYS, json!({ "c": c.id })).await;
        let rows = body["data"]["company"]["adminRegulationComputationsByUserAndByDay"].as_array().unwrap();
        assert!(rows.len() >= 2, "the day and the Monday of its week: {body}");
        let body = app.as_user(&c.worker, ADMIN_DAYS, json!({ "c": c.id })).await;
        assert_eq!(codes(&body), ["AUTHORIZATION_ERROR"]);
    }
}
