//! The Excel report at scale: 100 and 1,000 employees × 31 days × 6 activities a day, queued,
//! built by the service's worker and downloaded, with the time it took and the peak resident
//! memory of the process (the server runs inside it). Run it with
//!
//! ```sh
//! cargo test --release --test api -- --ignored export_report_at_scale
//! ```
//!
//! It asserts what a user relies on (the job finishes, the file is a workbook or a ZIP of
//! workbooks whose `Activités` sheets hold every worker) and prints the figures, which
//! `bench/README.md` keeps; it does not assert timings.

use std::time::Instant;

use super::*;

const DAYS: i64 = 31;

/// Peak resident memory since the last reset, in MiB (Linux).
fn peak_mib() -> f64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find(|l| l.starts_with("VmHWM:"))
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|v| v.parse::<f64>().ok())
        .unwrap_or(0.0)
        / 1024.0
}

fn reset_peak() {
    let _ = std::fs::write("/proc/self/clear_refs", "5");
}

/// `n` workers of `company`, each with a mission a day of March 2026 and six activities in it.
async fn seed(app: &TestApp, company: i64, first_id: i64, n: i64) {
    let mut tx = app.server.db.pool.begin().await.unwrap();
    let users = crate::support::employments::insert_bare_employees(&mut tx, company, first_id, n).await;
    let starts: Vec<i64> = (1..=DAYS).map(|d| paris(&format!("2026-03-{d:02}"), 6, 0)).collect();
    for user in users {
        crate::support::employments::insert_days_of_work(&mut tx, company, user, &starts).await;
    }
    tx.commit().await.unwrap();
}

/// How many seeded workers the `Activités` sheets name of a downloaded file (an xlsx or a ZIP of them).
fn workers_in(bytes: &[u8]) -> usize {
    let mut archive = zip::ZipArchive::new(Cursor::new(bytes)).unwrap();
    // A workbook is a ZIP too: one with `[Content_Types].xml` is the workbook itself.
    let sheets: Vec<Vec<u8>> = if archive.by_name("[Content_Types].xml").is_err() {
        (0..archive.len())
            .map(|i| {
                let mut file = archive.by_index(i).unwrap();
                let mut out = Vec::new();
                file.read_to_end(&mut out).unwrap();
                out
            })
            .collect()
    } else {
        vec![bytes.to_vec()]
    };
    let mut names = std::collections::BTreeSet::new();
    for sheet in sheets {
        let mut workbook: Xlsx<_> = open_workbook_from_rs(Cursor::new(sheet)).unwrap();
        let range = workbook.worksheet_range("Activités").unwrap();
        // The seeded workers are all "Jean Driver<n>", the sheet names them in several forms:
        // their numbers, wherever the sheet puts them.
        for cell in range.used_cells() {
            if let (_, _, Data::String(text)) = cell
                && let Some(at) = text.find("Driver")
            {
                let number: String = text[at + 6..].chars().take_while(char::is_ascii_digit).collect();
                names.insert(number);
            }
        }
    }
    names.len()
}

tests! {
#[needs(OnDemand)]
async fn export_report_at_scale() {
    // A server each, one after the other (the peak is the process's, reset before each job).
    for n in [100_i64, 1000] {
        let app = TestApp::spawn_with(crate::support::Backend::Sqlite, |_| {}).await;
        let admin = app.new_user("admin@example.com").await;
        let company = app.new_company(&admin, &format!("Transports {n}")).await;
        let seeding = Instant::now();
        seed(&app, company, 600_000_000, n).await;
        eprintln!("seeded {n} employees × {DAYS} days × 6 activities in {:.1} s", seeding.elapsed().as_secs_f64());
        reset_peak();
        let before = peak_mib();
        let started = Instant::now();
        let body = json!({ "company_ids": [company], "min_date": "2026-03-01", "max_date": "2026-03-31" });
        let (status, answer) = post(&app, "/companies/download_activity_report", Some(&admin), Some(body)).await;
        assert_eq!(status, StatusCode::ACCEPTED, "{answer}");
        let link = loop {
            let (status, body) = post(&app, "/exports/checkout", Some(&admin), None).await;
            assert_eq!(status, StatusCode::OK, "{body}");
            if let Some(link) = body["ready_exports_links"].as_array().and_then(|l| l.first()) {
                break link.as_str().unwrap().to_string();
            }
            assert_eq!(body["nb_wip_exports"], 1, "the job failed: {body}");
            assert!(started.elapsed() < Duration::from_secs(1800), "not built in 30 minutes");
            tokio::time::sleep(Duration::from_millis(100)).await;
        };
        let built = started.elapsed().as_secs_f64();
        let bytes = app.client.get(&link).send().await.unwrap().bytes().await.unwrap();
        let peak = peak_mib();
        assert_eq!(workers_in(&bytes), n as usize, "every worker is in the report");
        eprintln!(
            "{n} employees × {DAYS} days: built in {built:.2} s, file {:.1} MiB, peak resident memory {peak:.0} MiB (was {before:.0} MiB before the job)",
            bytes.len() as f64 / 1048576.0
        );
        app.cleanup().await;
    }
}
}
