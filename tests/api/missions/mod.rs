//! Missions, activities and expenditures over the real HTTP API, on both databases: every
//! mutation's success path, each error code of the recording rules, the validation locks, the
//! permissions, a partial result, the concurrency guarantee, and a driver's day as a scenario.

use serde_json::{Value, json};

use crate::support::{TestApp, TestUser, codes};

mod concurrency;
mod lifecycle;
mod rules;
mod scenario;

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
