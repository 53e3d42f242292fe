//! Writes that race: overlapping logs sent at once, an employment ended under recorded work, and
//! a write whose client goes away while it waits for the worker's lock.

use super::*;

on_both_backends! {
    async fn concurrent_overlapping_logs_keep_time_consistent(app) {
        let Crew { worker, company, .. } = crew(app).await;
        let day = base_day();
        let m = mission(app, &worker, company, "M").await;
        // Five disjoint hours; in each, three requests that all share the hour's middle minute.
        let mut requests = Vec::new();
        for hour in 0..5 {
            let start = day + (6 + 2 * hour) * HOUR;
            for shift in [0, 10, 20] {
                requests.push((start + shift * 60, start + (40 + shift) * 60));
            }
        }
        let attempts = requests.iter().map(|(s, e)| log(app, &worker, m, "drive", *s, Some(*e)));
        let bodies = futures::future::join_all(attempts).await;
        let succeeded = bodies.iter().filter(|b| b["errors"].is_null()).count();
        assert_eq!(succeeded, 5, "exactly one per hour: {bodies:?}");
        assert!(bodies.iter().filter(|b| !b["errors"].is_null()).all(|b| codes(b) == ["OVERLAPPING_ACTIVITIES"]), "{bodies:?}");
        let stored: Vec<(i64, i64)> = sqlx::query_as("SELECT start_time, end_time FROM activities WHERE dismissed_at IS NULL ORDER BY start_time")
            .fetch_all(&app.server.db.pool)
            .await
            .unwrap();
        assert_eq!(stored.len(), 5);
        assert!(stored.windows(2).all(|w| w[0].1 <= w[1].0), "no overlap in the database: {stored:?}");
    }

    async fn employments_do_not_end_before_recorded_work(app) {
        let Crew { admin, worker, company } = crew(app).await;
        let day = base_day();
        let m = mission(app, &worker, company, "M").await;
        log(app, &worker, m, "drive", day + 6 * HOUR, Some(day + 7 * HOUR)).await;
        let body = app.as_user(&admin, "{ me { id } }", json!({})).await;
        assert!(body["errors"].is_null());
        let (employment,): (i64,) = sqlx::query_as("SELECT id FROM employments WHERE user_id = $1")
            .bind(worker.id)
            .fetch_one(&app.server.db.pool)
            .await
            .unwrap();
        let terminate = "mutation($e: Int!, $d: Date) { employments { terminateEmployment(employmentId: $e, endDate: $d) { endDate } } }";
        let body = app.as_user(&admin, terminate, json!({ "e": employment, "d": date(day - 86_400) })).await;
        assert_eq!(codes(&body), ["INVALID_INPUTS"]);
        assert_eq!(body["errors"][0]["extensions"]["reason"], "ACTIVITY_EXIST_AFTER_EMPLOYMENT_END_DATE");
        let body = app.as_user(&admin, terminate, json!({ "e": employment, "d": date(day) })).await;
        assert_eq!(body["data"]["employments"]["terminateEmployment"]["endDate"], date(day), "{body}");
        // The worker's employment no longer covers today: they cannot record any more.
        let body = log(app, &worker, m, "work", day + 8 * HOUR, Some(day + 9 * HOUR)).await;
        assert_eq!(codes(&body), ["AUTHORIZATION_ERROR"]);
    }
}

crate::tests! {
    #[needs(Postgres)]
    async fn a_write_cancelled_while_waiting_for_its_lock_holds_nothing() {
        crate::support::with_app(crate::support::Backend::Postgres, |app| Box::pin(cancelled_while_locking(app))).await;
    }
}

/// A client that goes away while its write waits for the worker's lock drops the request's
/// future in the middle of that wait. The connection must go back to the pool with its
/// transaction rolled back: handed back open, it would keep the worker's lock, and every later
/// write for that worker would wait for ever (what sending the lock in `BEGIN`'s own query did:
/// sqlx queues no rollback for a `BEGIN` it has not seen answered).
async fn cancelled_while_locking(app: &TestApp) {
    let Crew { worker, company, .. } = crew(app).await;
    let day = base_day();
    let m = mission(app, &worker, company, "A").await;
    let pool = &app.server.db.pool;
    let mut holder = pool.begin().await.unwrap();
    sqlx::query("SELECT id FROM users WHERE id = $1 FOR UPDATE")
        .bind(worker.id)
        .execute(&mut *holder)
        .await
        .unwrap();
    let impatient = reqwest::Client::builder()
        .timeout(std::time::Duration::from_millis(500))
        .build()
        .unwrap();
    let gone = impatient
        .post(app.url("/api/graphql"))
        .bearer_auth(&worker.token)
        .json(&json!({ "query": LOG, "variables": { "m": m, "t": "drive", "s": day + 6 * HOUR, "e": day + 7 * HOUR, "sw": false } }))
        .send()
        .await;
    assert!(
        gone.is_err_and(|e| e.is_timeout()),
        "the write waited for the held lock"
    );
    holder.rollback().await.unwrap();
    let next = tokio::time::timeout(
        std::time::Duration::from_secs(10),
        log(app, &worker, m, "drive", day + 8 * HOUR, Some(day + 9 * HOUR)),
    )
    .await
    .expect("the next write for the worker is not kept waiting");
    assert!(next["errors"].is_null(), "{next}");
    let (activities,): (i64,) = sqlx::query_as("SELECT COUNT(*) FROM activities")
        .fetch_one(pool)
        .await
        .unwrap();
    assert_eq!(activities, 1, "the cancelled write left nothing");
}
