//! A driver's day from the first mission to the validation, and the pages of missions and
//! activities with and without a window.

use super::*;

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
}
