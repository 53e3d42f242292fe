//! Local days over the real HTTP API, on both databases: a day runs from local midnight to the
//! next (23 or 25 hours on the days clocks change), a week from Monday 00:00 local to the next
//! Monday, in the regulatory alerts and in `Company.workDays`, each worker in their own zone.

use chrono::TimeZone;
use serde_json::{Value, json};

use crate::regulation::{company, mission, stored_alerts, validate};
use crate::support::TestApp;

const BUSINESS: &str = "mutation($c: Int!, $b: String) { updateCompanyDetails(companyId: $c, newBusinessType: $b, applyBusinessTypeToEmployees: true) { id } }";
const USER_DAYS: &str = "query($u: Int!, $f: Date, $t: Date) { user(id: $u) { workDays(fromDate: $f, untilDate: $t) { edges { node { day totalWorkDuration } } } } }";
const COMPANY_DAYS: &str = "query($c: Int!, $f: Date, $t: Date) { company(id: $c) { workDays(fromDate: $f, untilDate: $t) { edges { node { day userId startTime endTime totalWorkDuration } } } } }";

/// Unix seconds of a Paris wall-clock time `YYYY-MM-DD HH:MM` (never one the clocks skip or
/// repeat here).
fn paris(local: &str) -> i64 {
    let naive = chrono::NaiveDateTime::parse_from_str(local, "%Y-%m-%d %H:%M").unwrap();
    chrono_tz::Europe::Paris
        .from_local_datetime(&naive)
        .single()
        .unwrap()
        .timestamp()
}

/// Unix seconds of a UTC time `YYYY-MM-DD HH:MM`.
fn utc(text: &str) -> i64 {
    chrono::NaiveDateTime::parse_from_str(text, "%Y-%m-%d %H:%M")
        .unwrap()
        .and_utc()
        .timestamp()
}

/// A span of work: its kind, and its start and end as `"HH:MM"`.
type Span<'a> = (&'a str, &'a str, &'a str);
/// A day of work: its date and its spans.
type Day<'a> = (&'a str, &'a [Span<'a>]);

/// Records and validates (as the worker) one mission per entry: its date and spans, Paris time.
async fn days_of_work(app: &TestApp, c: &crate::regulation::Company, days: &[Day<'_>]) {
    for (day, spans) in days {
        let activities: Vec<(&str, i64, i64)> = spans
            .iter()
            .map(|(kind, from, to)| (*kind, paris(&format!("{day} {from}")), paris(&format!("{day} {to}"))))
            .collect();
        let id = mission(app, &c.worker, c.id, &activities).await;
        validate(app, &c.worker, id, &c.worker).await;
    }
}

/// The worker's own alerts: (day, check type, extra), sorted in Rust (collations differ).
async fn employee_alerts(app: &TestApp, user: i64) -> Vec<(String, String, String)> {
    let mut alerts: Vec<(String, String, String)> = stored_alerts(app, user)
        .await
        .into_iter()
        .filter(|a| a.0 == "employee")
        .map(|a| (a.1, a.2, a.3))
        .collect();
    alerts.sort();
    alerts
}

fn checks(alerts: &[(String, String, String)]) -> Vec<(&str, &str)> {
    alerts.iter().map(|a| (a.0.as_str(), a.1.as_str())).collect()
}

fn nodes(body: &Value, path: &str) -> Vec<Value> {
    body["data"][path]["workDays"]["edges"]
        .as_array()
        .unwrap_or_else(|| panic!("{body}"))
        .iter()
        .map(|e| e["node"].clone())
        .collect()
}

const EIGHT_HOURS: &[(&str, &str, &str)] = &[("drive", "07:00", "11:00"), ("work", "11:30", "15:30")];
const SIX_HOURS: &[(&str, &str, &str)] = &[("drive", "07:00", "11:00"), ("work", "11:30", "13:30")];
const SEVEN_HOURS: &[(&str, &str, &str)] = &[("drive", "07:00", "11:00"), ("work", "11:30", "14:30")];
const LAST_HOUR: &[(&str, &str, &str)] = &[("work", "23:00", "23:59")];
const TEN_HOURS_FIFTEEN: &[(&str, &str, &str)] = &[("drive", "05:00", "15:15")];

on_both_backends! {
    async fn work_in_the_last_hour_of_the_autumn_sunday_counts_on_that_sunday(app) {
        let c = company(app).await;
        // 48 h from Monday to Saturday, then 23:00 to 23:59 (UTC+1) on Sunday 2026-10-25, the
        // 25-hour day: 48 h 59 min in the week, more than the 48 h allowed.
        let week: Vec<Day> = ["2026-10-19", "2026-10-20", "2026-10-21", "2026-10-22", "2026-10-23", "2026-10-24"]
            .into_iter()
            .map(|d| (d, EIGHT_HOURS))
            .collect();
        days_of_work(app, &c, &week).await;
        days_of_work(app, &c, &[("2026-10-25", LAST_HOUR)]).await;
        assert_eq!(utc("2026-10-25 22:00"), paris("2026-10-25 23:00"), "23:00 is UTC+1");

        let alerts = employee_alerts(app, c.worker.id).await;
        assert_eq!(
            checks(&alerts),
            [("2026-10-19", "maximumWorkInCalendarWeek"), ("2026-10-19", "maximumWorkedDaysInWeek")],
            "{alerts:?}"
        );
        assert!(alerts[0].2.contains(r#""work_duration_in_seconds": 176340"#), "{}", alerts[0].2);
        assert!(alerts[1].2.contains(r#""too_many_days": true"#), "seven worked days: {}", alerts[1].2);
        let body = app
            .as_user(&c.worker, USER_DAYS, json!({ "u": c.worker.id, "f": "2026-10-25", "t": "2026-10-25" }))
            .await;
        assert_eq!(nodes(&body, "user"), [json!({ "day": "2026-10-25", "totalWorkDuration": 3540 })]);
    }

    async fn weekly_rests_across_the_clock_changes_are_measured_in_real_hours(app) {
        let c = company(app).await;
        // Autumn: Saturday 2026-10-24 ends at 14:30; the rest runs to the end of the 25-hour
        // Sunday: 9 h 30 + 25 h = 34 h 30, enough.
        let mut autumn: Vec<Day> = ["2026-10-19", "2026-10-20", "2026-10-21", "2026-10-22", "2026-10-23"]
            .into_iter()
            .map(|d| (d, SIX_HOURS))
            .collect();
        autumn.push(("2026-10-24", SEVEN_HOURS));
        days_of_work(app, &c, &autumn).await;
        let alerts = employee_alerts(app, c.worker.id).await;
        assert!(alerts.is_empty(), "{alerts:?}");

        // Spring: Saturday 2026-03-28 ends at 13:30; 10 h 30 + the 23-hour Sunday = 33 h 30, too
        // short.
        let spring: Vec<Day> = ["2026-03-23", "2026-03-24", "2026-03-25", "2026-03-26", "2026-03-27", "2026-03-28"]
            .into_iter()
            .map(|d| (d, SIX_HOURS))
            .collect();
        days_of_work(app, &c, &spring).await;
        let alerts = employee_alerts(app, c.worker.id).await;
        assert_eq!(checks(&alerts), [("2026-03-23", "maximumWorkedDaysInWeek")], "{alerts:?}");
        assert!(alerts[0].2.contains(r#""rest_duration_s": 120600.0"#), "{}", alerts[0].2);
    }

    async fn daytime_work_on_the_spring_sunday_is_not_night_work_and_is_judged_once(app) {
        let c = company(app).await;
        let body = app.as_user(&c.admin, BUSINESS, json!({ "c": c.id, "b": "FREQUENT" })).await;
        assert!(body["errors"].is_null(), "{body}");
        // 10 h 15 of driving without a break, 05:00 to 15:15 (UTC+2) on 2026-03-29, the 23-hour
        // day: over the 10 h of regular passenger lines, without night work.
        days_of_work(app, &c, &[("2026-03-29", TEN_HOURS_FIFTEEN)]).await;
        let alerts = employee_alerts(app, c.worker.id).await;
        assert_eq!(
            checks(&alerts),
            [("2026-03-29", "enoughBreak"), ("2026-03-29", "maximumWorkDayTime")],
            "{alerts:?}"
        );
        let work_day = &alerts[1].2;
        assert!(work_day.starts_with(r#"{"night_work": false, "sanction_code": "NATINF 11292""#), "{work_day}");
        assert!(work_day.contains(r#""max_work_range_in_hours": 10"#), "{work_day}");
        assert!(work_day.contains(r#""work_range_in_seconds": 36900.0"#), "{work_day}");
    }

    async fn company_work_days_cut_each_worker_in_their_own_zone(app) {
        let c = company(app).await;
        let other = app.new_user("cayenne@example.com").await;
        app.hire(&c.admin, c.id, &other).await;
        sqlx::query("UPDATE employments SET start_date = '2020-01-01'")
            .execute(&app.server.db.pool)
            .await
            .unwrap();
        sqlx::query("UPDATE users SET timezone_name = 'America/Cayenne' WHERE id = $1")
            .bind(other.id)
            .execute(&app.server.db.pool)
            .await
            .unwrap();
        // Paris (UTC+1): 00:30 to 01:30 on 2026-11-11. Cayenne (UTC-3): 22:00 on 2026-11-10 to
        // 02:00 on 2026-11-11, two local days of 2 h each (one Paris day of 4 h).
        mission(app, &c.worker, c.id, &[("work", utc("2026-11-10 23:30"), utc("2026-11-11 00:30"))]).await;
        mission(app, &other, c.id, &[("drive", utc("2026-11-11 01:00"), utc("2026-11-11 05:00"))]).await;
        let body = app
            .as_user(&c.admin, COMPANY_DAYS, json!({ "c": c.id, "f": "2026-11-09", "t": "2026-11-12" }))
            .await;
        let days: Vec<(String, i64, i64, i64, i64)> = nodes(&body, "company")
            .iter()
            .map(|n| {
                (
                    n["day"].as_str().unwrap().to_string(),
                    n["userId"].as_i64().unwrap(),
                    n["startTime"].as_i64().unwrap(),
                    n["endTime"].as_i64().unwrap(),
                    n["totalWorkDuration"].as_i64().unwrap(),
                )
            })
            .collect();
        let midnight_in_cayenne = utc("2026-11-11 03:00");
        let mut expected = vec![
            ("2026-11-11".to_string(), c.worker.id, utc("2026-11-10 23:30"), utc("2026-11-11 00:30"), 3600),
            ("2026-11-11".to_string(), other.id, midnight_in_cayenne, utc("2026-11-11 05:00"), 7200),
            ("2026-11-10".to_string(), other.id, utc("2026-11-11 01:00"), midnight_in_cayenne, 7200),
        ];
        // Most recent day first, then by user id descending.
        expected.sort_by(|a, b| b.0.cmp(&a.0).then(b.1.cmp(&a.1)));
        assert_eq!(days, expected, "{body}");
    }
}
