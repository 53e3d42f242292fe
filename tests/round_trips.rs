//! A query for many missions with their activities makes a bounded number of database round
//! trips: the count is measured by counting the statements sqlx reports (target `sqlx::query`)
//! while the server answers, for 10 and for 100 missions, on both databases.

mod common;

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use serde_json::json;
use tracing_subscriber::layer::{Context, SubscriberExt};
use tracing_subscriber::{Layer, Registry};

use common::{Backend, TestApp};

static MEASURING: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

struct StatementCounter(Arc<AtomicUsize>);

/// The background mail sender polls the outbox whatever the requests do: not the request's work.
fn is_mail_sender(event: &tracing::Event<'_>) -> bool {
    struct Summary(bool);
    impl tracing::field::Visit for Summary {
        fn record_debug(&mut self, field: &tracing::field::Field, value: &dyn std::fmt::Debug) {
            if field.name() == "summary" {
                self.0 = format!("{value:?}").contains("emails");
            }
        }
    }
    let mut summary = Summary(false);
    event.record(&mut summary);
    summary.0
}

impl<S: tracing::Subscriber> Layer<S> for StatementCounter {
    fn on_event(&self, event: &tracing::Event<'_>, _: Context<'_, S>) {
        if event.metadata().target() == "sqlx::query" && !is_mail_sender(event) {
            self.0.fetch_add(1, Ordering::SeqCst);
            if std::env::var_os("SHOW_STATEMENTS").is_some() && MEASURING.load(Ordering::SeqCst) {
                struct Summary(String);
                impl tracing::field::Visit for Summary {
                    fn record_debug(&mut self, field: &tracing::field::Field, value: &dyn std::fmt::Debug) {
                        if field.name() == "summary" {
                            self.0 = format!("{value:?}");
                        }
                    }
                    fn record_str(&mut self, field: &tracing::field::Field, value: &str) {
                        if field.name() == "summary" {
                            self.0 = value.to_string();
                        }
                    }
                }
                let mut summary = Summary(String::new());
                event.record(&mut summary);
                eprintln!("statement: {}", summary.0);
            }
        }
    }
}

/// One global counter for this test binary (its only test).
fn counter() -> Arc<AtomicUsize> {
    static COUNT: std::sync::OnceLock<Arc<AtomicUsize>> = std::sync::OnceLock::new();
    COUNT
        .get_or_init(|| {
            let count = Arc::new(AtomicUsize::new(0));
            let filter = tracing_subscriber::filter::Targets::new().with_target("sqlx::query", tracing::Level::TRACE);
            let subscriber = Registry::default().with(StatementCounter(count.clone()).with_filter(filter));
            tracing::subscriber::set_global_default(subscriber).expect("one subscriber per test binary");
            count
        })
        .clone()
}

const QUERY: &str = "query($c: Int!, $n: Int) { company(id: $c) { missions(first: $n) { edges { node {
    id name submitter { id } vehicle { id } company { name }
    activities { id type startTime endTime user { id } versions { id submitter { id } } }
    expenditures { id } validations { id } comments { id } startLocation { id } endLocation { id }
} } } } }";

/// Seeds `missions` missions of 3 activities each, directly in the database, and counts the
/// statements of the query that reads them all.
async fn statements_for(app: &TestApp, missions: i64) -> usize {
    let admin = app.new_user(&format!("admin{missions}@example.com")).await;
    let company = app.new_company(&admin, "Big").await;
    let pool = &app.server.db.pool;
    let base = 1_700_000_000 - 1_700_000_000 % 86_400;
    for i in 0..missions {
        let (mission,): (i64,) = sqlx::query_as(
            "INSERT INTO missions (name, company_id, submitter_id, reception_time, creation_time) VALUES ($1, $2, $3, $4, $4) RETURNING id",
        )
        .bind(format!("M{i}"))
        .bind(company)
        .bind(admin.id)
        .bind(base)
        .fetch_one(pool)
        .await
        .unwrap();
        for k in 0..3 {
            let start = base + i * 86_400 + k * 3600;
            let (activity,): (i64,) = sqlx::query_as(
                "INSERT INTO activities (mission_id, user_id, submitter_id, type, reception_time, creation_time, start_time, end_time, last_update_time)
                 VALUES ($1, $2, $2, 'drive', $3, $3, $3, $4, $4) RETURNING id",
            )
            .bind(mission)
            .bind(admin.id)
            .bind(start)
            .bind(start + 1800)
            .fetch_one(pool)
            .await
            .unwrap();
            sqlx::query(
                "INSERT INTO activity_versions (activity_id, version_number, reception_time, creation_time, start_time, end_time, submitter_id)
                 VALUES ($1, 1, $2, $2, $2, $3, $4)",
            )
            .bind(activity)
            .bind(start)
            .bind(start + 1800)
            .bind(admin.id)
            .execute(pool)
            .await
            .unwrap();
        }
    }
    let variables = json!({ "c": company, "n": missions });
    // Warm the pool so that opening connections is not counted.
    app.as_user(&admin, QUERY, variables.clone()).await;
    let count = counter();
    let before = count.load(Ordering::SeqCst);
    MEASURING.store(true, Ordering::SeqCst);
    let body = app.as_user(&admin, QUERY, variables).await;
    MEASURING.store(false, Ordering::SeqCst);
    let statements = count.load(Ordering::SeqCst) - before;
    assert!(body["errors"].is_null(), "{body}");
    let edges = body["data"]["company"]["missions"]["edges"].as_array().unwrap();
    assert_eq!(edges.len() as i64, missions);
    assert!(
        edges
            .iter()
            .all(|e| e["node"]["activities"].as_array().unwrap().len() == 3)
    );
    statements
}

async fn bounded_on(backend: Backend) {
    counter();
    let Some(app) = TestApp::spawn(backend).await else {
        eprintln!("no PostgreSQL server: run skipped");
        return;
    };
    let ten = statements_for(&app, 10).await;
    let hundred = statements_for(&app, 100).await;
    eprintln!("{backend:?}: {ten} statements for 10 missions, {hundred} for 100");
    assert_eq!(
        ten, hundred,
        "the number of round trips must not grow with the number of missions"
    );
    assert!(hundred <= 16, "{hundred} statements for one query");
    app.cleanup().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_hundred_missions_take_a_bounded_number_of_round_trips() {
    bounded_on(Backend::Sqlite).await;
    bounded_on(Backend::Postgres).await;
}
