//! Regulatory alerts over the real HTTP API, on both databases: computed when a mission is
//! validated (the worker's and the admins' computations stored apart), when an admin cancels a
//! mission, and by the operator's rebuild (idempotent).

use serde_json::{Value, json};

use crate::support::{TestApp, TestUser};

const HOUR: i64 = 3600;
const CREATE: &str = "mutation($c: Int!) { activities { createMission(companyId: $c, name: \"Tour\") { id } } }";
const LOG: &str = "mutation($m: Int!, $t: ActivityTypeEnum!, $s: TimeStamp!, $e: TimeStamp, $u: Int) { activities { logActivity(missionId: $m, type: $t, startTime: $s, endTime: $e, switch: false, userId: $u) { id } } }";
const VALIDATE: &str =
    "mutation($m: Int!, $u: [Int]!) { activities { validateMission(missionId: $m, usersIds: $u) { id } } }";
const CANCEL: &str = "mutation($m: Int!, $u: Int!) { activities { cancelMission(missionId: $m, userId: $u) { id } } }";

// `day(n)` is UTC midnight n days ago (Paris is 1 or 2 hours ahead: the same local date by
// day); `date(t)` its `YYYY-MM-DD`.
pub use crate::export::{date, day};

pub struct Company {
    pub admin: TestUser,
    pub worker: TestUser,
    pub id: i64,
}

/// A company with an admin and a worker employed since 2020.
pub async fn company(app: &TestApp) -> Company {
    let admin = app.new_user("admin@example.com").await;
    let worker = app.new_user("worker@example.com").await;
    let id = app.new_company(&admin, "Transports Martin").await;
    app.hire(&admin, id, &worker).await;
    sqlx::query("UPDATE employments SET start_date = '2020-01-01'")
        .execute(&app.server.db.pool)
        .await
        .unwrap();
    Company { admin, worker, id }
}

/// A mission of `user` with these activities (UTC seconds).
pub async fn mission(app: &TestApp, user: &TestUser, company: i64, activities: &[(&str, i64, i64)]) -> i64 {
    let body = app.as_user(user, CREATE, json!({ "c": company })).await;
    let mission = body["data"]["activities"]["createMission"]["id"].as_i64().unwrap();
    for (kind, start, end) in activities {
        let body = app
            .as_user(user, LOG, json!({ "m": mission, "t": kind, "s": start, "e": end }))
            .await;
        assert!(body["errors"].is_null(), "{body}");
    }
    mission
}

pub async fn validate(app: &TestApp, by: &TestUser, mission: i64, worker: &TestUser) {
    let body = app
        .as_user(by, VALIDATE, json!({ "m": mission, "u": [worker.id] }))
        .await;
    assert!(body["errors"].is_null(), "{body}");
}

/// The stored alerts of a worker: (submitter type, day, check type, extra), sorted.
pub async fn stored_alerts(app: &TestApp, user: i64) -> Vec<(String, String, String, String)> {
    sqlx::query_as(
        "SELECT submitter_type, day, check_type, extra FROM regulatory_alerts WHERE user_id = $1
         ORDER BY submitter_type, day, check_type",
    )
    .bind(user)
    .fetch_all(&app.server.db.pool)
    .await
    .unwrap()
}

/// The computed days of a worker: (submitter type, day, creation time), sorted.
pub async fn computed(app: &TestApp, user: i64) -> Vec<(String, String, i64)> {
    sqlx::query_as(
        "SELECT submitter_type, day, creation_time FROM regulation_computations WHERE user_id = $1
         ORDER BY submitter_type, day",
    )
    .bind(user)
    .fetch_all(&app.server.db.pool)
    .await
    .unwrap()
}

fn checks_of(alerts: &[(String, String, String, String)], submitter: &str) -> Vec<(String, String)> {
    alerts
        .iter()
        .filter(|a| a.0 == submitter)
        .map(|a| (a.1.clone(), a.2.clone()))
        .collect()
}

fn monday(t: i64) -> String {
    use chrono::Datelike;
    let d = chrono::DateTime::from_timestamp(t, 0).unwrap().date_naive();
    (d - chrono::Duration::days(i64::from(d.weekday().num_days_from_monday()))).to_string()
}

on_both_backends! {
    async fn validations_compute_the_workers_and_the_admins_alerts(app) {
        let c = company(app).await;
        let d = day(8);
        // 13 h of driving without a break.
        let long = mission(app, &c.worker, c.id, &[("drive", d + 5 * HOUR, d + 18 * HOUR)]).await;
        assert!(computed(app, c.worker.id).await.is_empty());

        validate(app, &c.worker, long, &c.worker).await;
        let alerts = stored_alerts(app, c.worker.id).await;
        assert_eq!(
            checks_of(&alerts, "employee"),
            [(date(d), "enoughBreak".to_string()), (date(d), "maximumWorkDayTime".to_string())]
        );
        assert!(checks_of(&alerts, "admin").is_empty());
        let work_day = alerts.iter().find(|a| a.2 == "maximumWorkDayTime").unwrap();
        assert!(work_day.3.starts_with(r#"{"night_work": false, "sanction_code": "NATINF 11292""#), "{}", work_day.3);
        assert!(work_day.3.contains(r#""work_range_in_seconds": 46800.0"#));
        // The day itself and the Monday of its week are computed; the day before had no work.
        let days: Vec<String> = computed(app, c.worker.id).await.into_iter().map(|r| r.1).collect();
        let mut expected = vec![date(d), monday(d)];
        expected.sort();
        expected.dedup();
        assert_eq!(days, expected);

        // The admin's validation computes the admin side, stored apart.
        validate(app, &c.admin, long, &c.worker).await;
        let alerts = stored_alerts(app, c.worker.id).await;
        assert_eq!(checks_of(&alerts, "admin"), checks_of(&alerts, "employee"));
        let rows = computed(app, c.worker.id).await;
        assert_eq!(rows.iter().filter(|r| r.0 == "admin").count(), rows.iter().filter(|r| r.0 == "employee").count());
        let stored: Vec<(i64,)> = sqlx::query_as("SELECT business_id FROM regulatory_alerts WHERE user_id = $1")
            .bind(c.worker.id)
            .fetch_all(&app.server.db.pool)
            .await
            .unwrap();
        assert!(stored.iter().all(|(b,)| *b == 3), "SHIPPING when no business is set");
    }

    async fn an_admins_cancellation_recomputes_the_admin_side(app) {
        let c = company(app).await;
        let d = day(9);
        let long = mission(app, &c.worker, c.id, &[("drive", d + 5 * HOUR, d + 18 * HOUR)]).await;
        validate(app, &c.worker, long, &c.worker).await;
        assert!(computed(app, c.worker.id).await.iter().all(|r| r.0 == "employee"));

        let body = app.as_user(&c.admin, CANCEL, json!({ "m": long, "u": c.worker.id })).await;
        assert!(body["errors"].is_null(), "{body}");
        let rows = computed(app, c.worker.id).await;
        assert!(rows.iter().any(|r| r.0 == "admin" && r.1 == date(d)), "{rows:?}");
        // The admin side has no alert (nothing admin-validated); the worker's stays as computed.
        let alerts = stored_alerts(app, c.worker.id).await;
        assert!(checks_of(&alerts, "admin").is_empty());
        assert_eq!(checks_of(&alerts, "employee").len(), 2);
    }

    async fn the_operator_rebuild_is_idempotent(app) {
        let c = company(app).await;
        let d = day(10);
        let first = mission(app, &c.worker, c.id, &[("work", d + 5 * HOUR, d + 12 * HOUR)]).await;
        let second = mission(app, &c.worker, c.id, &[("drive", d + 14 * HOUR, d + 22 * HOUR)]).await;
        for m in [first, second] {
            validate(app, &c.worker, m, &c.worker).await;
            validate(app, &c.admin, m, &c.worker).await;
        }
        let before_alerts = stored_alerts(app, c.worker.id).await;
        let before_days = computed(app, c.worker.id).await;
        assert!(!before_alerts.is_empty());
        // Alerts lost or stale (here: deleted by hand) come back, the same, from a rebuild.
        sqlx::query("DELETE FROM regulatory_alerts").execute(&app.server.db.pool).await.unwrap();
        let from = date(d - 2 * 86_400);
        let to = date(d + 86_400);
        let company = c.id.to_string();
        let args = ["regulation", "rebuild", "--company", company.as_str(), "--from", from.as_str(), "--to", to.as_str(), "--json"];
        let env = [("DATABASE_URL", app.database_url.as_str())];
        let mut rows_of_first_rebuild: Option<Vec<(i64, Option<String>)>> = None;
        for _ in 0..2 {
            let output = crate::support::process::command(&args, &env).output().unwrap();
            assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
            let report: Value = serde_json::from_slice(&output.stdout).unwrap();
            assert_eq!(report["workers"], 2, "the admin and the worker");
            assert_eq!(stored_alerts(app, c.worker.id).await, before_alerts);
            // Every alert has its digest, and a rebuild of unchanged data keeps the rows (their
            // ids): it compares digests and writes nothing.
            let rows: Vec<(i64, Option<String>)> = sqlx::query_as("SELECT id, digest FROM regulatory_alerts ORDER BY id")
                .fetch_all(&app.server.db.pool)
                .await
                .unwrap();
            assert!(rows.iter().all(|(_, digest)| digest.as_ref().is_some_and(|d| d.len() == 32)), "{rows:?}");
            match &rows_of_first_rebuild {
                None => rows_of_first_rebuild = Some(rows),
                Some(first) => assert_eq!(&rows, first),
            }
            let after_days = computed(app, c.worker.id).await;
            // Days computed before keep their first creation time.
            for row in &before_days {
                assert!(after_days.contains(row), "{row:?} kept in {after_days:?}");
            }
        }
        let output = crate::support::process::command(
            &["regulation", "rebuild", "--company", "999999", "--from", from.as_str(), "--to", to.as_str()],
            &env,
        )
        .output()
        .unwrap();
        assert!(!output.status.success());
        assert!(String::from_utf8_lossy(&output.stderr).contains("no company 999999"));
        let output = crate::support::process::command(
            &["regulation", "rebuild", "--company", company.as_str(), "--from", to.as_str(), "--to", from.as_str()],
            &env,
        )
        .output()
        .unwrap();
        assert!(!output.status.success());
    }
}
