//! `activities.registerKilometerAtLocation` over the real HTTP API, on both databases: the
//! reading stored, 0 ignored, the start/end order and the vehicle required, the write rules.

use serde_json::json;

use crate::regulation::company;
use crate::support::codes;

const CREATE: &str = "mutation($c: Int!, $v: String) { activities { createMission(companyId: $c, vehicleRegistrationNumber: $v) { id } } }";
const LOCATE: &str = "mutation($m: Int!, $t: LocationEntryTypeEnum!) { activities { logLocation(missionId: $m, type: $t, manualAddress: \"Dépôt, Lyon\") { id } } }";
const REGISTER: &str = "mutation($l: Int!, $k: Int!) { activities { registerKilometerAtLocation(missionLocationId: $l, kilometerReading: $k) { success } } }";
const VALIDATE: &str =
    "mutation($m: Int!, $u: [Int]!) { activities { validateMission(missionId: $m, usersIds: $u) { id } } }";
const LOG: &str = "mutation($m: Int!, $s: TimeStamp!, $e: TimeStamp) { activities { logActivity(missionId: $m, type: \"drive\", startTime: $s, endTime: $e, switch: false) { id } } }";

on_both_backends! {
    async fn a_reading_is_registered_at_a_location(app) {
        let c = company(app).await;
        let body = app.as_user(&c.worker, CREATE, json!({ "c": c.id, "v": "AB-123-CD" })).await;
        let mission = body["data"]["activities"]["createMission"]["id"].as_i64().unwrap();
        let start = app.as_user(&c.worker, LOCATE, json!({ "m": mission, "t": "mission_start_location" })).await["data"]["activities"]["logLocation"]["id"].as_i64().unwrap();
        let end = app.as_user(&c.worker, LOCATE, json!({ "m": mission, "t": "mission_end_location" })).await["data"]["activities"]["logLocation"]["id"].as_i64().unwrap();
        let reading = |id: i64| {
            let pool = app.server.db.pool.clone();
            async move {
                let (km,): (Option<i64>,) = sqlx::query_as("SELECT kilometer_reading FROM location_entries WHERE id = $1")
                    .bind(id)
                    .fetch_one(&pool)
                    .await
                    .unwrap();
                km
            }
        };

        let body = app.as_user(&c.worker, REGISTER, json!({ "l": start, "k": 10_000 })).await;
        assert_eq!(body["data"]["activities"]["registerKilometerAtLocation"]["success"], true, "{body}");
        assert_eq!(reading(start).await, Some(10_000));
        // 0 changes nothing; an end below the start and a negative reading are refused.
        let body = app.as_user(&c.worker, REGISTER, json!({ "l": start, "k": 0 })).await;
        assert!(body["errors"].is_null(), "{body}");
        assert_eq!(reading(start).await, Some(10_000));
        for k in [9_999, -5] {
            let body = app.as_user(&c.worker, REGISTER, json!({ "l": end, "k": k })).await;
            assert_eq!(codes(&body), ["INVALID_INPUTS"], "{body}");
        }
        assert_eq!(reading(end).await, None);
        let body = app.as_user(&c.worker, REGISTER, json!({ "l": end, "k": 10_250 })).await;
        assert!(body["errors"].is_null(), "{body}");
        assert_eq!(reading(end).await, Some(10_250));

        // A mission without vehicle has no reading.
        let body = app.as_user(&c.worker, CREATE, json!({ "c": c.id })).await;
        let bare = body["data"]["activities"]["createMission"]["id"].as_i64().unwrap();
        let bare_start = app.as_user(&c.worker, LOCATE, json!({ "m": bare, "t": "mission_start_location" })).await["data"]["activities"]["logLocation"]["id"].as_i64().unwrap();
        let body = app.as_user(&c.worker, REGISTER, json!({ "l": bare_start, "k": 100 })).await;
        assert_eq!(codes(&body), ["INVALID_INPUTS"]);

        // A stranger, and an unknown location, are refused alike.
        let stranger = app.new_user("stranger@example.com").await;
        let body = app.as_user(&stranger, REGISTER, json!({ "l": start, "k": 10_100 })).await;
        assert_eq!(codes(&body), ["AUTHORIZATION_ERROR"], "{body}");
        let body = app.as_user(&c.worker, REGISTER, json!({ "l": 987_654_321, "k": 1 })).await;
        assert_eq!(codes(&body), ["AUTHORIZATION_ERROR"]);
        assert_eq!(reading(start).await, Some(10_000));

        // Once an admin validated, the worker can no longer change it; the admin still can.
        let now = chrono::Utc::now().timestamp() / 60 * 60;
        let body = app.as_user(&c.worker, LOG, json!({ "m": mission, "s": now - 7200, "e": now - 3600 })).await;
        assert!(body["errors"].is_null(), "{body}");
        let body = app.as_user(&c.worker, VALIDATE, json!({ "m": mission, "u": [c.worker.id] })).await;
        assert!(body["errors"].is_null(), "{body}");
        let body = app.as_user(&c.admin, VALIDATE, json!({ "m": mission, "u": [c.worker.id] })).await;
        assert!(body["errors"].is_null(), "{body}");
        let body = app.as_user(&c.worker, REGISTER, json!({ "l": end, "k": 10_300 })).await;
        assert_eq!(codes(&body), ["INVALID_RESOURCE"], "{body}");
        assert_eq!(body["errors"][0]["extensions"]["reason"], "MISSION_ALREADY_VALIDATED_BY_ADMIN");
        let body = app.as_user(&c.admin, REGISTER, json!({ "l": end, "k": 10_300 })).await;
        assert!(body["errors"].is_null(), "{body}");
        assert_eq!(reading(end).await, Some(10_300));
    }
}
