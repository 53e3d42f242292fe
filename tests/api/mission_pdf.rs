//! `POST /users/generate_mission_export`, one worker's part in a mission as PDF, over the real
//! HTTP API on both databases: the PDF's headers and its text read back by an independent reader
//! (`pdf-extract`): the title, the worker, the hours minute for minute, the breaks, the
//! observation, the history; a deleted mission's banner; the one 403 of every refusal (a vendor's
//! employment token of another company included), the 401 and the 422.

use reqwest::StatusCode;
use serde_json::{Value, json};

use crate::employment_tokens::{Headers, LOG_ENDED, call, journey, minutes_ago, token_for};
use crate::support::local::paris;
use crate::support::{TestApp, TestUser};

async fn execute(app: &TestApp, sql: &'static str, binds: &[i64]) {
    let mut query = sqlx::query(sql);
    for b in binds {
        query = query.bind(*b);
    }
    query.execute(&app.server.db.pool).await.unwrap();
}

async fn mission(app: &TestApp, company: i64, worker: i64, name: &str, vehicle: Option<i64>) -> i64 {
    sqlx::query_as::<_, (i64,)>(
        "INSERT INTO missions (name, company_id, submitter_id, reception_time, creation_time, vehicle_id) \
         VALUES ($1, $2, $3, 0, 0, $4) RETURNING id",
    )
    .bind(name)
    .bind(company)
    .bind(worker)
    .bind(vehicle)
    .fetch_one(&app.server.db.pool)
    .await
    .unwrap()
    .0
}

/// An activity of `user` recorded by them at `recorded`, with its first version.
async fn activity(app: &TestApp, mission: i64, user: i64, kind: &str, (start, end): (i64, i64), recorded: i64) -> i64 {
    let (id,): (i64,) = sqlx::query_as(
        "INSERT INTO activities (mission_id, user_id, submitter_id, type, reception_time, creation_time, start_time, end_time, last_update_time) \
         VALUES ($1, $2, $2, $3, $4, $4, $5, $6, $4) RETURNING id",
    )
    .bind(mission)
    .bind(user)
    .bind(kind)
    .bind(recorded)
    .bind(start)
    .bind(end)
    .fetch_one(&app.server.db.pool)
    .await
    .unwrap();
    execute(
        app,
        "INSERT INTO activity_versions (activity_id, version_number, reception_time, creation_time, start_time, end_time, submitter_id) \
         VALUES ($1, 1, $2, $2, $3, $4, $5)",
        &[id, recorded, start, end, user],
    )
    .await;
    id
}

struct Setup {
    admin: TestUser,
    worker: TestUser,
    company: i64,
    mission: i64,
}

/// Élodie Müller's delivery of Tuesday 10 March 2026 in a van: driving 05:00–07:30, other work
/// 08:00–12:00 (first recorded until 12:30, corrected by the admin with a reason), support
/// 13:00–14:00; a lunch, a start address with its odometer reading and an observation.
async fn delivery(app: &TestApp) -> Setup {
    let (admin, worker, company) = crate::support::employments::elodie_at_transports_martin(app).await;
    execute(
        app,
        "UPDATE companies SET require_support_activity = 1, require_expenditures = 1, allow_transfers = 0 WHERE id = $1",
        &[company],
    )
    .await;
    let (vehicle,): (i64,) = sqlx::query_as(
        "INSERT INTO vehicles (company_id, registration_number, creation_time) VALUES ($1, 'AB-123-CD', 0) RETURNING id",
    )
    .bind(company)
    .fetch_one(&app.server.db.pool)
    .await
    .unwrap();
    let (d, w) = ("2026-03-10", worker.id);
    let id = mission(app, company, w, "Livraison Lyon", Some(vehicle)).await;
    let recorded = paris(d, 14, 5);
    activity(app, id, w, "drive", (paris(d, 5, 0), paris(d, 7, 30)), recorded).await;
    let work = activity(app, id, w, "work", (paris(d, 8, 0), paris(d, 12, 30)), recorded).await;
    activity(app, id, w, "support", (paris(d, 13, 0), paris(d, 14, 0)), recorded).await;
    let corrected = paris(d, 18, 0);
    sqlx::query(
        "INSERT INTO activity_versions (activity_id, version_number, reception_time, creation_time, start_time, end_time, submitter_id, context) \
         VALUES ($1, 2, $2, $2, $3, $4, $5, '{\"userComment\":\"oubli de pause\"}')",
    )
    .bind(work)
    .bind(corrected)
    .bind(paris(d, 8, 0))
    .bind(paris(d, 12, 0))
    .bind(admin.id)
    .execute(&app.server.db.pool)
    .await
    .unwrap();
    execute(
        app,
        "UPDATE activities SET end_time = $1 WHERE id = $2",
        &[paris(d, 12, 0), work],
    )
    .await;
    execute(
        app,
        "INSERT INTO location_entries (mission_id, type, submitter_id, reception_time, creation_time, name, postal_code, city, kilometer_reading) \
         VALUES ($1, 'mission_start_location', $2, $3, $3, 'Dépôt Martin', '69007', 'Lyon', 1200)",
        &[id, w, paris(d, 5, 0)],
    )
    .await;
    execute(
        app,
        "INSERT INTO expenditures (mission_id, user_id, submitter_id, type, spending_date, reception_time, creation_time) \
         VALUES ($1, $2, $2, 'day_meal', '2026-03-10', $3, $3)",
        &[id, w, paris(d, 12, 0)],
    )
    .await;
    execute(
        app,
        "INSERT INTO comments (mission_id, submitter_id, text, reception_time) VALUES ($1, $2, 'Quai 4 fermé, livraison par le quai 2', $3)",
        &[id, w, paris(d, 9, 0)],
    )
    .await;
    Setup {
        admin,
        worker,
        company,
        mission: id,
    }
}

async fn export(app: &TestApp, user: Option<&TestUser>, body: Value) -> reqwest::Response {
    let mut request = app
        .client
        .post(app.url("/api/users/generate_mission_export"))
        .json(&body);
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

/// The export through a software vendor's employment token, at the path without `/api`.
async fn export_as_vendor(app: &TestApp, client: &str, token: &str, body: &Value) -> reqwest::Response {
    app.client
        .post(app.url("/users/generate_mission_export"))
        .header("X-CLIENT-ID", client)
        .header("X-EMPLOYMENT-TOKEN", token)
        .json(body)
        .send()
        .await
        .unwrap()
}

fn forbidden() -> Value {
    json!({ "error": "Forbidden access", "error_code": "AUTHORIZATION_ERROR" })
}

on_both_backends! {
    async fn an_admin_downloads_a_workers_mission(app) {
        let s = delivery(app).await;
        let body = json!({ "mission_id": s.mission, "user_id": s.worker.id });
        let response = export(app, Some(&s.admin), body.clone()).await;
        assert_eq!(response.status(), StatusCode::OK);
        assert_eq!(response.headers()["content-type"], "application/pdf");
        assert_eq!(
            response.headers()["content-disposition"],
            "attachment; filename=\"Details de la mission Livraison Lyon pour Elodie Muller\"; \
             filename*=UTF-8''D%C3%A9tails%20de%20la%20mission%20Livraison%20Lyon%20pour%20%C3%89lodie%20M%C3%BCller"
        );
        let bytes = response.bytes().await.unwrap();
        assert!(bytes.starts_with(b"%PDF-"));
        // To look at the document: `ROADLOG_KEEP_PDF=<folder>` keeps it there.
        if let Ok(folder) = std::env::var("ROADLOG_KEEP_PDF") {
            std::fs::write(std::path::Path::new(&folder).join(format!("mission-{:?}.pdf", app.backend)), &bytes).unwrap();
        }
        let text = text_of(&bytes);
        let id = s.worker.id;
        for expected in [
            "Roadlog".to_string(),
            "Mission : Livraison Lyon".into(),
            "Journée du 10/03/2026".into(),
            "Nom Élodie Müller".into(),
            format!("Identifiant Mobilic {id}"),
            "Véhicule : AB-123-CD".into(),
            "Entreprise : Transports Martin".into(),
            "Début 05:00 Dépôt Martin 69007 Lyon 1200 km".into(),
            "Fin 14:00 Adresse non renseignée".into(),
            // Amplitude, driving, other work, support, breaks, work and its night hour, expenses.
            "Temps de travail".into(),
            "9h00 2h30 4h00 1h00 1h30 7h30 Dont heures au tarif nuit : 1h00 1 repas midi".into(),
            // Each activity, the gaps between them as breaks.
            "Activité Début Fin Durée".into(),
            "Déplacement 05:00 07:30 2h30 Pause 07:30 08:00 0h30 Autre tâche 08:00 12:00 4h00 \
             Pause 12:00 13:00 1h00 Accompagnement 13:00 14:00 1h00".into(),
            "Observations".into(),
            "Élodie Müller - 10/03 à 09:00 Quai 4 fermé, livraison par le quai 2".into(),
            "Historique de saisie".into(),
            "L'historique de saisie avant la validation du salarié n'est pas montré au gestionnaire.".into(),
            "Élodie Müller - 10/03 à 14:05 a ajouté l'activité Déplacement du 10/03 à 05:00 au 10/03 à 07:30".into(),
            "Jeanne Martin - 10/03 à 18:00 a décalé la fin de l'activité Autre tâche du 10/03 à 12:30 \
             au 10/03 à 12:00 (motif : \"oubli de pause\")".into(),
            "a indiqué comme lieu de début de service : Dépôt Martin 69007 Lyon".into(),
            "Page 1 sur 1".into(),
        ] {
            assert!(text.contains(&expected), "missing {expected:?} in:\n{text}");
        }
        assert!(text.contains("Frais") && !text.contains("Liaison"), "as the company asks: {text}");
        assert!(!text.contains("supprimée"), "{text}");
        // The worker may export their own part too.
        let response = export(app, Some(&s.worker), body).await;
        assert_eq!(response.status(), StatusCode::OK);
    }

    async fn a_kind_the_worker_recorded_has_its_row_whatever_the_settings(app) {
        // The company does not allow transfers; the worker recorded one all the same (an earlier
        // setting, or a vendor's write): its time has a row, so the rows add up to the amplitude.
        let s = delivery(app).await;
        let d = "2026-03-10";
        activity(app, s.mission, s.worker.id, "transfer", (paris(d, 14, 0), paris(d, 14, 30)), paris(d, 14, 35)).await;
        let body = json!({ "mission_id": s.mission, "user_id": s.worker.id });
        let response = export(app, Some(&s.admin), body).await;
        assert_eq!(response.status(), StatusCode::OK);
        let text = text_of(&response.bytes().await.unwrap());
        // A column of "Temps de travail" (amplitude, driving, other work, support, transfer,
        // breaks, work), then the activity.
        assert!(text.contains("Accompagnement Liaison Pause Travail"), "{text}");
        assert!(text.contains("9h30 2h30 4h00 1h00 0h30 1h30 7h30"), "{text}");
        assert!(text.contains("Liaison 14:00 14:30 0h30"), "{text}");
    }

    async fn a_deleted_mission_shows_its_banner_and_no_times(app) {
        let s = delivery(app).await;
        let d = "2026-03-11";
        let id = mission(app, s.company, s.worker.id, "Retour", None).await;
        let dismissed = activity(app, id, s.worker.id, "drive", (paris(d, 6, 0), paris(d, 9, 0)), paris(d, 9, 5)).await;
        execute(
            app,
            "UPDATE activities SET dismissed_at = $1, dismiss_author_id = $2 WHERE id = $3",
            &[paris(d, 10, 0), s.admin.id, dismissed],
        )
        .await;
        let response = export(app, Some(&s.admin), json!({ "mission_id": id, "user_id": s.worker.id })).await;
        assert_eq!(response.status(), StatusCode::OK);
        let text = text_of(&response.bytes().await.unwrap());
        for expected in [
            "Mission : Retour",
            "Journée du 11/03/2026",
            "Cette mission a été supprimée le 11/03/2026 par Jeanne Martin",
            "Véhicule : Aucun véhicule renseigné",
            "Début 06:00 Adresse non renseignée Fin 09:00",
            "Aucune observation n'a été saisie.",
            "Jeanne Martin - 11/03 à 10:00 a supprimé l'activité Déplacement démarrée le 11/03 à 06:00",
        ] {
            assert!(text.contains(expected), "missing {expected:?} in:\n{text}");
        }
        for absent in ["Temps de travail", "Activité Début", "Amplitude"] {
            assert!(!text.contains(absent), "{absent:?} in a deleted mission:\n{text}");
        }
    }

    async fn every_refusal_is_the_same_403(app) {
        let s = delivery(app).await;
        let body = json!({ "mission_id": s.mission, "user_id": s.worker.id });
        // A worker of another company.
        let other_admin = app.new_user("other@example.com").await;
        let stranger = app.new_user("stranger@example.com").await;
        let other = app.new_company(&other_admin, "Autocars Durand").await;
        app.hire(&other_admin, other, &stranger).await;
        // An unknown mission, an unknown worker, a worker with no part in the mission, and the
        // other company's admin: one body for all, nothing to tell them apart.
        let unknown_mission = json!({ "mission_id": s.mission + 1000, "user_id": s.worker.id });
        let unknown_worker = json!({ "mission_id": s.mission, "user_id": s.worker.id + 1000 });
        let not_in_it = json!({ "mission_id": s.mission, "user_id": stranger.id });
        for (caller, body) in [
            (&stranger, &body),
            (&other_admin, &body),
            (&s.admin, &unknown_mission),
            (&s.admin, &unknown_worker),
            (&s.admin, &not_in_it),
        ] {
            let response = export(app, Some(caller), body.clone()).await;
            assert_eq!(response.status(), StatusCode::FORBIDDEN, "{body}");
            assert_eq!(response.json::<Value>().await.unwrap(), forbidden(), "{body}");
        }
        // The worker, no longer employed by the company, cannot export it any more.
        execute(
            app,
            "UPDATE employments SET start_date = '2020-01-01', end_date = '2026-06-30' WHERE user_id = $1",
            &[s.worker.id],
        )
        .await;
        let response = export(app, Some(&s.worker), body.clone()).await;
        assert_eq!(response.status(), StatusCode::FORBIDDEN);
        assert_eq!(response.json::<Value>().await.unwrap(), forbidden());
        // The admin still can: the worker read the mission through their activities.
        assert_eq!(export(app, Some(&s.admin), body.clone()).await.status(), StatusCode::OK);
    }

    async fn an_employment_token_exports_the_missions_of_its_company_only(app) {
        let j = journey(app).await;
        let token = token_for(app, &j.payroll, j.bob_employment).await;
        // Bob's mission in his other company: refused through the vendor's token, as unknown
        // missions are; his own login exports it.
        let other = json!({ "mission_id": j.other_mission, "user_id": j.bob.id });
        let response = export_as_vendor(app, &j.client, &token, &other).await;
        assert_eq!(response.status(), StatusCode::FORBIDDEN);
        assert_eq!(response.json::<Value>().await.unwrap(), forbidden());
        assert_eq!(export(app, Some(&j.bob), other).await.status(), StatusCode::OK);
        // A mission the vendor records for Bob in its company: exported through the token.
        let as_vendor = Headers { client: Some(&j.client), token: Some(&token), bearer: None };
        let create = "mutation($c: Int!) { activities { createMission(companyId: $c, name: \"Paie\") { id } } }";
        let body = call(app, &as_vendor, create, json!({ "c": j.company })).await;
        let mission = body["data"]["activities"]["createMission"]["id"].as_i64().unwrap_or_else(|| panic!("{body}"));
        let body = call(app, &as_vendor, LOG_ENDED, json!({ "m": mission, "s": minutes_ago(300), "e": minutes_ago(240) })).await;
        assert!(body["errors"].is_null(), "{body}");
        let own = json!({ "mission_id": mission, "user_id": j.bob.id });
        let response = export_as_vendor(app, &j.client, &token, &own).await;
        assert_eq!(response.status(), StatusCode::OK);
        let text = text_of(&response.bytes().await.unwrap());
        assert!(text.contains("Mission : Paie") && text.contains("Autre tâche"), "{text}");
    }

    async fn a_mission_export_needs_a_token_and_a_well_formed_body(app) {
        let s = delivery(app).await;
        let response = export(app, None, json!({ "mission_id": s.mission, "user_id": s.worker.id })).await;
        assert_eq!(response.status(), StatusCode::UNAUTHORIZED);
        let answer: Value = response.json().await.unwrap();
        assert_eq!(answer["error_code"], "AUTHENTICATION_ERROR", "{answer}");
        let response = export(app, Some(&s.admin), json!({ "mission_id": s.mission })).await;
        assert_eq!(response.status(), StatusCode::UNPROCESSABLE_ENTITY);
        assert_eq!(
            response.json::<Value>().await.unwrap(),
            json!({
                "error": "Invalid request",
                "error_code": "INVALID_INPUTS",
                "details": { "user_id": ["Missing data for required field."] }
            })
        );
        for body in [
            json!({ "mission_id": "one", "user_id": s.worker.id }),
            json!({ "mission_id": s.mission, "user_id": s.worker.id, "format": "pdf" }),
            json!([s.mission, s.worker.id]),
        ] {
            let response = export(app, Some(&s.admin), body.clone()).await;
            assert_eq!(response.status(), StatusCode::UNPROCESSABLE_ENTITY, "{body}");
            let answer: Value = response.json().await.unwrap();
            assert_eq!(answer["error_code"], "INVALID_INPUTS", "{answer}");
        }
    }
}
