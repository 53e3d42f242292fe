//! Mission auto-validation, black-box on both databases: the operator's
//! `roadlog missions auto-validate --now …` drives the time. Nothing is due before its delay
//! (one business day on the worker's side, two on the admins'); then the worker's time is
//! validated with no submitter (running activities ended, the worker's regulatory computation
//! made, the worker notified), the admins' wait starts, the worker can no longer change or
//! validate it, and an admin validating again must justify it. Two runs at once validate once.

use serde_json::{Value, json};

use crate::regulation::{company, day, mission};
use crate::support::{TestApp, codes};

const HOUR: i64 = 3600;
const VALIDATE: &str = "mutation($m: Int!, $u: [Int]!, $j: OverValidationJustificationEnum) { activities { validateMission(missionId: $m, usersIds: $u, justification: $j) { id } } }";
const VALIDATIONS: &str =
    "query($m: Int!) { mission(id: $m) { validations { isAdmin isAuto userId submitterId } activities { endTime } } }";
const LOG_OPEN: &str = "mutation($m: Int!, $s: TimeStamp!) { activities { logActivity(missionId: $m, type: \"drive\", startTime: $s) { id } } }";

/// One run of the job as if it were `days_ahead` days from now.
fn auto_validate(app: &TestApp, days_ahead: i64) -> Value {
    let at = chrono::Utc::now() + chrono::Duration::days(days_ahead);
    let at = at.to_rfc3339();
    let output = crate::support::process::command(
        &["missions", "auto-validate", "--now", at.as_str(), "--json"],
        &[("DATABASE_URL", app.database_url.as_str())],
    )
    .output()
    .unwrap();
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    serde_json::from_slice(&output.stdout).unwrap()
}

async fn count(app: &TestApp, sql: &'static str, id: i64) -> i64 {
    let (n,): (i64,) = sqlx::query_as(sql)
        .bind(id)
        .fetch_one(&app.server.db.pool)
        .await
        .unwrap();
    n
}

on_both_backends! {
    async fn unvalidated_time_is_validated_after_its_delays(app) {
        let c = company(app).await;
        let m = mission(app, &c.worker, c.id, &[("work", day(3) + 8 * HOUR, day(3) + 12 * HOUR)]).await;
        assert_eq!(count(app, "SELECT COUNT(*) FROM mission_auto_validations WHERE mission_id = $1 AND is_admin = 0", m).await, 1);

        // Not due yet: recorded now, the wait is one business day.
        let report = auto_validate(app, 0);
        assert_eq!(report, json!({ "workerValidations": 0, "adminValidations": 0, "dropped": 0, "failed": 0 }));

        // Recorded ten days ago: the worker's side is due now (and the admins' wait, starting
        // now, is not), validated automatically and by no one.
        sqlx::query("UPDATE mission_auto_validations SET reception_time = reception_time - 10 * 86400")
            .execute(&app.server.db.pool)
            .await
            .unwrap();
        let report = auto_validate(app, 0);
        assert_eq!(report["workerValidations"], 1, "{report}");
        let body = app.as_user(&c.admin, VALIDATIONS, json!({ "m": m })).await;
        assert_eq!(
            body["data"]["mission"]["validations"],
            json!([{ "isAdmin": false, "isAuto": true, "userId": c.worker.id, "submitterId": null }]),
            "{body}"
        );
        assert!(count(app, "SELECT COUNT(*) FROM regulation_computations WHERE user_id = $1 AND submitter_type = 'employee'", c.worker.id).await > 0);
        let body = app
            .as_user(&c.worker, "query($u: Int!) { user(id: $u) { notifications { type data } } }", json!({ "u": c.worker.id }))
            .await;
        let list = &body["data"]["user"]["notifications"];
        assert_eq!(list[0]["type"], "MISSION_AUTO_VALIDATION", "{body}");
        let data: Value = serde_json::from_str(list[0]["data"].as_str().unwrap()).unwrap();
        assert_eq!(data["mission_id"], m);
        assert_eq!(data["mission_name"], "Tour");
        // The admins' wait has started; the worker can no longer change nor validate.
        assert_eq!(count(app, "SELECT COUNT(*) FROM mission_auto_validations WHERE mission_id = $1 AND is_admin = 1", m).await, 1);
        assert_eq!(count(app, "SELECT COUNT(*) FROM mission_auto_validations WHERE mission_id = $1 AND is_admin = 0", m).await, 0);
        let body = app.as_user(&c.worker, VALIDATE, json!({ "m": m, "u": [c.worker.id] })).await;
        assert_eq!(body["errors"][0]["extensions"]["reason"], "MISSION_ALREADY_AUTO_VALIDATED", "{body}");
        let body = app
            .as_user(&c.worker, LOG_OPEN, json!({ "m": m, "s": day(3) + 13 * HOUR }))
            .await;
        assert_eq!(body["errors"][0]["extensions"]["reason"], "MISSION_ALREADY_AUTO_VALIDATED", "{body}");

        // The admins' side two business days after that (a week ahead here).
        let report = auto_validate(app, 7);
        assert_eq!(report["adminValidations"], 1, "{report}");
        assert_eq!(report["workerValidations"], 0, "{report}");
        assert!(count(app, "SELECT COUNT(*) FROM regulation_computations WHERE user_id = $1 AND submitter_type = 'admin'", c.worker.id).await > 0);
        assert_eq!(count(app, "SELECT COUNT(*) FROM mission_auto_validations WHERE mission_id = $1", m).await, 0);
        // Nothing left: a run again does nothing.
        assert_eq!(auto_validate(app, 30)["adminValidations"], 0);

        // An admin validating after the admins' automatic validation gives a justification.
        let body = app.as_user(&c.admin, VALIDATE, json!({ "m": m, "u": [c.worker.id] })).await;
        assert_eq!(codes(&body), ["INVALID_INPUTS"], "{body}");
        assert_eq!(body["errors"][0]["extensions"]["reason"], "MISSING_JUSTIFICATION_FOR_ADMIN_VALIDATION");
        let body = app.as_user(&c.admin, VALIDATE, json!({ "m": m, "u": [c.worker.id], "j": "personal" })).await;
        assert!(body["errors"].is_null(), "{body}");
    }

    async fn running_time_is_ended_and_two_runs_validate_once(app) {
        let c = company(app).await;
        // The admin records the worker's time: it waits in the admins' queue directly.
        let by_admin = mission(app, &c.admin, c.id, &[]).await;
        let start = day(6) + 8 * HOUR;
        let body = app
            .as_user(&c.admin, "mutation($m: Int!, $s: TimeStamp!, $e: TimeStamp!, $u: Int) { activities { logActivity(missionId: $m, type: \"work\", startTime: $s, endTime: $e, switch: false, userId: $u) { id } } }", json!({ "m": by_admin, "s": start, "e": start + HOUR, "u": c.worker.id }))
            .await;
        assert!(body["errors"].is_null(), "{body}");
        assert_eq!(count(app, "SELECT COUNT(*) FROM mission_auto_validations WHERE mission_id = $1 AND is_admin = 1", by_admin).await, 1);

        // A mission whose only activity was cancelled: nothing to validate, its wait is dropped.
        let emptied = mission(app, &c.worker, c.id, &[("work", day(5) + 8 * HOUR, day(5) + 9 * HOUR)]).await;
        let (activity,): (i64,) = sqlx::query_as("SELECT id FROM activities WHERE mission_id = $1")
            .bind(emptied)
            .fetch_one(&app.server.db.pool)
            .await
            .unwrap();
        let body = app
            .as_user(&c.worker, "mutation($a: Int!) { activities { cancelActivity(activityId: $a) { success } } }", json!({ "a": activity }))
            .await;
        assert!(body["errors"].is_null(), "{body}");

        // A mission still running.
        let running = mission(app, &c.worker, c.id, &[]).await;
        let body = app.as_user(&c.worker, LOG_OPEN, json!({ "m": running, "s": day(1) + 8 * HOUR })).await;
        assert!(body["errors"].is_null(), "{body}");

        // Two runs at once (two instances): each row is validated by one of them.
        let at = (chrono::Utc::now() + chrono::Duration::days(7)).to_rfc3339();
        let args = ["missions", "auto-validate", "--now", at.as_str(), "--json"];
        let env = [("DATABASE_URL", app.database_url.as_str())];
        let start = || {
            crate::support::process::command(&args, &env)
                .stdout(std::process::Stdio::piped())
                .stderr(std::process::Stdio::piped())
                .spawn()
                .unwrap()
        };
        let (first, second) = (start(), start());
        let mut totals = (0, 0);
        let mut dropped = 0;
        for child in [first, second] {
            let output = child.wait_with_output().unwrap();
            assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
            let report: Value = serde_json::from_slice(&output.stdout).unwrap();
            totals.0 += report["workerValidations"].as_i64().unwrap();
            totals.1 += report["adminValidations"].as_i64().unwrap();
            dropped += report["dropped"].as_i64().unwrap();
        }
        // The running mission on both sides (the admins' wait, started by the worker's side, is
        // due a week ahead too), the admin's mission on the admins' side.
        assert_eq!(totals, (1, 2));
        assert_eq!(dropped, 1);
        assert_eq!(count(app, "SELECT COUNT(*) FROM mission_auto_validations WHERE mission_id = $1", emptied).await, 0);
        assert_eq!(count(app, "SELECT COUNT(*) FROM mission_validations WHERE mission_id = $1", emptied).await, 0);
        assert_eq!(count(app, "SELECT COUNT(*) FROM mission_validations WHERE is_auto = 1 AND mission_id = $1", running).await, 2);
        assert_eq!(count(app, "SELECT COUNT(*) FROM mission_validations WHERE is_auto = 1 AND mission_id = $1", by_admin).await, 1);
        // The running activity was ended by the job, and the mission with it.
        let body = app.as_user(&c.worker, VALIDATIONS, json!({ "m": running })).await;
        assert!(body["data"]["mission"]["activities"][0]["endTime"].as_i64().is_some(), "{body}");
        assert_eq!(count(app, "SELECT COUNT(*) FROM mission_ends WHERE mission_id = $1", running).await, 1);
    }
}

for_both_backends! {
    async fn every_server_runs_the_job_on_its_period(backend) {
        let app = TestApp::spawn_with(backend, |s| s.auto_validation_period = 1).await;
        let c = company(&app).await;
        let m = mission(&app, &c.worker, c.id, &[("work", day(3) + 8 * HOUR, day(3) + 12 * HOUR)]).await;
        // The wait was recorded ten days ago (a queue that outlived a restart, say).
        sqlx::query("UPDATE mission_auto_validations SET reception_time = reception_time - 10 * 86400")
            .execute(&app.server.db.pool)
            .await
            .unwrap();
        let sql = "SELECT COUNT(*) FROM mission_validations WHERE is_auto = 1 AND mission_id = $1";
        let mut validated = 0;
        for _ in 0..100 {
            validated = count(&app, sql, m).await;
            if validated > 0 {
                break;
            }
            tokio::time::sleep(std::time::Duration::from_millis(100)).await;
        }
        assert_eq!(validated, 1, "validated by the server's own run within seconds");
        app.cleanup().await;
    }
}
