//! The Excel activity report as a background job, from outside, on both databases: queue it,
//! let the service's worker build it, check out its link, download the workbook and read it
//! back with an independent reader (`calamine`); cancel; the lease between claimers; the link's
//! refusals; the statuses of bad requests; the signature check of a workbook; a user's full data
//! on refusing the terms of use.

use std::io::{Cursor, Read};
use std::time::Duration;

use calamine::{Data, DataType, Reader, Xlsx, open_workbook_from_rs};
use chrono::NaiveDate;
use reqwest::StatusCode;
use serde_json::{Value, json};

use roadlog::domain::export::jobs::links::LinkKey;
use roadlog::domain::export::jobs::store;
use roadlog::domain::export::workbook::signature::{self, Verdict};

use crate::support::local::paris;
use crate::support::{TestApp, TestUser};

mod detail;
mod lease;
mod refused_cgu;
mod scale;
mod signature_check;
mod workbook;

struct Company {
    admin: TestUser,
    id: i64,
    workers: Vec<i64>,
}

async fn company(app: &TestApp) -> Company {
    let admin = app.new_user("admin@example.com").await;
    let id = app.new_company(&admin, "Transports Martin").await;
    let mut tx = app.server.db.pool.begin().await.unwrap();
    let workers = crate::support::employments::insert_bare_employees(&mut tx, id, 500_000_000, 3).await;
    tx.commit().await.unwrap();
    Company { admin, id, workers }
}

async fn exec(app: &TestApp, sql: &'static str, binds: &[Value]) -> i64 {
    let mut query = sqlx::query_as::<_, (i64,)>(sql);
    for b in binds {
        query = match b {
            Value::Number(n) => query.bind(n.as_i64().unwrap()),
            Value::String(s) => query.bind(s.clone()),
            _ => query.bind(None::<i64>),
        };
    }
    query
        .fetch_optional(&app.server.db.pool)
        .await
        .unwrap()
        .map_or(0, |r| r.0)
}

async fn activity(app: &TestApp, mission: i64, user: i64, kind: &str, start: i64, end: i64) {
    exec(
        app,
        "INSERT INTO activities (mission_id, user_id, submitter_id, type, reception_time, creation_time, start_time, end_time, last_update_time) \
         VALUES ($1, $2, $2, $3, $4, $4, $4, $5, $5) RETURNING id",
        &[json!(mission), json!(user), json!(kind), json!(start), json!(end)],
    )
    .await;
}

/// Worker 0's week of 9–15 March 2026: a long Tuesday (night work at both ends, a vehicle,
/// places with odometer readings, a lunch, a comment) and a short Sunday.
async fn week_of_work(app: &TestApp, c: &Company) {
    let w = c.workers[0];
    let vehicle = exec(
        app,
        "INSERT INTO vehicles (company_id, registration_number, creation_time) VALUES ($1, 'AB-123-CD', 0) RETURNING id",
        &[json!(c.id)],
    )
    .await;
    let mission = exec(
        app,
        "INSERT INTO missions (name, company_id, submitter_id, reception_time, creation_time, vehicle_id) \
         VALUES ('Livraison Lyon', $1, $2, 0, 0, $3) RETURNING id",
        &[json!(c.id), json!(w), json!(vehicle)],
    )
    .await;
    activity(
        app,
        mission,
        w,
        "drive",
        paris("2026-03-10", 5, 0),
        paris("2026-03-10", 7, 30),
    )
    .await;
    activity(
        app,
        mission,
        w,
        "work",
        paris("2026-03-10", 8, 0),
        paris("2026-03-10", 12, 0),
    )
    .await;
    activity(
        app,
        mission,
        w,
        "support",
        paris("2026-03-10", 20, 0),
        paris("2026-03-10", 22, 15),
    )
    .await;
    for (kind, name, postal, city, km) in [
        ("mission_start_location", "Dépôt", "75001", "Paris", 1000),
        ("mission_end_location", "Quai 4", "69001", "Lyon", 1180),
    ] {
        exec(
            app,
            "INSERT INTO location_entries (mission_id, type, submitter_id, reception_time, creation_time, name, postal_code, city, kilometer_reading) \
             VALUES ($1, $2, $3, 0, 0, $4, $5, $6, $7) RETURNING id",
            &[json!(mission), json!(kind), json!(w), json!(name), json!(postal), json!(city), json!(km)],
        )
        .await;
    }
    exec(
        app,
        "INSERT INTO expenditures (mission_id, user_id, submitter_id, type, spending_date, reception_time, creation_time) \
         VALUES ($1, $2, $2, 'day_meal', '2026-03-10', 0, 0) RETURNING id",
        &[json!(mission), json!(w)],
    )
    .await;
    exec(
        app,
        "INSERT INTO comments (mission_id, submitter_id, text, reception_time) VALUES ($1, $2, 'Route barrée', 0) RETURNING id",
        &[json!(mission), json!(w)],
    )
    .await;
    let sunday = exec(
        app,
        "INSERT INTO missions (name, company_id, submitter_id, reception_time, creation_time) VALUES ('Retour', $1, $2, 0, 0) RETURNING id",
        &[json!(c.id), json!(w)],
    )
    .await;
    activity(
        app,
        sunday,
        w,
        "work",
        paris("2026-03-15", 9, 0),
        paris("2026-03-15", 10, 30),
    )
    .await;
}

async fn post(app: &TestApp, path: &str, user: Option<&TestUser>, body: Option<Value>) -> (StatusCode, Value) {
    let mut request = app.client.post(app.url(path));
    if let Some(body) = body {
        request = request.json(&body);
    }
    if let Some(user) = user {
        request = request.bearer_auth(&user.token);
    }
    let response = request.send().await.unwrap();
    let status = response.status();
    (status, response.json().await.unwrap_or(Value::Null))
}

async fn exports(app: &TestApp) -> i64 {
    app.scalar("SELECT COUNT(*) FROM exports").await
}

/// How long a test waits for the service's worker to build its reports: far more than they take,
/// so that a loaded machine (the whole suite at once on two cores, debug builds) never fails a
/// test that only waits.
const BUILD_DEADLINE: Duration = Duration::from_secs(300);

/// Checks out until a link comes (the worker builds in the background).
async fn link_of(app: &TestApp, admin: &TestUser) -> String {
    let deadline = std::time::Instant::now() + BUILD_DEADLINE;
    while std::time::Instant::now() < deadline {
        let (status, body) = post(app, "/exports/checkout", Some(admin), None).await;
        assert_eq!(status, StatusCode::OK, "{body}");
        if let Some(link) = body["ready_exports_links"].as_array().and_then(|l| l.first()) {
            assert_eq!(body["ready_exports_links"].as_array().unwrap().len(), 1, "{body}");
            return link.as_str().unwrap().to_string();
        }
        assert_eq!(body["nb_wip_exports"], 1, "{body}");
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
    panic!("the report was not built in time");
}

fn minutes(cell: Option<&Data>) -> i64 {
    let days = match cell {
        Some(Data::Float(f)) => *f,
        Some(Data::Int(i)) => *i as f64,
        Some(Data::DateTime(d)) => d.as_f64(),
        other => panic!("not a number: {other:?}"),
    };
    (days * 1440.0).round() as i64
}

fn text(cell: Option<&Data>) -> String {
    match cell {
        Some(Data::String(s)) => s.clone(),
        Some(Data::Empty) | None => String::new(),
        other => panic!("not a text: {other:?}"),
    }
}

fn excel_day(date: &str) -> i64 {
    let d = NaiveDate::parse_from_str(date, "%Y-%m-%d").unwrap();
    (d - NaiveDate::from_ymd_opt(1899, 12, 30).unwrap()).num_days()
}

/// A report whose job is in the queue.
async fn queued(app: &TestApp, c: &Company) {
    let body = json!({ "company_ids": [c.id], "min_date": "2026-03-09", "max_date": "2026-03-15" });
    let (status, _) = post(app, "/companies/download_activity_report", Some(&c.admin), Some(body)).await;
    assert_eq!(status, StatusCode::ACCEPTED);
}

async fn statuses(app: &TestApp) -> Vec<String> {
    let rows: Vec<(String,)> = sqlx::query_as("SELECT status FROM exports ORDER BY id")
        .fetch_all(&app.server.db.pool)
        .await
        .unwrap();
    rows.into_iter().map(|r| r.0).collect()
}

/// Checks out until a link comes, whatever else is in progress.
async fn link_of_any(app: &TestApp, admin: &TestUser) -> String {
    let deadline = std::time::Instant::now() + BUILD_DEADLINE;
    while std::time::Instant::now() < deadline {
        let (_, body) = post(app, "/exports/checkout", Some(admin), None).await;
        if let Some(link) = body["ready_exports_links"].as_array().and_then(|l| l.first()) {
            return link.as_str().unwrap().to_string();
        }
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
    panic!("the report was not built in time");
}
