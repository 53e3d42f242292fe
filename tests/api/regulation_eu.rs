//! The opt-in EU driving-time checks (Roadlog extension) over the API, on both databases: the
//! company setting, the extra check types in the computations and in the recap.

use serde_json::{Value, json};

use crate::regulation::{company, date, day, mission, validate};
use crate::support::codes;

const HOUR: i64 = 3600;
const SET: &str = "mutation($c: Int!, $on: Boolean) { updateCompanyDetails(companyId: $c, euDrivingTimeChecks: $on) { id settings { euDrivingTimeChecks } } }";
const CHECKS: &str = "query($u: Int!, $d: Date) { user(id: $u) { regulationComputationsByDay(fromDate: $d, toDate: $d) { regulationComputations { submitterType regulationChecks { id type label unit description alert { extra explanation { summaryEn thresholdEn evidence { activityIds } } } } } } } }";
const RECAP: &str = "query($c: Int!, $m: ShortMonth!) { company(id: $c) { regulatoryAlertsRecap(month: $m) { totalNbAlerts dailyAlerts { alertsType nbAlerts } weeklyAlerts { alertsType } } } }";

on_both_backends! {
    async fn eu_driving_checks_are_opt_in_per_company(app) {
        let c = company(app).await;
        let body = app.as_user(&c.admin, "query($c: Int!) { company(id: $c) { settings { euDrivingTimeChecks } } }", json!({ "c": c.id })).await;
        assert_eq!(body["data"]["company"]["settings"]["euDrivingTimeChecks"], false);
        let body = app.as_user(&c.worker, SET, json!({ "c": c.id, "on": true })).await;
        assert_eq!(codes(&body), ["AUTHORIZATION_ERROR"]);
        let body = app.as_user(&c.admin, SET, json!({ "c": c.id, "on": true })).await;
        assert_eq!(body["data"]["updateCompanyDetails"]["settings"]["euDrivingTimeChecks"], true, "{body}");

        // 11 h of driving in one go.
        let d = day(8);
        let long = mission(app, &c.worker, c.id, &[("drive", d + 5 * HOUR, d + 16 * HOUR)]).await;
        validate(app, &c.worker, long, &c.worker).await;
        let body = app.as_user(&c.worker, CHECKS, json!({ "u": c.worker.id, "d": date(d) })).await;
        let checks = body["data"]["user"]["regulationComputationsByDay"][0]["regulationComputations"][0]["regulationChecks"]
            .as_array()
            .unwrap_or_else(|| panic!("{body}"))
            .clone();
        let types: Vec<&str> = checks.iter().map(|c| c["type"].as_str().unwrap()).collect();
        assert_eq!(
            types,
            [
                "minimumDailyRest", "maximumWorkDayTime", "maximumWorkedDaysInWeek", "noLic", "maximumWorkInCalendarWeek",
                "enoughBreak", "euDailyDriving", "euBreak", "euDailyRest", "euWeeklyDriving", "euTwoWeekDriving", "euWeeklyRest"
            ]
        );
        let driving = checks.iter().find(|c| c["type"] == "euDailyDriving").unwrap();
        assert_eq!(driving["id"], 101);
        assert!(driving["description"].as_str().unwrap().starts_with("Extension Roadlog."));
        let extra: Value = serde_json::from_str(driving["alert"]["extra"].as_str().unwrap()).unwrap();
        assert_eq!(extra["driving_in_seconds"], 11 * HOUR);
        assert_eq!(extra["max_driving_in_seconds"], 10 * HOUR);
        assert!(driving["alert"]["explanation"]["thresholdEn"].as_str().unwrap().contains("561/2006"));
        let pause = checks.iter().find(|c| c["type"] == "euBreak").unwrap();
        assert!(!pause["alert"].is_null());
        assert!(checks.iter().find(|c| c["type"] == "euDailyRest").unwrap()["alert"].is_null());

        // The admin side, and the recap's extra groups after the reference's.
        validate(app, &c.admin, long, &c.worker).await;
        let body = app.as_user(&c.admin, RECAP, json!({ "c": c.id, "m": &date(d)[..7] })).await;
        let recap = &body["data"]["company"]["regulatoryAlertsRecap"];
        let daily: Vec<&str> = recap["dailyAlerts"].as_array().unwrap().iter().map(|g| g["alertsType"].as_str().unwrap()).collect();
        assert_eq!(
            daily,
            [
                "minimumDailyRest", "maximumWorkDayTime", "maximumNightWorkDayTime", "not_enough_break",
                "too_much_uninterrupted_work_time", "euDailyDriving", "euBreak", "euDailyRest"
            ]
        );
        let weekly: Vec<&str> = recap["weeklyAlerts"].as_array().unwrap().iter().map(|g| g["alertsType"].as_str().unwrap()).collect();
        assert_eq!(weekly, ["maximumWorkedDaysInWeek", "maximumWorkInCalendarWeek", "euWeeklyDriving", "euTwoWeekDriving", "euWeeklyRest"]);
        // maximumWorkDayTime? no (11 h ≤ 12 h); enoughBreak twice; euDailyDriving, euBreak.
        assert_eq!(recap["totalNbAlerts"], 4, "{body}");

        // Turned off: later computations drop the EU alerts.
        let body = app.as_user(&c.admin, SET, json!({ "c": c.id, "on": false })).await;
        assert_eq!(body["data"]["updateCompanyDetails"]["settings"]["euDrivingTimeChecks"], false);
        let company_id = c.id.to_string();
        let (from, to) = (date(d), date(d));
        let env = [("DATABASE_URL", app.database_url.as_str())];
        let args = ["regulation", "rebuild", "--company", company_id.as_str(), "--from", from.as_str(), "--to", to.as_str()];
        let output = crate::support::process::command(&args, &env).output().unwrap();
        assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
        let (eu_alerts,): (i64,) = sqlx::query_as("SELECT COUNT(*) FROM regulatory_alerts WHERE check_type LIKE 'eu%'")
            .fetch_one(&app.server.db.pool)
            .await
            .unwrap();
        assert_eq!(eu_alerts, 0);
    }
}
