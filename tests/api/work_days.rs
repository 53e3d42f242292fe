//! `User.workDays` and `Company.workDays` over the real HTTP API, on both databases: the figures
//! of each day (times, durations by type, expenditures, mission names), the paging with opaque
//! cursors, the date filters, and who may read them.

use serde_json::{Value, json};

use crate::regulation::{company, date, day, mission};
use crate::support::{TestApp, codes};

const HOUR: i64 = 3600;
const FIELDS: &str = "edges { cursor node { day userId startTime endTime lastActivityStartTime serviceDuration totalWorkDuration activityDurations expenditures missionNames user { id } } } pageInfo { hasNextPage hasPreviousPage endCursor }";

fn user_days() -> String {
    format!(
        "query($u: Int!, $f: Date, $t: Date, $n: Int, $a: String) {{ user(id: $u) {{ workDays(fromDate: $f, untilDate: $t, first: $n, after: $a) {{ {FIELDS} }} }} }}"
    )
}

fn company_days() -> String {
    format!(
        "query($c: Int!, $n: Int, $a: String, $u: [Int]) {{ company(id: $c) {{ workDays(first: $n, after: $a, userIds: $u) {{ {FIELDS} }} }} }}"
    )
}

const EXPENDITURE: &str = "mutation($m: Int!, $d: Date!) { activities { logExpenditure(missionId: $m, type: \"day_meal\", spendingDate: $d) { id } } }";

fn nodes(connection: &Value) -> Vec<Value> {
    connection["edges"]
        .as_array()
        .unwrap_or_else(|| panic!("{connection}"))
        .iter()
        .map(|e| e["node"].clone())
        .collect()
}

fn durations(drive: i64, work: i64, support: i64, transfer: i64) -> Value {
    json!({ "drive": drive, "work": work, "support": support, "transfer": transfer, "off": 0 })
}

/// The worker's week: two missions three days ago (one with a meal), one the day before
/// yesterday... and one yesterday. Answers the mission ids.
async fn record(app: &TestApp, c: &crate::regulation::Company) -> (i64, i64, i64) {
    let morning = mission(
        app,
        &c.worker,
        c.id,
        &[
            ("drive", day(3) + 8 * HOUR, day(3) + 10 * HOUR),
            ("work", day(3) + 10 * HOUR, day(3) + 11 * HOUR),
        ],
    )
    .await;
    let body = app
        .as_user(&c.worker, EXPENDITURE, json!({ "m": morning, "d": date(day(3)) }))
        .await;
    assert!(body["errors"].is_null(), "{body}");
    let afternoon = mission(
        app,
        &c.worker,
        c.id,
        &[("support", day(3) + 14 * HOUR, day(3) + 15 * HOUR)],
    )
    .await;
    let yesterday = mission(
        app,
        &c.worker,
        c.id,
        &[("transfer", day(1) + 9 * HOUR, day(1) + 10 * HOUR)],
    )
    .await;
    (morning, afternoon, yesterday)
}

on_both_backends! {
    async fn a_user_reads_their_days_of_work_page_by_page(app) {
        let c = company(app).await;
        record(app, &c).await;
        let body = app.as_user(&c.worker, &user_days(), json!({ "u": c.worker.id })).await;
        assert!(body["errors"].is_null(), "{body}");
        let connection = &body["data"]["user"]["workDays"];
        let days = nodes(connection);
        assert_eq!(days.len(), 2, "{body}");
        assert_eq!(
            days[0],
            json!({
                "day": date(day(1)), "userId": c.worker.id, "startTime": day(1) + 9 * HOUR, "endTime": day(1) + 10 * HOUR,
                "lastActivityStartTime": null, "serviceDuration": HOUR, "totalWorkDuration": 0,
                "activityDurations": durations(0, 0, 0, HOUR), "expenditures": {}, "missionNames": ["Tour"],
                "user": { "id": c.worker.id },
            })
        );
        assert_eq!(
            days[1],
            json!({
                "day": date(day(3)), "userId": c.worker.id, "startTime": day(3) + 8 * HOUR, "endTime": day(3) + 15 * HOUR,
                "lastActivityStartTime": null, "serviceDuration": 7 * HOUR, "totalWorkDuration": 4 * HOUR,
                "activityDurations": durations(2 * HOUR, HOUR, HOUR, 0), "expenditures": { "day_meal": 1 },
                "missionNames": ["Tour", "Tour"], "user": { "id": c.worker.id },
            })
        );
        assert_eq!(connection["pageInfo"]["hasNextPage"], false);
        assert_eq!(connection["pageInfo"]["hasPreviousPage"], false);

        // One day a page, then the next after its cursor.
        let body = app.as_user(&c.worker, &user_days(), json!({ "u": c.worker.id, "n": 1 })).await;
        let first = &body["data"]["user"]["workDays"];
        assert_eq!(nodes(first).iter().map(|d| d["day"].clone()).collect::<Vec<_>>(), [json!(date(day(1)))]);
        assert_eq!(first["pageInfo"]["hasNextPage"], true);
        let cursor = first["pageInfo"]["endCursor"].as_str().unwrap().to_string();
        assert_eq!(first["edges"][0]["cursor"], cursor);
        let body = app.as_user(&c.worker, &user_days(), json!({ "u": c.worker.id, "n": 1, "a": cursor })).await;
        let second = &body["data"]["user"]["workDays"];
        assert_eq!(nodes(second).iter().map(|d| d["day"].clone()).collect::<Vec<_>>(), [json!(date(day(3)))]);
        assert_eq!(second["pageInfo"]["hasNextPage"], false);

        // The date filters, inclusive.
        let body = app.as_user(&c.worker, &user_days(), json!({ "u": c.worker.id, "t": date(day(2)) })).await;
        assert_eq!(nodes(&body["data"]["user"]["workDays"]).len(), 1);
        let body = app.as_user(&c.worker, &user_days(), json!({ "u": c.worker.id, "f": date(day(1)), "t": date(day(1)) })).await;
        assert_eq!(nodes(&body["data"]["user"]["workDays"])[0]["day"], date(day(1)));
        let body = app.as_user(&c.worker, &user_days(), json!({ "u": c.worker.id, "f": date(day(0)) })).await;
        assert_eq!(nodes(&body["data"]["user"]["workDays"]).len(), 0);

        // A cancelled activity no longer counts.
        let (activity,): (i64,) = sqlx::query_as("SELECT id FROM activities WHERE type = 'transfer'")
            .fetch_one(&app.server.db.pool)
            .await
            .unwrap();
        let body = app
            .as_user(&c.worker, "mutation($a: Int!) { activities { cancelActivity(activityId: $a) { success } } }", json!({ "a": activity }))
            .await;
        assert!(body["errors"].is_null(), "{body}");
        let body = app.as_user(&c.worker, &user_days(), json!({ "u": c.worker.id })).await;
        assert_eq!(nodes(&body["data"]["user"]["workDays"]).len(), 1);

        // Garbage cursors and negative pages are refused.
        for variables in [json!({ "u": c.worker.id, "a": "garbage!" }), json!({ "u": c.worker.id, "n": -1 })] {
            let body = app.as_user(&c.worker, &user_days(), variables).await;
            assert_eq!(codes(&body), ["INVALID_INPUTS"], "{body}");
        }
    }

    async fn who_reads_a_users_days_of_work(app) {
        let c = company(app).await;
        record(app, &c).await;
        // The company's admin reads them.
        let body = app.as_user(&c.admin, &user_days(), json!({ "u": c.worker.id })).await;
        assert_eq!(nodes(&body["data"]["user"]["workDays"]).len(), 2, "{body}");
        // An admin of another company sees none of this company's time.
        let other = app.new_user("other.admin@example.com").await;
        let other_company = app.new_company(&other, "Other").await;
        app.hire(&other, other_company, &c.worker).await;
        let body = app.as_user(&other, &user_days(), json!({ "u": c.worker.id })).await;
        assert!(body["errors"].is_null(), "{body}");
        assert_eq!(nodes(&body["data"]["user"]["workDays"]).len(), 0, "{body}");
        // A stranger is refused.
        let stranger = app.new_user("stranger@example.com").await;
        let (_, body) = app.graphql(&user_days(), json!({ "u": stranger.id }), Some(&c.worker.token)).await;
        assert_eq!(codes(&body), ["AUTHORIZATION_ERROR"], "{body}");
    }

    async fn a_company_reads_its_workers_days_of_work(app) {
        let c = company(app).await;
        let (morning, afternoon, yesterday) = record(app, &c).await;
        let colleague = app.new_user("colleague@example.com").await;
        app.hire_a_week_ago(&c.admin, c.id, &colleague).await;
        sqlx::query("UPDATE employments SET start_date = '2020-01-01'")
            .execute(&app.server.db.pool)
            .await
            .unwrap();
        let theirs = mission(app, &colleague, c.id, &[("work", day(3) + 9 * HOUR, day(3) + 10 * HOUR)]).await;

        let body = app.as_user(&c.admin, &company_days(), json!({ "c": c.id })).await;
        assert!(body["errors"].is_null(), "{body}");
        let days = nodes(&body["data"]["company"]["workDays"]);
        let keys: Vec<(Value, Value)> = days.iter().map(|d| (d["day"].clone(), d["userId"].clone())).collect();
        // User ids are random: on one day, the higher id comes first.
        let (high, low) = (c.worker.id.max(colleague.id), c.worker.id.min(colleague.id));
        assert_eq!(
            keys,
            [
                (json!(date(day(1))), json!(c.worker.id)),
                (json!(date(day(3))), json!(high)),
                (json!(date(day(3))), json!(low)),
            ]
        );
        let of = |user: i64, when: i64| {
            days.iter()
                .find(|d| d["userId"] == user && d["day"] == date(when))
                .unwrap()
                .clone()
        };
        let mut names = serde_json::Map::new();
        names.insert(morning.to_string(), json!("Tour"));
        names.insert(afternoon.to_string(), json!("Tour"));
        assert_eq!(
            of(c.worker.id, day(3)),
            json!({
                "day": date(day(3)), "userId": c.worker.id, "startTime": day(3) + 8 * HOUR, "endTime": day(3) + 15 * HOUR,
                "lastActivityStartTime": day(3) + 14 * HOUR, "serviceDuration": 7 * HOUR, "totalWorkDuration": 4 * HOUR,
                "activityDurations": durations(2 * HOUR, HOUR, HOUR, 0),
                "expenditures": { "day_meal": 1, "night_meal": 0, "sleep_over": 0, "snack": 0 },
                "missionNames": Value::Object(names), "user": { "id": c.worker.id },
            })
        );
        assert_eq!(of(c.worker.id, day(1))["missionNames"], json!({ yesterday.to_string(): "Tour" }));
        assert_eq!(of(colleague.id, day(3))["missionNames"], json!({ theirs.to_string(): "Tour" }));

        // Paging within a day: the cursor carries the day and the user.
        let body = app.as_user(&c.admin, &company_days(), json!({ "c": c.id, "n": 2 })).await;
        let page = &body["data"]["company"]["workDays"];
        assert_eq!(page["pageInfo"]["hasNextPage"], true);
        let body = app
            .as_user(&c.admin, &company_days(), json!({ "c": c.id, "n": 2, "a": page["pageInfo"]["endCursor"] }))
            .await;
        let rest = nodes(&body["data"]["company"]["workDays"]);
        assert_eq!(rest.iter().map(|d| d["userId"].clone()).collect::<Vec<_>>(), [json!(low)]);
        assert_eq!(rest[0]["day"], date(day(3)));

        // Only some workers.
        let body = app.as_user(&c.admin, &company_days(), json!({ "c": c.id, "u": [colleague.id] })).await;
        assert_eq!(nodes(&body["data"]["company"]["workDays"]).len(), 1);

        // A running day has no end.
        let now = chrono::Utc::now().timestamp() / 60 * 60;
        let body = app
            .as_user(
                &colleague,
                "mutation($c: Int!) { activities { createMission(companyId: $c) { id } } }",
                json!({ "c": c.id }),
            )
            .await;
        let running = body["data"]["activities"]["createMission"]["id"].as_i64().unwrap();
        let body = app
            .as_user(
                &colleague,
                "mutation($m: Int!, $s: TimeStamp!) { activities { logActivity(missionId: $m, type: \"drive\", startTime: $s, switch: true) { id } } }",
                json!({ "m": running, "s": now - 120 }),
            )
            .await;
        assert!(body["errors"].is_null(), "{body}");
        let body = app.as_user(&c.admin, &company_days(), json!({ "c": c.id, "n": 1 })).await;
        let today = &nodes(&body["data"]["company"]["workDays"])[0];
        assert_eq!(today["userId"], colleague.id, "{body}");
        assert_eq!(today["endTime"], Value::Null);
        assert!(today["serviceDuration"].as_i64().unwrap() >= 120, "{today}");

        // Company admins only; a bad cursor is refused.
        let body = app.as_user(&c.worker, &company_days(), json!({ "c": c.id })).await;
        assert_eq!(codes(&body), ["AUTHORIZATION_ERROR"], "{body}");
        assert_eq!(body["data"]["company"]["workDays"], Value::Null);
        let body = app.as_user(&c.admin, &company_days(), json!({ "c": c.id, "a": "bm90IGEgY3Vyc29y" })).await;
        assert_eq!(codes(&body), ["INVALID_INPUTS"], "{body}");
    }
}
