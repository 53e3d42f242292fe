//! The recording rules: the switch mode, no overlapping activities wherever they sit in the
//! history, no interleaved missions, and a refused write that changes nothing.

use super::*;

on_both_backends! {
    async fn switch_mode_rules(app) {
        let Crew { worker, company, .. } = crew(app).await;
        let day = base_day();
        let m = mission(app, &worker, company, "M").await;
        let first = log(app, &worker, m, "drive", day + 8 * HOUR + 42, None).await;
        assert_eq!(first["data"]["activities"]["logActivity"]["startTime"], day + 8 * HOUR, "seconds are dropped");
        // The same type again changes nothing and returns the running activity.
        let again = log(app, &worker, m, "drive", day + 9 * HOUR, None).await;
        assert_eq!(activity_id(&again), activity_id(&first));
        // An end time is not allowed in switch mode.
        let body = app.as_user(&worker, LOG, json!({ "m": m, "t": "work", "s": day + 9 * HOUR, "e": day + 10 * HOUR })).await;
        assert_eq!(codes(&body), ["INVALID_INPUTS"]);
        assert_eq!(body["errors"][0]["message"], "Specifying an end time is not authorized in switch mode");
        // Switching into an activity that has an end is refused.
        let past = log(app, &worker, m, "work", day + 2 * HOUR, Some(day + 3 * HOUR)).await;
        assert!(past["errors"].is_null(), "{past}");
        let body = log(app, &worker, m, "drive", day + 2 * HOUR + 30 * 60, None).await;
        assert_eq!(codes(&body), ["INVALID_ACTIVITY_SWITCH"]);
        // Times in the future and empty durations.
        let now = chrono::Utc::now().timestamp();
        let body = log(app, &worker, m, "work", now + 3600, None).await;
        assert_eq!(codes(&body), ["INVALID_INPUTS"]);
        assert_eq!(body["errors"][0]["extensions"]["reason"], "ACTIVITY_TIME_IN_FUTURE");
        let body = log(app, &worker, m, "work", day + 4 * HOUR, Some(day + 4 * HOUR)).await;
        assert_eq!(codes(&body), ["INVALID_INPUTS"]);
        // Partial result: the failed field is null, the rest answered.
        let body = app
            .as_user(&worker, "mutation($m: Int!, $s: TimeStamp!) { activities { a: logActivity(missionId: $m, type: \"work\", startTime: $s, endTime: 0, switch: false) { id } } } ", json!({ "m": m, "s": day }))
            .await;
        assert_eq!(body["data"]["activities"]["a"], Value::Null);
        assert_eq!(codes(&body), ["INVALID_INPUTS"]);
        let body = app
            .as_user(&worker, "query($m: Int!) { me { id } mission(id: 999999) { id } other: mission(id: $m) { id } }", json!({ "m": m }))
            .await;
        assert_eq!(body["data"], json!({ "me": { "id": worker.id }, "mission": null, "other": { "id": m } }));
        assert_eq!(body["errors"][0]["path"], json!(["mission"]));
        assert_eq!(codes(&body), ["AUTHORIZATION_ERROR"]);
    }

    async fn activities_never_overlap(app) {
        let Crew { worker, company, .. } = crew(app).await;
        let day = base_day();
        let a = mission(app, &worker, company, "A").await;
        let b = mission(app, &worker, company, "B").await;
        let first = log(app, &worker, a, "drive", day + 6 * HOUR, Some(day + 8 * HOUR)).await;
        let first = activity_id(&first);
        let body = log(app, &worker, a, "work", day + 7 * HOUR, Some(day + 9 * HOUR)).await;
        assert_eq!(codes(&body), ["OVERLAPPING_ACTIVITIES"]);
        assert_eq!(body["errors"][0]["extensions"]["conflictingActivity"]["id"], first);
        // Across missions too.
        let body = log(app, &worker, b, "work", day + 7 * HOUR + 59 * 60, Some(day + 9 * HOUR)).await;
        assert_eq!(codes(&body), ["OVERLAPPING_ACTIVITIES"]);
        // Touching is fine.
        let body = log(app, &worker, a, "work", day + 8 * HOUR, Some(day + 9 * HOUR)).await;
        assert!(body["errors"].is_null(), "{body}");
        // An edit that would overlap is refused and changes nothing.
        let body = app.as_user(&worker, EDIT, json!({ "a": first, "e": day + 8 * HOUR + 30 * 60 })).await;
        assert_eq!(codes(&body), ["OVERLAPPING_ACTIVITIES"]);
        let (end,): (Option<i64>,) = sqlx::query_as("SELECT end_time FROM activities WHERE id = $1").bind(first).fetch_one(&app.server.db.pool).await.unwrap();
        assert_eq!(end, Some(day + 8 * HOUR));
    }

    async fn a_logged_activity_is_stored_with_its_first_version(app) {
        // The activity and its first version are one statement on PostgreSQL, two on SQLite:
        // both store the same.
        let Crew { worker, company, .. } = crew(app).await;
        let day = base_day();
        let m = mission(app, &worker, company, "A").await;
        let created = day + 6 * HOUR + 30;
        let body = app
            .as_user(
                &worker,
                "mutation($m: Int!, $s: TimeStamp!, $e: TimeStamp, $c: TimeStamp) { activities { logActivity(missionId: $m, type: \"drive\", \
                 startTime: $s, endTime: $e, switch: false, creationTime: $c, context: { device: \"phone\", offline: true }) { id receptionTime \
                 versions { startTime endTime context submitterId receptionTime } } } }",
                json!({ "m": m, "s": day + 6 * HOUR, "e": day + 7 * HOUR, "c": created }),
            )
            .await;
        let logged = &body["data"]["activities"]["logActivity"];
        assert!(body["errors"].is_null(), "{body}");
        // Received with the activity (SQLite reads the clock again for the version: the same
        // second, or the next one).
        let mut versions = logged["versions"].clone();
        let received = versions[0]["receptionTime"].take().as_i64().unwrap() - logged["receptionTime"].as_i64().unwrap();
        assert!((0..=1).contains(&received), "{body}");
        assert_eq!(
            versions,
            json!([{
                "startTime": day + 6 * HOUR, "endTime": day + 7 * HOUR, "context": { "device": "phone", "offline": true },
                "submitterId": worker.id, "receptionTime": null,
            }])
        );
        let stored: (i64, i64, i64) = sqlx::query_as(
            "SELECT COUNT(*), MIN(version_number), MIN(creation_time) FROM activity_versions WHERE activity_id = $1",
        )
        .bind(logged["id"].as_i64().unwrap())
        .fetch_one(&app.server.db.pool)
        .await
        .unwrap();
        assert_eq!(stored, (1, 1, created));
    }

    async fn overlaps_are_found_wherever_they_sit_in_the_history(app) {
        // The search starts at the latest activity beginning before the new one: every
        // position of the conflicting activity in the worker's history must still be found.
        let Crew { worker, company, .. } = crew(app).await;
        let day = base_day();
        let at = |h: i64, m: i64| day + h * HOUR + m * 60;
        let a = mission(app, &worker, company, "A").await;
        let b = mission(app, &worker, company, "B").await;
        let first = activity_id(&log(app, &worker, a, "drive", at(6, 0), Some(at(7, 0))).await);
        let second = activity_id(&log(app, &worker, a, "work", at(8, 0), Some(at(9, 0))).await);
        let third = activity_id(&log(app, &worker, a, "drive", at(10, 0), Some(at(11, 0))).await);
        let conflict = |body: &Value| body["errors"][0]["extensions"]["conflictingActivity"]["id"].clone();
        // Inside an activity that is not the latest one.
        let body = log(app, &worker, a, "work", at(8, 30), Some(at(8, 45))).await;
        assert_eq!(codes(&body), ["OVERLAPPING_ACTIVITIES"]);
        assert_eq!(conflict(&body), second);
        // Across several: the earliest is described.
        let body = log(app, &worker, a, "work", at(7, 30), Some(at(12, 0))).await;
        assert_eq!(conflict(&body), second);
        // Before every activity.
        let body = log(app, &worker, a, "work", at(5, 0), Some(at(6, 30))).await;
        assert_eq!(conflict(&body), first);
        // An open activity (switch mode) that would run over a later one.
        let body = log(app, &worker, a, "work", at(9, 30), None).await;
        assert_eq!(conflict(&body), third);
        // A cancelled activity is no obstacle; the gap it leaves can be filled.
        let cancelled = app.as_user(&worker, CANCEL, json!({ "a": second })).await;
        assert!(cancelled["errors"].is_null(), "{cancelled}");
        let body = log(app, &worker, a, "work", at(8, 15), Some(at(8, 45))).await;
        assert!(body["errors"].is_null(), "{body}");
        // An open activity stays in the way of anything after it, in any mission.
        let open = activity_id(&log(app, &worker, a, "drive", at(11, 30), None).await);
        let body = log(app, &worker, b, "work", at(13, 0), Some(at(14, 0))).await;
        assert_eq!(codes(&body), ["OVERLAPPING_ACTIVITIES"]);
        assert_eq!(conflict(&body), open);
        let live: (i64,) = sqlx::query_as("SELECT COUNT(*) FROM activities WHERE user_id = $1 AND dismissed_at IS NULL")
            .bind(worker.id)
            .fetch_one(&app.server.db.pool)
            .await
            .unwrap();
        assert_eq!(live.0, 4, "first, third, the gap's and the open one");
    }

    async fn missions_never_interleave(app) {
        let Crew { worker, company, .. } = crew(app).await;
        let day = base_day();
        let a = mission(app, &worker, company, "A").await;
        let b = mission(app, &worker, company, "B").await;
        log(app, &worker, a, "drive", day + 6 * HOUR, Some(day + 7 * HOUR)).await;
        log(app, &worker, a, "drive", day + 10 * HOUR, Some(day + 11 * HOUR)).await;
        // Nested between two activities of A: refused.
        let body = log(app, &worker, b, "work", day + 8 * HOUR, Some(day + 9 * HOUR)).await;
        assert_eq!(codes(&body), ["OVERLAPPING_MISSIONS"]);
        assert_eq!(body["errors"][0]["message"], format!("Mission cannot overlap with mission {a} for the user."));
        assert_eq!(body["errors"][0]["extensions"]["conflictingMission"]["id"], a);
        // After A: fine.
        let body = log(app, &worker, b, "work", day + 12 * HOUR, Some(day + 13 * HOUR)).await;
        assert!(body["errors"].is_null(), "{body}");
    }

    async fn a_refused_activity_changes_nothing(app) {
        // On PostgreSQL the activity, its version, the reopening and the spans are written by
        // the statement that finds the conflict: the refusal must take all of it back, and
        // describe the conflict as SQLite's sequence of statements does.
        let Crew { admin, worker, company } = crew(app).await;
        let day = base_day();
        let a = mission(app, &admin, company, "A").await;
        let b = mission(app, &worker, company, "B").await;
        for (start, end) in [(6, 7), (10, 11)] {
            let body = app.as_user(&admin, LOG, json!({ "m": a, "t": "drive", "s": day + start * HOUR, "e": day + end * HOUR, "sw": false, "u": worker.id })).await;
            assert!(body["errors"].is_null(), "{body}");
        }
        log(app, &worker, b, "work", day + 12 * HOUR, Some(day + 13 * HOUR)).await;
        let ended = app.as_user(&worker, END, json!({ "m": b, "e": day + 13 * HOUR })).await;
        assert!(ended["errors"].is_null(), "{ended}");
        let state = || async {
            let counts: (i64, i64, i64) = sqlx::query_as(
                "SELECT (SELECT COUNT(*) FROM activities), (SELECT COUNT(*) FROM activity_versions), \
                 (SELECT COUNT(*) FROM mission_ends)",
            )
            .fetch_one(&app.server.db.pool)
            .await
            .unwrap();
            let spans: Vec<(i64, i64, i64, i64)> =
                sqlx::query_as("SELECT user_id, mission_id, start_time, end_time FROM mission_spans ORDER BY mission_id, user_id")
                    .fetch_all(&app.server.db.pool)
                    .await
                    .unwrap();
            let missions: Vec<(i64, Option<i64>, Option<i64>)> =
                sqlx::query_as("SELECT id, start_time, end_time FROM missions ORDER BY id")
                    .fetch_all(&app.server.db.pool)
                    .await
                    .unwrap();
            (counts, spans, missions)
        };
        let before = state().await;
        assert_eq!(before.0, (3, 3, 1), "three activities, their versions, B ended");

        // An open activity in B from 9:00 runs into A's 10:00 activity, and would stretch B's
        // span over A's: the overlap is reported (checked first), nothing is written, and B stays ended.
        let body = log(app, &worker, b, "work", day + 9 * HOUR, None).await;
        assert_eq!(codes(&body), ["OVERLAPPING_ACTIVITIES"], "{body}");
        let conflict = &body["errors"][0]["extensions"]["conflictingActivity"];
        assert_eq!(conflict["startTime"], day + 10 * HOUR, "{body}");
        assert_eq!(conflict["endTime"], day + 11 * HOUR, "{body}");
        assert_eq!(conflict["missionId"], a, "{body}");
        assert_eq!(conflict["type"], "drive", "{body}");
        assert_eq!(conflict["submitter"], json!({ "id": admin.id, "firstName": "Jeanne", "lastName": "Martin" }), "{body}");
        assert_eq!(state().await, before);

        // Between A's two activities, in B: no activity in the way, but B's span would cross
        // A's. The mission is described, with its submitter (the admin).
        let body = log(app, &worker, b, "work", day + 8 * HOUR, Some(day + 9 * HOUR)).await;
        assert_eq!(codes(&body), ["OVERLAPPING_MISSIONS"], "{body}");
        let described = &body["errors"][0]["extensions"]["conflictingMission"];
        assert_eq!(described["id"], a, "{body}");
        assert_eq!(described["name"], "A", "{body}");
        assert!(described["receptionTime"].is_i64(), "{body}");
        assert_eq!(described["submitter"], json!({ "id": admin.id, "firstName": "Jeanne", "lastName": "Martin" }), "{body}");
        assert_eq!(state().await, before);

        // The same write, once it fits, is stored whole: the activity, its version, B's span
        // and B's own span widened, B reopened by the open activity that follows.
        let body = log(app, &worker, b, "work", day + 13 * HOUR, Some(day + 14 * HOUR)).await;
        assert!(body["errors"].is_null(), "{body}");
        let body = log(app, &worker, b, "drive", day + 14 * HOUR, None).await;
        assert!(body["errors"].is_null(), "{body}");
        let (counts, spans, missions) = state().await;
        assert_eq!(counts, (5, 5, 0));
        assert!(spans.contains(&(worker.id, b, day + 12 * HOUR, i64::MAX)), "{spans:?}");
        assert!(missions.contains(&(b, Some(day + 12 * HOUR), Some(i64::MAX))), "{missions:?}");
    }
}
