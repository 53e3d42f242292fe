//! Benchmark of the C1B export: 1,000 employees × 28 days × 6 activities a day, unsigned and
//! signed, timed over HTTP (first byte and whole archive) with the peak memory of the process.
//! Run it with
//!
//! ```sh
//! cargo test --release --test api -- --ignored export_benchmark
//! EXPORT_BENCH_EMPLOYEES=10000 cargo test --release --test api -- --ignored export_benchmark
//! ```
//!
//! With more than 1,000 employees, the signed cases are left out (the card key pool holds 1,000:
//! the rest would be generated on the spot) and the unsigned export runs twice, the second time
//! with every card key stored, which is the case whose memory compares with 1,000 employees.
//! The archive is read as it arrives and counted, never kept, so the peak memory is the server's.
//! It is ignored in the normal suite: it measures, it does not assert timings.

use std::time::Instant;

use serde_json::json;

use crate::support::{Backend, TestApp};

const DAYS: i64 = 28;
/// The pool an operator would keep for a company of 1,000.
const POOL: i64 = 1000;

fn employees() -> i64 {
    std::env::var("EXPORT_BENCH_EMPLOYEES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1000)
}

/// Peak resident memory since the last reset, in MiB (Linux).
fn peak_mib() -> f64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let kib: f64 = status
        .lines()
        .find(|l| l.starts_with("VmHWM:"))
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|v| v.parse().ok())
        .unwrap_or(0.0);
    kib / 1024.0
}

fn reset_peak() {
    let _ = std::fs::write("/proc/self/clear_refs", "5");
}

tests! {
#[needs(OnDemand)]
async fn export_a_thousand_drivers() {
    let n = employees();
    // The card key pool sized for a company of 1,000, as an operator would size it.
    let started = Instant::now();
    let app = TestApp::spawn_with(Backend::Sqlite, |s| s.card_key_pool = POOL as usize)
        .await;
    let admin = app.new_user("admin@example.com").await;
    let company = app.new_company(&admin, "Big Transport").await;
    let pool = &app.server.db.pool;
    let today = chrono::Utc::now().timestamp() / 86_400 * 86_400;
    let first_day = today - DAYS * 86_400;

    let seeding = Instant::now();
    let mut tx = pool.begin().await.unwrap();
    let users = crate::support::employments::insert_bare_employees(&mut tx, company, 200_000_000, n).await;
    let starts: Vec<i64> = (0..DAYS).map(|d| first_day + d * 86_400 + 6 * 3600).collect();
    for user in users {
        crate::support::employments::insert_days_of_work(&mut tx, company, user, &starts).await;
    }
    tx.commit().await.unwrap();
    eprintln!(
        "seeded {n} employees × {DAYS} days × 6 activities in {:.1} s",
        seeding.elapsed().as_secs_f64()
    );

    // The background fill of an empty pool (the seeding above ran meanwhile).
    loop {
        let (count,): (i64,) = sqlx::query_as("SELECT COUNT(*) FROM tachograph_card_key_pool")
            .fetch_one(pool)
            .await
            .unwrap();
        if count >= POOL {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(200)).await;
    }
    eprintln!(
        "card key pool of {POOL} filled {:.1} s after the server started",
        started.elapsed().as_secs_f64()
    );

    let cases: &[(&str, bool)] = if n <= POOL {
        &[
            ("unsigned", false),
            ("signed, card keys from the pool", true),
            ("signed, card keys stored", true),
        ]
    } else {
        &[("unsigned, card keys made", false), ("unsigned, card keys stored", false)]
    };
    for &(label, signed) in cases {
        reset_peak();
        let before = peak_mib();
        let started = Instant::now();
        let mut response = app
            .client
            .post(app.url("/companies/generate_tachograph_files"))
            .bearer_auth(&admin.token)
            .json(&json!({ "company_ids": [company], "with_digital_signatures": signed }))
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 200);
        let headers = started.elapsed().as_secs_f64();
        let mut first_byte = None;
        let mut length = 0;
        while let Some(chunk) = response.chunk().await.unwrap() {
            first_byte.get_or_insert_with(|| started.elapsed().as_secs_f64());
            length += chunk.len();
        }
        let elapsed = started.elapsed().as_secs_f64();
        eprintln!(
            "{n} employees, {label}: headers {:.0} ms, first byte {:.0} ms, whole {:.2} s, archive {:.1} MiB, peak resident memory {:.0} MiB (was {:.0} MiB before the request)",
            headers * 1000.0,
            first_byte.unwrap_or(elapsed) * 1000.0,
            elapsed,
            length as f64 / 1048576.0,
            peak_mib(),
            before
        );
    }
    app.cleanup().await;
}
}
