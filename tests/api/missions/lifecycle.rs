//! A mission's life after its activities: ending it, expenditures, cancelling and editing with
//! their history, the validation locks, who may read and write, comments and names.

use super::*;

on_both_backends! {
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
}
