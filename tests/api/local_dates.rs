//! Dates in the worker's zone over the real HTTP API, on both databases: an employment's start,
//! an expenditure's spending date and a holiday's days are the worker's local dates (the
//! reference compares them with the dates of the UTC times), and `workDays` shows an expenditure
//! on the local day it was declared for. An employment ends at the worker's local midnight.

use chrono::TimeZone;
use serde_json::{Value, json};

use crate::regulation::{Company, company};
use crate::support::{TestApp, TestUser, codes};

const CREATE: &str = "mutation($c: Int!) { activities { createMission(companyId: $c, name: \"Tour\") { id } } }";
const LOG: &str = "mutation($m: Int!, $t: ActivityTypeEnum!, $s: TimeStamp!, $e: TimeStamp) { activities { logActivity(missionId: $m, type: $t, startTime: $s, endTime: $e, switch: false) { id } } }";
const EXPENSE: &str = "mutation($m: Int!, $d: Date!) { activities { logExpenditure(missionId: $m, type: \"day_meal\", spendingDate: $d) { id spendingDate } } }";
const USER_DAYS: &str = "query($u: Int!, $f: Date, $t: Date) { user(id: $u) { workDays(fromDate: $f, untilDate: $t) { edges { node { day expenditures } } } } }";
const TERMINATE: &str =
    "mutation($e: Int!, $d: Date) { employments { terminateEmployment(employmentId: $e, endDate: $d) { endDate } } }";
const HOLIDAY: &str = "mutation($c: Int!, $s: TimeStamp!, $e: TimeStamp!) { activities { logHoliday(companyId: $c, startTime: $s, endTime: $e, title: \"Congés\") { activities { startTime endTime } } } }";

/// Unix seconds of a wall-clock time `YYYY-MM-DD HH:MM` in `zone` (never one the clocks skip or
/// repeat there).
fn local(zone: chrono_tz::Tz, text: &str) -> i64 {
    let naive = chrono::NaiveDateTime::parse_from_str(text, "%Y-%m-%d %H:%M").unwrap();
    zone.from_local_datetime(&naive).single().unwrap().timestamp()
}

/// Unix seconds of a UTC time `YYYY-MM-DD HH:MM`.
fn utc(text: &str) -> i64 {
    chrono::NaiveDateTime::parse_from_str(text, "%Y-%m-%d %H:%M")
        .unwrap()
        .and_utc()
        .timestamp()
}

/// A company whose worker lives in `zone` and is employed from `hired` on.
async fn worker_in(app: &TestApp, zone: chrono_tz::Tz, hired: &str) -> Company {
    let c = company(app).await;
    sqlx::query("UPDATE employments SET start_date = $1 WHERE user_id = $2")
        .bind(hired)
        .bind(c.worker.id)
        .execute(&app.server.db.pool)
        .await
        .unwrap();
    sqlx::query("UPDATE users SET timezone_name = $1 WHERE id = $2")
        .bind(zone.name())
        .bind(c.worker.id)
        .execute(&app.server.db.pool)
        .await
        .unwrap();
    c
}

async fn new_mission(app: &TestApp, user: &TestUser, company: i64) -> i64 {
    let body = app.as_user(user, CREATE, json!({ "c": company })).await;
    body["data"]["activities"]["createMission"]["id"]
        .as_i64()
        .unwrap_or_else(|| panic!("{body}"))
}

/// `logActivity` of one hour of work from `start`, in a new mission of the worker.
async fn work_hour(app: &TestApp, c: &Company, start: i64) -> Value {
    let m = new_mission(app, &c.worker, c.id).await;
    app.as_user(
        &c.worker,
        LOG,
        json!({ "m": m, "t": "work", "s": start, "e": start + 3600 }),
    )
    .await
}

fn refused_outside_employment(body: &Value) {
    assert_eq!(codes(body), ["AUTHORIZATION_ERROR"], "{body}");
    assert_eq!(
        body["errors"][0]["extensions"]["reason"], "ACTIVITY_OUTSIDE_EMPLOYMENT_EMPLOYEE",
        "{body}"
    );
}

async fn activities_of(app: &TestApp, user: i64) -> Vec<(i64, i64)> {
    sqlx::query_as("SELECT start_time, end_time FROM activities WHERE user_id = $1 ORDER BY start_time")
        .bind(user)
        .fetch_all(&app.server.db.pool)
        .await
        .unwrap()
}

on_both_backends! {
    async fn an_auckland_worker_logs_work_from_the_first_local_hour_of_the_hire_date(app) {
        let auckland = chrono_tz::Pacific::Auckland;
        let c = worker_in(app, auckland, "2026-11-20").await;
        // 09:00 on 2026-11-20 in Auckland (UTC+13) is 20:00 UTC on 2026-11-19: the UTC date
        // is before the hire date, the local one is the hire date.
        let nine = local(auckland, "2026-11-20 09:00");
        assert_eq!(nine, utc("2026-11-19 20:00"));
        let body = work_hour(app, &c, nine).await;
        assert!(body["errors"].is_null(), "{body}");
        // The evening before, 20:00 local on 2026-11-19, is before the employment.
        let body = work_hour(app, &c, local(auckland, "2026-11-19 20:00")).await;
        refused_outside_employment(&body);
        assert_eq!(activities_of(app, c.worker.id).await, [(nine, nine + 3600)], "the refusal stored nothing");
    }

    async fn a_cayenne_worker_cannot_log_the_evening_before_the_hire_date(app) {
        let cayenne = chrono_tz::America::Cayenne;
        let c = worker_in(app, cayenne, "2026-11-20").await;
        // 22:00 on 2026-11-19 in Cayenne (UTC-3) is 01:00 UTC on 2026-11-20: the UTC date is the
        // hire date, the local one the day before.
        let evening = local(cayenne, "2026-11-19 22:00");
        assert_eq!(evening, utc("2026-11-20 01:00"));
        let body = work_hour(app, &c, evening).await;
        refused_outside_employment(&body);
        assert!(activities_of(app, c.worker.id).await.is_empty(), "the refusal stored nothing");
        let morning = local(cayenne, "2026-11-20 09:00");
        let body = work_hour(app, &c, morning).await;
        assert!(body["errors"].is_null(), "{body}");
        assert_eq!(activities_of(app, c.worker.id).await, [(morning, morning + 3600)]);
    }

    async fn an_auckland_meal_is_declared_on_its_local_date_and_shown_on_that_work_day(app) {
        let auckland = chrono_tz::Pacific::Auckland;
        let c = worker_in(app, auckland, "2026-11-20").await;
        // 09:00 to 12:00 on 2026-11-27 in Auckland: 20:00 to 23:00 UTC on 2026-11-26.
        let m = new_mission(app, &c.worker, c.id).await;
        let (start, end) = (local(auckland, "2026-11-27 09:00"), local(auckland, "2026-11-27 12:00"));
        assert_eq!((start, end), (utc("2026-11-26 20:00"), utc("2026-11-26 23:00")));
        let body = app.as_user(&c.worker, LOG, json!({ "m": m, "t": "drive", "s": start, "e": end })).await;
        assert!(body["errors"].is_null(), "{body}");

        // The UTC date is not one of the worker's days in the mission.
        let body = app.as_user(&c.worker, EXPENSE, json!({ "m": m, "d": "2026-11-26" })).await;
        assert_eq!(codes(&body), ["INVALID_INPUTS"], "{body}");
        assert_eq!(body["errors"][0]["extensions"]["reason"], "EXPENDITURE_DATE_NOT_INCLUDED_IN_MISSION_RANGE");
        assert_eq!(app.scalar("SELECT COUNT(*) FROM expenditures").await, 0, "the refusal stored nothing");

        // The local date is.
        let body = app.as_user(&c.worker, EXPENSE, json!({ "m": m, "d": "2026-11-27" })).await;
        assert!(body["errors"].is_null(), "{body}");
        assert_eq!(body["data"]["activities"]["logExpenditure"]["spendingDate"], "2026-11-27");
        let stored: Vec<(String,)> = sqlx::query_as("SELECT spending_date FROM expenditures WHERE user_id = $1")
            .bind(c.worker.id)
            .fetch_all(&app.server.db.pool)
            .await
            .unwrap();
        assert_eq!(stored, [("2026-11-27".to_string(),)]);

        // workDays shows the meal on the worker's day, the only one of the mission.
        let body = app
            .as_user(&c.worker, USER_DAYS, json!({ "u": c.worker.id, "f": "2026-11-25", "t": "2026-11-28" }))
            .await;
        let days: Vec<Value> = body["data"]["user"]["workDays"]["edges"]
            .as_array()
            .unwrap_or_else(|| panic!("{body}"))
            .iter()
            .map(|e| e["node"].clone())
            .collect();
        assert_eq!(days, [json!({ "day": "2026-11-27", "expenditures": { "day_meal": 1 } })], "{body}");
    }

    async fn an_auckland_holiday_is_cut_on_the_workers_clock(app) {
        let auckland = chrono_tz::Pacific::Auckland;
        let c = worker_in(app, auckland, "2026-11-20").await;
        // 08:00 to 17:00 local on 2026-11-23 and 2026-11-24: the first local day of the holiday
        // starts on 2026-11-22 in UTC, whose time of day (19:00) is not the worker's.
        let vars = json!({
            "c": c.id,
            "s": local(auckland, "2026-11-23 08:00"),
            "e": local(auckland, "2026-11-24 17:00"),
        });
        let body = app.as_user(&c.worker, HOLIDAY, vars).await;
        assert!(body["errors"].is_null(), "{body}");
        let periods: Vec<Value> = body["data"]["activities"]["logHoliday"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m["activities"][0].clone())
            .collect();
        assert_eq!(
            periods,
            [
                json!({ "startTime": utc("2026-11-22 19:00"), "endTime": utc("2026-11-23 04:00") }),
                json!({ "startTime": utc("2026-11-23 19:00"), "endTime": utc("2026-11-24 04:00") }),
            ]
        );
        // A holiday that would start the local day before the hire date is refused whole.
        let vars = json!({
            "c": c.id,
            "s": local(auckland, "2026-11-19 08:00"),
            "e": local(auckland, "2026-11-20 17:00"),
        });
        let body = app.as_user(&c.worker, HOLIDAY, vars).await;
        refused_outside_employment(&body);
        assert_eq!(activities_of(app, c.worker.id).await.len(), 2, "nothing of the refused holiday is stored");
    }

    async fn an_auckland_employment_ends_at_local_midnight(app) {
        let auckland = chrono_tz::Pacific::Auckland;
        let c = worker_in(app, auckland, "2026-11-20").await;
        // 09:00 on 2026-11-21 in Auckland, 20:00 UTC on 2026-11-20: after the last local day
        // 2026-11-20, though before that day's UTC midnight.
        let morning = local(auckland, "2026-11-21 09:00");
        assert_eq!(morning, utc("2026-11-20 20:00"));
        let body = work_hour(app, &c, morning).await;
        assert!(body["errors"].is_null(), "{body}");
        let employment = app
            .scalar(&format!("SELECT id FROM employments WHERE user_id = {}", c.worker.id))
            .await;
        let end_date = || async {
            let (end,): (Option<String>,) = sqlx::query_as("SELECT end_date FROM employments WHERE id = $1")
                .bind(employment)
                .fetch_one(&app.server.db.pool)
                .await
                .unwrap();
            end
        };
        let body = app.as_user(&c.admin, TERMINATE, json!({ "e": employment, "d": "2026-11-20" })).await;
        assert_eq!(codes(&body), ["INVALID_INPUTS"], "{body}");
        assert_eq!(body["errors"][0]["extensions"]["reason"], "ACTIVITY_EXIST_AFTER_EMPLOYMENT_END_DATE");
        assert_eq!(end_date().await, None, "the refusal changed nothing");
        let body = app.as_user(&c.admin, TERMINATE, json!({ "e": employment, "d": "2026-11-21" })).await;
        assert!(body["errors"].is_null(), "{body}");
        assert_eq!(end_date().await.as_deref(), Some("2026-11-21"));
    }
}
