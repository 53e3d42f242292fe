//! One connection per GraphQL request (`Db::for_request`): the statements of a request
//! share one connection, a loader's batch spawned for it too, and requests that also take
//! connections of their own never starve the pool (the gate leaves connections free).

use std::time::Duration;

use roadlog::db::Db;

/// A temporary table lives in its connection only: who finds it ran on the connection that
/// made it.
async fn probe_table_is_visible(db: &Db) -> bool {
    sqlx::query_as::<_, (i64,)>("SELECT n FROM request_probe")
        .fetch_one(db)
        .await
        .map(|row| row.0 == 7)
        .unwrap_or(false)
}

on_both_backends! {
    async fn a_request_runs_its_statements_and_its_loaders_on_one_connection(app) {
        let db = app.server.db.clone();
        let request = db.for_request();
        sqlx::query("CREATE TEMPORARY TABLE request_probe (n BIGINT)").execute(&request).await.unwrap();
        sqlx::query("INSERT INTO request_probe (n) VALUES (7)").execute(&request).await.unwrap();
        let inline = probe_table_is_visible(&request).await;
        // A loader's batch runs in a task of its own, with a clone of the request's `Db`.
        let carried = request.clone();
        let spawned = tokio::spawn(async move { probe_table_is_visible(&carried).await }).await.unwrap();
        // The service's own `Db` runs on another connection of the pool.
        let outside = probe_table_is_visible(&db).await;
        sqlx::query("DROP TABLE request_probe").execute(&request).await.unwrap();
        assert!(inline, "the second statement ran on the first one's connection");
        assert!(spawned, "the spawned batch ran on the request's connection");
        assert!(!outside, "a statement outside the request ran on the request's connection");
    }

    async fn requests_that_take_connections_of_their_own_never_starve_the_pool(app) {
        // Five times as many requests as connections, each holding its request connection
        // while it takes one more from the pool: without the gate, every connection would be
        // held by a request waiting for another one, until the pool's timeout.
        let db = app.server.db.clone();
        let tasks: Vec<_> = (0..40)
            .map(|i| {
                let db = db.clone();
                tokio::spawn(async move {
                    let request = db.for_request();
                    let (first,): (i64,) = sqlx::query_as("SELECT CAST($1 AS BIGINT)").bind(i).fetch_one(&request).await?;
                    let mut own = db.pool.acquire().await?;
                    tokio::time::sleep(Duration::from_millis(5)).await;
                    let (second,): (i64,) = sqlx::query_as("SELECT CAST($1 AS BIGINT)").bind(i + 1).fetch_one(&mut *own).await?;
                    drop(own);
                    let (third,): (i64,) = sqlx::query_as("SELECT CAST($1 AS BIGINT)").bind(i + 2).fetch_one(&request).await?;
                    Ok::<_, sqlx::Error>(first + second + third)
                })
            })
            .collect();
        for (i, task) in tasks.into_iter().enumerate() {
            let sum = task.await.unwrap().expect("every request got its connections");
            assert_eq!(sum, 3 * i as i64 + 3);
        }
    }
}
