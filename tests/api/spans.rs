//! The stored mission spans (first start to last end of each worker's activities in a mission,
//! and of each mission) always equal what the activities say, after every kind of write: they
//! are what the missions pages and the interleaving rule read.

use serde_json::json;

use crate::support::{TestApp, TestUser};

const CREATE: &str = "mutation($c: Int!) { activities { createMission(companyId: $c) { id } } }";
const LOG: &str = "mutation($m: Int!, $s: TimeStamp!, $e: TimeStamp, $sw: Boolean) { activities { logActivity(missionId: $m, type: \"drive\", startTime: $s, endTime: $e, switch: $sw) { id } } }";
const EDIT: &str = "mutation($a: Int!, $s: TimeStamp, $e: TimeStamp) { activities { editActivity(activityId: $a, startTime: $s, endTime: $e) { id } } }";
const CANCEL: &str = "mutation($a: Int!) { activities { cancelActivity(activityId: $a) { success } } }";
const END: &str = "mutation($m: Int!, $e: TimeStamp!) { activities { endMission(missionId: $m, endTime: $e) { id } } }";
const OPEN: i64 = i64::MAX;

async fn call(app: &TestApp, user: &TestUser, query: &str, variables: serde_json::Value) -> serde_json::Value {
    let body = app.as_user(user, query, variables).await;
    assert!(body.get("errors").is_none(), "{body}");
    body
}

async fn activity(app: &TestApp, user: &TestUser, mission: i64, start: i64, end: Option<i64>) -> i64 {
    let body = call(
        app,
        user,
        LOG,
        json!({ "m": mission, "s": start, "e": end, "sw": end.is_none() }),
    )
    .await;
    body["data"]["activities"]["logActivity"]["id"].as_i64().unwrap()
}

/// The stored spans, and the spans recomputed from the activities, of one mission.
async fn spans(
    app: &TestApp,
    mission: i64,
) -> (Vec<(i64, i64, i64)>, Vec<(i64, i64, i64)>, (Option<i64>, Option<i64>)) {
    let pool = &app.server.db.pool;
    let stored = sqlx::query_as(
        "SELECT user_id, start_time, end_time FROM mission_spans WHERE mission_id = $1 ORDER BY user_id",
    )
    .bind(mission)
    .fetch_all(pool)
    .await
    .unwrap();
    let computed = sqlx::query_as(
        "SELECT user_id, MIN(start_time), MAX(COALESCE(end_time, $2)) FROM activities
         WHERE mission_id = $1 AND dismissed_at IS NULL GROUP BY user_id ORDER BY user_id",
    )
    .bind(mission)
    .bind(OPEN)
    .fetch_all(pool)
    .await
    .unwrap();
    let whole = sqlx::query_as("SELECT start_time, end_time FROM missions WHERE id = $1")
        .bind(mission)
        .fetch_one(pool)
        .await
        .unwrap();
    (stored, computed, whole)
}

async fn assert_consistent(app: &TestApp, mission: i64, expected: Option<(i64, i64)>) {
    let (stored, computed, whole) = spans(app, mission).await;
    assert_eq!(stored, computed, "stored spans of mission {mission}");
    assert_eq!(
        whole,
        (expected.map(|e| e.0), expected.map(|e| e.1)),
        "span of mission {mission}"
    );
}

on_both_backends! {
async fn spans_follow_every_write(app) {
    let admin = app.new_user("admin@example.com").await;
    let worker = app.new_user("driver@example.com").await;
    let company = app.new_company(&admin, "Transports Martin").await;
    app.hire(&admin, company, &worker).await;
    sqlx::query("UPDATE employments SET start_date = '2020-01-01'").execute(&app.server.db.pool).await.unwrap();
    let day = (chrono::Utc::now().timestamp() / 86_400 - 3) * 86_400;
    let h = |n: i64| day + n * 3600;

    let first = call(app, &worker, CREATE, json!({ "c": company })).await["data"]["activities"]["createMission"]["id"].as_i64().unwrap();
    assert_consistent(app, first, None).await;

    // Logged, then switched: open until the next activity closes it.
    let a = activity(app, &worker, first, h(6), Some(h(8))).await;
    assert_consistent(app, first, Some((h(6), h(8)))).await;
    let b = activity(app, &worker, first, h(8), None).await;
    assert_consistent(app, first, Some((h(6), OPEN))).await;
    call(app, &worker, END, json!({ "m": first, "e": h(10) })).await;
    assert_consistent(app, first, Some((h(6), h(10)))).await;

    // Edited at both ends, then partly cancelled.
    call(app, &worker, EDIT, json!({ "a": a, "s": h(5) })).await;
    assert_consistent(app, first, Some((h(5), h(10)))).await;
    call(app, &worker, CANCEL, json!({ "a": b })).await;
    assert_consistent(app, first, Some((h(5), h(8)))).await;

    // A second mission later the same day, and one whose every activity is cancelled.
    let second = call(app, &worker, CREATE, json!({ "c": company })).await["data"]["activities"]["createMission"]["id"].as_i64().unwrap();
    activity(app, &worker, second, h(12), Some(h(14))).await;
    assert_consistent(app, second, Some((h(12), h(14)))).await;
    let third = call(app, &worker, CREATE, json!({ "c": company })).await["data"]["activities"]["createMission"]["id"].as_i64().unwrap();
    let c = activity(app, &worker, third, h(15), Some(h(16))).await;
    call(app, &worker, CANCEL, json!({ "a": c })).await;
    assert_consistent(app, third, None).await;

    // A write that would interleave two missions is refused and leaves the spans as they were.
    let refused = app.as_user(&worker, LOG, json!({ "m": first, "s": h(13), "e": h(13) + 600, "sw": false })).await;
    assert!(refused.get("errors").is_some(), "{refused}");
    assert_consistent(app, first, Some((h(5), h(8)))).await;

    // The worker's missions page reads the spans: newest first, the cancelled one absent.
    let page = call(app, &worker, "{ me { missions { edges { node { id } } } } }", json!({})).await;
    let ids: Vec<i64> = page["data"]["me"]["missions"]["edges"].as_array().unwrap().iter().map(|e| e["node"]["id"].as_i64().unwrap()).collect();
    assert_eq!(ids, vec![second, first]);
}
}

const LOG_FOR: &str = "mutation($m: Int!, $u: Int!, $s: TimeStamp!, $e: TimeStamp) { activities { logActivity(missionId: $m, userId: $u, type: \"work\", startTime: $s, endTime: $e, switch: false) { id } } }";

on_both_backends! {
async fn spans_widen_whatever_the_order_of_logging(app) {
    // A logged activity widens the stored spans instead of recomputing them from the mission's
    // activities: earlier, later and inner activities, two workers, and a refused write. The
    // admin created the mission and logs for both workers.
    let admin = app.new_user("admin@example.com").await;
    let worker = app.new_user("driver@example.com").await;
    let mate = app.new_user("mate@example.com").await;
    let company = app.new_company(&admin, "Transports Martin").await;
    app.hire(&admin, company, &worker).await;
    app.hire(&admin, company, &mate).await;
    sqlx::query("UPDATE employments SET start_date = '2020-01-01'").execute(&app.server.db.pool).await.unwrap();
    let day = (chrono::Utc::now().timestamp() / 86_400 - 3) * 86_400;
    let h = |n: i64| day + n * 3600;
    let m = call(app, &admin, CREATE, json!({ "c": company })).await["data"]["activities"]["createMission"]["id"].as_i64().unwrap();
    let log = |user: i64, start: i64, end: Option<i64>| {
        app.as_user(&admin, LOG_FOR, json!({ "m": m, "u": user, "s": start, "e": end }))
    };

    for ((start, end), span) in [
        ((h(10), h(11)), (h(10), h(11))),
        // Earlier, then inside, then later.
        ((h(7), h(8)), (h(7), h(11))),
        ((h(9), h(10)), (h(7), h(11))),
        ((h(12), h(13)), (h(7), h(13))),
    ] {
        let body = log(worker.id, start, Some(end)).await;
        assert!(body.get("errors").is_none(), "{body}");
        assert_consistent(app, m, Some(span)).await;
    }
    // A second worker, before and after the first: the mission's span takes in both workers'.
    for (start, end) in [(h(6), h(7)), (h(13), h(14))] {
        let body = log(mate.id, start, Some(end)).await;
        assert!(body.get("errors").is_none(), "{body}");
    }
    assert_consistent(app, m, Some((h(6), h(14)))).await;

    // An open activity ends the spans at OPEN; a refused one (overlapping) changes nothing.
    let body = log(worker.id, h(13), None).await;
    assert!(body.get("errors").is_none(), "{body}");
    assert_consistent(app, m, Some((h(6), OPEN))).await;
    // A switch inside the running mission (the worker's own, in switch mode) leaves both spans
    // as they were: the running activity is closed where the new one opens.
    activity(app, &worker, m, h(15), None).await;
    assert_consistent(app, m, Some((h(6), OPEN))).await;
    let running: Vec<(i64, Option<i64>)> = sqlx::query_as(
        "SELECT start_time, end_time FROM activities WHERE user_id = $1 AND start_time >= $2 ORDER BY start_time",
    )
    .bind(worker.id)
    .bind(h(13))
    .fetch_all(&app.server.db.pool)
    .await
    .unwrap();
    assert_eq!(running, vec![(h(13), Some(h(15))), (h(15), None)]);
    let refused = log(mate.id, h(2), Some(h(7))).await;
    assert_eq!(refused["errors"][0]["extensions"]["code"], "OVERLAPPING_ACTIVITIES", "{refused}");
    assert_consistent(app, m, Some((h(6), OPEN))).await;
    let (stored, _, _) = spans(app, m).await;
    // User ids are not in creation order: the stored rows come sorted by id.
    let mut expected = vec![(worker.id, h(7), OPEN), (mate.id, h(6), h(14))];
    expected.sort_unstable();
    assert_eq!(stored, expected);
}
}
