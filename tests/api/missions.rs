//! Missions, activities and expenditures over the real HTTP API, on both databases: every
//! mutation's success path, each error code of the recording rules, the validation locks, the
//! permissions, a partial result, the concurrency guarantee, and a driver's day as a scenario.

use serde_json::{Value, json};

use crate::support::{TestApp, TestUser, codes};

const HOUR: i64 = 3600;

/// Midnight UTC, three days ago: far enough in the past for a whole working day.
fn base_day() -> i64 {
    (chrono::Utc::now().timestamp() / 86_400 - 3) * 86_400
}

fn date(t: i64) -> String {
    chrono::DateTime::from_timestamp(t, 0)
        .unwrap()
        .format("%Y-%m-%d")
        .to_string()
}

/// An admin, a worker hired by the admin's company, and everyone's employments backdated so that
/// past days are covered.
struct Crew {
    admin: TestUser,
    worker: TestUser,
    company: i64,
}

async fn crew(app: &TestApp) -> Crew {
    let admin = app.new_user("admin@example.com").await;
    let worker = app.new_user("driver@example.com").await;
    let company = app.new_company(&admin, "Transports Martin").await;
    app.hire(&admin, company, &worker).await;
    sqlx::query("UPDATE employments SET start_date = '2020-01-01'")
        .execute(&app.server.db.pool)
        .await
        .unwrap();
    Crew { admin, worker, company }
}

const CREATE: &str = "mutation($c: Int!, $n: String, $v: String) { activities { createMission(companyId: $c, name: $n, vehicleRegistrationNumber: $v) { id name vehicleId submitterId } } }";
const LOG: &str = "mutation($m: Int!, $t: ActivityTypeEnum!, $s: TimeStamp!, $e: TimeStamp, $sw: Boolean, $u: Int) { activities { logActivity(missionId: $m, type: $t, startTime: $s, endTime: $e, switch: $sw, userId: $u) { id type startTime endTime userId missionId } } }";
const EDIT: &str = "mutation($a: Int!, $s: TimeStamp, $e: TimeStamp, $r: Boolean) { activities { editActivity(activityId: $a, startTime: $s, endTime: $e, removeEndTime: $r) { id startTime endTime versions { startTime endTime } } } }";
const CANCEL: &str = "mutation($a: Int!) { activities { cancelActivity(activityId: $a) { success } } }";
const END: &str = "mutation($m: Int!, $e: TimeStamp!, $u: Int) { activities { endMission(missionId: $m, endTime: $e, userId: $u) { id isEndedForSelf endedUserIds } } }";
const EXPENSE: &str = "mutation($m: Int!, $t: ExpenditureTypeEnum!, $d: Date!) { activities { logExpenditure(missionId: $m, type: $t, spendingDate: $d) { id type spendingDate } } }";
const VALIDATE: &str = "mutation($m: Int!, $u: [Int]!) { activities { validateMission(missionId: $m, usersIds: $u) { id validations { isAdmin userId submitterId } } } }";

async fn mission(app: &TestApp, user: &TestUser, company: i64, name: &str) -> i64 {
    let body = app.as_user(user, CREATE, json!({ "c": company, "n": name })).await;
    body["data"]["activities"]["createMission"]["id"]
        .as_i64()
        .unwrap_or_else(|| panic!("{body}"))
}

async fn log(app: &TestApp, user: &TestUser, mission: i64, kind: &str, start: i64, end: Option<i64>) -> Value {
    let switch = end.is_none();
    app.as_user(
        user,
        LOG,
        json!({ "m": mission, "t": kind, "s": start, "e": end, "sw": switch }),
    )
    .await
}

fn activity_id(body: &Value) -> i64 {
    body["data"]["activities"]["logActivity"]["id"]
        .as_i64()
        .unwrap_or_else(|| panic!("{body}"))
}

on_both_backends! {
    async fn a_day_of_a_driver(app) {
        let Crew { admin, worker, company } = crew(app).await;
        let day = base_day();

        // Morning: the driver starts a mission with the company's van.
        let body = app.as_user(&worker, CREATE, json!({ "c": company, "n": "Tournée Lyon", "v": "ab-123 cd" })).await;
        let created = &body["data"]["activities"]["createMission"];
        let tour = created["id"].as_i64().unwrap();
        assert_eq!(created["submitterId"], worker.id);
        let body = app.as_user(&worker, "query($c: Int!) { company(id: $c) { vehicles { id registrationNumber } } }", json!({ "c": company })).await;
        assert_eq!(body["data"]["company"]["vehicles"][0]["registrationNumber"], "AB123CD");
        let start_km = "mutation($m: Int!, $k: Int) { activities { logLocation(missionId: $m, type: \"mission_start_location\", manualAddress: \"Dépôt, Lyon\", kilometerReading: $k) { name kilometerReading } } }";
        let body = app.as_user(&worker, start_km, json!({ "m": tour, "k": 10_000 })).await;
        assert_eq!(body["data"]["activities"]["logLocation"], json!({ "name": "Dépôt, Lyon", "kilometerReading": 10_000 }));

        // Drive from 06:00, unload from 09:30 (switching closes the driving), break at 12:00.
        let drive = activity_id(&log(app, &worker, tour, "drive", day + 6 * HOUR, None).await);
        let work = activity_id(&log(app, &worker, tour, "work", day + 9 * HOUR + 30 * 60, None).await);
        let body = app.as_user(&worker, EDIT, json!({ "a": work, "e": day + 12 * HOUR })).await;
        assert_eq!(body["data"]["activities"]["editActivity"]["endTime"], day + 12 * HOUR);
        // Afternoon: drive back from 13:00, end of the mission at 17:00.
        log(app, &worker, tour, "drive", day + 13 * HOUR, None).await;
        let body = app.as_user(&worker, END, json!({ "m": tour, "e": day + 17 * HOUR })).await;
        assert_eq!(body["data"]["activities"]["endMission"]["isEndedForSelf"], true);
        let end_km = "mutation($m: Int!) { activities { logLocation(missionId: $m, type: \"mission_end_location\", manualAddress: \"Dépôt, Lyon\", kilometerReading: 10350) { kilometerReading } } }";
        app.as_user(&worker, end_km, json!({ "m": tour })).await;

        // Two meals.
        for kind in ["day_meal", "night_meal"] {
            let body = app.as_user(&worker, EXPENSE, json!({ "m": tour, "t": kind, "d": date(day) })).await;
            assert_eq!(body["data"]["activities"]["logExpenditure"]["type"], kind, "{body}");
        }

        // The mission as the driver reads it back.
        let body = app
            .as_user(
                &worker,
                "query($m: Int!) { mission(id: $m) { name isEndedForSelf vehicle { registrationNumber lastKilometerReading }
                   startLocation { kilometerReading } endLocation { kilometerReading }
                   activities { id type startTime endTime versions { endTime } } expenditures { type spendingDate } } }",
                json!({ "m": tour }),
            )
            .await;
        let read = &body["data"]["mission"];
        assert!(body["errors"].is_null(), "{body}");
        assert_eq!(read["name"], "Tournée Lyon");
        assert_eq!(read["vehicle"], json!({ "registrationNumber": "AB123CD", "lastKilometerReading": 10350 }));
        assert_eq!(read["startLocation"]["kilometerReading"], 10_000);
        let activities: Vec<(String, i64, i64)> = read["activities"]
            .as_array()
            .unwrap()
            .iter()
            .map(|a| (a["type"].as_str().unwrap().to_string(), a["startTime"].as_i64().unwrap(), a["endTime"].as_i64().unwrap()))
            .collect();
        assert_eq!(
            activities,
            [
                ("drive".to_string(), day + 6 * HOUR, day + 9 * HOUR + 30 * 60),
                ("work".to_string(), day + 9 * HOUR + 30 * 60, day + 12 * HOUR),
                ("drive".to_string(), day + 13 * HOUR, day + 17 * HOUR),
            ]
        );
        // The switch and the edits are in the history.
        assert_eq!(read["activities"][0]["id"], drive);
        assert_eq!(read["activities"][0]["versions"], json!([{ "endTime": null }, { "endTime": day + 9 * HOUR + 30 * 60 }]));
        assert_eq!(read["expenditures"].as_array().unwrap().len(), 2);

        // The driver validates, then the admin.
        let body = app.as_user(&worker, VALIDATE, json!({ "m": tour, "u": [worker.id] })).await;
        assert!(body["errors"].is_null(), "{body}");
        let body = app.as_user(&admin, VALIDATE, json!({ "m": tour, "u": [worker.id] })).await;
        let validations = body["data"]["activities"]["validateMission"]["validations"].as_array().unwrap().clone();
        assert_eq!(validations.len(), 2, "{body}");
        assert!(validations.contains(&json!({ "isAdmin": true, "userId": worker.id, "submitterId": admin.id })));

        // The admin sees the day in the driver's activity list, most recent first.
        let body = app
            .as_user(&admin, "query($u: Int!) { user(id: $u) { activities(first: 2) { edges { node { type startTime } } pageInfo { hasNextPage endCursor } } } }", json!({ "u": worker.id }))
            .await;
        let page = &body["data"]["user"]["activities"];
        assert_eq!(page["edges"][0]["node"], json!({ "type": "drive", "startTime": day + 13 * HOUR }));
        assert_eq!(page["pageInfo"]["hasNextPage"], true);
        let after = page["pageInfo"]["endCursor"].as_str().unwrap();
        let body = app
            .as_user(&admin, "query($u: Int!, $a: String) { user(id: $u) { activities(first: 2, after: $a) { edges { node { type startTime } } pageInfo { hasNextPage } } } }", json!({ "u": worker.id, "a": after }))
            .await;
        assert_eq!(body["data"]["user"]["activities"]["edges"], json!([{ "node": { "type": "drive", "startTime": day + 6 * HOUR } }]));
        assert_eq!(body["data"]["user"]["activities"]["pageInfo"]["hasNextPage"], false);
    }

    async fn mission_pages_with_and_without_a_window(app) {
        let Crew { worker, company, .. } = crew(app).await;
        let day = base_day();
        // Four missions of an hour each, two hours apart.
        let mut ids = vec![];
        for (i, name) in ["one", "two", "three", "four"].into_iter().enumerate() {
            let m = mission(app, &worker, company, name).await;
            let start = day + (1 + 2 * i as i64) * HOUR;
            let body = log(app, &worker, m, "work", start, Some(start + HOUR)).await;
            assert!(body["errors"].is_null(), "{body}");
            ids.push(m);
        }
        const PAGE: &str = "query($f: TimeStamp, $u: TimeStamp, $n: Int, $a: String) { me { missions(fromTime: $f, untilTime: $u, first: $n, after: $a) { edges { node { id } } pageInfo { hasNextPage endCursor } } } }";
        // Every page of a window, newest first, following the cursors.
        let pages = |from: Option<i64>, until: Option<i64>, size: i64| {
            let worker = &worker;
            async move {
                let mut seen = vec![];
                let mut after: Option<String> = None;
                loop {
                    let body = app.as_user(worker, PAGE, json!({ "f": from, "u": until, "n": size, "a": after })).await;
                    let page = &body["data"]["me"]["missions"];
                    assert!(body["errors"].is_null(), "{body}");
                    seen.push(page["edges"].as_array().unwrap().iter().map(|e| e["node"]["id"].as_i64().unwrap()).collect::<Vec<_>>());
                    if page["pageInfo"]["hasNextPage"] != true {
                        return seen;
                    }
                    after = Some(page["pageInfo"]["endCursor"].as_str().unwrap().to_string());
                }
            }
        };
        let [one, two, three, four] = [ids[0], ids[1], ids[2], ids[3]];
        // No window: the whole history, a page of two then the rest.
        assert_eq!(pages(None, None, 2).await, [vec![four, three], vec![two, one]]);
        // A window with a start: the missions ending after it (the second ends at 04:00).
        assert_eq!(pages(Some(day + 4 * HOUR + 1800), None, 1).await, [vec![four], vec![three]]);
        // Both ends: the missions starting before the end and ending after the start.
        assert_eq!(pages(Some(day + 3 * HOUR + 1800), Some(day + 6 * HOUR + 1800), 5).await, [vec![three, two]]);
        // An end only.
        assert_eq!(pages(None, Some(day + 4 * HOUR), 1).await, [vec![two], vec![one]]);
    }

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

    async fn ending_a_mission(app) {
        let Crew { worker, company, .. } = crew(app).await;
        let day = base_day();
        let m = mission(app, &worker, company, "M").await;
        log(app, &worker, m, "drive", day + 6 * HOUR, None).await;
        // Not before the running activity starts.
        let body = app.as_user(&worker, END, json!({ "m": m, "e": day + 5 * HOUR })).await;
        assert_eq!(codes(&body), ["INVALID_ACTIVITY_SWITCH"]);
        let body = app.as_user(&worker, END, json!({ "m": m, "e": day + 8 * HOUR })).await;
        assert_eq!(body["data"]["activities"]["endMission"]["endedUserIds"], json!([worker.id]));
        let body = app.as_user(&worker, END, json!({ "m": m, "e": day + 9 * HOUR })).await;
        assert_eq!(codes(&body), ["MISSION_ALREADY_ENDED"]);
        assert_eq!(body["errors"][0]["extensions"]["missionEnd"]["endTime"], day + 8 * HOUR);
        assert_eq!(body["errors"][0]["extensions"]["missionEnd"]["submitter"]["id"], worker.id);
        // A new running activity reopens the mission.
        log(app, &worker, m, "work", day + 9 * HOUR, None).await;
        let body = app.as_user(&worker, "query($m: Int!) { mission(id: $m) { isEndedForSelf endedUserIds } }", json!({ "m": m })).await;
        assert_eq!(body["data"]["mission"], json!({ "isEndedForSelf": false, "endedUserIds": [] }));
    }

    async fn expenditures_rules(app) {
        let Crew { admin, worker, company } = crew(app).await;
        let day = base_day();
        let m = mission(app, &worker, company, "M").await;
        log(app, &worker, m, "drive", day + 6 * HOUR, Some(day + 8 * HOUR)).await;
        let body = app.as_user(&worker, EXPENSE, json!({ "m": m, "t": "day_meal", "d": date(day) })).await;
        let id = body["data"]["activities"]["logExpenditure"]["id"].as_i64().unwrap_or_else(|| panic!("{body}"));
        let body = app.as_user(&worker, EXPENSE, json!({ "m": m, "t": "day_meal", "d": date(day) })).await;
        assert_eq!(codes(&body), ["DUPLICATE_EXPENDITURES"]);
        let body = app.as_user(&worker, EXPENSE, json!({ "m": m, "t": "snack", "d": date(day + 86_400) })).await;
        assert_eq!(codes(&body), ["INVALID_INPUTS"]);
        let (status, body) = app.graphql(EXPENSE, json!({ "m": m, "t": "lunch", "d": date(day) }), Some(&worker.token)).await;
        assert_eq!(status, 400, "an unknown type is refused before execution");
        assert!(body["errors"][0]["message"].as_str().unwrap().contains("ExpenditureTypeEnum"), "{body}");
        // Cancelled, it may be logged again; cancelling twice is refused.
        let cancel = "mutation($e: Int!) { activities { cancelExpenditure(expenditureId: $e) { success } } }";
        let body = app.as_user(&worker, cancel, json!({ "e": id })).await;
        assert_eq!(body["data"]["activities"]["cancelExpenditure"], json!({ "success": true }));
        let body = app.as_user(&worker, cancel, json!({ "e": id })).await;
        assert_eq!(codes(&body), ["INVALID_RESOURCE"]);
        let body = app.as_user(&worker, EXPENSE, json!({ "m": m, "t": "day_meal", "d": date(day) })).await;
        assert!(body["errors"].is_null(), "{body}");
        // A company may switch expenditures off.
        sqlx::query("UPDATE companies SET require_expenditures = 0").execute(&app.server.db.pool).await.unwrap();
        let body = app.as_user(&worker, EXPENSE, json!({ "m": m, "t": "snack", "d": date(day) })).await;
        assert_eq!(codes(&body), ["AUTHORIZATION_ERROR"]);
        let _ = admin;
    }

    async fn cancelling_and_editing_keep_history(app) {
        let Crew { worker, company, .. } = crew(app).await;
        let day = base_day();
        let m = mission(app, &worker, company, "M").await;
        let id = activity_id(&log(app, &worker, m, "drive", day + 6 * HOUR, Some(day + 7 * HOUR)).await);
        let body = app.as_user(&worker, EDIT, json!({ "a": id, "s": day + 5 * HOUR })).await;
        assert_eq!(
            body["data"]["activities"]["editActivity"]["versions"],
            json!([{ "startTime": day + 6 * HOUR, "endTime": day + 7 * HOUR }, { "startTime": day + 5 * HOUR, "endTime": day + 7 * HOUR }])
        );
        let body = app.as_user(&worker, EDIT, json!({ "a": id, "e": day + 8 * HOUR, "r": true })).await;
        assert_eq!(codes(&body), ["INVALID_INPUTS"]);
        let body = app.as_user(&worker, EDIT, json!({ "a": id })).await;
        assert_eq!(codes(&body), ["INVALID_INPUTS"]);
        let body = app.as_user(&worker, CANCEL, json!({ "a": id })).await;
        assert_eq!(body["data"]["activities"]["cancelActivity"], json!({ "success": true }));
        let body = app.as_user(&worker, CANCEL, json!({ "a": id })).await;
        assert_eq!(codes(&body), ["INVALID_RESOURCE"]);
        assert_eq!(body["errors"][0]["message"], "Activity already dismissed.");
        let body = app
            .as_user(&worker, "query($m: Int!) { mission(id: $m) { deletedAt activities { id } all: activities(includeDismissedActivities: true) { id dismissedAt dismissAuthor { id } } } }", json!({ "m": m }))
            .await;
        let read = &body["data"]["mission"];
        assert_eq!(read["activities"], json!([]));
        assert_eq!(read["all"][0]["dismissAuthor"]["id"], worker.id);
        assert!(read["deletedAt"].is_i64());
    }

    async fn validation_locks_the_mission(app) {
        let Crew { admin, worker, company } = crew(app).await;
        let day = base_day();
        let m = mission(app, &worker, company, "M").await;
        let id = activity_id(&log(app, &worker, m, "drive", day + 6 * HOUR, None).await);
        // Still running: no validation.
        let body = app.as_user(&worker, VALIDATE, json!({ "m": m, "u": [worker.id] })).await;
        assert_eq!(codes(&body), ["INVALID_RESOURCE"]);
        assert_eq!(body["errors"][0]["extensions"]["reason"], "MISSION_STILL_RUNNING");
        app.as_user(&worker, END, json!({ "m": m, "e": day + 8 * HOUR })).await;
        // The admin waits for the worker (the admin did not create this mission).
        let body = app.as_user(&admin, VALIDATE, json!({ "m": m, "u": [worker.id] })).await;
        assert_eq!(body["errors"][0]["extensions"]["reason"], "MISSION_NOT_ALREADY_VALIDATED_BY_USER");
        // A worker validates only for themselves.
        let body = app.as_user(&worker, VALIDATE, json!({ "m": m, "u": [admin.id] })).await;
        assert_eq!(codes(&body), ["AUTHORIZATION_ERROR"]);
        app.as_user(&worker, VALIDATE, json!({ "m": m, "u": [worker.id] })).await;
        // Validated by the worker: they can no longer change it.
        let body = app.as_user(&worker, EDIT, json!({ "a": id, "e": day + 7 * HOUR })).await;
        assert_eq!(codes(&body), ["INVALID_RESOURCE"]);
        assert_eq!(body["errors"][0]["extensions"]["reason"], "MISSION_ALREADY_VALIDATED_BY_USER");
        // The admin corrects through the validation itself, then the worker is locked out for good.
        let fix = "mutation($m: Int!, $u: [Int]!, $a: Int!, $e: TimeStamp) { activities { validateMission(missionId: $m, usersIds: $u, activityItems: [{ edit: { activityId: $a, endTime: $e } }]) { activities { endTime } } } }";
        let body = app.as_user(&admin, fix, json!({ "m": m, "u": [worker.id], "a": id, "e": day + 7 * HOUR })).await;
        assert_eq!(body["data"]["activities"]["validateMission"]["activities"], json!([{ "endTime": day + 7 * HOUR }]), "{body}");
        let body = app.as_user(&worker, CANCEL, json!({ "a": id })).await;
        assert_eq!(body["errors"][0]["extensions"]["reason"], "MISSION_ALREADY_VALIDATED_BY_ADMIN");
    }

    async fn who_may_read_and_write(app) {
        let Crew { admin, worker, company } = crew(app).await;
        let colleague = app.new_user("colleague@example.com").await;
        app.hire(&admin, company, &colleague).await;
        let stranger = app.new_user("stranger@example.com").await;
        let other_company = app.new_company(&stranger, "Other").await;
        sqlx::query("UPDATE employments SET start_date = '2020-01-01'").execute(&app.server.db.pool).await.unwrap();
        let day = base_day();
        let m = mission(app, &worker, company, "M").await;
        log(app, &worker, m, "drive", day + 6 * HOUR, Some(day + 7 * HOUR)).await;

        // A stranger can neither create missions in the company nor touch this one.
        let body = app.as_user(&stranger, CREATE, json!({ "c": company })).await;
        assert_eq!(codes(&body), ["AUTHORIZATION_ERROR"]);
        for (query, variables) in [
            ("query($m: Int!) { mission(id: $m) { id } }", json!({ "m": m })),
            (LOG, json!({ "m": m, "t": "work", "s": day + 8 * HOUR })),
            (END, json!({ "m": m, "e": day + 9 * HOUR })),
            (EXPENSE, json!({ "m": m, "t": "snack", "d": date(day) })),
            ("mutation($m: Int!) { activities { logComment(missionId: $m, text: \"hi\") { id } } }", json!({ "m": m })),
            ("mutation($m: Int!) { activities { changeMissionName(missionId: $m, name: \"x\") { id } } }", json!({ "m": m })),
            ("query($u: Int!) { user(id: $u) { missions { edges { node { id } } } } }", json!({ "u": worker.id })),
        ] {
            let body = app.as_user(&stranger, query, variables).await;
            assert_eq!(codes(&body), ["AUTHORIZATION_ERROR"], "{query}: {body}");
        }
        // A co-worker without activity in the mission does not read it.
        let body = app.as_user(&colleague, "query($m: Int!) { mission(id: $m) { id } }", json!({ "m": m })).await;
        assert_eq!(codes(&body), ["AUTHORIZATION_ERROR"]);
        // Team mode: the mission's submitter logs for a colleague.
        let body = app.as_user(&worker, LOG, json!({ "m": m, "t": "support", "s": day + 6 * HOUR, "e": day + 7 * HOUR, "sw": false, "u": colleague.id })).await;
        assert_eq!(body["data"]["activities"]["logActivity"]["userId"], colleague.id, "{body}");
        // The admin reads the company's missions; a worker gets null there, with the rest answered.
        let query = "query($c: Int!) { company(id: $c) { name missions { edges { node { id name } } } } }";
        let body = app.as_user(&admin, query, json!({ "c": company })).await;
        assert_eq!(body["data"]["company"]["missions"]["edges"], json!([{ "node": { "id": m, "name": "M" } }]));
        let body = app.as_user(&worker, query, json!({ "c": company })).await;
        assert_eq!(body["data"]["company"], json!({ "name": "Transports Martin", "missions": null }));
        assert_eq!(body["errors"][0]["path"], json!(["company", "missions"]));
        // A vehicle id of another company is not attached.
        let body = app.as_user(&stranger, "mutation($c: Int!) { activities { createMission(companyId: $c, vehicleRegistrationNumber: \"ZZ-999-ZZ\") { vehicleId } } }", json!({ "c": other_company })).await;
        let foreign_vehicle = body["data"]["activities"]["createMission"]["vehicleId"].as_i64().unwrap();
        let body = app.as_user(&worker, "mutation($m: Int!, $v: Int) { activities { updateMissionVehicle(missionId: $m, vehicleId: $v) { id } } }", json!({ "m": m, "v": foreign_vehicle })).await;
        assert_eq!(codes(&body), ["INVALID_INPUTS"]);
        let body = app.as_user(&worker, "mutation($m: Int!) { activities { updateMissionVehicle(missionId: $m, vehicleRegistrationNumber: \"gh-456-ij\") { registrationNumber } } }", json!({ "m": m })).await;
        assert_eq!(body["data"]["activities"]["updateMissionVehicle"]["registrationNumber"], "GH456IJ");
    }

    async fn comments_names_and_cancellation(app) {
        let Crew { admin, worker, company } = crew(app).await;
        let day = base_day();
        let m = mission(app, &worker, company, "M").await;
        log(app, &worker, m, "drive", day + 6 * HOUR, Some(day + 7 * HOUR)).await;
        let body = app.as_user(&admin, "mutation($m: Int!) { activities { logComment(missionId: $m, text: \" Bien reçu \") { id text submitter { id } } } }", json!({ "m": m })).await;
        let comment = body["data"]["activities"]["logComment"].clone();
        assert_eq!(comment["text"], "Bien reçu");
        assert_eq!(comment["submitter"]["id"], admin.id);
        let cancel = "mutation($c: Int!) { activities { cancelComment(commentId: $c) { success } } }";
        let body = app.as_user(&worker, cancel, json!({ "c": comment["id"] })).await;
        assert_eq!(codes(&body), ["AUTHORIZATION_ERROR"], "only the author cancels");
        let body = app.as_user(&admin, cancel, json!({ "c": comment["id"] })).await;
        assert_eq!(body["data"]["activities"]["cancelComment"], json!({ "success": true }));
        let body = app.as_user(&worker, "mutation($m: Int!) { activities { changeMissionName(missionId: $m, name: \"Renamed\") { name } } }", json!({ "m": m })).await;
        assert_eq!(body["data"]["activities"]["changeMissionName"]["name"], "Renamed");
        let body = app.as_user(&worker, "mutation($m: Int!, $u: Int!) { activities { cancelMission(missionId: $m, userId: $u) { deletedAt activities { id } } } }", json!({ "m": m, "u": worker.id })).await;
        assert!(body["data"]["activities"]["cancelMission"]["deletedAt"].is_i64(), "{body}");
        let body = app.as_user(&worker, "query($m: Int!) { mission(id: $m) { comments { id } } }", json!({ "m": m })).await;
        assert_eq!(body["data"]["mission"]["comments"], json!([]));
    }

    async fn concurrent_overlapping_logs_keep_time_consistent(app) {
        let Crew { worker, company, .. } = crew(app).await;
        let day = base_day();
        let m = mission(app, &worker, company, "M").await;
        // Five disjoint hours; in each, three requests that all share the hour's middle minute.
        let mut requests = Vec::new();
        for hour in 0..5 {
            let start = day + (6 + 2 * hour) * HOUR;
            for shift in [0, 10, 20] {
                requests.push((start + shift * 60, start + (40 + shift) * 60));
            }
        }
        let attempts = requests.iter().map(|(s, e)| log(app, &worker, m, "drive", *s, Some(*e)));
        let bodies = futures::future::join_all(attempts).await;
        let succeeded = bodies.iter().filter(|b| b["errors"].is_null()).count();
        assert_eq!(succeeded, 5, "exactly one per hour: {bodies:?}");
        assert!(bodies.iter().filter(|b| !b["errors"].is_null()).all(|b| codes(b) == ["OVERLAPPING_ACTIVITIES"]), "{bodies:?}");
        let stored: Vec<(i64, i64)> = sqlx::query_as("SELECT start_time, end_time FROM activities WHERE dismissed_at IS NULL ORDER BY start_time")
            .fetch_all(&app.server.db.pool)
            .await
            .unwrap();
        assert_eq!(stored.len(), 5);
        assert!(stored.windows(2).all(|w| w[0].1 <= w[1].0), "no overlap in the database: {stored:?}");
    }

    async fn employments_do_not_end_before_recorded_work(app) {
        let Crew { admin, worker, company } = crew(app).await;
        let day = base_day();
        let m = mission(app, &worker, company, "M").await;
        log(app, &worker, m, "drive", day + 6 * HOUR, Some(day + 7 * HOUR)).await;
        let body = app.as_user(&admin, "{ me { id } }", json!({})).await;
        assert!(body["errors"].is_null());
        let (employment,): (i64,) = sqlx::query_as("SELECT id FROM employments WHERE user_id = $1")
            .bind(worker.id)
            .fetch_one(&app.server.db.pool)
            .await
            .unwrap();
        let terminate = "mutation($e: Int!, $d: Date) { employments { terminateEmployment(employmentId: $e, endDate: $d) { endDate } } }";
        let body = app.as_user(&admin, terminate, json!({ "e": employment, "d": date(day - 86_400) })).await;
        assert_eq!(codes(&body), ["INVALID_INPUTS"]);
        assert_eq!(body["errors"][0]["extensions"]["reason"], "ACTIVITY_EXIST_AFTER_EMPLOYMENT_END_DATE");
        let body = app.as_user(&admin, terminate, json!({ "e": employment, "d": date(day) })).await;
        assert_eq!(body["data"]["employments"]["terminateEmployment"]["endDate"], date(day), "{body}");
        // The worker's employment no longer covers today: they cannot record any more.
        let body = log(app, &worker, m, "work", day + 8 * HOUR, Some(day + 9 * HOUR)).await;
        assert_eq!(codes(&body), ["AUTHORIZATION_ERROR"]);
    }
}

crate::tests! {
    #[needs(Postgres)]
    async fn a_write_cancelled_while_waiting_for_its_lock_holds_nothing() {
        crate::support::with_app(crate::support::Backend::Postgres, |app| Box::pin(cancelled_while_locking(app))).await;
    }
}

/// A client that goes away while its write waits for the worker's lock drops the request's
/// future in the middle of that wait. The connection must go back to the pool with its
/// transaction rolled back: handed back open, it would keep the worker's lock, and every later
/// write for that worker would wait for ever (what sending the lock in `BEGIN`'s own query did:
/// sqlx queues no rollback for a `BEGIN` it has not seen answered).
async fn cancelled_while_locking(app: &TestApp) {
    let Crew { worker, company, .. } = crew(app).await;
    let day = base_day();
    let m = mission(app, &worker, company, "A").await;
    let pool = &app.server.db.pool;
    let mut holder = pool.begin().await.unwrap();
    sqlx::query("SELECT id FROM users WHERE id = $1 FOR UPDATE")
        .bind(worker.id)
        .execute(&mut *holder)
        .await
        .unwrap();
    let impatient = reqwest::Client::builder()
        .timeout(std::time::Duration::from_millis(500))
        .build()
        .unwrap();
    let gone = impatient
        .post(app.url("/api/graphql"))
        .bearer_auth(&worker.token)
        .json(&json!({ "query": LOG, "variables": { "m": m, "t": "drive", "s": day + 6 * HOUR, "e": day + 7 * HOUR, "sw": false } }))
        .send()
        .await;
    assert!(
        gone.is_err_and(|e| e.is_timeout()),
        "the write waited for the held lock"
    );
    holder.rollback().await.unwrap();
    let next = tokio::time::timeout(
        std::time::Duration::from_secs(10),
        log(app, &worker, m, "drive", day + 8 * HOUR, Some(day + 9 * HOUR)),
    )
    .await
    .expect("the next write for the worker is not kept waiting");
    assert!(next["errors"].is_null(), "{next}");
    let (activities,): (i64,) = sqlx::query_as("SELECT COUNT(*) FROM activities")
        .fetch_one(pool)
        .await
        .unwrap();
    assert_eq!(activities, 1, "the cancelled write left nothing");
}
