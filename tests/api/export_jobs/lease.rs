//! The jobs' lease: exclusive claims, cancellation, a dead builder's job built again, two
//! instances on one database.

use super::*;

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
        let key = roadlog::domain::export::jobs::build::signing_key(&db, None).await.unwrap();
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
        // Until every report is handed out, however slow the machine (a test of many running at
        // once on two cores builds eight reports in debug): a deadline, not a count of polls.
        let mut links = Vec::new();
        let deadline = std::time::Instant::now() + BUILD_DEADLINE;
        while links.len() < 8 && std::time::Instant::now() < deadline {
            let (_, body) = post(&app, "/exports/checkout", Some(&c.admin), None).await;
            links.extend(body["ready_exports_links"].as_array().unwrap().iter().map(|l| l.as_str().unwrap().to_string()));
            tokio::time::sleep(Duration::from_millis(100)).await;
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
