//! Deleted missions over the real HTTP API, on both databases: `Company.missionsDeleted`,
//! `User.missions(includeDeletedMissions)`, `Mission.deletedAt`, `deletedBy` and `isHoliday`,
//! with their permissions.

use serde_json::{Value, json};

use crate::regulation::{company, day, mission};
use crate::support::{TestApp, codes};

const HOUR: i64 = 3600;
const DELETED: &str = "query($c: Int!, $n: Int, $a: String) { company(id: $c) { missionsDeleted(first: $n, after: $a) { edges { node { id deletedAt deletedBy isHoliday } } pageInfo { hasNextPage endCursor } } } }";
const MINE: &str = "query($u: Int!, $d: Boolean) { user(id: $u) { missions(includeDeletedMissions: $d) { edges { node { id deletedAt deletedBy isHoliday } } } } }";

async fn cancel_all(app: &TestApp, by: &crate::support::TestUser, mission: i64) {
    let rows: Vec<(i64,)> = sqlx::query_as("SELECT id FROM activities WHERE mission_id = $1 ORDER BY id")
        .bind(mission)
        .fetch_all(&app.server.db.pool)
        .await
        .unwrap();
    for (id,) in rows {
        let body = app
            .as_user(
                by,
                "mutation($a: Int!) { activities { cancelActivity(activityId: $a) { success } } }",
                json!({ "a": id }),
            )
            .await;
        assert!(body["errors"].is_null(), "{body}");
    }
}

fn ids(connection: &Value) -> Vec<i64> {
    connection["edges"]
        .as_array()
        .unwrap_or_else(|| panic!("{connection}"))
        .iter()
        .map(|e| e["node"]["id"].as_i64().unwrap())
        .collect()
}

on_both_backends! {
    async fn deleted_missions_are_listed_apart(app) {
        let c = company(app).await;
        let kept = mission(app, &c.worker, c.id, &[("drive", day(3) + 8 * HOUR, day(3) + 9 * HOUR)]).await;
        let first = mission(app, &c.worker, c.id, &[("work", day(2) + 8 * HOUR, day(2) + 9 * HOUR), ("drive", day(2) + 9 * HOUR, day(2) + 10 * HOUR)]).await;
        let second = mission(app, &c.worker, c.id, &[("work", day(1) + 8 * HOUR, day(1) + 9 * HOUR)]).await;
        sqlx::query("UPDATE users SET first_name = 'jEAN-paul', last_name = 'DUPONT' WHERE id = $1")
            .bind(c.worker.id)
            .execute(&app.server.db.pool)
            .await
            .unwrap();
        cancel_all(app, &c.worker, first).await;
        cancel_all(app, &c.worker, second).await;
        sqlx::query("UPDATE missions SET creation_time = creation_time - 100 WHERE id = $1")
            .bind(first)
            .execute(&app.server.db.pool)
            .await
            .unwrap();

        let body = app.as_user(&c.admin, DELETED, json!({ "c": c.id })).await;
        assert!(body["errors"].is_null(), "{body}");
        let deleted = &body["data"]["company"]["missionsDeleted"];
        assert_eq!(ids(deleted), [second, first]);
        let node = &deleted["edges"][0]["node"];
        assert_eq!(node["deletedBy"], "Jean-Paul Dupont");
        assert_eq!(node["isHoliday"], false);
        let (last,): (i64,) = sqlx::query_as("SELECT MAX(dismissed_at) FROM activities WHERE mission_id = $1")
            .bind(second)
            .fetch_one(&app.server.db.pool)
            .await
            .unwrap();
        assert_eq!(node["deletedAt"], last);

        // Page by page.
        let body = app.as_user(&c.admin, DELETED, json!({ "c": c.id, "n": 1 })).await;
        let page = &body["data"]["company"]["missionsDeleted"];
        assert_eq!(ids(page), [second]);
        assert_eq!(page["pageInfo"]["hasNextPage"], true);
        let body = app.as_user(&c.admin, DELETED, json!({ "c": c.id, "n": 1, "a": page["pageInfo"]["endCursor"] })).await;
        assert_eq!(ids(&body["data"]["company"]["missionsDeleted"]), [first]);

        // The worker's own list leaves them out unless asked.
        let body = app.as_user(&c.worker, MINE, json!({ "u": c.worker.id })).await;
        assert_eq!(ids(&body["data"]["user"]["missions"]), [kept]);
        let body = app.as_user(&c.worker, MINE, json!({ "u": c.worker.id, "d": true })).await;
        let all = &body["data"]["user"]["missions"];
        assert_eq!(ids(all), [second, first, kept], "{body}");
        assert_eq!(all["edges"][2]["node"]["deletedBy"], Value::Null);
        assert_eq!(all["edges"][2]["node"]["deletedAt"], Value::Null);

        // Company admins only.
        let body = app.as_user(&c.worker, DELETED, json!({ "c": c.id })).await;
        assert_eq!(codes(&body), ["AUTHORIZATION_ERROR"], "{body}");
        assert_eq!(body["data"]["company"]["missionsDeleted"], Value::Null);
        let body = app.as_user(&c.admin, DELETED, json!({ "c": c.id, "a": "garbage" })).await;
        assert_eq!(codes(&body), ["INVALID_INPUTS"]);
    }
}
