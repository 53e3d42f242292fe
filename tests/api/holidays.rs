//! Holidays over the real HTTP API, on both databases: `activities.logHoliday` (one validated
//! mission per day holding one `off` activity), who may record them, the holiday rules of
//! `logActivity`, and how holidays count: `off` time in the work days, no regulatory
//! computation, no automatic validation, no notification.

use serde_json::{Value, json};

use crate::regulation::{company, day, mission};
use crate::support::codes;

const HOUR: i64 = 3600;
const HOLIDAY: &str = "mutation($c: Int!, $s: TimeStamp!, $e: TimeStamp!, $t: String!, $m: String, $u: Int) {
  activities { logHoliday(companyId: $c, startTime: $s, endTime: $e, title: $t, comment: $m, userId: $u) {
    id name isHoliday submitterId comments { text }
    activities { type startTime endTime userId }
    validations { isAdmin isAuto userId submitterId } } } }";
const LOG: &str = "mutation($m: Int!, $t: ActivityTypeEnum!, $s: TimeStamp!, $e: TimeStamp) { activities { logActivity(missionId: $m, type: $t, startTime: $s, endTime: $e, switch: false) { id } } }";

fn holidays(body: &Value) -> &Vec<Value> {
    body["data"]["activities"]["logHoliday"]
        .as_array()
        .unwrap_or_else(|| panic!("{body}"))
}

on_both_backends! {
    async fn a_worker_records_a_holiday_of_three_days(app) {
        let c = company(app).await;
        // The periods are cut on the worker's clock: a worker on UTC keeps the UTC times of day
        // below on every date, whatever clock change the last days held elsewhere.
        sqlx::query("UPDATE users SET timezone_name = 'Etc/UTC' WHERE id = $1")
            .bind(c.worker.id)
            .execute(&app.server.db.pool)
            .await
            .unwrap();
        let (start, end) = (day(5) + 8 * HOUR, day(3) + 17 * HOUR);
        let vars = json!({ "c": c.id, "s": start, "e": end, "t": " Congés ", "m": "Summer" });
        let body = app.as_user(&c.worker, HOLIDAY, vars).await;
        assert!(body["errors"].is_null(), "{body}");
        let missions = holidays(&body);
        assert_eq!(missions.len(), 3);
        for (i, m) in missions.iter().enumerate() {
            let base = day(5 - i as i64);
            assert_eq!(m["name"], "Congés");
            assert_eq!(m["isHoliday"], true);
            assert_eq!(m["submitterId"], c.worker.id);
            assert_eq!(m["comments"], json!([{ "text": "Summer" }]));
            assert_eq!(
                m["activities"],
                json!([{ "type": "off", "startTime": base + 8 * HOUR, "endTime": base + 17 * HOUR, "userId": c.worker.id }])
            );
            assert_eq!(
                m["validations"],
                json!([{ "isAdmin": false, "isAuto": false, "userId": c.worker.id, "submitterId": c.worker.id }])
            );
        }

        // A holiday is not work: `off` time in the work days, no service, no work.
        let body = app
            .as_user(&c.worker, "query($u: Int!) { user(id: $u) { workDays { edges { node { day serviceDuration totalWorkDuration activityDurations } } } } }", json!({ "u": c.worker.id }))
            .await;
        let days = body["data"]["user"]["workDays"]["edges"].as_array().unwrap_or_else(|| panic!("{body}"));
        assert_eq!(days.len(), 3);
        for d in days {
            assert_eq!(d["node"]["totalWorkDuration"], 0, "{d}");
            assert_eq!(d["node"]["serviceDuration"], 0, "{d}");
            assert_eq!(d["node"]["activityDurations"]["off"], 9 * HOUR, "{d}");
        }
        // Never computed, never waiting for an automatic validation, nobody notified.
        assert_eq!(app.scalar("SELECT COUNT(*) FROM regulation_computations").await, 0);
        assert_eq!(app.scalar("SELECT COUNT(*) FROM mission_auto_validations").await, 0);
        assert_eq!(app.scalar("SELECT COUNT(*) FROM notifications").await, 0);
        assert_eq!(app.scalar("SELECT COUNT(*) FROM mission_ends").await, 3);
        let mail = crate::support::employments::outbox(app, "worker@example.com").await;
        assert!(mail.iter().all(|m| !m["subject"].as_str().unwrap().contains("holiday")), "{mail:?}");

        // The holiday rules of logActivity. A validated holiday is locked for the worker like any
        // validated mission; an `off` activity logged in an empty mission makes it a holiday too.
        let body = app
            .as_user(&c.worker, LOG, json!({ "m": missions[0]["id"], "t": "work", "s": day(5) + 18 * HOUR, "e": day(5) + 19 * HOUR }))
            .await;
        assert_eq!(body["errors"][0]["extensions"]["reason"], "MISSION_ALREADY_VALIDATED_BY_USER", "{body}");
        let holiday = mission(app, &c.worker, c.id, &[("off", day(9) + 8 * HOUR, day(9) + 12 * HOUR)]).await;
        let body = app
            .as_user(&c.worker, LOG, json!({ "m": holiday, "t": "work", "s": day(9) + 13 * HOUR, "e": day(9) + 14 * HOUR }))
            .await;
        assert_eq!(codes(&body), ["INVALID_INPUTS"], "{body}");
        assert_eq!(body["errors"][0]["extensions"]["reason"], "LOG_ACTIVITY_IN_HOLIDAY_MISSION");
        let work = mission(app, &c.worker, c.id, &[("work", day(8) + 8 * HOUR, day(8) + 10 * HOUR)]).await;
        let body = app
            .as_user(&c.worker, LOG, json!({ "m": work, "t": "off", "s": day(8) + 11 * HOUR, "e": day(8) + 12 * HOUR }))
            .await;
        assert_eq!(body["errors"][0]["extensions"]["reason"], "LOG_HOLIDAY_IN_MISSION_NOT_EMPTY", "{body}");

        // The same days again overlap the first holiday: refused, nothing written.
        let missions_before = app.scalar("SELECT COUNT(*) FROM missions").await;
        let vars = json!({ "c": c.id, "s": day(4) + 8 * HOUR, "e": day(2) + 17 * HOUR, "t": "Again" });
        let body = app.as_user(&c.worker, HOLIDAY, vars).await;
        assert_eq!(codes(&body), ["OVERLAPPING_ACTIVITIES"], "{body}");
        assert_eq!(app.scalar("SELECT COUNT(*) FROM missions").await, missions_before);

        // A night holiday: 22:00 to 06:00 the next day.
        let vars = json!({ "c": c.id, "s": day(12) + 22 * HOUR, "e": day(11) + 6 * HOUR, "t": "Night" });
        let body = app.as_user(&c.worker, HOLIDAY, vars).await;
        let night = holidays(&body);
        assert_eq!(night.len(), 1);
        assert_eq!(night[0]["activities"][0]["endTime"], day(11) + 6 * HOUR);
    }

    async fn holiday_inputs_and_permissions(app) {
        let c = company(app).await;
        let late = app.new_user("late@example.com").await;
        app.hire(&c.admin, c.id, &late).await;
        let outsider = app.new_user("outsider@example.com").await;
        let (start, end) = (day(5) + 8 * HOUR, day(5) + 17 * HOUR);
        let missions_before = app.scalar("SELECT COUNT(*) FROM missions").await;
        let bad = [
            (json!({ "c": c.id, "s": end, "e": start, "t": "Leave" }), "INVALID_INPUTS"),
            (json!({ "c": c.id, "s": start, "e": end, "t": "   " }), "INVALID_INPUTS"),
            (json!({ "c": c.id, "s": day(500), "e": end, "t": "Leave" }), "INVALID_INPUTS"),
        ];
        for (vars, code) in bad {
            let body = app.as_user(&c.worker, HOLIDAY, vars.clone()).await;
            assert_eq!(codes(&body), [code], "{vars} {body}");
        }
        // In the future.
        let soon = chrono::Utc::now().timestamp() + 86_400;
        let body = app.as_user(&c.worker, HOLIDAY, json!({ "c": c.id, "s": soon, "e": soon + 3600, "t": "Leave" })).await;
        assert_eq!(body["errors"][0]["extensions"]["reason"], "ACTIVITY_TIME_IN_FUTURE", "{body}");
        // A worker does not record someone else's holiday; an outsider not even his own.
        let body = app.as_user(&c.worker, HOLIDAY, json!({ "c": c.id, "s": start, "e": end, "t": "Leave", "u": late.id })).await;
        assert_eq!(codes(&body), ["AUTHORIZATION_ERROR"], "{body}");
        let body = app.as_user(&outsider, HOLIDAY, json!({ "c": c.id, "s": start, "e": end, "t": "Leave" })).await;
        assert_eq!(codes(&body), ["AUTHORIZATION_ERROR"], "{body}");
        // An admin records for a worker, within the worker's employment.
        let body = app.as_user(&c.admin, HOLIDAY, json!({ "c": c.id, "s": start, "e": end, "t": "Leave", "u": late.id })).await;
        assert_eq!(codes(&body), ["AUTHORIZATION_ERROR"], "{body}");
        assert_eq!(body["errors"][0]["extensions"]["reason"], "ACTIVITY_OUTSIDE_EMPLOYMENT_ADMIN");
        assert_eq!(app.scalar("SELECT COUNT(*) FROM missions").await, missions_before);

        let body = app.as_user(&c.admin, HOLIDAY, json!({ "c": c.id, "s": start, "e": end, "t": "Leave", "u": c.worker.id })).await;
        let missions = holidays(&body);
        assert_eq!(missions.len(), 1);
        assert_eq!(missions[0]["activities"][0]["userId"], c.worker.id);
        assert_eq!(
            missions[0]["validations"],
            json!([{ "isAdmin": true, "isAuto": false, "userId": c.worker.id, "submitterId": c.admin.id }])
        );
        // The worker is told by e-mail, at his own address.
        let mail = crate::support::employments::outbox(app, "worker@example.com").await;
        let told: Vec<&Value> = mail.iter().filter(|m| m["subject"] == "Enregistrement d’un congé ou d’une absence par votre gestionnaire").collect();
        assert_eq!(told.len(), 1, "{mail:?}");
        assert!(told[0]["body"].as_str().unwrap().contains("une absence de type « leave » de"), "{}", told[0]["body"]);
        // The worker reads it with his missions; no notification for a holiday.
        let body = app
            .as_user(&c.worker, "query($u: Int!) { user(id: $u) { missions { edges { node { id isHoliday } } } notifications { id } } }", json!({ "u": c.worker.id }))
            .await;
        assert_eq!(body["data"]["user"]["missions"]["edges"][0]["node"]["isHoliday"], true, "{body}");
        assert_eq!(body["data"]["user"]["notifications"], json!([]));
    }
}
