//! The report built and read back: the workbook's sheet minute for minute, the ZIP of several
//! files, the link's refusals, the statuses of bad requests.

use super::*;

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
        let key = roadlog::domain::export::jobs::build::signing_key(&app.server.db, None).await.unwrap();
        assert_eq!(signature::verify(&bytes, key.bytes()), Verdict::Valid);
        assert_eq!(signature::verify(&bytes, &[0; 32]), Verdict::SignatureDoesNotMatch);
        let mut workbook: Xlsx<_> = open_workbook_from_rs(Cursor::new(bytes.to_vec())).unwrap();
        assert_eq!(workbook.sheet_names(), ["Activités", "Détail", "Missions supprimées"]);
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
        let deadline = std::time::Instant::now() + BUILD_DEADLINE;
        while std::time::Instant::now() < deadline {
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
        // A field the body does not define (`detailed` belongs to the prediction), as the reference.
        let (status, body) = post(app, "/companies/download_activity_report", Some(&c.admin), Some(json!({ "company_ids": [c.id], "detailed": true }))).await;
        assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{body}");
        assert_eq!(body["details"]["detailed"], json!(["Unknown field."]), "{body}");
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
