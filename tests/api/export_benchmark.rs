//! Benchmark of the C1B export: 1,000 employees × 28 days × 6 activities a day, unsigned and
//! signed, timed over HTTP with the peak memory of the process. Run it with
//!
//! ```sh
//! cargo test --release --test api -- --ignored export_benchmark
//! ```
//!
//! It is ignored in the normal suite: it measures, it does not assert timings.

use std::time::Instant;

use serde_json::json;

use crate::support::{Backend, TestApp};

const EMPLOYEES: i64 = 1000;
const DAYS: i64 = 28;

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
    // The card key pool sized for the company, as an operator would size it.
    let started = Instant::now();
    let app = TestApp::spawn_with(Backend::Sqlite, |s| s.card_key_pool = EMPLOYEES as usize)
        .await
        .unwrap();
    let admin = app.new_user("admin@example.com").await;
    let company = app.new_company(&admin, "Big Transport").await;
    let pool = &app.server.db.pool;
    let today = chrono::Utc::now().timestamp() / 86_400 * 86_400;
    let first_day = today - DAYS * 86_400;

    let seeding = Instant::now();
    let mut tx = pool.begin().await.unwrap();
    for e in 0..EMPLOYEES {
        let user = 200_000_000 + e;
        sqlx::query("INSERT INTO users (id, email, password_hash, first_name, last_name, creation_time) VALUES ($1, $2, 'x', 'Jean', $3, 0)")
            .bind(user)
            .bind(format!("driver{e}@example.com"))
            .bind(format!("Driver{e}"))
            .execute(&mut *tx)
            .await
            .unwrap();
        sqlx::query("INSERT INTO employments (user_id, company_id, reception_time, validation_status, start_date, is_primary) VALUES ($1, $2, 0, 'approved', '2020-01-01', 1)")
            .bind(user)
            .bind(company)
            .execute(&mut *tx)
            .await
            .unwrap();
        let mut missions = Vec::new();
        for d in 0..DAYS {
            let (mission,): (i64,) = sqlx::query_as("INSERT INTO missions (company_id, submitter_id, reception_time, creation_time) VALUES ($1, $2, 0, 0) RETURNING id")
                .bind(company)
                .bind(user)
                .fetch_one(&mut *tx)
                .await
                .unwrap();
            missions.push((d, mission));
        }
        let mut values = Vec::new();
        for (d, mission) in missions {
            let start = first_day + d * 86_400 + 6 * 3600;
            for (k, kind) in ["drive", "work", "drive", "support", "drive", "work"]
                .iter()
                .enumerate()
            {
                let s = start + k as i64 * 5400;
                values.push(format!(
                    "({mission}, {user}, {user}, '{kind}', {s}, {s}, {s}, {}, {})",
                    s + 3600,
                    s + 3600
                ));
            }
        }
        let sql = format!(
            "INSERT INTO activities (mission_id, user_id, submitter_id, type, reception_time, creation_time, start_time, end_time, last_update_time) VALUES {}",
            values.join(", ")
        );
        sqlx::query(sqlx::AssertSqlSafe(sql)).execute(&mut *tx).await.unwrap();
    }
    tx.commit().await.unwrap();
    eprintln!(
        "seeded {EMPLOYEES} employees × {DAYS} days × 6 activities in {:.1} s",
        seeding.elapsed().as_secs_f64()
    );

    // The background fill of an empty pool (the seeding above ran meanwhile).
    loop {
        let (count,): (i64,) = sqlx::query_as("SELECT COUNT(*) FROM tachograph_card_key_pool")
            .fetch_one(pool)
            .await
            .unwrap();
        if count >= EMPLOYEES {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(200)).await;
    }
    eprintln!(
        "card key pool of {EMPLOYEES} filled {:.1} s after the server started",
        started.elapsed().as_secs_f64()
    );

    for (label, signed) in [
        ("unsigned", false),
        ("signed, card keys from the pool", true),
        ("signed, card keys stored", true),
    ] {
        reset_peak();
        let before = peak_mib();
        let started = Instant::now();
        let response = app
            .client
            .post(app.url("/companies/generate_tachograph_files"))
            .bearer_auth(&admin.token)
            .json(&json!({ "company_ids": [company], "with_digital_signatures": signed }))
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 200);
        let bytes = response.bytes().await.unwrap();
        let elapsed = started.elapsed().as_secs_f64();
        eprintln!(
            "{label}: {:.2} s, archive {:.1} MiB, peak resident memory {:.0} MiB (was {:.0} MiB before the request)",
            elapsed,
            bytes.len() as f64 / 1048576.0,
            peak_mib(),
            before
        );
    }
    app.cleanup().await;
}
}
