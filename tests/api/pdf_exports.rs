//! `POST /users/generate_pdf_export`, the worker's own "Relevé d'heures", over the real HTTP API
//! on both databases: the PDF's status and headers, and its text read back by an independent
//! reader (`pdf-extract`): the title, the worker's days minute for minute, the marks, the
//! accents, the footer of every page; the 422 of a period over a year and of bad bodies, the 401.

use reqwest::StatusCode;
use serde_json::{Value, json};

use crate::support::local::paris;
use crate::support::{TestApp, TestUser};

async fn insert(app: &TestApp, sql: &'static str, binds: &[i64]) -> i64 {
    let mut query = sqlx::query_as::<_, (i64,)>(sql);
    for b in binds {
        query = query.bind(*b);
    }
    query.fetch_one(&app.server.db.pool).await.unwrap().0
}

async fn mission(app: &TestApp, company: i64, worker: i64, name: &str) -> i64 {
    sqlx::query_as::<_, (i64,)>(
        "INSERT INTO missions (name, company_id, submitter_id, reception_time, creation_time) VALUES ($1, $2, $3, 0, 0) RETURNING id",
    )
    .bind(name)
    .bind(company)
    .bind(worker)
    .fetch_one(&app.server.db.pool)
    .await
    .unwrap()
    .0
}

async fn activity(app: &TestApp, mission: i64, user: i64, kind: &str, start: i64, end: i64) {
    sqlx::query(
        "INSERT INTO activities (mission_id, user_id, submitter_id, type, reception_time, creation_time, start_time, end_time, last_update_time) \
         VALUES ($1, $2, $2, $3, $4, $4, $4, $5, $5)",
    )
    .bind(mission)
    .bind(user)
    .bind(kind)
    .bind(start)
    .bind(end)
    .execute(&app.server.db.pool)
    .await
    .unwrap();
}

/// Élodie Müller, employed since 2020, and her week of 9–15 March 2026: a Tuesday of 7h30 of
/// work (validated by her only), a Thursday off, a Sunday morning (not validated).
async fn worker_week(app: &TestApp) -> TestUser {
    let (admin, worker, company) = crate::support::employments::elodie_at_transports_martin(app).await;
    sqlx::query("UPDATE employments SET start_date = '2020-01-01'")
        .execute(&app.server.db.pool)
        .await
        .unwrap();
    let w = worker.id;
    let tuesday = mission(app, company, w, "Livraison Lyon").await;
    activity(
        app,
        tuesday,
        w,
        "drive",
        paris("2026-03-10", 5, 0),
        paris("2026-03-10", 7, 30),
    )
    .await;
    activity(
        app,
        tuesday,
        w,
        "work",
        paris("2026-03-10", 8, 0),
        paris("2026-03-10", 12, 0),
    )
    .await;
    activity(
        app,
        tuesday,
        w,
        "support",
        paris("2026-03-10", 13, 0),
        paris("2026-03-10", 14, 0),
    )
    .await;
    insert(
        app,
        "INSERT INTO mission_validations (mission_id, submitter_id, user_id, is_admin, reception_time, creation_time) \
         VALUES ($1, $2, $2, 0, $3, $3) RETURNING id",
        &[tuesday, w, paris("2026-03-10", 15, 0)],
    )
    .await;
    let off = mission(app, company, w, "Congé payé").await;
    activity(
        app,
        off,
        w,
        "off",
        paris("2026-03-12", 8, 0),
        paris("2026-03-12", 15, 0),
    )
    .await;
    insert(
        app,
        "INSERT INTO mission_validations (mission_id, submitter_id, user_id, is_admin, reception_time, creation_time) \
         VALUES ($1, $2, $2, 0, $3, $3) RETURNING id",
        &[off, w, paris("2026-03-12", 15, 0)],
    )
    .await;
    insert(
        app,
        "INSERT INTO mission_validations (mission_id, submitter_id, user_id, is_admin, reception_time, creation_time) \
         VALUES ($1, $2, NULL, 1, $3, $3) RETURNING id",
        &[off, admin.id, paris("2026-03-13", 9, 0)],
    )
    .await;
    let sunday = mission(app, company, w, "Retour").await;
    activity(
        app,
        sunday,
        w,
        "work",
        paris("2026-03-15", 9, 0),
        paris("2026-03-15", 10, 30),
    )
    .await;
    worker
}

async fn statement(app: &TestApp, user: Option<&TestUser>, body: Value) -> reqwest::Response {
    let mut request = app.client.post(app.url("/api/users/generate_pdf_export")).json(&body);
    if let Some(user) = user {
        request = request.bearer_auth(&user.token);
    }
    request.send().await.unwrap()
}

/// The document's text, as an independent reader extracts it, spaces and lines collapsed.
fn text_of(pdf: &[u8]) -> String {
    let text = pdf_extract::extract_text_from_mem(pdf).expect("a PDF whose text can be read");
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

on_both_backends! {
    async fn a_worker_downloads_their_statement_of_hours(app) {
        let worker = worker_week(app).await;
        let response = statement(app, Some(&worker), json!({ "min_date": "2026-03-09", "max_date": "2026-03-15" })).await;
        assert_eq!(response.status(), StatusCode::OK);
        assert_eq!(response.headers()["content-type"], "application/pdf");
        assert_eq!(
            response.headers()["content-disposition"],
            "attachment; filename=\"Releve d'heures de Elodie Muller - 09/03/2026 au 15/03/2026\"; \
             filename*=UTF-8''Relev%C3%A9%20d%27heures%20de%20%C3%89lodie%20M%C3%BCller%20-%2009%2F03%2F2026%20au%2015%2F03%2F2026"
        );
        let bytes = response.bytes().await.unwrap();
        assert!(bytes.starts_with(b"%PDF-"));
        // To look at the document: `ROADLOG_KEEP_PDF=<folder>` keeps it there.
        if let Ok(folder) = std::env::var("ROADLOG_KEEP_PDF") {
            std::fs::write(std::path::Path::new(&folder).join(format!("releve-{:?}.pdf", app.backend)), &bytes).unwrap();
        }
        let text = text_of(&bytes);
        for expected in [
            "Roadlog",
            "RELEVÉ D'HEURES",
            "Nom : Élodie Müller",
            "Période : du 09/03/2026 au 15/03/2026",
            "Global par mois",
            "Global par semaine",
            "Détail par semaine",
            "Jours de congé ou d'absence",
            // Monday to Sunday, day by day, minute for minute: start, end, amplitude, driving,
            // other work, support, break, hours worked, night hours, hours off, reason, four
            // expense counts.
            "Lundi 09/03",
            "Mardi 10/03 ** 05:00 14:00 9h00 2h30 4h00 1h00 1h30 7h30 1h00 0h00 0 0 0 0",
            "Jeudi 12/03 7h00 Congé payé",
            "Dimanche 15/03 * 09:00 10:30 1h30 0h00 1h30 0h00 0h00 1h30 0h00 0h00 0 0 0 0",
            // The week's total: 9h of work, 7h off.
            "Total 10h30 2h30 5h30 1h00 1h30 9h00 1h00 7h00 0 0 0 0",
            // The month: two days worked, one off; its hours hold the night and Sunday hours.
            "Mars 2026 2 1 2h30 5h30 1h00 9h00 Dont heures au tarif nuit : 1h00 Dont heures dimanches et jours fériés : 1h30",
            "Légende",
            "Jour de travail majoré (dimanches et jours fériés)",
            "Journée de congé ou d'absence",
            "* Le salarié n'a pas encore validé la journée de travail",
            "** Le gestionnaire n'a pas encore validé la journée de travail",
            "Page 1 sur 2",
            "Page 2 sur 2",
        ] {
            assert!(text.contains(expected), "missing {expected:?} in:\n{text}");
        }
        assert!(!text.contains("Page 3"), "{text}");
        assert!(!text.contains("Temps de Liaison"), "no transfer time, no company asking for it: {text}");
        // The month table has no total row for a single month; the week's summary has one.
        assert_eq!(text.matches("Total").count(), 2, "{text}");
    }

    async fn a_statement_is_bounded_to_a_year_and_needs_a_token(app) {
        let worker = worker_week(app).await;
        // 367 days: refused before anything is read, with the reference's message.
        let response = statement(app, Some(&worker), json!({ "min_date": "2025-03-09", "max_date": "2026-03-11" })).await;
        assert_eq!(response.status(), StatusCode::UNPROCESSABLE_ENTITY);
        let answer: Value = response.json().await.unwrap();
        assert_eq!(
            answer,
            json!({
                "error": "Invalid request",
                "error_code": "INVALID_INPUTS",
                "details": { "_schema": ["The requested period should be less than 1 year"] }
            })
        );
        // 366 days are allowed: every month of the year is listed.
        let response = statement(app, Some(&worker), json!({ "min_date": "2025-03-10", "max_date": "2026-03-11" })).await;
        assert_eq!(response.status(), StatusCode::OK);
        let text = text_of(&response.bytes().await.unwrap());
        assert!(text.contains("Mars 2025") && text.contains("Février 2026") && text.contains("Mars 2026"), "{text}");
        let pages = text.matches(" sur ").count();
        assert!(pages > 10 && text.contains(&format!("Page {pages} sur {pages}")), "{text}");
        for body in [
            json!({ "min_date": "2026-03-09" }),
            json!({ "min_date": "2026-03-09", "max_date": "15/03/2026" }),
            json!({ "min_date": "2026-03-09", "max_date": "2026-03-15", "user_id": 1 }),
        ] {
            let response = statement(app, Some(&worker), body.clone()).await;
            assert_eq!(response.status(), StatusCode::UNPROCESSABLE_ENTITY, "{body}");
            let answer: Value = response.json().await.unwrap();
            assert_eq!(answer["error_code"], "INVALID_INPUTS", "{answer}");
        }
        let response = statement(app, None, json!({ "min_date": "2026-03-09", "max_date": "2026-03-15" })).await;
        assert_eq!(response.status(), StatusCode::UNAUTHORIZED);
        let answer: Value = response.json().await.unwrap();
        assert_eq!(answer["error_code"], "AUTHENTICATION_ERROR", "{answer}");
    }
}
