//! The Excel activity report as a background job, from outside, on both databases: queue it,
//! let the service's worker build it, check out its link, download the workbook and read it
//! back with an independent reader (`calamine`); cancel; the lease between claimers; the link's
//! refusals; the statuses of bad requests.

use std::io::{Cursor, Read};
use std::time::Duration;

use calamine::{Data, DataType, Reader, Xlsx, open_workbook_from_rs};
use chrono::{NaiveDate, TimeZone};
use reqwest::StatusCode;
use serde_json::{Value, json};

use roadlog::domain::export::jobs::links::LinkKey;
use roadlog::domain::export::jobs::store;
use roadlog::domain::export::workbook::signature::{self, Verdict};

use crate::support::{TestApp, TestUser};

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

/// Unix seconds of a Paris wall-clock time.
fn paris(day: &str, hour: u32, minute: u32) -> i64 {
    let d = NaiveDate::parse_from_str(day, "%Y-%m-%d").unwrap();
    chrono_tz::Europe::Paris
        .from_local_datetime(&d.and_hms_opt(hour, minute, 0).unwrap())
        .unwrap()
        .timestamp()
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

/// Checks out until a link comes (the worker builds in the background).
async fn link_of(app: &TestApp, admin: &TestUser) -> String {
    for _ in 0..240 {
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

on_both_backends! {
    async fn a_queued_report_is_built_checked_out_once_and_downloaded(app) {
        let c = company(app).await;
        week_of_work(app, &c).await;
        let body = json!({ "company_ids": [c.id], "min_date": "2026-03-09", "max_date": "2026-03-15" });
        let (status, answer) = post(app, "/companies/download_activity_report", Some(&c.admin), Some(body)).await;
        assert_eq!((status, answer), (StatusCode::ACCEPTED, json!({ "result": "ok" })));
        assert_eq!(exports(app).await, 1);
        let link = link_of(app, &c.admin).await;
        assert!(link.starts_with(&format!("{}/exports/download?export_id=", app.server.url())), "{link}");

        // Handed out once: the second checkout has nothing.
        let (_, again) = post(app, "/exports/checkout", Some(&c.admin), None).await;
        assert_eq!(again, json!({ "nb_wip_exports": 0, "ready_exports_links": [] }));

        // The link works alone.
        let response = app.client.get(&link).send().await.unwrap();
        assert_eq!(response.status(), StatusCode::OK);
        let headers = response.headers().clone();
        assert_eq!(headers["content-type"], "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet");
        assert_eq!(
            headers["content-disposition"],
            "attachment; filename=\"rapport_activites.xlsx\"; filename*=UTF-8''rapport_activit%C3%A9s.xlsx"
        );
        let bytes = response.bytes().await.unwrap();
        let row: (String, i64, Option<String>) = sqlx::query_as("SELECT status, file_size, failure_reason FROM exports")
            .fetch_one(&app.server.db.pool)
            .await
            .unwrap();
        assert_eq!(row, ("downloaded".to_string(), bytes.len() as i64, None));

        // Signed with the service's key; a changed byte of the sheet breaks the signature.
        let key = roadlog::domain::export::jobs::build::signing_key(&app.server.db).await.unwrap();
        assert_eq!(signature::verify(&bytes, &key), Verdict::Valid);
        assert_eq!(signature::verify(&bytes, &[0; 32]), Verdict::SignatureDoesNotMatch);
        let mut workbook: Xlsx<_> = open_workbook_from_rs(Cursor::new(bytes.to_vec())).unwrap();
        assert_eq!(workbook.sheet_names(), ["Activités"]);
        let sheet = workbook.worksheet_range("Activités").unwrap();
        let at = |r: u32, col: u32| sheet.get_value((r, col));
        assert_eq!(text(at(0, 0)), "Entreprise : Transports Martin");
        assert_eq!(text(at(1, 0)), "Date des données exportées : du 09/03/2026 au 15/03/2026");
        assert_eq!(text(at(0, 4)), "Légende :");
        assert_eq!(text(at(0, 6)), "Dimanches ou jours fériés : jours de travail majorés");
        let header: Vec<String> = (0..25).map(|col| text(at(4, col))).collect();
        assert_eq!(
            header,
            [
                "Employé", "Jour", "Mission(s)", "Véhicule(s)", "Début", "Fin", "Conduite", "Accompagnement",
                "Autre tâche", "Total travail", "Heures au tarif nuit", "Pause", "Amplitude",
                "Lieu de début de service",
                "Relevé km de début de service (si même véhicule utilisé au cours de la journée)",
                "Lieu de fin de service",
                "Relevé km de fin de service (si même véhicule utilisé au cours de la journée)",
                "Nombre de kilomètres parcourus", "Repas midi", "Repas soir", "Découcher", "Casse-croûte",
                "Heures congés ou absences", "Motif congé ou absence", "Observations",
            ]
        );
        assert_eq!(text(at(5, 0)), format!("Jean Driver0\nIdentifiant : {}", c.workers[0]));
        // Tuesday 10 March, minute for minute.
        assert_eq!(minutes(at(5, 1)), excel_day("2026-03-10") * 1440);
        assert_eq!((text(at(5, 2)), text(at(5, 3))), ("Livraison Lyon".to_string(), "AB-123-CD".to_string()));
        let figures: Vec<i64> = (4..13).map(|col| minutes(at(5, col))).collect();
        // Start, end, drive, support, other work, total, night, break, amplitude.
        assert_eq!(figures, [5 * 60, 22 * 60 + 15, 150, 135, 240, 525, 60 + 75, 1035 - 525, 1035]);
        assert_eq!(text(at(5, 13)), "Dépôt 75001 Paris");
        assert_eq!(text(at(5, 15)), "Quai 4 69001 Lyon");
        let counts: Vec<f64> = [14, 16, 17, 18, 19, 20, 21].iter().map(|col| at(5, *col).and_then(|d| d.as_f64()).unwrap()).collect();
        assert_eq!(counts, [1000.0, 1180.0, 180.0, 1.0, 0.0, 0.0, 0.0]);
        assert_eq!(minutes(at(5, 22)), 0);
        assert_eq!(text(at(5, 24)), " - Route barrée");
        // Sunday 15 March: no vehicle, so no odometer.
        assert_eq!(minutes(at(6, 1)), excel_day("2026-03-15") * 1440);
        let figures: Vec<i64> = (4..13).map(|col| minutes(at(6, col))).collect();
        assert_eq!(figures, [9 * 60, 10 * 60 + 30, 0, 0, 90, 90, 0, 0, 90]);
        assert_eq!(text(at(6, 3)), "");
        assert!(matches!(at(6, 14), Some(Data::Empty) | None), "{:?}", at(6, 14));
        // Totals two rows below the last day.
        assert_eq!(text(at(8, 4)), "Total Jean Driver0");
        let totals: Vec<i64> = (6..12).map(|col| minutes(at(8, col))).collect();
        assert_eq!(totals, [150, 135, 330, 615, 135, 510]);
        assert_eq!(at(8, 17).and_then(|d| d.as_f64()), Some(180.0));
        assert_eq!(at(8, 18).and_then(|d| d.as_f64()), Some(1.0));
        // The workers without time are listed after the blocks.
        assert_eq!(
            text(at(11, 0)),
            "Cette période ne contient pas de temps de travail pour les salariés suivants :"
        );
        let idle: Vec<String> = (12..20).map(|r| text(at(r, 0))).filter(|t| !t.is_empty()).collect();
        assert!(idle.contains(&"• Jean Driver1".to_string()) && idle.contains(&"• Jean Driver2".to_string()), "{idle:?}");
        assert!(!idle.iter().any(|t| t.contains("Driver0")), "{idle:?}");
    }

    async fn days_are_cut_in_the_workers_time_zone(app) {
        let c = company(app).await;
        week_of_work(app, &c).await;
        // Guadeloupe is five hours behind Paris in March: the Tuesday runs 00:00–17:15 there.
        sqlx::query("UPDATE users SET timezone_name = 'America/Guadeloupe' WHERE id = $1")
            .bind(c.workers[0])
            .execute(&app.server.db.pool)
            .await
            .unwrap();
        let body = json!({ "company_ids": [c.id], "user_ids": [c.workers[0]], "min_date": "2026-03-10", "max_date": "2026-03-10" });
        post(app, "/companies/download_activity_report", Some(&c.admin), Some(body)).await;
        let link = link_of(app, &c.admin).await;
        let bytes = app.client.get(&link).send().await.unwrap().bytes().await.unwrap();
        let mut workbook: Xlsx<_> = open_workbook_from_rs(Cursor::new(bytes.to_vec())).unwrap();
        let sheet = workbook.worksheet_range("Activités").unwrap();
        assert_eq!(minutes(sheet.get_value((5, 1))), excel_day("2026-03-10") * 1440);
        let figures: Vec<i64> = (4..13).map(|col| minutes(sheet.get_value((5, col)))).collect();
        // Night work is now 00:00–02:30 driving and 03:00–06:00 of other work.
        assert_eq!(figures, [0, 17 * 60 + 15, 150, 135, 240, 525, 150 + 180, 1035 - 525, 1035]);
        // A single day: the totals row is two rows below it.
        assert_eq!(minutes(sheet.get_value((7, 9))), 525);
    }

    async fn the_link_is_refused_when_tampered_expired_or_its_file_gone(app) {
        let c = company(app).await;
        week_of_work(app, &c).await;
        let body = json!({ "company_ids": [c.id], "user_ids": [c.workers[0]], "min_date": "2026-03-09", "max_date": "2026-03-15" });
        post(app, "/companies/download_activity_report", Some(&c.admin), Some(body)).await;
        let link = link_of(app, &c.admin).await;
        let id: i64 = app.scalar("SELECT id FROM exports").await;
        let refused = |response: reqwest::Response| async move {
            let status = response.status();
            (status, response.json::<Value>().await.unwrap()["error_code"].clone())
        };
        let forbidden = (StatusCode::FORBIDDEN, json!("AUTHORIZATION_ERROR"));
        // Another signature, another job, no parameters.
        let last = if link.ends_with('0') { '1' } else { '0' };
        let tampered = format!("{}{last}", &link[..link.len() - 1]);
        assert_eq!(refused(app.client.get(&tampered).send().await.unwrap()).await, forbidden);
        let other = link.replace(&format!("export_id={id}"), &format!("export_id={}", id + 1));
        assert_eq!(refused(app.client.get(&other).send().await.unwrap()).await, forbidden);
        let bare = app.client.get(app.url("/exports/download")).send().await.unwrap();
        assert_eq!(bare.status(), StatusCode::FORBIDDEN);
        // Signed by the service's key but expired.
        let key = LinkKey::load(&app.server.db).await.unwrap();
        let past = chrono::Utc::now().timestamp() - 1;
        let expired = app.url(&format!("/exports/download?export_id={id}&expires={past}&signature={}", key.sign(id, past)));
        assert_eq!(refused(app.client.get(&expired).send().await.unwrap()).await, forbidden);
        // The genuine link works, until the file is removed (its retention over).
        assert_eq!(app.client.get(&link).send().await.unwrap().status(), StatusCode::OK);
        sqlx::query("UPDATE export_files SET expires_at = 0").execute(&app.server.db.pool).await.unwrap();
        let gone = refused(app.client.get(&link).send().await.unwrap()).await;
        assert_eq!(gone, (StatusCode::NOT_FOUND, json!("NOT_FOUND")));
        // The workers' upkeep removes expired files.
        // (The worker's own upkeep may have come first.)
        assert!(store::upkeep(&app.server.db).await.unwrap() <= 1);
        assert_eq!(app.scalar("SELECT COUNT(*) FROM export_files").await, 0);
    }

    async fn several_files_come_as_one_zip_and_an_empty_report_fails(app) {
        let c = company(app).await;
        week_of_work(app, &c).await;
        let body = json!({ "company_ids": [c.id], "user_ids": [c.workers[0], c.workers[1]], "one_file_by_employee": true,
                           "min_date": "2026-03-09", "max_date": "2026-03-15" });
        post(app, "/companies/download_activity_report", Some(&c.admin), Some(body)).await;
        let link = link_of(app, &c.admin).await;
        let response = app.client.get(&link).send().await.unwrap();
        assert_eq!(response.headers()["content-type"], "application/zip");
        assert_eq!(
            response.headers()["content-disposition"],
            "attachment; filename=\"rapport_activites.zip\"; filename*=UTF-8''rapport_activit%C3%A9s.zip"
        );
        let bytes = response.bytes().await.unwrap();
        let mut zip = zip::ZipArchive::new(Cursor::new(bytes.to_vec())).unwrap();
        let names: Vec<String> = (0..zip.len()).map(|i| zip.by_index(i).unwrap().name().unwrap().to_string()).collect();
        assert_eq!(names, ["rapport_activités_Driver0_Jean.xlsx", "rapport_activités_Driver1_Jean_vide.xlsx"]);
        let mut first = Vec::new();
        zip.by_index(0).unwrap().read_to_end(&mut first).unwrap();
        let mut workbook: Xlsx<_> = open_workbook_from_rs(Cursor::new(first)).unwrap();
        let sheet = workbook.worksheet_range("Activités").unwrap();
        assert_eq!(minutes(sheet.get_value((5, 9))), 525);

        // No worker at all: the job fails with the reference's message, and is never listed.
        let body = json!({ "company_ids": [c.id], "user_ids": [999_999_999], "min_date": "2026-03-09", "max_date": "2026-03-15" });
        post(app, "/companies/download_activity_report", Some(&c.admin), Some(body)).await;
        let mut reason = None;
        for _ in 0..120 {
            let row: Option<(String, Option<String>)> =
                sqlx::query_as("SELECT status, failure_reason FROM exports WHERE status = 'failed'")
                    .fetch_optional(&app.server.db.pool)
                    .await
                    .unwrap();
            if let Some(row) = row {
                reason = Some(row);
                break;
            }
            tokio::time::sleep(Duration::from_millis(250)).await;
        }
        assert_eq!(reason, Some(("failed".to_string(), Some("Aucune donnée à exporter.".to_string()))));
        let (_, body) = post(app, "/exports/checkout", Some(&c.admin), None).await;
        assert_eq!(body, json!({ "nb_wip_exports": 0, "ready_exports_links": [] }));
    }

    async fn bad_requests_queue_nothing(app) {
        let c = company(app).await;
        let stranger = app.new_user("stranger@example.com").await;
        let (status, body) = post(app, "/companies/download_activity_report", Some(&c.admin), Some(json!({ "company_ids": [] }))).await;
        assert_eq!((status, &body["error_code"]), (StatusCode::UNPROCESSABLE_ENTITY, &json!("INVALID_INPUTS")), "{body}");
        let (status, body) = post(app, "/companies/download_activity_report", Some(&c.admin), Some(json!({ "company_ids": [c.id], "min_date": "10/03/2026" }))).await;
        assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{body}");
        assert!(body["details"]["min_date"].is_array(), "{body}");
        let (status, _) = post(app, "/companies/download_activity_report", None, Some(json!({ "company_ids": [c.id] }))).await;
        assert_eq!(status, StatusCode::UNAUTHORIZED);
        let (status, body) = post(app, "/companies/download_activity_report", Some(&stranger), Some(json!({ "company_ids": [c.id] }))).await;
        assert_eq!((status, &body["error_code"]), (StatusCode::FORBIDDEN, &json!("AUTHORIZATION_ERROR")));
        for path in ["/exports/checkout", "/exports/cancel"] {
            let (status, _) = post(app, path, None, None).await;
            assert_eq!(status, StatusCode::UNAUTHORIZED, "{path}");
        }
        assert_eq!(exports(app).await, 0);
        // Another user's checkout sees nothing of the admin's reports.
        post(app, "/companies/download_activity_report", Some(&c.admin), Some(json!({ "company_ids": [c.id], "user_ids": [999_999_999] }))).await;
        let (_, body) = post(app, "/exports/checkout", Some(&stranger), None).await;
        assert_eq!(body, json!({ "nb_wip_exports": 0, "ready_exports_links": [] }));
    }
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

for_both_backends! {
    async fn a_cancelled_job_stays_cancelled_and_claims_are_exclusive(backend) {
        // No worker in this server: the test's claimers are the only ones.
        let app = TestApp::spawn_with(backend, |s| s.export_workers = 0).await;
        let c = company(&app).await;
        week_of_work(&app, &c).await;
        let db = &app.server.db;
        for _ in 0..6 {
            queued(&app, &c).await;
        }
        // Eight claimers at once, each claiming until the queue is empty: every job once.
        let claimers: Vec<_> = (0..8)
            .map(|i| {
                let db = db.clone();
                tokio::spawn(async move {
                    let mut got = Vec::new();
                    while let Some(job) = store::claim(&db, &format!("claimer{i}"), 600).await.unwrap() {
                        got.push(job.id);
                    }
                    got
                })
            })
            .collect();
        let mut claimed = Vec::new();
        for claimer in claimers {
            claimed.extend(claimer.await.unwrap());
        }
        claimed.sort_unstable();
        let all: Vec<i64> = sqlx::query_as::<_, (i64,)>("SELECT id FROM exports ORDER BY id")
            .fetch_all(&db.pool).await.unwrap().into_iter().map(|r| r.0).collect();
        assert_eq!(claimed, all, "each job claimed exactly once");

        // A job under a live lease is not claimed again; the checkout counts it.
        assert!(store::claim(db, "late", 600).await.unwrap().is_none());
        let (_, body) = post(&app, "/exports/checkout", Some(&c.admin), None).await;
        assert_eq!(body, json!({ "nb_wip_exports": 6, "ready_exports_links": [] }));

        // Cancelled while being built: the builder's result is not stored.
        let (status, body) = post(&app, "/exports/cancel", Some(&c.admin), None).await;
        assert_eq!((status, body), (StatusCode::OK, json!({ "result": "ok" })));
        let first = all[0];
        let owner: String = sqlx::query_as::<_, (Option<String>,)>("SELECT claimed_by FROM exports WHERE id = $1")
            .bind(first).fetch_one(&db.pool).await.unwrap().0.unwrap_or_default();
        assert_eq!(owner, "", "a cancelled job has no claim");
        let file = store::File { name: "x.xlsx".into(), content_type: "application/zip", bytes: vec![1, 2, 3] };
        for i in 0..8 {
            assert!(!store::finish(db, &format!("claimer{i}"), first, &file, 5).await.unwrap());
        }
        assert_eq!(statuses(&app).await, vec!["cancelled"; 6]);
        assert_eq!(app.scalar("SELECT COUNT(*) FROM export_files").await, 0);
        let (_, body) = post(&app, "/exports/checkout", Some(&c.admin), None).await;
        assert_eq!(body, json!({ "nb_wip_exports": 0, "ready_exports_links": [] }));

        // Ten reports in progress at most per user.
        for _ in 0..10 {
            queued(&app, &c).await;
        }
        let body = json!({ "company_ids": [c.id] });
        let response = app.client.post(app.url("/companies/download_activity_report")).bearer_auth(&c.admin.token).json(&body).send().await.unwrap();
        assert_eq!(response.status(), StatusCode::TOO_MANY_REQUESTS);
        assert_eq!(response.headers()["retry-after"], "60");
        assert_eq!(response.json::<Value>().await.unwrap()["error_code"], "TOO_MANY_EXPORTS");
        assert_eq!(exports(&app).await, 16);
        app.cleanup().await;
    }

    async fn a_job_whose_builder_died_is_claimed_again_and_finished(backend) {
        let app = TestApp::spawn_with(backend, |s| s.export_workers = 0).await;
        let c = company(&app).await;
        week_of_work(&app, &c).await;
        let db = app.server.db.clone();
        queued(&app, &c).await;
        queued(&app, &c).await;
        // One claimed by a builder still running, the other by one that died (its lease is over).
        let alive = store::claim(&db, "alive", 600).await.unwrap().unwrap();
        let dead = store::claim(&db, "dead", -5).await.unwrap().unwrap();
        assert!(alive.id < dead.id);

        let (stop, stopped) = tokio::sync::watch::channel(false);
        let key = roadlog::domain::export::jobs::build::signing_key(&db).await.unwrap();
        let worker = roadlog::domain::export::jobs::worker::spawn(db.clone(), 2, key, stopped);
        let link = link_of_any(&app, &c.admin).await;
        assert!(link.contains(&format!("export_id={}&", dead.id)), "{link}");
        let rows: Vec<(i64, String, i64)> = sqlx::query_as("SELECT id, status, attempts FROM exports ORDER BY id")
            .fetch_all(&db.pool).await.unwrap();
        assert_eq!(rows, [(alive.id, "work_in_progress".to_string(), 1), (dead.id, "downloaded".to_string(), 2)]);
        let _ = stop.send(true);
        worker.await.unwrap();
        // A job whose builders died three times is given up.
        sqlx::query("UPDATE exports SET attempts = 3, claimed_until = 0 WHERE id = $1")
            .bind(alive.id)
            .execute(&db.pool)
            .await
            .unwrap();
        store::upkeep(&db).await.unwrap();
        let row: (String, Option<String>) = sqlx::query_as("SELECT status, failure_reason FROM exports WHERE id = $1")
            .bind(alive.id)
            .fetch_one(&db.pool)
            .await
            .unwrap();
        assert_eq!(row, ("failed".to_string(), Some(store::ABANDONED.to_string())));
        app.cleanup().await;
    }
}

for_both_backends! {
    async fn two_instances_on_one_database_build_each_report_once(backend) {
        let app = TestApp::spawn(backend).await;
        let c = company(&app).await;
        week_of_work(&app, &c).await;
        // A second instance of the service on the same database, with its own worker.
        let mut settings = roadlog::config::Settings::new(roadlog::config::Environment::Sandbox, Some(app.database_url.clone()));
        settings.card_key_pool = 0;
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let second = roadlog::server::start(&settings, listener).await.unwrap();
        for _ in 0..8 {
            queued(&app, &c).await;
        }
        let mut links = Vec::new();
        for _ in 0..240 {
            let (_, body) = post(&app, "/exports/checkout", Some(&c.admin), None).await;
            links.extend(body["ready_exports_links"].as_array().unwrap().iter().map(|l| l.as_str().unwrap().to_string()));
            if links.len() >= 8 {
                break;
            }
            tokio::time::sleep(Duration::from_millis(250)).await;
        }
        assert_eq!(links.len(), 8, "every report handed out once");
        let rows: Vec<(String, i64)> = sqlx::query_as("SELECT status, attempts FROM exports ORDER BY id")
            .fetch_all(&app.server.db.pool)
            .await
            .unwrap();
        assert_eq!(rows, vec![("downloaded".to_string(), 1); 8], "each report claimed and built once");
        // Either instance serves any link: the file is in the database, the key shared.
        let served = reqwest::get(links[0].replace(&app.server.url(), &second.url())).await.unwrap();
        assert_eq!(served.status(), StatusCode::OK);
        second.stop().await;
        app.cleanup().await;
    }
}

/// Checks out until a link comes, whatever else is in progress.
async fn link_of_any(app: &TestApp, admin: &TestUser) -> String {
    for _ in 0..240 {
        let (_, body) = post(app, "/exports/checkout", Some(admin), None).await;
        if let Some(link) = body["ready_exports_links"].as_array().and_then(|l| l.first()) {
            return link.as_str().unwrap().to_string();
        }
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
    panic!("the report was not built in time");
}
