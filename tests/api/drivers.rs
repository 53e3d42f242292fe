//! The measurement behind the choice of database driver, on demand:
//!
//! ```sh
//! cargo test --release --test api -- --ignored drivers
//! ```
//!
//! The same page of 50 missions is read many times through sqlx's `Any` driver (as configured
//! by the service, and without the ping before each acquire) and through the native SQLite and
//! PostgreSQL drivers; the time per query is printed. Nothing is asserted about time.

use std::str::FromStr;
use std::time::{Duration, Instant};

use roadlog::config::{DatabaseArgs, Environment};
use sqlx::Row;

use crate::support::app::postgres_url;
use crate::support::cleanup;

const QUERY: &str = "SELECT m.id, m.name, m.company_id, m.submitter_id, m.reception_time, m.context, m.vehicle_id, \
     m.past_registration_justification FROM missions m WHERE m.company_id = $1 ORDER BY m.id DESC LIMIT 50";
const ROUNDS: usize = 3000;

async fn seed(url: &str) -> i64 {
    let db = roadlog::server::open_database(&DatabaseArgs::new(Environment::Sandbox, Some(url.to_string())))
        .await
        .unwrap();
    let (user,): (i64,) = sqlx::query_as(
        "INSERT INTO users (id, email, password_hash, first_name, last_name, timezone_name, creation_time)
         VALUES (123456789, 'd@example.com', 'x', 'D', 'D', 'Europe/Paris', 0) RETURNING id",
    )
    .fetch_one(&db.pool)
    .await
    .unwrap();
    let (company,): (i64,) = sqlx::query_as(
        "INSERT INTO companies (usual_name, siren, creation_time) VALUES ('C', '123456789', 0) RETURNING id",
    )
    .fetch_one(&db.pool)
    .await
    .unwrap();
    for i in 0..200 {
        sqlx::query(
            "INSERT INTO missions (name, company_id, submitter_id, reception_time, creation_time, context)
             VALUES ($1, $2, $3, $4, $4, '{\"source\":\"bench\"}')",
        )
        .bind(format!("Mission {i}"))
        .bind(company)
        .bind(user)
        .bind(1_700_000_000 + i)
        .execute(&db.pool)
        .await
        .unwrap();
    }
    db.pool.close().await;
    company
}

fn per_query(elapsed: Duration) -> String {
    format!("{:.1} µs", elapsed.as_secs_f64() * 1e6 / ROUNDS as f64)
}

/// Reads the page `ROUNDS` times through `fetch`, after a warm-up.
async fn time<F, Fut>(mut fetch: F) -> Duration
where
    F: FnMut() -> Fut,
    Fut: Future<Output = usize>,
{
    for _ in 0..100 {
        assert_eq!(fetch().await, 50);
    }
    let started = Instant::now();
    for _ in 0..ROUNDS {
        fetch().await;
    }
    started.elapsed()
}

macro_rules! decode_all {
    ($rows:expr) => {{
        let mut n = 0;
        for row in $rows {
            let _: i64 = row.get("id");
            let _: Option<String> = row.get("name");
            let _: i64 = row.get("company_id");
            let _: i64 = row.get("submitter_id");
            let _: i64 = row.get("reception_time");
            let _: Option<String> = row.get("context");
            let _: Option<i64> = row.get("vehicle_id");
            let _: Option<String> = row.get("past_registration_justification");
            n += 1;
        }
        n
    }};
}

tests! {
    #[needs(OnDemand)]
    async fn drivers_compared_on_one_page_of_missions() {
        let mut urls = vec![("SQLite", format!("sqlite://{}/bench.db?mode=rwc", cleanup::new_dir().display()))];
        if let Some(admin) = postgres_url() {
            let name = cleanup::unique_name();
            let mut conn = <sqlx::AnyConnection as sqlx::Connection>::connect(&admin).await.unwrap();
            sqlx::query(sqlx::AssertSqlSafe(format!("CREATE DATABASE {name}"))).execute(&mut conn).await.unwrap();
            cleanup::register_database(&admin, &name);
            let mut url = url::Url::parse(&admin).unwrap();
            url.set_path(&format!("/{name}"));
            urls.push(("PostgreSQL", url.to_string()));
        }
        for (backend, url) in urls {
            let company = seed(&url).await;
            // The service's pool (Any, ping before each acquire).
            let db = roadlog::db::Db::connect(&url).await.unwrap();
            let any = time(|| {
                let pool = db.pool.clone();
                async move { decode_all!(sqlx::query(QUERY).bind(company).fetch_all(&pool).await.unwrap()) }
            })
            .await;
            // Any without the ping.
            let options = sqlx::any::AnyConnectOptions::from_str(&url).unwrap();
            let unpinged = sqlx::any::AnyPoolOptions::new()
                .test_before_acquire(false)
                .max_connections(4)
                .connect_with(options)
                .await
                .unwrap();
            let any_unpinged = time(|| {
                let pool = unpinged.clone();
                async move { decode_all!(sqlx::query(QUERY).bind(company).fetch_all(&pool).await.unwrap()) }
            })
            .await;
            // The native driver, without the ping, statements cached.
            let native = if backend == "SQLite" {
                let pool = sqlx::sqlite::SqlitePoolOptions::new()
                    .test_before_acquire(false)
                    .max_connections(4)
                    .connect(&url)
                    .await
                    .unwrap();
                time(|| {
                    let pool = pool.clone();
                    async move { decode_all!(sqlx::query(QUERY).bind(company).fetch_all(&pool).await.unwrap()) }
                })
                .await
            } else {
                let pool = sqlx::postgres::PgPoolOptions::new()
                    .test_before_acquire(false)
                    .max_connections(4)
                    .connect(&url)
                    .await
                    .unwrap();
                time(|| {
                    let pool = pool.clone();
                    async move { decode_all!(sqlx::query(QUERY).bind(company).fetch_all(&pool).await.unwrap()) }
                })
                .await
            };
            println!(
                "{backend}: 50 missions per query: Any as configured {}, Any without ping {}, native without ping {}",
                per_query(any),
                per_query(any_unpinged),
                per_query(native)
            );
        }
    }
}
