//! The sheets `Détail` and `Missions supprimées` read back: one mission's history minute for
//! minute with its authors and their statuses, and a mission whose activities are all
//! cancelled listed under the red banner and not in `Détail`.

use super::*;

/// Worker 0's 2 March mission (added, shortened by the admin, a place, a lunch, validated by
/// the admin) and 3 March mission (its only activity cancelled by the admin).
async fn history(app: &TestApp, c: &Company) {
    let w = c.workers[0];
    let admin = c.admin.id;
    let mission = exec(
        app,
        "INSERT INTO missions (name, company_id, submitter_id, reception_time, creation_time) \
         VALUES ('Livraison Lyon', $1, $2, $3, $3) RETURNING id",
        &[json!(c.id), json!(w), json!(paris("2026-03-02", 7, 55))],
    )
    .await;
    let drive = exec(
        app,
        "INSERT INTO activities (mission_id, user_id, submitter_id, type, reception_time, creation_time, start_time, end_time, last_update_time) \
         VALUES ($1, $2, $2, 'drive', $3, $3, $4, $5, $6) RETURNING id",
        &[
            json!(mission),
            json!(w),
            json!(paris("2026-03-02", 12, 5)),
            json!(paris("2026-03-02", 8, 0)),
            json!(paris("2026-03-02", 11, 0)),
            json!(paris("2026-03-02", 18, 0)),
        ],
    )
    .await;
    for (number, at, end, context, submitter) in [
        (
            1,
            paris("2026-03-02", 12, 5),
            paris("2026-03-02", 12, 0),
            Value::Null,
            w,
        ),
        (
            2,
            paris("2026-03-02", 18, 0),
            paris("2026-03-02", 11, 0),
            json!(r#"{"userComment":"Pause oubliée"}"#),
            admin,
        ),
    ] {
        exec(
            app,
            "INSERT INTO activity_versions (activity_id, version_number, reception_time, creation_time, start_time, end_time, context, submitter_id) \
             VALUES ($1, $2, $3, $3, $4, $5, $6, $7) RETURNING id",
            &[json!(drive), json!(number), json!(at), json!(paris("2026-03-02", 8, 0)), json!(end), context, json!(submitter)],
        )
        .await;
    }
    exec(
        app,
        "INSERT INTO location_entries (mission_id, type, submitter_id, reception_time, creation_time, name, postal_code, city) \
         VALUES ($1, 'mission_start_location', $2, $3, $3, 'Dépôt', '75001', 'Paris') RETURNING id",
        &[json!(mission), json!(w), json!(paris("2026-03-02", 8, 1))],
    )
    .await;
    exec(
        app,
        "INSERT INTO expenditures (mission_id, user_id, submitter_id, type, spending_date, reception_time, creation_time) \
         VALUES ($1, $2, $2, 'day_meal', '2026-03-02', $3, $3) RETURNING id",
        &[json!(mission), json!(w), json!(paris("2026-03-02", 12, 30))],
    )
    .await;
    exec(
        app,
        "INSERT INTO mission_validations (mission_id, submitter_id, user_id, is_admin, reception_time, creation_time) \
         VALUES ($1, $2, $3, 1, $4, $4) RETURNING id",
        &[
            json!(mission),
            json!(admin),
            json!(w),
            json!(paris("2026-03-02", 19, 0)),
        ],
    )
    .await;

    let cancelled = exec(
        app,
        "INSERT INTO missions (name, company_id, submitter_id, reception_time, creation_time) \
         VALUES ('Annulée', $1, $2, $3, $3) RETURNING id",
        &[json!(c.id), json!(w), json!(paris("2026-03-03", 8, 50))],
    )
    .await;
    let work = exec(
        app,
        "INSERT INTO activities (mission_id, user_id, submitter_id, type, reception_time, creation_time, start_time, end_time, \
         last_update_time, dismissed_at, dismiss_author_id) \
         VALUES ($1, $2, $2, 'work', $3, $3, $4, $5, $6, $6, $7) RETURNING id",
        &[
            json!(cancelled),
            json!(w),
            json!(paris("2026-03-03", 10, 5)),
            json!(paris("2026-03-03", 9, 0)),
            json!(paris("2026-03-03", 10, 0)),
            json!(paris("2026-03-03", 11, 0)),
            json!(admin),
        ],
    )
    .await;
    exec(
        app,
        "INSERT INTO activity_versions (activity_id, version_number, reception_time, creation_time, start_time, end_time, submitter_id) \
         VALUES ($1, 1, $2, $2, $3, $4, $5) RETURNING id",
        &[
            json!(work),
            json!(paris("2026-03-03", 10, 5)),
            json!(paris("2026-03-03", 9, 0)),
            json!(paris("2026-03-03", 10, 0)),
            json!(w),
        ],
    )
    .await;
}

/// The local minute of a Paris wall-clock time, as the sheet's date-time cell counts it.
fn local_minute(day: &str, hour: i64, minute: i64) -> i64 {
    excel_day(day) * 1440 + hour * 60 + minute
}

on_both_backends! {
    async fn the_detail_sheets_tell_each_missions_history(app) {
        let c = company(app).await;
        history(app, &c).await;
        let body = json!({ "company_ids": [c.id], "min_date": "2026-03-02", "max_date": "2026-03-08" });
        let (status, _) = post(app, "/companies/download_activity_report", Some(&c.admin), Some(body)).await;
        assert_eq!(status, StatusCode::ACCEPTED);
        let link = link_of(app, &c.admin).await;
        let bytes = app.client.get(&link).send().await.unwrap().bytes().await.unwrap();
        let key = roadlog::domain::export::jobs::build::signing_key(&app.server.db, None).await.unwrap();
        assert_eq!(signature::verify(&bytes, key.bytes()), Verdict::Valid);
        let mut workbook: Xlsx<_> = open_workbook_from_rs(Cursor::new(bytes.to_vec())).unwrap();
        assert_eq!(workbook.sheet_names(), ["Activités", "Détail", "Missions supprimées"]);

        let sheet = workbook.worksheet_range("Détail").unwrap();
        let at = |r: u32, col: u32| sheet.get_value((r, col));
        assert_eq!(text(at(0, 0)), "Entreprise : Transports Martin");
        assert_eq!(text(at(1, 0)), "Date des données exportées : du 02/03/2026 au 08/03/2026");
        let header: Vec<String> = (0..9).map(|col| text(at(3, col))).collect();
        assert_eq!(
            header,
            [
                "Employé", "Jour", "Mission", "Date et heure de l'enregistrement", "Auteur de l'enregistrement",
                "Statut de l'auteur", "Description de l'enregistrement", "Activités effectuées", "Justification",
            ]
        );
        assert_eq!(text(at(4, 0)), format!("Jean Driver0\nIdentifiant : {}", c.workers[0]));
        assert_eq!(minutes(at(4, 1)), excel_day("2026-03-02") * 1440);
        assert_eq!(text(at(4, 2)), "Livraison Lyon");
        let rows: Vec<(i64, String, String, String, String, String)> = (4..9)
            .map(|r| {
                (
                    minutes(at(r, 3)),
                    text(at(r, 4)),
                    text(at(r, 5)),
                    text(at(r, 6)),
                    text(at(r, 7)),
                    text(at(r, 8)),
                )
            })
            .collect();
        let worker = || "Jean Driver0".to_string();
        let admin = || "Jeanne Martin".to_string();
        let mobile = || "Travailleur mobile".to_string();
        let administrator = || "Administrateur".to_string();
        assert_eq!(
            rows,
            [
                (
                    local_minute("2026-03-02", 8, 1),
                    worker(),
                    mobile(),
                    "a indiqué comme lieu de début de service : Dépôt 75001 Paris".to_string(),
                    String::new(),
                    String::new(),
                ),
                (
                    local_minute("2026-03-02", 12, 5),
                    worker(),
                    mobile(),
                    "a ajouté l'activité Déplacement du 02/03 à 08:00 au 02/03 à 12:00".to_string(),
                    "Déplacement".to_string(),
                    String::new(),
                ),
                (
                    local_minute("2026-03-02", 12, 30),
                    worker(),
                    mobile(),
                    "a ajouté le frais repas midi".to_string(),
                    String::new(),
                    String::new(),
                ),
                (
                    local_minute("2026-03-02", 18, 0),
                    admin(),
                    administrator(),
                    "a décalé la fin de l'activité Déplacement du 02/03 à 12:00 au 02/03 à 11:00".to_string(),
                    String::new(),
                    "Pause oubliée".to_string(),
                ),
                (
                    local_minute("2026-03-02", 19, 0),
                    admin(),
                    administrator(),
                    "a validé la mission".to_string(),
                    String::new(),
                    String::new(),
                ),
            ]
        );
        // The block closes after the mission; the cancelled mission is not in `Détail`.
        assert_eq!(text(at(9, 6)), "");
        let everything: Vec<String> = sheet.used_cells().map(|(_, _, d)| d.to_string()).collect();
        assert!(!everything.iter().any(|t| t.contains("Annulée") || t.contains("03/03")), "{everything:?}");

        let deleted = workbook.worksheet_range("Missions supprimées").unwrap();
        let at = |r: u32, col: u32| deleted.get_value((r, col));
        assert_eq!(text(at(0, 0)), "Entreprise : Transports Martin");
        assert_eq!(text(at(2, 0)), "Une mission est supprimée lorsque toutes les activités ont été supprimées");
        assert_eq!(text(at(4, 0)), "Employé");
        assert_eq!(text(at(5, 0)), format!("Jean Driver0\nIdentifiant : {}", c.workers[0]));
        assert_eq!(minutes(at(5, 1)), excel_day("2026-03-03") * 1440);
        assert_eq!(text(at(5, 2)), "Annulée");
        let rows: Vec<(i64, String, String, String, String)> = (5..7)
            .map(|r| (minutes(at(r, 3)), text(at(r, 4)), text(at(r, 5)), text(at(r, 6)), text(at(r, 7))))
            .collect();
        assert_eq!(
            rows,
            [
                (
                    local_minute("2026-03-03", 10, 5),
                    worker(),
                    mobile(),
                    "a ajouté l'activité Autre tâche du 03/03 à 09:00 au 03/03 à 10:00".to_string(),
                    String::new(),
                ),
                (
                    local_minute("2026-03-03", 11, 0),
                    admin(),
                    administrator(),
                    "a supprimé l'activité Autre tâche démarrée le 03/03 à 09:00".to_string(),
                    String::new(),
                ),
            ]
        );
        assert_eq!(text(at(7, 6)), "");
    }
}
