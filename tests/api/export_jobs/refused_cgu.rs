//! `POST /users/download_full_data_when_CGU_refused`: the caller's own data only, one job per
//! company, named after the company (an admin) or the worker, fetched through
//! `/exports/checkout`; another user's id is a 403 and queues nothing.

use super::*;

const ROUTE: &str = "/users/download_full_data_when_CGU_refused";

fn french(date: NaiveDate) -> String {
    date.format("%d/%m/%Y").to_string()
}

fn day_of(timestamp: i64) -> NaiveDate {
    chrono::DateTime::from_timestamp(timestamp, 0).unwrap().date_naive()
}

/// `(export_type, base_name, company_ids)` of the exports of `user`, in order.
async fn jobs_of(app: &TestApp, user: i64) -> Vec<(String, Option<String>, String)> {
    sqlx::query_as("SELECT export_type, base_name, company_ids FROM exports WHERE user_id = $1 ORDER BY id")
        .bind(user)
        .fetch_all(&app.server.db.pool)
        .await
        .unwrap()
}

/// Checks out until nothing is in progress: every link handed out.
async fn all_links(app: &TestApp, user: &TestUser) -> Vec<String> {
    let mut links = Vec::new();
    let deadline = std::time::Instant::now() + BUILD_DEADLINE;
    while std::time::Instant::now() < deadline {
        let (status, body) = post(app, "/exports/checkout", Some(user), None).await;
        assert_eq!(status, StatusCode::OK, "{body}");
        for link in body["ready_exports_links"].as_array().unwrap() {
            links.push(link.as_str().unwrap().to_string());
        }
        if body["nb_wip_exports"] == 0 {
            return links;
        }
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
    panic!("the exports were not built in time");
}

on_both_backends! {
    async fn the_callers_data_is_queued_per_company_and_checked_out(app) {
        let c = company(app).await;
        week_of_work(app, &c).await;
        // The workers' accounts date from March 2026: the admin's report starts then.
        let march = paris("2026-03-01", 12, 0);
        sqlx::query("UPDATE users SET creation_time = $1 WHERE id >= 500000000 AND id < 500000003")
            .bind(march)
            .execute(&app.server.db.pool)
            .await
            .unwrap();
        let other = app.new_company(&c.admin, "Transports Durand").await;
        let driver = app.new_user("chauffeur@example.com").await;
        sqlx::query(
            "INSERT INTO employments (user_id, company_id, submitter_id, reception_time, validation_time, validation_status, \
             start_date, has_admin_rights, is_primary) VALUES ($1, $2, $3, 0, 0, 'approved', '2026-01-01', 0, 1)",
        )
        .bind(driver.id)
        .bind(c.id)
        .bind(c.admin.id)
        .execute(&app.server.db.pool)
        .await
        .unwrap();
        let today = chrono::Utc::now().date_naive();

        // Another user's id, a vendor-less anonymous call, an ill-formed body: nothing queued.
        let (status, body) = post(app, ROUTE, Some(&c.admin), Some(json!({ "user_id": driver.id }))).await;
        assert_eq!(
            (status, body),
            (StatusCode::FORBIDDEN, json!({ "error": "Forbidden access", "error_code": "AUTHORIZATION_ERROR" }))
        );
        let (status, _) = post(app, ROUTE, None, Some(json!({ "user_id": c.admin.id }))).await;
        assert_eq!(status, StatusCode::UNAUTHORIZED);
        let (status, body) = post(app, ROUTE, Some(&c.admin), Some(json!({ "user_id": c.admin.id, "company_id": c.id }))).await;
        assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);
        assert_eq!(body["details"], json!({ "company_id": ["Unknown field."] }));
        let (status, body) = post(app, ROUTE, Some(&c.admin), Some(json!({}))).await;
        assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);
        assert_eq!(body["details"], json!({ "user_id": ["Missing data for required field."] }));
        assert_eq!(exports(app).await, 0);

        // The admin of two companies: one job each, covering every worker, named after the company.
        let (status, body) = post(app, ROUTE, Some(&c.admin), Some(json!({ "user_id": c.admin.id }))).await;
        assert_eq!((status, body), (StatusCode::OK, json!({ "result": "ok" })));
        let (admin_created,): (i64,) = sqlx::query_as("SELECT creation_time FROM users WHERE id = $1")
            .bind(c.admin.id)
            .fetch_one(&app.server.db.pool)
            .await
            .unwrap();
        let period = |from: NaiveDate| format!("{} au {}", french(from), french(today));
        assert_eq!(
            jobs_of(app, c.admin.id).await,
            [
                (
                    "refused_cgu".to_string(),
                    Some(format!("Transports Martin_rapport_activités_{}", period(day_of(march)))),
                    format!("[{}]", c.id)
                ),
                (
                    "refused_cgu".to_string(),
                    Some(format!("Transports Durand_rapport_activités_{}", period(day_of(admin_created)))),
                    format!("[{other}]")
                ),
            ]
        );
        let links = all_links(app, &c.admin).await;
        assert_eq!(links.len(), 2, "{links:?}");
        let mut names = Vec::new();
        for link in &links {
            let response = app.client.get(link).send().await.unwrap();
            assert_eq!(response.status(), StatusCode::OK);
            names.push(response.headers()["content-disposition"].to_str().unwrap().to_string());
        }
        names.sort();
        let martin = format!("Transports Martin_rapport_activites_{}", period(day_of(march)));
        assert!(names[1].starts_with(&format!("attachment; filename=\"{martin}")), "{names:?}");
        assert!(names[0].starts_with("attachment; filename=\"Transports Durand_rapport_activites_"), "{names:?}");
        let statuses: Vec<(String,)> = sqlx::query_as("SELECT status FROM exports WHERE user_id = $1")
            .bind(c.admin.id)
            .fetch_all(&app.server.db.pool)
            .await
            .unwrap();
        assert_eq!(statuses, [("downloaded".to_string(),), ("downloaded".to_string(),)]);

        // A worker: their own data in their one company, named after them.
        let (status, _) = post(app, ROUTE, Some(&driver), Some(json!({ "user_id": driver.id }))).await;
        assert_eq!(status, StatusCode::OK);
        let (created,): (i64,) = sqlx::query_as("SELECT creation_time FROM users WHERE id = $1")
            .bind(driver.id)
            .fetch_one(&app.server.db.pool)
            .await
            .unwrap();
        let (first, last): (String, String) = sqlx::query_as("SELECT first_name, last_name FROM users WHERE id = $1")
            .bind(driver.id)
            .fetch_one(&app.server.db.pool)
            .await
            .unwrap();
        let name = roadlog::domain::export::workbook::display_name(&first, &last);
        assert_eq!(
            jobs_of(app, driver.id).await,
            [(
                "refused_cgu".to_string(),
                Some(format!("Relevé d'heures de {name} - {} - Transports Martin", period(day_of(created)))),
                format!("[{}]", c.id)
            )]
        );
        let job: (String, String) = sqlx::query_as("SELECT user_ids, COALESCE(min_date, '') FROM exports WHERE user_id = $1")
            .bind(driver.id)
            .fetch_one(&app.server.db.pool)
            .await
            .unwrap();
        assert_eq!(job, (format!("[{}]", driver.id), day_of(created).to_string()));
        assert_eq!(all_links(app, &driver).await.len(), 1);
    }
}
