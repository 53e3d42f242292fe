//! Notifications over the real HTTP API, on both databases: what an admin's `validateMission`
//! writes (NEW_MISSION_BY_ADMIN, MISSION_CHANGES_WARNING, nothing when nothing changed),
//! `User.notifications` (the user himself only) and `account.markNotificationsAsRead`.
//! MISSION_AUTO_VALIDATION is tested with the job, in `auto_validation`.

use serde_json::{Value, json};

use crate::regulation::{company, day, mission, validate};
use crate::support::{TestApp, TestUser, codes};

const HOUR: i64 = 3600;
const READ: &str = "query($u: Int!) { user(id: $u) { notifications { id type read data creationTime } } }";
const MARK: &str = "mutation($n: [Int]!) { account { markNotificationsAsRead(notificationIds: $n) { id type read } } }";
const CREATE: &str = "mutation($c: Int!) { activities { createMission(companyId: $c, name: \"Round\") { id } } }";
const LOG_FOR: &str = "mutation($m: Int!, $s: TimeStamp!, $e: TimeStamp!, $u: Int) { activities { logActivity(missionId: $m, type: \"drive\", startTime: $s, endTime: $e, switch: false, userId: $u) { id } } }";
const VALIDATE_WITH_EDIT: &str = "mutation($m: Int!, $u: [Int]!, $a: Int!, $e: TimeStamp!) { activities { validateMission(missionId: $m, usersIds: $u, activityItems: [{ edit: { activityId: $a, endTime: $e } }]) { id } } }";

async fn notifications(app: &TestApp, user: &TestUser) -> Vec<Value> {
    let body = app.as_user(user, READ, json!({ "u": user.id })).await;
    body["data"]["user"]["notifications"]
        .as_array()
        .unwrap_or_else(|| panic!("{body}"))
        .clone()
}

fn data(n: &Value) -> Value {
    serde_json::from_str(n["data"].as_str().unwrap()).unwrap()
}

/// `HH:MM` local (Paris) of a UTC midnight plus hours, as `mission_start_date` spells it.
fn paris(t: i64) -> String {
    use chrono::TimeZone;
    chrono_tz::Europe::Paris
        .timestamp_opt(t, 0)
        .unwrap()
        .naive_local()
        .format("%Y-%m-%dT%H:%M:%S")
        .to_string()
}

on_both_backends! {
    async fn an_admins_validation_tells_the_worker(app) {
        let c = company(app).await;
        // A mission the admin recorded for the worker, validated by the admin: new to the worker.
        let body = app.as_user(&c.admin, CREATE, json!({ "c": c.id })).await;
        let by_admin = body["data"]["activities"]["createMission"]["id"].as_i64().unwrap();
        let start = day(4) + 7 * HOUR;
        let body = app.as_user(&c.admin, LOG_FOR, json!({ "m": by_admin, "s": start, "e": start + 3 * HOUR, "u": c.worker.id })).await;
        assert!(body["errors"].is_null(), "{body}");
        validate(app, &c.admin, by_admin, &c.worker).await;
        let list = notifications(app, &c.worker).await;
        assert_eq!(list.len(), 1, "{list:?}");
        assert_eq!(list[0]["type"], "NEW_MISSION_BY_ADMIN");
        assert_eq!(list[0]["read"], false);
        assert_eq!(data(&list[0]), json!({ "mission_id": by_admin, "mission_start_date": paris(start) }));
        // Admins are not notified (the admin's own time, validated by himself).
        assert!(notifications(app, &c.admin).await.is_empty());

        // The worker's own mission, validated by him, then by the admin unchanged: nothing.
        let own = mission(app, &c.worker, c.id, &[("work", day(3) + 8 * HOUR, day(3) + 12 * HOUR)]).await;
        validate(app, &c.worker, own, &c.worker).await;
        validate(app, &c.admin, own, &c.worker).await;
        assert_eq!(notifications(app, &c.worker).await.len(), 1);

        // Corrected by the admin as he validates: a warning, dated by the start before.
        let start = day(2) + 8 * HOUR;
        let changed = mission(app, &c.worker, c.id, &[("work", start, start + 4 * HOUR)]).await;
        validate(app, &c.worker, changed, &c.worker).await;
        let (activity,): (i64,) = sqlx::query_as("SELECT id FROM activities WHERE mission_id = $1")
            .bind(changed)
            .fetch_one(&app.server.db.pool)
            .await
            .unwrap();
        // Times are whole seconds: the admin's change comes in a later second than the
        // worker's validation, as it does outside a test.
        tokio::time::sleep(std::time::Duration::from_millis(1100)).await;
        let vars = json!({ "m": changed, "u": [c.worker.id], "a": activity, "e": start + 3 * HOUR });
        let body = app.as_user(&c.admin, VALIDATE_WITH_EDIT, vars).await;
        assert!(body["errors"].is_null(), "{body}");
        let list = notifications(app, &c.worker).await;
        assert_eq!(list.len(), 2, "{list:?}");
        assert_eq!(list[0]["type"], "MISSION_CHANGES_WARNING", "newest first");
        assert_eq!(data(&list[0]), json!({ "mission_id": changed, "mission_start_date": paris(start) }));
        let (stored,): (i64,) = sqlx::query_as("SELECT COUNT(*) FROM notifications WHERE user_id = $1")
            .bind(c.worker.id)
            .fetch_one(&app.server.db.pool)
            .await
            .unwrap();
        assert_eq!(stored, 2);
    }

    async fn notifications_are_the_users_own(app) {
        let c = company(app).await;
        let body = app.as_user(&c.admin, CREATE, json!({ "c": c.id })).await;
        let m = body["data"]["activities"]["createMission"]["id"].as_i64().unwrap();
        let start = day(4) + 7 * HOUR;
        app.as_user(&c.admin, LOG_FOR, json!({ "m": m, "s": start, "e": start + HOUR, "u": c.worker.id })).await;
        validate(app, &c.admin, m, &c.worker).await;
        let id = notifications(app, &c.worker).await[0]["id"].as_i64().unwrap();

        // Nobody else reads or marks them.
        let body = app.as_user(&c.admin, READ, json!({ "u": c.worker.id })).await;
        assert_eq!(codes(&body), ["AUTHORIZATION_ERROR"], "{body}");
        let body = app.as_user(&c.admin, MARK, json!({ "n": [id] })).await;
        assert_eq!(codes(&body), ["AUTHORIZATION_ERROR"], "{body}");
        let body = app.as_user(&c.worker, MARK, json!({ "n": [id, 987_654_321] })).await;
        assert_eq!(codes(&body), ["AUTHORIZATION_ERROR"], "{body}");
        assert_eq!(notifications(app, &c.worker).await[0]["read"], false, "nothing marked");
        let too_many: Vec<i64> = (1..=501).collect();
        let body = app.as_user(&c.worker, MARK, json!({ "n": too_many })).await;
        assert_eq!(codes(&body), ["INVALID_INPUTS"], "{body}");

        let body = app.as_user(&c.worker, MARK, json!({ "n": [id, id] })).await;
        assert_eq!(
            body["data"]["account"]["markNotificationsAsRead"],
            json!([{ "id": id, "type": "NEW_MISSION_BY_ADMIN", "read": true }]),
            "{body}"
        );
        assert_eq!(notifications(app, &c.worker).await[0]["read"], true);
        let body = app.as_user(&c.worker, MARK, json!({ "n": [] })).await;
        assert_eq!(body["data"]["account"]["markNotificationsAsRead"], json!([]), "{body}");
        let (status, body) = app.graphql(MARK, json!({ "n": [id] }), None).await;
        assert_eq!(codes(&body), ["AUTHENTICATION_ERROR"], "{status} {body}");
    }
}
