//! Activity disputes over the real HTTP API, on both databases: `activities.disputeActivity`,
//! `activities.cancelDispute` and `Activity.dispute`, the 15-day windows, who may act, and what
//! is stored.

use serde_json::json;

use crate::regulation::{company, day, mission, validate};
use crate::support::codes;

const HOUR: i64 = 3600;
const DISPUTE: &str =
    "mutation($a: Int!, $t: String!) { activities { disputeActivity(activityId: $a, text: $t) { id dispute } } }";
const CANCEL: &str = "mutation($a: Int!) { activities { cancelDispute(activityId: $a) { id dispute } } }";

on_both_backends! {
    async fn a_worker_disputes_an_activity_an_admin_validated(app) {
        let c = company(app).await;
        let m = mission(app, &c.worker, c.id, &[("drive", day(2) + 8 * HOUR, day(2) + 10 * HOUR)]).await;
        let (activity,): (i64,) = sqlx::query_as("SELECT id FROM activities WHERE mission_id = $1")
            .bind(m)
            .fetch_one(&app.server.db.pool)
            .await
            .unwrap();

        // Not before an admin validated.
        let body = app.as_user(&c.worker, DISPUTE, json!({ "a": activity, "t": "I stopped at 9" })).await;
        assert_eq!(codes(&body), ["INVALID_INPUTS"], "{body}");
        assert_eq!(body["errors"][0]["extensions"]["reason"], "NOT_VALIDATED_BY_ADMIN");
        validate(app, &c.worker, m, &c.worker).await;
        validate(app, &c.admin, m, &c.worker).await;

        // Only the worker, with a text; an unknown activity is refused.
        let body = app.as_user(&c.admin, DISPUTE, json!({ "a": activity, "t": "x" })).await;
        assert_eq!(codes(&body), ["AUTHORIZATION_ERROR"]);
        let body = app.as_user(&c.worker, DISPUTE, json!({ "a": activity, "t": "   " })).await;
        assert_eq!(codes(&body), ["INVALID_INPUTS"]);
        let body = app.as_user(&c.worker, DISPUTE, json!({ "a": 987_654_321, "t": "x" })).await;
        assert_eq!(codes(&body), ["INVALID_INPUTS"]);

        let before = chrono::Utc::now().timestamp();
        let body = app.as_user(&c.worker, DISPUTE, json!({ "a": activity, "t": " I stopped at 9 " })).await;
        assert!(body["errors"].is_null(), "{body}");
        let dispute = &body["data"]["activities"]["disputeActivity"]["dispute"];
        assert_eq!(dispute["text"], "I stopped at 9");
        assert_eq!(dispute["submitter_id"], c.worker.id);
        assert_eq!(dispute["status"], "created");
        assert!(dispute["time"].as_i64().unwrap() >= before);
        // The admin reads it with the mission.
        let body = app
            .as_user(&c.admin, "query($m: Int!) { mission(id: $m) { activities { id dispute } } }", json!({ "m": m }))
            .await;
        assert_eq!(body["data"]["mission"]["activities"][0]["dispute"]["text"], "I stopped at 9", "{body}");
        // One open dispute at a time.
        let body = app.as_user(&c.worker, DISPUTE, json!({ "a": activity, "t": "again" })).await;
        assert_eq!(body["errors"][0]["extensions"]["reason"], "ALREADY_DISPUTED");

        // Only its author cancels it; then it is closed, and can be opened again.
        let body = app.as_user(&c.admin, CANCEL, json!({ "a": activity })).await;
        assert_eq!(codes(&body), ["AUTHORIZATION_ERROR"]);
        let body = app.as_user(&c.worker, CANCEL, json!({ "a": activity })).await;
        let cancelled = &body["data"]["activities"]["cancelDispute"]["dispute"];
        assert_eq!(cancelled["status"], "cancelled", "{body}");
        assert_eq!(cancelled["text"], "I stopped at 9");
        assert!(cancelled["cancelled_at"].as_i64().is_some());
        let body = app.as_user(&c.worker, CANCEL, json!({ "a": activity })).await;
        assert_eq!(body["errors"][0]["extensions"]["reason"], "NO_OPEN_DISPUTE");
        let body = app.as_user(&c.worker, DISPUTE, json!({ "a": activity, "t": "second thoughts" })).await;
        assert_eq!(body["data"]["activities"]["disputeActivity"]["dispute"]["status"], "created", "{body}");

        // Fifteen days after its opening it can no longer be cancelled; fifteen days after the
        // admin validation no dispute can be opened.
        let old = json!({ "text": "old", "submitter_id": c.worker.id, "time": before - 15 * 86_400, "status": "created" });
        sqlx::query("UPDATE activities SET dispute = $2 WHERE id = $1")
            .bind(activity)
            .bind(old.to_string())
            .execute(&app.server.db.pool)
            .await
            .unwrap();
        let body = app.as_user(&c.worker, CANCEL, json!({ "a": activity })).await;
        assert_eq!(body["errors"][0]["extensions"]["reason"], "DISPUTE_PERIOD_EXPIRED", "{body}");
        sqlx::query("UPDATE activities SET dispute = NULL WHERE id = $1")
            .bind(activity)
            .execute(&app.server.db.pool)
            .await
            .unwrap();
        sqlx::query("UPDATE mission_validations SET reception_time = reception_time - 15 * 86400 WHERE mission_id = $1")
            .bind(m)
            .execute(&app.server.db.pool)
            .await
            .unwrap();
        let body = app.as_user(&c.worker, DISPUTE, json!({ "a": activity, "t": "late" })).await;
        assert_eq!(body["errors"][0]["extensions"]["reason"], "DISPUTE_PERIOD_EXPIRED", "{body}");
        let (stored,): (Option<String>,) = sqlx::query_as("SELECT dispute FROM activities WHERE id = $1")
            .bind(activity)
            .fetch_one(&app.server.db.pool)
            .await
            .unwrap();
        assert_eq!(stored, None::<String>);
    }
}
