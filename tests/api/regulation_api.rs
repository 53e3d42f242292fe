//! The regulation fields of the API on both databases: `User.regulationComputationsByDay`,
//! `Company.regulatoryAlertsRecap`, `Company.adminRegulationComputationsByUserAndByDay`, their
//! output types, quirks (`extra` as a JSON string), Roadlog's explanation, and permissions.

use std::collections::BTreeMap;

use serde_json::{Value, json};

use crate::regulation::{company, date, day, mission, validate};
use crate::support::employments::outbox;
use crate::support::{TestApp, TestUser, codes};

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

    async fn the_recap_counts_alike_with_and_without_day_details(app) {
        // Without `dayDetails` the recap counts from the month summaries; with them, from the
        // alerts: both must agree, over whole months and over a period across two months, and
        // both follow an admin's cancellation.
        let c = company(app).await;
        let days = [day(45), day(40), day(12), day(10), day(8)];
        let mut missions = vec![];
        for d in days {
            let long = mission(app, &c.worker, c.id, &[("drive", d + 5 * HOUR, d + 18 * HOUR)]).await;
            validate(app, &c.worker, long, &c.worker).await;
            validate(app, &c.admin, long, &c.worker).await;
            missions.push(long);
        }
        let counts = "query($c: Int!, $m: ShortMonth!, $f: Date, $t: Date) { company(id: $c) { \
            regulatoryAlertsRecap(month: $m, fromDate: $f, toDate: $t) { hasAnyComputation month totalNbAlerts \
            totalNbAlertsPreviousMonth dailyAlerts { alertsType nbAlerts days } weeklyAlerts { alertsType nbAlerts days } } } }";
        let detailed = "query($c: Int!, $m: ShortMonth!, $f: Date, $t: Date) { company(id: $c) { \
            regulatoryAlertsRecap(month: $m, fromDate: $f, toDate: $t) { hasAnyComputation month totalNbAlerts \
            totalNbAlertsPreviousMonth dailyAlerts { alertsType nbAlerts days dayDetails { day userId } } \
            weeklyAlerts { alertsType nbAlerts days dayDetails { day userId } } } } }";
        let without_details = |mut recap: Value| {
            for kind in ["dailyAlerts", "weeklyAlerts"] {
                for group in recap[kind].as_array_mut().unwrap() {
                    group.as_object_mut().unwrap().remove("dayDetails");
                }
            }
            recap
        };
        let admin = &c.admin;
        let both = |variables: Value| async move {
            let plain = app.as_user(admin, counts, variables.clone()).await;
            let full = app.as_user(admin, detailed, variables).await;
            assert!(plain["errors"].is_null() && full["errors"].is_null(), "{plain} {full}");
            let plain = plain["data"]["company"]["regulatoryAlertsRecap"].clone();
            let full = full["data"]["company"]["regulatoryAlertsRecap"].clone();
            assert_eq!(plain, without_details(full), "summaries and alerts disagree");
            plain
        };
        let alerted_days = |recap: &Value| -> Vec<String> {
            let mut days: Vec<String> = recap["dailyAlerts"][1]["days"]
                .as_array()
                .unwrap()
                .iter()
                .map(|d| d.as_str().unwrap().to_string())
                .collect();
            days.sort();
            days
        };
        // Each alerted day in the recap of its month (13 h of driving: maximumWorkDayTime),
        // and the month before counted as the previous month.
        let last_month = month_of(&date(days[4]));
        let recap = both(json!({ "c": c.id, "m": last_month })).await;
        let in_last_month: Vec<String> =
            days.iter().map(|d| date(*d)).filter(|d| month_of(d) == last_month).collect();
        assert_eq!(alerted_days(&recap), in_last_month, "{recap}");
        assert_eq!(recap["totalNbAlerts"], 3 * in_last_month.len() as i64 + weekly_total(&recap));
        let (year, number): (i32, u32) = (last_month[..4].parse().unwrap(), last_month[5..].parse().unwrap());
        let month_before = if number == 1 { format!("{}-12", year - 1) } else { format!("{year}-{:02}", number - 1) };
        let previous = both(json!({ "c": c.id, "m": month_before })).await;
        assert_eq!(recap["totalNbAlertsPreviousMonth"], previous["totalNbAlerts"]);
        // A period across two months: from the second day (included) to the fourth (excluded).
        let period = both(json!({ "c": c.id, "m": last_month, "f": date(days[1]), "t": date(days[3]) })).await;
        let expected: Vec<String> = days[1..3].iter().map(|d| date(*d)).collect();
        assert_eq!(alerted_days(&period), expected, "{period}");
        assert_eq!(period["totalNbAlertsPreviousMonth"], 0);

        // The admin cancels the worker's time on the fourth day: its alerts go, in both ways.
        let body = app.as_user(&c.admin, CANCEL, json!({ "m": missions[3], "u": c.worker.id })).await;
        assert!(body["errors"].is_null(), "{body}");
        let recap = both(json!({ "c": c.id, "m": month_of(&date(days[3])) })).await;
        assert!(!alerted_days(&recap).contains(&date(days[3])), "{recap}");
        let period = both(json!({ "c": c.id, "m": last_month, "f": date(days[0]), "t": date(days[4] + 86_400) })).await;
        let expected: Vec<String> = [days[0], days[1], days[2], days[4]].iter().map(|d| date(*d)).collect();
        assert_eq!(alerted_days(&period), expected, "{period}");
        month_rows_summarise_the_alerts(app).await;
    }

    async fn every_company_of_the_worker_reads_their_alerts(app) {
        // The recap reads month rows kept per company (migration 0059): a company the
        // worker joins gets the alerts computed before, hired directly or by an e-mailed
        // invitation; every company follows the computations after; a worker who left is no
        // longer counted though their summaries stay.
        let c = company(app).await;
        let (d1, d2) = (day(12), day(10));
        let period = json!({ "m": month_of(&date(d1)), "f": date(d1), "t": date(d2 + 86_400) });
        let long = mission(app, &c.worker, c.id, &[("drive", d1 + 5 * HOUR, d1 + 18 * HOUR)]).await;
        validate(app, &c.worker, long, &c.worker).await;
        validate(app, &c.admin, long, &c.worker).await;
        let before = counted(app, &c.admin, c.id, &period, None).await;
        assert!(before["totalNbAlerts"].as_i64().unwrap() > 0, "{before}");

        // Hired by a second company, invited by e-mail to a third: both read what the first does.
        let other_admin = app.new_user("other@example.com").await;
        let other = app.new_company(&other_admin, "Autre Transport").await;
        app.hire(&other_admin, other, &c.worker).await;
        assert_eq!(counted(app, &other_admin, other, &period, None).await, before);
        let third_admin = app.new_user("third@example.com").await;
        let third = app.new_company(&third_admin, "Tiers Transport").await;
        let invite = "mutation($c: Int!, $m: Email!) { employments { createEmployment(companyId: $c, mail: $m) { id } } }";
        // (An address of no account: the worker redeems the invitation with theirs.)
        let body = app.as_user(&third_admin, invite, json!({ "c": third, "m": "driver.invited@example.com" })).await;
        assert!(body["errors"].is_null(), "{body}");
        let mail = outbox(app, "driver.invited@example.com").await;
        let token = mail
            .iter()
            .filter_map(|m| m["body"].as_str())
            .flat_map(str::split_whitespace)
            .find(|w| w.starts_with("rl_inv_"))
            .expect("the invitation's token")
            .to_string();
        let redeem = "mutation($t: String!) { signUp { redeemInvite(token: $t) { id } } }";
        let body = app.as_user(&c.worker, redeem, json!({ "t": token })).await;
        assert!(body["errors"].is_null(), "{body}");
        assert_eq!(counted(app, &third_admin, third, &period, None).await, before);
        let since_2020 = || async {
            sqlx::query("UPDATE employments SET start_date = '2020-01-01'")
                .execute(&app.server.db.pool)
                .await
                .unwrap();
        };
        since_2020().await;

        // A later day, alerted, computed in the second company: all three follow.
        let later = mission(app, &c.worker, other, &[("drive", d2 + 5 * HOUR, d2 + 18 * HOUR)]).await;
        validate(app, &c.worker, later, &c.worker).await;
        validate(app, &other_admin, later, &c.worker).await;
        let after = counted(app, &c.admin, c.id, &period, None).await;
        assert!(after["totalNbAlerts"].as_i64() > before["totalNbAlerts"].as_i64(), "{after}");
        assert_eq!(counted(app, &other_admin, other, &period, None).await, after);
        assert_eq!(counted(app, &third_admin, third, &period, None).await, after);

        // The second company's own worker, alerted too; then the first worker leaves it.
        let own = app.new_user("own@example.com").await;
        app.hire(&other_admin, other, &own).await;
        since_2020().await;
        let theirs = mission(app, &own, other, &[("drive", d2 + 4 * HOUR, d2 + 18 * HOUR)]).await;
        validate(app, &own, theirs, &own).await;
        validate(app, &other_admin, theirs, &own).await;
        let own_only = counted(app, &other_admin, other, &period, Some(own.id)).await;
        assert!(own_only["totalNbAlerts"].as_i64().unwrap() > 0, "{own_only}");
        let both = counted(app, &other_admin, other, &period, None).await;
        assert_eq!(
            both["totalNbAlerts"].as_i64().unwrap(),
            own_only["totalNbAlerts"].as_i64().unwrap() + after["totalNbAlerts"].as_i64().unwrap(),
            "{both}"
        );
        sqlx::query("UPDATE employments SET start_date = '2020-01-01', end_date = '2021-01-01' WHERE company_id = $1 AND user_id = $2")
            .bind(other)
            .bind(c.worker.id)
            .execute(&app.server.db.pool)
            .await
            .unwrap();
        assert_eq!(counted(app, &other_admin, other, &period, None).await, own_only);
        assert_eq!(counted(app, &c.admin, c.id, &period, None).await, after, "the first company still counts them");
        month_rows_summarise_the_alerts(app).await;
    }

    async fn concurrent_computations_keep_the_month_rows_whole(app) {
        // The admin's validations of 20 workers and the operator's rebuild of the month (16
        // workers per transaction) run at once: none fails (each transaction writes only the
        // month rows of the workers it locked), the month rows summarise the alerts, and the
        // recap counts what the alerts do.
        let c = company(app).await;
        let d = day(12);
        let mut workers = vec![];
        for i in 0..20 {
            let worker = app.new_user(&format!("driver{i}@example.com")).await;
            app.hire(&c.admin, c.id, &worker).await;
            workers.push(worker);
        }
        sqlx::query("UPDATE employments SET start_date = '2020-01-01'")
            .execute(&app.server.db.pool)
            .await
            .unwrap();
        let mut missions = vec![];
        for worker in &workers {
            let long = mission(app, worker, c.id, &[("drive", d + 5 * HOUR, d + 18 * HOUR)]).await;
            validate(app, worker, long, worker).await;
            missions.push(long);
        }
        let (company, from, to) = (c.id.to_string(), date(d - 86_400), date(d + 86_400));
        let database = app.database_url.clone();
        let rebuild = tokio::task::spawn_blocking(move || {
            let args = ["regulation", "rebuild", "--company", company.as_str(), "--from", from.as_str(), "--to", to.as_str()];
            crate::support::process::command(&args, &[("DATABASE_URL", database.as_str())]).output().unwrap()
        });
        let validate = "mutation($m: Int!, $u: [Int]!) { activities { validateMission(missionId: $m, usersIds: $u) { id } } }";
        let validations = workers
            .iter()
            .zip(&missions)
            .map(|(worker, long)| app.as_user(&c.admin, validate, json!({ "m": long, "u": [worker.id] })));
        for body in futures::future::join_all(validations).await {
            assert!(body["errors"].is_null(), "{body}");
        }
        let output = rebuild.await.unwrap();
        assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
        month_rows_summarise_the_alerts(app).await;
        let period = json!({ "m": month_of(&date(d)), "f": date(d), "t": date(d + 86_400) });
        let all = counted(app, &c.admin, c.id, &period, None).await;
        let one = counted(app, &c.admin, c.id, &period, Some(workers[0].id)).await;
        assert!(one["totalNbAlerts"].as_i64().unwrap() > 0, "{one}");
        assert_eq!(all["totalNbAlerts"].as_i64(), one["totalNbAlerts"].as_i64().map(|n| 20 * n), "{all}");
    }

    async fn recap_names_the_other_companies_of_alerted_days(app) {
        let c = company(app).await;
        // Two more employers of the worker: one with another SIREN, one sharing the company's.
        let other_admin = app.new_user("other@example.com").await;
        let other = app.new_company(&other_admin, "Autre Transport").await;
        let sister = app.new_company(&other_admin, "Martin Sud").await;
        sqlx::query("UPDATE companies SET siren = '987654321' WHERE id = $1")
            .bind(other)
            .execute(&app.server.db.pool)
            .await
            .unwrap();
        app.hire(&other_admin, other, &c.worker).await;
        app.hire(&other_admin, sister, &c.worker).await;
        sqlx::query("UPDATE employments SET start_date = '2020-01-01'")
            .execute(&app.server.db.pool)
            .await
            .unwrap();
        // Three alerted days in the company (13 h of driving each); the first also has an hour
        // for the other SIREN, the second an hour for the sister company, the third nothing else.
        let (d1, d2, d3) = (day(12), day(10), day(8));
        for d in [d1, d2, d3] {
            let long = mission(app, &c.worker, c.id, &[("drive", d + 5 * HOUR, d + 18 * HOUR)]).await;
            validate(app, &c.worker, long, &c.worker).await;
            validate(app, &c.admin, long, &c.worker).await;
        }
        mission(app, &c.worker, other, &[("work", d1 + 19 * HOUR, d1 + 20 * HOUR)]).await;
        mission(app, &c.worker, sister, &[("work", d2 + 19 * HOUR, d2 + 20 * HOUR)]).await;
        // An hour for the other SIREN on a day with no alert changes nothing.
        mission(app, &c.worker, other, &[("work", day(9) + 19 * HOUR, day(9) + 20 * HOUR)]).await;

        // Each day read in the recap of its own month (the days may straddle two).
        for (d, expected) in [(d1, json!("company")), (d2, json!("establishment")), (d3, Value::Null)] {
            let body = app.as_user(&c.admin, RECAP, json!({ "c": c.id, "m": month_of(&date(d)) })).await;
            assert!(body["errors"].is_null(), "{body}");
            let group = body["data"]["company"]["regulatoryAlertsRecap"]["dailyAlerts"]
                .as_array()
                .unwrap()
                .iter()
                .find(|g| g["alertsType"] == "maximumWorkDayTime")
                .cloned()
                .unwrap();
            let details: Vec<&Value> = group["dayDetails"].as_array().unwrap().iter().filter(|x| x["day"] == date(d)).collect();
            assert_eq!(details.len(), 1, "{body}");
            assert_eq!(details[0]["otherCompanyRelation"], expected, "{}: {body}", date(d));
        }
    }
}
